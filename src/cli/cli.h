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
// `run`'s own: the program did not compile, a kernel faulted (or the module did not load),
// a kernel was stopped as an endless loop, the program ran past its timeout. Otherwise
// `run` exits with the program's own status.
constexpr int kExitCompile = 3;
constexpr int kExitFault = 4;
constexpr int kExitEndlessLoop = 5;
constexpr int kExitTimeout = 124;
// The user's program's ending as `run` and `report --program` exit with it: a kernel the
// emulated device stopped (fault, endless loop, timeout), else the program's own status.
int program_exit_status();

// A failure with its own exit status: one line for the user, then exit `code`.
struct ExitError : std::runtime_error {
  ExitError(int code, const std::string& what) : std::runtime_error(what), code(code) {}
  int code;
};

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
// `run`'s words as a user types them (after `run`) made into the command's own: sources and
// nvcc flags (-I dir, -Idir, -D X=1, -lcublas) become --nvcc=WORD, every word after `--` (and
// a plain word that is no file) --arg=WORD, so nothing the program takes is mistaken for an
// option. `run` is the command, whose options are kept as given.
std::vector<std::string> run_words(const CLI::App& run, const std::vector<std::string>& words);

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
