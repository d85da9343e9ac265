// src/cli/launch_options.h — the one command-line parser of a launch (CLI11), shared by every
// command of `warpscope` and by the app's options: the same flags, the same checks, the
// same one-line errors everywhere.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "program/program.h"
#include "session/launch.h"

namespace ws::cli {

using session::LaunchSpec;

// The flags of one launch, as typed.
struct LaunchFlags {
  std::vector<std::string> kernels;  // --kernel, repeatable; "a,b" lists several (bench)
  std::string size;                  // empty: the kernel's teaching size
  std::vector<std::string> set;      // "name=value", in order
  std::string blocks;                // "0-3,7", "all"; empty: the command's default
  std::string backend = "auto";
  // A user's program instead of a catalog kernel (kWithProgram): --program FILE.cu, --nvcc
  // FLAG, --arg A, --literal, --show-local, --record-launches N, --timeout S, --flops EXPR,
  // --bytes EXPR, typed straight into the options program::run takes.
  program::Options program;
  bool no_time = false;              // --no-time: on the GPU, trace only (no timing run)
  CLI::Option* size_opt = nullptr;   // given at all (an empty value is an error, not "default")
  CLI::Option* blocks_opt = nullptr;
  unsigned which = 0;                // the LaunchOptionSet it was added with
  std::string command;               // the command's name, for errors
};

// Which options a command takes besides --kernel, --size and --set.
enum LaunchOptionSet : unsigned {
  kWithDram = 1,     // `--set dram=PRESET` picks the DRAM model of the analysis
  kWithBlocks = 2,   // --blocks
  kWithBackend = 4,  // --backend
  kManyKernels = 8,  // --kernel may name several (bench)
  kWithProgram = 16, // --program FILE.cu (with --nvcc, --arg, --literal, --timeout)
};

// The program options alone (`run` takes the program as its first argument).
void add_program_flags(CLI::App& cmd, LaunchFlags& args);

void add_launch_options(CLI::App& cmd, LaunchFlags& args, unsigned which);

// The spec the options describe (kernel: the first one named). Throws InputError for a
// value that cannot be read; resolve() checks the rest.
LaunchSpec spec_of(const LaunchFlags& args);
// Every kernel named, in order ("a,b" split), without duplicates.
std::vector<std::string> kernels_of(const LaunchFlags& args);

}  // namespace ws::cli
