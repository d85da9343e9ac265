// src/app/app.cpp — the app's run: the platform (backend.h) and the views (src/ui) wired by
// one main loop, which also drives the runs that take pictures (--screenshot, --frames).
#include "app/app.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "app/backend.h"
#include "app/gl_grid.h"
#include "app/initial_view.h"
#include "lesson/lesson.h"
#include "session/deck.h"
#include "ui/ui.h"

namespace ws::app {

namespace {

using Clock = std::chrono::steady_clock;

// The frames of one run: events in, one frame of the views, the picture out; a driven run
// (screenshot or frame count) ends itself once the trace has settled.
class MainLoop {
 public:
  MainLoop(const Options& opt, Backend& backend, GlGridPainter& painter, ui::Ui& ui, bool automated)
      : opt_(opt), backend_(backend), painter_(painter), ui_(ui), automated_(automated),
        pending_step_(opt.step), start_playing_(opt.play) {}

  // Runs until the window closes, the user quits or a driven run is done; returns the
  // exit code (`exit_code` unless the driven run failed).
  int run(int exit_code) {
    exit_code_ = exit_code;
    for (;;) {
      // Idle and not playing: sleep until an event (or a background job may finish).
      if (!automated_ && !ui_.state.playing && !ui_.recorder.busy() && ui_.settled())
        backend_.wait_events(0.25);
      else
        backend_.poll_events();
      if (backend_.should_close() || ui_.quit_requested()) break;
      take_files();
      const auto now = Clock::now();
      const float dt = std::chrono::duration<float>(now - last_).count();
      last_ = now;
      draw(dt);
      if (automated_ && driven_run_done(now)) break;
      backend_.swap_buffers();
    }
    return exit_code_;
  }

  // CPU time per frame (views, draw lists, GL submission), once a model is shown.
  std::vector<double> frame_ms;

 private:
  // Files dropped on the window (a program builds and runs, a trace opens), and the open
  // program rebuilt when saved in an editor.
  void take_files() {
    for (const std::string& path : backend_.take_drops()) {
      if (path.size() > 3 && path.compare(path.size() - 3, 3, ".cu") == 0) {
        session::LaunchSpec dropped;
        dropped.program.source = path;
        ui_.open_program(dropped);
      } else {
        ui_.open_file(path);
      }
    }
    // A driven run watches the file too: a picture of an edit is the file saved while it runs.
    const double t = backend_.time();
    if (t - last_check_ > 1.0) {
      last_check_ = t;
      ui_.rebuild_if_saved();
    }
  }

  // One frame of the views, with what the options still ask for (a step, playing), and
  // what the views asked of the platform (full screen, a screenshot).
  void draw(float dt) {
    backend_.fit_fonts(ui_);
    const auto frame_start = Clock::now();
    backend_.new_frame(automated_);
    painter_.begin_frame();
    ui_.frame(automated_ ? 1.0f / 60 : dt);
    if (pending_step_ > 0 && ui_.has_model() && !ui_.recorder.busy()) {
      try {
        ui_.set_step(session::record_of_request(pending_step_, ui_.pane.model->size()));
      } catch (const session::InputError& e) {
        ui_.message(std::string("--step: ") + e.what(), true);
      }
      pending_step_ = -1;
    }
    if (start_playing_ && ui_.has_model() && pending_step_ <= 0) {
      ui_.state.playing = true;
      start_playing_ = false;
    }
    backend_.render();
    if (opt_.stats && ui_.has_model())
      frame_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - frame_start).count());
    if (ui_.take_fullscreen_toggle()) backend_.toggle_fullscreen();
    if (std::string shot = ui_.take_screenshot_request(); !shot.empty()) {
      std::string err;
      if (backend_.save_png(shot, err))
        ui_.message("saved " + shot);
      else
        ui_.message(err, true);
    }
  }

  // A driven run ends a few frames after the trace settles (or when recording failed, or
  // after five minutes), leaving its screenshot and windows JSON; true when it has ended.
  bool driven_run_done(Clock::time_point now) {
    // A deck's program slide waiting for the user's yes: nothing moves without an answer, so
    // the screenshot shows the question.
    const bool asking = ui_.slides.confirming() >= 0;
    const bool ready = (ui_.settled() || asking) && pending_step_ <= 0;
    if (ready) ++frames_after_ready_;
    const double waited = std::chrono::duration<double>(now - t0_).count();
    const bool failed = !ui_.has_model() && !ui_.recorder.busy() && !ui_.status.record_error.empty();
    // The B side asked for could not be shown (a launch the program did not make): refused.
    if (ready && ui_.comparing() && !ui_.ab.error.empty()) {
      std::fprintf(stderr, "warpscope: error: %s\n", ui_.ab.error.c_str());
      exit_code_ = 2;
      return true;
    }
    const int need = std::max(opt_.frames, 3);
    if (!failed && frames_after_ready_ < need && waited <= 300) return false;
    if (failed) {
      std::fprintf(stderr, "warpscope: error: %s\n", ui_.status.record_error.c_str());
      exit_code_ = 2;
    } else if (!ready) {
      std::fprintf(stderr, "warpscope: error: gave up waiting for the trace after %.0f s\n", waited);
      exit_code_ = 3;
    }
    // A program that did not compile is pictured too: the window lists why.
    if (!opt_.screenshot.empty() && (!failed || !ui_.status.build_errors.empty())) {
      std::string err;
      if (!backend_.save_png(opt_.screenshot, err)) {
        std::fprintf(stderr, "warpscope: error: %s\n", err.c_str());
        exit_code_ = 1;
      }
    }
    if (!opt_.windows_json.empty()) {
      std::ofstream out(opt_.windows_json);
      out << ui_.describe_json() << "\n";
    }
    return true;
  }

  const Options& opt_;
  Backend& backend_;
  GlGridPainter& painter_;
  ui::Ui& ui_;
  const bool automated_;
  int exit_code_ = 0;
  int64_t pending_step_;
  bool start_playing_;
  int frames_after_ready_ = 0;
  double last_check_ = 0;  // when the open program's file was last looked at
  const Clock::time_point t0_ = Clock::now();
  Clock::time_point last_ = t0_;
};

void print_frame_stats(std::vector<double> frame_ms) {
  std::sort(frame_ms.begin(), frame_ms.end());
  std::printf("frames %zu: CPU per frame (views + draw lists + GL submission) median %.2f ms, p95 %.2f ms, max %.2f ms\n",
              frame_ms.size(), frame_ms[frame_ms.size() / 2], frame_ms[size_t(double(frame_ms.size()) * 0.95)],
              frame_ms.back());
}

}  // namespace

int run(const Options& opt) {
  const bool automated = !opt.screenshot.empty() || opt.frames > 0;
  const std::string dir = config_dir(opt);
  Backend backend;
  if (!backend.open(opt.width, opt.height, opt.vsync && !automated, dir)) return 1;
  GlGridPainter painter;
  std::string gl_error;
  const bool gl_ok = painter.init(gl_error);
  ui::Environment env = environment(opt, gl_ok ? &painter : nullptr, backend.keys(), dir);
  // A first run (no settings yet) with nothing named opens on the default lesson.
  const bool fresh = env.settings_path.empty() || !std::filesystem::exists(env.settings_path);
  int exit_code = 0;
  {
    ui::Ui ui(env);
    if (!gl_ok) ui.message("grid shader unavailable, drawing grids without it: " + gl_error, true);
    const int early = open_initial_view(ui, opt, fresh, automated);
    MainLoop loop(opt, backend, painter, ui, automated);
    exit_code = loop.run(early);
    if (!automated) ui.save_settings();
    if (opt.stats && !loop.frame_ms.empty()) print_frame_stats(std::move(loop.frame_ms));
  }
  backend.close();
  return exit_code;
}

// ---- options ------------------------------------------------------------------------------

void check_options(const Options& opt) {
  if (opt.width < 320 || opt.height < 240)
    throw session::InputError("--width/--height: the window must be at least 320x240");
  if (opt.step == 0 || opt.step < -1)
    throw session::InputError("--step " + std::to_string(opt.step) + ": requests are numbered from 1");
  // Bad values are refused before a window opens.
  if (!opt.launch.kernel.empty()) session::resolve(opt.launch);
  if (!opt.deck.empty()) session::load_deck(opt.deck);
  if (!opt.lesson.empty()) {
    try {
      lesson::load(lesson::find(opt.lesson));
    } catch (const lesson::LessonError& e) {
      throw session::InputError(e.what());
    }
  }
}

std::vector<std::string> panel_keys() {
  std::vector<std::string> keys;
  for (int i = 0; i < int(ui::Panel::Count); ++i)
    if (ui::Panel(i) != ui::Panel::Timeline) keys.push_back(ui::panel_key(ui::Panel(i)));
  return keys;
}

}  // namespace ws::app
