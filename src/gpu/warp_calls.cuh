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
#include "trace/tma.h"
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

// The calling thread's lane in its warp.
__device__ __forceinline__ uint32_t lane() {
  uint32_t l;
  asm("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
}

// Hopper's mbarriers and TMA (sm_90 and up; an older target traps).
__device__ __forceinline__ void mbarrier_init(void* bar, uint32_t count) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");  // seen by the TMA unit too
#else
  __trap();
#endif
}
__device__ __forceinline__ void mbarrier_arrive_expect_tx(void* bar, uint32_t bytes) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes) : "memory");
#else
  __trap();
#endif
}
__device__ __forceinline__ void mbarrier_arrive(void* bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
#else
  __trap();
#endif
}
// Until the phase of that parity has completed (labels in braces are local to the block).
__device__ __forceinline__ void mbarrier_wait(void* bar, uint32_t parity) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
#else
  __trap();
#endif
}
// The box at (x, y) of the map (in global memory) into dst, its bytes counted on bar.
__device__ __forceinline__ void tma_load_2d(void* dst, const void* map, int x, int y, void* bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          smem(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem(bar))
      : "memory");
#else
  __trap();
#endif
}
// The same, landing in the same place of each CTA of the cluster in `mask` (bit r: rank r),
// its bytes counted on each one's mbarrier at bar's place.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const void* map, int x, int y, void* bar,
                                                      uint16_t mask) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem(bar)), "h"(mask)
      : "memory");
#else
  __trap();
#endif
}
// Thread block clusters: this block's rank; the cluster barrier (release, then acquire: the
// mbarriers initialized before it are seen by the other CTAs after it); an arrival on the
// mbarrier at bar's place in CTA `rank` (its default, CTA-scope release: what it publishes
// is that this warp's reads of a stage are done, which needs no fence at cluster scope).
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
  return r;
}
__device__ __forceinline__ void cluster_sync() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
  __trap();
#endif
}
__device__ __forceinline__ void mbarrier_arrive_cluster(void* bar, uint32_t rank) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n\t.reg .b32 remote;\n\tmapa.shared::cluster.u32 remote, %0, %1;\n\t"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t}" ::"r"(smem(bar)),
      "r"(rank)
      : "memory");
#else
  __trap();
#endif
}

// The box in shared memory at src to (x, y) of the map's array; a bulk group's commit, and
// the wait until all but the newest N groups have read their shared memory.
__device__ __forceinline__ void tma_store_2d(const void* map, int x, int y, const void* src) {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map), "r"(x),
               "r"(y), "r"(smem(src))
               : "memory");
#else
  __trap();
#endif
}
__device__ __forceinline__ void bulk_commit() {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
#endif
}
// The block's writes to shared memory, made visible to the TMA (the async proxy).
__device__ __forceinline__ void fence_proxy_async() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// Hopper's warpgroup product (sm_90a; another target traps). The descriptor of a tile as a
// TMA box lands it under the 128-byte swizzle (trace/tma.h).
__device__ __forceinline__ uint64_t wgmma_desc(const void* tile) { return trace::wgmma_sw128_desc(smem(tile)); }
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WS_WGMMA(...) asm volatile(__VA_ARGS__)
#else
#define WS_WGMMA(...) __trap()
#endif
__device__ __forceinline__ void wgmma_fence() { WS_WGMMA("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { WS_WGMMA("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  WS_WGMMA("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// setmaxnreg (sm_90a): the warpgroup's registers a thread from here on, fewer or more.
template <bool INC, int N>
__device__ __forceinline__ void setmaxnreg() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg takes 24 to 256 registers, a multiple of 8");
  if constexpr (INC)
    WS_WGMMA("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
  else
    WS_WGMMA("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}
// The accumulators as the asynchronous product sees them: no read or write of them moves
// across a fence, commit or wait.
template <int R>
__device__ __forceinline__ void wgmma_hold(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// The accumulators as asm operands, 8 and 64 at a time.
#define WS_ACC8(i) \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define WS_ACC64(i) \
  WS_ACC8(i), WS_ACC8(i + 8), WS_ACC8(i + 16), WS_ACC8(i + 24), WS_ACC8(i + 32), WS_ACC8(i + 40), WS_ACC8(i + 48), WS_ACC8(i + 56)
// d (64 x N f32 over the warpgroup, N/2 a thread) += A (64 x 16) · B (16 x N), both from
// shared memory through their descriptors, K-major, f16 in, scale-d 1.
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t da, uint64_t db) {
  WS_WGMMA("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
           "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
           "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
           "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
           "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
           "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
           "}, %64, %65, p, 1, 1, 0, 0;\n}\n"
           : WS_ACC64(0)
           : "l"(da), "l"(db), "r"(1));
}
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t da, uint64_t db) {
  WS_WGMMA("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
           "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
           "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
           "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
           "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
           "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
           "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
           "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
           "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
           "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
           "}, %128, %129, p, 1, 1, 0, 0;\n}\n"
           : WS_ACC64(0), WS_ACC64(64)
           : "l"(da), "l"(db), "r"(1));
}

// The contract's TMA calls in the plain context: the instructions alone, lane 0 acting for
// the warp where the call is warp-wide (the elements are the shared objects themselves).
struct PlainTma {
  template <class B>
  __device__ __forceinline__ void mbarrier_init(const B& bar, uint32_t count) const {
    if (ptx_op::lane() == 0) ptx_op::mbarrier_init(const_cast<B*>(&bar), count);
  }
  template <class B>
  __device__ __forceinline__ void mbarrier_arrive_expect_tx(const B& bar, uint32_t bytes) const {
    if (ptx_op::lane() == 0) ptx_op::mbarrier_arrive_expect_tx(const_cast<B*>(&bar), bytes);
  }
  template <class B>
  __device__ __forceinline__ void mbarrier_arrive(const B& bar) const {
    if (ptx_op::lane() == 0) ptx_op::mbarrier_arrive(const_cast<B*>(&bar));
  }
  template <class B>
  __device__ __forceinline__ void mbarrier_wait(const B& bar, uint32_t parity) const {
    ptx_op::mbarrier_wait(const_cast<B*>(&bar), parity);
  }
  template <class D, class M, class B>  // M: contract.h's Tma2D
  __device__ __forceinline__ void tma_load(const D& dst, const M& m, int x, int y, const B& bar) const {
    if (ptx_op::lane() == 0) ptx_op::tma_load_2d(const_cast<D*>(&dst), m.map, x, y, const_cast<B*>(&bar));
  }
  template <class D, class M, class B>
  __device__ __forceinline__ void tma_load_multicast(const D& dst, const M& m, int x, int y, const B& bar,
                                                     uint16_t mask) const {
    if (ptx_op::lane() == 0)
      ptx_op::tma_load_2d_multicast(const_cast<D*>(&dst), m.map, x, y, const_cast<B*>(&bar), mask);
  }
  __device__ __forceinline__ uint32_t cluster_rank() const { return ptx_op::cluster_rank(); }
  __device__ __forceinline__ void cluster_sync() const { ptx_op::cluster_sync(); }
  template <class B>
  __device__ __forceinline__ void mbarrier_arrive_cluster(const B& bar, uint32_t rank) const {
    if (ptx_op::lane() == 0) ptx_op::mbarrier_arrive_cluster(const_cast<B*>(&bar), rank);
  }
  template <class M, class S>
  __device__ __forceinline__ void tma_store(const M& m, int x, int y, const S& src) const {
    if (ptx_op::lane() == 0) ptx_op::tma_store_2d(m.map, x, y, &src);
  }
  __device__ __forceinline__ void tma_store_commit(uint32_t = 0) const { ptx_op::bulk_commit(); }
  template <int N>
  __device__ __forceinline__ void tma_store_wait(uint32_t = 0) const {
    ptx_op::bulk_wait_read<N>();
  }
  __device__ __forceinline__ void fence_proxy_async() const { ptx_op::fence_proxy_async(); }

  // wgmma (contract.h), warpgroup-wide: every thread of the four warps calls.
  template <class T>
  __device__ __forceinline__ uint64_t wgmma_desc(const T& tile) const {
    return ptx_op::wgmma_desc(&tile);
  }
  template <int R>
  __device__ __forceinline__ void wgmma_fence(float (&d)[R]) const {
    ptx_op::wgmma_hold(d);
    ptx_op::wgmma_fence();
  }
  template <int R>
  __device__ __forceinline__ void wgmma(float (&d)[R], uint64_t da, uint64_t db) const {
    static_assert(R == 64 || R == 128, "wgmma m64n128k16 (64 accumulators a thread) or m64n256k16 (128)");
    if constexpr (R == 64)
      ptx_op::wgmma_m64n128k16(d, da, db);
    else
      ptx_op::wgmma_m64n256k16(d, da, db);
  }
  __device__ __forceinline__ void wgmma_commit() const { ptx_op::wgmma_commit(); }
  template <int N, int R>
  __device__ __forceinline__ void wgmma_wait(float (&d)[R]) const {
    ptx_op::wgmma_wait<N>();
    ptx_op::wgmma_hold(d);
  }
  template <int N>
  __device__ __forceinline__ void setmaxnreg_dec() const {
    ptx_op::setmaxnreg<false, N>();
  }
  template <int N>
  __device__ __forceinline__ void setmaxnreg_inc() const {
    ptx_op::setmaxnreg<true, N>();
  }
};

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

  // TMA (contract.h): lane 0 acts; each lane records its pieces of a box, the reads at issue
  // and the writes at its next mbarrier wait (trace/tma.h).
  // (The instructions as the plain context issues them, on the element the view names.)
  template <class B>
  __device__ __forceinline__ void mbarrier_init(const B& bar, uint32_t count) const {
    ptx_op::PlainTma{}.mbarrier_init(*bar.ptr(), count);
  }
  template <class B>
  __device__ __forceinline__ void mbarrier_arrive_expect_tx(const B& bar, uint32_t bytes) const {
    ptx_op::PlainTma{}.mbarrier_arrive_expect_tx(*bar.ptr(), bytes);
  }
  template <class B>
  __device__ __forceinline__ void mbarrier_arrive(const B& bar) const {
    ptx_op::PlainTma{}.mbarrier_arrive(*bar.ptr());
  }
  template <class B>
  __device__ __forceinline__ void mbarrier_wait(const B& bar, uint32_t parity) const {
    record_boxes();  // as the lane comes to the wait: in its log, the same place as at the return
    ptx_op::PlainTma{}.mbarrier_wait(*bar.ptr(), parity);
  }
  // (`M`: contract.h's Tma2D, which this header does not include: its __syncthreads would
  // reach the raw kernels that include it.)
  template <class D, class M, class B>
  __device__ __forceinline__ void tma_load(const D& dst, const M& m, int x, int y, const B& bar,
                                           uint32_t line = __builtin_LINE()) const {
    const trace::TmaBox2D box = box_of(m, x, y);
    if (ptx_op::smem(dst.ptr()) % (m.swizzle ? 1024u : 128u)) {
      printf("warpscope: TMA load at kernel line %u: a shared destination not aligned to %u bytes\n", line,
             m.swizzle ? 1024u : 128u);
      __trap();
    }
    const uint32_t dk = dst.key();
    if (dk != trace::kNoKey) {
      const uint32_t read = trace::with_form(trace::make_key(line, m.array.id, uint32_t(trace::Op::Load), 16),
                                             uint32_t(trace::Form::BulkRead));
      for (uint32_t p = lane(); p < box.pieces(); p += 32) self().access(read, uint32_t(box.global_offset(p)));
      if (boxes_ < kBoxes) {
        Box& b = box_[boxes_++];
        b.key = trace::with_form(trace::make_key(line, trace::key_buffer(dk), uint32_t(trace::Op::Store), 16),
                                 uint32_t(trace::Form::BulkWrite));
        b.off = dst.offset();
        b.box = box;
      } else {
        self().lost_write();
      }
    }
    ptx_op::PlainTma{}.tma_load(*dst.ptr(), m, x, y, *bar.ptr());
  }

  // A TMA store: each lane records its pieces' shared reads now and their global writes at
  // the bulk wait that covers its group.
  template <class M, class S>
  __device__ __forceinline__ void tma_store(const M& m, int x, int y, const S& src, uint32_t line = __builtin_LINE()) const {
    const trace::TmaBox2D box = box_of(m, x, y);
    const uint32_t sk = src.key();
    if (sk != trace::kNoKey) {
      const uint32_t read = trace::with_form(trace::make_key(line, trace::key_buffer(sk), uint32_t(trace::Op::Load), 16),
                                             uint32_t(trace::Form::BulkRead));
      for (uint32_t p = lane(); p < box.pieces(); p += 32) self().access(read, src.offset() + box.shared_offset(p));
      if (stores_ < kBoxes) {
        Store& st = store_[stores_++];
        st.key = trace::with_form(trace::make_key(line, m.array.id, uint32_t(trace::Op::Store), 16),
                                  uint32_t(trace::Form::BulkWrite));
        st.group = kUncommitted;
        st.box = box;
      } else {
        self().lost_write();
      }
    }
    ptx_op::PlainTma{}.tma_store(m, x, y, *src.ptr());
  }
  __device__ __forceinline__ void tma_store_commit(uint32_t line = __builtin_LINE()) const {
    ptx_op::bulk_commit();
    self().event(trace::event_key(line, uint32_t(trace::Form::Commit)), 0);
    for (uint32_t i = 0; i < stores_; ++i)
      if (store_[i].group == kUncommitted) store_[i].group = bulk_groups_;
    ++bulk_groups_;
  }
  template <int N>
  __device__ __forceinline__ void tma_store_wait(uint32_t line = __builtin_LINE()) const {
    ptx_op::bulk_wait_read<N>();
    uint32_t kept = 0;
    for (uint32_t i = 0; i < stores_; ++i) {
      if (store_[i].group != kUncommitted && store_[i].group + N < bulk_groups_) {
        for (uint32_t p = lane(); p < store_[i].box.pieces(); p += 32)
          self().access(store_[i].key, uint32_t(store_[i].box.global_offset(p)));
      } else {
        store_[kept++] = store_[i];
      }
    }
    stores_ = kept;
    self().event(trace::event_key(line, uint32_t(trace::Form::Wait)), uint32_t(N));
  }
  __device__ __forceinline__ void fence_proxy_async() const { ptx_op::fence_proxy_async(); }

  // wgmma: the product as an event (its N in the argument), its commit and wait as events.
  template <class V>
  __device__ __forceinline__ uint64_t wgmma_desc(const V& tile) const {
    return ptx_op::wgmma_desc(tile.ptr());
  }
  template <int R>
  __device__ __forceinline__ void wgmma_fence(float (&d)[R]) const {
    self().converge();
    ptx_op::PlainTma{}.wgmma_fence(d);
  }
  template <int R>
  __device__ __forceinline__ void wgmma(float (&d)[R], uint64_t da, uint64_t db, uint32_t line = __builtin_LINE()) const {
    self().converge();
    self().event(trace::event_key(line, uint32_t(trace::Form::Mma)), uint32_t(2 * R));
    ptx_op::PlainTma{}.wgmma(d, da, db);
  }
  __device__ __forceinline__ void wgmma_commit(uint32_t line = __builtin_LINE()) const {
    self().converge();
    self().event(trace::event_key(line, uint32_t(trace::Form::Commit)), 0);
    ptx_op::wgmma_commit();
  }
  template <int N, int R>
  __device__ __forceinline__ void wgmma_wait(float (&d)[R], uint32_t line = __builtin_LINE()) const {
    self().converge();
    ptx_op::PlainTma{}.template wgmma_wait<N>(d);
    self().event(trace::event_key(line, uint32_t(trace::Form::Wait)), uint32_t(N));
  }
  template <int N>
  __device__ __forceinline__ void setmaxnreg_dec(uint32_t line = __builtin_LINE()) const {
    self().converge();
    ptx_op::setmaxnreg<false, N>();
    self().event(trace::event_key(line, uint32_t(trace::Form::Registers)), uint32_t(N));
  }
  template <int N>
  __device__ __forceinline__ void setmaxnreg_inc(uint32_t line = __builtin_LINE()) const {
    self().converge();
    ptx_op::setmaxnreg<true, N>();
    self().event(trace::event_key(line, uint32_t(trace::Form::Registers)), uint32_t(N));
  }
  // The writes of the boxes this lane asked for, recorded at its next mbarrier wait
  // and, for the last ones of a producer, at its end.
  __device__ __forceinline__ void record_boxes() const {
    for (uint32_t i = 0; i < boxes_; ++i)
      for (uint32_t p = lane(); p < box_[i].box.pieces(); p += 32) self().access(box_[i].key, box_[i].off + box_[i].box.shared_offset(p));
    boxes_ = 0;
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
  static __device__ __forceinline__ uint32_t lane() { return ptx_op::lane(); }
  // The box at (x, y) of a map (contract.h's Tma2D), as trace/tma.h cuts it into pieces.
  template <class M>
  static __device__ __forceinline__ trace::TmaBox2D box_of(const M& m, int x, int y) {
    return trace::TmaBox2D{uint32_t(sizeof(*m.array.ptr)), uint32_t(m.cols), uint32_t(m.box_rows),
                           uint32_t(m.box_cols), uint32_t(m.swizzle), x, y};
  }
  mutable uint32_t pending_ = 0, groups_ = 0;
  mutable uint32_t key_[kQueue], off_[kQueue], group_[kQueue];
  // TMA boxes whose writes the lane records at its next mbarrier wait.
  struct Box {
    uint32_t key, off;
    trace::TmaBox2D box;
  };
  static constexpr uint32_t kBoxes = 4;
  mutable uint32_t boxes_ = 0;
  mutable Box box_[kBoxes];
  // TMA stores whose global writes the lane records at the bulk wait that covers them.
  struct Store {
    uint32_t key, group;
    trace::TmaBox2D box;
  };
  mutable uint32_t stores_ = 0, bulk_groups_ = 0;
  mutable Store store_[kBoxes];
};

}  // namespace instr

}  // namespace ws::gpu
