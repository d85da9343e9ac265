// `warpscope export --deck DECK --out DIR`: a teacher's slides as figures, one per slide,
// drawn by the same views as `export --view` and the app.
#include "cli/export_deck.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "cli/cli.h"
#include "session/deck.h"
#ifdef WS_HAVE_GUI
#include "session/worker.h"
#include "ui/figure.h"
#include "ui/headless.h"
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
  return o;
}

#ifdef WS_HAVE_GUI
int export_deck(const DeckExportOptions& o, const std::string& out_dir, int width, int height,
                const std::string& backend) {
  namespace fs = std::filesystem;
  if (out_dir.empty()) throw UsageError("export --deck needs --out DIR, the folder for the slides' figures");
  if (width < 200 || width > 8192 || height < 150 || height > 8192)
    throw UsageError("figure size " + std::to_string(width) + "x" + std::to_string(height) +
                     " is out of range: allowed --width 200..8192, --height 150..8192");
  const session::Deck deck = session::load_deck(o.deck);
  if (deck.slides.empty()) throw UsageError(o.deck + " has no slides: nothing to draw");

  // Each launch once, however many slides show it; every step checked before any file is
  // written, so a bad deck leaves no half-written folder.
  struct Recorded {
    std::shared_ptr<const session::Session> model;
  };
  std::map<std::string, Recorded> launches;  // by kernel and resolved parameters
  std::vector<const Recorded*> of_slide;
  for (size_t i = 0; i < deck.slides.size(); ++i) {
    const session::Slide& s = deck.slides[i];
    session::LaunchSpec spec = s.spec();
    spec.backend = backend;
    const session::ResolvedLaunch launch = resolve_launch(spec, "export");
    const std::string key = s.kernel + " " + session::params_text(launch.params.values);
    Recorded& r = launches[key];
    if (!r.model) r.model = session::record_session(launch, spec);
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
    const std::string path = (fs::path(out_dir) / (num + "-" + s.kernel + "-" + s.view + "." + o.format)).string();
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
