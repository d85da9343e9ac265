// src/trace/bench.h — GPU timings of the catalog and their JSON file: what `warpscope
// bench` measures and prints, and what the replay pack keeps beside its traces
// (assets/replay/bench.json). One row type and one reader for every user: the GPU backend
// that fills the rows, the CLI that prints a pack when there is no GPU, and the app's
// timing panel. Here, in the trace layer, because builds without CUDA must still read the
// pack and every one of those users links it.
//
// The JSON is the one `warpscope bench --format json` writes ("format": "warpscope-bench"),
// read tolerantly so that older or hand-written packs still show:
//   { "device": {"name": "NVIDIA H200", ...} | "NVIDIA H200", "date": "2026-11-22T03:04:37Z",
//     "cublas_sgemm": {"gflops": ...}, "cublas_hgemm": {...}, "memcpy_d2d": {"gbs": ...},
//     "rows": [ { "kernel": "transpose_tiled", "variant": "pad=1", "params": {"pad": 1, "size": 8192},
//                 "ms": 0.153, "ms_min": ..., "ms_max": ..., "runs": 200, "gbs": 3513.6,
//                 "gflops": 0, "pct_copy": 86.4, "pct_cublas": 0, "note": "..." } ] }
// ("results" / "timings" / "kernels" are accepted for "rows", "gbps" for "gbs",
// "time_ms" / "median_ms" for "ms", "pct_of_ref" + "ref" for a named reference, and
// "history": [ms, ...] for earlier runs; a row without "ok" counts as checked.)
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ws::trace {

// The GPU a bench ran on.
struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sms = 0;
  uint64_t memory_bytes = 0, l2_bytes = 0;
  int memory_bus_bits = 0;
  int max_sm_clock_mhz = 0, max_mem_clock_mhz = 0;  // rated maxima
  int sm_clock_mhz = 0, mem_clock_mhz = 0;          // as read now (0: not readable)
  int driver_version = 0, runtime_version = 0;      // 13000 means 13.0
  static std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }
};

// One kernel (one variant) timed.
struct BenchRow {
  std::string kernel, family, variant;     // variant: "pad=1" etc., "" for the default
  bool vs_cublas = false;                  // compared with cuBLAS SGEMM (GFLOP/s), else a device copy (GB/s)
  bool vs_hgemm = false;                   // with vs_cublas: half inputs, compared with cuBLAS HGEMM instead
  std::map<std::string, int64_t> params;   // "size" included when known
  int64_t size = 0;
  int runs = 0;
  double ms = 0, ms_min = 0, ms_max = 0;   // median, fastest, slowest (0: unknown)
  double gflops = 0, gbs = 0;              // useful flops; bytes read + written
  double pct_cublas = 0, pct_copy = 0;     // of cuBLAS SGEMM (HGEMM) / cudaMemcpy D2D, same run
  // cuBLAS's median on the row's own arrays, timed in the same rounds as the row (0: not
  // timed beside it; pct_cublas is then of the run's one cuBLAS figure).
  double yardstick_ms = 0;
  bool ok = false;                         // result checked and within tolerance
  std::string checked_against;             // "cuBLAS" | "cuBLAS HGEMM" | "CPU reference"
  double max_rel_error = 0;
  double raw_ms = 0, raw_ratio = 0;        // zero cost: plain median / raw median (0: no raw)
  // The published kernel the entry reproduces, built from its source's own code and timed
  // in the same rounds: its name, median, plain median / its median, and how far its
  // result is from the entry's ("" and 0: not timed).
  std::string published;
  double published_ms = 0, published_ratio = 0, published_error = 0;
  double record_ms = 0, record_ratio = 0;  // filtered record mode / plain
  double counts_ms = 0, counts_ratio = 0;  // whole-grid counts mode / plain
  // The whole grid's figures from the GPU's counters (CUPTI): wall time of one profiled
  // launch, replays and decoding included, / plain; the replays it took (0: not timed).
  double counters_ms = 0, counters_ratio = 0;
  int counters_passes = 0;
  std::string error;                       // why it did not run
  std::string note;                        // a remark a pack attaches to this row
  std::vector<double> history;             // earlier ms, oldest first (from a pack)
  // What a reader of the row compares it with: "cuBLAS", "device copy" or a reference the
  // pack names, and the percentage of it (< 0: none). Set by read_bench.
  std::string ref;
  double pct_ref = -1;
};

struct BenchResult {
  DeviceInfo device;
  std::string date;                        // ISO 8601, UTC
  std::string record_blocks;               // blocks the record-mode overhead recorded
  int64_t cublas_size = 0;
  double cublas_ms = 0, cublas_gflops = 0;
  int64_t hgemm_size = 0;                  // cuBLAS HGEMM (f16 in, f32 accumulate), for half-input rows
  double hgemm_ms = 0, hgemm_gflops = 0;
  uint64_t copy_bytes = 0;                 // bytes read + written by the reference copy
  double copy_ms = 0, copy_gbs = 0;
  std::vector<BenchRow> rows;
  bool all_ok = true;
};

// What to time: plain data, so that a front end can ask for timings without knowing the GPU
// backend (session/bench.h).
struct BenchOptions {
  std::vector<std::string> kernels;        // ids; empty: the whole catalog
  int64_t size = 0;                        // 0: each kernel's bench size
  std::map<std::string, int64_t> set;      // parameter values, applied where a kernel has them
  bool variants = true;                    // the ladder's variants too (pad=1, tile=32, ...)
  int warmup = 3;
  int min_runs = 10, max_runs = 200;
  double seconds = 0.6;                    // timing budget per kernel and mode
  bool overhead = true;                    // instrumented / plain time ratios
  bool zero_cost = true;                   // plain / hand-written raw-pointer ratios
};

// The results as bench JSON (the replay pack's format), indented, with a final newline.
std::string bench_json(const BenchResult& r);
// The ladder tables: SGEMM, HGEMM on tensor cores, then transpose and copies, each row
// checked before shown.
std::string bench_text(const BenchResult& r);
// A user program's launches timed (program/timing.h): per launch its median, spread and
// runs, GFLOP/s / GB/s and % of the same run's cuBLAS SGEMM / device copy where known.
std::string program_times_text(const BenchResult& r);
// Reads bench JSON into `out`, every row kept (failed ones too). Returns false and sets
// `error` (one line) when the text is not such JSON.
bool read_bench(const std::string& text, BenchResult& out, std::string& error);

// read_bench of a file; "cannot read it" when it cannot be opened.
bool read_bench_file(const std::string& path, BenchResult& out, std::string& error);

// One recording of a replay pack, and the file it came from.
struct ReplayFile {
  std::string path;
  BenchResult result;
};
// The recordings in a replay pack folder (every *.json under it, its sass/ folder of traces
// and their index left out), newest first. A file that cannot be read is left out and named
// in `message` ("file.json: why", joined by "; ").
std::vector<ReplayFile> read_replay_dir(const std::string& dir, std::string& message);

}  // namespace ws::trace
