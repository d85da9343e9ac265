// src/ui/file_dialog.cpp — Open / save dialogs for .wstrace traces and .wsdeck slide decks: a path field and the
// files of that kind in its folder.
#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <imgui.h>
#include <imgui_stdlib.h>

#include "ui/figure/scene.h"
#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

namespace {

bool dialog(Ui& ui, const char* title, bool& flag, const char* action, const char* ext = ".wstrace") {
  namespace fs = std::filesystem;
  if (flag) {
    ImGui::OpenPopup(title);
    flag = false;
  }
  bool done = false;
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(std::min(760.0f, io.DisplaySize.x - 40), 0), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_NoSavedSettings)) return false;
  ImGui::SetNextItemWidth(-1);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  const std::string hint = std::string("path/to/file") + ext;
  bool enter = ImGui::InputTextWithHint("##path", hint.c_str(), &ui.dialogs.path, ImGuiInputTextFlags_EnterReturnsTrue);
  // Files of this kind next to the path typed so far.
  std::error_code ec;
  fs::path dir = fs::path(ui.dialogs.path).parent_path();
  if (dir.empty()) dir = ".";
  std::vector<std::string> files;
  if (fs::is_directory(dir, ec))
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      if (it->path().extension() == ext) files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  ImGui::BeginChild("##files", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 8), true);
  if (files.empty()) ImGui::TextDisabled("no %s files in %s", ext, dir.string().c_str());
  for (const auto& f : files)
    if (ImGui::Selectable(f.c_str(), f == ui.dialogs.path, ImGuiSelectableFlags_AllowDoubleClick)) {
      ui.dialogs.path = f;
      if (ImGui::IsMouseDoubleClicked(0)) enter = true;
    }
  ImGui::EndChild();
  if (ImGui::Button(action, ImVec2(120, 0)) || enter) {
    done = !ui.dialogs.path.empty();
    if (done) ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel", ImVec2(120, 0)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
    ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return done;
}

}  // namespace

void build_errors_window(Ui& ui) {
  StatusLine& st = ui.status;
  if (st.build_errors.empty()) return;
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(size.x * 0.6f, size.y * 0.5f), ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(size.x * 0.5f, size.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  bool open = true;
  if (ImGui::Begin("The program did not compile###build_errors", &open, ImGuiWindowFlags_NoSavedSettings)) {
    // Every message, file:line:column; the one picked shows its lines below.
    ImGui::BeginChild("##messages", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 5), true);
    for (size_t i = 0; i < st.build_errors.size(); ++i) {
      const program::Diagnostic& d = st.build_errors[i];
      const size_t slash = d.file.find_last_of('/');
      const char* name = d.file.c_str() + (slash == std::string::npos ? 0 : slash + 1);
      char label[512];
      if (d.column)
        std::snprintf(label, sizeof label, "%s:%u:%u  %s: %s##%zu", name, d.line, d.column, d.severity.c_str(),
                      d.message.c_str(), i);
      else
        std::snprintf(label, sizeof label, "%s:%u  %s: %s##%zu", name, d.line, d.severity.c_str(), d.message.c_str(), i);
      if (ImGui::Selectable(label, int(i) == st.build_error_shown)) st.build_error_shown = int(i);
    }
    ImGui::EndChild();
    const program::Diagnostic& d = st.build_errors[size_t(std::clamp(st.build_error_shown, 0, int(st.build_errors.size()) - 1))];
    std::ifstream f(d.file);
    std::vector<std::string> lines;
    for (std::string l; std::getline(f, l);) lines.push_back(l);
    ImGui::BeginChild("##code", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PushFont(font_for(FontRole::Mono));  // the caret lines up under its column
    const uint32_t from = d.line > 4 ? d.line - 4 : 1, to = std::min<uint32_t>(uint32_t(lines.size()), d.line + 4);
    for (uint32_t n = from; n <= to; ++n) {
      const bool here = n == d.line;
      if (here) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(theme().bad));
      ImGui::Text("%5u  %s", n, lines[n - 1].c_str());
      if (here) {
        ImGui::PopStyleColor();
        if (d.column) ImGui::Text("%5s  %*s^", "", int(d.column - 1), "");
      }
    }
    ImGui::PopFont();
    ImGui::EndChild();
  }
  ImGui::End();
  if (!open) st.build_errors.clear();
}

void program_output_window(Ui& ui) {
  if (!ui.dialogs.program_output || !ui.pane.model) return;
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(size.x * 0.5f, size.y * 0.4f), ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(size.x * 0.5f, size.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (ImGui::Begin("What the program printed###program_output", &ui.dialogs.program_output,
                   ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::PushFont(font_for(FontRole::Mono));
    ImGui::TextUnformatted(ui.pane.model->program_output().c_str());
    ImGui::PopFont();
  }
  ImGui::End();
}

void file_dialogs(Ui& ui) {
  if (dialog(ui, "Open trace", ui.dialogs.open, "Open")) ui.open_file(ui.dialogs.path);
  if (dialog(ui, "Open program", ui.dialogs.open_program, "Build and run", ".cu")) {
    session::LaunchSpec spec;
    spec.program.source = ui.dialogs.path;
    ui.open_program(spec);
  }
  if (dialog(ui, "Save trace", ui.dialogs.save, "Save")) {
    std::string p = ui.dialogs.path;
    if (std::filesystem::path(p).extension() != ".wstrace") p += ".wstrace";
    ui.save_file(p);
  }
  if (dialog(ui, "Open deck", ui.slides.state.open, "Open", ".wsdeck")) ui.slides.load(ui.dialogs.path);
  if (dialog(ui, "Save deck", ui.slides.state.save, "Save", ".wsdeck")) {
    std::string p = ui.dialogs.path;
    if (std::filesystem::path(p).extension() != ".wsdeck") p += ".wsdeck";
    ui.slides.save(p);
  }
}

}  // namespace ws::ui
