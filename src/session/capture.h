// src/session/capture.h — runs a resolved launch on a backend (the GPU recorder or
// counter, or the CPU emulator) and checks its output against the CPU reference. The
// Session is built from what it returns; the views never know which backend ran.
#pragma once
#include <cstdint>
#include <string>

#include "analysis/analysis.h"
#include "catalog.h"
#include "session/launch.h"
#include "trace/trace.h"

namespace ws::session {

struct Capture {
  trace::Trace trace;
  catalog::Params params;
  bool checked = false;       // outputs compared with the CPU reference (all blocks ran)
  double max_rel_error = 0;
  uint64_t lane_accesses = 0;
  double seconds = 0;         // wall time of the capture
  std::string note;           // e.g. "no GPU found: recorded with the CPU emulator"
  bool counted = false;       // counts mode ran: `report` holds the statistics, the trace
  analysis::Report report;    // has launch, buffers and sites but no records
};

// Records one launch. Throws InputError for launches this machine cannot run as asked
// and std::runtime_error when the kernel fails.
Capture capture(const Launch& launch);

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

}  // namespace ws::session
