#include "emu/machine.h"

#include <algorithm>
#include <cstring>

#include "emu/context.h"
#include "emu/fiber.h"
#include "emu/warp.h"
#include "trace/tma.h"

constinit thread_local uint3 threadIdx{}, blockIdx{};
constinit thread_local dim3 blockDim, gridDim;

namespace ws::emu {

constinit thread_local LaneLog* current_log = nullptr;
constinit thread_local const uint64_t* buffer_sizes = nullptr;

void LaneLog::grow() {
  size_t n = size_t(end - data), c = size_t(cap - data);
  size_t nc = c ? c * 2 : 256;
  auto* d = static_cast<uint64_t*>(std::realloc(data, nc * sizeof(uint64_t)));
  if (!d) throw std::bad_alloc();
  data = d;
  end = d + n;
  cap = d + nc;
}

namespace {

constexpr size_t kArenaBytes = 256 * 1024;  // more than any SM offers a block
constexpr size_t kMaxShared = 227 * 1024;  // an H100 block's most, static and dynamic together

struct Thread {
  Fiber fiber;
  LaneLog log;
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

}  // namespace

struct Machine::Impl {
  std::vector<std::unique_ptr<Thread>> threads;
  std::vector<Thread*> lanes;  // threads, as plain pointers for the warp merge
  // Aligned to 1024 bytes, where the TMA's 128-byte swizzle repeats (dynamic shared memory
  // starts there).
  std::unique_ptr<char[]> arena_storage{new char[kArenaBytes + 1024]};
  char* arena = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(arena_storage.get()) + 1023) & ~uintptr_t(1023));

  // Launch state.
  trace::Builder* out = nullptr;
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
  std::vector<uint64_t> sizes;
  std::vector<uint32_t> decl_buffer;  // static shared declaration index -> buffer id
  uint32_t dyn_bytes = 0;
  int64_t dyn_buffer = -1;

  // Block state.
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

  void run_block(uint32_t linear, const trace::Dim3& grid, const trace::Dim3& block);
  void run_warp(uint32_t first, int nlanes, const trace::Dim3& block, bool waiting_only = false);
  void run_round(uint32_t linear, uint32_t n, uint32_t warps, const trace::Dim3& block, uint32_t epoch,
                 std::vector<uint32_t>& seq, uint64_t& accesses, bool waiting_only);
  void run_waiting(uint32_t linear, uint32_t n, uint32_t warps, const trace::Dim3& block, uint32_t epoch,
                   std::vector<uint32_t>& seq, uint64_t& accesses);
  void rendezvous(Thread* const* warp_lanes, int nlanes, uint32_t first);
  void merge_warp(Thread* const* lanes, int nlanes, uint32_t block, uint32_t warp, uint32_t epoch,
                  uint32_t& seq, uint64_t& accesses);
  uint32_t register_shared(const char* name, uint64_t bytes, uint32_t elem_bytes, uint64_t rows,
                           uint64_t cols);
};

namespace {
thread_local Machine::Impl* g_machine = nullptr;

// Thrown by a barrier reached while threads run as plain calls.
struct NeedsFibers {};

// "thread 3,0 of block 1,2": the running thread, for a line that refuses what it did.
std::string where() {
  return "thread " + std::to_string(threadIdx.x) + "," + std::to_string(threadIdx.y) + " of block " +
         std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y);
}

void record_boxes(Thread& th);

void thread_main(void* p) {
  auto* th = static_cast<Thread*>(p);
  Machine::Impl* m = g_machine;
  try {
    m->fn(m->arg);
    if (!th->copies.empty())
      throw KernelError("cp.async at kernel line " + std::to_string(trace::key_line(th->copies[0].key)) + ": " +
                        where() + " ended with copies still in flight (cp_async_wait<0>() lands them)");
    if (!th->stores.empty())
      throw KernelError("TMA store at kernel line " + std::to_string(trace::key_line(th->stores[0].key)) + ": " +
                        where() + " ended with the store in flight (tma_store_commit, then tma_store_wait<0>)");
    record_boxes(*th);  // a producer's last boxes (the block's end checks that they landed)
  } catch (const std::exception& e) {
    if (m->error.empty()) m->error = e.what();
  }
  th->done = true;
}
}  // namespace

void out_of_bounds(uint32_t line, uint32_t buffer, int64_t offset, uint64_t size) {
  const auto& buffers = g_machine->out->trace().buffers;
  const std::string name = buffer < buffers.size() ? buffers[buffer].name : "buffer " + std::to_string(buffer);
  const uint32_t thread[2] = {threadIdx.x, threadIdx.y}, block[2] = {blockIdx.x, blockIdx.y};
  throw KernelError(trace::out_of_bounds_text(name, line, offset, size, thread, block));
}

void barrier() {
  Machine::Impl* m = g_machine;
  if (!m->cur) throw NeedsFibers{};
  ++m->barriers;
  m->cur->fiber.yield();
}

namespace {

// The running lane, for a call that needs fibers (a rendezvous, or a queue that outlives
// one call): a block run as plain calls is run again with fibers.
Thread& lane_thread() {
  Machine::Impl* m = g_machine;
  if (!m->cur) throw NeedsFibers{};
  m->warp_ops = true;
  return *m->cur;
}

// An operand of a warp-wide call or a copy: `bytes` from byte `off` of the key's array,
// which must be in `space`, aligned to `bytes` and inside the array.
void check_operand(const char* what, uint32_t key, uint32_t off, uint32_t bytes, trace::Space space) {
  Machine::Impl* m = g_machine;
  const uint32_t line = trace::key_line(key), buf = trace::key_buffer(key);
  const auto& buffers = m->out->trace().buffers;
  const std::string name = buf < buffers.size() ? buffers[buf].name : "buffer " + std::to_string(buf);
  const std::string at = std::string(what) + " at kernel line " + std::to_string(line) + ": ";
  if (buf >= buffers.size() || buffers[buf].space != space)
    throw KernelError(at + "'" + name + "' is not " +
                      (space == trace::Space::Shared ? "a shared array" : "a global array") + " (" + where() + ")");
  if (off % bytes)
    throw KernelError(at + "byte offset " + std::to_string(off) + " of '" + name + "' is not " + std::to_string(bytes) +
                      "-byte aligned (" + where() + ")");
  if (uint64_t(off) + bytes > m->sizes[buf]) out_of_bounds(line, buf, off, m->sizes[buf]);
}

void meet(Thread& th) {
  th.at_meet = true;
  th.fiber.yield();
}

}  // namespace

void ldmatrix(uint32_t* r, uint32_t matrices, bool trans, const void* row, uint32_t key, uint32_t off) {
  Thread& th = lane_thread();
  const uint32_t line = trace::key_line(key);
  const uint32_t lane = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % trace::kWarpSize;
  const uint32_t k = trace::with_form(trace::make_key(line, trace::key_buffer(key), uint32_t(trace::Op::Load), 16),
                                     uint32_t(trace::Form::Matrix));
  if (lane < 8 * matrices) {  // .x1 and .x2 take their rows from the first 8 and 16 lanes
    check_operand("ldmatrix", key, off, 16, trace::Space::Shared);
    current_log->push(k, off);
  } else {
    current_log->push(k, trace::kNoRow);  // here, with no row: the warp's lanes meet as one
  }
  th.meet = MeetSlot{};
  th.meet.op = WarpOp::Ldmatrix;
  th.meet.line = line;
  th.meet.row = static_cast<const char*>(row);
  th.meet.matrices = matrices;
  th.meet.trans = trans;
  meet(th);
  for (uint32_t i = 0; i < matrices; ++i) r[i] = th.meet.out[i];
}

void mma_m16n8k16(float* d, const uint32_t* a, const uint32_t* b, uint32_t line) {
  Thread& th = lane_thread();
  current_log->push(trace::event_key(line, uint32_t(trace::Form::Mma)), 0);
  th.meet = MeetSlot{};
  th.meet.op = WarpOp::Mma;
  th.meet.line = line;
  for (int i = 0; i < 4; ++i) th.meet.in[i] = a[i];
  for (int i = 0; i < 2; ++i) th.meet.in[4 + i] = b[i];
  std::memcpy(&th.meet.in[6], d, 16);
  meet(th);
  std::memcpy(d, th.meet.out, 16);
}

uint64_t wgmma_desc(const void* tile, uint32_t key, uint32_t off) {
  Machine::Impl* m = g_machine;
  check_operand("wgmma_desc", key, off, 16, trace::Space::Shared);
  const uint64_t at = uint64_t(static_cast<const char*>(tile) - m->arena);
  if (at % 1024)
    throw KernelError("wgmma_desc at kernel line " + std::to_string(trace::key_line(key)) +
                      ": a tile not aligned to 1024 bytes, where the 128-byte swizzle's pattern starts (" + where() + ")");
  return trace::wgmma_sw128_desc(at);
}

void wgmma(float* d, uint32_t n, uint64_t da, uint64_t db, uint32_t line) {
  Thread& th = lane_thread();
  current_log->push(trace::event_key(line, uint32_t(trace::Form::Mma)), n);
  th.meet = MeetSlot{};
  th.meet.op = WarpOp::Wgmma;
  th.meet.line = line;
  th.meet.acc = d;
  th.meet.da = da;
  th.meet.db = db;
  th.meet.n = n;
  meet(th);
}

void wgmma_commit(uint32_t line) {
  lane_thread();
  current_log->push(trace::event_key(line, uint32_t(trace::Form::Commit)), 0);
}

void wgmma_wait(uint32_t n, uint32_t line) {
  lane_thread();
  current_log->push(trace::event_key(line, uint32_t(trace::Form::Wait)), n);
}

void cp_async(void* dst, uint32_t dst_key, uint32_t dst_off, const void* src, uint32_t src_key, uint32_t src_off,
              uint32_t bytes) {
  Thread& th = lane_thread();
  check_operand("cp.async", src_key, src_off, bytes, trace::Space::Global);
  check_operand("cp.async", dst_key, dst_off, bytes, trace::Space::Shared);
  const uint32_t line = trace::key_line(src_key);
  if (th.copies.size() >= trace::kCopiesInFlight)
    throw KernelError("cp.async at kernel line " + std::to_string(line) + ": this lane already has " +
                      std::to_string(th.copies.size()) + " copies in flight, the most warpscope tracks a lane " +
                      "(wait for some to land first) (" + where() + ")");
  const uint32_t read = trace::make_key(line, trace::key_buffer(src_key), uint32_t(trace::Op::Load), bytes);
  current_log->push(trace::with_form(read, uint32_t(trace::Form::AsyncRead)), src_off);
  PendingCopy c;
  c.dst = static_cast<char*>(dst);
  c.key = trace::with_form(trace::make_key(line, trace::key_buffer(dst_key), uint32_t(trace::Op::Store), bytes),
                           uint32_t(trace::Form::AsyncWrite));
  c.off = dst_off;
  c.bytes = bytes;
  c.group = kUncommitted;
  std::memcpy(c.data, src, bytes);  // global memory does not change under a running kernel's copies
  th.copies.push_back(c);
}

void cp_async_commit(uint32_t line) {
  Thread& th = lane_thread();
  current_log->push(trace::event_key(line, uint32_t(trace::Form::Commit)), 0);
  for (auto& c : th.copies)
    if (c.group == kUncommitted) c.group = th.groups;
  ++th.groups;  // an empty group counts too, as on the hardware
}

void cp_async_wait(uint32_t n, uint32_t line) {
  Thread& th = lane_thread();
  size_t kept = 0;
  for (auto& c : th.copies) {
    if (c.group != kUncommitted && c.group + n < th.groups) {
      std::memcpy(c.dst, c.data, c.bytes);
      current_log->push(c.key, c.off);
    } else {
      th.copies[kept++] = c;
    }
  }
  th.copies.resize(kept);
  current_log->push(trace::event_key(line, uint32_t(trace::Form::Wait)), n);
}

// ---- mbarriers and TMA ------------------------------------------------------------------

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

uint32_t lane_of_thread() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % trace::kWarpSize;
}

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

// The writes of the lane's pieces of the boxes it asked for: recorded at its next mbarrier
// wait, whichever barrier that is.
void record_boxes(Thread& th) {
  for (const BoxWrite& w : th.boxes) current_log->push(w.key, w.off);
  th.boxes.clear();
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
  lane_thread();
  const char* what = bytes ? "mbarrier_arrive_expect_tx" : "mbarrier_arrive";
  Mbar b = mbar_operand(what, bar, key, off);
  if (lane_of_thread() != 0) return;
  if (b.pending == 0)
    throw KernelError(std::string(what) + " at kernel line " + std::to_string(trace::key_line(key)) +
                      ": more arrivals than the mbarrier expects in a phase (" + where() + ")");
  b.tx += bytes;
  --b.pending;
  mbar_update(bar, b);
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
  Thread& th = lane_thread();
  Machine::Impl* m = g_machine;
  const trace::TmaBox2D box = checked_box("TMA load", line, map, x, y, dst, dst_key, dst_off);
  Mbar b = mbar_operand("TMA load", bar, bar_key, bar_off);
  const uint32_t read = trace::with_form(trace::make_key(line, map.buffer, uint32_t(trace::Op::Load), 16),
                                         uint32_t(trace::Form::BulkRead));
  const uint32_t write = trace::with_form(
      trace::make_key(line, trace::key_buffer(dst_key), uint32_t(trace::Op::Store), 16), uint32_t(trace::Form::BulkWrite));
  uint32_t bytes = 0;
  for (uint32_t p = lane_of_thread(); p < box.pieces(); p += trace::kWarpSize) {
    const uint64_t g = box.global_offset(p);
    const uint32_t o = box.shared_offset(p);
    current_log->push(read, uint32_t(g));
    Landing& l = m->landing.emplace_back();
    l.bar = static_cast<const char*>(bar);
    l.dst = static_cast<char*>(dst) + o;
    std::memcpy(l.data, map.array + g, 16);  // global memory does not change under a running kernel's copies
    th.boxes.push_back({write, dst_off + o});
    bytes += 16;
  }
  if (bytes == 0) return;
  b.tx -= bytes;
  mbar_update(bar, b);
}

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

uint32_t Machine::Impl::register_shared(const char* name, uint64_t bytes, uint32_t elem_bytes,
                                        uint64_t rows, uint64_t cols) {
  const uint32_t id = out->add_shared(name, elem_bytes, rows, cols, bytes);
  sizes.push_back(bytes);
  buffer_sizes = sizes.data();
  return id;
}

SharedSlot shared_slot(const char* name, uint64_t bytes, uint32_t elem_bytes, uint64_t rows,
                       uint64_t cols) {
  Machine::Impl* m = g_machine;
  if (!m->cur) throw NeedsFibers{};
  uint32_t d = m->cur->decls++;
  if (d == m->decl_buffer.size()) m->decl_buffer.push_back(m->register_shared(name, bytes, elem_bytes, rows, cols));
  if (d == m->decl_offset.size()) {
    size_t off = (m->arena_used + 127) & ~size_t(127);
    if (off + bytes > kMaxShared)
      throw KernelError("shared memory of the block (static and dynamic) over 227 KiB, the most an H100 gives one block");
    m->decl_offset.push_back(off);
    m->arena_used = off + bytes;
  }
  return {m->arena + m->decl_offset[d], m->decl_buffer[d], bytes};
}

SharedSlot dynamic_shared_slot(const char* name, uint32_t elem_bytes) {
  Machine::Impl* m = g_machine;
  if (!m->cur) throw NeedsFibers{};
  if (m->dyn_bytes == 0) throw KernelError("kernel uses dynamic shared memory but the launch gave none");
  if (m->dyn_buffer < 0)
    m->dyn_buffer = m->register_shared(name, m->dyn_bytes, elem_bytes, 1, m->dyn_bytes / elem_bytes);
  return {m->arena, uint32_t(m->dyn_buffer), m->dyn_bytes};
}

void Machine::Impl::merge_warp(Thread* const* lanes, int nlanes, uint32_t block, uint32_t warp,
                               uint32_t epoch, uint32_t& seq, uint64_t& accesses) {
  const uint64_t* first[trace::kWarpSize];
  const uint64_t* end[trace::kWarpSize];
  for (int l = 0; l < nlanes; ++l) {
    first[l] = lanes[l]->log.data;
    end[l] = lanes[l]->log.end;
  }
  accesses += out->group(first, end, nlanes, block, warp, epoch, seq);
  for (int l = 0; l < nlanes; ++l) lanes[l]->log.end = lanes[l]->log.data;
}

void Machine::Impl::run_block(uint32_t linear, const trace::Dim3& grid, const trace::Dim3& block) {
  blockIdx = uint3{linear % grid.x, (linear / grid.x) % grid.y, linear / (grid.x * grid.y)};
  const uint32_t n = uint32_t(block.count());
  const uint32_t warps = (n + trace::kWarpSize - 1) / trace::kWarpSize;
  // Blocks of a kernel that never reaches a barrier run their threads as plain calls on
  // this stack: no fiber to prepare or switch to, which is most of a copy's cost.
  if (direct) {
    try {
      run_block_direct(linear, n, warps);
      return;
    } catch (const NeedsFibers&) {
      // A barrier after all (it depends on the block): run this block again with fibers.
      // Catalog kernels compute each output from inputs only, so repeating is harmless.
      direct = false;
      for (uint32_t t = 0; t < n; ++t) lanes[t]->log.end = lanes[t]->log.data;
      records_rollback();
    }
  }
  std::memset(arena, 0xff, std::max<size_t>(arena_used, dyn_bytes));  // NaN: unwritten shared reads show
  decl_offset.clear();
  arena_used = dyn_bytes;
  for (uint32_t t = 0; t < n; ++t) {
    Thread* th = lanes[t];
    th->fiber.reset(&thread_main, th);
    th->decls = 0;
    th->done = false;
    th->at_meet = false;
    th->copies.clear();
    th->groups = 0;
    th->at_mbar = false;
    th->boxes.clear();
    th->stores.clear();
    th->bulk_groups = 0;
    th->log.end = th->log.data;
  }
  std::vector<uint32_t> seq(warps, 0);
  uint64_t accesses = 0;
  barriers = 0;
  landing.clear();
  mbar_changes = 0;
  for (uint32_t epoch = 0;; ++epoch) {
    bool all_done = true;
    run_round(linear, n, warps, block, epoch, seq, accesses, false);
    run_waiting(linear, n, warps, block, epoch, seq, accesses);
    for (uint32_t t = 0; t < n; ++t) all_done &= lanes[t]->done;
    if (all_done) break;
  }
  if (!landing.empty())
    throw KernelError("TMA load: block " + std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) +
                      " ended with a box that never landed (its mbarrier's phase never completed: an arrival "
                      "missing, or more bytes expected than the boxes bring)");
  if (barriers == 0 && !uses_shared() && !warp_ops) direct = true;
  lane_accesses += accesses;
}

// Within a barrier interval, the lanes that stopped at an mbarrier wait run again, warp by
// warp, while the block's mbarriers move; when none moves and some still wait, no lane can
// complete their phases: a deadlock, said in one line.
void Machine::Impl::run_waiting(uint32_t linear, uint32_t n, uint32_t warps, const trace::Dim3& block,
                                uint32_t epoch, std::vector<uint32_t>& seq, uint64_t& accesses) {
  for (uint64_t seen = ~uint64_t(0), before = n + 1;;) {
    uint32_t waiting = 0, first_waiting = n;
    for (uint32_t t = 0; t < n; ++t)
      if (lanes[t]->at_mbar && !lanes[t]->done) {
        ++waiting;
        first_waiting = std::min(first_waiting, t);
      }
    if (waiting == 0) return;
    if (mbar_changes == seen && waiting >= before)
      throw KernelError("an mbarrier wait that never returns: " + std::to_string(waiting) + " threads of block " +
                        std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) + " (the first, thread " +
                        std::to_string(first_waiting) + ") wait for a phase that no thread or copy can complete");
    seen = mbar_changes;
    before = waiting;
    run_round(linear, n, warps, block, epoch, seq, accesses, true);
  }
}

// Every warp of the block, one after another, runs as far as it can (`waiting_only`: only
// its lanes at an mbarrier wait), and its lanes' logs become the warp's records.
void Machine::Impl::run_round(uint32_t linear, uint32_t n, uint32_t warps, const trace::Dim3& block, uint32_t epoch,
                              std::vector<uint32_t>& seq, uint64_t& accesses, bool waiting_only) {
  for (uint32_t w = 0; w < warps; ++w) {
    const uint32_t first = w * trace::kWarpSize;
    const int nl = int(std::min<uint32_t>(trace::kWarpSize, n - first));
    run_warp(first, nl, block, waiting_only);
    merge_warp(&lanes[first], nl, linear, w, epoch, seq[w], accesses);
  }
}

// One barrier interval of a warp: each lane runs to the block's barrier, to its end, or to
// a warp-wide call; when the lanes meet at one, the call's results are worked out for all
// of them at once and they go on. (`waiting_only`: only the lanes at an mbarrier wait.)
void Machine::Impl::run_warp(uint32_t first, int nlanes, const trace::Dim3& block, bool waiting_only) {
  auto resume = [&](uint32_t t) {
    Thread* th = lanes[t];
    threadIdx = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
    current_log = &th->log;
    cur = th;
    th->at_meet = false;
    th->fiber.resume();
    if (!error.empty()) throw KernelError(error);
  };
  for (int l = 0; l < nlanes; ++l)
    if (!lanes[first + uint32_t(l)]->done && (!waiting_only || lanes[first + uint32_t(l)]->at_mbar))
      resume(first + uint32_t(l));
  for (;;) {
    bool met = false;
    for (int l = 0; l < nlanes; ++l) met |= lanes[first + uint32_t(l)]->at_meet;
    if (!met) return;
    rendezvous(&lanes[first], nlanes, first);
    for (int l = 0; l < nlanes; ++l) resume(first + uint32_t(l));
  }
}

// Every lane of the warp must be at the same warp-wide call (.sync.aligned): a lane at the
// block's barrier, ended, or at another call is refused in one line.
void Machine::Impl::rendezvous(Thread* const* warp_lanes, int nlanes, uint32_t first) {
  const MeetSlot* lead = nullptr;
  int there = 0;
  for (int l = 0; l < nlanes; ++l)
    if (warp_lanes[l]->at_meet) {
      if (!lead) lead = &warp_lanes[l]->meet;
      const MeetSlot& m = warp_lanes[l]->meet;
      if (m.op == lead->op && m.line == lead->line && m.matrices == lead->matrices && m.trans == lead->trans &&
          m.da == lead->da && m.db == lead->db)
        ++there;
    }
  const char* what = lead->op == WarpOp::Mma ? "mma" : lead->op == WarpOp::Wgmma ? "wgmma" : "ldmatrix";
  if (there != nlanes || nlanes != trace::kWarpSize) {
    throw KernelError(std::string(what) + " at kernel line " + std::to_string(lead->line) + ": " +
                      std::to_string(there) + " of the 32 lanes of warp " + std::to_string(first / trace::kWarpSize) +
                      " of block " + std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) +
                      " reached it (it is warp-wide: every lane of a full warp must call it)");
  }
  MeetSlot slots[trace::kWarpSize];
  for (int l = 0; l < nlanes; ++l) slots[l] = warp_lanes[l]->meet;
  if (lead->op == WarpOp::Wgmma) {
    const std::string e = perform_wgmma(slots, nlanes, arena, std::max<size_t>(arena_used, dyn_bytes), first / trace::kWarpSize % 4);
    if (!e.empty())
      throw KernelError(std::string("wgmma at kernel line ") + std::to_string(lead->line) + ": " + e);
    return;
  }
  if (lead->op == WarpOp::Mma)
    perform_mma(slots, nlanes);
  else
    perform_ldmatrix(slots, nlanes);
  for (int l = 0; l < nlanes; ++l) std::memcpy(warp_lanes[l]->meet.out, slots[l].out, sizeof slots[l].out);
}

void Machine::Impl::run_block_direct(uint32_t linear, uint32_t n, uint32_t warps) {
  mark = out->trace().records.size();
  mark_dropped = out->launch().dropped_records;
  uint64_t accesses = 0;
  uint3 tid{0, 0, 0};
  const dim3 block = blockDim;
  cur = nullptr;
  for (uint32_t w = 0; w < warps; ++w) {
    const uint32_t first = w * trace::kWarpSize;
    const int nl = int(std::min<uint32_t>(trace::kWarpSize, n - first));
    for (int l = 0; l < nl; ++l) {
      threadIdx = tid;
      current_log = &lanes[first + l]->log;
      fn(arg);
      if (++tid.x == block.x) {
        tid.x = 0;
        if (++tid.y == block.y) {
          tid.y = 0;
          ++tid.z;
        }
      }
    }
    uint32_t seq = 0;
    merge_warp(&lanes[first], nl, linear, w, 0, seq, accesses);
  }
  lane_accesses += accesses;
}

Machine::Machine() : impl_(new Impl) {}
Machine::~Machine() = default;

uint64_t Machine::run(uint32_t dynamic_shared_bytes, void (*thread_fn)(void*), void* arg, const CaptureOptions& opt,
                      trace::Builder& out) {
  Impl& m = *impl_;
  const trace::Dim3 grid = out.launch().grid, block = out.launch().block;
  const uint64_t nthreads = block.count();
  if (nthreads == 0 || nthreads > 1024) throw KernelError("block of " + std::to_string(nthreads) + " threads: must be 1..1024");
  if (grid.count() == 0) throw KernelError("empty grid");
  if (dynamic_shared_bytes > kMaxShared)
    throw KernelError("dynamic shared memory over 227 KiB, the most an H100 gives one block");
  while (m.threads.size() < nthreads) {
    m.threads.push_back(std::make_unique<Thread>());
    m.threads.back()->fiber.allocate(default_stack_bytes());
    m.lanes.push_back(m.threads.back().get());
  }
  m.out = &out;
  m.fn = thread_fn;
  m.arg = arg;
  m.sizes.clear();
  for (const auto& b : out.trace().buffers) m.sizes.push_back(b.size_bytes);
  m.sizes.reserve(m.sizes.size() + 64);
  m.decl_buffer.clear();
  m.dyn_bytes = dynamic_shared_bytes;
  m.dyn_buffer = -1;
  m.error.clear();
  m.arena_used = kArenaBytes;  // poison everything before the first block
  m.lane_accesses = 0;
  m.direct = false;
  m.warp_ops = false;

  Machine::Impl* saved = g_machine;
  g_machine = &m;
  buffer_sizes = m.sizes.data();
  blockDim = dim3(block.x, block.y, block.z);
  gridDim = dim3(grid.x, grid.y, grid.z);
  struct Restore {
    Machine::Impl* saved;
    ~Restore() {
      g_machine = saved;
      current_log = nullptr;
    }
  } restore{saved};

  std::vector<uint32_t> order;
  if (opt.blocks.empty()) {
    order.resize(grid.count());
    for (uint64_t b = 0; b < grid.count(); ++b) order[b] = uint32_t(b);
  } else {
    for (uint32_t b : opt.blocks)
      if (b >= grid.count())
        throw std::invalid_argument("block " + std::to_string(b) + " is outside the grid of " +
                                    std::to_string(grid.count()) + " blocks");
    order = opt.blocks;
  }
  for (size_t i = 0; i < order.size(); ++i) {
    m.run_block(order[i], grid, block);
    out.block_done(order[i]);
    // After the first block, the rest of the launch is predictable: refuse early rather
    // than keep the user waiting for minutes.
    const uint64_t estimate = m.lane_accesses / (i + 1) * order.size();
    if (i == 0 ? estimate > opt.max_lane_accesses : m.lane_accesses > opt.max_lane_accesses)
      throw std::invalid_argument("this launch would emulate about " + std::to_string(estimate) +
                                  " lane accesses (limit " + std::to_string(opt.max_lane_accesses) +
                                  "): use a smaller --size or record part of the grid with --blocks");
  }
  return m.lane_accesses;
}

}  // namespace ws::emu
