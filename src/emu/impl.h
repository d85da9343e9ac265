// src/emu/impl.h — the emulator's machine as its parts see it (machine.cpp: threads,
// scheduling, warp-wide calls and the launch; bulk.cpp: mbarriers, TMA copies and thread
// block clusters): the running launch's state and the helpers both use. Internal to src/emu.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "emu/context.h"
#include "emu/fiber.h"
#include "emu/machine.h"
#include "emu/warp.h"

namespace ws::emu {

constexpr size_t kArenaBytes = 256 * 1024;  // more than any SM offers a block
constexpr size_t kMaxShared = 227 * 1024;  // an H100 block's most, static and dynamic together

struct Thread {
  Fiber fiber;
  LaneLog log;
  uint32_t cta = 0;    // its block's rank in the cluster being run (0 without clusters)
  uint32_t index = 0;  // its thread index in its block
  uint32_t decls = 0;  // static shared declarations executed so far
  bool done = false;
  bool at_meet = false;  // waiting at a warp-wide call for the rest of its warp
  MeetSlot meet;         // what it brought there, and, once met, its result
  std::vector<PendingCopy> copies;  // cp.async copies issued, not landed yet
  uint32_t groups = 0;              // cp.async groups committed
  bool at_mbar = false;             // waiting for an mbarrier's phase
  std::vector<BoxWrite> boxes;      // its pieces of TMA boxes, recorded at its next mbarrier wait
  std::vector<StorePiece> stores;   // its pieces of TMA stores, written at a bulk wait
  uint32_t bulk_groups = 0;         // bulk groups committed
  ~Thread() { std::free(log.data); }
};

struct Machine::Impl {
  std::vector<std::unique_ptr<Thread>> threads;
  std::vector<Thread*> lanes;  // threads, as plain pointers for the warp merge (block by block of a cluster)
  // Each block's shared memory, one for every CTA of a cluster run together, aligned to
  // 1024 bytes, where the TMA's 128-byte swizzle repeats (dynamic shared memory starts
  // there); `arena`: the running thread's.
  std::vector<std::unique_ptr<char[]>> arena_storage;
  std::vector<char*> arenas;
  char* arena = nullptr;
  void add_arena() {
    arena_storage.emplace_back(new char[kArenaBytes + 1024]);
    arenas.push_back(reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(arena_storage.back().get()) + 1023) &
                                             ~uintptr_t(1023)));
  }

  // Launch state.
  trace::Builder* out = nullptr;
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
  std::vector<uint64_t> sizes;
  std::vector<uint32_t> decl_buffer;  // static shared declaration index -> buffer id
  uint32_t dyn_bytes = 0;
  int64_t dyn_buffer = -1;

  // Block state (the state of the blocks of a cluster, run together).
  std::vector<uint32_t> ctas;       // the blocks run together (linear ids), by rank in their cluster
  std::vector<uint3> cta_index;     // their blockIdx
  uint32_t threads_per_block = 0;
  std::vector<size_t> decl_offset;  // per declaration index, offset in the arena
  size_t arena_used = 0;
  Thread* cur = nullptr;
  std::string error;
  uint64_t lane_accesses = 0;
  bool direct = false;          // run threads as plain calls (no barrier seen so far)
  bool warp_ops = false;        // a warp-wide call or an async copy was met: fibers from now on
  uint64_t barriers = 0;        // barriers reached in the current block
  std::vector<Landing> landing;  // TMA pieces read, landing when their mbarrier's phase completes
  uint64_t mbar_changes = 0;     // mbarrier state changes in the current block (a wait's progress)
  size_t mark = 0;              // records before the current direct block
  uint64_t mark_dropped = 0;

  bool uses_shared() const { return !decl_buffer.empty() || dyn_buffer >= 0; }
  void run_block_direct(uint32_t linear, uint32_t n, uint32_t warps);
  void records_rollback() {
    out->trace().records.resize(mark);
    out->launch().dropped_records = mark_dropped;
  }

  void run_block(const trace::Dim3& block);
  void enter(Thread* th, const trace::Dim3& block);
  void run_warp(uint32_t first, int nlanes, const trace::Dim3& block, bool waiting_only = false);
  void run_round(uint32_t n, uint32_t warps, const trace::Dim3& block, uint32_t epoch, std::vector<uint32_t>& seq,
                 uint64_t& accesses, bool waiting_only);
  void run_waiting(uint32_t n, uint32_t warps, const trace::Dim3& block, uint32_t epoch, std::vector<uint32_t>& seq,
                   uint64_t& accesses);
  void rendezvous(Thread* const* warp_lanes, int nlanes, uint32_t first);
  void merge_warp(Thread* const* lanes, int nlanes, uint32_t block, uint32_t warp, uint32_t epoch,
                  uint32_t& seq, uint64_t& accesses);
  uint32_t register_shared(const char* name, uint64_t bytes, uint32_t elem_bytes, uint64_t rows,
                           uint64_t cols);
};

// The machine running on this thread.
extern thread_local Machine::Impl* g_machine;

// Thrown by a barrier reached while threads run as plain calls.
struct NeedsFibers {};

// "thread 3,0 of block 1,2": the running thread, for a line that refuses what it did.
std::string where();
// The running lane, for a call that needs fibers (a rendezvous, or a queue that outlives
// one call): a block run as plain calls is run again with fibers.
Thread& lane_thread();
// The running thread's lane in its warp.
uint32_t lane_of_thread();
// An operand of a warp-wide call or a copy: `bytes` from byte `off` of the key's array,
// which must be in `space`, aligned to `bytes` and inside the array.
void check_operand(const char* what, uint32_t key, uint32_t off, uint32_t bytes, trace::Space space);
// The writes of the lane's pieces of the boxes it asked for: recorded at its next mbarrier
// wait, whichever barrier that is.
void record_boxes(Thread& th);

}  // namespace ws::emu
