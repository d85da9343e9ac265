// src/ptx/compiled.cpp — a block's warps in the kernel's compiled code (engine.h): the
// scheduler enters it wherever lanes stand together, and it runs them as the interpreter
// would, instruction for instruction (the budget and the clock move on by each), handing
// back through these callbacks what only the interpreter does.
#include "ptx/block_run.h"
#include "ptx/engine.h"

namespace ws::ptx {

// The kernel's entry, and what the compiled code reads of the launch: symbols' values (the
// interpreter's symval, fixed for a launch), the parameters, the shared window.
void BlockRun::compiled_setup() {
  if (entry_ || d_.engine_ != Engine::Compiled) return;
  const CompiledModule* cm = d_.engine_ready();
  const size_t index = size_t(&k_ - d_.module_.kernels.data());
  if (!cm || index >= d_.module_.kernels.size()) return;
  entry_ = cm->entry(index);
  if (!entry_) return;
  symvals_.resize(k_.symbols.size());
  for (size_t i = 0; i < symvals_.size(); ++i) symvals_[i] = symval(uint32_t(i));
  slots_.assign(k_.code.size(), compiled::GlobalSlot{});
  cx_.code = k_.code.data();
  cx_.shared = shared_.data();
  cx_.shared_bytes = shared_.size();
  cx_.params = a_.params.data();
  cx_.param_bytes = a_.params.size();
  cx_.symbols = symvals_.data();
  cx_.place = place_;
  cx_.globals = slots_.data();
  cx_.machine = this;
  cx_.loops_yield = a_.cooperative;  // its loops give the grid's other blocks their turn
  cx_.execute = &BlockRun::compiled_execute;
  cx_.find = &BlockRun::compiled_find;
  cx_.note = &BlockRun::compiled_note;
  cx_.one_shared = &BlockRun::compiled_one_shared;
}

bool BlockRun::run_compiled(uint32_t w, uint32_t& pc, uint32_t active, uint32_t ready, bool& known, uint64_t& lanes,
                            bool& yield) {
  // The warp's other ready lanes wait further on: the compiled code stops where the first
  // of them stands, so that they reconverge there as in the interpreter.
  uint32_t stop = ~0u;
  for (uint32_t m = ready & ~active; m; m &= m - 1) stop = std::min(stop, warps_[w].pc[std::countr_zero(m)]);
  if (d_.stopping()) [[unlikely]] stopped(w, &k_.code[pc]);
  entry_budget_ = budget_;
  entry_clock_ = clock_;
  cx_.regs = warp_registers(w);
  cx_.warp = w;
  cx_.pc = pc;
  cx_.active = active;
  cx_.stop = stop;
  // At most a few million instructions an entry, so that a stop (Device::stop) is seen.
  cx_.budget = std::min<uint64_t>(budget_, uint64_t(1) << 22);
  cx_.record = record_;
  cx_.quick = record_ && !b_.room();
  cx_.n = cx_.lanes = 0;
  cx_.yield = false;
  // The records the entry only counted: in the warp's sequence, then the launch's count.
  const auto hand_over = [this] {
    counted_in_order();
    if (cx_.dropped) b_.drop(cx_.dropped), cx_.dropped = 0;
    counted_ = 0;
  };
  try {
    entry_(cx_);
  } catch (...) {  // a fault: the records counted up to it are the launch's still
    hand_over();
    throw;
  }
  hand_over();
  if (!cx_.n) return false;
  if (stall_) {  // stopped at a wgmma its warpgroup has not all reached: the warp stays there
    stall_ = false;
    cx_.pc = stall_pc_;
  }
  budget_ = entry_budget_ - cx_.n;
  clock_ = entry_clock_ + cx_.n;
  lanes += cx_.lanes;
  yield = cx_.yield;
  if (active == ready && !yield) {
    known = true;
    pc = cx_.pc;
  } else {
    advance(w, active, cx_.pc);
    known = false;
  }
  return true;
}

// The accesses the compiled code only counted (past the cap, Ctx::dropped) move the warp's
// sequence on as the interpreter's do (warp_access): before anything the interpreter does for
// the warp (an event it records takes the sequence), and as the entry returns.
void BlockRun::counted_in_order() {
  warps_[cx_.warp].seq += uint32_t(cx_.dropped - counted_);
  counted_ = cx_.dropped;
}

uint64_t BlockRun::compiled_execute(compiled::Ctx& c, uint32_t pc, uint32_t exec) {
  BlockRun& r = *static_cast<BlockRun*>(c.machine);
  r.counted_in_order();
  r.budget_ = r.entry_budget_ - c.n;
  r.clock_ = r.entry_clock_ + c.n;
  const uint64_t lanes = r.execute(pc, r.k_.code[pc], c.warp, exec);
  c.yield = r.wait_yield_;
  if (r.stall_) {  // a wgmma waiting for its warpgroup: run_compiled puts the warp back at it
    r.stall_pc_ = pc;
    c.yield = true;
  }
  return lanes;
}

bool BlockRun::compiled_find(compiled::Ctx& c, uint32_t pc, uint64_t a, uint32_t bytes) {
  BlockRun& r = *static_cast<BlockRun*>(c.machine);
  Device::Alloc* al = r.d_.find(a, bytes);
  if (!al || al->space != trace::Space::Global) return false;
  r.touch(*al, r.k_.code[pc]);
  c.globals[pc] = {al->base, al->base + al->bytes, al->ptr, al};
  return true;
}

bool BlockRun::compiled_one_shared(compiled::Ctx& c, uint64_t lo, uint64_t hi) {
  const BlockRun& r = *static_cast<const BlockRun*>(c.machine);
  size_t h = 0;
  const size_t i = r.shared_array(lo, h);
  return lo < hi && i < r.shared_range_.size() && hi <= r.shared_range_[i].second;
}

bool BlockRun::compiled_note(compiled::Ctx& c, uint32_t pc, uint32_t exec, const uint64_t* at) {
  BlockRun& r = *static_cast<BlockRun*>(c.machine);
  r.counted_in_order();
  const Insn& in = r.k_.code[pc];
  if (!r.b_.room()) {
    // Past the record cap, the lanes in one array or not make the same bookkeeping: the
    // race check, the array's trace buffer and the site made on first use, one record
    // counted. (The generated code has checked the lanes against the shared window, or
    // against the allocation of globals[pc].)
    const uint32_t bytes = type_bytes(in.type) * in.vec;
    const bool ld = in.op == Opc::Ld;
    trace::Space space = trace::Space::Shared;
    uint32_t buffer = trace::kNoBuffer;
    if (in.space == Space::Shared) {
      r.shared_touch(pc, c.warp, exec, at, bytes, ld ? RaceEnd::Read : RaceEnd::Write);
      buffer = r.shared_buffer(0);
    } else {
      space = trace::Space::Global;
      buffer = r.global_buffer(*static_cast<Device::Alloc*>(c.globals[pc].alloc));
      c.globals[pc].counted = c.quick;  // its array known: the next accesses are only counted
    }
    if (!r.worker_) r.warp_access(pc, in, c.warp, exec, space, ld ? trace::Op::Load : trace::Op::Store, bytes, buffer);
    else r.site_of(pc, in, space, ld ? trace::Op::Load : trace::Op::Store, bytes);  // (made at the merge if new)
    r.b_.drop(1);
    return true;
  }
  OneArray one;
  if (!r.one_array(pc, in, c.warp, exec, at, one)) return false;
  r.one_array_record(pc, in, c.warp, exec, one);
  return true;
}

}  // namespace ws::ptx
