// The device side of the GPU tracer: the functions the Compute Sanitizer patches into the
// user's kernels before every global and shared memory instruction (ldmatrix and cp.async
// included; of the spaces asked for), every cp.async commit and wait, and every barrier
// (built with `nvcc --fatbin -Xptxas --compile-as-tools-patch`). The lanes of a warp that
// execute an instruction together write one record: the first of them takes a slot, the
// others learn it by a shuffle, and each writes its own address.
#include <sanitizer_patching.h>

#include "device_state.h"

using ws::tracer::DeviceState;

namespace {

__device__ __forceinline__ uint32_t linear_block() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
__device__ __forceinline__ uint32_t linear_thread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ __forceinline__ SanitizerPatchResult record(void* userdata, uint64_t pc, uint64_t address, uint32_t size,
                                                       uint32_t flags, uint8_t space, uint8_t form = ws::sass::kRawPlain,
                                                       uint8_t count = 0) {
  auto* st = static_cast<DeviceState*>(userdata);
  if (!st) return SANITIZER_PATCH_SUCCESS;
  const uint32_t block = linear_block();
  if (block < st->block_lo || block >= st->block_hi) return SANITIZER_PATCH_SUCCESS;
  const uint32_t tid = linear_thread(), warp = tid / 32, lane = tid % 32;
  const uint32_t mask = __activemask();
  const uint32_t leader = __ffs(mask) - 1;
  const unsigned long long w = uint64_t(block - st->block_lo) * st->warps_per_block + warp;
  unsigned long long slot = ~0ULL;
  if (lane == leader) {
    if (st->epochs) st->epochs[st->warps + w] += 1;  // executed, counted by the warp itself
    // Once the records are full, no more contended atomics: only the warp's own count.
    if (!*static_cast<volatile uint32_t*>(&st->full)) {
      slot = atomicAdd(&st->count, 1ULL);
      if (slot >= st->cap) st->full = 1;
    }
  }
  slot = __shfl_sync(mask, slot, leader);
  if (slot >= st->cap) return SANITIZER_PATCH_SUCCESS;
  ws::sass::DeviceRecord& r = st->records[slot];
  r.address[lane] = address;
  if (lane == leader) {
    r.pc = pc;
    r.block = block;
    r.warp = warp;
    r.mask = mask;
    r.epoch = st->epochs ? st->epochs[w] : 0;
    r.space = space;
    r.size = uint8_t(size);
    r.flags = uint16_t(form == ws::sass::kRawWait ? flags : flags & 7u);
    r.form = form;
    r.count = count;
  }
  return SANITIZER_PATCH_SUCCESS;
}

}  // namespace

extern "C" __device__ __noinline__ SanitizerPatchResult ws_global_access(void* userdata, uint64_t pc, void* ptr,
                                                                         uint32_t size, uint32_t flags,
                                                                         const void* /*data*/) {
  return record(userdata, pc, reinterpret_cast<uint64_t>(ptr), size, flags, ws::sass::kRawGlobal);
}

extern "C" __device__ __noinline__ SanitizerPatchResult ws_shared_access(void* userdata, uint64_t pc, void* ptr,
                                                                         uint32_t size, uint32_t flags,
                                                                         const void* /*data*/) {
  return record(userdata, pc, reinterpret_cast<uint64_t>(ptr), size, flags, ws::sass::kRawShared);
}

// ldmatrix / stmatrix: each lane names one 16-byte row (an offset in the shared window).
extern "C" __device__ __noinline__ SanitizerPatchResult ws_matrix_access(void* userdata, uint64_t pc, uint32_t address,
                                                                         uint32_t size, uint32_t flags, uint32_t count,
                                                                         const void* /*data*/) {
  return record(userdata, pc, address, size, flags, ws::sass::kRawShared, ws::sass::kRawMatrix, uint8_t(count));
}

// cp.async: the global read and the shared write, two records of one instruction. A
// zero-sized source (src-size 0: a zero fill) reads nothing and is recorded at address 0.
extern "C" __device__ __noinline__ SanitizerPatchResult ws_memcpy_async(void* userdata, uint64_t pc, void* src,
                                                                        uint32_t dst, uint32_t size) {
  const auto* st = static_cast<const DeviceState*>(userdata);
  if (!st) return SANITIZER_PATCH_SUCCESS;
  if (st->spaces & ws::sass::kRawSpaceGlobal)
    record(userdata, pc, reinterpret_cast<uint64_t>(src), size, ws::sass::kRawRead, ws::sass::kRawGlobal,
           ws::sass::kRawAsyncRead);
  if (st->spaces & ws::sass::kRawSpaceShared)
    record(userdata, pc, dst, size, ws::sass::kRawWrite, ws::sass::kRawShared, ws::sass::kRawAsyncWrite);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult ws_pipeline_commit(void* userdata, uint64_t pc) {
  return record(userdata, pc, 0, 0, 0, ws::sass::kRawGlobal, ws::sass::kRawCommit);
}

extern "C" __device__ __noinline__ SanitizerPatchResult ws_pipeline_wait(void* userdata, uint64_t pc, uint32_t groups) {
  return record(userdata, pc, 0, 0, groups, ws::sass::kRawGlobal, ws::sass::kRawWait);
}

// A barrier passed: the warp's later records are of the next epoch.
extern "C" __device__ __noinline__ SanitizerPatchResult ws_barrier(void* userdata, uint64_t /*pc*/,
                                                                   uint32_t /*bar*/, uint32_t /*threads*/,
                                                                   uint32_t /*flags*/) {
  auto* st = static_cast<DeviceState*>(userdata);
  if (!st || !st->epochs) return SANITIZER_PATCH_SUCCESS;
  const uint32_t block = linear_block();
  if (block < st->block_lo || block >= st->block_hi) return SANITIZER_PATCH_SUCCESS;
  const uint32_t tid = linear_thread();
  const uint32_t mask = __activemask();
  if (tid % 32 == uint32_t(__ffs(mask) - 1)) st->epochs[(block - st->block_lo) * st->warps_per_block + tid / 32] += 1;
  return SANITIZER_PATCH_SUCCESS;
}
