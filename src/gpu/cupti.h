// src/gpu/cupti.h — what the two users of CUPTI (counters.cpp: the range profiler;
// sass_metrics.cpp: SASS metrics) share: CUPTI's parameter blocks, and the library itself,
// opened at run time so that a build runs where CUPTI is missing.
#pragma once
#include <cstring>

#include "gpu/internal.h"

namespace ws::gpu::detail {

// A CUPTI parameter block: zeroed, its size set (CUPTI reads the size to know the version).
template <class P>
P cupti_params(size_t size) {
  P p;
  std::memset(&p, 0, sizeof p);
  p.structSize = size;
  return p;
}
#define WS_CUPTI_PARAMS(T) ::ws::gpu::detail::cupti_params<T>(T##_STRUCT_SIZE)

// libcupti.so.13 from the loader's path or the toolkit's places; null when not found.
inline void* open_cupti() {
  return open_library({"libcupti.so.13", "/usr/local/cuda/lib64/libcupti.so.13",
                       "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
                       "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13", "libcupti.so"});
}

}  // namespace ws::gpu::detail
