// src/ui/views/fragment_view.cpp — Fragment view: for the mma.sync the current request's warp
// (its scene builders: src/ui/figure/fragment_scene.cpp)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include "analysis/copies.h"
#include "analysis/fragments.h"
#include "ui/figure/theme.h"
#include "ui/views/views.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

void fragment_view(ViewContext& c) {
  Pane& p = c.pane;
  UiState& state = c.state;
  ImVec2 o, size;
  if (!scene_body(c, o, size)) return;
  const ImVec2 mp = ImGui::GetIO().MousePos;
  const bool over = ImGui::IsWindowHovered();
  const ImVec2 mouse = over ? ImVec2(mp.x - o.x, mp.y - o.y) : ImVec2(-1, -1);
  // The lane under the pointer is lit while it is there; a click keeps it lit.
  Scene probe;
  const FragmentHit hover = fragment_scene(probe, *p.model, p.step, state.fragment_lane, size, mouse);
  Scene sc;
  if (hover.lane >= 0 && hover.lane != state.fragment_lane)
    fragment_scene(sc, *p.model, p.step, hover.lane, size, mouse);
  else
    sc = std::move(probe);
  draw_scene(ImGui::GetWindowDrawList(), sc, o, nullptr);
  ImGui::InvisibleButton("##fragments", size);
  if (hover.lane < 0) return;
  if (ImGui::IsItemClicked()) state.fragment_lane = hover.lane;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s%slane %d · %c%u (register %u of %u) · row %u, column %u",
                      hover.warp >= 0 ? ("warp " + std::to_string(hover.warp)).c_str() : "", hover.warp >= 0 ? " · " : "",
                      hover.lane, hover.matrix == 'C' ? 'c' : char(hover.matrix - 'A' + 'a'), unsigned(hover.cell.elem),
                      unsigned(hover.cell.reg), hover.regs, hover.row, hover.col);
}

}  // namespace ws::ui
