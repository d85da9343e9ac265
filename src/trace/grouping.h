// src/trace/grouping.h — the SIMT rule that turns the lanes of a warp into warp-level
// records, in one place for the host (trace::Builder::group) and the GPU recorder's merge
// on the device. Integer arithmetic on lane masks only; included by the host compiler and
// by nvcc.
//
// Each lane shows its next access (or that it waits at a barrier, or has ended). The
// lanes waiting at an access are `pending`; the lowest of them leads, and the pending
// lanes whose next access is at the leader's site execute it together: one record. When
// no lane is pending, the lanes at a barrier pass it (the block's epoch advances) and the
// others have ended. A warp whose lanes agree on every access (a converged warp) makes
// one record of every lane per access.
//
// A warp-collective instruction (ldmatrix, mma: .sync.aligned) is executed by the whole
// warp at once, however its lanes came to it, and every lane has an entry for it (an
// ldmatrix lane that brings no row has one with kNoRow). So when the leader is at one, the
// pending lanes not yet there lead first: the instruction becomes one record of all of them.
#pragma once
#include <cstdint>

#include "trace/site_key.h"  // WS_INLINE_HD

namespace ws::trace {

// The lane that leads the next record: the lowest pending lane (pending != 0).
WS_INLINE_HD uint32_t group_leader(uint32_t pending) {
#if defined(__CUDA_ARCH__)
  return uint32_t(__ffs(int(pending)) - 1);
#else
  return uint32_t(__builtin_ctz(pending));
#endif
}

// Entries of warp-collective instructions: ldmatrix rows (Form::Matrix) and mma events
// (Form::Mma); builder.cpp checks these numbers against trace::Form.
constexpr uint32_t kMatrixForm = 1, kMmaForm = 6;
WS_INLINE_HD constexpr bool key_is_collective(uint32_t k) {
  return key_is_event(k) ? key_event_form(k) == kMmaForm : key_form(k) == kMatrixForm;
}

// The leader when the lowest pending lane is at a collective instruction: the lowest of the
// pending lanes still `behind` it (their next entry is not collective), else that lane.
WS_INLINE_HD uint32_t collective_leader(uint32_t pending, uint32_t behind) {
  return group_leader(behind ? behind : pending);
}

// The lanes of the next record: the pending lanes at the leader's site (`at_leader_site`:
// bit l set when lane l's next access is at the leader's site).
WS_INLINE_HD uint32_t group_lanes(uint32_t pending, uint32_t at_leader_site) { return pending & at_leader_site; }

}  // namespace ws::trace
