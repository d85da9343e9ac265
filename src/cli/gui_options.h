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
  app::Options app;  // everything but the launch, as parsed
};

// Adds the app's options to `cmd`.
void add_gui_options(CLI::App& cmd, GuiArgs& args);

// The app's options once parsed, the launch read and every value checked before a window
// opens. Throws session::InputError.
app::Options gui_options(const GuiArgs& args);

}  // namespace ws::cli
