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

namespace {

// A click on the banner takes the view back to what went wrong: its launch and request.
void clickable(Ui& ui, ImVec2 size) {
  const program::Problem& p = ui.status.problem;
  if (ImGui::InvisibleButton("##problem_go", ImVec2(std::max(1.0f, size.x), std::max(1.0f, size.y)))) ui.show_problem();
  if (ImGui::IsItemHovered() && p.launch) {
    ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    ImGui::SetTooltip("click: launch %u%s", p.launch, p.record >= 0 ? ", at the request where it happened" : "");
  }
}

}  // namespace

void problem_banner(Ui& ui, const Pane& pane, bool foot) {
  const program::Problem& p = ui.status.problem;
  if (p.empty()) return;
  // A store or a load: what the faulting request did; and where the pane shows another
  // launch than the one it happened in, which one ('in launch 2, transposeTiled<0>').
  const bool store = pane.model && pane.model->problem_store();
  std::string elsewhere;
  if (pane.model && p.launch > 0 && p.launch - 1 != pane.model->launch() && p.launch <= pane.model->launches())
    elsewhere = "in launch " + std::to_string(p.launch) + ", " + pane.model->whole_trace().launches[p.launch - 1].kernel;
  // In small type where the panel is short (a projector's large type), and past half the
  // panel in a box of its own that scrolls: the grids keep room, and no word is lost.
  Scene sc;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (foot) {
    // A panel too short for the box (an A/B side in presentation): one line over the
    // foot of the grids, which keep the whole panel.
    if (ui.status.banner_foot != &pane) return;
    const float h = banner_line_scene(sc, p, avail.x, store, elsewhere);
    const ImVec2 at(ImGui::GetCursorScreenPos().x, ImGui::GetCursorScreenPos().y - h);
    draw_scene(ImGui::GetWindowDrawList(), sc, at, nullptr);
    ImGui::SetCursorScreenPos(at);
    clickable(ui, ImVec2(avail.x, h));
    return;
  }
  float head = 0, title = 0;
  float h = banner_scene(sc, p, avail.x, store, false, &head, &title, elsewhere);
  if (h > avail.y * 0.35f)
    h = banner_scene(sc = Scene{}, p, avail.x - ImGui::GetStyle().ScrollbarSize, store, true, &head, &title, elsewhere);
  // A short panel (the normal layout at 1280×720, presentation's large type) keeps the
  // headline and two lines in view and the grids their rows; the rest scrolls. A panel
  // shorter still (an A/B side in presentation) keeps the headline alone above five
  // rows' height of grid.
  const float grid_least = ImGui::GetTextLineHeightWithSpacing() * 5;
  ui.status.banner_foot = avail.y - title < grid_least ? &pane : nullptr;
  if (ui.status.banner_foot) return;  // drawn at the panel's foot (foot = true)
  const float cap = std::min(avail.y < 420 ? head : std::floor(avail.y * 0.5f), std::max(title, avail.y - grid_least));
  const float shown = std::min(h, cap);
  ImGui::BeginChild("##problem", ImVec2(avail.x, shown), false, shown < h ? 0 : ImGuiWindowFlags_NoScrollbar);
  draw_scene(ImGui::GetWindowDrawList(), sc, ImGui::GetCursorScreenPos(), nullptr);
  clickable(ui, ImVec2(sc.size.x, h));
  ImGui::EndChild();
  ui.status.banner_min = ImGui::GetItemRectMin();
  ui.status.banner_max = ImGui::GetItemRectMax();
  ImGui::Dummy(ImVec2(avail.x, 4));
}

}  // namespace ws::ui
