// src/ui/slides.cpp — the Slides menu (the deck a teacher steps through with N / P, kept
// by SlideController, slide_controller.h) and the small classroom dialogs: the slide
// caption, the A/B picker, and the question before a slide builds and runs a program.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

void slides_menu(Ui& ui) {
  if (!ImGui::BeginMenu("Slides")) return;
  const int here = ui.slides.at(ui.pane);
  if (ImGui::MenuItem(here >= 0 ? "Rename the slide here…" : "Add slide here…", "B", false, ui.has_model())) {
    ui.dialogs.bookmark = true;
    ui.dialogs.bookmark_caption = here >= 0 ? ui.slides.deck.slides[size_t(here)].caption : "";
  }
  if (ImGui::MenuItem("Next slide", "N", false, !ui.slides.deck.slides.empty())) ui.slides.next(+1);
  if (ImGui::MenuItem("Previous slide", "P", false, !ui.slides.deck.slides.empty())) ui.slides.next(-1);
  ImGui::Separator();
  if (ui.slides.deck.slides.empty()) ImGui::TextDisabled("No slides yet: B adds the step on screen.");
  // Each slide: go to it; move it up or down; remove it. Three columns: the caption, the
  // launch and step, the buttons.
  std::vector<std::string> labels, wheres;
  float label_w = 0, where_w = 0;
  for (size_t i = 0; i < ui.slides.deck.slides.size(); ++i) {
    const session::Slide& s = ui.slides.deck.slides[i];
    labels.push_back(std::to_string(i + 1) + ". " + (s.caption.empty() ? "(no caption)" : s.caption));
    wheres.push_back(s.variant_text() + " · request " + std::to_string(session::request_number(s.step)) + " · " + s.view);
    label_w = std::max(label_w, ImGui::CalcTextSize(labels.back().c_str()).x);
    where_w = std::max(where_w, ImGui::CalcTextSize(wheres.back().c_str()).x);
  }
  const float gap = ImGui::GetFontSize() * 1.5f;
  int go = -1, up = -1, down = -1, remove = -1;
  for (size_t i = 0; i < ui.slides.deck.slides.size(); ++i) {
    ImGui::PushID(int(i));
    const float x0 = ImGui::GetCursorPosX();
    if (ImGui::Selectable(labels[i].c_str(), int(i) == here, 0, ImVec2(label_w + gap + where_w, 0))) go = int(i);
    ImGui::SameLine(x0 + label_w + gap);
    ImGui::TextDisabled("%s", wheres[i].c_str());
    ImGui::SameLine(x0 + label_w + gap + where_w + gap);
    if (ImGui::ArrowButton("##up", ImGuiDir_Up) && i > 0) up = int(i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Move up");
    ImGui::SameLine(0, 2);
    if (ImGui::ArrowButton("##down", ImGuiDir_Down) && i + 1 < ui.slides.deck.slides.size()) down = int(i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Move down");
    ImGui::SameLine(0, 2);
    if (ImGui::SmallButton("x")) remove = int(i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Remove this slide");
    ImGui::PopID();
  }
  auto& v = ui.slides.deck.slides;
  if (up > 0) std::swap(v[size_t(up)], v[size_t(up) - 1]);
  if (down >= 0) std::swap(v[size_t(down)], v[size_t(down) + 1]);
  if (remove >= 0) {
    v.erase(v.begin() + remove);
    ui.slides.state.current = -1;
  }
  if (go >= 0) ui.slides.go_to(size_t(go));
  ImGui::Separator();
  if (ImGui::MenuItem("Open deck…")) {
    ui.slides.state.open = true;
    ui.dialogs.path = ui.slides.state.file;
  }
  if (ImGui::MenuItem("Save deck…", nullptr, false, !ui.slides.deck.slides.empty())) {
    ui.slides.state.save = true;
    ui.dialogs.path = ui.slides.state.file.empty() ? "slides.wsdeck" : ui.slides.state.file;
  }
  if (ImGui::MenuItem("Remove all slides", nullptr, false, !ui.slides.deck.slides.empty())) {
    ui.slides.deck.slides.clear();
    ui.slides.state.current = -1;
  }
  ImGui::Separator();
  ImGui::TextDisabled("Saving a trace keeps its launch's slides as its bookmarks.");
  ImGui::TextDisabled("warpscope export --deck FILE --out DIR draws every slide.");
  ImGui::EndMenu();
}

namespace {

// A slide of a program not built yet: the program and the command are named before anything
// runs, since a deck can come from anyone.
void program_slide_dialog(Ui& ui) {
  const int i = ui.slides.confirming();
  static int asked = -1;
  if (i < 0) {
    asked = -1;
    return;
  }
  const session::SlideProgram& p = *ui.slides.deck.slides[size_t(i)].program;
  if (asked != i) {
    ImGui::OpenPopup("Build and run a program?");
    asked = i;
  }
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.4f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal("Build and run a program?", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
    return;
  const float wrap = std::min(io.DisplaySize.x * 0.8f, ImGui::GetFontSize() * 34);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
  ImGui::Text("Slide %d shows a program. Opening it builds and runs:", i + 1);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme().accent), "%s", p.source.c_str());
  ImGui::TextUnformatted(session::program_command(p).c_str());
  ImGui::TextDisabled("A deck can come from anyone: run it only if you trust the program.");
  ImGui::PopTextWrapPos();
  if (ImGui::Button("Build and run")) {
    ImGui::CloseCurrentPopup();
    ui.slides.confirm(true);
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
    ImGui::CloseCurrentPopup();
    ui.slides.confirm(false);
  }
  ImGui::EndPopup();
}

}  // namespace

void classroom_dialogs(Ui& ui) {
  if (ui.dialogs.bookmark) {
    ImGui::OpenPopup("Slide");
    ui.dialogs.bookmark = false;
  }
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.4f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (ImGui::BeginPopupModal("Slide", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::Text("Slide at request %s", fmt_count(session::request_number(ui.pane.step)).c_str());
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s", ui.dialogs.bookmark_caption.c_str());
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 26);
    bool enter = ImGui::InputTextWithHint("##caption", "caption, e.g. 32-way conflict on the tile", buf, sizeof buf,
                                          ImGuiInputTextFlags_EnterReturnsTrue);
    ui.dialogs.bookmark_caption = buf;
    if (ImGui::Button("Add") || enter) {
      ui.slides.add(ui.dialogs.bookmark_caption);
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }

  program_slide_dialog(ui);

  if (ui.dialogs.compare) {
    ImGui::OpenPopup("Compare two variants");
    ui.dialogs.compare = false;
    if (ui.dialogs.compare_spec.empty()) ui.dialogs.compare_spec = ui.state.compare;
  }
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.4f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (ImGui::BeginPopupModal("Compare two variants", nullptr,
                             ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::TextUnformatted("A: the launch on screen. B: pick a variant, type ID[:key=value,...],");
    ImGui::TextUnformatted("or \"launch K\" for another launch of the same program.");
    static const char* presets[][2] = {
        {"transpose_tiled pad 0 vs pad 1", "transpose_tiled:pad=1"},
        {"matmul_coarse2d vs matmul_coarse2d_vec", "matmul_coarse2d_vec"},
        {"matmul_naive vs matmul_naive_colmajor", "matmul_naive_colmajor"},
    };
    static const char* a_side[][2] = {
        {"transpose_tiled", "pad"}, {"matmul_coarse2d", ""}, {"matmul_naive", ""}};
    for (int i = 0; i < 3; ++i)
      if (catalog::find(a_side[i][0]) && ImGui::Selectable(presets[i][0])) {
        ui.state.kernel = a_side[i][0];
        ui.state.size = 0;
        ui.state.params.clear();
        if (*a_side[i][1]) ui.state.params[a_side[i][1]] = 0;
        ui.record();
        ui.dialogs.compare_spec = presets[i][1];
        // A row is a whole comparison: start it (the row closes the dialog).
        std::string why;
        if (!ui.set_compare(presets[i][1], why)) ui.message(why, true);
      }
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s", ui.dialogs.compare_spec.c_str());
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 26);
    bool enter = ImGui::InputText("B side", buf, sizeof buf, ImGuiInputTextFlags_EnterReturnsTrue);
    ui.dialogs.compare_spec = buf;
    static std::string error;
    if (!error.empty()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme().bad), "%s", error.c_str());
    if (ImGui::Button("Compare") || enter) {
      error.clear();
      if (ui.set_compare(ui.dialogs.compare_spec, error)) ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Stop comparing")) {
      ui.set_compare("", error);
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
}

}  // namespace ws::ui
