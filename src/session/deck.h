// src/session/deck.h — bookmarks as a slide deck: each slide names what to run (a catalog
// kernel and its parameters, as a LaunchSpec would, or the user's program: its file, flags,
// arguments, launch and the hash of its sources), where to stop (the step: the request number the app,
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

class Session;

// The views a slide can show: the figure views of the app and of `warpscope export`
// ("memory", "warp", "banks", "dram", "source", "pipeline", "cluster").
const std::vector<std::string>& slide_views();
std::string slide_views_text();  // "memory, warp, banks, dram, source, pipeline, cluster"

// A slide's program: what to build and run, which launch it shows, and what its sources were.
struct SlideProgram {
  std::string source;                     // the .cu file, as the program was opened
  std::vector<std::string> nvcc_flags;
  std::vector<std::string> args;
  bool literal = false;                   // built with -G
  uint32_t launch = 0;                    // from 0; files hold it from 1
  std::string hash;                       // source_hash() when the slide was made ("": unknown)
  bool operator==(const SlideProgram&) const = default;
};

struct Slide {
  std::string kernel;                     // catalog id; a program's kernel as it launched ("transposeTiled<0>")
  std::optional<int64_t> size;            // none: the kernel's teaching size
  std::map<std::string, int64_t> params;  // kernel parameters besides size (unset: defaults)
  uint64_t step = 0;                      // the record shown; files hold its request number step + 1
  std::string view = "warp";              // one of slide_views()
  std::string caption;
  std::optional<SlideProgram> program;    // set: a slide of the user's program, not of the catalog
  bool operator==(const Slide&) const = default;

  // The launch this slide shows (kernel, size, parameters; or the program, its launch and
  // nearest_launch; every other field default).
  LaunchSpec spec() const;
  // "transpose_tiled size=64 pad=1" (the parameters as given).
  std::string variant_text() const;
};

// A slide of the launch `kernel` ran with `params` ("size" included, as a recorded trace
// holds them).
Slide slide_of(const std::string& kernel, const std::map<std::string, int64_t>& params, uint64_t step,
               const std::string& view, const std::string& caption);

// A slide of launch `s.launch()` of the program `s` shows, at `step`, with the hash of its
// sources (`s.origin()` must be "program").
Slide program_slide(const Session& s, uint64_t step, const std::string& view, const std::string& caption);

// The hash of a program's own sources as built (every file the session shows but the
// toolkit's, names and texts), 16 hex digits: a slide keeps it to tell whether the file changed.
std::string source_hash(const Session& s);

// What opening a program slide runs, in one line: "nvcc -O2 transpose.cu, then ./transpose ARGS".
std::string program_command(const SlideProgram& p);

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

// The first slide of `d` that builds and runs a program, as one line naming the program
// and its command ("slide 2 builds and runs examples/transpose.cu: nvcc ..."); "" when none.
std::string runs_programs(const Deck& d);

// Format version written by save_deck (a deck with no program slide is written as version 2,
// which older readers take); load_deck refuses newer files.
constexpr int kDeckVersion = 3;  // 3: program slides; 2: "step" is the request number from 1 (1: the record from 0)

// Checks one slide: its kernel and parameters resolve (a program slide: it names a .cu file),
// its view is known. Throws InputError
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
