#include "session/heat.h"

#include <algorithm>
#include <bit>
#include <chrono>

namespace ws::session {

void HeatMap::reset(std::shared_ptr<const Session> m) {
  model_ = std::move(m);
  layers_.clear();
  covered_ = 0;
  max_stale_ = false;
  if (!model_) return;
  for (const auto& s : model_->shapes()) {
    HeatLayer l;
    // Past 8192 cells a side or 16M cells the heat layer is left off (too big to upload).
    if (s.rows <= kMaxHeatSide && s.cols <= kMaxHeatSide && uint64_t(s.rows) * s.cols <= kMaxHeatCells) {
      l.rows = s.rows;
      l.cols = s.cols;
      l.cells = ZeroCells(size_t(s.rows) * s.cols);
    }
    l.version = 1;
    l.dirty_lo = 0;
    l.dirty_hi = l.rows;
    layers_.push_back(std::move(l));
  }
}

void HeatMap::apply(const trace::Record& r, float sign) {
  const auto& t = model_->trace();
  if (r.site >= t.sites.size()) return;
  const auto& site = t.sites[r.site];
  uint32_t bumped = trace::kNoBuffer;  // the layer whose version this record changed last
  for (uint32_t bits = r.active; bits; bits &= bits - 1) {
    const int lane = std::countr_zero(bits);
    const uint32_t b = r.buffer_of(lane);
    if (b >= layers_.size()) continue;
    HeatLayer& l = layers_[b];
    if (l.cells.empty()) continue;
    if (b != bumped) {
      ++l.version;
      bumped = b;
    }
    const GridShape& g = model_->shapes()[b];
    const uint32_t per_lane = std::max<uint32_t>(1, site.bytes / g.elem_bytes);
    const uint64_t e0 = r.offset[lane] / g.elem_bytes;
    for (uint32_t k = 0; k < per_lane; ++k) {
      uint32_t row, col;
      if (!g.cell(e0 + k, row, col)) continue;
      float& c = l.cells[size_t(row) * l.cols + col];
      c += sign;
      if (sign > 0) {
        if (c > l.max) l.max = c;
      } else {
        max_stale_ = true;
      }
      l.mark(row);
    }
  }
}

void HeatMap::finish() {
  if (!max_stale_) return;
  for (auto& l : layers_) {
    float mx = 0;
    for (float c : l.cells) mx = std::max(mx, c);
    l.max = mx;
  }
  max_stale_ = false;
}

bool HeatMap::update(uint64_t target, double budget_ms) {
  if (!model_) return true;
  const auto& recs = model_->trace().records;
  target = std::min<uint64_t>(target, recs.size());
  if (covered_ == target) {
    finish();
    return true;
  }
  // Going back further than starting over would cost: start over.
  if (target < covered_ && covered_ - target > target) {
    for (auto& l : layers_) {
      if (!l.cells.empty()) l.cells = ZeroCells(l.cells.size());  // fresh zero pages, not a 64 MB fill
      l.max = 0;
      l.dirty_lo = 0;
      l.dirty_hi = l.rows;
      ++l.version;
    }
    covered_ = 0;
    max_stale_ = false;
  }
  // Work in slices of records, checking the clock between slices.
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                           std::chrono::duration<double, std::milli>(budget_ms));
  constexpr uint64_t kSlice = 2048;
  for (;;) {
    if (covered_ < target) {
      const uint64_t end = std::min(target, covered_ + kSlice);
      for (; covered_ < end; ++covered_) apply(recs[covered_], +1.0f);
    } else if (covered_ > target) {
      const uint64_t end = covered_ - std::min(covered_ - target, kSlice);
      while (covered_ > end) {
        --covered_;
        apply(recs[covered_], -1.0f);
      }
    }
    if (covered_ == target || (budget_ms > 0 && clock::now() >= deadline)) break;
  }
  if (covered_ == target) finish();
  return covered_ == target;
}

size_t HeatMap::bytes() const {
  size_t b = 0;
  for (const auto& l : layers_) b += l.cells.size() * sizeof(float);
  return b;
}

}  // namespace ws::session
