// src/capture/capture.h — one way in for every trace source: the GPU recorder, the CPU
// emulator or a file. The views and the CLI never know which one produced a trace.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "catalog.h"
#include "trace/trace.h"

namespace ws::capture {

// Bad input from the user: the message is one line naming what is allowed.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Request {
  std::string kernel;                      // catalog id
  int64_t size = 0;                        // 0: the kernel's teaching size
  std::map<std::string, int64_t> set;      // parameter values
  std::vector<uint32_t> blocks;            // empty: every block
  uint64_t max_records = 50'000'000;       // records past this are dropped and counted
  std::string backend = "auto";            // "auto" | "gpu" | "emulator"
  // When the GPU runs it and no blocks are selected: whole-grid statistics computed on
  // the device without storing addresses (counts mode) instead of records.
  bool counts = false;
  analysis::DramModel dram;                // the DRAM model counts mode accumulates
};

struct Result {
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

// Records one launch. Throws InputError for bad requests and std::runtime_error when the
// kernel fails.
Result record(const Request& req);

// Parses "0,1,5-7" into block ids. Throws InputError.
std::vector<uint32_t> parse_blocks(const std::string& text);

// Version string of this build.
const char* version();

}  // namespace ws::capture
