// src/cli/cli.h — the `warpscope` command line. Each command lives in its own file
// (cmd_<name>.cpp) and registers itself on the application; main only dispatches.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "capture/capture.h"

namespace ws::cli {

// Bad input on the command line: one line for the user, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Exit codes: 0 success, 1 a kernel or the machine failed, 2 bad input.
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
// `warpscope bench ...`: GPU timings, or the replay pack without a GPU (argv[0] = "bench").
int cmd_bench(int argc, char** argv);

// What `warpscope` does when no command is given.
int no_command(const CLI::App& app);
// The desktop app with its own options (argv[0] is skipped); the usage without a GUI.
int run_gui(int argc, char** argv);

// The short usage printed by `warpscope` alone.
std::string usage();

// ---- shared by the commands --------------------------------------------------------

enum class Format { Text, Json };
// Throws UsageError naming the allowed formats.
Format parse_format(const std::string& s);

// The options that describe one launch (report, record, and later bench/export).
struct LaunchOptions {
  std::string kernel;
  std::string size;                // as typed; empty = the kernel's teaching size
  std::vector<std::string> set;    // "name=value", in order
  std::string blocks;              // empty = every block
  std::string backend = "auto";
  CLI::Option* size_opt = nullptr;    // given at all (an empty value is an error, not "default")
  CLI::Option* blocks_opt = nullptr;
};
// `with_dram`: the command reports, so `--set dram=PRESET` picks its DRAM model.
void add_launch_options(CLI::App& cmd, LaunchOptions& o, bool with_dram);

// Options turned into a capture request. `--set dram=PRESET` is not a kernel parameter:
// it fills `dram` (the textbook preset when absent).
capture::Request make_request(const LaunchOptions& o, analysis::DramModel& dram);
// The DRAM part of `--set` alone (for reports of saved traces); other names are errors.
analysis::DramModel dram_from_sets(const std::vector<std::string>& set, bool only_dram);

// Largest relative error still reported as "matches the CPU reference" (float sums in a
// different order than the reference's differ in the last bits).
constexpr double kMatchTolerance = 1e-4;

// "output matches CPU reference", or why not.
std::string check_text(const capture::Result& r);
// The outputs were compared and differ: the kernel is wrong.
bool check_failed(const capture::Result& r);

// "size=64 m=0 pad=0" with size first.
std::string params_text(const std::map<std::string, int64_t>& params);

}  // namespace ws::cli
