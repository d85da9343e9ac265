// src/emu/context.h — the CPU execution context of a kernel. Array accesses go through
// the access layer's wrappers (trace/access.h), which perform the access on host memory;
// their sink appends (site key, byte offset) to the running thread's log, and the machine
// turns the 32 logs of a warp into warp-level records at each barrier. The warp-wide calls
// (ldmatrix, mma) meet the warp's other lanes at a rendezvous of the machine; a lane's
// cp.async copies wait in its own queue until a cp_async_wait lands them.
#pragma once
#include <cstdint>

#include "contract.h"
#include "trace/access.h"

namespace ws::emu {

// The running thread's access log: (key << 32 | offset) per lane-level access.
struct LaneLog {
  uint64_t* data = nullptr;
  uint64_t* end = nullptr;
  uint64_t* cap = nullptr;
  void grow();
  __attribute__((always_inline)) void push(uint32_t key, uint32_t off) {
    if (end == cap) grow();
    *end++ = (uint64_t(key) << 32) | off;
  }
};

extern constinit thread_local LaneLog* current_log;

[[noreturn]] void out_of_bounds(uint32_t line, uint32_t buffer, int64_t offset, uint64_t size);
void barrier();
// Storage of the calling block's next static shared array; registers it on first use.
struct SharedSlot {
  char* ptr;
  uint32_t buffer;
  uint64_t size;
};
SharedSlot shared_slot(const char* name, uint64_t bytes, uint32_t elem_bytes, uint64_t rows,
                       uint64_t cols);
SharedSlot dynamic_shared_slot(const char* name, uint32_t elem_bytes);

// ldmatrix of `matrices` 8x8 b16 matrices: this lane's row at `row` (site key and offset
// of the element indexed); fills r[0..matrices) once the warp has met.
void ldmatrix(uint32_t* r, uint32_t matrices, bool trans, const void* row, uint32_t key, uint32_t off);
// mma.sync m16n8k16 .row.col f32.f16.f16.f32: d += A·B over the warp's fragments.
void mma_m16n8k16(float* d, const uint32_t* a, const uint32_t* b, uint32_t line);
// cp.async of `bytes` (4 or 16) from a global element to a shared one: the read is
// recorded now, the write when a wait lands it.
void cp_async(void* dst, uint32_t dst_key, uint32_t dst_off, const void* src, uint32_t src_key, uint32_t src_off,
              uint32_t bytes);
// cp.async.commit_group: the lane's copies issued since its last commit become a group.
void cp_async_commit(uint32_t line);
// cp.async.wait_group n: the lane's copies of all but its newest n groups land.
void cp_async_wait(uint32_t n, uint32_t line);

// Hopper's TMA and mbarriers (contract.h): an mbarrier is the 8 bytes of a shared uint64_t
// at `bar` (its array's site key and byte offset); warp-wide calls act in lane 0 of the
// warp, and each lane copies and records its share of a box (trace/tma.h).
struct TmaArgs {
  const char* array = nullptr;  // the global array's first element
  uint32_t buffer = 0;          // its buffer id
  uint32_t elem = 4;
  int rows = 0, cols = 0, box_rows = 0, box_cols = 0, swizzle = 0;
};
void mbarrier_init(void* bar, uint32_t key, uint32_t off, uint32_t count);
void mbarrier_arrive_expect_tx(void* bar, uint32_t key, uint32_t off, uint32_t bytes);  // bytes 0: a plain arrival
void mbarrier_wait(void* bar, uint32_t key, uint32_t off, uint32_t parity);
void tma_load(void* dst, uint32_t dst_key, uint32_t dst_off, const TmaArgs& map, int x, int y, void* bar,
              uint32_t bar_key, uint32_t bar_off, uint32_t line);
void tma_store(const TmaArgs& map, int x, int y, const void* src, uint32_t src_key, uint32_t src_off, uint32_t line);
// Thread block clusters (contract.h): the CTAs of a cluster run together. The block's rank in
// its cluster; the cluster barrier (every thread of every CTA); a TMA load landing in the same
// tile and mbarrier of each CTA of `mask`; an arrival on the mbarrier at the same place in
// CTA `rank`'s shared memory.
uint32_t cluster_rank();
void cluster_sync();
void tma_load_multicast(void* dst, uint32_t dst_key, uint32_t dst_off, const TmaArgs& map, int x, int y, void* bar,
                        uint32_t bar_key, uint32_t bar_off, uint32_t mask, uint32_t line);
void mbarrier_arrive_cluster(void* bar, uint32_t key, uint32_t off, uint32_t rank);
void tma_store_commit(uint32_t line);
void tma_store_wait(uint32_t n, uint32_t line);

// wgmma (contract.h): the descriptor of a K-major tile under the 128-byte swizzle that
// starts at `tile` (its site key and byte offset); the product, warpgroup-wide, met warp by
// warp (a warp's 16 rows of D need only its rows of A and all of B, both in shared memory
// by then), recorded as an event with N as its argument; commit and wait as events (the
// product is done when its call returns, one of the orders the asynchronous one allows).
uint64_t wgmma_desc(const void* tile, uint32_t key, uint32_t off);
void wgmma(float* d, uint32_t n, uint64_t da, uint64_t db, uint32_t line);
void wgmma_commit(uint32_t line);
void wgmma_wait(uint32_t n, uint32_t line);
// setmaxnreg (contract.h), warpgroup-wide: an event of the warp with the new count (24 to
// 256, a multiple of 8); the CPU has no register file to move.
void setmaxnreg(uint32_t n, uint32_t line);

// Where the wrappers send a lane's access: the running thread's log. An out-of-bounds
// access throws, so the wrappers never see a refused one.
struct LogSink {
  WS_INLINE_HD void load(uint32_t key, uint32_t off) const { current_log->push(key, off); }
  WS_INLINE_HD bool store(uint32_t key, uint32_t off) const {
    current_log->push(trace::store_key(key), off);
    return true;
  }
  [[noreturn]] void fault(uint32_t line, uint32_t buffer, int64_t off, uint64_t size) const {
    out_of_bounds(line, buffer, off, size);
  }
};

template <class T>
using Ptr = trace::Ptr<LogSink, T>;

// Buffer sizes of the running launch, indexed by buffer id (set by the machine).
extern constinit thread_local const uint64_t* buffer_sizes;

struct Ctx {
  template <class T>
  Ptr<T> global(Buf<T> b) const {
    return Ptr<T>(b.ptr, reinterpret_cast<const char*>(b.ptr), buffer_sizes[b.id], b.id, LogSink{});
  }
  template <class A>
  typename trace::SharedView<LogSink, A>::type shared(const char* name) const {
    using SV = trace::SharedView<LogSink, A>;
    SharedSlot s = shared_slot(name, SV::bytes, sizeof(typename SV::elem), SV::rows, SV::cols);
    return SV::make(reinterpret_cast<typename SV::elem*>(s.ptr), s.buffer, LogSink{});
  }
  template <class T>
  Ptr<T> dynamic_shared(const char* name) const {
    SharedSlot s = dynamic_shared_slot(name, sizeof(T));
    return Ptr<T>(reinterpret_cast<T*>(s.ptr), s.ptr, s.size, s.buffer, LogSink{});
  }
  void barrier() const { emu::barrier(); }

  template <class R>
  void ldmatrix_x4(uint32_t (&r)[4], const R& row) const {
    emu::ldmatrix(r, 4, false, row.ptr(), row.key(), row.offset());
  }
  template <class R>
  void ldmatrix_x2(uint32_t (&r)[2], const R& row) const {
    emu::ldmatrix(r, 2, false, row.ptr(), row.key(), row.offset());
  }
  template <class R>
  void ldmatrix_x1(uint32_t (&r)[1], const R& row) const {
    emu::ldmatrix(r, 1, false, row.ptr(), row.key(), row.offset());
  }
  template <class R>
  void ldmatrix_x4_trans(uint32_t (&r)[4], const R& row) const {
    emu::ldmatrix(r, 4, true, row.ptr(), row.key(), row.offset());
  }
  template <class R>
  void ldmatrix_x2_trans(uint32_t (&r)[2], const R& row) const {
    emu::ldmatrix(r, 2, true, row.ptr(), row.key(), row.offset());
  }
  template <class R>
  void ldmatrix_x1_trans(uint32_t (&r)[1], const R& row) const {
    emu::ldmatrix(r, 1, true, row.ptr(), row.key(), row.offset());
  }
  void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                    uint32_t line = __builtin_LINE()) const {
    emu::mma_m16n8k16(d, a, b, line);
  }
  template <class D, class S>
  void cp_async16(const D& dst, const S& src) const {
    emu::cp_async(dst.ptr(), dst.key(), dst.offset(), src.ptr(), src.key(), src.offset(), 16);
  }
  template <class D, class S>
  void cp_async4(const D& dst, const S& src) const {
    emu::cp_async(dst.ptr(), dst.key(), dst.offset(), src.ptr(), src.key(), src.offset(), 4);
  }
  void cp_async_commit(uint32_t line = __builtin_LINE()) const { emu::cp_async_commit(line); }
  template <int N>
  void cp_async_wait(uint32_t line = __builtin_LINE()) const {
    static_assert(N >= 0 && N <= 7, "cp.async.wait_group takes 0..7");
    emu::cp_async_wait(uint32_t(N), line);
  }

  template <class B>
  void mbarrier_init(const B& bar, uint32_t count) const {
    emu::mbarrier_init(bar.ptr(), bar.key(), bar.offset(), count);
  }
  template <class B>
  void mbarrier_arrive_expect_tx(const B& bar, uint32_t bytes) const {
    emu::mbarrier_arrive_expect_tx(bar.ptr(), bar.key(), bar.offset(), bytes);
  }
  template <class B>
  void mbarrier_arrive(const B& bar) const {
    emu::mbarrier_arrive_expect_tx(bar.ptr(), bar.key(), bar.offset(), 0);
  }
  template <class B>
  void mbarrier_wait(const B& bar, uint32_t parity) const {
    emu::mbarrier_wait(bar.ptr(), bar.key(), bar.offset(), parity);
  }
  template <class D, class T, class B>
  void tma_load(const D& dst, const Tma2D<T>& m, int x, int y, const B& bar, uint32_t line = __builtin_LINE()) const {
    emu::tma_load(dst.ptr(), dst.key(), dst.offset(), tma_args(m), x, y, bar.ptr(), bar.key(), bar.offset(), line);
  }
  template <class D, class T, class B>
  void tma_load_multicast(const D& dst, const Tma2D<T>& m, int x, int y, const B& bar, uint16_t mask,
                          uint32_t line = __builtin_LINE()) const {
    emu::tma_load_multicast(dst.ptr(), dst.key(), dst.offset(), tma_args(m), x, y, bar.ptr(), bar.key(), bar.offset(),
                            mask, line);
  }
  uint32_t cluster_rank() const { return emu::cluster_rank(); }
  void cluster_sync() const { emu::cluster_sync(); }
  template <class B>
  void mbarrier_arrive_cluster(const B& bar, uint32_t rank) const {
    emu::mbarrier_arrive_cluster(bar.ptr(), bar.key(), bar.offset(), rank);
  }
  template <class T, class S>
  void tma_store(const Tma2D<T>& m, int x, int y, const S& src, uint32_t line = __builtin_LINE()) const {
    emu::tma_store(tma_args(m), x, y, src.ptr(), src.key(), src.offset(), line);
  }
  void tma_store_commit(uint32_t line = __builtin_LINE()) const { emu::tma_store_commit(line); }
  template <int N>
  void tma_store_wait(uint32_t line = __builtin_LINE()) const {
    emu::tma_store_wait(uint32_t(N), line);
  }
  void fence_proxy_async() const {}  // one memory on the CPU: the TMA sees every write at once

  template <class V>
  uint64_t wgmma_desc(const V& tile) const {
    return emu::wgmma_desc(tile.ptr(), tile.key(), tile.offset());
  }
  template <int R>
  void wgmma_fence(float (&)[R]) const {}
  template <int R>
  void wgmma(float (&d)[R], uint64_t da, uint64_t db, uint32_t line = __builtin_LINE()) const {
    static_assert(R == 64 || R == 128, "wgmma m64n128k16 (64 accumulators a thread) or m64n256k16 (128)");
    emu::wgmma(d, uint32_t(2 * R), da, db, line);
  }
  void wgmma_commit(uint32_t line = __builtin_LINE()) const { emu::wgmma_commit(line); }
  template <int N>
  void setmaxnreg_dec(uint32_t line = __builtin_LINE()) const {
    emu::setmaxnreg(uint32_t(N), line);
  }
  template <int N>
  void setmaxnreg_inc(uint32_t line = __builtin_LINE()) const {
    emu::setmaxnreg(uint32_t(N), line);
  }
  template <int N, int R>
  void wgmma_wait(float (&)[R], uint32_t line = __builtin_LINE()) const {
    emu::wgmma_wait(uint32_t(N), line);
  }

 private:
  template <class T>
  static TmaArgs tma_args(const Tma2D<T>& m) {
    return TmaArgs{reinterpret_cast<const char*>(m.array.ptr), m.array.id, uint32_t(sizeof(T)), m.rows, m.cols,
                   m.box_rows, m.box_cols, m.swizzle};
  }
};

}  // namespace ws::emu
