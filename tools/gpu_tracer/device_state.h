// tools/gpu_tracer/device_state.h — the tracer's per-launch state in device memory, passed
// to every patch as its userdata: the host side (tracer.cpp) and the patches (patch.cu,
// built apart by nvcc) must agree on its layout.
#pragma once
#include <cstdint>

#include "sass/raw.h"

namespace ws::tracer {

struct DeviceState {
  unsigned long long count = 0;  // records taken (up to the cap; then `full` stops taking)
  unsigned long long cap = 0;    // records kept at most
  sass::DeviceRecord* records = nullptr;
  // Per warp, at (block - block_lo) * warps_per_block + warp: barriers passed, then (at
  // `warps` further on) warp instructions executed — each only ever written by its own
  // warp's first active lane, so no atomics once the records are full.
  uint32_t* epochs = nullptr;
  uint32_t block_lo = 0, block_hi = 0, warps_per_block = 1, full = 0;
  unsigned long long warps = 0;
  uint32_t spaces = sass::kRawSpaceGlobal | sass::kRawSpaceShared;  // recorded (an async copy's two sides)
  uint32_t pad = 0;
};
static_assert(sizeof(DeviceState) == 64, "tracer.cpp and patch.cu share this layout");

}  // namespace ws::tracer
