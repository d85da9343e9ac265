// src/session/capture.h — runs a resolved launch on its engine and returns everything the
// Session is built from: the trace, the check against the CPU reference, and what a GPU ran
// for the same code (the replay pack's SASS trace, a program's GPU times with their
// yardsticks), so that building the Session reads no file and runs nothing.
//
// The engines, one per (what runs) × (where it runs):
//
//                     | on the CPU                         | on a GPU
//   ------------------+------------------------------------+-----------------------------------------
//   catalog kernel    | src/emu: the kernel's C++ body on  | src/gpu: the same body as CUDA, recorded
//                     | an emulated machine (emu::record)  | or counted on the device (gpu::record)
//   user's program    | src/ptx: its PTX interpreted by    | src/sass + tools/gpu_tracer: its SASS
//                     | warpscope's own CUDA runtime       | traced by a Sanitizer API tool
//
// A catalog kernel's SASS is traced as a program too (warpscope's plain instantiation of it,
// `warpscope sass`). capture() picks the column from the launch's backend; a program's
// engine is chosen by program::run.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "catalog.h"
#include "session/launch.h"
#include "trace/trace.h"

namespace ws::session {

// The whole grid's figures as the GPU's own counters gave them (CUPTI's range profiler, a
// plain launch), beside counts mode's for the same quantities: a row per access kind
// ("global loads") and figure ("sectors").
struct HwFigure {
  std::string access, figure;
  uint64_t counted = 0;  // the GPU's counters
  uint64_t model = 0;    // counts mode (the instrumented kernel through warpscope's model)
};
struct HwCounts {
  std::vector<HwFigure> rows;  // empty: not read
  std::string chip;            // "GH100"
  int passes = 0;              // replays of the launch the counters needed
  double ms = 0;               // wall time of the profiled launch, replays included
  std::string unavailable;     // why they could not be read ("" when read or not asked)
};

struct Capture {
  trace::Trace trace;         // a catalog launch; a program's every launch
  catalog::Params params;
  bool checked = false;       // outputs compared with the CPU reference (all blocks ran)
  double max_rel_error = 0;
  uint64_t lane_accesses = 0;
  double seconds = 0;         // wall time of the capture (a program's: its run)
  std::string note;           // e.g. "no GPU found: recorded with the CPU emulator"
  bool counted = false;       // counts mode ran: `report` holds the statistics, the trace
  analysis::Report report;    // has launch, buffers and sites but no records
  // The same code as a GPU ran it, for the source panel's "what the hardware executed": the
  // replay pack's SASS trace of this catalog kernel with these parameters, or of a program
  // whose sources and flags hash alike, with the same launches; null: none (a program run
  // on a GPU: its trace is the SASS).
  std::shared_ptr<const trace::Trace> hardware;
  std::string source_hash;    // a program's: program::source_hash as it was run ("" otherwise)
  std::map<std::string, std::string> shape_from;  // a program's array shapes: where each came from
  std::string output;         // what a program printed, when it was kept rather than echoed
  program::Problem problem;   // what stopped a program's kernel or host code (empty: nothing)
  program::Races races;       // a program's shared-memory races, every launch's (emulated device)
  HwCounts hw;                // counts mode on a GPU: the same totals from the GPU's counters
};

// Records one launch: a catalog kernel, or every launch of a program (its GPU times given
// their yardsticks). Throws InputError for launches this machine cannot run as asked or a
// program that made none, std::runtime_error when the kernel fails, program::Error when a
// program does not build or run.
Capture capture(const ResolvedLaunch& launch);

// Largest relative error still reported as "matches the CPU reference" (float sums in a
// different order than the reference's differ in the last bits).
constexpr double kMatchTolerance = 1e-4;
// The outputs were compared and differ: the kernel is wrong.
bool check_failed(bool checked, double max_rel_error);
inline bool check_failed(const Capture& c) { return check_failed(c.checked, c.max_rel_error); }
// "output matches CPU reference", or why not (`t`: the recorded trace, for "only N of M blocks ran").
std::string check_text(bool checked, double max_rel_error, const trace::Trace& t);
inline std::string check_text(const Capture& c) { return check_text(c.checked, c.max_rel_error, c.trace); }

// Version string of this build.
const char* version();
// The commit the binary was built from ("1a2b3c4d5e6f", "-dirty" after it for a tree with
// changes; "unknown" outside a git checkout).
const char* commit();
// "warpscope 0.1.0 (commit 1a2b3c4d5e6f)": what --version prints.
std::string version_line();

}  // namespace ws::session
