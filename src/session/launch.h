// src/session/launch.h — what to run, described once. A LaunchSpec is what a front end
// asked for (the CLI's options, the app's parameter panel, a compare spec, a lesson step);
// resolve() turns it into a ResolvedLaunch with every default filled in and every value checked,
// in one place, so that all front ends accept and refuse exactly the same things.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis.h"
#include "catalog.h"
#include "program/program.h"

namespace ws::session {

// Bad input from the user: the message is one line naming what is allowed.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Which blocks run when the spec names none.
enum class BlockDefault {
  Every,         // every block (the CLI: reports cover the whole grid)
  FewWhenLarge,  // the first few blocks when the launch is too large to emulate in a few
                 // seconds (the app, which re-records on every change)
};

// Where a launch comes from: a catalog kernel run now, a launch of a saved trace, or a
// launch of the user's own CUDA program, compiled and run on the emulated device.
enum class Origin { Catalog, TraceFile, Program };

struct LaunchSpec {
  std::string kernel;                           // catalog id (Origin::Catalog)
  std::string trace;                            // a .wstrace file (Origin::TraceFile)
  // The user's program (Origin::Program when `program.source` names a .cu file): what to
  // build and run, as program::run takes it, set once by whoever parsed the request;
  // resolve() gives it the backend, blocks and record cap below.
  program::Options program;
  bool nearest_launch = false;                  // Origin::Program: a `launch` past the last shows the last (the
                                                // app rebuilding a program), instead of an error
  uint32_t launch = 0;                          // the launch of the trace to show, from 0
  bool launch_named = false;                    // the user named the launch to show (or to compare with):
                                                // a fault in another launch does not move the first view
  std::optional<int64_t> size;                  // none: the kernel's teaching size
  std::map<std::string, int64_t> params;        // kernel parameters besides size
  std::string blocks;                           // "0,1,5-7", "all", or "" (see block_default)
  BlockDefault block_default = BlockDefault::Every;
  uint64_t max_records = 50'000'000;            // records past this are dropped and counted
  std::string backend = "auto";                 // "auto" | "gpu" | "emulator"
  std::string dram = "textbook";                // DRAM model preset of the analysis
  // On a GPU with no block filter: whole-grid statistics summed on the device, no
  // addresses stored (counts mode), instead of records.
  bool counts = false;
  bool operator==(const LaunchSpec&) const = default;
  Origin origin() const {
    return !program.source.empty() ? Origin::Program : trace.empty() ? Origin::Catalog : Origin::TraceFile;
  }
};

// A spec with every default filled in and every value checked.
struct ResolvedLaunch {
  Origin origin = Origin::Catalog;
  std::string trace;                            // Origin::TraceFile: the file, and its launch
  program::Options program;                     // Origin::Program: what to build and run
  bool nearest_launch = false;                  // Origin::Program: see LaunchSpec
  uint32_t launch = 0;
  const catalog::KernelInfo* kernel = nullptr;  // Origin::Catalog
  catalog::Params params;                       // "size" included
  std::vector<uint32_t> blocks;                 // sorted; empty: every block
  bool few_blocks = false;                      // the BlockDefault::FewWhenLarge policy chose them
  uint64_t max_records = 0;
  std::string backend;
  analysis::DramModel dram;
  bool counts = false;
  // What resolve() decided on the user's behalf, for a status line ("" when nothing).
  std::string note;
};

// Checks `spec`: a catalog launch against the catalog, a trace file's name and DRAM model (its
// launch is checked when the file is read). Throws InputError naming what is allowed.
ResolvedLaunch resolve(const LaunchSpec& spec);

// Whether `spec` runs as the launch a trace records: `kernel` with `params` (every value,
// "size" included). The same kernel and the same values once the spec's defaults are
// filled in; a spec this build's catalog cannot resolve compares its values as given.
bool runs_as(const LaunchSpec& spec, const std::string& kernel, const std::map<std::string, int64_t>& params);

// Parses "0,1,5-7" into sorted, distinct block ids. Throws InputError.
std::vector<uint32_t> parse_blocks(const std::string& text);

// The DRAM model of a preset name. Throws InputError naming the presets.
analysis::DramModel dram_model(const std::string& preset);

// "transpose_tiled:pad=1,size=128" -> kernel and parameters (the app's compare field and
// --compare). Throws InputError.
LaunchSpec parse_compact(const std::string& text);

// Lane accesses (roughly) past which BlockDefault::FewWhenLarge records only the first
// blocks: the emulator runs some tens of millions a second.
constexpr double kFewBlocksWork = 1.5e8;
// The blocks it records then.
constexpr uint32_t kFewBlocks = 4;

// Applies one "name=value" to `spec`: dram=PRESET picks the DRAM model, size=N the size,
// anything else a kernel parameter (checked later, by resolve). Throws InputError.
void apply_setting(LaunchSpec& spec, const std::string& text);

// A whole number; one too large for int64 saturates, so range checks still name it.
bool parse_whole(std::string_view s, int64_t& v);

// "textbook, hbm".
std::string dram_presets_text(const char* sep = ", ");

// "size=64 m=0 pad=0", size first.
std::string params_text(const std::map<std::string, int64_t>& params);

}  // namespace ws::session
