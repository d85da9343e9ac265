// Slides (a deck of kernel, parameters, step, view and caption that a teacher steps
// through with N / P, kept across recordings and saved as a .wsdeck; the slides of the
// trace on screen are also its bookmarks in a .wstrace) and the two small classroom
// dialogs: the slide caption and the A/B picker.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ui/theme.h"
#include "ui/ui.h"

namespace ws::ui {

namespace {

// The figure view of the panel on screen: the enlarged one when it has a figure, else the
// warp inspector, the diagram every layout keeps.
std::string view_on_screen(const UiState& s) {
  if (s.enlarged < 0) return "warp";
  const std::string key = panel_key(Panel(s.enlarged));
  const auto& views = session::slide_views();
  return std::find(views.begin(), views.end(), key) != views.end() ? key : "warp";
}

}  // namespace

bool Ui::slide_on(const session::Slide& s, const Pane& p) const {
  return p.model && session::same_variant(s, p.model->trace().launch().kernel, p.model->trace().launch().params);
}

int Ui::slide_at(const Pane& p) const {
  for (size_t i = 0; i < deck.slides.size(); ++i)
    if (deck.slides[i].step == p.step && slide_on(deck.slides[i], p)) return int(i);
  return -1;
}

void Ui::add_slide(const std::string& caption) {
  if (!pane.model) return;
  const auto& l = pane.model->trace().launch();
  const std::string view = view_on_screen(state);
  if (int i = slide_at(pane); i >= 0) {
    // One slide per launch and step: a second one renames it (and takes the view on screen).
    deck.slides[size_t(i)].caption = caption;
    deck.slides[size_t(i)].view = view;
    slides.current = i;
    message("slide " + std::to_string(i + 1) + " renamed" + (caption.empty() ? "" : ": " + caption));
    return;
  }
  deck.slides.push_back(session::slide_of(l.kernel, l.params, pane.step, view, caption));
  slides.current = int(deck.slides.size()) - 1;
  message("slide " + std::to_string(deck.slides.size()) + " at request " + fmt_count(session::request_number(pane.step)) +
          (caption.empty() ? "" : ": " + caption));
}

bool Ui::goto_slide(size_t i) {
  if (i >= deck.slides.size()) return false;
  const session::Slide& s = deck.slides[i];
  state.playing = false;
  slides.current = int(i);
  // The slide's view: its panel enlarged, when it is not the warp inspector every layout
  // shows, or when a panel is enlarged already.
  Panel panel;
  const std::string key = s.view == "banks" ? "warp" : s.view;
  if (panel_from_key(key, panel) && (key != "warp" || state.enlarged >= 0)) state.enlarged = int(panel);
  message("slide " + std::to_string(i + 1) + " of " + std::to_string(deck.slides.size()) +
          (s.caption.empty() ? "" : ": " + s.caption));
  if (slide_on(s, pane) && pending_slide_ < 0) {
    set_step(s.step);
    return true;
  }
  // Another launch: the catalog shows the slide's, and its step follows the recording.
  if (!catalog::find(s.kernel)) {
    message("slide " + std::to_string(i + 1) + ": kernel '" + s.kernel + "' is not in this build's catalog", true);
    return false;
  }
  state.kernel = s.kernel;
  state.size = s.size.value_or(0);
  if (const catalog::KernelInfo* k = catalog::find(s.kernel))
    for (const auto& p : k->params) state.params.erase(p.name);  // unset: the kernel's default
  for (const auto& [k, v] : s.params) state.params[k] = v;
  pending_slide_ = int(i);
  record();
  if (!status.record_error.empty()) pending_slide_ = -1;
  return true;
}

bool Ui::next_slide(int dir) {
  if (deck.slides.empty()) {
    message("no slides yet: B adds the step on screen", true);
    return false;
  }
  int from = pending_slide_ >= 0 ? pending_slide_ : slides.current;
  if (int here = slide_at(pane); here >= 0 && pending_slide_ < 0) from = here;
  const int n = int(deck.slides.size());
  const int to = from < 0 ? (dir > 0 ? 0 : n - 1) : from + (dir > 0 ? 1 : -1);
  if (to < 0 || to >= n) {
    message(dir > 0 ? "that was the last slide" : "that was the first slide");
    return false;
  }
  return goto_slide(size_t(to));
}

bool Ui::load_deck(const std::string& path) {
  try {
    deck = session::load_deck(path);
  } catch (const session::InputError& e) {
    message(e.what(), true);
    return false;
  }
  slides.file = path;
  slides.current = -1;
  message("deck " + path + ": " + std::to_string(deck.slides.size()) + " slides (N: next slide)");
  return true;
}

bool Ui::save_deck(const std::string& path) {
  try {
    session::save_deck(deck, path);
  } catch (const session::InputError& e) {
    message(e.what(), true);
    return false;
  }
  slides.file = path;
  message("saved " + std::to_string(deck.slides.size()) + " slides to " + path);
  return true;
}

void slides_menu(Ui& ui) {
  if (!ImGui::BeginMenu("Slides")) return;
  const int here = ui.slide_at(ui.pane);
  if (ImGui::MenuItem(here >= 0 ? "Rename the slide here…" : "Add slide here…", "B", false, ui.has_model())) {
    ui.dialogs.bookmark = true;
    ui.dialogs.bookmark_caption = here >= 0 ? ui.deck.slides[size_t(here)].caption : "";
  }
  if (ImGui::MenuItem("Next slide", "N", false, !ui.deck.slides.empty())) ui.next_slide(+1);
  if (ImGui::MenuItem("Previous slide", "P", false, !ui.deck.slides.empty())) ui.next_slide(-1);
  ImGui::Separator();
  if (ui.deck.slides.empty()) ImGui::TextDisabled("No slides yet: B adds the step on screen.");
  // Each slide: go to it; move it up or down; remove it. Three columns: the caption, the
  // launch and step, the buttons.
  std::vector<std::string> labels, wheres;
  float label_w = 0, where_w = 0;
  for (size_t i = 0; i < ui.deck.slides.size(); ++i) {
    const session::Slide& s = ui.deck.slides[i];
    labels.push_back(std::to_string(i + 1) + ". " + (s.caption.empty() ? "(no caption)" : s.caption));
    wheres.push_back(s.variant_text() + " · request " + std::to_string(session::request_number(s.step)) + " · " + s.view);
    label_w = std::max(label_w, ImGui::CalcTextSize(labels.back().c_str()).x);
    where_w = std::max(where_w, ImGui::CalcTextSize(wheres.back().c_str()).x);
  }
  const float gap = ImGui::GetFontSize() * 1.5f;
  int go = -1, up = -1, down = -1, remove = -1;
  for (size_t i = 0; i < ui.deck.slides.size(); ++i) {
    ImGui::PushID(int(i));
    const float x0 = ImGui::GetCursorPosX();
    if (ImGui::Selectable(labels[i].c_str(), int(i) == here, 0, ImVec2(label_w + gap + where_w, 0))) go = int(i);
    ImGui::SameLine(x0 + label_w + gap);
    ImGui::TextDisabled("%s", wheres[i].c_str());
    ImGui::SameLine(x0 + label_w + gap + where_w + gap);
    if (ImGui::ArrowButton("##up", ImGuiDir_Up) && i > 0) up = int(i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Move up");
    ImGui::SameLine(0, 2);
    if (ImGui::ArrowButton("##down", ImGuiDir_Down) && i + 1 < ui.deck.slides.size()) down = int(i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Move down");
    ImGui::SameLine(0, 2);
    if (ImGui::SmallButton("x")) remove = int(i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Remove this slide");
    ImGui::PopID();
  }
  auto& v = ui.deck.slides;
  if (up > 0) std::swap(v[size_t(up)], v[size_t(up) - 1]);
  if (down >= 0) std::swap(v[size_t(down)], v[size_t(down) + 1]);
  if (remove >= 0) {
    v.erase(v.begin() + remove);
    ui.slides.current = -1;
  }
  if (go >= 0) ui.goto_slide(size_t(go));
  ImGui::Separator();
  if (ImGui::MenuItem("Open deck…")) {
    ui.slides.open = true;
    ui.dialogs.path = ui.slides.file;
  }
  if (ImGui::MenuItem("Save deck…", nullptr, false, !ui.deck.slides.empty())) {
    ui.slides.save = true;
    ui.dialogs.path = ui.slides.file.empty() ? "slides.wsdeck" : ui.slides.file;
  }
  if (ImGui::MenuItem("Remove all slides", nullptr, false, !ui.deck.slides.empty())) {
    ui.deck.slides.clear();
    ui.slides.current = -1;
  }
  ImGui::Separator();
  ImGui::TextDisabled("Saving a trace keeps its launch's slides as its bookmarks.");
  ImGui::TextDisabled("warpscope export --deck FILE --out DIR draws every slide.");
  ImGui::EndMenu();
}

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
      ui.add_slide(ui.dialogs.bookmark_caption);
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
