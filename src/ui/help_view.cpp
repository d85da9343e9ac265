// The help overlay (F1 or ?): every shortcut, in one place.
#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

void help_overlay(Ui& ui) {
  if (!ui.state.show_help) return;
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImGui::ColorConvertU32ToFloat4(theme().popup_bg));
  ImGui::PushStyleColor(ImGuiCol_Border, ImGui::ColorConvertU32ToFloat4(theme().accent));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(22, 18));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 1);
  ImGui::Begin("Keyboard shortcuts", &ui.state.show_help,
               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoMove);
  static const char* rows[][2] = {
      {"Space", "play / pause"},
      {"→  /  ←", "next / previous request"},
      {"Shift+→ / Shift+←,  ↓ / ↑", "next / previous warp"},
      {"Ctrl+→ / Ctrl+←,  Page Down / Up", "next / previous barrier epoch"},
      {"Home / End", "first / last request"},
      {"+  /  −", "play faster / slower"},
      {"L", "loop at the end"},
      {"H", "heat layer on / off"},
      {"F", "follow the current request: zoom and pan the memory view to it"},
      {"1 … 7", "enlarge a panel (catalog, memory, warp, DRAM, source, timing, lesson)"},
      {"0  or  Esc", "back to the full layout"},
      {"mouse wheel / drag", "zoom / pan a memory grid (double-click: fit)"},
      {"click / drag the strip", "scrub through the trace"},
      {"Ctrl+O / Ctrl+S", "open / save a .wstrace file"},
      {"Ctrl+E", "export the view at this step as a figure (PNG / SVG)"},
      {"F5", "presentation mode: large type, light theme, colour-blind-safe lanes"},
      {"C", "compare two variants side by side (A/B, locked to the same step)"},
      {"B", "add this step as a slide, with a caption"},
      {"N  /  P", "next / previous slide (switches kernel and parameters)"},
      {"F11", "full screen (for the projector)"},
      {"F12", "save a screenshot (PNG)"},
      {"Ctrl +  /  Ctrl −", "larger / smaller text"},
      {"F1  or  ?", "this help"},
  };
  if (ImGui::BeginTable("##keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_PadOuterX)) {
    ImGui::TableSetupColumn("key", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("action", ImGuiTableColumnFlags_WidthFixed);
    for (const auto& r : rows) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::PushFont(font_for(FontRole::Bold));
      ImGui::TextUnformatted(r[0]);
      ImGui::PopFont();
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(r[1]);
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  if (theme().cb_lanes)
    ImGui::TextDisabled("Colours: lanes run from deep blue (lane 0) through teal and green to ochre (lane 31).");
  else
    ImGui::TextDisabled("Colours: each lane has its own hue, from red (lane 0) to magenta (lane 31).");
  ImGui::TextDisabled("White outline: a 32-byte sector · amber outline: a 128-byte line · red rim: bank conflict.");
  ImGui::End();
  ImGui::PopStyleVar(2);
  ImGui::PopStyleColor(2);
}

}  // namespace ws::ui
