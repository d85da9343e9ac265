// Bookmarks (steps a teacher marks with captions, saved in the .wstrace) and the two small
// classroom dialogs: the bookmark caption and the A/B picker.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "ui/theme.h"
#include "ui/ui.h"

namespace ws::ui {

void Ui::add_bookmark(const std::string& caption) {
  if (!pane.model) return;
  auto it = std::lower_bound(bookmarks.begin(), bookmarks.end(), pane.step,
                             [](const trace::Bookmark& b, uint64_t r) { return b.record < r; });
  if (it != bookmarks.end() && it->record == pane.step)
    it->caption = caption;  // one bookmark per step: a second one renames it
  else
    bookmarks.insert(it, trace::Bookmark{pane.step, caption});
  message("bookmark at request " + fmt_count(pane.step) + (caption.empty() ? "" : ": " + caption));
}

bool Ui::remove_bookmark(uint64_t record) {
  auto it = std::find_if(bookmarks.begin(), bookmarks.end(), [&](const trace::Bookmark& b) { return b.record == record; });
  if (it == bookmarks.end()) return false;
  bookmarks.erase(it);
  return true;
}

bool Ui::goto_bookmark(int dir) {
  if (!pane.model || bookmarks.empty()) return false;
  const trace::Bookmark* target = nullptr;
  if (dir > 0) {
    for (const auto& b : bookmarks)
      if (b.record > pane.step) {
        target = &b;
        break;
      }
  } else {
    for (auto it = bookmarks.rbegin(); it != bookmarks.rend(); ++it)
      if (it->record < pane.step) {
        target = &*it;
        break;
      }
  }
  if (!target) {
    message(dir > 0 ? "no bookmark after this step" : "no bookmark before this step");
    return false;
  }
  state.playing = false;
  set_step(target->record);
  if (!target->caption.empty()) message("bookmark: " + target->caption);
  return true;
}

const trace::Bookmark* Ui::bookmark_at(uint64_t record) const {
  for (const auto& b : bookmarks)
    if (b.record == record) return &b;
  return nullptr;
}

void bookmarks_menu(Ui& ui) {
  if (!ImGui::BeginMenu("Bookmarks")) return;
  if (ImGui::MenuItem("Add bookmark here…", "B", false, ui.has_model())) {
    ui.dialogs.bookmark = true;
    const trace::Bookmark* b = ui.bookmark_at(ui.pane.step);
    ui.dialogs.bookmark_caption = b ? b->caption : "";
  }
  if (ImGui::MenuItem("Next bookmark", "N", false, !ui.bookmarks.empty())) ui.goto_bookmark(+1);
  if (ImGui::MenuItem("Previous bookmark", "P", false, !ui.bookmarks.empty())) ui.goto_bookmark(-1);
  if (const trace::Bookmark* b = ui.bookmark_at(ui.pane.step))
    if (ImGui::MenuItem("Remove the bookmark here")) ui.remove_bookmark(b->record);
  ImGui::Separator();
  if (ui.bookmarks.empty()) ImGui::TextDisabled("No bookmarks yet: B marks the current step.");
  uint64_t go = ~uint64_t(0);
  for (size_t i = 0; i < ui.bookmarks.size(); ++i) {
    const auto& b = ui.bookmarks[i];
    char label[256];
    std::snprintf(label, sizeof label, "%zu. %s##bm%zu", i + 1, b.caption.empty() ? "(no caption)" : b.caption.c_str(), i);
    if (ImGui::MenuItem(label, ("request " + fmt_count(b.record)).c_str(), b.record == ui.pane.step)) go = b.record;
  }
  if (go != ~uint64_t(0)) {
    ui.state.playing = false;
    ui.set_step(go);
  }
  ImGui::Separator();
  ImGui::TextDisabled("Saved inside the .wstrace file (File → Save trace).");
  ImGui::EndMenu();
}

void classroom_dialogs(Ui& ui) {
  if (ui.dialogs.bookmark) {
    ImGui::OpenPopup("Bookmark");
    ui.dialogs.bookmark = false;
  }
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.4f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (ImGui::BeginPopupModal("Bookmark", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::Text("Bookmark request %s", fmt_count(ui.pane.step).c_str());
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s", ui.dialogs.bookmark_caption.c_str());
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 26);
    bool enter = ImGui::InputTextWithHint("##caption", "caption, e.g. 32-way conflict on the tile", buf, sizeof buf,
                                          ImGuiInputTextFlags_EnterReturnsTrue);
    ui.dialogs.bookmark_caption = buf;
    if (ImGui::Button("Add") || enter) {
      ui.add_bookmark(ui.dialogs.bookmark_caption);
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }

  if (ui.dialogs.compare) {
    ImGui::OpenPopup("Compare two variants");
    ui.dialogs.compare = false;
    if (ui.dialogs.compare_spec.empty()) ui.dialogs.compare_spec = ui.state.compare;
  }
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.4f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (ImGui::BeginPopupModal("Compare two variants", nullptr,
                             ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::TextUnformatted("A: the kernel in the catalog. B: pick a variant, or type ID[:key=value,...].");
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
