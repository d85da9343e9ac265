// src/app/initial_view.cpp — the views' environment and the first thing the app shows,
// from the command line and the settings (initial_view.h).
#include "app/initial_view.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "session/deck.h"

namespace ws::app {

namespace {

// What a first run opens on: the transpose lesson, whose first step is the naive transpose.
constexpr const char* kDefaultLesson = "transpose";

// Copies the launch the command line names over the settings' one.
void apply_launch(ui::UiState& s, const Options& opt) {
  const session::LaunchSpec& spec = opt.launch;
  if (!spec.kernel.empty()) {
    s.kernel = spec.kernel;
    s.size = 0;
    s.params.clear();
    s.blocks.clear();
  }
  if (spec.size) s.size = *spec.size;
  for (const auto& [k, v] : spec.params) s.params[k] = v;
  if (!spec.blocks.empty()) s.blocks = spec.blocks;
  if (opt.dram_set) s.dram.preset = spec.dram;
}

}  // namespace

std::string config_dir(const Options& opt) {
  if (opt.config_dir == "none") return "";
  if (!opt.config_dir.empty()) return opt.config_dir;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/warpscope";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/warpscope";
  return "";
}

ui::Environment environment(const Options& opt, ui::GridPainter* painter, const ui::Keys& keys,
                            const std::string& dir) {
  ui::Environment env;
  env.painter = painter;
  env.keys = keys;
  env.settings_path = dir.empty() ? "" : dir + "/settings.json";
  env.replay_dir = opt.replay_dir.empty() ? ui::bundled_replay_dir() : opt.replay_dir;
  // Live timings of the family on screen, when this machine has a usable GPU.
  env.live = opt.live ? opt.live : ui::gpu_live_bench();
  return env;
}

int open_initial_view(ui::Ui& ui, const Options& opt, bool fresh, bool automated) {
  const session::LaunchSpec& spec = opt.launch;
  apply_launch(ui.state, opt);
  if (!opt.panel.empty()) {
    ui::Panel p;
    if (ui::panel_from_key(opt.panel, p)) ui.state.enlarged = int(p);
  } else if (automated) {
    ui.state.enlarged = -1;
  }
  // A deck given alone opens on its first slide; with a kernel, a trace or a step, it waits
  // for N.
  ui.slides.state.allow_programs = opt.yes;  // checked before: a deck's programs need --yes
  if (!opt.deck.empty()) ui.slides.load(opt.deck);
  const bool deck_first = !ui.slides.deck.slides.empty() && spec.kernel.empty() && opt.trace_file.empty() && opt.step < 0;
  const bool named = !spec.kernel.empty() || !spec.program.source.empty() || !opt.trace_file.empty() || !opt.deck.empty();
  std::string lesson = opt.lesson;
  if (lesson.empty() && !named) lesson = fresh ? kDefaultLesson : ui.state.lesson;
  if (!spec.program.source.empty())
    ui.open_program(spec);
  else if (!opt.trace_file.empty())
    ui.open_file(opt.trace_file, spec.launch);
  else if (deck_first)
    ui.slides.go_to(0);
  else if (lesson.empty() || !ui.lessons.open(lesson))
    ui.record();
  if (opt.step > 0) ui.set_step(uint64_t(opt.step - 1));
  ui.state.show_help = opt.show_help;
  if (opt.present) ui.state.present = true;
  if (!opt.compare.empty()) {
    std::string err;
    if (!ui.set_compare(opt.compare, err)) {
      std::fprintf(stderr, "warpscope: error: %s\n", err.c_str());
      return 2;
    }
  }
  return 0;
}

}  // namespace ws::app
