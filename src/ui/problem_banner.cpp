// src/ui/problem_banner.cpp — what stopped the user's program, on the picture: the banner
// (its scene builders: src/ui/figure/problem_scene.cpp)
#include <algorithm>
#include <bit>
#include <cmath>
#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

void problem_banner(Ui& ui) {
  const program::Problem& p = ui.status.problem;
  if (p.empty()) return;
  // A store or a load: what the faulting request did, where the Session has it.
  bool store = false;
  if (ui.pane.model && ui.pane.model->problem_step() >= 0) {
    const session::RequestFigures rv = ui.pane.model->request(uint64_t(ui.pane.model->problem_step()));
    store = rv.site && rv.site->op == trace::Op::Store;
  }
  // In small type where the panel is short (a projector's large type), and past half the
  // panel in a box of its own that scrolls: the grids keep room, and no word is lost.
  Scene sc;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  float head = 0;
  float h = banner_scene(sc, p, avail.x, store, false, &head);
  if (h > avail.y * 0.35f) h = banner_scene(sc = Scene{}, p, avail.x - ImGui::GetStyle().ScrollbarSize, store, true, &head);
  // A short panel (the normal layout at 1280×720, presentation's large type) keeps the
  // headline and two lines in view and the grids their rows; the rest scrolls.
  const float cap = avail.y < 420 ? head : std::floor(avail.y * 0.5f);
  const float shown = std::min(h, cap);
  ImGui::BeginChild("##problem", ImVec2(avail.x, shown), false, shown < h ? 0 : ImGuiWindowFlags_NoScrollbar);
  draw_scene(ImGui::GetWindowDrawList(), sc, ImGui::GetCursorScreenPos(), nullptr);
  // A click takes the view back to what went wrong: its launch and request.
  if (ImGui::InvisibleButton("##problem_go", ImVec2(std::max(1.0f, sc.size.x), std::max(1.0f, h)))) ui.show_problem();
  if (ImGui::IsItemHovered() && p.launch) {
    ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    ImGui::SetTooltip("click: launch %u%s", p.launch, p.record >= 0 ? ", at the request where it happened" : "");
  }
  ImGui::EndChild();
  ui.status.banner_min = ImGui::GetItemRectMin();
  ui.status.banner_max = ImGui::GetItemRectMax();
  ImGui::Dummy(ImVec2(avail.x, 4));
}

}  // namespace ws::ui
