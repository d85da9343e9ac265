// src/cli/export_deck.h — `warpscope export --deck DECK --out DIR`: every slide of a deck
// (session/deck.h) as a figure, DIR/NN-<kernel>-<view>.png. Its options are added to the
// export command; export hands over to it when --deck is given.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

namespace ws::cli {

struct DeckExportOptions {
  std::string deck;           // the .wsdeck file; empty: a single figure, not a deck
  std::string format = "png";  // png | svg
};

// Adds --deck and --format to `export`, after its own options (--deck excludes the ones
// that choose a single figure: --kernel, --size, --set, --view, --step, --steps, --caption).
std::shared_ptr<DeckExportOptions> add_deck_export_options(CLI::App& cmd);

// Records each distinct launch of the deck once, checks every slide's step against it, then
// writes one figure per slide under `out_dir` (created if missing). Throws UsageError (exit
// 2) for a bad deck, a step out of range or a bad size.
int export_deck(const DeckExportOptions& o, const std::string& out_dir, int width, int height,
                const std::string& backend);

}  // namespace ws::cli
