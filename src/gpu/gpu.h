// src/gpu/gpu.h — the GPU backend as the rest of warpscope sees it. No CUDA type appears
// here, so capture, CLI and GUI code built by the host compiler can include it; the
// functions exist only in builds with CUDA (WS_HAVE_CUDA), and each of them reports a
// missing or unusable GPU as a gpu::Error with one line for the user, never a crash.
// Engine: a catalog kernel on a GPU (the 2×2 of engines: session/capture.h).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/analysis.h"  // DramModel: the DRAM teaching model counts mode sums for
#include "catalog.h"
#include "trace/bench.h"
#include "trace/trace.h"

namespace ws::gpu {

// A GPU operation that failed (no device, out of device memory, a failed launch, an
// out-of-bounds access in an instrumented kernel). what() is one line.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Whether this machine can run the GPU backend. When not, `why` says why in one line
// (no device, driver older than the CUDA runtime of this build, an architecture this
// build has no code for).
bool available(std::string* why = nullptr);

// Name of the device the backend uses, or "" when available() is false.
std::string device_name();

// The bench's results and their JSON (the replay pack's format) are the trace layer's
// (trace/bench.h), so that builds without CUDA read the same rows.
using trace::BenchOptions;
using trace::BenchResult;
using trace::BenchRow;
using trace::bench_json;
using trace::bench_text;
using trace::DeviceInfo;

// Throws Error when available() is false. Clocks are read at the call.
DeviceInfo device_info();

// ---- instrumented recording -------------------------------------------------------------

struct CaptureOptions {
  std::vector<uint32_t> blocks;         // linear block ids to record; empty: every block
  std::vector<uint32_t> warps;          // warps of each block to record; empty: every warp
  uint64_t max_records = ~uint64_t(0);  // records past this are dropped and counted
  bool keep_records = true;             // false: run and count only
  // With a block filter: record in one launch that also runs the other blocks, instead of
  // a record launch beside a plain one (the choice a benchmark makes by timing both).
  bool one_launch = false;
};

// Records kernel `k` with `p` on `arrays` (from catalog::make_arrays) on the GPU; fills
// `out` exactly as emu::record does: the launch, buffers (global, then shared in
// declaration order), sites in order of first execution, records in the emulator's order
// (block, epoch, warp, sequence). The whole grid runs, so the outputs in `arrays` are
// complete; only the selected blocks and warps are recorded. Returns the lane-level
// accesses of the recorded warps. Throws std::invalid_argument for a block outside the
// grid, Error for GPU failures and out-of-bounds accesses.
uint64_t record(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
                const CaptureOptions& opt, trace::Trace& out);

// Runs the plain instantiation of `k` once on `arrays` (no instrumentation) and copies the
// outputs back: what the GPU tracer records when warpscope traces its own catalog at the
// SASS level (session/hardware.h).
void run_plain(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays);

// ---- counts mode ------------------------------------------------------------------------

// Whole-grid statistics summed on the device, in the analysis's own types: the same
// report analysis::analyze() gives of a trace of every block.
struct Counts {
  trace::Trace meta;              // launch, buffers, sites (first-execution order); no records
  analysis::Report report;        // sites parallel to meta.sites, averages and lines; epochs
  uint64_t lane_accesses = 0;
  uint32_t epochs_merged = 0;     // epochs past the table, added into its last row
  bool sites_overflow = false;    // more distinct sites than the device table holds
};

// Runs the whole grid once with per-site and per-epoch statistics computed on the
// device, without storing addresses. Throws like record().
Counts counts(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
              const analysis::DramModel& dram = {});  // its burst a power of two

// ---- the GPU's own counters -------------------------------------------------------------

// One figure the counters give: the space and operation ("global_ld", "shared_st"), the
// figure ("requests", "sectors", "wavefronts", "conflicts") as analysis::Report's totals
// name them, and the metric CUPTI (and Nsight Compute) reads for it.
struct CounterSpec {
  std::string space, figure, metric;
};
const std::vector<CounterSpec>& counter_specs();

// The whole grid's figures as the GPU counted them, one launch of the plain kernel.
struct HwCounters {
  std::vector<uint64_t> values;  // parallel to counter_specs()
  std::string chip;              // "GH100"
  int passes = 0;                // replays of the kernel the counters needed
  int kernels = 0;               // launches counted
  double ms = 0;                 // wall time of the profiled launch, replays and decoding included
  uint64_t get(const std::string& space, const std::string& figure) const;
};

// Runs the plain instantiation of `k` once under CUPTI's range profiler (the kernel replayed
// for each pass, its memory restored between) and copies the outputs back. Throws Error
// with one line where the counters cannot be read (no CUPTI, no permission, no GPU).
HwCounters hw_counters(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays);

// Per-instruction figures from CUPTI's SASS metrics: the plain kernel's SASS patched by CUPTI
// with counters, one launch. A row per instruction executed: its function, its offset in
// that function's code, and each metric summed over the GPU.
struct SassMetricRow {
  std::string function;
  uint32_t pc = 0;
  std::vector<uint64_t> values;  // parallel to SassMetrics::metrics
};
struct SassMetrics {
  std::vector<std::string> metrics;
  std::vector<SassMetricRow> rows;
  double first_ms = 0;   // the first launch: CUPTI patches the kernel, then it runs
  double ms = 0;         // the median of the launches after it, still patched
  double plain_ms = 0;   // the median of the same launches unpatched, before
};
// The SASS metrics this GPU offers: name and description.
std::vector<std::pair<std::string, std::string>> sass_metric_list();
SassMetrics sass_metrics(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
                         const std::vector<std::string>& metrics);

// ---- timing ------------------------------------------------------------------------------

// Times the catalog on the GPU. Every result is checked before its time counts; a row
// that fails the check has ok = false and no figures. `progress` gets a line per step.
BenchResult bench(const BenchOptions& opt, const std::function<void(const std::string&)>& progress = {});

// The yardsticks for rows timed elsewhere (a user program's launches, program/timing.h):
// cuBLAS SGEMM of the same flops as the largest launch that says its flops (the square
// n with 2·n³ closest), a device-to-device copy of the same bytes as the largest that
// says its bytes; each row's % of them; the device's details. Nothing without a GPU.
void yardsticks(BenchResult& r, const std::function<void(const std::string&)>& progress = {});

}  // namespace ws::gpu
