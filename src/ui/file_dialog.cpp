// Open / save dialogs for .wstrace traces and .wsdeck slide decks: a path field and the
// files of that kind in its folder.
#include <algorithm>
#include <filesystem>
#include <imgui.h>
#include <imgui_stdlib.h>

#include "ui/theme.h"
#include "ui/ui.h"

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

void file_dialogs(Ui& ui) {
  if (dialog(ui, "Open trace", ui.dialogs.open, "Open")) ui.open_file(ui.dialogs.path);
  if (dialog(ui, "Open program", ui.dialogs.open_program, "Build and run", ".cu")) {
    session::LaunchSpec spec;
    spec.program = ui.dialogs.path;
    ui.open_program(spec);
  }
  if (dialog(ui, "Save trace", ui.dialogs.save, "Save")) {
    std::string p = ui.dialogs.path;
    if (std::filesystem::path(p).extension() != ".wstrace") p += ".wstrace";
    ui.save_file(p);
  }
  if (dialog(ui, "Open deck", ui.slides.open, "Open", ".wsdeck")) ui.load_deck(ui.dialogs.path);
  if (dialog(ui, "Save deck", ui.slides.save, "Save", ".wsdeck")) {
    std::string p = ui.dialogs.path;
    if (std::filesystem::path(p).extension() != ".wsdeck") p += ".wsdeck";
    ui.save_deck(p);
  }
}

}  // namespace ws::ui
