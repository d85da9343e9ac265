// src/ptx/warp.cpp — the warp scheduler: a block's warps run in turn between barriers, a
// warp's lanes in lock step with divergence and reconvergence by program counter, and the
// Control rows of opcodes.def (bra, call, ret, exit, bar) that move those counters. Also
// the values of special registers and symbols an operand names.
#include <algorithm>
#include <cstring>

#include "ptx/block_run.h"

namespace ws::ptx {

// The memory of one block (shared window, local frames, call area, registers), sized once
// and cleared by run() for each block (of the registers, those a thread may read before
// writing them), and per-instruction caches kept across blocks.
BlockRun::BlockRun(Device& d, const Kernel& k, const KernelLaunch& a, trace::Builder& b, std::vector<uint32_t>& files,
         uint64_t& budget)
    : d_(d), k_(k), a_(a), b_(b), files_(files), budget_(budget) {
  threads_ = uint32_t(a.block.count());
  nwarps_ = (threads_ + 31) / 32;
  shared_.assign(size_t(shared_bytes()), 0);
  local_.assign(size_t(k.local_bytes) * threads_, 0);
  regs_.assign(size_t(k.registers) * 32 * nwarps_, 0);
  fresh_ = entry_registers(k);
  call_.assign(size_t(k.call_bytes) * threads_, 0);
  if (!k.linked.empty()) stacks_.resize(threads_);
  warps_.resize(nwarps_);
  for (const Insn& in : k.code) {
    cluster_barrier_ |= in.op == Opc::Bar && in.sub >= uint8_t(BarRed::ClusterArrive);
    cluster_addresses_ |= in.op == Opc::Mapa;
  }
  sites_.assign(k.code.size() * trace::kSpaceCount, trace::kNoBuffer);
  pc_shared_.assign(k.code.size(), 0);
  pc_alloc_.assign(k.code.size(), nullptr);
  // Where each shared array lies in the block's window (the extern one: the dynamic part).
  for (const Variable& v : k.shared)
    shared_range_.push_back(v.external ? std::pair<uint64_t, uint64_t>{dyn_base(), shared_.size()}
                                       : std::pair<uint64_t, uint64_t>{v.offset, v.offset + v.bytes});
}

BlockRun::~BlockRun() {
  d_.blocks_compiled_ += compiled_blocks_;
  d_.blocks_interpreted_ += interpreted_blocks_;
  d_.blocks_repeated_ += repeated_blocks_;
}

// Runs the block's warps in turn, each until it exits or waits at a barrier; when every
// live lane waits, the barrier opens (a new epoch) and they run again.
uint64_t BlockRun::run(uint32_t block) {
  start(block);
  memo_begin();
  uint64_t lanes = 0;
  while (!resume(lanes)) {
  }
  memo_end();
  return lanes;
}

void BlockRun::start(uint32_t block) {
  block_ = block;
  if (d_.stopping()) stopped(0, nullptr);
  compiled_setup();  // the module's native code, once it is loaded
  ++(entry_ ? compiled_blocks_ : interpreted_blocks_);
  epoch_ = 0;
  red_ = nullptr;
  red_lanes_.assign(nwarps_, 0);
  named_.fill(Named{});
  red_count_ = 0;
  red_and_ = true;
  red_or_ = false;
  async_reset();
  if (block) {  // what the previous block left
    std::fill(shared_.begin(), shared_.end(), 0);
    std::fill(local_.begin(), local_.end(), 0);
    if (fresh_.size() == k_.registers) {
      std::fill(regs_.begin(), regs_.end(), 0);
    } else {  // (the others are written before they are read)
      for (uint32_t w = 0; w < nwarps_; ++w)
        for (uint32_t r : fresh_) std::fill_n(&reg(w, r, 0), 32, 0);
    }
    std::fill(call_.begin(), call_.end(), 0);
    for (Stack& st : stacks_) st = Stack{};
  }
  if (!cluster_ && cluster_barrier_) {
    sync_ = &own_sync_;
    own_sync_ = {0, threads_, 0, threads_};
  }
  if (sync_) cluster_arrived_.assign(threads_, 0);
  wg_arrived_.assign(nwarps_, 0);
  wg_computed_.assign(nwarps_, 0);
  wg_waiting_.assign(nwarps_, 0);
  for (uint32_t w = 0; w < nwarps_; ++w) {
    const uint32_t n = std::min(32u, threads_ - w * 32);
    warps_[w] = Warp{};
    warps_[w].live = n == 32 ? ~0u : ((1u << n) - 1);
  }
  const trace::Dim3& g = a_.grid;
  const trace::Dim3& bd = a_.block;
  const uint32_t place[kPlaceWords] = {bd.x, bd.y, bd.z, block % g.x, (block / g.x) % g.y, block / (g.x * g.y),
                                       g.x,  g.y,  g.z,  nwarps_};
  std::copy(place, place + kPlaceWords, place_);
}

bool BlockRun::resume(uint64_t& lanes) {
  for (;;) {
    bool any_live = false;
    yielded_ = false;
    for (uint32_t w = 0; w < nwarps_; ++w) {
      lanes += run_warp(w);
      any_live |= warps_[w].live != 0;
    }
    if (!any_live) {
      land_all_stores();  // bulk stores still pending complete with the block
      return true;
    }
    if (yielded_) return false;  // a warp still runs: the barrier it may reach has not opened
    // A named barrier that opened during the round freed warps whose turn had passed: they
    // run on in the next (a barrier still closed, or bar.sync 0, waits for them).
    for (const Warp& x : warps_)
      if (x.live & ~x.at_bar) return false;
    for (uint32_t id = 0; id < named_.size(); ++id)
      if (std::any_of(named_[id].lanes.begin(), named_[id].lanes.end(), [](uint32_t m) { return m != 0; })) {
        // every live lane waits, some at a named barrier that cannot open now
        Fault f("kernel " + kernel_name(k_.name) + ": a deadlock: every warp of block " + std::to_string(block_) +
                " waits, " + std::to_string(named_[id].arrived) + " of the " + std::to_string(named_[id].count) +
                " threads named barrier " + std::to_string(id) + " counts have reached it (" + where_warps() + ")");
        f.kind = "deadlock";
        throw f;
      }
    // Every live lane waits at a barrier: release them all (those at a bar.red with its
    // result in their destination).
    if (red_) {
      const uint64_t v = BarRed(red_->sub) == BarRed::Popc ? red_count_ : BarRed(red_->sub) == BarRed::And ? red_and_ : red_or_;
      for (uint32_t w = 0; w < nwarps_; ++w)
        for (uint32_t m = red_lanes_[w]; m; m &= m - 1) set(red_->o[0], w, std::countr_zero(m), v);
      red_ = nullptr;
      std::fill(red_lanes_.begin(), red_lanes_.end(), 0);
      red_count_ = 0;
      red_and_ = true;
      red_or_ = false;
    }
    for (Warp& w : warps_) w.at_bar = 0;
    ++epoch_;
  }
}

// Where each warp of the block stands, runs of warps alike together: "warps 0-3 at line 512
// (bar.sync), warp 4 exited".
std::string BlockRun::where_warps() const {
  std::string out, run;
  uint32_t first = 0;
  auto said = [&](uint32_t last) {
    if (run.empty()) return;
    out += (out.empty() ? "" : ", ") + (first == last ? "warp " + std::to_string(first)
                                                     : "warps " + std::to_string(first) + "-" + std::to_string(last)) + " " + run;
  };
  for (uint32_t w = 0; w < nwarps_; ++w) {
    const Warp& x = warps_[w];
    std::string here = "exited";
    if (x.live) {
      // A lane waiting at a barrier stands past it: the barrier is the instruction before.
      const uint32_t l = std::countr_zero(x.live), pc = x.pc[l];
      const bool waits = ((x.at_bar >> l) & 1u) && pc > 0 && k_.code[pc - 1].op == Opc::Bar;
      const Insn& in = k_.code[waits ? pc - 1 : pc];
      here = (in.line ? "at line " + std::to_string(in.line) : "at PTX line " + std::to_string(in.text_line)) + " (" + in.opcode + ")";
    }
    if (here != run) said(w - 1), run = here, first = w;
  }
  said(nwarps_ - 1);
  return out;
}

// A named barrier (bar.sync / bar.arrive id, count with a count of part of the block): each
// warp that reaches it counts 32 threads in, as on the GPU; bar.sync's lanes wait, and the
// barrier opens for them (a new epoch, as the warps it holds are ordered) once `count`
// threads are in. Warp-specialized kernels order their producer and consumer warps so.
void BlockRun::named_barrier(const Insn& in, Step& s, uint32_t id, uint32_t count) {
  if (id >= named_.size()) insn_fault(in, "barrier " + std::to_string(id) + " (a block has barriers 0 to 15)");
  if (count == 0 || count % 32 || count > nwarps_ * 32)
    insn_fault(in, "a thread count of " + std::to_string(count) + " (a multiple of 32, at most the block's " +
          std::to_string(nwarps_ * 32) + ")");
  Named& b = named_[id];
  if (b.count && b.count != count)
    insn_fault(in, "barrier " + std::to_string(id) + " reached for " + std::to_string(count) + " threads while it counts to " +
          std::to_string(b.count));
  b.count = count;
  b.arrived += 32;
  const bool waits = BarRed(in.sub) != BarRed::Arrive;
  if (waits) {
    b.lanes.resize(nwarps_);
    b.lanes[s.w] |= s.exec;
    warps_[s.w].at_bar |= s.exec;
  }
  advance(s.w, s.active, s.pc + 1);
  if (b.arrived < b.count) return;
  for (uint32_t w = 0; w < b.lanes.size(); ++w) warps_[w].at_bar &= ~b.lanes[w];
  b = Named{};
  ++epoch_;
}

// A special register's value for one lane (%tid, %ctaid, %laneid, %lanemask_*, ...).
uint64_t BlockRun::sreg(Sreg s, uint32_t w, int lane) const {
  // (A warp's %warpid is its index in the block, though the GPU's may differ, and the ISA
  // warns it can change; %nwarpid the block's warp count.)
  if (place_register(s)) return place_value(s, place_, w, lane);
  switch (s) {
    // %clock and %clock64 count the warp instructions the launch has executed so far.
    case Sreg::LanemaskLt: return (1ull << lane) - 1;
    case Sreg::LanemaskLe: return (2ull << lane) - 1;
    case Sreg::LanemaskEq: return 1ull << lane;
    case Sreg::LanemaskGe: return uint32_t(~((1ull << lane) - 1));
    case Sreg::LanemaskGt: return uint32_t(~((2ull << lane) - 1));
    case Sreg::Clock: case Sreg::Clock64: return clock_;
    // One streaming multiprocessor runs every block, in turn: %smid 0 of %nsmid 1. The
    // grid is the device's first (%gridid 1: the GPU numbers grids from 1). The global
    // timer counts nanoseconds as the clock counts instructions, one per warp instruction,
    // so that a program's timings come out the same on every run.
    case Sreg::Smid: return 0;
    case Sreg::Nsmid: return 1;
    case Sreg::Gridid: return 1;
    case Sreg::Globaltimer: return clock_;
    case Sreg::GlobaltimerLo: return uint32_t(clock_);
    case Sreg::GlobaltimerHi: return uint32_t(clock_ >> 32);
    // The block's shared memory ends where the reserved region (cooperative groups'
    // scratch) would start; nothing is placed there.
    case Sreg::ReservedSmem: return shared_.size();
    case Sreg::DynamicSmemSize: return a_.dynamic_shared;
    case Sreg::TotalSmemSize: return shared_.size();
    case Sreg::ClusterCtarank: case Sreg::ClusterNctarank: case Sreg::ClusterCtaidX: case Sreg::ClusterCtaidY:
    case Sreg::ClusterCtaidZ: case Sreg::ClusterNctaidX: case Sreg::ClusterNctaidY: case Sreg::ClusterNctaidZ:
    case Sreg::ClusteridX: case Sreg::ClusteridY: case Sreg::ClusteridZ: case Sreg::NclusteridX:
    case Sreg::NclusteridY: case Sreg::NclusteridZ: case Sreg::IsExplicitCluster: return cluster_sreg(s);
    // The grid's synchronisation workspace (cooperative groups' grid.sync() counts arriving
    // blocks there): null outside a cooperative launch, as on the GPU, where grid.sync() traps.
    case Sreg::Envreg1: return a_.cooperative ? d_.grid_workspace_ >> 32 : 0;
    case Sreg::Envreg2: return a_.cooperative ? uint32_t(d_.grid_workspace_) : 0;
    default: break;  // the place's (above)
  }
  return 0;
}

// What a symbol operand stands for: an offset in its own state space (a parameter's in the
// parameter buffer, a shared array's in the window), or a module variable's address.
uint64_t BlockRun::symval(uint32_t sym) const {
  const Kernel::Sym& s = k_.symbols[sym];
  switch (s.kind) {
    case Kernel::Sym::Param: return k_.params[s.index].offset;
    case Kernel::Sym::Shared: {
      const Variable& v = k_.shared[s.index];
      return v.external ? dyn_base() : v.offset;
    }
    case Kernel::Sym::Local: return s.index;
    case Kernel::Sym::Call: return kCallArea + s.index;
    case Kernel::Sym::CallParam:
    case Kernel::Sym::Ret: return 0;  // linked away
    case Kernel::Sym::Global: return d_.global_values_[s.index];
  }
  return 0;
}

[[gnu::noinline]] uint64_t BlockRun::val_other(const Operand& o, uint32_t w, int lane) {
  switch (o.kind) {
    case Operand::Imm: return uint64_t(o.imm);
    case Operand::Special: return sreg(o.sreg, w, lane);
    case Operand::Symbol: return symval(o.symbol) + local_shift(o.symbol, w, lane);
    default: return 0;
  }
}

// Runs warp `w` until every lane has exited or waits at a barrier. Each step executes the
// instruction of the lowest program counter with the lanes that stand there: paths that
// diverged run one after the other and reconverge where their counters meet again.
uint64_t BlockRun::run_warp(uint32_t w) {
  Warp& wp = warps_[w];
  uint64_t lanes_done = 0;
  const std::vector<Insn>& code = k_.code;
  // `known`: every ready lane stands at `pc` (a converged warp after an instruction all of
  // them ran), so the lanes need not be searched and their wp.pc entries, stale, are not
  // read; every instruction that can part them writes all of its lanes' entries.
  bool known = false;
  uint32_t pc = ~0u, active = 0;
  for (;;) {
    const uint32_t ready = wp.live & ~wp.at_bar;
    if (!ready) return lanes_done;
    if (!known) {
      // The lowest program counter among the ready lanes, and the lanes that stand there:
      // where every lane stands at the first ready one's (a converged warp, as after a
      // barrier), found in one pass that vectorizes; else lane by lane.
      pc = wp.pc[std::countr_zero(ready)];
      uint32_t apart = 0;
      for (int l = 0; l < 32; ++l) apart |= wp.pc[l] ^ pc;
      active = ready;
      if (apart) {
        pc = ~0u;
        active = 0;
        for (uint32_t m = ready; m; m &= m - 1) {
          const int l = std::countr_zero(m);
          const uint32_t p = wp.pc[l];
          if (p < pc) {
            pc = p;
            active = 1u << l;
          } else if (p == pc) {
            active |= 1u << l;
          }
        }
      }
    }
    known = false;
    if (entry_ && pc < code.size()) {  // the compiling engine: as far as its code goes
      bool yield = false;
      if (run_compiled(w, pc, active, ready, known, lanes_done, yield)) {
        if (yield) {  // as after the interpreter's failed mbarrier wait below
          wait_yield_ = false;
          yielded_ = true;
          return lanes_done;
        }
        continue;
      }
    }
    if (pc >= code.size()) {  // ran off the end: as ret
      wp.live &= ~active;
      if (sync_) cluster_exit(w, active);
      continue;
    }
    if ((budget_ & 0xfff) == 0 && d_.stopping()) [[unlikely]] stopped(w, &code[pc]);
    if (budget_ == 0) [[unlikely]] budget_spent(w, pc);
    --budget_;
    ++clock_;
    const Insn& in = code[pc];
    uint32_t exec = active;
    if (in.guard != kSink) {
      exec = 0;
      for (uint32_t m = active; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const bool p = reg(w, in.guard, l) & 1;
        if (p != in.guard_neg) exec |= 1u << l;
      }
    }
    if (kind_of(in.op) == Kind::Control) {
      Step s{w, pc, active, exec, ready};
      control(in, s);
      known = s.known;
      if (wait_yield_) [[unlikely]] {  // a barrier.cluster.wait whose phase runs: the others first
        wait_yield_ = false;
        yielded_ = true;
        return lanes_done;
      }
      // In a cooperative launch a loop gives the grid's other blocks their turn: it may
      // wait for one of them (bra_op has written every lane's counter).
      if (a_.cooperative && in.op == Opc::Bra && exec && uint32_t(in.o[0].imm) <= pc) {
        yielded_ = true;
        return lanes_done;
      }
      pc = s.pc;
      continue;
    }
    if (exec) lanes_done += execute(pc, in, w, exec);
    if (stall_) [[unlikely]] {  // a wgmma its warpgroup has not all reached: run again once they have
      stall_ = false;
      yielded_ = true;
      advance(w, active, pc);
      return lanes_done;
    }
    if (wait_yield_) [[unlikely]] {  // an mbarrier not complete yet: other warps arrive at it first
      wait_yield_ = false;
      yielded_ = true;
      advance(w, active, pc + 1);
      return lanes_done;
    }
    if (active == ready) {
      known = true;
      ++pc;
    } else {
      advance(w, active, pc + 1);
    }
  }
}


namespace {
// Instructions a block is watched for before it is let run on undecided.
constexpr uint64_t kWatchSteps = 4'000'000;
}  // namespace

void BlockRun::budget_spent(uint32_t w, uint32_t pc) {
  const std::vector<Insn>& code = k_.code;
  if (a_.cooperative || sync_) out_of_budget(w, code[pc]);
  Watch& x = watch_;
  const size_t per = size_t(k_.registers) * 32;
  const uint32_t n = uint32_t(warps_.size());
  if (x.steps == 0) {  // the watch begins: where each warp stands, its lanes and registers
    x.pc.assign(n, ~0u);
    x.moved.assign(n, 0);
    x.same.assign(n, 0);
    x.lanes = warps_;
    x.regs = regs_;
    for (uint32_t v = 0; v < n; ++v) {
      const Warp& wp = warps_[v];
      const uint32_t ready = wp.live & ~wp.at_bar;
      if (!ready) {
        x.same[v] = 1;  // exited, or waiting at a barrier for the others: no progress of its own
        continue;
      }
      for (uint32_t m = ready; m; m &= m - 1) x.pc[v] = std::min(x.pc[v], wp.pc[std::countr_zero(m)]);
    }
  }
  auto run_on = [&] {  // progress, or no verdict: the block's budget again
    x.steps = 0;
    budget_ = d_.block_budget_;
  };
  if (++x.steps > kWatchSteps) return run_on();
  if (pc == x.pc[w] && x.moved[w] && !x.same[w]) {
    const Warp &now = warps_[w], &then = x.lanes[w];
    const bool lanes_same = now.live == then.live && now.at_bar == then.at_bar &&
                            std::equal(std::begin(now.pc), std::end(now.pc), std::begin(then.pc));
    if (!lanes_same || !std::equal(regs_.begin() + w * per, regs_.begin() + (w + 1) * per, x.regs.begin() + w * per))
      return run_on();
    x.same[w] = 1;
    if (std::all_of(x.same.begin(), x.same.end(), [](uint8_t s) { return s != 0; })) out_of_budget(w, code[pc], true);
  }
  x.moved[w] = 1;
  budget_ = 1;  // the next instruction is watched too
}

[[noreturn]] void BlockRun::out_of_budget(uint32_t w, const Insn& at, bool watched) const {
  const trace::Dim3 c = a_.grid;
  const std::string where = "block (" + std::to_string(block_ % c.x) + "," + std::to_string((block_ / c.x) % c.y) +
                            "), warp " + std::to_string(w) + " at line " + std::to_string(at.line);
  Fault f(watched ? "kernel " + kernel_name(k_.name) + " is in an endless loop: after " +
                        std::to_string(d_.block_budget_) + " warp instructions, " + where +
                        " came back with every register unchanged, and so did every other warp of the block"
                  : "kernel " + kernel_name(k_.name) + " did not finish within " + std::to_string(d_.block_budget_) +
                        " warp instructions (an endless loop?): " + where +
                        (a_.cooperative ? "; the limit of the launch's blocks together"
                                        : "; the limit of a cluster's blocks together (WARPSCOPE_BLOCK_BUDGET raises it)"));
  place(f, at, w, warps_[w].live ? std::countr_zero(warps_[w].live) : 0);
  f.kind = "endless_loop";
  throw f;
}

[[noreturn]] void BlockRun::stopped(uint32_t w, const Insn* at) const {
  const trace::Dim3 c = a_.grid;
  std::string where = "block (" + std::to_string(block_ % c.x) + "," + std::to_string((block_ / c.x) % c.y) + ")";
  if (at) where += ", warp " + std::to_string(w) + " at line " + std::to_string(at->line);
  Fault f("kernel " + kernel_name(k_.name) + " was stopped at the time limit in " + where);
  if (at) place(f, *at, w, warps_[w].live ? std::countr_zero(warps_[w].live) : 0);
  f.kind = "timeout";
  throw f;
}

// Dispatches the Control rows of opcodes.def; the others never reach it.
void BlockRun::control(const Insn& in, Step& s) {
  switch (in.op) {
#define PTX_OP(E, N, K, F) PTX_CONTROL_##K(E, F)
#define PTX_CONTROL_Control(E, F) \
  case Opc::E: F(in, s); return;
#define PTX_CONTROL_Alu(E, F)
#define PTX_CONTROL_Move(E, F)
#define PTX_CONTROL_Memory(E, F)
#define PTX_CONTROL_Warp(E, F)
#define PTX_CONTROL_Nothing(E, F)
#include "ptx/opcodes.def"
#undef PTX_CONTROL_Control
#undef PTX_CONTROL_Alu
#undef PTX_CONTROL_Move
#undef PTX_CONTROL_Memory
#undef PTX_CONTROL_Warp
#undef PTX_CONTROL_Nothing
    default: break;
  }
}

// The lanes whose guard holds jump; the others go on. A branch every ready lane takes the
// same way keeps the warp converged, so the scheduler need not look for its next pc.
void BlockRun::bra_op(const Insn& in, Step& s) {
  const uint32_t to = uint32_t(in.o[0].imm), next = s.pc + 1;
  advance(s.w, s.exec, to);
  advance(s.w, s.active & ~s.exec, next);
  if (s.active == s.ready && (s.exec == s.active || s.exec == 0)) {
    s.known = true;
    s.pc = s.exec ? to : next;
  }
}

void BlockRun::call_op(const Insn& in, Step& s) {
  for (uint32_t m = s.exec; m; m &= m - 1) call(in, s.w, std::countr_zero(m), s.pc + 1);
  advance(s.w, s.active & ~s.exec, s.pc + 1);
}

// A return from a device function copies its return value out and goes back to the call;
// the kernel's own ret ends the thread.
void BlockRun::ret_op(const Insn&, Step& s) {
  Warp& wp = warps_[s.w];
  for (uint32_t m = s.exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (stacks_.empty() || stacks_[s.w * 32 + uint32_t(l)].frames.empty()) {
      wp.live &= ~(1u << l);
      if (sync_) cluster_exit(s.w, 1u << l);
      continue;
    }
    ret(s.w, l);
  }
  advance(s.w, s.active & ~s.exec, s.pc + 1);
}

void BlockRun::exit_op(const Insn& in, Step& s) {
  // trap: the GPU aborts the launch (cooperative groups' grid.sync() traps outside a
  // cooperative launch).
  if (s.exec && in.opcode.rfind("trap", 0) == 0) {
    bool grid_sync = false;  // the kernel reads the grid's workspace: a grid.sync() outside a cooperative launch
    for (const Insn& i : k_.code)
      for (const Operand& o : i.o) grid_sync |= o.kind == Operand::Special && (o.sreg == Sreg::Envreg1 || o.sreg == Sreg::Envreg2);
    throw Fault("kernel " + kernel_name(k_.name) + ": trap at PTX line " + std::to_string(in.text_line) +
                (grid_sync && !a_.cooperative ? ": a grid-wide sync outside a cooperative launch (cudaLaunchCooperativeKernel)"
                                              : ""));
  }
  warps_[s.w].live &= ~s.exec;
  if (sync_) cluster_exit(s.w, s.exec);
  advance(s.w, s.active & ~s.exec, s.pc + 1);
}

// The lanes wait until every live lane of the block is at a barrier (run() releases them);
// at a bar.red each adds its predicate to the block's count, and and or.
void BlockRun::bar_op(const Insn& in, Step& s) {
  if (in.sub >= uint8_t(BarRed::ClusterArrive)) return cluster_barrier(in, s);
  // bar.sync id, count / bar.arrive id, count: a count of all the block's warps waits as a
  // plain barrier does; a smaller one is a named barrier between groups of warps.
  if ((!in.sub || BarRed(in.sub) == BarRed::Arrive) && in.nops == 2 && s.exec) {
    const int l = std::countr_zero(s.exec);
    const uint64_t n = val(in.o[1], s.w, l) & 0xffffffff;
    if (n != uint64_t(nwarps_) * 32 || BarRed(in.sub) == BarRed::Arrive)
      return named_barrier(in, s, uint32_t(val(in.o[0], s.w, l) & 0xffffffff), uint32_t(n));
  }
  if (in.sub && s.exec) {
    if (red_ && red_ != &in)
      throw Fault("kernel " + kernel_name(k_.name) + ": threads wait at two different bar.red barriers (lines " +
                  std::to_string(red_->line) + " and " + std::to_string(in.line) + ")");
    red_ = &in;
    red_lanes_.resize(nwarps_);
    red_lanes_[s.w] |= s.exec;
    for (uint32_t m = s.exec; m; m &= m - 1) {
      const bool p = pred(in.o[in.nops - 1], s.w, std::countr_zero(m));
      red_count_ += p;
      red_and_ = red_and_ && p;
      red_or_ = red_or_ || p;
    }
  }
  warps_[s.w].at_bar |= s.exec;
  advance(s.w, s.active, s.pc + 1);
}

}  // namespace ws::ptx
