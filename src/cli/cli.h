// src/cli/cli.h — the `warpscope` command line. Each command lives in its own file
// (cmd_<name>.cpp) and registers itself on the application; main only dispatches.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "session/capture.h"
#include "session/launch.h"
#include "session/session.h"
#include "cli/launch_options.h"

namespace ws::cli {

// Bad input on the command line: one line for the user, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Exit codes: 0 success, 1 a kernel or the machine failed (any other exception a command
// throws: main prints its one line after what the command printed), 2 bad input.
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

// A command added to the application; run() is called once the command line is parsed
// and returns the exit code.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
Command add_list(CLI::App& app);
Command add_report(CLI::App& app);
Command add_record(CLI::App& app);
Command add_lesson(CLI::App& app);
Command add_export(CLI::App& app);
Command add_bench(CLI::App& app);
// `warpscope run prog.cu [NVCC FLAGS] [-- ARGS]`: the user's CUDA program, on this machine's GPU
// where there is one (--backend auto), else on the emulated device.
Command add_run(CLI::App& app);

// What `warpscope` does when no command is given.
int no_command(const CLI::App& app);
// `warpscope gui [options] [FILE.wstrace]`: the desktop app; the usage without a GUI.
Command add_gui(CLI::App& app);

// Each line of every launch as the emulated device ran it (a program's PTX, or a catalog
// kernel's source) beside `sass` (what a GPU executed; `sass_from` says where it came from).
void print_levels(const trace::Trace& ptx, const trace::Trace& sass, const std::string& sass_from);

// `warpscope sass --kernel K`: a catalog kernel as the GPU executed it, line by line; and
// the hidden `plain-launch` a traced child runs.
Command add_sass(CLI::App& app);
Command add_plain_launch(CLI::App& app);

// The short usage printed by `warpscope` alone.
std::string usage();

// ---- shared by the commands --------------------------------------------------------

enum class Format { Text, Json };
// Throws UsageError naming the allowed formats.
Format parse_format(const std::string& s);

// The reports of `shown` (launches of one trace) as `report` prints them; `request` > 0
// also shows that request (one launch only).
void print_reports(const std::vector<std::shared_ptr<const session::Session>>& shown, Format f, int64_t request);
// Launch `k` (from 1; 0: every launch) of `first`'s trace as sessions. Throws UsageError.
std::vector<std::shared_ptr<const session::Session>> launches_of(std::shared_ptr<const session::Session> first,
                                                                 int64_t k, const analysis::DramModel& dram);

// The DRAM part of `--set` alone, for reports of saved traces: other names are errors.
analysis::DramModel dram_from_sets(const std::vector<std::string>& set);

// The launch the options describe, resolved; `what` names the command for "--kernel is
// required" ("report needs --kernel ID ...").
session::ResolvedLaunch resolve_launch(const session::LaunchSpec& spec, const std::string& what);

}  // namespace ws::cli
