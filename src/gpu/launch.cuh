// src/gpu/launch.cuh — what every GPU launcher shares: finding a catalog entry's run()
// for a launcher type, and the shared-memory opt-in of large launches.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "all.h"
#include "gpu/contexts.cuh"
#include "gpu/internal.h"

namespace ws::gpu::detail {

template <class L>
using RunFn = void (*)(L&, const catalog::Params&);

// The catalog entry `id` instantiated for launcher L, or null.
template <class L>
RunFn<L> find_run(const std::string& id) {
#define WS_GPU_RUN(name) \
  if (id == #name) return [](L& l, const catalog::Params& p) { kernels::name::run(l, p); };
  WS_CATALOG(WS_GPU_RUN)
#undef WS_GPU_RUN
  return nullptr;
}

// Kernels that ask for more than 48 KiB of dynamic shared memory must say so first.
inline void allow_dynamic_shared(const void* kernel, uint32_t bytes, const std::string& what) {
  if (bytes > 48 * 1024)
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
          "asking for " + std::to_string(bytes) + " bytes of shared memory for " + what);
}

// The instrumented entry for a block of this size: the uncapped one when the block fits
// its register use, else the one capped for 1024 threads.
template <class Op, class Ctx, class Args>
auto entry(dim3 block) -> void (*)(const Args) {
  static const int max_threads = [] {
    cudaFuncAttributes attr{};
    check(cudaFuncGetAttributes(&attr, device_kernel<Op, Ctx, Args>), "reading a kernel's attributes");
    return attr.maxThreadsPerBlock;
  }();
  if (int(block.x * block.y * block.z) <= max_threads) return &device_kernel<Op, Ctx, Args>;
  return &device_kernel_1024<Op, Ctx, Args>;
}

inline trace::Dim3 dim(dim3 d) { return {d.x, d.y, d.z}; }

}  // namespace ws::gpu::detail
