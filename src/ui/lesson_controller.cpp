// src/ui/lesson_controller.cpp — playing a lesson: its steps' launches recorded and
// resolved against the trace on screen, answers checked and kept, the views veiled while a
// question waits (lesson_controller.h).
#include "ui/lesson_controller.h"

#include <algorithm>
#include <filesystem>

#include "session/lesson.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

namespace {

// Metrics of one request, which the warp inspector shows (the rest are the source gutter's).
bool request_metric(lesson::Metric m) {
  using M = lesson::Metric;
  return m == M::Sectors || m == M::Lines || m == M::IdealSectors || m == M::Efficiency || m == M::Wavefronts ||
         m == M::Way || m == M::Conflicts || m == M::Coalescing || m == M::BankConflict;
}

// A bulk copy's bytes, and what they fill: the pipeline view draws each box with its size.
bool copy_metric(lesson::Metric m) {
  return m == lesson::Metric::CopyBytes || m == lesson::Metric::StagesFit || m == lesson::Metric::MulticastBytes;
}

}  // namespace

bool LessonController::veils_copies(const Pane& p) const {
  return veiled(p) && copy_metric(run.resolved->question->ask);
}

bool LessonController::open(const std::string& name) {
  lesson::Lesson l;
  try {
    l = lesson::load(lesson::find(name));
  } catch (const lesson::LessonError& e) {
    ui_.message(e.what(), true);
    return false;
  }
  if (run.progress_path.empty() && !ui_.env_.settings_path.empty()) {
    run.progress_path = (std::filesystem::path(ui_.env_.settings_path).parent_path() / "lesson-progress.json").string();
    std::string msg;
    run.progress = lesson::load_progress(run.progress_path, msg);
    if (!msg.empty()) ui_.message(msg, true);
  }
  if (ui_.comparing()) {
    std::string err;
    ui_.set_compare("", err);  // a lesson shows one launch at a time
  }
  ui_.state.lesson = name;
  run.panel = true;
  const size_t at = std::min(run.progress.of(l.id).current, l.steps.size() - 1);
  run.lesson = std::move(l);
  run.step = at;
  // The lesson panel takes the catalog's place; an enlarged panel gives way to it.
  if (ui_.state.enlarged >= 0 && ui_.state.enlarged != int(Panel::Lesson)) ui_.state.enlarged = -1;
  ui_.message("lesson: " + run.lesson->title);
  go_to(at);
  return true;
}

void LessonController::close() {
  run.panel = false;
  run.lesson.reset();
  run.resolved.reset();
  run.resolved_for.reset();
  run.pending = false;
  ui_.state.lesson.clear();
  if (ui_.state.enlarged == int(Panel::Lesson)) ui_.state.enlarged = -1;
}

void LessonController::go_to(size_t i) {
  if (!run.lesson || i >= run.lesson->steps.size()) return;
  LessonRun& L = run;
  const lesson::Lesson& l = *L.lesson;
  L.step = i;
  L.resolved.reset();
  L.resolved_for.reset();
  L.error.clear();
  L.input.clear();
  L.verdict.reset();
  L.unclear.clear();
  L.reveal_time = -1;
  L.revealed = false;
  L.pending = false;
  ui_.state.playing = false;
  L.progress.seen(l, i);
  save_progress();
  const lesson::StepLaunch& launch = l.steps[i].launch;
  // (its example's file looked up here, not in every frame's shows_step)
  L.program = launch.is_program() ? session::spec_of(launch) : session::LaunchSpec{};
  if (ui_.pane.model && ui_.recorder.idle() && ui_.record_due_ < 0 && shows_step()) {
    model_arrived();
    return;
  }
  if (launch.is_program()) {
    // The example program: another launch of the one open is shown at once; else it is run.
    const session::LaunchSpec* open = ui_.open_program_spec();
    if (ui_.pane.model && ui_.recorder.idle() && open && session::same_program(L.program, open->program) &&
        launch.launch < ui_.pane.model->launches()) {
      ui_.show_launch(launch.launch);
      model_arrived();
      return;
    }
    if (L.program.program.source.empty()) {
      L.error = session::missing_example(launch);
      return;
    }
    L.pending = true;
    ui_.open_program(L.program);
    if (ui_.recorder.idle()) {  // refused before it ran (the status line says why)
      L.pending = false;
      L.error = "could not run the example program " + launch.program;
    }
    return;
  }
  // Another launch: the catalog shows the step's, and the step follows the recording.
  const catalog::KernelInfo* k = catalog::find(launch.kernel);
  if (!k) {
    L.error = "kernel '" + launch.kernel + "' is not in this build's catalog";
    return;
  }
  ui_.state.kernel = launch.kernel;
  ui_.state.size = launch.size;
  for (const auto& p : k->params) ui_.state.params.erase(p.name);  // unset: the kernel's default
  for (const auto& [name, v] : launch.params) ui_.state.params[name] = v;
  ui_.state.blocks.clear();
  for (uint32_t b : launch.blocks) ui_.state.blocks += (ui_.state.blocks.empty() ? "" : ",") + std::to_string(b);
  L.pending = true;
  ui_.record();
  if (!ui_.status.record_error.empty()) {
    L.pending = false;
    L.error = ui_.status.record_error;
  }
}

bool LessonController::shows_step() const {
  const LessonRun& L = run;
  if (!L.lesson || !ui_.pane.model) return false;
  const lesson::StepLaunch& l = L.lesson->steps[L.step].launch;
  if (l.is_program()) {
    const session::LaunchSpec* open = ui_.open_program_spec();
    return open && ui_.pane.model->origin() == "program" && session::same_program(L.program, open->program) &&
           ui_.pane.model->launch() == l.launch;
  }
  const auto& tl = ui_.pane.model->trace().launch();
  return session::shows_launch(l, tl.kernel, tl.params);
}

void LessonController::model_arrived() {
  LessonRun& L = run;
  if (!L.lesson || !ui_.pane.model) return;
  const lesson::Step& st = L.lesson->steps[L.step];
  if (!shows_step()) {
    if (L.pending && ui_.recorder.idle()) L.pending = false;  // another launch was asked for since
    return;
  }
  const bool first = !L.resolved;
  L.pending = false;
  try {
    L.resolved = lesson::resolve_step(st, ui_.pane.model->trace());
    L.resolved_for = ui_.pane.model;
    L.error.clear();
  } catch (const lesson::LessonError& e) {
    L.resolved.reset();
    L.resolved_for = ui_.pane.model;
    L.error = e.what();
    return;
  }
  if (!first) return;  // the same trace analysed again: the student's place stays
  if (L.resolved->record != lesson::Resolved::kNone) ui_.set_step(L.resolved->record);
  // What the student did here before: their right answer, or the answer they asked for.
  if (const lesson::StepProgress* sp = L.progress.step(*L.lesson, L.step); sp && L.resolved->question) {
    if (sp->correct && !sp->answer.empty()) L.verdict = L.resolved->check(sp->answer);
    // A wrong try left waiting: its verdict and hint again (the next wrong one shows the
    // answer, as it would have without the break).
    if (!sp->correct && !sp->revealed && sp->tries > 0 && !sp->answer.empty())
      if (const lesson::Verdict v = L.resolved->check(sp->answer); v.understood && !v.correct) L.verdict = v;
    // Shown as it was left, without pointing at the panel again.
    L.revealed = sp->revealed;
    L.scroll_to_answer = L.open() ? LessonRun::kScrollFrames : 0;
  }
  L.scroll_to_question = L.resolved->question && !L.open() ? LessonRun::kScrollFrames : 0;
}

void LessonController::check(const std::string& answer) {
  LessonRun& L = run;
  if (!L.lesson || !L.resolved || !L.resolved->question) return;
  const lesson::Verdict v = L.resolved->check(answer);
  if (!v.understood) {
    L.unclear = v.explanation.empty() ? "Answer with a number, or pick one of the choices." : v.explanation;
    return;
  }
  L.unclear.clear();
  L.verdict = v;
  L.progress.answered(*L.lesson, L.step, answer, v.correct);
  const lesson::StepProgress* sp = L.progress.step(*L.lesson, L.step);
  if (v.correct) {
    L.reveal_time = ui_.now();
    L.scroll_to_answer = LessonRun::kScrollFrames;
    back_to_request();
  } else if (!L.revealed) {
    L.scroll_to_question = LessonRun::kScrollFrames;  // the hint under the box, and the buttons, stay in view
  }
  if (!v.correct && sp && sp->tries >= 2) {
    // Two wrong answers: the answer is shown (and the step scores as not right first).
    L.revealed = true;
    L.reveal_time = ui_.now();
    L.scroll_to_answer = LessonRun::kScrollFrames;
    L.progress.revealed(*L.lesson, L.step);
    back_to_request();
  }
  L.input.clear();
  save_progress();
}

void LessonController::reveal() {
  LessonRun& L = run;
  if (!L.lesson || !L.resolved || !L.resolved->question) return;
  L.revealed = true;
  L.reveal_time = ui_.now();
  L.scroll_to_answer = LessonRun::kScrollFrames;
  L.progress.revealed(*L.lesson, L.step);
  save_progress();
  back_to_request();
}

void LessonController::back_to_request() {
  const LessonRun& L = run;
  if (L.resolved && L.resolved_for == ui_.pane.model && ui_.pane.model && L.resolved->record != lesson::Resolved::kNone)
    ui_.set_step(L.resolved->record);
}

bool LessonController::question_waits(const Pane& p) const {
  const LessonRun& L = run;
  // Not in an A/B view: it has no lesson panel to answer in.
  return &p == &ui_.pane && L.waiting() && !ui_.comparing() && ui_.pane.model && L.resolved_for == ui_.pane.model &&
         L.resolved->site >= 0;
}

bool LessonController::veiled() const {
  const LessonRun& L = run;
  if (!question_waits(ui_.pane)) return false;
  // Any request of the asked-about site's line or the lines beside it: the requests of one
  // site share the answer of a site metric, and a neighbouring load or store (a copy's store
  // beside its load) shows the same figures under another name.
  const auto& t = ui_.pane.model->trace();
  if (ui_.pane.step >= t.records.size()) return false;
  const uint32_t here = t.records[ui_.pane.step].site;
  if (here == uint32_t(L.resolved->site)) return true;
  if (here >= t.sites.size() || size_t(L.resolved->site) >= t.sites.size()) return false;
  const trace::Site &a = t.sites[here], &q = t.sites[size_t(L.resolved->site)];
  return a.file == q.file && a.line + 1 >= q.line && a.line <= q.line + 1;
}

int LessonController::gutter_site() const {
  const LessonRun& L = run;
  if (!L.lesson || !L.panel || ui_.comparing() || !ui_.pane.model || L.resolved_for != ui_.pane.model) return -1;
  if (L.resolved && L.resolved->question && L.open() && L.resolved->site >= 0) return L.resolved->site;
  return -2;
}

Panel LessonController::answer_panel() const {
  const LessonRun& L = run;
  if (!L.resolved || !L.resolved->question) return Panel::Count;
  const lesson::Metric m = L.resolved->question->ask;
  if (request_metric(m)) return Panel::Warp;
  if (m == lesson::Metric::MulticastBytes) return Panel::Cluster;  // the fan-out, with its bytes
  if (copy_metric(m)) return Panel::Pipeline;  // the ring's boxes, with their bytes
  return Panel::Source;  // site figures and request counts: the gutter
}

void LessonController::save_progress() {
  if (run.progress_path.empty()) return;
  std::string err;
  if (!lesson::save_progress(run.progress, run.progress_path, err)) ui_.message(err, true);
}

bool LessonController::veiled(const Pane& p) const { return &p == &ui_.pane && veiled(); }

}  // namespace ws::ui
