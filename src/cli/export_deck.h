// src/cli/export_deck.h — `warpscope export --deck DECK --out DIR`: every slide of a deck
// (session/deck.h) as a figure, DIR/NN-<kernel>-<view>.png; a deck's programs built and run
// only with --yes. Its options are added to the
// export command; export hands over to it when --deck is given.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

namespace ws::cli {

struct DeckExportOptions {
  std::string deck;           // the .wsdeck file; empty: a single figure, not a deck
  std::string format = "png";  // png | svg
  bool yes = false;            // the deck's program slides may build and run their programs
};

// Adds --deck, --format and --yes to `export`, after its own options (--deck excludes the ones
// that choose a single figure: --kernel, --size, --set, --view, --step, --steps, --caption).
std::shared_ptr<DeckExportOptions> add_deck_export_options(CLI::App& cmd);

// Records each distinct launch of the deck once (each program built and run once), checks
// every slide's step against it, then writes one figure per slide under `out_dir` (created
// if missing). Throws UsageError (exit 2) for a bad deck, a step out of range, a bad size, or
// a program slide without `o.yes` (one line naming the program and its command); a program
// whose sources changed since its slide was made is said on stderr and drawn as it is now.
int export_deck(const DeckExportOptions& o, const std::string& out_dir, int width, int height,
                const std::string& backend);

}  // namespace ws::cli
