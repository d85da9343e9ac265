// src/app/app.h — the desktop app: one window, the views of src/ui, GL rendering of the
// big grids. `warpscope` with no subcommand (or with a FILE.wstrace) calls run().
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "session/launch.h"
#include "ui/timing.h"

namespace ws::app {

// What the app opens with, as the command line (src/cli/gui_options.h) or a test gives it.
struct Options {
  // What to show first. No kernel and no trace file: the settings' kernel, or the default
  // lesson.
  session::LaunchSpec launch;
  bool dram_set = false;                     // launch.dram was given (else the settings' preset)
  std::string trace_file;                    // open this .wstrace instead of recording

  // Driving the app (tests, figures): go to request `step` (from 1, as the timeline counts)
  // once the trace is loaded; after
  // `frames` more frames save `screenshot` (PNG) and exit. `frames` without a screenshot
  // exits after that many frames.
  int64_t step = -1;
  std::string screenshot;
  int frames = 0;
  std::string windows_json;                  // write the drawn panels and the request's figures here
  std::string panel;                         // enlarge this panel ("memory", "warp", ...)
  bool show_help = false;                    // open with the shortcut overlay shown
  bool stats = false;                        // print frame CPU times at exit
  bool play = false;                         // start playing once loaded
  bool present = false;                      // start in presentation mode
  std::string compare;                       // "ID[:k=v,...]" or "launch K": open an A/B view with this B side
  bool yes = false;                          // the deck may build and run its programs without asking
  bool ask = false;                          // a deck naming programs opens; the app asks before each
  std::string deck;                          // a .wsdeck of slides; alone, the app opens on its first
  std::string lesson;                        // open this lesson (name or .json) in the lesson panel

  int width = 1600, height = 1000;
  bool vsync = true;
  std::string config_dir;                    // "": $XDG_CONFIG_HOME/warpscope; "none": persist nothing
  std::string replay_dir;                    // the replay pack of timings ("": the bundled one, found by
                                             // ui::bundled_replay_dir wherever the app starts)
  ui::LiveBench live;                        // live GPU timings, when the build has them
};

// Opens the window and runs until it is closed. Returns the process exit code.
int run(const Options& opt);

// Checks what a parser cannot (window size, the launch, the deck, the lesson) before a
// window opens; throws session::InputError.
void check_options(const Options& opt);

// The names `--panel` takes: every panel that can be enlarged ("catalog", "memory", ...).
std::vector<std::string> panel_keys();

}  // namespace ws::app
