// src/ptx/atomics.cpp — atom and red: what each leaves in memory (atomic_value, one
// function for a lane's update now and for one applied later), in lane order as the
// hardware serialises them; and reductions applied later. A launch that only reduces into
// an array (red, or an atom whose old value nothing reads: Insn::reduces) never reads that
// array's bytes, so when a launch alike it is skipped as a repeat, its reductions can wait
// (Alloc::pending) until anything else reads or writes the array, and then be applied in
// the order they would have been: a program that times an atomicAdd kernel a thousand
// times, then frees its output unread, never pays for them.
#include <algorithm>
#include <cstring>

#include "ptx/block_run.h"
#include "ptx/value.h"

namespace ws::ptx {
namespace {

bool nan_bits(Type t, uint64_t v) {
  return t == Type::F64 ? (v & ~(1ull << 63)) > 0x7ff0000000000000ull : (v & 0x7fffffffu) > 0x7f800000u;
}
uint64_t flush32(uint64_t v) { return (v & 0x7f800000u) == 0 ? (v & 0x80000000u) : v; }

// atom/red.add of f32 or f64 as the H100's memory units compute it. A NaN: f32's canonical
// 7fffffff; f64's passed through, in shared memory the memory's own before the operand's,
// quieted, in global memory the operand's before the memory's, left as it is. In global
// memory f32 subnormals, read or written, are zeros.
uint64_t atom_add_float(Type t, bool global, uint64_t old, uint64_t b) {
  if (t == Type::F64) {
    if (nan_bits(t, old) || nan_bits(t, b)) {
      if (global) return nan_bits(t, b) ? b : old;
      return (nan_bits(t, old) ? old : b) | (1ull << 51);
    }
    return bits(f64(old) + f64(b));
  }
  if (global) old = flush32(old), b = flush32(b);
  const uint64_t r = bits(f32(old) + f32(b));
  if (nan_bits(t, r)) return 0x7fffffffu;
  return global ? flush32(r) : r;
}

// min / max of two halves (f16 or bf16): the smaller (larger) of the two as it is; a NaN
// loses to a number, two NaNs give the canonical 7fff; -0 is below +0.
uint64_t half_pick(Type t, uint64_t a, uint64_t b, bool min) {
  a &= 0xffffu, b &= 0xffffu;
  const double x = as_double(t, a), y = as_double(t, b);
  if (std::isnan(x) && std::isnan(y)) return 0x7fffu;
  if (std::isnan(x)) return b;
  if (std::isnan(y)) return a;
  if (x == y) return (((a >> 15) & 1u) == min) ? a : b;  // equal: differ at most in a zero's sign
  return (x < y) == min ? a : b;
}

}  // namespace

// What atom / red `op` of type `t` leaves in a word that held `old`, with operand b (and
// cas's c); `global`: the word is in global memory.
uint64_t atomic_value(AtomOp op, Type t, bool global, uint64_t old, uint64_t b, uint64_t c) {
  const uint64_t mask = width_mask(t);
  switch (op) {
    case AtomOp::Add:
      if (is_half(t)) return half_arith(HalfFn::Add, t, Rnd::Rn, old, b, 0);
      if (is_float(t)) return atom_add_float(t, global, old, b);
      return (old + b) & mask;
    case AtomOp::Min:
      if (is_half(t)) return half_pick(t, old, b, true);
      if (is_float(t)) return from_double(t, std::fmin(as_double(t, old), as_double(t, b)));
      return is_signed(t) ? uint64_t(std::min(sext(t, old), sext(t, b))) & mask : std::min(old & mask, b & mask);
    case AtomOp::Max:
      if (is_half(t)) return half_pick(t, old, b, false);
      if (is_float(t)) return from_double(t, std::fmax(as_double(t, old), as_double(t, b)));
      return is_signed(t) ? uint64_t(std::max(sext(t, old), sext(t, b))) & mask : std::max(old & mask, b & mask);
    case AtomOp::Exch: return b;
    case AtomOp::Cas: return (old & mask) == (b & mask) ? c : old;
    case AtomOp::And: return old & b;
    case AtomOp::Or: return old | b;
    case AtomOp::Xor: return old ^ b;
    case AtomOp::Inc: return (old & mask) >= (b & mask) ? 0 : old + 1;
    case AtomOp::Dec: return ((old & mask) == 0 || (old & mask) > (b & mask)) ? b : old - 1;
  }
  return old;
}

namespace {

// A log entry's offset keeps the reduction's kind above bit 48: its AtomOp, Type and space.
constexpr int kKindShift = 48;
uint64_t reduction_at(const Insn& in, uint64_t offset) {
  const uint64_t kind = uint64_t(in.sub) | uint64_t(in.type) << 4 | uint64_t(in.space != Space::Shared) << 12;
  return offset | kind << kKindShift;
}

void apply(Device::Alloc& a, const Device::RedLog& log) {
  for (const Device::RedLog::Entry& e : log.e) {
    const uint64_t kind = e.at >> kKindShift, off = e.at & ((1ull << kKindShift) - 1);
    const Type t = Type((kind >> 4) & 0xff);
    const uint32_t eb = type_bytes(t);
    uint64_t old = 0;
    std::memcpy(&old, a.ptr + off, eb);
    const uint64_t nv = atomic_value(AtomOp(kind & 15), t, (kind >> 12) & 1, old, e.operand, 0);
    std::memcpy(a.ptr + off, &nv, eb);
  }
}

}  // namespace

// atom / red for each lane in lane order, one at a time as the hardware serialises them, so
// that lanes reaching one address see each other's updates; atom returns the old value. A
// reduction into a device array is also logged (Device::log_reduction), and where the
// array's earlier reductions still wait, only logged.
void BlockRun::atomics(const Insn& in, uint32_t w, uint32_t exec, const Where* where) {
  const Type t = in.type;
  const bool red = in.op == Opc::Red;
  const Operand& d = in.o[0];
  const Operand& bo = red ? in.o[1] : in.o[2];
  const Operand& co = in.o[3];
  const uint32_t eb = type_bytes(t);
  const uint64_t mask = width_mask(t);
  // Other workers' blocks may reach the same words of global memory (a block's shared
  // memory is its own).
  bool global = false;
  for (uint32_t m = atomics_ ? exec : 0; m; m &= m - 1) global |= where[std::countr_zero(m)].space != trace::Space::Shared;
  std::unique_lock<std::mutex> hold = global ? std::unique_lock<std::mutex>(*atomics_) : std::unique_lock<std::mutex>();
  for (uint32_t m = exec; m; m &= m - 1) {  // lane order: one at a time, as the hardware serialises them
    const int l = std::countr_zero(m);
    const uint64_t b = val(bo, w, l);
    if (in.reduces && where[l].alloc &&
        d_.log_reduction(*where[l].alloc, reduction_at(in, where[l].offset), b, hold.owns_lock()))
      continue;  // due later, after the array's earlier reductions
    uint64_t old = 0;
    std::memcpy(&old, where[l].p, eb);
    const uint64_t nv = atomic_value(AtomOp(in.sub), t, in.space != Space::Shared, old, b,
                                     AtomOp(in.sub) == AtomOp::Cas ? val(co, w, l) : 0);
    std::memcpy(where[l].p, &nv, eb);
    if (!red) set(d, w, l, old & mask);
  }
}

bool Device::log_reduction(Alloc& a, uint64_t at, uint64_t operand, bool locked) {
  if (a.log_ok && log_bytes_.load(std::memory_order_relaxed) + sizeof(RedLog::Entry) <= log_limit_) {
    if (!a.log) {
      a.log = std::make_shared<RedLog>();
      a.log->counted = &log_bytes_;
    }
    a.log->e.push_back({at, operand});
    log_bytes_.fetch_add(sizeof(RedLog::Entry), std::memory_order_relaxed);
    return a.lazy.load(std::memory_order_relaxed);
  }
  // Past the budget for logs: the array's reductions are applied now, in order, and this
  // launch keeps no log of it (it will not be skipped).
  if (a.lazy.load(std::memory_order_relaxed)) materialize(a, locked);
  a.log.reset();
  a.log_ok = false;
  return false;
}

void Device::materialize(Alloc& a, bool locked) {
  std::unique_lock<std::mutex> hold(atomics_, std::defer_lock);
  if (!locked) hold.lock();
  if (!a.lazy.load(std::memory_order_relaxed)) return;
  for (const auto& [log, times] : a.pending)
    for (uint64_t i = 0; i < times; ++i) apply(a, *log);
  a.pending.clear();
  if (a.log) apply(a, *a.log);  // the running launch's, logged while the others waited
  a.log.reset();
  a.log_ok = false;
  a.lazy.store(false, std::memory_order_release);
}

void Device::settle(Alloc& a, uint64_t off, uint64_t bytes, bool overwrite) {
  if (!a.lazy.load(std::memory_order_relaxed)) return;
  if (overwrite && off == 0 && bytes == a.bytes) {  // nothing of what was due would be seen
    a.pending.clear();
    a.lazy.store(false, std::memory_order_relaxed);
    return;
  }
  materialize(a);
}

void Device::replay(const Repeat& r) {
  for (const Repeat::Reduced& x : r.reduced) {
    Alloc& a = *allocs_.at(x.base);
    if (!a.pending.empty() && a.pending.back().first == x.log) ++a.pending.back().second;
    else a.pending.emplace_back(x.log, 1);
    a.lazy.store(true, std::memory_order_relaxed);
    changed(a);
  }
}

// Logs kept: at most 4 GiB in all, and a quarter of the memory free at the launch's start.
void Device::begin_logs() {
  log_limit_ = std::min<uint64_t>(uint64_t(4) << 30, log_bytes_.load() + free_memory() / 4);
  for (auto& [base, x] : allocs_) {
    // (Every log was ended by the last launch's after_run, or by its fault.) An array whose reductions wait must log the launch's too (applied after them).
    x->log_ok = x->lazy.load(std::memory_order_relaxed) ||
                (!x->freed && !x->data.empty() && x->space == trace::Space::Global);
  }
}

}  // namespace ws::ptx
