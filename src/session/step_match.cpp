#include "session/step_match.h"

#include <algorithm>

namespace ws::session {

StepMatch::StepMatch(std::shared_ptr<const Session> a, std::shared_ptr<const Session> b)
    : a_(std::move(a)), b_(std::move(b)) {
  if (!a_ || !b_) return;
  const trace::Trace& ta = a_->trace();
  const trace::Trace& tb = b_->trace();
  // Arrays are matched by name: a padded variant's `tile` is still the `tile`.
  a_to_b_buffer_.assign(ta.buffers.size(), -1);
  for (size_t i = 0; i < ta.buffers.size(); ++i)
    for (size_t j = 0; j < tb.buffers.size(); ++j)
      if (ta.buffers[i].name == tb.buffers[j].name) a_to_b_buffer_[i] = int(j);
  using Seen = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, int>;
  std::map<Seen, uint32_t> count;
  occ_a_.resize(ta.records.size());
  for (size_t i = 0; i < ta.records.size(); ++i) {
    const auto& r = ta.records[i];
    const auto& s = ta.sites[r.site];
    const int bb = s.buffer < a_to_b_buffer_.size() ? a_to_b_buffer_[s.buffer] : -1;
    occ_a_[i] = count[Seen{r.block, r.warp, s.line, uint32_t(bb), int(s.op)}]++;
  }
  count.clear();
  for (size_t i = 0; i < tb.records.size(); ++i) {
    const auto& r = tb.records[i];
    const auto& s = tb.sites[r.site];
    const uint32_t occ = count[Seen{r.block, r.warp, s.line, s.buffer, int(s.op)}]++;
    b_index_.emplace(Key{r.block, uint32_t(r.warp), s.line, uint32_t(s.buffer), int(s.op), occ}, uint32_t(i));
  }
}

uint64_t StepMatch::match(uint64_t step_a) const {
  if (!a_ || !b_ || b_->size() == 0) return 0;
  const uint64_t last = b_->size() - 1;
  if (step_a >= occ_a_.size()) return std::min(step_a, last);
  const trace::Trace& ta = a_->trace();
  const trace::Record& r = ta.records[step_a];
  const trace::Site& s = ta.sites[r.site];
  const int bb = s.buffer < a_to_b_buffer_.size() ? a_to_b_buffer_[s.buffer] : -1;
  auto it = b_index_.find(Key{r.block, uint32_t(r.warp), s.line, uint32_t(bb), int(s.op), occ_a_[step_a]});
  if (it != b_index_.end()) return it->second;
  const auto& rb = b_->trace().records;
  for (uint64_t i = std::min(step_a, last); i < rb.size(); ++i)
    if (rb[i].block == r.block && rb[i].warp == r.warp) return i;
  return std::min(step_a, last);
}

}  // namespace ws::session
