// src/ui/shortcuts.cpp — Keyboard shortcuts (the help overlay lists them): stepping, playback, panels, dialogs.
#include <algorithm>
#include <ctime>

#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

void Ui::shortcuts() {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k), true); };
  auto native = [](int k) { return k >= 0 && ImGui::IsKeyPressed(k, false); };
  auto step_by = [&](StepUnit unit, int dir) {
    if (!pane.model) return;
    state.playing = false;
    set_step(pane.model->next(pane.step, unit, dir));
  };
  const bool shift = io.KeyShift, ctrl = io.KeyCtrl;
  if (pressed(ImGuiKey_RightArrow)) step_by(ctrl ? StepUnit::Epoch : shift ? StepUnit::Warp : StepUnit::Request, +1);
  if (pressed(ImGuiKey_LeftArrow)) step_by(ctrl ? StepUnit::Epoch : shift ? StepUnit::Warp : StepUnit::Request, -1);
  if (pressed(ImGuiKey_DownArrow)) step_by(StepUnit::Warp, +1);
  if (pressed(ImGuiKey_UpArrow)) step_by(StepUnit::Warp, -1);
  if (pressed(ImGuiKey_PageDown)) step_by(StepUnit::Epoch, +1);
  if (pressed(ImGuiKey_PageUp)) step_by(StepUnit::Epoch, -1);
  if (pressed(ImGuiKey_Home)) set_step(0);
  if (pressed(ImGuiKey_End) && pane.model) set_step(pane.model->size());
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space), false)) state.playing = !state.playing;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) {
    if (state.show_help)
      state.show_help = false;
    else
      state.enlarged = -1;
  }
  if (native(env_.keys.f1)) state.show_help = !state.show_help;
  if (native(env_.keys.f5)) toggle_presentation();
  if (native(env_.keys.f11)) fullscreen_toggle_ = true;
  if (native(env_.keys.f12)) {
    char name[64];
    std::time_t now = std::time(nullptr);
    std::strftime(name, sizeof name, "warpscope-%Y%m%d-%H%M%S.png", std::localtime(&now));
    screenshot_request_ = name;
  }
  if (ctrl && ImGui::IsKeyPressed('Q', false)) quit_ = true;
  if (ctrl && ImGui::IsKeyPressed('E', false)) open_export_dialog();
  if (ctrl && ImGui::IsKeyPressed('O', false)) {
    dialogs.open = true;
    dialogs.path = state.last_file;
  }
  if (ctrl && ImGui::IsKeyPressed('S', false)) {
    dialogs.save = true;
    dialogs.path = state.last_file.empty() || open_program_spec() ? file_stem() + ".wstrace" : state.last_file;
  }
  if (ctrl && (native('=') || native(env_.keys.kp_add))) state.font_scale = std::min(2.5f, state.font_scale + 0.125f);
  if (ctrl && (native('-') || native(env_.keys.kp_subtract)))
    state.font_scale = std::max(0.75f, state.font_scale - 0.125f);
  if (ctrl && ImGui::IsKeyPressed('0', false)) state.font_scale = 1.0f;
  if (ctrl) return;  // Ctrl combinations are not typed characters
  // While a lesson's question waits, digits are the answer (typed into its box even when
  // the box has no focus: a panel's number key would enlarge a view that may show it), and
  // Enter checks it.
  LessonRun& L = lessons.run;
  const bool numeric = L.waiting() && !L.resolved->question->is_choice();
  if (numeric && !L.input.empty() && pressed(ImGuiKey_Enter)) lessons.check(L.input);
  for (ImWchar c : io.InputQueueCharacters) {
    if (L.waiting() && ((c >= '0' && c <= '9') || (numeric && c == '.'))) {
      if (numeric) L.input += char(c);
      continue;
    }
    switch (c) {
      case '?': state.show_help = !state.show_help; break;
      case '+': case '=': state.timeline.speed = std::min(10000.0f, state.timeline.speed * 2); break;
      case '-': state.timeline.speed = std::max(0.25f, state.timeline.speed / 2); break;
      case 'h': state.memory.heat = !state.memory.heat; break;
      case 'f': state.memory.follow = !state.memory.follow; break;
      case 'l': state.timeline.loop = !state.timeline.loop; break;
      case 'b':
      case 'B':
        if (pane.model) {
          dialogs.bookmark = true;
          const int here = slides.at(pane);
          dialogs.bookmark_caption = here >= 0 ? slides.deck.slides[size_t(here)].caption : "";
        }
        break;
      case 'n': case 'N': slides.next(+1); break;
      case 'p': case 'P': slides.next(-1); break;
      case 'c': case 'C': dialogs.compare = true; dialogs.compare_spec = state.compare; break;
      case '0': state.enlarged = -1; break;
      default:
        // 1 … 9 enlarge the panel of that number (panels.cpp).
        if (const PanelSpec* p = c >= '1' && c <= '9' ? panel_numbered(int(c - '0'), this) : nullptr;
            p && (!p->available || p->available(*this)))
          enlarge(p->panel);
        break;
    }
  }
}

}  // namespace ws::ui
