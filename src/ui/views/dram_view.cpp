// src/ui/views/dram_view.cpp — DRAM view: channels × banks of the teaching model for the current barrier epoch (a
// (its scene builders: src/ui/figure/dram_scene.cpp)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include "ui/figure/theme.h"
#include "ui/views/views.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

void dram_view(ViewContext& c) {
  UiState& s = c.state;
  Pane& p = c.pane;
  if (c.veil) {
    // The request's bursts would give a lesson's answer away (16 bursts: 4 sectors).
    ImGui::TextDisabled("Hidden until you answer in the lesson panel.");
    return;
  }
  // Preset and array choice.
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("model");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  if (ImGui::BeginCombo("##preset", s.dram.preset.c_str())) {
    for (const auto& name : analysis::dram_presets())
      if (ImGui::Selectable(name.c_str(), name == s.dram.preset) && name != s.dram.preset) {
        s.dram.preset = name;
        c.sink.request_reanalyze();
      }
    ImGui::EndCombo();
  }
  if (!p.model) return;
  const Session& m = *p.model;
  const auto& tr = m.trace();
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  // Which array: the request's (following it as it moves), all of them, or one.
  using Choice = session::DramChoice;
  Choice& choice = s.dram.array;
  const session::DramArray shown = session::dram_array_at(m, p.step, choice);
  auto name_of = [&](uint32_t b) { return b < tr.buffers.size() ? tr.buffers[b].name : std::string(); };
  const std::string preview = choice.kind == Choice::Kind::Follow
                                  ? (!shown.all() ? "follow: " + name_of(shown.buffer) : std::string("follow request"))
                              : choice.kind == Choice::Kind::Array && !name_of(choice.buffer).empty()
                                  ? name_of(choice.buffer)
                                  : std::string("all arrays");
  if (ImGui::BeginCombo("##array", preview.c_str())) {
    if (ImGui::Selectable("follow the request's array", choice == Choice::follow())) choice = Choice::follow();
    if (ImGui::Selectable("all arrays", choice == Choice::all())) choice = Choice::all();
    for (uint32_t i = 0; i < tr.buffers.size(); ++i)
      if (tr.buffers[i].space == trace::Space::Global &&
          ImGui::Selectable(tr.buffers[i].name.c_str(), choice == Choice::array(i)))
        choice = Choice::array(i);
    ImGui::EndCombo();
  }
  const ImVec2 o = ImGui::GetCursorScreenPos(), avail = ImGui::GetContentRegionAvail();
  if (avail.x < 40 || avail.y < 40) return;
  Scene sc;
  dram_panel_scene(sc, m, p.request(), choice, avail);
  draw_scene(ImGui::GetWindowDrawList(), sc, o, nullptr);
  ImGui::Dummy(avail);
}

}  // namespace ws::ui
