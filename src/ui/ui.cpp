// src/ui/ui.cpp — the app's controller: background jobs (record, open, save, re-analyse),
// the models they bring, playback, and the frame's order of work.
#include "ui/ui.h"
#include "ui/controls.h"

#include <cstdio>
#include <filesystem>

#include <algorithm>
#include <sstream>
#include <cmath>

#include "ui/settings.h"
#include "ui/figure/theme.h"

namespace ws::ui {

// ---- Pane --------------------------------------------------------------------------------



// ---- Ui ----------------------------------------------------------------------------------

Ui::Ui(Environment e) : timing(e.live, e.replay_dir), env_(std::move(e)) {
  std::string msg;
  if (!env_.settings_path.empty() && !load_settings(env_.settings_path, state, msg) && !msg.empty())
    message(msg, true);
  state.playing = false;
  state.show_help = false;
  if (!catalog::find(state.kernel)) state.kernel = UiState{}.kernel;  // a kernel this build lacks
}

Ui::~Ui() = default;

void Ui::message(const std::string& text, bool error) {
  status.launch_note = false;
  status.text = text;
  status.error = error;
  status.time = time_;
}

void Ui::save_settings() {
  if (env_.settings_path.empty()) return;
  std::string err;
  if (!ws::ui::save_settings(env_.settings_path, state, err)) message(err, true);
}

std::string Ui::take_screenshot_request() {
  std::string s = std::move(screenshot_request_);
  screenshot_request_.clear();
  return s;
}

bool Ui::settled() const {
  const bool a = pane.model && recorder.idle() && record_due_ < 0 && !slides.pending() && !lessons.run.pending &&
                 (!state.memory.heat || pane.heat.converged(std::min<uint64_t>(pane.step + 1, pane.model->size())));
  if (!a || !comparing() || !ab.error.empty()) return a;
  // A/B: the B side is recorded, locked to A's step, and its heat has caught up too.
  return ab.pane.model && ab.recorder.idle() && synced_a_ == pane.step &&
         (!state.memory.heat || ab.pane.heat.converged(std::min<uint64_t>(ab.pane.step + 1, ab.pane.model->size())));
}

float Ui::font_scale_for(float display_h) const {
  if (!state.present) return state.font_scale;
  // Presentation: about 24 px body text at 720 rows, growing with the window (1080: 36 px).
  return state.font_scale * std::max(1.4f, 1.4f * display_h / 720.0f);
}

int Ui::theme_index() const { return state.present ? kThemePresentation : state.theme; }

session::LaunchSpec Ui::spec() const {
  session::LaunchSpec spec;
  spec.kernel = state.kernel;
  if (state.size) spec.size = state.size;
  // The panel keeps values of every kernel shown so far: hand on this kernel's own.
  if (const catalog::KernelInfo* k = catalog::find(state.kernel))
    for (const auto& p : k->params)
      if (auto it = state.params.find(p.name); it != state.params.end()) spec.params[p.name] = it->second;
  spec.blocks = state.blocks;
  spec.block_default = session::BlockDefault::FewWhenLarge;  // every change re-records: keep it quick
  spec.max_records = state.max_records;
  spec.dram = state.dram.preset;
  return spec;
}

void Ui::record() {
  record_due_ = -1;
  status.record_error.clear();
  // A catalog kernel asked for while a program is open (a lesson, a slide): the program
  // closes, and the status bar says so.
  if (!program_spec_.program.source.empty()) close_program();
  Job job;
  job.kind = Job::Record;
  job.spec = spec();
  try {
    job.launch = session::resolve(job.spec);
  } catch (const session::InputError& e) {
    status.record_error = e.what();
    return;
  }
  job.label = "recording " + job.launch.kernel->id;
  recorder.submit(std::move(job));
}

static analysis::DramModel dram_or_textbook(const std::string& preset) {
  try {
    return session::dram_model(preset);
  } catch (const session::InputError&) {
    return session::dram_model("textbook");  // a preset from an older settings file
  }
}

void Ui::open_file(const std::string& path, uint32_t launch) {
  program_spec_ = session::LaunchSpec{};  // a trace file opened: the program is no longer watched
  Job job;
  job.kind = Job::Record;
  job.spec.trace = path;
  job.spec.launch = launch;
  job.spec.dram = dram_or_textbook(state.dram.preset).preset;
  job.launch = session::resolve(job.spec);
  job.label = "opening " + path;
  recorder.submit(std::move(job));
  state.last_file = path;
}

void Ui::open_program(session::LaunchSpec spec) {
  Job job;
  job.kind = Job::Record;
  spec.program.echo = false;  // what it prints is kept and shown (File → Program output)
  spec.dram = dram_or_textbook(state.dram.preset).preset;
  job.spec = spec;
  try {
    job.launch = session::resolve(job.spec);
  } catch (const std::exception& e) {
    message(e.what(), true);
    return;
  }
  job.label = "compiling and running " + spec.program.source;
  recorder.submit(std::move(job));
  state.last_program = spec.program.source;
  program_spec_ = std::move(spec);
  std::error_code ec;
  program_time_ = std::filesystem::last_write_time(program_spec_.program.source, ec);
}

void Ui::show_launch(uint32_t k) {
  if (!pane.model) return;
  try {
    show_model(pane.model->of_launch(k, dram_or_textbook(state.dram.preset)), false);
    // A race stopped nothing: the banner names the race of the launch on screen, where it has one.
    if (status.problem.kind == "race") status.problem = pane.model->problem();
    // Beside a previous build, that build shows the same launch where it made one.
    if (ab.source == AbSource::PreviousBuild && ab.pane.model && k < ab.pane.model->launches()) {
      ab.pane.model = ab.pane.model->of_launch(k, dram_or_textbook(state.dram.preset));
      ab.pane.heat.reset(ab.pane.model);
      ab.pane.grids.assign(ab.pane.model->shapes().size(), GridView{});
    }
  } catch (const std::exception& e) {
    message(e.what(), true);
  }
}

void Ui::follow_changed_launch() {
  // A save that left the launch on screen as it was but changed another (the edit was in
  // another kernel): before vs after moves to the first launch it changed.
  if (ab.source != AbSource::PreviousBuild || !pane.model || !ab.pane.model) return;
  if (pane.model->launch() != ab.pane.model->launch()) return;
  if (pane.model->totals() != ab.pane.model->totals()) return;
  const int64_t k = session::first_changed_launch(*ab.pane.model, *pane.model, pane.model->launch());
  if (k < 0) return;
  const uint32_t was = pane.model->launch();
  show_launch(uint32_t(k));
  if (pane.model->launch() != uint32_t(k)) return;
  set_step(0);
  message("your edit changed launch " + std::to_string(k + 1) + " (" + pane.model->trace().launch().kernel +
          "), not launch " + std::to_string(was + 1) + ": before vs after shows launch " + std::to_string(k + 1));
}

bool Ui::show_problem() {
  const program::Problem& p = status.problem;
  if (!pane.model || p.empty() || p.launch == 0 || p.launch > pane.model->launches()) return false;
  if (p.launch - 1 != pane.model->launch()) show_launch(p.launch - 1);
  if (pane.model->launch() != p.launch - 1) return false;
  if (pane.model->problem_step() >= 0) set_step(uint64_t(pane.model->problem_step()));
  return true;
}

int64_t Ui::problem_step_on(const Pane& p) const {
  // (the Session answers -1 for another launch's problem)
  return &p == &pane && p.model && !status.problem.empty() ? p.model->problem_step() : -1;
}

bool Ui::rebuild_if_saved() {
  if (program_spec_.program.source.empty() || recorder.busy()) return false;
  std::error_code ec;
  const auto t = std::filesystem::last_write_time(program_spec_.program.source, ec);
  if (ec || t == program_time_) return false;
  // The view keeps its launch and step where they still exist.
  session::LaunchSpec again = program_spec_;
  if (pane.model && pane.model->origin() == "program" && pane.model->file() == again.program.source) again.launch = pane.model->launch();
  again.nearest_launch = true;
  keep_step_once_ = true;
  open_program(again);
  message("the program changed on disk: rebuilding", false);
  return true;
}

void Ui::save_file(const std::string& path) {
  if (!pane.model) {
    message("nothing to save yet", true);
    return;
  }
  Job job;
  job.kind = Job::Save;
  job.path = path;
  job.session = pane.model;
  // The trace's bookmarks: the slides of its launch, by step.
  std::vector<trace::Bookmark> marks;
  for (const auto& sl : slides.deck.slides)
    if (slides.on(sl, pane)) marks.push_back({sl.step, sl.caption});
  std::stable_sort(marks.begin(), marks.end(), [](const auto& x, const auto& y) { return x.record < y.record; });
  job.bookmarks = std::move(marks);
  job.label = "saving " + path;
  recorder.submit(std::move(job));
  state.last_file = path;
}

void Ui::banner(const Pane& p, bool foot) {
  if (status.problem.empty()) return;
  // One banner: on the main pane, or in an A/B view on the side showing the launch that
  // stopped (the main pane where neither does).
  auto owns = [&](const Pane& q) {
    return q.model && (status.problem.launch == 0 || status.problem.launch - 1 == q.model->launch());
  };
  const Pane& b = side_pane(true);
  const bool other = comparing() && &b != &pane && owns(b) && !owns(pane);
  if (&p == (other ? &b : &pane)) problem_banner(*this, p, foot);
}

ViewContext Ui::view_context(Pane& p) {
  ViewContext c{state, p, *this};
  c.painter = painter();
  c.main = &p == &pane;
  c.busy = recorder.busy();
  c.comparing = comparing();
  if (lessons.veiled(p)) c.veil = &lessons.run.resolved->question->prompt;
  c.veil_copies = lessons.veils_copies(p);
  c.gutter_site = lessons.gutter_site();
  return c;
}

void Ui::request_reanalyze() {
  if (!pane.model) return;
  Job job;
  job.kind = Job::Reanalyze;
  job.session = pane.model;
  job.dram = dram_or_textbook(state.dram.preset);
  job.label = "analysing with DRAM model " + state.dram.preset;
  recorder.submit(std::move(job));
}

void Ui::set_step(uint64_t step) {
  pane.step = step;
  if (pane.model && pane.model->size()) pane.step = std::min<uint64_t>(step, pane.model->size() - 1);
  pane.play_accum = 0;
}

void Ui::enlarge(Panel p) { state.enlarged = state.enlarged == int(p) ? -1 : int(p); }

void Ui::show_model(std::shared_ptr<const Session> m, bool keep_step) {
  bool same_shapes = pane.model && pane.model->shapes().size() == m->shapes().size();
  if (same_shapes)
    for (size_t i = 0; i < m->shapes().size(); ++i)
      same_shapes &= pane.model->shapes()[i].rows == m->shapes()[i].rows && pane.model->shapes()[i].cols == m->shapes()[i].cols;
  pane.model = std::move(m);
  pane.heat.reset(pane.model);
  if (!same_shapes) pane.grids.assign(pane.model->shapes().size(), GridView{});
  set_step(keep_step ? pane.step : 0);
}

void Ui::poll() {
  while (auto o = recorder.take()) {
    // A launch run now (a catalog kernel, a program), or one read from a trace file.
    const bool recorded = o->kind == Job::Record && o->origin != session::Origin::TraceFile;
    const bool opened = o->kind == Job::Record && o->origin == session::Origin::TraceFile;
    if (!o->error.empty()) {
      if (recorded || (opened && !pane.model)) status.record_error = o->error;
      status.build_errors = o->diagnostics;
      status.build_error_shown = 0;
      if (recorded) status.problem = o->problem;
      if (recorded) slides.recording_failed();
      message(o->error, true);
      continue;
    }
    if (!o->message.empty()) message(o->message);
    if (!o->session) continue;
    if (o->kind == Job::Reanalyze) {
      // Same trace, new DRAM figures: step and heat stay as they are. A result for a trace
      // no longer on screen is dropped.
      if (pane.model && o->session->shared_trace() == pane.model->shared_trace()) pane.model = o->session;
      continue;
    }
    if (recorded) {
      status.record_error.clear();
      status.build_errors.clear();
      if (o->origin == session::Origin::Program && !o->session->program_output().empty()) {
        // The program's own lines apart from the emulated device's notes ("warpscope: ...").
        long lines = 0, notes = 0;
        std::istringstream out(o->session->program_output());
        for (std::string l; std::getline(out, l);) ++(l.rfind("warpscope: ", 0) == 0 ? notes : lines);
        char text[160];
        if (notes && lines)
          std::snprintf(text, sizeof text, "the program printed %ld line%s, and warpscope %ld note%s (File → Program output)", lines,
                        lines == 1 ? "" : "s", notes, notes == 1 ? "" : "s");
        else if (notes)
          std::snprintf(text, sizeof text, "warpscope noted %ld thing%s about the program (File → Program output)", notes,
                        notes == 1 ? "" : "s");
        else
          std::snprintf(text, sizeof text, "the program printed %ld line%s (File → Program output)", lines, lines == 1 ? "" : "s");
        message(text);
      }
      // The note of a large launch ("recording blocks 0-3 only") lasts while it is true.
      if (o->session->few_blocks()) {
        message(o->session->note());
        status.launch_note = true;
      } else if (status.launch_note) {
        message("");
      }
    }
    if (opened) {
      // The trace's bookmarks join the deck as slides of its launch (once each).
      const auto& launch = o->session->trace().launch();
      for (const auto& b : o->session->trace().bookmarks) {
        session::Slide sl = session::slide_of(launch.kernel, launch.params, b.record, "warp", b.caption);
        auto& deck = slides.deck.slides;
        const bool known = std::any_of(deck.begin(), deck.end(), [&](const session::Slide& d) {
          return d.step == b.record && session::same_variant(d, launch.kernel, launch.params);
        });
        if (!known) deck.push_back(std::move(sl));
      }
      // Show the opened launch in the catalog, without re-recording it.
      const auto& l = o->session->trace().launch();
      if (catalog::find(l.kernel)) {
        state.kernel = l.kernel;
        for (const auto& [k, v] : l.params)
          if (k == "size")
            state.size = v;
          else
            state.params[k] = v;
      }
    }
    // A program opened anew starts at its first request; one rebuilt after a save keeps its
    // place, unless the save made it fault or race: then what went wrong wins, shown alone.
    const bool stops = o->origin == session::Origin::Program && !o->session->problem().empty();
    const bool keep = recorded && (o->origin != session::Origin::Program || keep_step_once_) && !stops;
    // A rebuild keeps the build on screen beside the new one (side A, compare.cpp).
    bool clean_rebuild = false;
    if (o->origin == session::Origin::Program) {
      const bool rebuilt = keep_step_once_ && pane.model && pane.model->origin() == "program";
      clean_rebuild = rebuilt && !stops;
      program_arrived(rebuilt && !stops);
      if (rebuilt && stops) {
        const program::Problem& pr = o->session->problem();
        message(std::string("the saved program ") + (pr.kind == "race" ? "races" : "stops") +
                    (pr.launch ? " in launch " + std::to_string(pr.launch) : std::string()) +
                    ": shown where; before vs after comes back once it runs clean",
                true);
      }
    } else if (std::string unused; ab.source == AbSource::PreviousBuild ||
                                  (ab.source == AbSource::Launch && o->origin == session::Origin::Catalog))
      set_compare("", unused);  // a catalog kernel has no earlier build and one launch
    if (o->origin == session::Origin::Program) keep_step_once_ = false;
    if (o->kind == Job::Record) status.problem = o->session->problem();
    // A program that faulted opens on the faulting request (a rebuild that runs clean stays
    // on its launch).
    // A launch the user named on the command line (--launch, --compare-launch) stays, the
    // banner pointing at the fault; a later save's fault moves the view as any does.
    std::shared_ptr<const Session> shown = o->session;
    const uint32_t stopped = shown->problem().launch;  // from 1; 0: none
    const bool named = o->origin == session::Origin::Program && program_spec_.launch_named;
    if (o->origin == session::Origin::Program) program_spec_.launch_named = false;
    if (recorded && !keep && !named && stopped > 0 && stopped - 1 != shown->launch() && stopped <= shown->launches())
      shown = shown->of_launch(stopped - 1, dram_or_textbook(state.dram.preset));
    show_model(shown, keep);
    if (clean_rebuild) follow_changed_launch();
    if (recorded && pane.model->problem_step() >= 0) set_step(uint64_t(pane.model->problem_step()));
    if (recorded) lessons.model_arrived();
    // A slide of another launch was asked for: its step, now that its recording is here.
    if (recorded) slides.recording_arrived();
  }
  // The DRAM preset changed while a recording with the old one was under way.
  if (pane.model && !recorder.busy() && pane.model->report().dram.preset != state.dram.preset) {
    const auto presets = analysis::dram_presets();
    if (std::find(presets.begin(), presets.end(), state.dram.preset) != presets.end()) request_reanalyze();
  }
  timing.poll();
}

void Ui::advance_playback(float dt) {
  if (!state.playing || !pane.model || pane.model->size() == 0) return;
  const uint64_t last = pane.model->size() - 1;
  pane.play_accum += double(dt) * state.timeline.speed;
  int guard = 0;
  while (pane.play_accum >= 1.0 && guard++ < 200000) {
    pane.play_accum -= 1.0;
    if (pane.step >= last) {
      if (state.timeline.loop) {
        pane.step = 0;
        continue;
      }
      state.playing = false;
      pane.play_accum = 0;
      break;
    }
    pane.step = pane.model->next(pane.step, state.timeline.play_unit, +1);
  }
}

void Ui::frame(float dt) {
  time_ += dt;
  poll();
  if (record_due_ >= 0 && time_ >= record_due_) record();
  shortcuts();
  advance_playback(dt);
  if (pane.model && state.memory.heat) pane.heat.update(std::min<uint64_t>(pane.step + 1, pane.model->size()));
  sync_b();
  // Live timings follow the family and the parameters on screen.
  timing.follow(pane.model.get(), state.params);
  state.fragments = pane.model && has_mma(*pane.model);
  state.pipeline = pane.model && has_bulk_copies(*pane.model);
  state.cluster = pane.model && has_cluster(*pane.model);
  layout_and_draw();
}

// ---- the program open ------------------------------------------------------------------

const session::LaunchSpec* Ui::open_program_spec() const {
  return program_spec_.program.source.empty() ? nullptr : &program_spec_;
}

void Ui::close_program() {
  if (program_spec_.program.source.empty()) return;
  const std::string name = std::filesystem::path(program_spec_.program.source).filename().string();
  program_spec_ = session::LaunchSpec{};
  message(name + " closed: the catalog's " + state.kernel + " is recorded (File → Open program… reopens it)");
}

void Ui::rerun_program() {
  if (program_spec_.program.source.empty()) return;
  session::LaunchSpec again = program_spec_;
  if (pane.model && pane.model->origin() == "program") again.launch = pane.model->launch();
  again.nearest_launch = true;
  keep_step_once_ = true;
  open_program(again);
}

void Ui::set_program_engine(const std::string& engine) {
  if (program_spec_.program.source.empty() || program_spec_.program.engine == engine) return;
  program_spec_.program.engine = engine;
  rerun_program();
}

std::string Ui::file_stem() const {
  if (pane.model && pane.model->origin() == "program") return session::file_stem(*pane.model);
  return state.kernel;
}

}  // namespace ws::ui
