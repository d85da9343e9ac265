// src/ui/views/memory_copies.cpp — the memory view's layers of copies into shared memory: each
// (its scene builders: src/ui/figure/copies_scene.cpp)
#include <algorithm>
#include <cstdio>
#include "ui/figure/theme.h"
#include "ui/views/views.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

void copies_toggle(UiState& s, const Session& m) {
  if (!has_source_columns(m)) return;
  // On the row when it fits there, shortened where only that fits, else on a row of its own.
  const ImGuiStyle& st = ImGui::GetStyle();
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const float room = right - ImGui::GetItemRectMax().x - st.ItemSpacing.x;
  auto fits = [&](const char* label) { return ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize(label).x <= room; };
  const char* label = "colour by source column";
  if (fits(label)) ImGui::SameLine();
  else if (fits("source colours")) label = "source colours", ImGui::SameLine();
  ImGui::Checkbox(label, &s.memory.source_columns);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Tint each shared cell by the 16-byte chunk of the global row its value was copied from:\n"
                      "a plain tile shows stripes, an XOR-swizzled one its pattern.");
}

}  // namespace ws::ui
