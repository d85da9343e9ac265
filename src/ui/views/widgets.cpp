// src/ui/views/widgets.cpp — Small shared widgets: number formats, headline figures, help markers.
// (its scene builders: src/ui/figure/format.cpp)
#include <algorithm>
#include <cstdio>
#include "ui/figure/theme.h"
#include "ui/views/views.h"

namespace ws::ui {

bool scene_body(const ViewContext& c, ImVec2& origin, ImVec2& size) {
  const Pane& p = c.pane;
  if (!p.model || p.model->size() == 0) {
    ImGui::TextDisabled(c.busy ? "recording…" : "no requests in this trace");
    return false;
  }
  origin = ImGui::GetCursorScreenPos();
  size = ImGui::GetContentRegionAvail();
  return size.x >= 40 && size.y >= 40;
}

void scene_panel(const ViewContext& c, const char* id, void (*build)(Scene& sc, const Session& m, uint64_t step, ImVec2 size)) {
  const Pane& p = c.pane;
  ImVec2 o, size;
  if (!scene_body(c, o, size)) return;
  Scene sc;
  build(sc, *p.model, p.step, size);
  draw_scene(ImGui::GetWindowDrawList(), sc, o, nullptr);
  ImGui::InvisibleButton(id, size);
}

void help_marker(const char* text) {
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

}  // namespace ws::ui
