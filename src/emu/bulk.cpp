// src/emu/bulk.cpp — the emulator's mbarriers, TMA copies (loads, multicasts, stores) and
// thread block clusters (a block's rank, the cluster barrier, arrivals on another CTA's
// mbarrier): an mbarrier is the 8 bytes of a shared uint64_t, its state packed as below; a
// box's pieces are read at issue and land when their mbarrier's phase completes.
#include <cstring>

#include "emu/impl.h"
#include "trace/tma.h"

namespace ws::emu {

uint32_t lane_of_thread() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % trace::kWarpSize;
}

void record_boxes(Thread& th) {
  for (const BoxWrite& w : th.boxes) current_log->push(w.key, w.off);
  th.boxes.clear();
}

namespace {

// The 8 bytes of an emulated mbarrier: the arrivals each phase expects (bits 0-19), those
// still pending (20-39), the transaction bytes still pending (40-60, signed: a box may land
// before its bytes are expected) and the current phase's parity (bit 63).
struct Mbar {
  uint32_t expected = 0, pending = 0, phase = 0;
  int64_t tx = 0;
  static Mbar at(const void* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    Mbar b;
    b.expected = uint32_t(v & 0xfffff);
    b.pending = uint32_t((v >> 20) & 0xfffff);
    const int64_t t = int64_t((v >> 40) & 0x1fffff);
    b.tx = t >= (1 << 20) ? t - (1 << 21) : t;
    b.phase = uint32_t(v >> 63);
    return b;
  }
  void store(void* p) const {
    const uint64_t v = uint64_t(expected) | uint64_t(pending) << 20 | (uint64_t(tx) & 0x1fffff) << 40 | uint64_t(phase) << 63;
    std::memcpy(p, &v, 8);
  }
};

// The mbarrier operand of a call: 8 aligned bytes of a shared array, initialized unless
// `init`.
Mbar mbar_operand(const char* what, const void* bar, uint32_t key, uint32_t off, bool init = false) {
  check_operand(what, key, off, 8, trace::Space::Shared);
  const Mbar b = Mbar::at(bar);
  if (!init && b.expected == 0)
    throw KernelError(std::string(what) + " at kernel line " + std::to_string(trace::key_line(key)) +
                      ": an mbarrier not initialized (mbarrier_init first, then a barrier) (" + where() + ")");
  return b;
}

// Stores b's new state; a phase whose arrivals and bytes are all in completes: its boxes land.
void mbar_update(void* bar, Mbar b) {
  Machine::Impl* m = g_machine;
  ++m->mbar_changes;
  if (b.pending == 0 && b.tx == 0) {
    size_t kept = 0;
    for (Landing& l : m->landing) {
      if (l.bar == bar)
        std::memcpy(l.dst, l.data, 16);
      else
        m->landing[kept++] = l;
    }
    m->landing.resize(kept);
    b.phase ^= 1u;
    b.pending = b.expected;
  }
  b.store(bar);
}

// The box at (x, y) of a map, checked: a shape the TMA takes, inside its array, and its
// shared tile (`tile`: the array's site key and byte offset) whole, aligned as the swizzle needs.
trace::TmaBox2D checked_box(const char* what, uint32_t line, const TmaArgs& map, int x, int y, const void* tile,
                            uint32_t key, uint32_t off) {
  Machine::Impl* m = g_machine;
  const std::string at = std::string(what) + " at kernel line " + std::to_string(line) + ": ";
  const trace::TmaBox2D box{map.elem, uint32_t(map.cols), uint32_t(map.box_rows), uint32_t(map.box_cols),
                            uint32_t(map.swizzle), x, y};
  if (map.box_rows < 1 || map.box_rows > 256 || map.box_cols < 1 || map.box_cols > 256 || box.row_bytes() % 16 ||
      (map.swizzle != 0 && map.swizzle != 32 && map.swizzle != 64 && map.swizzle != 128) ||
      (map.swizzle && box.row_bytes() > uint32_t(map.swizzle)))
    throw KernelError(at + "a box of " + std::to_string(map.box_rows) + " x " + std::to_string(map.box_cols) +
                      " elements under a swizzle of " + std::to_string(map.swizzle) +
                      " bytes (1 to 256 each way, rows a multiple of 16 bytes and no wider than the swizzle)");
  if (x < 0 || y < 0 || int64_t(x) + map.box_cols > map.cols || int64_t(y) + map.box_rows > map.rows)
    throw KernelError(at + "the box at column " + std::to_string(x) + ", row " + std::to_string(y) +
                      " reaches outside the " + std::to_string(map.rows) + " x " + std::to_string(map.cols) +
                      " array (" + where() + ")");
  if (map.buffer >= m->sizes.size() || uint64_t(map.rows) * uint64_t(map.cols) * map.elem > m->sizes[map.buffer])
    throw KernelError(at + "a tensor map larger than its array");
  check_operand(what, key, off, 16, trace::Space::Shared);
  if (uint64_t(off) + box.bytes() > m->sizes[trace::key_buffer(key)])
    out_of_bounds(line, trace::key_buffer(key), int64_t(off) + box.bytes(), m->sizes[trace::key_buffer(key)]);
  if ((static_cast<const char*>(tile) - m->arena) % (map.swizzle ? 1024 : 128))
    throw KernelError(at + "a shared tile not aligned to " + std::string(map.swizzle ? "1024" : "128") +
                      " bytes (WS_DYNAMIC_SHARED_TMA) (" + where() + ")");
  return box;
}

// Where `p`, in the running thread's block's shared memory, is in the shared memory of the
// cluster's CTA `rank` (mapa).
template <class P>
P* in_cta(P* p, uint32_t rank) {
  Machine::Impl* m = g_machine;
  return reinterpret_cast<P*>(m->arenas[rank] + (reinterpret_cast<const char*>(p) - m->arena));
}

// " in CTA rank r" where r is another CTA of the running thread's cluster, else "".
std::string of_cta(uint32_t rank) {
  return rank == lane_thread().cta ? "" : " in CTA rank " + std::to_string(rank);
}

// The mbarrier at `target` in the shared memory of CTA `rank` (in_cta), which must be
// initialized; `at` starts the line that refuses it.
Mbar mbar_of_cta(const std::string& at, const void* target, uint32_t rank) {
  const Mbar b = Mbar::at(target);
  if (b.expected == 0)
    throw KernelError(at + "an mbarrier not initialized (mbarrier_init first, then a barrier)" + of_cta(rank) + " (" +
                      where() + ")");
  return b;
}

// An arrival (expecting `bytes` more) on the mbarrier at bar's place in CTA `rank`'s shared
// memory; lane 0 acts for the warp.
void arrive(const char* what, void* bar, uint32_t key, uint32_t off, uint32_t bytes, uint32_t rank) {
  Machine::Impl* m = g_machine;
  mbar_operand(what, bar, key, off, true);
  const std::string at = std::string(what) + " at kernel line " + std::to_string(trace::key_line(key)) + ": ";
  if (rank >= m->ctas.size())
    throw KernelError(at + "CTA rank " + std::to_string(rank) + " in a cluster of " + std::to_string(m->ctas.size()) +
                      " (" + where() + ")");
  if (lane_of_thread() != 0) return;
  void* target = in_cta(bar, rank);
  Mbar b = mbar_of_cta(at, target, rank);
  if (b.pending == 0)
    throw KernelError(at + "more arrivals than the mbarrier expects in a phase" + of_cta(rank) + " (" + where() + ")");
  b.tx += bytes;
  --b.pending;
  mbar_update(target, b);
}

// A TMA load of the box at (x, y) into the same tile and mbarrier of each CTA of `mask` (bit
// r: rank r of the cluster; the running CTA's own bit alone for a load that is no
// multicast). Each lane reads its pieces once; they land in each CTA when its mbarrier's
// phase completes, recorded by that CTA's lane of the same index at its next wait.
void tma_copy(const char* what, void* dst, uint32_t dst_key, uint32_t dst_off, const TmaArgs& map, int x, int y,
              void* bar, uint32_t bar_key, uint32_t bar_off, uint32_t mask, uint32_t line) {
  Thread& th = lane_thread();
  Machine::Impl* m = g_machine;
  const trace::TmaBox2D box = checked_box(what, line, map, x, y, dst, dst_key, dst_off);
  mbar_operand(what, bar, bar_key, bar_off);
  const uint32_t ranks = uint32_t(m->ctas.size());
  if (mask == 0 || mask >> ranks)
    throw KernelError(std::string(what) + " at kernel line " + std::to_string(line) + ": a multicast to CTA mask " +
                      std::to_string(mask) + " in a cluster of " + std::to_string(ranks) + " CTAs (" + where() + ")");
  const uint32_t read = trace::with_form(trace::make_key(line, map.buffer, uint32_t(trace::Op::Load), 16),
                                         uint32_t(trace::Form::BulkRead));
  const uint32_t write = trace::with_form(
      trace::make_key(line, trace::key_buffer(dst_key), uint32_t(trace::Op::Store), 16), uint32_t(trace::Form::BulkWrite));
  uint32_t bytes = 0;
  for (uint32_t p = lane_of_thread(); p < box.pieces(); p += trace::kWarpSize) {
    const uint64_t g = box.global_offset(p);
    const uint32_t o = box.shared_offset(p);
    current_log->push(read, uint32_t(g));
    for (uint32_t r = 0; r < ranks; ++r) {
      if (!(mask >> r & 1u)) continue;
      Landing& l = m->landing.emplace_back();
      l.bar = in_cta(static_cast<const char*>(bar), r);
      l.dst = in_cta(static_cast<char*>(dst), r) + o;
      std::memcpy(l.data, map.array + g, 16);  // global memory does not change under a running kernel's copies
      Thread& to = r == th.cta ? th : *m->lanes[r * m->threads_per_block + th.index];
      to.boxes.push_back({write, dst_off + o});
    }
    bytes += 16;
  }
  if (bytes == 0) return;
  for (uint32_t r = 0; r < ranks; ++r) {
    if (!(mask >> r & 1u)) continue;
    void* b = in_cta(bar, r);
    Mbar mb = mbar_of_cta(std::string(what) + " at kernel line " + std::to_string(line) + ": ", b, r);
    mb.tx -= bytes;
    mbar_update(b, mb);
  }
}

}  // namespace

void mbarrier_init(void* bar, uint32_t key, uint32_t off, uint32_t count) {
  lane_thread();
  Mbar b = mbar_operand("mbarrier_init", bar, key, off, true);
  if (count == 0 || count >= (1u << 20))
    throw KernelError("mbarrier_init at kernel line " + std::to_string(trace::key_line(key)) + ": a count of " +
                      std::to_string(count) + " (1 to 2^20 - 1)");
  if (lane_of_thread() != 0) return;
  b = Mbar{count, count, 0, 0};
  b.store(bar);
  ++g_machine->mbar_changes;
}

void mbarrier_arrive_expect_tx(void* bar, uint32_t key, uint32_t off, uint32_t bytes) {
  arrive(bytes ? "mbarrier_arrive_expect_tx" : "mbarrier_arrive", bar, key, off, bytes, lane_thread().cta);
}

void mbarrier_arrive_cluster(void* bar, uint32_t key, uint32_t off, uint32_t rank) {
  lane_thread();
  arrive("mbarrier_arrive_cluster", bar, key, off, 0, rank);
}

void mbarrier_wait(void* bar, uint32_t key, uint32_t off, uint32_t parity) {
  Thread& th = lane_thread();
  mbar_operand("mbarrier_wait", bar, key, off);
  // The lane's boxes are recorded as it comes to the wait, before the warps that run while it
  // waits (a producer's boxes, before the consumers' products that read them).
  record_boxes(th);
  // Every lane stops at a wait at least once, so that a warp's lanes go on from it together.
  for (bool first = true; first || Mbar::at(bar).phase == (parity & 1u); first = false) {
    th.at_mbar = true;
    th.fiber.yield();
    th.at_mbar = false;
  }
}

void tma_load(void* dst, uint32_t dst_key, uint32_t dst_off, const TmaArgs& map, int x, int y, void* bar,
              uint32_t bar_key, uint32_t bar_off, uint32_t line) {
  tma_copy("TMA load", dst, dst_key, dst_off, map, x, y, bar, bar_key, bar_off, 1u << lane_thread().cta, line);
}

void tma_load_multicast(void* dst, uint32_t dst_key, uint32_t dst_off, const TmaArgs& map, int x, int y, void* bar,
                        uint32_t bar_key, uint32_t bar_off, uint32_t mask, uint32_t line) {
  tma_copy("TMA multicast", dst, dst_key, dst_off, map, x, y, bar, bar_key, bar_off, mask, line);
}

uint32_t cluster_rank() { return lane_thread().cta; }

void cluster_sync() { barrier(); }

void tma_store(const TmaArgs& map, int x, int y, const void* src, uint32_t src_key, uint32_t src_off, uint32_t line) {
  Thread& th = lane_thread();
  const trace::TmaBox2D box = checked_box("TMA store", line, map, x, y, src, src_key, src_off);
  const uint32_t read = trace::with_form(
      trace::make_key(line, trace::key_buffer(src_key), uint32_t(trace::Op::Load), 16), uint32_t(trace::Form::BulkRead));
  const uint32_t write = trace::with_form(trace::make_key(line, map.buffer, uint32_t(trace::Op::Store), 16),
                                          uint32_t(trace::Form::BulkWrite));
  for (uint32_t p = lane_of_thread(); p < box.pieces(); p += trace::kWarpSize) {
    const uint32_t o = box.shared_offset(p);
    current_log->push(read, src_off + o);
    StorePiece& sp = th.stores.emplace_back();
    sp.off = uint32_t(box.global_offset(p));
    sp.dst = const_cast<char*>(map.array) + sp.off;  // the array the map names: the kernel's own, writable
    sp.key = write;
    sp.group = kUncommitted;
    std::memcpy(sp.data, static_cast<const char*>(src) + o, 16);
  }
}

void tma_store_commit(uint32_t line) {
  Thread& th = lane_thread();
  for (StorePiece& sp : th.stores)
    if (sp.group == kUncommitted) sp.group = th.bulk_groups;
  ++th.bulk_groups;
  current_log->push(trace::event_key(line, uint32_t(trace::Form::Commit)), 0);
}

void tma_store_wait(uint32_t n, uint32_t line) {
  Thread& th = lane_thread();
  size_t kept = 0;
  for (const StorePiece& sp : th.stores) {
    if (sp.group != kUncommitted && sp.group + n < th.bulk_groups) {
      std::memcpy(sp.dst, sp.data, 16);
      current_log->push(sp.key, sp.off);
    } else {
      th.stores[kept++] = sp;
    }
  }
  th.stores.resize(kept);
  current_log->push(trace::event_key(line, uint32_t(trace::Form::Wait)), n);
}

}  // namespace ws::emu
