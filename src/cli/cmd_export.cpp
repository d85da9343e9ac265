// src/cli/cmd_export.cpp — `warpscope export`: a figure of one view (memory, warp, banks,
// dram, source) at a step, as PNG, SVG or PDF, made without a display from the views the
// desktop app draws; a range of steps as numbered figures, and as one animated GIF or WebP.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/cli.h"
#include "cli/export_deck.h"
#ifdef WS_HAVE_GUI
#include "ui/figure/animation.h"
#include "ui/figure/figure.h"
#include "ui/figure/theme.h"
#include "session/dram.h"
#include "session/heat.h"
#include "session/worker.h"
#include "ui/figure/headless.h"
#endif

namespace ws::cli {
namespace {

struct ExportOptions {
  cli::LaunchFlags launch;
  int64_t launch_number = 0;  // with --program: launch K (from 1)
  std::string view, out, step = "1", steps, array;
  std::string theme = "dark";
  bool caption = false;
  int width = 1280, height = 720;
  double fps = 2;
  CLI::Option* step_opt = nullptr;
  CLI::Option* fps_opt = nullptr;
};

#ifdef WS_HAVE_GUI
bool parse_u64(const std::string& s, uint64_t& v) {
  if (s.empty() || s.size() > 18) return false;
  v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + uint64_t(c - '0');
  }
  return true;
}

// The view asked for, after checking every option that needs no trace (the theme, the
// view, the file type, the frame rate, the size); `animate`: --out names an animation.
ui::FigureView checked_view(const ExportOptions& o, bool& animate) {
  ui::FigureView view;
  if (o.theme != "light" && o.theme != "dark")
    throw UsageError("unknown --theme '" + o.theme + "': allowed light, dark");
  if (o.view.empty()) throw UsageError(std::string("export needs --view: allowed ") + ui::figure_view_keys());
  if (!ui::figure_view_from_key(o.view, view))
    throw UsageError("unknown view '" + o.view + "': allowed " + ui::figure_view_keys());
  if (o.out.empty()) throw UsageError("export needs --out FIG.png, FIG.svg or FIG.pdf (FIG.gif or FIG.webp with --steps)");
  animate = ui::animation_format_known(o.out);
  if (animate && o.steps.empty())
    throw UsageError("--out " + o.out + " is an animation: it needs --steps A-B (or write one figure as " +
                     ui::figure_formats() + ")");
  if (!animate && !ui::figure_format_known(o.out))
    throw UsageError("unknown figure type '" + o.out + "': the file name must end in one of " + ui::figure_formats() +
                     ", or " + ui::animation_formats() + " with --steps");
  if (o.fps_opt && o.fps_opt->count() && !animate)
    throw UsageError(std::string("--fps applies to an animation: --out FIG.gif or FIG.webp with --steps"));
  if (!(o.fps > 0 && o.fps <= 100)) throw UsageError("bad --fps " + std::to_string(o.fps) + ": allowed 0 < fps <= 100");
  if (o.width < 200 || o.width > 8192 || o.height < 150 || o.height > 8192)
    throw UsageError("figure size " + std::to_string(o.width) + "x" + std::to_string(o.height) +
                     " is out of range: allowed --width 200..8192, --height 150..8192");
  return view;
}

// The requests --step or --steps name, numbered from 1 as the app counts them; true for a
// sequence (--steps).
bool requested_steps(const ExportOptions& o, uint64_t& first, uint64_t& last) {
  first = last = 0;
  const bool sequence = !o.steps.empty();
  if (sequence) {
    if (o.step_opt && o.step_opt->count()) throw UsageError("give --step K or --steps A-B, not both");
    size_t dash = o.steps.find('-');
    if (dash == std::string::npos || !parse_u64(o.steps.substr(0, dash), first) ||
        !parse_u64(o.steps.substr(dash + 1), last) || last < first || first == 0)
      throw UsageError("bad --steps '" + o.steps + "': expected A-B with 1 <= A <= B, e.g. --steps 1-32");
    if (last - first >= 10000) throw UsageError("--steps " + o.steps + " is too long: at most 10000 figures");
  } else if (!parse_u64(o.step, first) || first == 0) {
    throw UsageError("bad --step '" + o.step + "': expected a request number from 1");
  } else {
    last = first;
  }
  return sequence;
}

// What the DRAM view shows: the request's array (as the app does), one global array, or all
// of them.
session::DramChoice dram_choice(const ExportOptions& o, ui::FigureView view, const session::Session& model) {
  session::DramChoice dram_array = session::DramChoice::follow();
  if (o.array == "all") {
    if (view != ui::FigureView::Dram) throw UsageError("--array only applies to --view dram");
    dram_array = session::DramChoice::all();
  } else if (!o.array.empty()) {
    if (view != ui::FigureView::Dram) throw UsageError("--array only applies to --view dram");
    std::string names;
    const auto& bufs = model.trace().buffers;
    for (size_t i = 0; i < bufs.size(); ++i) {
      if (bufs[i].space != trace::Space::Global) continue;
      if (bufs[i].name == o.array) dram_array = session::DramChoice::array(uint32_t(i));
      names += (names.empty() ? "" : ", ") + bufs[i].name;
    }
    if (dram_array.kind != session::DramChoice::Kind::Array)
      throw UsageError("unknown array '" + o.array + "' for --view dram: allowed " + names + ", all");
  }
  return dram_array;
}

// The bank diagram needs a shared access: the first one from record `step` on (else the
// last before it), said on stderr when it is not `step` itself and `quiet` is false.
uint64_t shared_step(const session::Session& model, uint64_t step, bool quiet) {
  const trace::Trace& t = model.trace();
  const uint64_t n = model.size();
  const std::string kernel_id = t.launch().kernel;
  uint64_t s = step;
  while (s < n && t.sites[t.records[s].site].space != trace::Space::Shared) ++s;
  if (s >= n) {
    uint64_t b = 0;
    while (b < step && t.sites[t.records[b].site].space != trace::Space::Shared) ++b;
    if (b >= step)
      throw UsageError(kernel_id + " makes no shared-memory access: --view banks needs one (try --view warp)");
    s = b;
  }
  if (s != step && !quiet)
    std::cerr << "warpscope: request " << session::request_number(step)
              << " is not a shared-memory access; showing request " << session::request_number(s)
              << ", the next one that is\n";
  return s;
}

int run(ExportOptions& o) {
  bool animate = false;
  const ui::FigureView view = checked_view(o, animate);
  const size_t dot = o.out.find_last_of('.');
  uint64_t first = 0, last = 0;
  const bool sequence = requested_steps(o, first, last);
  for (const auto& s : o.launch.set)
    if (s.rfind("dram=", 0) == 0 && view != ui::FigureView::Dram)
      throw UsageError("--set dram=... only applies to --view dram");

  session::LaunchSpec spec = cli::spec_of(o.launch);
  if (o.launch_number && spec.program.source.empty()) throw UsageError("--launch K needs --program FILE.cu");
  if (o.launch_number) spec.launch = uint32_t(o.launch_number - 1);
  auto model = session::record_session(resolve_launch(spec, "export"), spec);
  const std::string kernel_id = model->trace().launch().kernel;
  const uint64_t n = model->size();
  if (n == 0) throw UsageError(kernel_id + " made no memory requests in the recorded blocks: nothing to draw");
  try {
    first = session::record_of_request(int64_t(first), n);
    last = session::record_of_request(int64_t(last), n);
  } catch (const session::InputError& e) {
    throw UsageError(std::string(sequence ? "--steps: " : "--step: ") + e.what());
  }
  // Frame files are named by request number, padded to four digits or to the last one's
  // width (frame-0001.png … frame-0016.png, however long the trace).
  const int digits = std::max(4, int(std::to_string(session::request_number(last)).size()));

  const session::DramChoice dram_array = dram_choice(o, view, *model);

  // Type in proportion to the figure: a 1920×1080 slide reads like a 1280×720 one.
  const float type_scale = std::max(1.0f, float(o.height) / 720.0f);
  ui::HeadlessContext ctx(float(o.width), float(o.height), type_scale);
  // Light: the presentation theme (light background, high contrast, colour-blind lanes).
  const ui::ThemeScope colours(o.theme == "light" ? ui::kThemePresentation : ui::kThemeDark);
  session::HeatMap heat;  // moves step by step along a sequence
  const trace::Trace& t = model->trace();
  int frame = 0;
  ui::AnimationWriter anim;
  std::string err;
  if (animate && !anim.open(o.out, o.width, o.height, o.fps, err)) throw std::runtime_error(err);
  uint64_t shown = ~uint64_t(0);  // the record drawn last
  for (uint64_t k = first; k <= last; ++k) {
    uint64_t step = k;
    if (view == ui::FigureView::Banks) {
      step = shared_step(*model, step, sequence);
      if (step == shown) continue;  // a sequence shows each shared request once
    }
    shown = step;
    const std::string caption = o.caption ? session::step_caption(*model, step) : "";
    ui::Figure fig = ui::render_figure(model, step, view, o.width, o.height, caption, &heat, dram_array);
    std::string path = o.out;
    if (sequence) {
      // Numbered figures; an animation's frames are numbered PNGs beside it.
      char num[32];
      std::snprintf(num, sizeof num, "-%0*llu", digits, (unsigned long long)session::request_number(step));
      ++frame;
      path = o.out.substr(0, dot) + num + (animate ? std::string(".png") : o.out.substr(dot));
    }
    if (!ui::write_figure(fig, path, err)) throw std::runtime_error(err);
    if (animate) {
      const std::vector<uint8_t> rgba = ui::figure_rgba(fig);
      if (rgba.empty() || !anim.add(rgba.data(), err)) throw std::runtime_error(err.empty() ? "cannot draw a frame" : err);
    }
    std::cout << "wrote " << path << ": " << o.view << " view of " << t.launch().kernel << " "
              << session::params_text(t.launch().params) << " at " << session::request_label(step, n) << ", " << o.width << "x" << o.height << "\n";
  }
  if (animate) {
    if (!anim.finish(err)) throw std::runtime_error(err);
    std::cout << "wrote " << o.out << ": " << frame << " frames at " << o.fps << " a second, looping\n";
  }
  return 0;
}
#else
int run(ExportOptions&) {
  throw UsageError("export needs the desktop app's views: this build has no GUI");
}
#endif

}  // namespace

Command add_export(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand("export", "draw a figure of one view as PNG, SVG or PDF (or an animated GIF / WebP of steps), without a display");
  cli::add_launch_options(*cmd, o->launch, cli::kWithDram | cli::kWithBlocks | cli::kWithBackend | cli::kWithProgram);
  cmd->add_option("--launch", o->launch_number, "with --program: the launch to draw, from 1 (default 1)")
      ->type_name("K")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--view", o->view, "memory|warp|banks|dram|source|pipeline|cluster")->type_name("VIEW");
  o->step_opt = cmd->add_option("--step", o->step, "the request to show, from 1 as the app counts (default 1)")->type_name("K");
  cmd->add_option("--steps", o->steps, "requests A to B (from 1), as figures FIG-0001.png ... named by request number")->type_name("A-B");
  cmd->add_option("--out", o->out, "FIG.png, FIG.svg or FIG.pdf; FIG.gif or FIG.webp (with --steps): the numbered PNGs and one animation")
      ->type_name("FILE");
  o->fps_opt = cmd->add_option("--fps", o->fps, "frames a second of a GIF / WebP animation (default 2)")->type_name("N");
  cmd->add_option("--array", o->array, "--view dram: the global array to show, or all (default: the request's array)")->type_name("NAME");
  cmd->add_flag("--caption", o->caption, "stamp kernel, parameters, step and device along the bottom");
  cmd->add_option("--theme", o->theme, "light (for light slides and print) or dark (default)")->type_name("THEME");
  cmd->add_option("--width", o->width, "figure width in pixels (default 1280)")->type_name("W");
  cmd->add_option("--height", o->height, "figure height in pixels (default 720)")->type_name("H");
  auto deck = add_deck_export_options(*cmd);
  return {cmd, [o, deck] {
            return deck->deck.empty() ? run(*o) : export_deck(*deck, o->out, o->width, o->height, o->launch.backend);
          }};
}

}  // namespace ws::cli
