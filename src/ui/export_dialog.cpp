// src/ui/export_dialog.cpp — File → Export figure…: the figure `warpscope export` writes, made from the step on
// screen: a view, a file type, a size and a caption (the kernel, its parameters, the step
// and where the trace came from, editable).
#include <cstdio>

#include "session/launch.h"
#include "ui/figure/figure.h"
#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

namespace {

constexpr const char* kViewKeys[] = {"memory", "warp", "banks", "dram", "source", "pipeline", "cluster"};
constexpr const char* kTypes[] = {"png", "svg"};
constexpr int kSizes[][2] = {{1280, 720}, {1920, 1080}, {1600, 1000}};

// The figure view of the enlarged panel (panels.cpp), else the warp inspector's.
int default_view(const UiState& s) {
  if (s.enlarged >= 0 && s.enlarged < int(Panel::Count))
    if (const auto& v = panel_spec(Panel(s.enlarged)).figure) return int(*v);
  return int(FigureView::Warp);
}

std::string default_caption(const Ui& ui) {
  const Session& m = *ui.pane.model;
  return session::step_caption(m, ui.pane.step);
}

}  // namespace

void Ui::open_export_dialog() {
  if (!pane.model || pane.model->size() == 0) {
    message("nothing to export yet: no requests recorded", true);
    return;
  }
  dialogs.figure = true;
  dialogs.figure_view = default_view(state);
  dialogs.figure_caption = default_caption(*this);
  dialogs.figure_error.clear();
}

bool export_figure(Ui& ui, std::string& error) {
  Dialogs& d = ui.dialogs;
  const auto& m = ui.pane.model;
  if (!m || m->size() == 0) {
    error = "no trace to draw";
    return false;
  }
  if (d.figure_view < 0 || d.figure_view >= int(std::size(kViewKeys)) || d.figure_size < 0 || d.figure_size >= 3) {
    error = "unknown view or size";
    return false;
  }
  FigureView view;
  figure_view_from_key(kViewKeys[d.figure_view], view);
  if (view == FigureView::Banks && !m->request(ui.pane.step).shared) {
    error = "this step is not a shared-memory access: the banks view needs one (try warp)";
    return false;
  }
  const int theme_index = d.figure_theme == 1 ? kThemePresentation : d.figure_theme == 2 ? kThemeDark : ui.theme_index();
  const ThemeScope colours(theme_index);
  // While a lesson question waits, the figure keeps its answer veiled as the screen does.
  const std::string* veil = ui.lessons.veiled() ? &ui.lessons.run.resolved->question->prompt : nullptr;
  const Figure f = render_figure(m, ui.pane.step, view, kSizes[d.figure_size][0], kSizes[d.figure_size][1],
                                 d.figure_caption, nullptr, ui.state.dram.array, veil);
  if (!write_figure(f, d.figure_path, error)) return false;
  error.clear();
  return true;
}

void export_dialog(Ui& ui) {
  Dialogs& d = ui.dialogs;
  if (d.figure) {
    ImGui::OpenPopup("Export figure");
    d.figure = false;
  }
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.4f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal("Export figure", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
    return;
  const float fw = ImGui::GetFontSize() * 26;
  ImGui::TextUnformatted("The view at this step, as a figure for slides (what the panel shows, without its controls).");
  ImGui::SetNextItemWidth(fw * 0.5f);
  ImGui::Combo("view", &d.figure_view, kViewKeys, int(std::size(kViewKeys)));
  ImGui::SetNextItemWidth(fw * 0.5f);
  ImGui::Combo("file type", &d.figure_type, kTypes, int(std::size(kTypes)));
  char sizes[3][32];
  const char* size_names[3];
  for (int i = 0; i < 3; ++i) {
    std::snprintf(sizes[i], sizeof sizes[i], "%d × %d", kSizes[i][0], kSizes[i][1]);
    size_names[i] = sizes[i];
  }
  ImGui::SetNextItemWidth(fw * 0.5f);
  ImGui::Combo("size", &d.figure_size, size_names, 3);
  const char* themes[] = {"as the app", "light (slides, print)", "dark"};
  ImGui::SetNextItemWidth(fw * 0.5f);
  ImGui::Combo("theme", &d.figure_theme, themes, 3);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s", d.figure_caption.c_str());
  ImGui::SetNextItemWidth(fw);
  ImGui::InputText("caption", buf, sizeof buf);
  d.figure_caption = buf;
  // The file name follows the choices until the user types one.
  const std::string suggested = "warpscope-" + ui.file_stem() + "-" + kViewKeys[d.figure_view] + "-request" +
                                std::to_string(session::request_number(ui.pane.step)) + "." + kTypes[d.figure_type];
  std::snprintf(buf, sizeof buf, "%s", d.figure_path.empty() ? suggested.c_str() : d.figure_path.c_str());
  ImGui::SetNextItemWidth(fw);
  if (ImGui::InputText("file", buf, sizeof buf)) d.figure_path = buf;
  if (!d.figure_error.empty()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme().bad), "%s", d.figure_error.c_str());
  if (ImGui::Button("Export")) {
    if (d.figure_path.empty()) d.figure_path = suggested;
    if (export_figure(ui, d.figure_error)) {
      ui.message("figure written: " + d.figure_path);
      d.figure_path.clear();
      ImGui::CloseCurrentPopup();
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

}  // namespace ws::ui
