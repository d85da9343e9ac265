// src/session/heat.h — accumulated traffic per cell of every buffer, up to the current step.
// Moves incrementally (adding or removing the records between the old and the new step)
// with a per-frame budget, so scrubbing a long trace never stalls a frame: a large jump
// converges over a few frames instead.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <memory>
#include <vector>

#include "session/session.h"

namespace ws::session {

// Zeroed floats from calloc: the system hands out zero pages on first touch, so a fresh
// layer of 16M cells costs no frame its 64 MB of zeroing; the cells a trace reaches are
// paid for as the records arrive, a few at a time.
class ZeroCells {
 public:
  ZeroCells() = default;
  explicit ZeroCells(size_t n) : p_(static_cast<float*>(std::calloc(n ? n : 1, sizeof(float)))), n_(n) {
    if (!p_) throw std::bad_alloc();
  }
  float* data() { return p_.get(); }
  const float* data() const { return p_.get(); }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  float& operator[](size_t i) { return p_.get()[i]; }
  float operator[](size_t i) const { return p_.get()[i]; }
  const float* begin() const { return p_.get(); }
  const float* end() const { return p_.get() + n_; }
  bool operator==(const ZeroCells& o) const { return n_ == o.n_ && std::equal(begin(), end(), o.begin()); }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> p_;
  size_t n_ = 0;
};

// Lane accesses per cell of one buffer. The renderer uploads rows [dirty_lo, dirty_hi)
// when `version` moved, then calls clear_dirty().
struct HeatLayer {
  uint32_t rows = 0, cols = 0;  // 0: no heat kept for this buffer (too large)
  ZeroCells cells;           // rows * cols, row-major on screen
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
