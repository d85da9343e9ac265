// src/cli/cmd_bench.cpp — `warpscope bench`: the catalog timed on the GPU against cuBLAS
// and a device-to-device copy measured in the same run, or, with no GPU, the replay pack
// recorded on one: its fullest recording first, then its runs at other sizes, each labelled
// with its device and date (as JSON, the fullest recording only).
//
//   warpscope bench [--kernel ID[,ID...]]... [--family NAME]... [--size N] [--set name=value]...
//                   [--format text|json] [--out FILE.json] [--replay FILE.json]
//                   [--no-variants] [--no-overhead] [--no-zero-cost] [--seconds S]
// The launch options are the shared parser's (session/options.h).
//
// Exit status: 0 all results checked; 1 a kernel failed its check or the GPU failed;
// 2 bad input.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "catalog.h"
#include "cli/cli.h"
#include "session/bench.h"
#include "trace/assets.h"
#include "trace/bench.h"

namespace {

// The recordings `--replay FILE` names, or else the bundled replay pack's, wherever
// warpscope was started from (trace/assets.h), newest first. False (the error printed)
// when a file cannot be read or there is no pack.
bool read_recordings(const std::string& file, const std::string& why, std::vector<ws::trace::ReplayFile>& out) {
  std::string err;
  if (!file.empty()) {
    ws::trace::ReplayFile r{file, {}};
    if (!ws::trace::read_bench_file(file, r.result, err)) {
      std::fprintf(stderr, "warpscope: error: the replay pack %s is not readable: %s\n", file.c_str(), err.c_str());
      return false;
    }
    out.push_back(std::move(r));
    return true;
  }
  const std::string main = ws::trace::find_asset("replay/bench.json");
  if (!main.empty()) out = ws::trace::read_replay_dir(std::filesystem::path(main).parent_path().string(), err);
  if (!err.empty()) {
    std::fprintf(stderr, "warpscope: error: the replay pack in %s is not readable: %s\n",
                 std::filesystem::path(main).parent_path().c_str(), err.c_str());
    return false;
  }
  if (out.empty())
    std::fprintf(stderr,
                 "warpscope: error: %s, and no replay pack was found (replay/bench.json next to the binary, in "
                 "share/warpscope, or in the source tree's assets)\n",
                 why.c_str());
  return !out.empty();
}

// Shows recordings: one file as it is; the whole pack, its fullest recording first (the run
// of every family; then a run of a few rungs at another size), a row (kernel, setting and
// size) from the first recording that has it, each recording under its own line naming its
// device and date. `only`: the kernels asked for (--kernel, --family); empty: every one.
int show_replay(const std::string& file, const std::string& format, const std::string& why,
                const std::vector<std::string>& only = {}) {
  std::vector<ws::trace::ReplayFile> packs;
  if (!read_recordings(file, why, packs)) return 1;
  std::stable_sort(packs.begin(), packs.end(), [](const ws::trace::ReplayFile& a, const ws::trace::ReplayFile& b) {
    return a.result.rows.size() > b.result.rows.size();
  });
  std::set<std::string> shown;  // rows an earlier recording already showed
  std::set<std::string> timed;  // kernels with a row shown
  bool first = true, any = false;
  for (auto& [path, r] : packs) {
    std::vector<ws::trace::BenchRow> rows;
    for (auto& w : r.rows) {
      const std::string key = w.kernel + " " + w.variant + " " + std::to_string(w.size);
      if (only.empty() || std::find(only.begin(), only.end(), w.kernel) != only.end())
        if (shown.insert(key).second) rows.push_back(w);
    }
    if (rows.empty()) continue;
    for (const auto& w : rows) timed.insert(w.kernel);
    r.rows = std::move(rows);
    std::fprintf(stderr, "warpscope bench: %s: showing the replay pack recorded on %s on %s (CUDA %s), %s\n",
                 why.c_str(), r.device.name.c_str(), r.date.c_str(),
                 ws::trace::DeviceInfo::version_text(r.device.runtime_version).c_str(), path.c_str());
    if (format == "json") {
      std::cout << ws::trace::bench_json(r);
      break;  // one JSON document: the fullest recording
    }
    std::cout << (first ? "" : "\n") << ws::trace::bench_text(r);
    first = false;
    any = true;
  }
  if (!any && !only.empty() && format != "json") {
    std::string asked;
    for (const std::string& id : only) asked += (asked.empty() ? "" : ", ") + id;
    std::fprintf(stderr, "warpscope bench: the replay pack has no timings of %s (newer than its measurements, or not timed there)\n",
                 asked.c_str());
    return 1;
  }
  // The kernels asked for (every catalog kernel when none was named) that no row shows: the
  // catalog gained them after the pack was measured. Said, not left out in silence.
  if (file.empty() && format != "json") {
    std::string missing;
    for (const auto& k : ws::catalog::all())
      if ((only.empty() || std::find(only.begin(), only.end(), k.id) != only.end()) && !timed.count(k.id))
        missing += (missing.empty() ? "" : ", ") + k.id;
    std::cout.flush();
    if (!missing.empty())
      std::fprintf(stderr, "warpscope bench: not in the replay pack (newer than its measurements): %s\n", missing.c_str());
  }
  return 0;
}

}  // namespace

namespace ws::cli {
namespace {

struct BenchArgs {
  cli::LaunchFlags launch;
  std::string format = "text", out_path, replay;
  std::vector<std::string> families;  // every kernel of these ladders, besides --kernel's
  double seconds = 0;
  bool no_variants = false, no_overhead = false, no_zero_cost = false;
};

int run_bench(const BenchArgs& a) {
  parse_format(a.format);
  const session::LaunchSpec spec = cli::spec_of(a.launch);
  trace::BenchOptions opt;
  for (const auto& id : cli::kernels_of(a.launch)) {
    if (!catalog::find(id)) throw UsageError("unknown kernel '" + id + "': allowed " + catalog::ids());
    opt.kernels.push_back(id);
  }
  for (const auto& f : a.families) {
    bool found = false;
    std::vector<std::string> known;
    for (const auto& k : catalog::all()) {
      if (std::find(known.begin(), known.end(), k.family) == known.end()) known.push_back(k.family);
      if (k.family != f) continue;
      found = true;
      if (std::find(opt.kernels.begin(), opt.kernels.end(), k.id) == opt.kernels.end()) opt.kernels.push_back(k.id);
    }
    if (!found) {
      std::string list;
      for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
      throw UsageError("unknown family '" + f + "': allowed " + list);
    }
  }
  // One size for every kernel named: each kernel checks it against its own range.
  if (spec.size && *spec.size <= 0) throw UsageError("--size needs a positive integer");
  opt.size = spec.size.value_or(0);
  opt.set = spec.params;
  if (a.seconds < 0) throw UsageError("--seconds needs a positive number");
  if (a.seconds > 0) opt.seconds = a.seconds;
  opt.variants = !a.no_variants;
  opt.overhead = !a.no_overhead;
  opt.zero_cost = !a.no_zero_cost;
  if (!a.replay.empty()) return show_replay(a.replay, a.format, "replay asked for", opt.kernels);

  if (const std::string why = session::bench_unavailable(); !why.empty())
    return show_replay("", a.format, why, opt.kernels);
  auto r = session::bench(opt, [](const std::string& s) { std::fprintf(stderr, "  %s\n", s.c_str()); });
  if (!a.out_path.empty()) {
    std::ofstream f(a.out_path);
    f << trace::bench_json(r);
    if (!f) throw UsageError("cannot write " + a.out_path);
  }
  std::cout << (a.format == "json" ? trace::bench_json(r) : trace::bench_text(r));
  return r.all_ok ? 0 : 1;
}

}  // namespace

Command add_bench(CLI::App& app) {
  auto o = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench", "GPU timings against cuBLAS and a device copy (the replay pack without a GPU)");
  cli::add_launch_options(*cmd, o->launch, cli::kManyKernels);
  cmd->add_option("--family", o->families, "every kernel of this ladder (basics, transpose, sgemm, swizzle, async, tma, hgemm)")
      ->type_name("NAME")
      ->delimiter(',');
  cmd->add_option("--format", o->format, "text|json (default text)")->type_name("FORMAT");
  cmd->add_option("--out", o->out_path, "also write the results as JSON (a replay pack)")->type_name("FILE.json");
  cmd->add_option("--replay", o->replay, "show this replay pack instead of timing")->type_name("FILE.json");
  cmd->add_option("--seconds", o->seconds, "timing budget per kernel")->type_name("S");
  cmd->add_flag("--no-variants", o->no_variants, "time each kernel's default parameters only");
  cmd->add_flag("--no-overhead", o->no_overhead, "skip the instrumented (record, counts) timings");
  cmd->add_flag("--no-zero-cost", o->no_zero_cost, "skip the hand-written twins");
  return {cmd, [o] { return run_bench(*o); }};
}

}  // namespace ws::cli
