// src/ui/lesson_controller.h — the lesson being played: which step is on screen, the
// launch it opens, the student's answer and what it earned, the progress kept between
// runs, and what the views may show while a question waits. The lesson panel
// (lesson_view.cpp) draws it; Ui only hands it the recordings that arrive.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lesson/lesson.h"
#include "lesson/progress.h"
#include "session/session.h"
#include "ui/panels.h"

namespace ws::ui {

class Ui;
struct Pane;

// The lesson in the lesson panel: the file, the step on screen, the student's answer and
// what it earned, and the progress kept between runs.
struct LessonRun {
  std::optional<lesson::Lesson> lesson;         // none: no lesson open
  size_t step = 0;                              // index into lesson->steps
  bool pending = false;                         // the step's launch is being recorded
  std::optional<lesson::Resolved> resolved;     // the step against the trace on screen
  std::shared_ptr<const session::Session> resolved_for;  // that trace
  std::string error;                            // why the step cannot be shown
  std::string input;                            // the answer being typed
  std::optional<lesson::Verdict> verdict;       // the last answer checked
  std::string unclear;                          // an answer that did not parse, and why
  bool revealed = false;                        // the student asked for the answer
  double reveal_time = -1;                      // when an answer came out this run (Ui::now()), or -1
  // The panel scrolls to a fresh answer, and to a waiting question's box and buttons, for a
  // few frames (the first frame of a step does not know yet how far its text reaches).
  static constexpr uint8_t kScrollFrames = 3;
  uint8_t scroll_to_answer = 0;                 // frames left
  uint8_t scroll_to_question = 0;
  lesson::Progress progress;
  std::string progress_path;                    // "": not kept
  std::vector<lesson::Entry> available;         // the lessons folder, for the menu
  bool panel = false;                           // the lesson panel is on screen (a lesson, or the list)
  std::map<std::string, std::vector<std::string>> kernels;  // lesson id -> the kernels its steps open
  session::LaunchSpec program;                  // a program step's spec, found once when the step opens
  bool answered() const { return verdict && verdict->correct; }
  // The answer is on screen: answered right, or revealed.
  bool open() const { return answered() || revealed; }
  // A step's question waits for its answer (nothing of the answer may show yet).
  bool waiting() const { return lesson && resolved && resolved->question && !open(); }
};

// Predict, then see: plays a lesson's steps on the app's A pane.
class LessonController {
 public:
  explicit LessonController(Ui& ui) : ui_(ui) {}

  // Opens a lesson by name ("transpose") or path on the step the student was on; false
  // and the status line says why when it cannot.
  bool open(const std::string& name_or_path);
  void close();
  bool active() const { return run.lesson.has_value(); }
  // Shows step `i`: records its launch if another is on screen, then goes to its request.
  void go_to(size_t i);
  // Checks the student's answer to the step's question (the verdict is kept and saved).
  void check(const std::string& answer);
  // Shows the answer without one.
  void reveal();
  // A question waits for the student's prediction: the views that would give the answer
  // away (the warp inspector's figures, the source gutter) are veiled.
  bool veiled() const;
  // The same for the views of pane `p` (only the A pane ever shows a lesson's step).
  bool veiled(const Pane& p) const;
  // A question waits on the trace of pane `p`, whichever request is on screen: the
  // timeline's cost bars, which show every request's cost at once, are veiled.
  bool question_waits(const Pane& p) const;
  // The same, for a question about a bulk copy's bytes: the pipeline and cluster views, which
  // draw each box and each multicast with its size, are veiled too.
  bool veils_copies(const Pane& p) const;
  // What the source gutter may show while a lesson is open: -1 every line's figures (no
  // lesson, or another trace on screen); -2 none; a site: the answered step's own line.
  int gutter_site() const;
  // The panel whose figures show the step's answer (Panel::Count: none).
  Panel answer_panel() const;
  // A trace of the step's launch is on screen (a recording arrived, or the same trace was
  // analysed again): resolves the step against it; the first time, goes to its request.
  void model_arrived();
  // The trace on the main pane is the step's launch: its catalog kernel with its settings, or
  // its example program run with its arguments, at its launch.
  bool shows_step() const;

  // What the lesson panel shows and edits (the typed answer, the list of lessons).
  LessonRun run;

 private:
  void save_progress();
  // The answer shown (right, or revealed): the view goes back to the step's request, where
  // the student may have stepped away from while thinking.
  void back_to_request();
  Ui& ui_;
};

}  // namespace ws::ui
