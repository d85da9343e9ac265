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
#include "session/capture.h"
#include "session/launch.h"
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

// What `warpscope` does when no command is given.
int no_command(const CLI::App& app);
// `warpscope gui [options] [FILE.wstrace]`: the desktop app; the usage without a GUI.
Command add_gui(CLI::App& app);

// The short usage printed by `warpscope` alone.
std::string usage();

// ---- shared by the commands --------------------------------------------------------

enum class Format { Text, Json };
// Throws UsageError naming the allowed formats.
Format parse_format(const std::string& s);

// The DRAM part of `--set` alone, for reports of saved traces: other names are errors.
analysis::DramModel dram_from_sets(const std::vector<std::string>& set);

// The launch the options describe, resolved; `what` names the command for "--kernel is
// required" ("report needs --kernel ID ...").
session::Launch resolve_launch(const session::LaunchSpec& spec, const std::string& what);

}  // namespace ws::cli
