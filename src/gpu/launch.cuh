// src/gpu/launch.cuh — what every GPU launcher shares: finding a catalog entry's run()
// for a launcher type, the shared-memory opt-in of large launches, and what the
// instrumented launches (record, counts) tell their kernels of the arrays and read back
// of them.
#pragma once
#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

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

// What an instrumented kernel knows of its launch's arrays (in __constant__ memory); it
// describes the shared arrays in `shared` and reports its first fault in `fault`.
inline abi::LaunchInfo launch_info(const DeviceArrays& a, uint32_t dyn_bytes, abi::SharedDesc* shared,
                                   abi::Fault* fault) {
  abi::LaunchInfo li{};
  for (size_t i = 0; i < a.size() && i < abi::kMaxGlobals; ++i) li.global_bytes[i] = a.bytes(i);
  li.n_global = uint32_t(a.size());
  li.dyn_bytes = dyn_bytes;
  li.shared = shared;
  li.fault = fault;
  return li;
}

// The shared arrays an instrumented launch described, in declaration order, appended to
// the trace's buffers after its global arrays.
inline void add_shared_buffers(const abi::SharedDesc (&shared)[abi::kMaxShared], std::vector<trace::Buffer>& out) {
  for (const auto& d : shared) {
    if (!d.used) break;
    out.push_back(trace::shared_buffer(std::string(d.name, strnlen(d.name, sizeof d.name)), d.elem_bytes, d.rows,
                                       d.cols, d.size_bytes));
  }
}

}  // namespace ws::gpu::detail
