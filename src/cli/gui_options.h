// src/cli/gui_options.h — the command line of the desktop app (`warpscope gui`, `warpscope
// FILE.wstrace`, the warpscope-app program): the launch options through the one shared
// parser, then the app's own, turned into app::Options.
#pragma once
#include <CLI/CLI.hpp>

#include "app/app.h"
#include "cli/launch_options.h"

namespace ws::cli {

struct GuiArgs {
  LaunchFlags launch;
  app::Options app;            // everything but the launch, as parsed
  int64_t launch_number = 0;   // --launch K (from 1; 0: the first)
  int64_t compare_launch = 0;  // --compare-launch K (from 1; 0: none)
};

// Adds the app's options to `cmd`.
void add_gui_options(CLI::App& cmd, GuiArgs& args);

// The app's options once parsed, the launch read and every value checked before a window
// opens; --compare-launch K becomes the compare side "launch K". Throws session::InputError,
// also for a deck whose slides build and run a program when --yes is not given.
app::Options gui_options(const GuiArgs& args);

}  // namespace ws::cli
