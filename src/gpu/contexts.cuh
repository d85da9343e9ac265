// src/gpu/contexts.cuh — the three GPU instantiations of a kernel body.
//
//   PlainCtx    global() is the raw pointer, shared() the array itself, barrier() the
//               hardware barrier: the kernel compiles to what a hand-written one does.
//   RecordCtx   every thread of a selected warp logs its accesses (one store each);
//               merge_logs (record.cu) replays the logs into the emulator's records,
//               field for field. Other blocks run the plain code, beside or inside.
//   CountsCtx   every request of every warp adds its cost to the warp's sums in shared
//               memory, moved to the block's tables and to global memory at barriers and
//               at block exit, so a whole 4096² launch is analysed without storing one
//               address.
//
// The instrumented contexts keep their launch-wide state in __constant__ memory (one copy
// per translation unit, set by the host before each launch) so that kernel parameters
// stay exactly the kernel's own.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "contract.h"
#include "gpu/device_abi.h"
#include "gpu/warp_calls.cuh"
#include "trace/access.h"

namespace ws::gpu {

#define WS_DEV __device__ __forceinline__

// The one entry point of every kernel in every mode: a context per thread, the body, and
// the context's epilogue (kernel_body, at the end of this file). A context that records
// only some blocks (RecordCtx) leaves the others to a plain launch beside it, so a
// filtered capture costs little more than a plain run.
template <class Op, class Ctx, class Args>
__device__ __forceinline__ void kernel_body(const Args& args);

template <class Op, class Ctx, class Args>
__global__ void device_kernel(const Args args) {
  kernel_body<Op, Ctx>(args);
}

// The same entry capped at 64 registers a thread, so that instrumented kernels, whose
// out-of-line calls cost registers, still launch with 1024-thread blocks. The launchers
// take it only when the block does not fit the uncapped one.
template <class Op, class Ctx, class Args>
__global__ void __launch_bounds__(1024) device_kernel_1024(const Args args) {
  kernel_body<Op, Ctx>(args);
}

// ---- plain ------------------------------------------------------------------------------

struct PlainCtx : ptx_op::PlainTma {
  template <class T>
  WS_DEV T* global(Buf<T> b) const {
    return b.ptr;
  }
  template <class A>
  WS_DEV A& shared(A& storage, const char*) const {
    return storage;
  }
  template <class T>
  WS_DEV T* dynamic_shared(T* p, const char*) const {
    return p;
  }
  // Parenthesised: contract.h turns `__syncthreads()` in kernel bodies into ctx.barrier().
  WS_DEV void barrier() const { (__syncthreads)(); }
  WS_DEV void finish() const {}

  // The warp-wide calls and async copies: the instructions alone (`row`, `dst`, `src` are
  // the elements themselves here, so their addresses are the hand-written kernel's).
  template <class T>
  WS_DEV void ldmatrix_x4(uint32_t (&r)[4], const T& row) const { ptx_op::ldmatrix<4, false>(r, &row); }
  template <class T>
  WS_DEV void ldmatrix_x2(uint32_t (&r)[2], const T& row) const { ptx_op::ldmatrix<2, false>(r, &row); }
  template <class T>
  WS_DEV void ldmatrix_x1(uint32_t (&r)[1], const T& row) const { ptx_op::ldmatrix<1, false>(r, &row); }
  template <class T>
  WS_DEV void ldmatrix_x4_trans(uint32_t (&r)[4], const T& row) const { ptx_op::ldmatrix<4, true>(r, &row); }
  template <class T>
  WS_DEV void ldmatrix_x2_trans(uint32_t (&r)[2], const T& row) const { ptx_op::ldmatrix<2, true>(r, &row); }
  template <class T>
  WS_DEV void ldmatrix_x1_trans(uint32_t (&r)[1], const T& row) const { ptx_op::ldmatrix<1, true>(r, &row); }
  WS_DEV void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], uint32_t = 0) const {
    ptx_op::mma_m16n8k16(d, a, b);
  }
  template <class D, class S>
  WS_DEV void cp_async16(const D& dst, const S& src) const {
    ptx_op::cp_async<16>(const_cast<D*>(&dst), &src);
  }
  template <class D, class S>
  WS_DEV void cp_async4(const D& dst, const S& src) const {
    ptx_op::cp_async<4>(const_cast<D*>(&dst), &src);
  }
  WS_DEV void cp_async_commit(uint32_t = 0) const { ptx_op::cp_async_commit(); }
  template <int N>
  WS_DEV void cp_async_wait(uint32_t = 0) const {
    ptx_op::cp_async_wait<N>();
  }
};

// The plain entry takes the argument struct's fields as separate parameters, with every
// Buf<T> passed as a bare T*: exactly the parameter list of a hand-written kernel. A
// by-value struct parameter would be just as correct, but nvcc then recomputes loop-
// invariant shared-memory addresses from the thread index inside loops (measured: 9% on
// the 16×16 tiled SGEMM); with scalar parameters the plain instantiation compiles to the
// hand-written kernel's code.
namespace flat {

template <class F>
struct Param {
  using type = F;
  static WS_HD F pass(F f) { return f; }
};
template <class T>
struct Param<Buf<T>> {
  using type = T*;
  static WS_HD T* pass(Buf<T> b) { return b.ptr; }
};
// Back from a parameter to the field (buffer ids do not matter to the plain context).
template <class T>
WS_DEV Buf<T> field(T* p) {
  return Buf<T>{p, 0};
}
template <class F>
WS_DEV F field(F f) {
  return f;
}

// The fields of an argument struct (an aggregate of at most 8 fields) as a tuple of
// references, by structured binding.
struct Any {
  template <class T>
  operator T() const;
};
template <class T, class... A>
constexpr int arity() {
  if constexpr (requires { T{A{}..., Any{}}; })
    return arity<T, A..., Any>();
  else
    return int(sizeof...(A));
}
template <class F, class Args>
void apply(F&& f, const Args& a) {
  constexpr int n = arity<Args>();
  static_assert(n >= 1 && n <= 8, "kernel argument structs have 1 to 8 fields");
  if constexpr (n == 1) {
    const auto& [a0] = a;
    f(a0);
  } else if constexpr (n == 2) {
    const auto& [a0, a1] = a;
    f(a0, a1);
  } else if constexpr (n == 3) {
    const auto& [a0, a1, a2] = a;
    f(a0, a1, a2);
  } else if constexpr (n == 4) {
    const auto& [a0, a1, a2, a3] = a;
    f(a0, a1, a2, a3);
  } else if constexpr (n == 5) {
    const auto& [a0, a1, a2, a3, a4] = a;
    f(a0, a1, a2, a3, a4);
  } else if constexpr (n == 6) {
    const auto& [a0, a1, a2, a3, a4, a5] = a;
    f(a0, a1, a2, a3, a4, a5);
  } else if constexpr (n == 7) {
    const auto& [a0, a1, a2, a3, a4, a5, a6] = a;
    f(a0, a1, a2, a3, a4, a5, a6);
  } else {
    const auto& [a0, a1, a2, a3, a4, a5, a6, a7] = a;
    f(a0, a1, a2, a3, a4, a5, a6, a7);
  }
}

}  // namespace flat

template <class Op, class Args, class... P>
__global__ void device_kernel_plain(P... p) {
  const Args args{flat::field(p)...};
  kernel_body<Op, PlainCtx>(args);
}

// The plain kernel for the blocks that a filtered recording does not record: the blocks
// whose bit is set in `skip` return at once (they run in the record launch beside it).
// A range of blocks (skip_n > 0) is tested without reading memory.
template <class Op, class Args, class... P>
__global__ void device_kernel_skip(const uint32_t* skip, uint32_t skip_lo, uint32_t skip_n, P... p) {
  const uint32_t b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (skip_n ? b - skip_lo < skip_n : ((skip[b >> 5] >> (b & 31)) & 1u)) return;
  const Args args{flat::field(p)...};
  kernel_body<Op, PlainCtx>(args);
}

// ---- what the instrumented contexts share ---------------------------------------------

namespace instr {

// Where the access layer's wrappers (trace/access.h) send a lane's access: the context's
// access(), which logs it (RecordCtx) or makes it part of its warp's request (CountsCtx).
// A refused access (out of bounds, already reported through fault()) reaches access() as
// kEmptyKey, which neither context records.
template <class Ctx>
struct Sink {
  const Ctx* c;
  WS_DEV void load(uint32_t key, uint32_t off) const { c->access(key, off); }
  WS_DEV bool store(uint32_t key, uint32_t off) const {
    c->access(key == abi::kEmptyKey ? key : trace::store_key(key), off);
    return key != abi::kEmptyKey;  // an out-of-bounds store is reported, never made
  }
  static WS_DEV void fault(uint32_t line, uint32_t buffer, int64_t off, uint64_t size) {
    Ctx::fault(line, buffer, off, size);
  }
};

template <class Ctx, class T>
using Ptr = trace::Ptr<Sink<Ctx>, T>;
template <class Ctx, class A>
using SharedView = trace::SharedView<Sink<Ctx>, A>;

WS_DEV uint32_t lanes_below(uint32_t lane) { return (1u << lane) - 1u; }
WS_DEV uint32_t leader_of(unsigned mask) { return uint32_t(__ffs(mask) - 1); }

// What both instrumented contexts share: ids, buffer views, the shared-array table and
// the first out-of-bounds access. `Self` provides info() (the launch's arrays).
template <class Self>
class Common {
 public:
  WS_DEV Common() {
    tid_ = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    block_ = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    warp_ = tid_ / abi::kWarp;
    lane_ = ptx_op::lane();
    writer_ = tid_ == 0 && block_ == 0;
    const uint32_t n = blockDim.x * blockDim.y * blockDim.z, first = warp_ * abi::kWarp;
    all_ = n - first >= abi::kWarp ? 0xffffffffu : (1u << (n - first)) - 1u;
  }

  template <class T>
  WS_DEV Ptr<Self, T> global(Buf<T> b) const {
    const abi::LaunchInfo& li = Self::info();
    uint64_t size = b.id < abi::kMaxGlobals ? li.global_bytes[b.id] : 0;
    return Ptr<Self, T>(b.ptr, reinterpret_cast<const char*>(b.ptr), size, b.id, sink());
  }
  template <class A>
  WS_DEV typename SharedView<Self, A>::type shared(A& storage, const char* name) const {
    using SV = SharedView<Self, A>;
    uint32_t id = next_shared(name, sizeof(typename SV::elem), SV::rows, SV::cols, SV::bytes);
    return SV::make(reinterpret_cast<typename SV::elem*>(&storage), id, sink());
  }
  template <class T>
  WS_DEV Ptr<Self, T> dynamic_shared(T* p, const char* name) const {
    uint32_t bytes = Self::info().dyn_bytes;
    uint32_t id = next_shared(name, sizeof(T), 1, bytes / sizeof(T), bytes);
    return Ptr<Self, T>(p, reinterpret_cast<const char*>(p), bytes, id, sink());
  }

  static WS_DEV void fault(uint32_t line, uint32_t buffer, int64_t off, uint64_t size) {
    abi::Fault* f = Self::info().fault;
    if (atomicCAS(&f->flag, 0u, 1u) == 0u) {
      f->line = line;
      f->buffer = buffer;
      f->offset = off;
      f->size = size;
      f->block[0] = blockIdx.x, f->block[1] = blockIdx.y, f->block[2] = blockIdx.z;
      f->thread[0] = threadIdx.x, f->thread[1] = threadIdx.y, f->thread[2] = threadIdx.z;
      __threadfence();
      atomicExch(&f->flag, 2u);
    }
  }

 protected:
  WS_DEV Sink<Self> sink() const { return Sink<Self>{static_cast<const Self*>(this)}; }

  // Shared arrays get buffer ids in declaration order after the global arrays, as in
  // the emulator; thread 0 of block 0 describes each one for the host.
  WS_DEV uint32_t next_shared(const char* name, uint32_t elem, uint64_t rows, uint64_t cols, uint64_t bytes) const {
    const abi::LaunchInfo& li = Self::info();
    uint32_t d = decls_++;
    if (writer_ && d < abi::kMaxShared) {
      abi::SharedDesc& s = li.shared[d];
      uint32_t i = 0;
      for (; i + 1 < abi::kNameBytes && name[i]; ++i) s.name[i] = name[i];
      s.name[i] = 0;
      s.elem_bytes = elem;
      s.rows = rows;
      s.cols = cols;
      s.size_bytes = bytes;
      s.used = 1;
    }
    return li.n_global + d;
  }

  uint32_t tid_, block_, warp_, lane_;
  unsigned all_;  // the lanes this warp has
  bool writer_;
  mutable uint32_t decls_ = 0;
  mutable uint32_t epoch_ = 0;
};

}  // namespace instr

// ---- record mode ----------------------------------------------------------------------

static __constant__ abi::RecordState g_record_state;
static __shared__ uint32_t g_record_slot;  // the block's log slot

// Lanes do not meet at an access the way the plain kernel's lanes execute one
// instruction: the scheduler may run lanes of different sites together. So the record
// context only logs, thread by thread, and the meeting that groups lanes into records,
// exactly as the emulator does, runs afterwards over the logs (merge_logs in record.cu).
constexpr uint32_t kDone = 0xfffffffeu;  // a lane at a barrier or at the end of the kernel

class RecordCtx : public instr::Common<RecordCtx>, public instr::WarpCalls<RecordCtx> {
 public:
  static WS_DEV const abi::LaunchInfo& info() { return g_record_state.info; }

  // Whether this block records at all (the same answer for the whole block).
  static WS_DEV bool block_selected() {
    const abi::RecordState& st = g_record_state;
    const uint32_t b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    if (st.block_n) return b - st.block_lo < st.block_n;  // a range: no memory read
    return !st.block_bits || ((st.block_bits[b >> 5] >> (b & 31)) & 1u);
  }

  WS_DEV RecordCtx() {
    const abi::RecordState& st = g_record_state;
    if (tid_ == 0) {
      const uint32_t s = atomicAdd(st.log_cursor, 1u);
      g_record_slot = s;
      if (s < st.log_blocks) st.log_block[s] = block_;
    }
    (__syncthreads)();
    slot_ = g_record_slot;
    threads_ = blockDim.x * blockDim.y * blockDim.z;
    on_ = (st.warp_bits >> (warp_ & 31)) & 1u;
    // The first block to record describes the shared arrays (it may not be block 0).
    writer_ = tid_ == 0 && slot_ == 0;
    cap_ = slot_ < st.log_blocks ? st.log_cap : 0u;
    log_ = cap_ ? st.log + (uint64_t(slot_) * cap_) * threads_ + tid_ : nullptr;
  }

  WS_DEV void barrier() const {
    if (on_) append(abi::kBarrierKey, 0);
    (__syncthreads)();
    ++epoch_;
  }
  // The thread's log length and barrier count, for the merge; a block without a log slot
  // (more blocks than the logs hold) reports its accesses as dropped.
  WS_DEV void finish() const {
    record_boxes();
    if (!on_) return;
    const abi::RecordState& st = g_record_state;
    if (slot_ < st.log_blocks) {
      uint32_t* c = &st.log_count[2 * (uint64_t(slot_) * threads_ + tid_)];
      c[0] = n_;
      c[1] = epoch_;
      if (n_ > cap_) atomicMax(st.log_max, n_);
    } else if (n_ > epoch_) {
      atomicAdd(st.dropped_lanes, (unsigned long long)(n_ - epoch_));
    }
  }

  WS_DEV void access(uint32_t key, uint32_t off) const {
    if (on_ && key != abi::kEmptyKey) append(key, off);
  }
  // What WarpCalls needs: events are log entries like accesses (merge_logs numbers them
  // alike; the host turns them into Trace::events); the log itself never diverges.
  WS_DEV void event(uint32_t key, uint32_t arg) const {
    if (on_) append(key, arg);
  }
  WS_DEV void converge() const { __syncwarp(all_); }
  // The lane is in the log at the instruction, so that merge_logs groups its lanes as one.
  WS_DEV void rowless(uint32_t key) const {
    if (on_) append(key, trace::kNoRow);
  }
  WS_DEV void lost_write() const {
    if (on_) atomicAdd(g_record_state.dropped_lanes, 1ull);
  }

 private:
  // A store the compiler does not see as touching memory (no "memory" clobber): the
  // kernel's own loads may still be scheduled across it as in the plain kernel, since the
  // log never aliases the kernel's arrays. Predicated, not branched, on the log's room.
  WS_DEV void append(uint32_t key, uint32_t off) const {
    unsigned long long* at = log_ + uint64_t(n_) * threads_;
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.lt.u32 p, %2, %3;\n\t@p st.global.u64 [%0], %1;\n\t}" ::"l"(at),
        "l"(abi::log_entry(key, off)), "r"(n_), "r"(cap_));
    ++n_;
  }
  bool on_;
  uint32_t slot_, threads_, cap_;
  unsigned long long* log_;
  mutable uint32_t n_ = 0;
};

// The same recording in one launch: the blocks not recorded run the plain instantiation
// inside the record kernel (kernel_body). Cheaper than two launches for grids of many
// short blocks (copies, transposes); dearer where the plain kernel needs the registers
// and shared memory that the instrumented copy beside it takes (register-tiled SGEMM).
class RecordMixedCtx : public RecordCtx {};

// ---- counts mode ----------------------------------------------------------------------

static __constant__ abi::CountsState g_counts_state;
static __shared__ uint32_t g_counts_seq[32];  // per-warp request counter (block 0 orders the sites)
extern __shared__ __align__(16) unsigned char ws_dynamic_smem[];

namespace instr {

// Distinct values among the active lanes; `first` is set on the lowest lane of each
// value. Fast path: a full warp whose values never decrease lane to lane.
WS_DEV uint32_t distinct(unsigned mask, uint32_t v, uint32_t lane, bool& first) {
  if (mask == 0xffffffffu) {
    uint32_t prev = __shfl_up_sync(mask, v, 1);
    if (__all_sync(mask, lane == 0 || prev <= v)) {
      first = lane == 0 || prev != v;
      return uint32_t(__popc(__ballot_sync(mask, first)));
    }
  }
  unsigned g = __match_any_sync(mask, v);
  first = leader_of(g) == lane;
  return uint32_t(__popc(__ballot_sync(mask, first)));
}

struct GlobalReq {
  uint32_t sectors, lines, bytes;
};
// Sectors, lines and distinct bytes of one global request (accesses are naturally
// aligned on the GPU, so a lane's bytes never straddle a sector).
WS_DEV GlobalReq global_request(unsigned mask, uint32_t off, uint32_t bytes, uint32_t lane) {
  bool f;
  GlobalReq r;
  r.sectors = distinct(mask, off >> 5, lane, f);
  r.lines = distinct(mask, off >> 7, lane, f);
  r.bytes = distinct(mask, off, lane, f) * bytes;
  return r;
}

struct SharedReq {
  uint32_t wavefronts, ideal, max_way;
};
// Wavefronts of one shared request: phases of 32 / 16 / 8 lanes for 4- / 8- / 16-byte
// accesses; per phase the most distinct words any one bank holds (same word: broadcast).
WS_DEV SharedReq shared_request(unsigned mask, uint32_t off, uint32_t bytes, uint32_t lane) {
  const uint32_t words = bytes <= 4 ? 1u : bytes / 4u;  // words per lane = phases
  const uint32_t per_phase = abi::kWarp / words;
  const uint32_t phase = lane / per_phase;
  const uint32_t w0 = off >> 2;
  SharedReq r{0, 0, 0};
  uint32_t best = 0;
  for (uint32_t j = 0; j < words; ++j) {
    // Aligned accesses: word j of every lane lies in banks ≡ j (mod words), so the words
    // of different j never share a bank and each j can be counted on its own.
    uint32_t w = w0 + j;
    unsigned same = __match_any_sync(mask, (unsigned long long)phase << 32 | w);
    bool uniq = leader_of(same) == lane;
    unsigned bank = __match_any_sync(mask, uniq ? (phase << 5) | (w & 31u) : 0xffffffffu);
    if (uniq) best = max(best, uint32_t(__popc(bank)));
  }
  const uint32_t pmask = per_phase == 32 ? 0xffffffffu : (1u << per_phase) - 1u;
  for (uint32_t p = 0; p < words; ++p) {
    uint32_t m = __reduce_max_sync(mask, phase == p ? best : 0u);
    if ((mask >> (p * per_phase)) & pmask) {
      r.wavefronts += m;
      r.ideal += 1;
      r.max_way = max(r.max_way, m);
    }
  }
  return r;
}

WS_DEV uint32_t mix(uint32_t x) {
  x *= 0x9E3779B1u;
  x ^= x >> 15;
  x *= 0x85EBCA77u;
  return x ^ (x >> 13);
}

}  // namespace instr

namespace tally {

inline constexpr uint32_t kNoOwner = abi::kEmptyKey;

// The block's tables and this warp's, after the kernel's own dynamic shared memory.
struct Tables {
  abi::BlockSite* sites;
  unsigned long long* pairs;   // the block's totals of the current epoch
  uint32_t* cells;             // the block's DRAM cells of the current epoch, per global array
  abi::WarpWay* ways;          // this warp's [kCacheWays]
  unsigned long long* wpairs;  // this warp's totals of the current epoch
  uint32_t* wcells;            // this warp's DRAM cells, or null (large models go to the block)
  uint32_t ncells, row_words;  // cells per array; cells + 1 words per array
  uint32_t items;              // flush items of the block's epoch: pairs, then cell words
};
WS_DEV Tables tables(uint32_t warp) {
  const abi::CountsState& st = g_counts_state;
  const uint32_t warps = (blockDim.x * blockDim.y * blockDim.z + abi::kWarp - 1) / abi::kWarp;
  const uint32_t ncells = st.dram.cells();
  const abi::CountsLayout l = abi::counts_layout(st.info.n_global, ncells, warps, st.dram.cacheable != 0);
  unsigned char* tail = ws_dynamic_smem + st.shared_offset;
  Tables t;
  t.sites = reinterpret_cast<abi::BlockSite*>(tail + l.sites);
  t.pairs = reinterpret_cast<unsigned long long*>(tail + l.pairs);
  t.cells = reinterpret_cast<uint32_t*>(tail + l.cells);
  t.ways = reinterpret_cast<abi::WarpWay*>(tail + l.ways) + warp * abi::kCacheWays;
  unsigned char* we = tail + l.wepoch + warp * l.wepoch_stride;
  t.wpairs = reinterpret_cast<unsigned long long*>(we);
  t.wcells = st.dram.cacheable ? reinterpret_cast<uint32_t*>(we + 8 * abi::kEpochPairs) : nullptr;
  t.ncells = ncells;
  t.row_words = ncells + 1;
  t.items = abi::kEpochPairs + st.info.n_global * t.row_words;
  return t;
}

// The partition of the global sums this block adds to: its SM's.
WS_DEV uint32_t part() {
  uint32_t sm;
  asm("mov.u32 %0, %%smid;" : "=r"(sm));
  return sm & (abi::kParts - 1u);
}

// Item i of the block's epoch totals to the global epoch table, and cleared.
WS_DEV void flush_item(const Tables& t, uint32_t epoch, uint32_t i) {
  const abi::CountsState& st = g_counts_state;
  const uint32_t e = epoch < st.max_epochs ? epoch : st.max_epochs - 1;
  const uint32_t words = abi::kEpochSums + st.info.n_global * t.row_words;
  unsigned long long* row = &st.epochs[(uint64_t(e) * abi::kParts + part()) * words];
  if (i < abi::kEpochPairs) {
    unsigned long long v = t.pairs[i];
    if (!v) return;
    const uint32_t lo = uint32_t(v), hi = uint32_t(v >> 32);
    // pairs: requests|lanes, sectors|ideal sectors, bytes|wavefronts, ideal wavefronts
    const uint32_t wl[4] = {abi::kERequests, abi::kESectors, abi::kEBytes, abi::kEIdealWavefronts};
    const uint32_t wh[4] = {abi::kELanes, abi::kEIdealSectors, abi::kEWavefronts, abi::kEIdealWavefronts};
    if (lo) atomicAdd(&row[wl[i]], (unsigned long long)lo);
    if (hi && i < 3) atomicAdd(&row[wh[i]], (unsigned long long)hi);
    t.pairs[i] = 0;
  } else {
    const uint32_t j = i - abi::kEpochPairs;
    uint32_t v = t.cells[j];
    if (!v) return;
    atomicAdd(&row[abi::kEpochSums + j], (unsigned long long)v);
    t.cells[j] = 0;
  }
}

WS_DEV uint32_t block_slot(const Tables& t, uint32_t key) {
  for (uint32_t h = abi::key_hash(key), n = 0; n < abi::kSiteSlots; ++n, h = (h + 1) % abi::kSiteSlots) {
    uint32_t k = *(volatile uint32_t*)&t.sites[h].key;
    if (k == key) return h;
    if (k == abi::kEmptyKey) {
      uint32_t old = atomicCAS(&t.sites[h].key, abi::kEmptyKey, key);
      if (old == abi::kEmptyKey || old == key) return h;
    }
  }
  return abi::kSiteSlots;
}

WS_DEV abi::SiteSlot* global_site(uint32_t key) {
  abi::SiteSlot* g = g_counts_state.sites;
  for (uint32_t h = abi::key_hash(key), n = 0; n < abi::kSiteSlots; ++n, h = (h + 1) % abi::kSiteSlots) {
    uint32_t k = *(volatile uint32_t*)&g[h].key;
    if (k == key) return &g[h];
    if (k == abi::kEmptyKey) {
      uint32_t old = atomicCAS(&g[h].key, abi::kEmptyKey, key);
      if (old == abi::kEmptyKey || old == key) return &g[h];
    }
  }
  return nullptr;
}

static __device__ __noinline__ void begin(uint32_t tid, uint32_t nthreads) {
  const uint32_t warps = (nthreads + abi::kWarp - 1) / abi::kWarp;
  Tables t = tables(0);
  for (uint32_t i = tid; i < abi::kSiteSlots; i += nthreads) {
    abi::BlockSite& s = t.sites[i];
    s.key = abi::kEmptyKey;
    s.max_way = 0;
    s.first = ~0ull;
    for (uint32_t k = 0; k < 4; ++k) s.pair[k] = 0;
    s.example_taken = 0;
  }
  for (uint32_t i = tid; i < abi::kEpochPairs; i += nthreads) t.pairs[i] = 0;
  for (uint32_t i = tid; i < t.items - abi::kEpochPairs; i += nthreads) t.cells[i] = 0;
  for (uint32_t i = tid; i < warps * abi::kCacheWays; i += nthreads) {
    abi::WarpWay& w = t.ways[i];  // ways of warp 0 onwards: the warps' tables are contiguous
    w.h1 = w.h2 = 0xffffffffu;
    w.owner = kNoOwner;
    w.max_way = 0;
    for (uint32_t k = 0; k < 4; ++k) w.pair[k] = 0;
  }
  for (uint32_t wi = 0; wi < warps; ++wi) {
    Tables tw = tables(wi);
    for (uint32_t i = tid; i < abi::kEpochPairs; i += nthreads) tw.wpairs[i] = 0;
    if (tw.wcells)
      for (uint32_t i = tid; i < t.items - abi::kEpochPairs; i += nthreads) tw.wcells[i] = 0;
  }
  if (tid < 32) g_counts_seq[tid] = 0;
  (__syncthreads)();
}

// A warp way's sums to the block's site table.
WS_DEV void flush_way(const Tables& t, abi::WarpWay& w) {
  if (w.owner == kNoOwner) return;
  abi::BlockSite& s = t.sites[w.owner];
  for (uint32_t k = 0; k < 4; ++k)
    if (w.pair[k]) atomicAdd(&s.pair[k], w.pair[k]);
  if (w.max_way > s.max_way) atomicMax(&s.max_way, w.max_way);
  w.owner = kNoOwner;
  w.max_way = 0;
  for (uint32_t k = 0; k < 4; ++k) w.pair[k] = 0;
}

// The warp's totals of the epoch to the block's (all lanes of the warp, after meeting).
// A partial warp (a block whose size is not a multiple of 32) has fewer lanes than
// items, so the lanes share the work by rank among the lanes the warp has.
static __device__ __noinline__ void warp_flush(uint32_t warp, uint32_t lane, unsigned all, bool sites) {
  Tables t = tables(warp);
  const uint32_t rank = uint32_t(__popc(all & instr::lanes_below(lane))), n = uint32_t(__popc(all));
  for (uint32_t i = rank; i < abi::kEpochPairs; i += n)
    if (unsigned long long v = t.wpairs[i]) {
      atomicAdd(&t.pairs[i], v);
      t.wpairs[i] = 0;
    }
  if (t.wcells)
    for (uint32_t i = rank; i < t.items - abi::kEpochPairs; i += n)
      if (uint32_t v = t.wcells[i]) {
        atomicAdd(&t.cells[i], v);
        t.wcells[i] = 0;
      }
  if (sites)
    for (uint32_t i = rank; i < abi::kCacheWays; i += n) flush_way(t, t.ways[i]);
  __syncwarp(all);
}

// The block's totals of the epoch that ends here go to global memory, shared out over
// all the block's threads (every thread is here: this is a barrier).
static __device__ __noinline__ void barrier(uint32_t epoch, uint32_t tid, uint32_t nthreads) {
  (__syncthreads)();
  Tables t = tables(0);
  for (uint32_t i = tid; i < t.items; i += nthreads) flush_item(t, epoch, i);
  (__syncthreads)();
}

// At the end of the block (every thread of the block comes here: kernel_body calls
// finish() after the body returns, however it returns), the block's site table and its
// last epoch go to global memory, shared out over all its threads.
static __device__ __noinline__ void finish(uint32_t epoch, uint32_t tid, uint32_t nthreads) {
  (__syncthreads)();
  Tables t = tables(0);
  for (uint32_t i = tid; i < t.items; i += nthreads) flush_item(t, epoch, i);
  for (uint32_t i = tid; i < abi::kSiteSlots; i += nthreads) {
    const abi::BlockSite& s = t.sites[i];
    if (s.key == abi::kEmptyKey) continue;
    abi::SiteSlot* g = global_site(s.key);
    if (!g) continue;
    const uint32_t idx[8] = {abi::kRequests,     abi::kLanes, abi::kSectors,    abi::kLines,
                             abi::kIdealSectors, abi::kBytes, abi::kWavefronts, abi::kIdealWavefronts};
    unsigned long long* sums = g->sums[part()];
    for (uint32_t k = 0; k < 8; ++k) {
      uint32_t v = uint32_t(s.pair[k / 2] >> (32 * (k % 2)));
      if (v) atomicAdd(&sums[idx[k]], (unsigned long long)v);
    }
    // Most blocks change neither: a read first spares the atomic.
    if (s.max_way > *(volatile uint32_t*)&g->max_way) atomicMax(&g->max_way, s.max_way);
    if (s.first < *(volatile unsigned long long*)&g->first) atomicMin(&g->first, s.first);
  }
  if (tid == 0) atomicMax(g_counts_state.epochs_seen, (unsigned long long)epoch + 1ull);
}

// DRAM model, computed: every distinct burst the request touches adds one to its
// (channel, bank) cell of this array. With a cacheable model, also returns the request's
// bursts per cell, 8 bits a cell (at most 8 cells), and adds nothing.
WS_DEV unsigned long long dram(const Tables& t, unsigned mask, uint32_t off, uint32_t bytes, uint32_t buffer,
                               uint32_t lane) {
  const abi::Dram& d = g_counts_state.dram;
  const uint32_t shift = d.burst_shift;
  const uint32_t nb = bytes > d.burst_bytes ? bytes >> shift : 1u;
  uint32_t* row = &t.cells[buffer * t.row_words];
  unsigned long long packed = 0;
  for (uint32_t j = 0; j < nb; ++j) {
    uint32_t g = (off >> shift) + j;
    bool uniq;
    instr::distinct(mask, g, lane, uniq);
    uint32_t c = d.cell(g);
    unsigned same = __match_any_sync(mask, uniq ? c : 0xffffffffu);
    bool lead = uniq && instr::leader_of(same) == lane;
    uint32_t n = lead ? uint32_t(__popc(same)) : 0u;
    if (d.cacheable) {
      uint32_t lo = __reduce_add_sync(mask, c < 4 ? n << (8 * c) : 0u);
      uint32_t hi = __reduce_add_sync(mask, c >= 4 ? n << (8 * (c - 4)) : 0u);
      packed += (unsigned long long)hi << 32 | lo;
    } else if (n) {
      atomicAdd(&row[c], n);
    }
  }
  return packed;
}

// The leader adds a request's cost to its warp's sums, with plain arithmetic.
WS_DEV void add(const Tables& t, abi::WarpWay& w, uint32_t slot, uint32_t buffer, bool global, uint32_t lanes,
                uint32_t a, uint32_t b, unsigned long long cells) {
  const uint32_t sectors = a & 0xffu, lines = (a >> 8) & 0xffu, ideal = (a >> 16) & 0xffu;
  const uint32_t req_bytes = b & 0xfffu, wf = (b >> 12) & 0xffu, iwf = (b >> 20) & 0xfu, way = (b >> 24) & 0x3fu;
  auto pair = [](uint32_t lo, uint32_t hi) { return (unsigned long long)hi << 32 | lo; };
  if (w.owner != slot) {  // another site had this way: its sums go to the block first
    flush_way(t, w);
    w.owner = slot;
  }
  w.pair[0] += pair(1u, lanes);
  t.wpairs[0] += pair(1u, lanes);
  if (global) {
    w.pair[1] += pair(sectors, lines);
    w.pair[2] += pair(ideal, req_bytes);
    t.wpairs[1] += pair(sectors, ideal);
    t.wpairs[2] += pair(req_bytes, 0u);
    if (t.wcells) {
      uint32_t* row = &t.wcells[buffer * t.row_words];
      row[t.ncells] += 1u;  // requests to this array in this epoch
      for (uint32_t c = 0; cells; ++c, cells >>= 8) row[c] += uint32_t(cells & 0xffu);
    } else {
      atomicAdd(&t.cells[buffer * t.row_words + t.ncells], 1u);
    }
  } else {
    w.pair[3] += pair(wf, iwf);
    t.wpairs[2] += pair(0u, wf);
    t.wpairs[3] += pair(iwf, 0u);
    if (way > w.max_way) w.max_way = way;
  }
}

// One request, made of the lanes in `mask`: its cost (from the warp's cache of shapes, or
// worked out by those lanes together), added by the leader to the warp's sums.
WS_DEV void request(uint32_t key, uint32_t off, unsigned mask, uint32_t block, uint32_t warp, uint32_t lane,
                    uint32_t epoch) {
  const abi::CountsState& st = g_counts_state;
  const Tables t = tables(warp);
  const uint32_t leader = instr::leader_of(mask);
  const uint32_t bytes = trace::key_bytes(key), buffer = trace::key_buffer(key);
  const bool global = buffer < st.info.n_global;
  const uint32_t lanes = uint32_t(__popc(mask));

  // The request's shape: offsets relative to the first active lane, the mask, the
  // alignment modulo 128 and the site. Two independent 32-bit hashes.
  const uint32_t off0 = __shfl_sync(mask, off, leader);
  const uint32_t rel = off - off0;
  const uint32_t h1 = __reduce_xor_sync(mask, instr::mix(rel + lane * 0x9E3779B9u)) ^ (key * 0x85EBCA6Bu) ^ mask;
  const uint32_t h2 = __reduce_add_sync(mask, instr::mix(rel ^ (lane * 0xC2B2AE35u) ^ 0x5bd1e995u)) +
                      (off0 & 127u) * 0x27D4EB2Fu + key;

  uint32_t slot = 0;
  if (lane == leader) slot = block_slot(t, key);
  slot = __shfl_sync(mask, slot, leader);
  if (slot >= abi::kSiteSlots) return;  // more sites than the table holds: the host reports it
  abi::BlockSite& site = t.sites[slot];
  abi::WarpWay& w = t.ways[slot & (abi::kCacheWays - 1u)];

  uint32_t a, b;
  unsigned long long cells = 0;
  const bool cache_dram = global && st.dram.cacheable;
  uint4 e;  // one 16-byte shared load, the same address for every lane (a broadcast)
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(e.x), "=r"(e.y), "=r"(e.z), "=r"(e.w)
               : "r"(uint32_t(__cvta_generic_to_shared(&w))));
  if (__all_sync(mask, e.x == h1 && e.y == h2)) {
    a = e.z;
    b = e.w;
    if (cache_dram) cells = (unsigned long long)w.cells_hi << 32 | w.cells_lo;
  } else {
    if (global) {
      instr::GlobalReq g = instr::global_request(mask, off, bytes, lane);
      a = g.sectors | g.lines << 8 | ((g.bytes + 31) / 32) << 16;
      b = g.bytes;
      if (cache_dram) cells = dram(t, mask, off, bytes, buffer, lane);
    } else {
      instr::SharedReq r = instr::shared_request(mask, off, bytes, lane);
      a = 0;
      b = r.wavefronts << 12 | r.ideal << 20 | r.max_way << 24;
    }
    if (lane == leader) {
      w.a = a;
      w.b = b;
      w.cells_lo = uint32_t(cells);
      w.cells_hi = uint32_t(cells >> 32);
      w.h1 = h1;
      w.h2 = h2;
    }
  }
  if (global && !cache_dram) dram(t, mask, off, bytes, buffer, lane);

  // Block 0 orders the sites by first execution and keeps one example request of each.
  if (block == 0) {
    bool example = false;
    if (lane == leader) {
      unsigned long long order = abi::order_key(0, epoch, warp, g_counts_seq[warp]++);
      if (order < site.first) atomicMin(&site.first, order);
      if (!site.example_taken && atomicCAS(&site.example_taken, 0u, 1u) == 0u) {
        abi::SiteSlot* g = global_site(key);
        example = g && atomicCAS(&g->example_taken, 0u, 1u) == 0u;
      }
    }
    if (__shfl_sync(mask, example ? 1 : 0, leader)) {
      abi::Record& r = global_site(key)->example;
      r.offset[lane] = off;
      if (lane == leader) {
        r.key = key;
        r.block = block;
        r.warp = warp;
        r.seq = 0;
        r.epoch = epoch;
        r.active = mask;
      }
    }
  } else if (lane == leader && site.first == ~0ull) {
    atomicMin(&site.first, abi::order_key(block, 0, 0, 0));
  }
  if (lane == leader) add(t, w, slot, buffer, global, lanes, a, b, cells);
}

// The lanes of a warp meet at every access, as merge_logs replays them for records: each
// lane waits at its next access (or is done), the lowest waiting lane leads, and the lanes
// at the leader's site make one request.
static __device__ __noinline__ void step(uint32_t key, uint32_t off, unsigned all, uint32_t block, uint32_t warp,
                                         uint32_t lane, uint32_t epoch) {
  const bool waiting = key != kDone;
  for (;;) {
    __syncwarp(all);
    const unsigned pending = __ballot_sync(all, waiting);
    if (!pending) return;
    const uint32_t lead_key = __shfl_sync(all, key, instr::leader_of(pending));
    const unsigned group = __ballot_sync(all, waiting && key == lead_key);
    if ((group >> lane) & 1u) {
      request(key, off, group, block, warp, lane, epoch);
      __syncwarp(group);
      return;
    }
  }
}

}  // namespace tally

class CountsCtx : public instr::Common<CountsCtx>, public instr::WarpCalls<CountsCtx> {
 public:
  static WS_DEV const abi::LaunchInfo& info() { return g_counts_state.info; }
  WS_DEV CountsCtx() { tally::begin(tid_, blockDim.x * blockDim.y * blockDim.z); }
  WS_DEV void barrier() const {
    tally::step(kDone, 0, all_, block_, warp_, lane_, epoch_);
    tally::warp_flush(warp_, lane_, all_, false);
    tally::barrier(epoch_, tid_, blockDim.x * blockDim.y * blockDim.z);
    ++epoch_;
  }
  WS_DEV void finish() const {
    record_boxes();
    tally::step(kDone, 0, all_, block_, warp_, lane_, epoch_);
    tally::warp_flush(warp_, lane_, all_, true);
    tally::finish(epoch_, tid_, blockDim.x * blockDim.y * blockDim.z);
  }
  WS_DEV void access(uint32_t key, uint32_t off) const {
    if (key != abi::kEmptyKey) tally::step(key, off, all_, block_, warp_, lane_, epoch_);
  }
  // What WarpCalls needs: events cost nothing; a warp-wide instruction waits until every
  // lane has finished the meetings before it (a step at no access), so the warp is whole.
  WS_DEV void event(uint32_t, uint32_t) const {}
  WS_DEV void converge() const { tally::step(kDone, 0, all_, block_, warp_, lane_, epoch_); }
  WS_DEV void rowless(uint32_t) const {}  // the meetings are live: converge() made the warp whole
  WS_DEV void lost_write() const { atomicAdd(g_counts_state.lost_writes, 1ull); }
};

// ---- the body of every entry -----------------------------------------------------------

template <class Op, class Ctx, class Args>
__device__ __forceinline__ void kernel_body(const Args& args) {
  if constexpr (std::is_same_v<Ctx, RecordCtx>) {
    // Block-uniform, so barriers stay matched. The blocks not recorded run in a plain
    // launch beside this one (device_kernel_skip): the record launch carries no plain
    // copy of the kernel, whose registers and shared arrays would cost every block.
    if (!RecordCtx::block_selected()) return;
  }
  if constexpr (std::is_same_v<Ctx, RecordMixedCtx>) {
    if (!RecordCtx::block_selected()) {
      PlainCtx plain;
      Op{}(plain, args);
      return;
    }
  }
  Ctx ctx;
  Op{}(ctx, args);
  ctx.finish();
}

}  // namespace ws::gpu
