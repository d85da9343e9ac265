// src/ui/ui.h — the main window's contents, with no knowledge of the platform: the app
// calls frame() between ImGui::NewFrame() and ImGui::Render(), and the headless tests do
// the same with no window at all.
#pragma once
#include <imgui.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include "session/heat.h"
#include "session/session.h"
#include "session/step_match.h"
#include "session/worker.h"
#include "ui/lesson_controller.h"
#include "ui/panels.h"
#include "ui/figure/scene.h"
#include "ui/slide_controller.h"
#include "ui/views/context.h"
#include "ui/views/pane.h"
#include "ui/views/state.h"
#include "ui/timing.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

// The views draw from the core's Session (session/session.h) and ask its worker for new ones.
using session::GridShape;
using session::HeatMap;
using session::Job;
using session::LineStat;
using session::RequestFigures;
using session::Session;
using session::SourceText;
using session::Worker;

// Platform key codes of keys ImGui 1.86 has no portable name for (-1: none).
struct Keys {
  int f1 = -1, f5 = -1, f11 = -1, f12 = -1, kp_add = -1, kp_subtract = -1;
};

struct Environment {
  GridPainter* painter = nullptr;          // null: a CpuGridPainter is used
  Keys keys;
  std::string settings_path;               // "": nothing is persisted
  std::string replay_dir = "assets/replay";
  LiveBench live;                          // empty: no GPU timings on this machine
};


// A panel as drawn this frame (for tests and --windows-json).
struct DrawnPanel {
  Panel panel;
  ImVec2 min, max;
  bool b_side = false;
  ImVec2 diagram_min, diagram_max;  // the warp inspector's lane diagram (empty: none)
};

// Dialogs waiting for input, and what they hold.
struct Dialogs {
  bool open = false, save = false;  // .wstrace file dialogs (file_dialog.cpp)
  bool open_program = false;        // File → Open program… (a .cu file)
  bool program_output = false;      // File → Program output (what the program printed)
  std::string path;
  bool bookmark = false, compare = false;  // slides.cpp (the slide caption), compare picker
  std::string bookmark_caption, compare_spec;
  bool figure = false;  // File → Export figure… (export_dialog.cpp)
  int figure_view = 1, figure_type = 0, figure_size = 0;
  int figure_theme = 0;  // 0: as the app is; 1: light; 2: dark
  std::string figure_caption, figure_path, figure_error;
};

// The status bar's last message, and why the last recording failed (shown in the catalog).
struct StatusLine {
  std::string text;
  bool error = false;
  double time = 0;  // when it was set (Ui::now())
  bool launch_note = false;  // the text is a large launch's note, cleared by the next recording
  std::string record_error;
  // The compiler's messages when the program last opened did not build (the build-errors
  // window lists them; cleared by the next recording).
  std::vector<program::Diagnostic> build_errors;
  int build_error_shown = 0;  // the message whose lines the window shows
  // What stopped the program last built or run (the main view's banner); empty: nothing.
  program::Problem problem;
  ImVec2 banner_min, banner_max;  // where the banner was drawn last (a click on it shows the problem)
  const void* banner_foot = nullptr;  // the pane whose banner is one line at its panel's foot this frame
};

// The names of an A/B view's sides, what tells them apart first: `a` "transpose_tiled ·
// pad=0 · size 64 · …", `b` likewise, `both` "transpose_tiled · pad=0 vs pad=1 · size 64 · …".
struct AbTitles {
  std::string a, b, both;
};

// The A/B table's figures by name: those it lists (the request on screen, and every figure
// where the sides differ) and those both sides share (named in one line under it).
struct AbSplit {
  std::vector<std::string> listed, same;
};

// Where an A/B view's other side comes from.
enum class AbSource {
  Catalog,        // a catalog variant recorded beside the kernel on screen (`state.compare` "ID[:k=v]")
  Launch,         // another launch of the same program or trace ("launch K")
  PreviousBuild,  // the open program as it was before its file was saved ("previous build"):
                  // that side is A, the new build on the main pane is B
};

// The other side of an A/B view: its own pane and recorder beside the main one's.
struct ABSide {
  Pane pane;
  Worker recorder;
  std::string error;  // why recording the B side failed
  AbSource source = AbSource::Catalog;
  uint32_t launch = 0;                        // AbSource::Launch: the launch shown, from 0
  std::string built_a, built_b;               // AbSource::PreviousBuild: when each build arrived ("14:02:11")
  const trace::Trace* derived_from = nullptr;  // AbSource::Launch: the whole trace the side was taken from
};

// The app's controller: owns what the user chose (UiState), the trace on screen (Pane),
// the workers that build Sessions, and hands each view what it draws. Lessons, slides and
// timings are objects of their own (LessonController, SlideController, Timing); the
// panels are a table (panels.h); widgets, the panel layout and the keyboard shortcuts
// live in their own files (widgets.cpp, layout.cpp, shortcuts.cpp).
class Ui : public ViewSink {
 public:
  explicit Ui(Environment env);
  ~Ui();

  // Draws one frame. `dt`: seconds since the previous frame.
  void frame(float dt);

  // The launch UiState describes (the app's few-blocks policy for large launches).
  session::LaunchSpec spec() const;
  // Records the kernel UiState names (in the background).
  void record();
  // Opens / saves a .wstrace file (in the background).
  void open_file(const std::string& path, uint32_t launch = 0);
  // Compiles and runs the user's CUDA program `spec.program.source` on the emulated device, every
  // launch recorded (in the background); the file is watched and rebuilt when saved.
  void open_program(session::LaunchSpec spec);
  // Rebuilds the open program when its file changed on disk (the app calls it about once a
  // second); true when a rebuild started.
  bool rebuild_if_saved();
  // The program open (its file, flags, arguments), or null: while one is, the catalog
  // panel shows the program and a catalog kernel opens only when asked for.
  const session::LaunchSpec* open_program_spec() const;
  // Closes the open program, saying so, so that the next recording is the catalog's.
  void close_program();
  // Runs the open program again where it is, launch and step kept (a shape set for one of
  // its arrays).
  void rerun_program();
  // Runs the open program again on the emulated device's other engine ("compiled" or
  // "interpreter"), launch and step kept.
  void set_program_engine(const std::string& engine);
  // The name a saved trace or an exported file starts with: the program and its kernel and
  // launch ("transpose-transposeNaive-launch1"), else the catalog kernel.
  std::string file_stem() const;
  // Shows launch `k` of the shown trace (Launch menu).
  void show_launch(uint32_t k);
  // Shows what stopped the program (status.problem): its launch, at its request where it
  // was recorded (the banner's click, a rebuild that faults or races); false when there is
  // nothing to show.
  bool show_problem();
  // After a clean rebuild: where the launch shown costs as before but another launch does
  // not, show that launch (both builds) and say so.
  void follow_changed_launch();
  // The request of `p`'s launch where the program stopped or raced (the timeline marks it),
  // -1 where that launch is not the one shown or the request was not recorded.
  int64_t problem_step_on(const Pane& p) const;
  void save_file(const std::string& path);
  // Shows `m` (a recording, a file, a model built elsewhere); keeps the step if asked.
  void show_model(std::shared_ptr<const Session> m, bool keep_step);
  // Jumps to a record index (clamped once a model is loaded).
  void set_step(uint64_t step);
  // Applies a finished background job, if any; frame() calls it.
  void poll();

  bool has_model() const { return bool(pane.model); }
  // A model is loaded, no background job is running or waiting to be applied, and the
  // heat has caught up with the step.
  bool settled() const;
  bool quit_requested() const { return quit_; }
  // A PNG the user asked for (F12, menu), or "" — the app saves it after rendering.
  std::string take_screenshot_request();
  void request_screenshot(const std::string& path) { screenshot_request_ = path; }
  void request_quit() { quit_ = true; }
  // F11 or the View menu asked to enter or leave full screen (the app owns the window).
  bool take_fullscreen_toggle() {
    bool t = fullscreen_toggle_;
    fullscreen_toggle_ = false;
    return t;
  }
  void request_fullscreen_toggle() { fullscreen_toggle_ = true; }
  void save_settings();
  void message(const std::string& text, bool error = false);
  // File → Export figure… (Ctrl+E): opens the dialog on the step on screen.
  void open_export_dialog();
  const std::vector<DrawnPanel>& drawn() const { return drawn_; }
  // The warp inspector drew its lane diagram here this frame (screen coordinates).
  void note_diagram(ImVec2 min, ImVec2 max) override {
    diagram_min_ = min;
    diagram_max_ = max;
  }
  // Facts about the current request, as JSON (tests check them with the screenshot;
  // describe.cpp).
  std::string describe_json() const;
  double now() const { return time_; }  // seconds since start

  // ---- presentation mode (F5): the app and the headless context rebuild the fonts and
  // the theme when these change.
  void toggle_presentation() { state.present = !state.present; }
  // Font scale wanted for a display `display_h` pixels tall (presentation mode grows the
  // type with the window, re-rasterized from the TTFs).
  float font_scale_for(float display_h) const;
  int theme_index() const;

  // ---- side-by-side A/B (compare.cpp)
  // Sets the B side from "ID[:k=v,...]" and records it; "" leaves compare mode.
  // "launch K" (from 1) puts launch K of the program or trace on screen beside it.
  bool set_compare(const std::string& spec, std::string& error);
  bool comparing() const { return !state.compare.empty(); }
  // The pane drawn as side A or B: the main pane is A, except beside a previous build,
  // which is A while the new build on the main pane is B.
  Pane& side_pane(bool b_side) { return (ab.source == AbSource::PreviousBuild) != b_side ? ab.pane : pane; }
  const Pane& side_pane(bool b_side) const {
    return (ab.source == AbSource::PreviousBuild) != b_side ? ab.pane : pane;
  }
  // The names of the two sides on screen (ab_titles, or "before / after your edit").
  AbTitles ab_names() const;
  // The A/B table's figures, listed and shared (compare.cpp).
  AbSplit ab_split();

  // ---- what the views use
  UiState state;
  Pane pane;
  ABSide ab;
  Worker recorder;
  Timing timing;                    // the replay pack, the live bench, and what they time
  LessonController lessons{*this};  // the lesson being played (lesson_controller.h)
  SlideController slides{*this};    // the deck of slides (slide_controller.h)
  Dialogs dialogs;
  StatusLine status;
  GridPainter* painter() { return env_.painter ? env_.painter : &cpu_painter_; }
  // The state changed in a way that needs a new recording (debounced).
  void request_record() { record_due_ = time_ + 0.15; }
  void request_reanalyze() override;
  // What stopped the program, over the memory view (ViewSink).
  void banner(const Pane& p, bool foot) override;
  // What a panel that draws the trace is given for pane `p` (ui/views/context.h).
  ViewContext view_context(Pane& p);
  void enlarge(Panel p);

 private:
  void shortcuts();        // shortcuts.cpp
  void layout_and_draw();  // layout.cpp
  void advance_playback(float dt);
  // Puts the B pane on the request matching the A pane's (compare.cpp).
  void sync_b();
  void poll_b();
  // AbSource::Launch: takes the side's launch from the trace on the main pane when it changed.
  void derive_launch_side();
  // A program's recording arrived, before it is shown; `rebuilt`: the open program rebuilt
  // after a save, whose build on screen becomes side A (compare.cpp).
  void program_arrived(bool rebuilt);
  // A lesson keeps its progress beside the settings and waits for a recording due.
  friend class LessonController;
  Environment env_;
  CpuGridPainter cpu_painter_;
  double time_ = 0;
  session::StepMatch step_match_;  // B's request for each of A's
  session::LaunchSpec program_spec_;               // the program open, if any (rebuilt when saved)
  std::filesystem::file_time_type program_time_{};
  bool keep_step_once_ = false;                    // the next program recording is a rebuild
  std::string program_built_at_;                   // wall-clock time the program on screen arrived
  uint64_t synced_a_ = ~uint64_t(0);
  bool quit_ = false;
  bool fullscreen_toggle_ = false;
  double record_due_ = -1;
  std::string screenshot_request_;
  std::vector<DrawnPanel> drawn_;
  ImVec2 diagram_min_, diagram_max_;
};

}  // namespace ws::ui
