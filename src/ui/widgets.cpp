// src/ui/widgets.cpp — Small shared widgets: number formats, headline figures, help markers.
#include <algorithm>
#include <cstdio>

#include "ui/theme.h"
#include "ui/ui.h"

namespace ws::ui {

// ---- small shared widgets ----------------------------------------------------------------

std::string fmt_count(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  s.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) s.push_back(',');
    s.push_back(digits[i]);
  }
  return s;
}

std::string fmt_compact(uint64_t n) {
  char b[32];
  if (n < 10000) return std::to_string(n);
  if (n < 1000000) std::snprintf(b, sizeof b, "%.1fk", double(n) / 1e3);
  else if (n < 1000000000) std::snprintf(b, sizeof b, "%.1fM", double(n) / 1e6);
  else std::snprintf(b, sizeof b, "%.1fG", double(n) / 1e9);
  return b;
}

std::string fmt_bytes(uint64_t n) {
  char b[32];
  if (n < 1024)
    std::snprintf(b, sizeof b, "%llu B", (unsigned long long)n);
  else if (n < (1u << 20))
    std::snprintf(b, sizeof b, "%.1f KiB", double(n) / 1024);
  else if (n < (1ull << 30))
    std::snprintf(b, sizeof b, "%.1f MiB", double(n) / (1 << 20));
  else
    std::snprintf(b, sizeof b, "%.2f GiB", double(n) / (1ull << 30));
  return b;
}

bool scene_body(const Ui& ui, const Pane& p, ImVec2& origin, ImVec2& size) {
  if (!p.model || p.model->size() == 0) {
    ImGui::TextDisabled(ui.recorder.busy() ? "recording…" : "no requests in this trace");
    return false;
  }
  origin = ImGui::GetCursorScreenPos();
  size = ImGui::GetContentRegionAvail();
  return size.x >= 40 && size.y >= 40;
}

void scene_panel(const Ui& ui, const Pane& p, const char* id,
                 void (*build)(Scene& sc, const Session& m, uint64_t step, ImVec2 size)) {
  ImVec2 o, size;
  if (!scene_body(ui, p, o, size)) return;
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
