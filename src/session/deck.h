// src/session/deck.h — bookmarks as a slide deck: each slide names what to run (kernel and
// parameters, as a LaunchSpec would), where to stop (the step: the request number the app,
// `--step` and captions use), which view to show and what to say. A deck outlives any one
// recording: the app keeps it across parameter and kernel changes, `warpscope export
// --deck` draws every slide, and it is saved as a small JSON file (.wsdeck).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "session/launch.h"

namespace ws::session {

// The views a slide can show: the figure views of the app and of `warpscope export`
// ("memory", "warp", "banks", "dram", "source").
const std::vector<std::string>& slide_views();
std::string slide_views_text();  // "memory, warp, banks, dram, source"

struct Slide {
  std::string kernel;                     // catalog id
  std::optional<int64_t> size;            // none: the kernel's teaching size
  std::map<std::string, int64_t> params;  // kernel parameters besides size (unset: defaults)
  uint64_t step = 0;                      // the record shown; files hold its request number step + 1
  std::string view = "warp";              // one of slide_views()
  std::string caption;
  bool operator==(const Slide&) const = default;

  // The launch this slide shows (kernel, size, parameters; every other field default).
  LaunchSpec spec() const;
  // "transpose_tiled size=64 pad=1" (the parameters as given).
  std::string variant_text() const;
};

// A slide of the launch `kernel` ran with `params` ("size" included, as a recorded trace
// holds them).
Slide slide_of(const std::string& kernel, const std::map<std::string, int64_t>& params, uint64_t step,
               const std::string& view, const std::string& caption);

// Every parameter of the slide's launch with the defaults filled in, "size" included (what a
// recorded trace's launch holds); std::nullopt when the slide does not resolve.
std::optional<std::map<std::string, int64_t>> resolved_params(const Slide& s);

// Whether `s` shows the launch `kernel` with `params` (resolved, "size" included): the same
// kernel and the same values once the slide's defaults are filled in.
bool same_variant(const Slide& s, const std::string& kernel, const std::map<std::string, int64_t>& params);

struct Deck {
  std::string title;
  std::vector<Slide> slides;  // in presentation order
  bool operator==(const Deck&) const = default;
};

// Format version written by save_deck; load_deck refuses newer files.
constexpr int kDeckVersion = 2;  // 2: "step" is the request number from 1 (1: the record from 0)

// Checks one slide: its kernel and parameters resolve, its view is known. Throws InputError
// "slide N: ..." (N from 1) naming what is allowed.
void check_slide(const Slide& s, size_t index);

// The deck as JSON text (.wsdeck).
std::string deck_json(const Deck& d);
// Reads a deck from JSON text; `name` prefixes errors (a file name). Throws InputError, one
// line: bad JSON, a newer version, or "slide N: ..." for a slide that does not check.
Deck parse_deck(const std::string& text, const std::string& name);
// Reads / writes a .wsdeck file. Throw InputError (one line naming the file).
Deck load_deck(const std::string& path);
void save_deck(const Deck& d, const std::string& path);

}  // namespace ws::session
