#include "emu/machine.h"

#include <algorithm>
#include <cstring>

#include "emu/impl.h"
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


thread_local Machine::Impl* g_machine = nullptr;

std::string where() {
  return "thread " + std::to_string(threadIdx.x) + "," + std::to_string(threadIdx.y) + " of block " +
         std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y);
}

namespace {
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

Thread& lane_thread() {
  Machine::Impl* m = g_machine;
  if (!m->cur) throw NeedsFibers{};
  m->warp_ops = true;
  return *m->cur;
}

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

namespace {
void meet(Thread& th) {
  th.at_meet = true;
  th.fiber.yield();
}

}  // namespace

void ldmatrix(uint32_t* r, uint32_t matrices, bool trans, const void* row, uint32_t key, uint32_t off) {
  Thread& th = lane_thread();
  const uint32_t line = trace::key_line(key);
  const uint32_t lane = lane_of_thread();
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

void setmaxnreg(uint32_t n, uint32_t line) {
  lane_thread();
  if (!trace::register_count_ok(n))
    throw KernelError("setmaxnreg at kernel line " + std::to_string(line) + ": " + std::to_string(n) +
                      " registers a thread (24 to 256, a multiple of 8) (" + where() + ")");
  current_log->push(trace::event_key(line, uint32_t(trace::Form::Registers)), n);
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

// Runs the blocks of `ctas` together: one block, or the CTAs of a thread block cluster,
// whose threads meet at cluster barriers and reach each other's shared memory.
void Machine::Impl::run_block(const trace::Dim3& block) {
  const uint32_t linear = ctas[0];
  cta_index.clear();
  for (uint32_t c : ctas) {
    const trace::Dim3 b = out->launch().block_coords(c);
    cta_index.push_back(uint3{b.x, b.y, b.z});
  }
  blockIdx = cta_index[0];
  const uint32_t n = uint32_t(block.count()), all = n * uint32_t(ctas.size());
  const uint32_t warps = (n + trace::kWarpSize - 1) / trace::kWarpSize;
  threads_per_block = n;
  // Blocks of a kernel that never reaches a barrier run their threads as plain calls on
  // this stack: no fiber to prepare or switch to, which is most of a copy's cost.
  if (direct && ctas.size() == 1) {
    arena = arenas[0];
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
  for (size_t c = 0; c < ctas.size(); ++c)
    std::memset(arenas[c], 0xff, std::max<size_t>(arena_used, dyn_bytes));  // NaN: unwritten shared reads show
  decl_offset.clear();
  arena_used = dyn_bytes;
  for (uint32_t t = 0; t < all; ++t) {
    Thread* th = lanes[t];
    th->fiber.reset(&thread_main, th);
    th->cta = t / n;
    th->index = t % n;
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
  std::vector<uint32_t> seq(warps * ctas.size(), 0);
  uint64_t accesses = 0;
  barriers = 0;
  landing.clear();
  mbar_changes = 0;
  for (uint32_t epoch = 0;; ++epoch) {
    bool all_done = true;
    run_round(n, warps, block, epoch, seq, accesses, false);
    run_waiting(n, warps, block, epoch, seq, accesses);
    for (uint32_t t = 0; t < all; ++t) all_done &= lanes[t]->done;
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
void Machine::Impl::run_waiting(uint32_t n, uint32_t warps, const trace::Dim3& block, uint32_t epoch,
                                std::vector<uint32_t>& seq, uint64_t& accesses) {
  const uint32_t all = n * uint32_t(ctas.size());
  for (uint64_t seen = ~uint64_t(0), before = all + 1;;) {
    uint32_t waiting = 0, first_waiting = all;
    for (uint32_t t = 0; t < all; ++t)
      if (lanes[t]->at_mbar && !lanes[t]->done) {
        ++waiting;
        first_waiting = std::min(first_waiting, t);
      }
    if (waiting == 0) return;
    if (mbar_changes == seen && waiting >= before) {
      enter(lanes[first_waiting], block);
      throw KernelError("an mbarrier wait that never returns: " + std::to_string(waiting) + " threads of block " +
                        std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) + " (the first, thread " +
                        std::to_string(first_waiting % n) + ") wait for a phase that no thread or copy can complete");
    }
    seen = mbar_changes;
    before = waiting;
    run_round(n, warps, block, epoch, seq, accesses, true);
  }
}

// Every warp of the blocks, one after another, runs as far as it can (`waiting_only`: only
// its lanes at an mbarrier wait), and its lanes' logs become the warp's records.
void Machine::Impl::run_round(uint32_t n, uint32_t warps, const trace::Dim3& block, uint32_t epoch,
                              std::vector<uint32_t>& seq, uint64_t& accesses, bool waiting_only) {
  for (uint32_t c = 0; c < ctas.size(); ++c)
    for (uint32_t w = 0; w < warps; ++w) {
      const uint32_t first = c * n + w * trace::kWarpSize;
      const int nl = int(std::min<uint32_t>(trace::kWarpSize, n - w * trace::kWarpSize));
      run_warp(first, nl, block, waiting_only);
      merge_warp(&lanes[first], nl, ctas[c], w, epoch, seq[c * warps + w], accesses);
    }
}

// The running thread becomes th: its index, its block's, its log, its block's shared memory.
void Machine::Impl::enter(Thread* th, const trace::Dim3& block) {
  const uint32_t t = th->index;
  threadIdx = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
  blockIdx = cta_index[th->cta];
  current_log = &th->log;
  cur = th;
  arena = arenas[th->cta];
}

// One barrier interval of a warp: each lane runs to the block's barrier, to its end, or to
// a warp-wide call; when the lanes meet at one, the call's results are worked out for all
// of them at once and they go on. (`waiting_only`: only the lanes at an mbarrier wait.)
void Machine::Impl::run_warp(uint32_t first, int nlanes, const trace::Dim3& block, bool waiting_only) {
  auto resume = [&](uint32_t t) {
    Thread* th = lanes[t];
    enter(th, block);
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
    enter(lanes[first], block);
    rendezvous(&lanes[first], nlanes, first % threads_per_block);
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
  // Thread block clusters: the CTAs of a cluster run together (at most 8, the portable size).
  const trace::Dim3 cl = out.launch().cluster;
  if (cl.count() == 0 || cl.count() > 8 || grid.x % cl.x || grid.y % cl.y || grid.z % cl.z)
    throw KernelError("a grid of " + std::to_string(grid.x) + " x " + std::to_string(grid.y) + " x " +
                      std::to_string(grid.z) + " blocks in clusters of " + std::to_string(cl.x) + " x " +
                      std::to_string(cl.y) + " x " + std::to_string(cl.z) +
                      ": the grid must be whole clusters of at most 8 blocks");
  const uint32_t per = uint32_t(cl.count());
  while (m.threads.size() < nthreads * per) {
    m.threads.push_back(std::make_unique<Thread>());
    m.threads.back()->fiber.allocate(default_stack_bytes());
    m.lanes.push_back(m.threads.back().get());
  }
  while (m.arenas.size() < per) m.add_arena();
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
  // The blocks run cluster by cluster, in the order of their first block asked for: a block
  // asked for brings the other CTAs of its cluster, run and recorded with it.
  std::vector<bool> ran(grid.count(), false);
  uint64_t run_blocks = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (ran[order[i]]) continue;
    m.ctas = out.launch().cluster_blocks(order[i]);
    for (uint32_t c : m.ctas) ran[c] = true;
    m.run_block(block);
    for (uint32_t c : m.ctas) out.block_done(c);
    run_blocks += per;
    // After the first block, the rest of the launch is predictable: refuse early rather
    // than keep the user waiting for minutes.
    const uint64_t estimate = m.lane_accesses / run_blocks * std::max<uint64_t>(order.size(), run_blocks);
    if (i == 0 ? estimate > opt.max_lane_accesses : m.lane_accesses > opt.max_lane_accesses)
      throw std::invalid_argument("this launch would emulate about " + std::to_string(estimate) +
                                  " lane accesses (limit " + std::to_string(opt.max_lane_accesses) +
                                  "): use a smaller --size or record part of the grid with --blocks");
  }
  return m.lane_accesses;
}

}  // namespace ws::emu
