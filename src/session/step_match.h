// src/session/step_match.h — locks the B side of an A/B view to the A side: for each
// request of A, the request of B that does the same thing (same block, warp, source line,
// array by name and op, and the same occurrence among those), so two variants of a kernel
// are compared at the same point of their work.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "session/session.h"

namespace ws::session {

class StepMatch {
 public:
  StepMatch() = default;
  // Indexes both traces (once; matching is then a lookup).
  StepMatch(std::shared_ptr<const Session> a, std::shared_ptr<const Session> b);
  // Whether this index was built for exactly these two sessions.
  bool built_for(const std::shared_ptr<const Session>& a, const std::shared_ptr<const Session>& b) const {
    return a_ && a_ == a && b_ == b;
  }
  // The B request matching A's request `step_a`. Where the variants differ (another line,
  // another array): the first request of the same block and warp at or after `step_a` in
  // B, else `step_a` clamped to B.
  uint64_t match(uint64_t step_a) const;

 private:
  using Key = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, int, uint32_t>;  // block, warp, line, B array, op, occurrence
  std::shared_ptr<const Session> a_, b_;
  std::vector<uint32_t> occ_a_;      // per A record: its occurrence among equal keys
  std::vector<int> a_to_b_buffer_;   // A buffer id -> B buffer id of the same name (-1: none)
  std::map<Key, uint32_t> b_index_;  // key -> B record
};

}  // namespace ws::session
