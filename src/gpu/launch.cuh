// src/gpu/launch.cuh — what every GPU launcher shares: the catalog's dispatch and a
// runner over it, the shared-memory opt-in of large launches, and what the instrumented
// launches (record, counts) tell their kernels of the arrays and read back of them.
#pragma once
#include <cuda_runtime.h>

#include "trace/builder.h"

#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "dispatch.h"
#include "gpu/contexts.cuh"
#include "gpu/internal.h"

namespace ws::gpu {

// The plain entries (contexts.cuh) for a kernel whose functor names the block it runs in
// (`kThreadsBound`: the warp-specialized wgmma rung's 384 threads, 128 accumulators a
// thread), so that the compiler keeps to the registers one such block may use on an SM.
template <class Op>
concept BoundedOp = requires { Op::kThreadsBound; };
template <class Op, class Args, class... P>
__global__ void __launch_bounds__(Op::kThreadsBound, 1) device_kernel_plain_bounded(P... p) {
  const Args args{flat::field(p)...};
  kernel_body<Op, PlainCtx>(args);
}
template <class Op, class Args, class... P>
__global__ void __launch_bounds__(Op::kThreadsBound, 1)
    device_kernel_skip_bounded(const uint32_t* skip, uint32_t skip_lo, uint32_t skip_n, P... p) {
  const uint32_t b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (skip_n ? b - skip_lo < skip_n : ((skip[b >> 5] >> (b & 31)) & 1u)) return;
  const Args args{flat::field(p)...};
  kernel_body<Op, PlainCtx>(args);
}
// (and the instrumented entry, which could not hold a wgmma's accumulators in 64 registers)
template <class Op, class Ctx, class Args>
__global__ void __launch_bounds__(Op::kThreadsBound, 1) device_kernel_bounded(const Args args) {
  kernel_body<Op, Ctx>(args);
}
template <class Op, class Args, class... P>
constexpr auto plain_entry() {
  if constexpr (BoundedOp<Op>)
    return &device_kernel_plain_bounded<Op, Args, P...>;
  else
    return &device_kernel_plain<Op, Args, P...>;
}
template <class Op, class Args, class... P>
constexpr auto skip_entry() {
  if constexpr (BoundedOp<Op>)
    return &device_kernel_skip_bounded<Op, Args, P...>;
  else
    return &device_kernel_skip<Op, Args, P...>;
}

}  // namespace ws::gpu

namespace ws::gpu::detail {

using catalog::find_run;
using catalog::RunFn;

// A kernel that uses sm_90a's own instructions (wgmma: `kSm90a`) runs only from a build
// for that target; another build says so in one line instead of launching a trap.
template <class Op>
void check_target(const std::string& id) {
#if !defined(WS_SM90A)
  if constexpr (requires { Op::kSm90a; })
    throw Error(id + " uses wgmma, which only a GPU build for sm_90a has (configure with "
                     "-DCMAKE_CUDA_ARCHITECTURES=90a)");
#else
  (void)id;
#endif
}

// The instrumented modes (record, counts) see a lane's own copies only: a TMA multicast's
// copies landing in another CTA of a cluster would be missing from the trace, so a kernel
// launched in clusters is refused there in one line (the emulated device records it whole).
template <class Op>
constexpr bool instrumented_launch_refused() {
  return cluster_size<Op>() > 1;
}
inline Error clusters_refused(const std::string& id, const char* mode) {
  return Error(id + " runs in thread block clusters, which the GPU's " + mode +
               " mode cannot record yet (a multicast's copies land in another CTA): record it on the emulated "
               "device (--backend emulator), or time it (bench)");
}

// One catalog launch in one mode, ready to run again and again: the entry's run() with a
// launcher of type L, made from `k` and the rest of the arguments.
template <class L>
class CatalogRunner : public Runner {
 public:
  template <class... A>
  CatalogRunner(const catalog::KernelInfo& k, const catalog::Params& p, A&&... launcher_args)
      : p_(p), launcher_(k, std::forward<A>(launcher_args)...), run_(find_run<L>(k.id)) {
    if (!run_) throw Error("no GPU entry for kernel " + k.id);
  }
  void launch() override { run_(launcher_, p_); }

 private:
  catalog::Params p_;
  L launcher_;
  RunFn<L> run_;
};

// The dynamic shared memory each kernel may ask for, only ever raised: a launcher's own
// bytes never take back what another launcher of the same kernel was allowed (record
// mode's whole-SM reservation), and a kernel already allowed enough costs no driver call.
// The driver's answer (its error cleared, so that no later check reads it).
inline cudaError_t raise_dynamic_shared(const void* kernel, uint32_t bytes) {
  static std::mutex m;
  static std::map<const void*, uint32_t> allowed;
  std::lock_guard<std::mutex> lock(m);
  uint32_t& a = allowed[kernel];
  if (bytes <= a) return cudaSuccess;
  const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
  cudaGetLastError();
  if (e == cudaSuccess) a = bytes;
  return e;
}

// Kernels whose static and dynamic shared memory together pass 48 KiB must say so first
// (an instrumented context adds static arrays of its own to the kernel's: a kernel that
// takes exactly 48 KiB dynamically runs plain, but not recorded, without asking).
inline void allow_dynamic_shared(const void* kernel, uint32_t bytes, const std::string& what) {
  if (bytes == 0) return;
  cudaFuncAttributes attr{};
  check(cudaFuncGetAttributes(&attr, kernel), "reading a kernel's attributes");
  if (attr.sharedSizeBytes + bytes > 48 * 1024)
    check(raise_dynamic_shared(kernel, bytes), "asking for " + std::to_string(bytes) + " bytes of shared memory for " + what);
}

// The instrumented entry for a block of this size: the uncapped one when the block fits
// its register use, else the one capped for 1024 threads; a kernel that names its bound,
// the entry with that bound.
template <class Op, class Ctx, class Args>
auto entry(dim3 block) -> void (*)(const Args) {
  if constexpr (BoundedOp<Op>) {
    return &device_kernel_bounded<Op, Ctx, Args>;  // the bound its functor names (contexts.cuh)
  } else {
    static const int max_threads = [] {
      cudaFuncAttributes attr{};
      check(cudaFuncGetAttributes(&attr, device_kernel<Op, Ctx, Args>), "reading a kernel's attributes");
      return attr.maxThreadsPerBlock;
    }();
    if (int(block.x * block.y * block.z) <= max_threads) return &device_kernel<Op, Ctx, Args>;
    return &device_kernel_1024<Op, Ctx, Args>;
  }
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

// The shared arrays an instrumented launch described, in declaration order, added to the
// trace's arrays after its global arrays.
inline void add_shared_buffers(const abi::SharedDesc (&shared)[abi::kMaxShared], trace::Builder& out) {
  for (const auto& d : shared) {
    if (!d.used) break;
    out.add_shared(std::string(d.name, strnlen(d.name, sizeof d.name)), d.elem_bytes, d.rows, d.cols, d.size_bytes);
  }
}

// The one-line error of an instrumented launch's first out-of-bounds access.
inline std::string fault_text(const abi::Fault& f, const std::vector<trace::Buffer>& buffers) {
  const std::string name = f.buffer < buffers.size() ? buffers[f.buffer].name : "buffer " + std::to_string(f.buffer);
  return trace::out_of_bounds_text(name, f.line, f.offset, f.size, f.thread, f.block);
}

}  // namespace ws::gpu::detail
