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

// The lanes of the next record: the pending lanes at the leader's site (`at_leader_site`:
// bit l set when lane l's next access is at the leader's site).
WS_INLINE_HD uint32_t group_lanes(uint32_t pending, uint32_t at_leader_site) { return pending & at_leader_site; }

}  // namespace ws::trace
