// src/ui/model.h — a trace as the views see it: the trace, its analysis, and the indices
// that make stepping and drawing cheap. Built once, off the UI thread, then shared
// read-only (an A/B view holds two).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "catalog.h"
#include "trace/trace.h"

namespace ws::ui {

// How a buffer is laid out on screen: a rows × cols grid of elements. Row-major arrays
// are drawn with one storage row per grid row (padding columns included, so a TILE+1 tile
// shows its extra column); 1-D arrays wrap every 128 bytes, so for shared memory a grid
// column is a bank.
struct GridShape {
  uint32_t rows = 1, cols = 1;   // cells on screen
  uint32_t elem_bytes = 4;
  uint64_t elements = 0;         // elements that exist (the last row may be partial)
  bool col_major = false;        // element e at (e % rows, e / rows)
  bool wrapped = false;          // a 1-D array shown wrapped
  // Cell of element e; false past the end.
  bool cell(uint64_t e, uint32_t& row, uint32_t& col) const {
    if (e >= elements) return false;
    if (col_major) {
      row = uint32_t(e % rows);
      col = uint32_t(e / rows);
    } else {
      row = uint32_t(e / cols);
      col = uint32_t(e % cols);
    }
    return true;
  }
  // Element of a cell (may be >= elements on the partial last row).
  uint64_t element(uint32_t row, uint32_t col) const {
    return col_major ? uint64_t(col) * rows + row : uint64_t(row) * cols + col;
  }
};
GridShape grid_shape(const trace::Buffer& b);

// Statistics of one kernel source line (all sites on it), for the source gutter.
struct LineStat {
  uint32_t line = 0;
  bool global = false;
  uint64_t requests = 0;
  double sectors_per_request = 0, ideal_per_request = 0;  // global sites of the line
  bool shared = false;
  uint32_t max_way = 0;                                     // shared sites of the line
  double wavefronts_per_request = 0;
  double ratio = 1;        // worst cost / ideal on the line: 1 is perfect
  std::string badge;       // "in 4 · tile 32-way": per array, sectors per request or n-way
  struct Part {
    std::string text;      // "in 4", "tile 32-way"
    double ratio = 1;      // its cost / ideal, for its colour
    uint32_t site = 0;
  };
  std::vector<Part> parts;
  std::vector<uint32_t> sites;
};

struct Model {
  std::shared_ptr<const trace::Trace> shared_trace;  // shared with re-analysed copies
  analysis::Report report;
  const catalog::KernelInfo* kernel = nullptr;  // null for a file of an unknown kernel
  std::string origin;        // "emulator" | "gpu" | "file"
  std::string file;          // path when opened from a file
  bool from_gpu = false;     // the records came from a GPU (not the emulator)
  bool checked = false;      // outputs compared with the CPU reference
  double max_rel_error = 0;
  double capture_seconds = 0;
  std::string note;          // capture's note ("no GPU found: ...")

  std::vector<GridShape> shapes;        // per buffer
  std::vector<uint32_t> warp_starts;    // first record of each (block, epoch, warp) run
  std::vector<uint32_t> epoch_starts;   // first record of each (block, epoch) run
  std::map<uint32_t, LineStat> lines;   // by source line
  std::vector<std::string> source_lines;  // the kernel file, line 1 at index 0
  uint32_t max_epoch = 0;
  uint64_t lane_accesses = 0;

  const trace::Trace& trace() const { return *shared_trace; }
  size_t size() const { return shared_trace->records.size(); }
  // One-line description of the launch: "transpose_tiled · 64×64 · pad=0".
  std::string title() const;
  // "emulated on CPU" / "recorded on NVIDIA H200" (+ " · from file").
  std::string provenance() const;

  // Navigation in execution order. Each returns a record index in [0, size()).
  uint64_t next(uint64_t step, int unit, int dir) const;  // unit: 0 request, 1 warp, 2 epoch
};

// Builds the indices and the analysis of `t`. Runs on a worker thread.
std::shared_ptr<Model> build_model(std::shared_ptr<const trace::Trace> t, const analysis::DramModel& dram);
// The same trace analysed with another DRAM model (shares nothing mutable with `m`).
std::shared_ptr<Model> reanalyze(const Model& m, const analysis::DramModel& dram);

// Per-request figures the warp inspector shows (cheap: computed for the current step).
struct RequestView {
  const trace::Record* rec = nullptr;
  const trace::Site* site = nullptr;
  const trace::Buffer* buffer = nullptr;
  bool shared = false;
  analysis::GlobalCost g;
  analysis::SharedCost s;
  int active_lanes = 0;
  std::string why;
};
RequestView request_view(const Model& m, uint64_t step);

}  // namespace ws::ui
