// src/app/initial_view.h — what the app opens on: the views' environment from the command
// line, then the launch, trace, program, slide or lesson the options name (or the settings
// remember), with the step, panel, A/B side and modes they ask for.
#pragma once
#include <string>

#include "app/app.h"
#include "ui/ui.h"

namespace ws::app {

// The settings folder the options name: "" (persist nothing) for "none", else the one
// given, or $XDG_CONFIG_HOME/warpscope, or ~/.config/warpscope.
std::string config_dir(const Options& opt);

// The views' environment: the platform's `painter` (null: the CPU one) and `keys`, the
// settings file in `dir`, the replay pack, and live GPU timings when this machine can bench.
ui::Environment environment(const Options& opt, ui::GridPainter* painter, const ui::Keys& keys,
                            const std::string& dir);

// Points `ui` at what the options open first (the command line wins over the settings; a
// first run, `fresh`, with nothing named opens on the default lesson) and starts recording
// it. `automated`: a driven run, which never opens on an enlarged panel it was not given.
// Returns 2 when the A/B side cannot be set (said on stderr), else 0.
int open_initial_view(ui::Ui& ui, const Options& opt, bool fresh, bool automated);

}  // namespace ws::app
