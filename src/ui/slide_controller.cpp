// src/ui/slide_controller.cpp — the deck of slides: adding, showing and stepping through
// them, and their file (slide_controller.h).
#include "ui/slide_controller.h"

#include <algorithm>
#include <filesystem>

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

// Whether two paths name the same file (as typed, or the same file on disk).
bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

// Whether `m` is the program of `p` (its file, flags and arguments), whatever launch it shows.
bool program_of(const session::Session* m, const session::SlideProgram& p) {
  return m && m->origin() == "program" && same_file(m->file(), p.source) &&
         m->spec().program.nvcc_flags == p.nvcc_flags && m->spec().program.args == p.args &&
         m->spec().program.literal == p.literal;
}

std::string slide_name(size_t i) { return "slide " + std::to_string(i + 1); }

}  // namespace

bool SlideController::on(const session::Slide& s, const Pane& p) const {
  if (s.program) return program_of(p.model.get(), *s.program) && p.model->launch() == s.program->launch;
  return p.model && session::same_variant(s, p.model->trace().launch().kernel, p.model->trace().launch().params);
}

int SlideController::at(const Pane& p) const {
  for (size_t i = 0; i < deck.slides.size(); ++i)
    if (deck.slides[i].step == p.step && on(deck.slides[i], p)) return int(i);
  return -1;
}

void SlideController::add(const std::string& caption) {
  if (!ui_.pane.model) return;
  const auto& l = ui_.pane.model->trace().launch();
  const std::string view = view_on_screen(ui_.state);
  if (int i = at(ui_.pane); i >= 0) {
    // One slide per launch and step: a second one renames it (and takes the view on screen).
    deck.slides[size_t(i)].caption = caption;
    deck.slides[size_t(i)].view = view;
    state.current = i;
    ui_.message("slide " + std::to_string(i + 1) + " renamed" + (caption.empty() ? "" : ": " + caption));
    return;
  }
  // A program's slide keeps how to build it again and what its sources were.
  if (ui_.pane.model->origin() == "program")
    deck.slides.push_back(session::program_slide(*ui_.pane.model, ui_.pane.step, view, caption));
  else
    deck.slides.push_back(session::slide_of(l.kernel, l.params, ui_.pane.step, view, caption));
  state.current = int(deck.slides.size()) - 1;
  ui_.message("slide " + std::to_string(deck.slides.size()) + " at request " +
              fmt_count(session::request_number(ui_.pane.step)) + (caption.empty() ? "" : ": " + caption));
}

bool SlideController::go_to(size_t i) {
  if (i >= deck.slides.size()) return false;
  const session::Slide& s = deck.slides[i];
  ui_.state.playing = false;
  state.current = int(i);
  // The slide's view: its panel enlarged, when it is not the warp inspector every layout
  // shows, or when a panel is enlarged already.
  Panel panel;
  const std::string key = s.view == "banks" ? "warp" : s.view;
  if (panel_from_key(key, panel) && (key != "warp" || ui_.state.enlarged >= 0)) ui_.state.enlarged = int(panel);
  ui_.message("slide " + std::to_string(i + 1) + " of " + std::to_string(deck.slides.size()) +
              (s.caption.empty() ? "" : ": " + s.caption));
  if (on(s, ui_.pane) && pending_ < 0) {
    ui_.set_step(s.step);
    return true;
  }
  if (s.program) return open_program_slide(i);
  // Another launch: the catalog shows the slide's, and its step follows the recording.
  if (!catalog::find(s.kernel)) {
    ui_.message("slide " + std::to_string(i + 1) + ": kernel '" + s.kernel + "' is not in this build's catalog", true);
    return false;
  }
  ui_.state.kernel = s.kernel;
  ui_.state.size = s.size.value_or(0);
  if (const catalog::KernelInfo* k = catalog::find(s.kernel))
    for (const auto& p : k->params) ui_.state.params.erase(p.name);  // unset: the kernel's default
  for (const auto& [k, v] : s.params) ui_.state.params[k] = v;
  pending_ = int(i);
  ui_.record();
  if (!ui_.status.record_error.empty()) pending_ = -1;
  return true;
}

bool SlideController::next(int dir) {
  if (deck.slides.empty()) {
    ui_.message("no slides yet: B adds the step on screen", true);
    return false;
  }
  int from = pending_ >= 0 ? pending_ : state.current;
  if (int here = at(ui_.pane); here >= 0 && pending_ < 0) from = here;
  const int n = int(deck.slides.size());
  const int to = from < 0 ? (dir > 0 ? 0 : n - 1) : from + (dir > 0 ? 1 : -1);
  if (to < 0 || to >= n) {
    ui_.message(dir > 0 ? "that was the last slide" : "that was the first slide");
    return false;
  }
  return go_to(size_t(to));
}

bool SlideController::load(const std::string& path) {
  try {
    deck = session::load_deck(path);
  } catch (const session::InputError& e) {
    ui_.message(e.what(), true);
    return false;
  }
  state.file = path;
  state.current = -1;
  ui_.message("deck " + path + ": " + std::to_string(deck.slides.size()) + " slides (N: next slide)");
  return true;
}

bool SlideController::save(const std::string& path) {
  try {
    session::save_deck(deck, path);
  } catch (const session::InputError& e) {
    ui_.message(e.what(), true);
    return false;
  }
  state.file = path;
  ui_.message("saved " + std::to_string(deck.slides.size()) + " slides to " + path);
  return true;
}


bool SlideController::open_program_slide(size_t i) {
  const session::SlideProgram& p = *deck.slides[i].program;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p.source, ec)) {
    ui_.message(slide_name(i) + ": its program " + p.source + " is not here: nothing to build", true);
    return false;
  }
  // Another launch of the program on screen: no build needed.
  if (program_of(ui_.pane.model.get(), p) && p.launch < ui_.pane.model->launches()) {
    ui_.show_launch(p.launch);
    program_arrived(i);
    return true;
  }
  // A deck may come from anyone: its program runs only once the user has seen what runs.
  const std::string cmd = session::program_command(p);
  const bool known = state.allow_programs || std::find(agreed_.begin(), agreed_.end(), cmd) != agreed_.end() ||
                     program_of(ui_.pane.model.get(), p);
  if (!known) {
    confirm_ = int(i);
    ui_.message(slide_name(i) + " builds and runs " + std::filesystem::path(p.source).filename().string() +
                ": waiting for your yes");
    return false;
  }
  confirm_ = -1;
  pending_ = int(i);
  ui_.open_program(deck.slides[i].spec());
  if (ui_.recorder.idle()) pending_ = -1;  // it could not start (the status line says why)
  return pending_ >= 0;
}

void SlideController::confirm(bool yes) {
  if (confirm_ < 0) return;
  const size_t i = size_t(confirm_);
  confirm_ = -1;
  if (i >= deck.slides.size() || !deck.slides[i].program) return;
  if (!yes) {
    ui_.message(slide_name(i) + ": its program was not run");
    return;
  }
  agreed_.push_back(session::program_command(*deck.slides[i].program));
  go_to(i);
}

void SlideController::program_arrived(size_t i) {
  const session::Slide& s = deck.slides[i];
  const session::Session& m = *ui_.pane.model;
  ui_.set_step(s.step);
  // What can still be shown of a slide whose program changed, and why it may differ.
  const std::string name = std::filesystem::path(s.program->source).filename().string();
  std::string why;
  if (!s.program->hash.empty() && session::source_hash(m) != s.program->hash)
    why = name + " changed since the slide was made";
  if (m.launch() != s.program->launch)
    why += (why.empty() ? "" : "; ") + std::string("it has no launch ") + std::to_string(s.program->launch + 1);
  if (s.step >= m.size())
    why += (why.empty() ? "" : "; ") + std::string("the launch has no request ") +
           fmt_count(session::request_number(s.step));
  if (!why.empty())
    ui_.message(slide_name(i) + ": " + why + " (shown as it is now)", true);
  else
    ui_.message(slide_name(i) + " of " + std::to_string(deck.slides.size()) + (s.caption.empty() ? "" : ": " + s.caption));
}

void SlideController::recording_arrived() {
  if (pending_ < 0) return;
  const size_t i = size_t(pending_);
  if (i < deck.slides.size() && deck.slides[i].program && program_of(ui_.pane.model.get(), *deck.slides[i].program)) {
    program_arrived(i);
    pending_ = -1;
    return;
  }
  if (i < deck.slides.size() && on(deck.slides[i], ui_.pane)) {
    ui_.set_step(deck.slides[i].step);
    pending_ = -1;
  } else if (i >= deck.slides.size() || ui_.recorder.idle()) {
    pending_ = -1;  // removed, or another launch was asked for since (the catalog)
  }
}

}  // namespace ws::ui
