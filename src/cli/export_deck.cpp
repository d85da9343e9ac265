// src/cli/export_deck.cpp — `warpscope export --deck DECK --out DIR`: a teacher's slides as
// figures, one per slide, drawn by the same views as `export --view` and the app; a slide of
// a program rebuilds it (with --yes) and draws the launch and request it names.
#include "cli/export_deck.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>

#include "cli/cli.h"
#include "session/deck.h"
#ifdef WS_HAVE_GUI
#include "session/worker.h"
#include "ui/figure/figure.h"
#include "ui/figure/headless.h"
#endif

namespace ws::cli {

std::shared_ptr<DeckExportOptions> add_deck_export_options(CLI::App& cmd) {
  auto o = std::make_shared<DeckExportOptions>();
  CLI::Option* deck = cmd.add_option("--deck", o->deck, "draw every slide of a .wsdeck into --out DIR")->type_name("DECK");
  for (const char* single : {"--kernel", "--size", "--set", "--view", "--step", "--steps", "--caption"})
    if (cmd.get_option_no_throw(single)) deck->excludes(single);
  cmd.add_option("--format", o->format, "figure type of a deck's slides: png|svg (default png)")
      ->type_name("png|svg")
      ->check(CLI::IsMember({"png", "svg"}))
      ->needs(deck);
  cmd.add_flag("--yes", o->yes, "let the deck build and run the programs its slides name")->needs(deck);
  return o;
}

#ifdef WS_HAVE_GUI
namespace {

struct Recorded {
  std::shared_ptr<const session::Session> model;
};

// A catalog slide's launch, recorded once for every slide that shows it; its key.
std::string catalog_launch(std::map<std::string, Recorded>& launches, const session::Slide& s, const std::string& backend) {
  session::LaunchSpec spec = s.spec();
  spec.backend = backend;
  const session::ResolvedLaunch launch = resolve_launch(spec, "export");
  const std::string key = s.kernel + " " + session::params_text(launch.params.values);
  Recorded& r = launches[key];
  if (!r.model) r.model = session::record_session(launch, spec);
  return key;
}

// A program slide's launch: the program built and run once for every slide of it (the
// other launches taken from that run); its key. A program whose sources changed since the
// slide was made is drawn as it is now, and said so.
std::string program_launch(std::map<std::string, Recorded>& launches, const session::Slide& s, size_t i,
                           const std::string& deck, const std::string& backend) {
  const session::SlideProgram& p = *s.program;
  const std::string run_key = "program " + session::program_command(p);
  Recorded& run = launches[run_key];
  const std::string at = deck + ": slide " + std::to_string(i + 1) + ": ";
  if (!run.model) {
    if (!std::filesystem::is_regular_file(p.source)) throw UsageError(at + "its program " + p.source + " is not here");
    session::LaunchSpec spec = s.spec();
    spec.backend = backend;
    spec.program.echo = false;
    spec.launch = 0;
    spec.nearest_launch = false;
    try {
      run.model = session::record_session(spec);
    } catch (const program::Error& e) {
      throw UsageError(at + p.source + ": " + e.what());
    }
  }
  std::string why;
  if (!p.hash.empty() && session::source_hash(*run.model) != p.hash) why = p.source + " changed since the slide was made";
  const uint32_t k = std::min<uint32_t>(p.launch, uint32_t(run.model->launches() - 1));
  if (k != p.launch) why += (why.empty() ? "" : "; ") + std::string("it has no launch ") + std::to_string(p.launch + 1);
  if (!why.empty()) std::cerr << "warpscope: " << at << why << ": drawn as it is now (launch " << k + 1 << ")\n";
  const std::string key = std::filesystem::path(p.source).filename().string() + " launch " + std::to_string(k + 1);
  Recorded& r = launches[key];
  if (!r.model) r.model = k == run.model->launch() ? run.model : run.model->of_launch(k, run.model->report().dram);
  return key;
}

// A kernel's name as part of a file name: "transposeTiled<0>" -> "transposeTiled_0_".
std::string file_word(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  return out;
}

}  // namespace

int export_deck(const DeckExportOptions& o, const std::string& out_dir, int width, int height,
                const std::string& backend) {
  namespace fs = std::filesystem;
  if (out_dir.empty()) throw UsageError("export --deck needs --out DIR, the folder for the slides' figures");
  if (width < 200 || width > 8192 || height < 150 || height > 8192)
    throw UsageError("figure size " + std::to_string(width) + "x" + std::to_string(height) +
                     " is out of range: allowed --width 200..8192, --height 150..8192");
  const session::Deck deck = session::load_deck(o.deck);
  if (deck.slides.empty()) throw UsageError(o.deck + " has no slides: nothing to draw");
  // A deck may come from anyone: its programs run only when the command line says so.
  if (const std::string runs = session::runs_programs(deck); !runs.empty() && !o.yes)
    throw UsageError(o.deck + ": " + runs + ": add --yes to allow it");

  // Each launch once, however many slides show it; every step checked before any file is
  // written, so a bad deck leaves no half-written folder.
  std::map<std::string, Recorded> launches;  // by kernel and resolved parameters; a program by its launch
  std::vector<const Recorded*> of_slide;
  for (size_t i = 0; i < deck.slides.size(); ++i) {
    const session::Slide& s = deck.slides[i];
    const std::string key = s.program ? program_launch(launches, s, i, o.deck, backend) : catalog_launch(launches, s, backend);
    Recorded& r = launches[key];
    of_slide.push_back(&r);
    const std::string at = o.deck + ": slide " + std::to_string(i + 1) + " (" + key + "): ";
    const uint64_t n = r.model->size();
    if (n == 0) throw UsageError(at + "the kernel made no memory requests: nothing to draw");
    try {
      session::record_of_request(int64_t(session::request_number(s.step)), n);
    } catch (const session::InputError& e) {
      throw UsageError(at + e.what());
    }
    const trace::Trace& t = r.model->trace();
    if (s.view == "banks" && t.sites[t.records[s.step].site].space != trace::Space::Shared)
      throw UsageError(at + "request " + std::to_string(session::request_number(s.step)) +
                       " is a global-memory access; the banks view needs a shared one (try view warp)");
  }

  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (!fs::is_directory(out_dir)) throw UsageError("cannot make the folder " + out_dir + (ec ? ": " + ec.message() : ""));
  ui::HeadlessContext ctx{float(width), float(height)};
  const int digits = std::max<int>(2, int(std::to_string(deck.slides.size()).size()));
  for (size_t i = 0; i < deck.slides.size(); ++i) {
    const session::Slide& s = deck.slides[i];
    const auto& model = of_slide[i]->model;
    const trace::Trace& t = model->trace();
    ui::FigureView view;
    ui::figure_view_from_key(s.view, view);  // checked when the deck was read
    // The slide's words, then the line `export --caption` stamps.
    std::string caption = session::step_caption(*model, s.step);
    if (!s.caption.empty()) caption = s.caption + "  —  " + caption;
    ui::Figure fig = ui::render_figure(model, s.step, view, width, height, caption);
    std::string num = std::to_string(i + 1);
    num.insert(0, size_t(std::max(0, digits - int(num.size()))), '0');
    const std::string path = (fs::path(out_dir) / (num + "-" + file_word(s.kernel) + "-" + s.view + "." + o.format)).string();
    std::string err;
    if (!ui::write_figure(fig, path, err)) throw std::runtime_error(err);
    std::cout << "wrote " << path << ": slide " << i + 1 << ", " << s.view << " view of " << t.launch().kernel << " "
              << session::params_text(t.launch().params) << " at " << session::request_label(s.step, model->size()) << ", " << width << "x" << height
              << "\n";
  }
  return 0;
}
#else
int export_deck(const DeckExportOptions&, const std::string&, int, int, const std::string&) {
  throw UsageError("export needs the desktop app's views: this build has no GUI");
}
#endif

}  // namespace ws::cli
