// src/ui/menu_view.cpp — The menu bar (with the trace's provenance banner) and the status bar.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

namespace {

// A rounded label, e.g. the "TRACE EMULATED ON CPU" banner.
void pill(const char* text, ImU32 bg, ImU32 fg) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 sz = ImGui::CalcTextSize(text);
  ImVec2 p = ImGui::GetCursorScreenPos();
  float pad = 8;
  float h = ImGui::GetFrameHeight() - 2;
  float y = p.y + (ImGui::GetFrameHeight() - h) * 0.5f;
  dl->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + sz.x + 2 * pad, y + h), bg, h * 0.5f);
  dl->AddText(ImVec2(p.x + pad, y + (h - sz.y) * 0.5f), fg, text);
  ImGui::Dummy(ImVec2(sz.x + 2 * pad, ImGui::GetFrameHeight()));
}

void file_menu(Ui& ui) {
  UiState& s = ui.state;
  if (!ImGui::BeginMenu("File")) return;
  if (ImGui::MenuItem("Open trace…", "Ctrl+O")) {
    ui.dialogs.open = true;
    ui.dialogs.path = s.last_file;
  }
  if (ImGui::MenuItem("Open program…")) {
    ui.dialogs.open_program = true;
    ui.dialogs.path = s.last_program;
  }
  if (ImGui::MenuItem("Program output", nullptr, false, ui.has_model() && !ui.pane.model->program_output().empty()))
    ui.dialogs.program_output = true;
  if (ImGui::MenuItem("Save trace…", "Ctrl+S", false, ui.has_model())) {
    ui.dialogs.save = true;
    ui.dialogs.path = s.last_file.empty() || ui.open_program_spec() ? ui.file_stem() + ".wstrace" : s.last_file;
  }
  ImGui::Separator();
  if (ImGui::MenuItem("Record again", nullptr, false, !ui.recorder.busy()))
    ui.open_program_spec() ? ui.rerun_program() : ui.record();  // a program open runs again, not the catalog
  if (ImGui::MenuItem("Export figure…", "Ctrl+E", false, ui.has_model())) ui.open_export_dialog();
  if (ImGui::MenuItem("Save screenshot", "F12")) {
    char name[64];
    std::snprintf(name, sizeof name, "warpscope-request%llu.png", (unsigned long long)session::request_number(ui.pane.step));
    ui.request_screenshot(name);
  }
  ImGui::Separator();
  if (ImGui::MenuItem("Quit", "Ctrl+Q")) ui.request_quit();
  ImGui::EndMenu();
}

void view_menu(Ui& ui) {
  UiState& s = ui.state;
  if (!ImGui::BeginMenu("View")) return;
  ImGui::MenuItem("Heat layer", "H", &s.memory.heat);
  ImGui::MenuItem("Log-scaled heat", nullptr, &s.memory.heat_log);
  ImGui::MenuItem("32-byte sectors", nullptr, &s.memory.show_sectors);
  ImGui::MenuItem("128-byte lines", nullptr, &s.memory.show_lines);
  ImGui::MenuItem("Row / column numbers", nullptr, &s.memory.show_labels);
  ImGui::MenuItem("Bank numbers in shared arrays", nullptr, &s.memory.show_banks);
  ImGui::MenuItem("Follow the current request", "F", &s.memory.follow);
  ImGui::Separator();
  ImGui::TextUnformatted("Text size");
  ImGui::SameLine();
  if (ImGui::SmallButton(" − ")) s.font_scale = std::max(0.75f, s.font_scale - 0.125f);
  ImGui::SameLine();
  ImGui::Text("%.0f%%", s.font_scale * 100);
  ImGui::SameLine();
  if (ImGui::SmallButton(" + ")) s.font_scale = std::min(2.5f, s.font_scale + 0.125f);
  ImGui::SameLine();
  ImGui::TextDisabled("Ctrl +/−");
  if (ImGui::BeginMenu("Enlarge panel")) {
    for (int n = 1; const PanelSpec* p = panel_numbered(n, &ui); ++n) {
      char key[12];
      std::snprintf(key, sizeof key, "%d", n);
      if (ImGui::MenuItem(p->title, key, s.enlarged == int(p->panel))) ui.enlarge(p->panel);
    }
    ImGui::EndMenu();
  }
  if (ImGui::MenuItem("Full screen", "F11")) ui.request_fullscreen_toggle();
  ImGui::Separator();
  if (ImGui::MenuItem("Presentation mode", "F5", s.present)) ui.toggle_presentation();
  if (ImGui::MenuItem("Compare two variants…", "C", ui.comparing())) {
    ui.dialogs.compare = true;
    ui.dialogs.compare_spec = s.compare;
  }
  if (ImGui::MenuItem("Reset layout", "0")) {
    UiState d;
    s.left_frac = d.left_frac;
    s.right_frac = d.right_frac;
    s.left_split = d.left_split;
    s.center_split = d.center_split;
    s.right_split = d.right_split;
    s.enlarged = -1;
  }
  ImGui::EndMenu();
}

void playback_menu(UiState& s) {
  if (!ImGui::BeginMenu("Playback")) return;
  if (ImGui::MenuItem(s.playing ? "Pause" : "Play", "Space")) s.playing = !s.playing;
  ImGui::MenuItem("Loop at the end", "L", &s.timeline.loop);
  ImGui::Separator();
  if (ImGui::MenuItem("Play by request", nullptr, s.timeline.play_unit == StepUnit::Request)) s.timeline.play_unit = StepUnit::Request;
  if (ImGui::MenuItem("Play by warp", nullptr, s.timeline.play_unit == StepUnit::Warp)) s.timeline.play_unit = StepUnit::Warp;
  if (ImGui::MenuItem("Play by epoch", nullptr, s.timeline.play_unit == StepUnit::Epoch)) s.timeline.play_unit = StepUnit::Epoch;
  ImGui::EndMenu();
}

// A trace of several launches (a program, a saved file): which one is shown, the one that
// stopped the program in the warning colour; picking that one opens its request.
void launch_menu(Ui& ui) {
  const Session* m = ui.pane.model.get();
  if (!m || m->launches() <= 1 || !ImGui::BeginMenu("Launch")) return;
  const program::Problem& p = ui.status.problem;
  for (uint32_t k = 0; k < m->launches(); ++k) {
    const bool stopped = !p.empty() && p.launch == k + 1;
    if (stopped) ImGui::PushStyleColor(ImGuiCol_Text, theme().bad);
    const bool picked = ImGui::MenuItem(launch_label(*m, k, p).c_str(), nullptr, k == m->launch());
    if (stopped) ImGui::PopStyleColor();
    if (picked && stopped) ui.show_problem();
    else if (picked && k != m->launch()) ui.show_launch(k);
  }
  ImGui::EndMenu();
}

// The right end of the bar: what is on screen, and where the trace came from.
void title_and_origin(Ui& ui) {
  const Session* m = ui.pane.model.get();
  if (!m) return;
  // An A/B view names both sides: "transpose_tiled · pad=0 vs pad=1 · size 64 · …".
  const Session* mb = ui.comparing() ? ui.ab.pane.model.get() : nullptr;
  std::string title = mb ? ui.ab_names().both : m->title();
  const char* banner = m->from_gpu() ? nullptr : "TRACE EMULATED ON CPU";
  const float pill_w = banner ? ImGui::CalcTextSize(banner).x + 28 : ImGui::CalcTextSize(m->provenance().c_str()).x + 28;
  // The text the launch reproduces, where there is room for it.
  if (const catalog::KernelInfo* k = mb ? nullptr : catalog::find(m->trace().launch().kernel)) {
    catalog::Params p;
    p.values = m->trace().launch().params;
    if (const catalog::SourceRef* src = catalog::reproduced(*k, p)) {
      std::string longer = title + " · as in " + src->label;
      if (ImGui::GetWindowWidth() - ImGui::CalcTextSize(longer.c_str()).x - 32 - pill_w > ImGui::GetCursorPosX() + 20)
        title = longer;
    }
  }
  // Where the menus leave too little room (large type on a projector), the banner shortens
  // and the title is cut with "…" rather than either going: what is on screen and where it
  // came from are always named.
  const float room = ImGui::GetWindowWidth() - ImGui::GetCursorPosX() - 28;
  std::string label = banner ? banner : m->provenance();
  float pw = pill_w;
  if (ImGui::CalcTextSize(title.c_str()).x + 24 + pw > room) {
    label = banner ? "EMULATED" : "GPU";
    pw = ImGui::CalcTextSize(label.c_str()).x + 28;
    const float fit = room - pw - 24;
    if (ImGui::CalcTextSize(title.c_str()).x > fit) {
      while (!title.empty() && ImGui::CalcTextSize((title + "…").c_str()).x > fit) {
        title.pop_back();
        while (!title.empty() && (uint8_t(title.back()) & 0xC0) == 0x80) title.pop_back();  // whole characters
      }
      if (!title.empty()) title += "…";
    }
  }
  const float w = (title.empty() ? 0 : ImGui::CalcTextSize(title.c_str()).x + 12) + pw;
  const float x = ImGui::GetWindowWidth() - w - 8;
  if (x > ImGui::GetCursorPosX() + 4) {
    ImGui::SetCursorPosX(x);
    if (!title.empty()) {
      ImGui::TextUnformatted(title.c_str());
      ImGui::SameLine(0, 12);
    }
    if (banner)
      pill(label.c_str(), IM_COL32(255, 184, 64, 255), IM_COL32(30, 24, 10, 255));
    else
      pill(label.c_str(), IM_COL32(72, 207, 134, 255), IM_COL32(10, 30, 18, 255));
  }
}

}  // namespace

void menu_bar(Ui& ui, float& height) {
  height = 0;
  UiState& s = ui.state;
  if (!ImGui::BeginMainMenuBar()) return;
  height = ImGui::GetWindowHeight();
  file_menu(ui);
  view_menu(ui);
  playback_menu(s);
  launch_menu(ui);
  lessons_menu(ui);
  slides_menu(ui);
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("Keyboard shortcuts", "F1 or ?")) s.show_help = true;
    ImGui::EndMenu();
  }
  title_and_origin(ui);
  ImGui::EndMainMenuBar();
}

void status_bar(Ui& ui, ImVec2 min, ImVec2 max) {
  const Theme& t = theme();
  ImGui::SetNextWindowPos(min);
  ImGui::SetNextWindowSize(ImVec2(max.x - min.x, max.y - min.y));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(10, 5));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImGui::ColorConvertU32ToFloat4(t.menu_bg));
  ImGui::Begin("##status", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings |
                                        ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoFocusOnAppearing);
  if (ui.recorder.busy()) {
    // Indeterminate progress: captures report no fraction, so show motion and time.
    const char* spin = "|/-\\";
    int i = int(ui.now() * 8) & 3;
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.accent), "%c %s… %.1f s", spin[i], ui.recorder.label().c_str(),
                       ui.recorder.running_seconds());
    ImGui::SameLine(0, 24);
  }
  if (!ui.status.text.empty()) {
    ImU32 c = ui.status.error ? t.warn : t.text_dim;
    ImGui::PushStyleColor(ImGuiCol_Text, c);
    ImGui::TextUnformatted(ui.status.text.c_str());
    ImGui::PopStyleColor();
    ImGui::SameLine(0, 0);  // the right-hand figures go after a long message, never over it
  }
  // Right: size of what is loaded, frame rate, help hint — as much of them as fits beside
  // the message (the message first: the frame rate goes, then the records, then the hint).
  char full[160], shorter[96];
  const Session* m = ui.pane.model.get();
  const std::string records = m ? fmt_count(m->size()) : "0";
  std::snprintf(full, sizeof full, "%s records · %.0f fps · F1 help", records.c_str(), ImGui::GetIO().Framerate);
  std::snprintf(shorter, sizeof shorter, "%s records · F1 help", records.c_str());
  const float room = ImGui::GetWindowWidth() - ImGui::GetCursorPosX() - 20 - 12;
  for (const char* right : {(const char*)full, (const char*)shorter, "F1 help"}) {
    const float w = ImGui::CalcTextSize(right).x;
    if (w > room) continue;
    ImGui::SameLine(std::max(ImGui::GetCursorPosX() + 20, ImGui::GetWindowWidth() - w - 12));
    ImGui::TextDisabled("%s", right);
    break;
  }
  ImGui::End();
  ImGui::PopStyleColor();
  ImGui::PopStyleVar();
}

std::string launch_label(const Session& m, uint32_t k, const program::Problem& p) {
  if (k >= m.whole_trace().launches.size()) return "";
  const trace::Launch& l = m.whole_trace().launches[k];
  char label[256];
  std::snprintf(label, sizeof label, "%u  %s  grid (%u,%u,%u) x block (%u,%u,%u)", k + 1, l.kernel.c_str(), l.grid.x,
                l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z);
  std::string s = label;
  if (!p.empty() && p.launch == k + 1)
    s += std::string(p.kind == "race" ? "  · races here: " : "  · stopped here: ") + program::problem_title(p);
  return s;
}

}  // namespace ws::ui
