// src/gpu/warp_calls.cuh — ldmatrix, mma.sync and cp.async in the GPU contexts: the
// instructions themselves (inline PTX: all the plain context compiles them to), and what
// the instrumented contexts do around them so that their records are the emulator's:
// an ldmatrix as one 16-byte-a-lane shared load of its rows (Form::Matrix) by the lanes
// whose rows it takes, a copy's global read at issue (Form::AsyncRead) and its shared
// write when the wait that covers it returns (Form::AsyncWrite), mma, commit and wait as
// event entries (site_key.h).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "trace/site_key.h"
#include "trace/trace.h"

namespace ws::gpu {

// ---- the instructions ---------------------------------------------------------------------

namespace ptx_op {

__device__ __forceinline__ uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// ldmatrix .x1/.x2/.x4 (.trans): M matrices, this lane's row at `row` (shared).
template <int M, bool TRANS>
__device__ __forceinline__ void ldmatrix(uint32_t* r, const void* row) {
  const uint32_t a = smem(row);
  if constexpr (M == 4 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
  else if constexpr (M == 4)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
  else if constexpr (M == 2 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
  else if constexpr (M == 2)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
  else if constexpr (!TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(a));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(a));
}

// mma.sync m16n8k16 .row.col f32.f16.f16.f32, accumulating in place.
__device__ __forceinline__ void mma_m16n8k16(float* d, const uint32_t* a, const uint32_t* b) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// cp.async of B bytes (16: .cg, around L1, with a hint to fetch the whole 128-byte line into
// L2; 4: .ca, the only kind that size allows).
template <int B>
__device__ __forceinline__ void cp_async(void* dst, const void* src) {
  static_assert(B == 4 || B == 16, "cp.async copies 4 or 16 bytes here");
  if constexpr (B == 16)
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(smem(dst)), "l"(src));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(dst)), "l"(src));
}
// The wait clobbers memory: shared reads after it must not be moved before it.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

}  // namespace ptx_op

// ---- the instrumented calls ---------------------------------------------------------------

namespace instr {

// The warp-wide calls and async copies of an instrumented context. `Self` provides
//   access(key, off)   a lane's access, as the array wrappers report it
//   event(key, arg)    an event entry (mma, commit, wait)
//   converge()         brings the warp's lanes together before a .sync.aligned instruction
//   rowless(key)       a lane at an ldmatrix that takes no row of it (trace::kNoRow)
//   lost_write()       a copy's write that the queue below had no room to track
template <class Self>
class WarpCalls {
 public:
  // The contract's names (contract.h); `line` defaults to the kernel line of the call.
  template <class R>
  __device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const R& row) const { ldm<4, false>(r, row); }
  template <class R>
  __device__ __forceinline__ void ldmatrix_x2(uint32_t (&r)[2], const R& row) const { ldm<2, false>(r, row); }
  template <class R>
  __device__ __forceinline__ void ldmatrix_x1(uint32_t (&r)[1], const R& row) const { ldm<1, false>(r, row); }
  template <class R>
  __device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const R& row) const { ldm<4, true>(r, row); }
  template <class R>
  __device__ __forceinline__ void ldmatrix_x2_trans(uint32_t (&r)[2], const R& row) const { ldm<2, true>(r, row); }
  template <class R>
  __device__ __forceinline__ void ldmatrix_x1_trans(uint32_t (&r)[1], const R& row) const { ldm<1, true>(r, row); }
  template <class D, class S>
  __device__ __forceinline__ void cp_async16(const D& dst, const S& src) const {
    copy<16>(dst, src);
  }
  template <class D, class S>
  __device__ __forceinline__ void cp_async4(const D& dst, const S& src) const {
    copy<4>(dst, src);
  }

  template <int M, bool TRANS, class R>
  __device__ __forceinline__ void ldm(uint32_t* r, const R& row) const {
    // The warp meets first: the instruction is one request of every lane that takes part,
    // however the lanes came to it (the emulator's grouping does the same).
    self().converge();
    const uint32_t key = row.key();
    if (key != trace::kNoKey) {
      const uint32_t k = trace::with_form(
          trace::make_key(trace::key_line(key), trace::key_buffer(key), uint32_t(trace::Op::Load), 16),
          uint32_t(trace::Form::Matrix));
      if (lane() < 8u * M)  // .x1/.x2 take the rows of the first 8/16 lanes
        self().access(k, row.offset());
      else
        self().rowless(k);
    }
    ptx_op::ldmatrix<M, TRANS>(r, row.ptr());
  }

  __device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                                               uint32_t line = __builtin_LINE()) const {
    self().converge();
    self().event(trace::event_key(line, uint32_t(trace::Form::Mma)), 0);
    ptx_op::mma_m16n8k16(d, a, b);
  }

  template <int B, class D, class S>
  __device__ __forceinline__ void copy(const D& dst, const S& src) const {
    const uint32_t sk = src.key(), dk = dst.key();
    if (sk == trace::kNoKey || dk == trace::kNoKey) return;  // reported as out of bounds, never made
    const uint32_t line = trace::key_line(sk);
    const uint32_t read = trace::make_key(line, trace::key_buffer(sk), uint32_t(trace::Op::Load), B);
    self().access(trace::with_form(read, uint32_t(trace::Form::AsyncRead)), src.offset());
    if (pending_ < kQueue) {
      const uint32_t write = trace::make_key(line, trace::key_buffer(dk), uint32_t(trace::Op::Store), B);
      key_[pending_] = trace::with_form(write, uint32_t(trace::Form::AsyncWrite));
      off_[pending_] = dst.offset();
      group_[pending_] = kUncommitted;
      ++pending_;
    } else {
      self().lost_write();
    }
    ptx_op::cp_async<B>(const_cast<void*>(static_cast<const void*>(dst.ptr())), src.ptr());
  }

  __device__ __forceinline__ void cp_async_commit(uint32_t line = __builtin_LINE()) const {
    ptx_op::cp_async_commit();
    self().event(trace::event_key(line, uint32_t(trace::Form::Commit)), 0);
    for (uint32_t i = 0; i < pending_; ++i)
      if (group_[i] == kUncommitted) group_[i] = groups_;
    ++groups_;
  }

  // The copies of all but the newest N groups have landed: their writes, in issue order.
  template <int N>
  __device__ __forceinline__ void cp_async_wait(uint32_t line = __builtin_LINE()) const {
    ptx_op::cp_async_wait<N>();
    uint32_t kept = 0;
    for (uint32_t i = 0; i < pending_; ++i) {
      if (group_[i] != kUncommitted && group_[i] + N < groups_) {
        self().access(key_[i], off_[i]);
      } else {
        key_[kept] = key_[i];
        off_[kept] = off_[i];
        group_[kept] = group_[i];
        ++kept;
      }
    }
    pending_ = kept;
    self().event(trace::event_key(line, uint32_t(trace::Form::Wait)), uint32_t(N));
  }

 private:
  static constexpr uint32_t kQueue = trace::kCopiesInFlight;  // copies a lane may have in flight and tracked
  static constexpr uint32_t kUncommitted = 0xffffffffu;
  __device__ __forceinline__ const Self& self() const { return *static_cast<const Self*>(this); }
  static __device__ __forceinline__ uint32_t lane() {
    uint32_t l;
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
  }
  mutable uint32_t pending_ = 0, groups_ = 0;
  mutable uint32_t key_[kQueue], off_[kQueue], group_[kQueue];
};

}  // namespace instr

}  // namespace ws::gpu
