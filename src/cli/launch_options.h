// src/cli/launch_options.h — the one command-line parser of a launch (CLI11), shared by every
// command of `warpscope` and by the app's options: the same flags, the same checks, the
// same one-line errors everywhere.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "session/launch.h"

namespace ws::cli {

using session::LaunchSpec;

// The options of one launch, as typed.
struct LaunchArgs {
  std::vector<std::string> kernels;  // --kernel, repeatable; "a,b" lists several (bench)
  std::string size;                  // empty: the kernel's teaching size
  std::vector<std::string> set;      // "name=value", in order
  std::string blocks;                // "0-3,7", "all"; empty: the command's default
  std::string backend = "auto";
  // A user's program instead of a catalog kernel (kWithProgram).
  std::string program;               // --program FILE.cu
  std::vector<std::string> nvcc;     // --nvcc FLAG, repeatable: passed to nvcc
  std::vector<std::string> program_args;  // --arg A, repeatable: the program's arguments
  bool literal = false;              // --literal: compiled with -G
  bool show_local = false;           // --show-local: the threads' local frames too (with --literal)
  double timeout = 120;              // --timeout S
  bool no_time = false;              // --no-time: on the GPU, trace only (no timing run)
  std::string flops, bytes;          // --flops EXPR, --bytes EXPR: a launch's work
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
void add_program_flags(CLI::App& cmd, LaunchArgs& args);

void add_launch_options(CLI::App& cmd, LaunchArgs& args, unsigned which);

// The spec the options describe (kernel: the first one named). Throws InputError for a
// value that cannot be read; resolve() checks the rest.
LaunchSpec spec_of(const LaunchArgs& args);
// Every kernel named, in order ("a,b" split), without duplicates.
std::vector<std::string> kernels_of(const LaunchArgs& args);

}  // namespace ws::cli
