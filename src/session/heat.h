// src/session/heat.h — accumulated traffic per cell of every buffer, up to the current step.
// Moves incrementally (adding or removing the records between the old and the new step)
// with a per-frame budget, so scrubbing a long trace never stalls a frame: a large jump
// converges over a few frames instead.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "session/session.h"

namespace ws::session {

// Lane accesses per cell of one buffer. The renderer uploads rows [dirty_lo, dirty_hi)
// when `version` moved, then calls clear_dirty().
struct HeatLayer {
  uint32_t rows = 0, cols = 0;  // 0: no heat kept for this buffer (too large)
  std::vector<float> cells;  // rows * cols, row-major on screen
  float max = 0;             // largest cell (exact once converged)
  uint64_t version = 0;
  uint32_t dirty_lo = 0, dirty_hi = 0;
  void mark(uint32_t row) {
    if (dirty_lo >= dirty_hi) {
      dirty_lo = row;
      dirty_hi = row + 1;
    } else {
      if (row < dirty_lo) dirty_lo = row;
      if (row + 1 > dirty_hi) dirty_hi = row + 1;
    }
  }
  void clear_dirty() { dirty_lo = dirty_hi = 0; }
};

constexpr uint32_t kMaxHeatSide = 8192;
constexpr uint64_t kMaxHeatCells = 16u << 20;

class HeatMap {
 public:
  // Starts over for `m` (cells all zero, covering no record).
  void reset(std::shared_ptr<const Session> m);
  // Moves towards covering records [0, target), spending at most `budget_ms` of this
  // frame (0: no limit). Returns true once it covers exactly [0, target).
  bool update(uint64_t target, double budget_ms = 3.0);
  uint64_t covered() const { return covered_; }
  bool converged(uint64_t target) const { return covered_ == target; }
  HeatLayer* layer(size_t buffer) { return buffer < layers_.size() ? &layers_[buffer] : nullptr; }
  const std::shared_ptr<const Session>& model() const { return model_; }
  size_t bytes() const;  // memory held by the layers

 private:
  void apply(const trace::Record& r, float sign);
  void finish();
  std::shared_ptr<const Session> model_;
  std::vector<HeatLayer> layers_;
  uint64_t covered_ = 0;
  bool max_stale_ = false;
};

}  // namespace ws::session
