// src/ptx/memory.cpp — loads, stores and atomics of a warp (their arithmetic: atomics.cpp): addresses resolved through
// the state spaces and the generic windows to the array that holds them (an access outside
// every array faults with the GPU's kind of message), the block's shared window and local
// frames, and each warp-level access recorded for the trace with its site and array (in a
// recorded launch, whose shared accesses are also checked for races: races.cpp; an
// unrecorded one only runs, its global atomics held against the other workers').
#include <algorithm>
#include <cstring>

#include "ptx/block_run.h"
#include "ptx/uniform.h"
#include "ptx/value.h"

namespace ws::ptx {

[[noreturn]] void BlockRun::fault(const Insn& in, uint32_t w, int lane, const std::string& array, int64_t offset, uint64_t size) {
  const uint32_t t = w * 32 + uint32_t(lane);
  const uint32_t thread[2] = {uint32_t(t % a_.block.x), uint32_t(t / a_.block.x)};
  const uint32_t blk[2] = {ctaid_[0], ctaid_[1]};
  std::string msg = trace::out_of_bounds_text(array, in.line, offset, size, thread, blk);
  msg += " (" + in.opcode + " in " + kernel_name(k_.name) + ")";
  Fault f(msg);
  place(f, in, w, lane);
  f.kind = "out_of_bounds";
  f.array = array;
  f.offset = offset;
  f.size = size;
  throw f;
}

void BlockRun::place(Fault& f, const Insn& in, uint32_t w, int lane) const {
  const uint32_t t = w * 32 + uint32_t(lane);
  const trace::Dim3& b = a_.block;
  f.placed = true;
  f.thread[0] = t % b.x, f.thread[1] = (t / b.x) % b.y, f.thread[2] = t / (b.x * b.y);
  for (int i = 0; i < 3; ++i) f.block[i] = ctaid_[i];
  f.warp = w;
  f.file = in.file;
  f.line = in.line;
}

// A global access outside its array, as the warp asked for it: every lane's offset from
// the start of the array the fault names (lanes inside it, lanes past its edge), kept in
// the fault and, in a recorded launch, as the request's record, so that the picture shows
// where the lanes went. Lanes in another window or below the array are left out.
void BlockRun::fault_request(Fault& f, uint32_t pc, const Insn& in, const Operand& ao, uint32_t w, uint32_t exec,
                             trace::Op op, uint32_t bytes) {
  if (in.space != Space::Global && in.space != Space::Generic) return;
  auto windowed = [](uint64_t a) { return a >= kSharedWindow && a < kParamWindow + kWindowBytes; };
  const uint32_t lane = f.thread[0] + f.thread[1] * a_.block.x + f.thread[2] * a_.block.x * a_.block.y - w * 32;
  const uint64_t at = addr(ao, w, int(lane % 32));
  auto it = d_.allocs_.upper_bound(at);
  if (windowed(at) || it == d_.allocs_.begin()) return;
  Device::Alloc& al = *std::prev(it)->second;
  uint32_t offs[32] = {};
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint64_t a = addr(ao, w, l);
    if (a < al.base || a - al.base > 0xffffffffull || windowed(a)) continue;
    f.lanes |= 1u << l;
    f.lane_offset[l] = int64_t(a - al.base);
    offs[l] = uint32_t(a - al.base);
  }
  if (!record_ || !f.lanes || al.space != trace::Space::Global) return;
  const size_t before = b_.trace().records.size();
  trace::WarpAccess acc = warp_access(pc, in, w, f.lanes, trace::Space::Global, op, bytes, global_buffer(al));
  acc.offset = offs;
  b_.add(acc);
  if (b_.trace().records.size() > before) f.record = int64_t(before);
}


// Where one lane's access of `bytes` at address `a` of space `sp` goes: a generic address
// is first placed by its window; shared and local offsets are checked against the block's
// window and the thread's frame, the rest against the device's allocations. Faults when
// nothing holds it.
BlockRun::Where BlockRun::resolve(const Insn& in, Space sp, uint64_t a, uint32_t bytes, uint32_t w, int lane) {
  if (sp == Space::Generic) {
    if (a >= kSharedWindow && a < kSharedWindow + kWindowBytes) sp = Space::Shared, a -= kSharedWindow;
    else if (a >= kLocalWindow && a < kLocalWindow + kWindowBytes) sp = Space::Local, a -= kLocalWindow;
    else if (a >= kConstWindow && a < kConstWindow + kWindowBytes) sp = Space::Const, a -= kConstWindow;
    else if (a >= kParamWindow && a < kParamWindow + kWindowBytes) sp = Space::Param, a -= kParamWindow;
    else sp = Space::Global;
  }
  Where r;
  switch (sp) {
    case Space::Shared: {
      BlockRun* cta = this;
      if (a > kClusterOffsetMask) [[unlikely]] {  // a shared::cluster address (mapa): maybe another CTA's
        const uint64_t given = a;
        cta = cta_of(a);
        if (!cta && !cluster_addresses_) fault(in, w, lane, "shared memory", int64_t(given), shared_.size());
        if (!cta)
          fault(in, w, lane,
                "shared memory of CTA rank " + std::to_string((given >> kClusterRankShift) - 1) + " (the cluster has " +
                    std::to_string(cluster_ ? cluster_->size() : 1) + ")",
                int64_t(given & kClusterOffsetMask), shared_.size());
      }
      if (a + bytes > cta->shared_.size()) fault(in, w, lane, "shared memory", int64_t(a), shared_.size());
      r.p = cta->shared_.data() + a;
      r.remote = cta != this;
      r.space = r.remote ? trace::Space::Cluster : trace::Space::Shared;
      // The shared array that holds it (lanes mostly share the previous access's), or the
      // padding between arrays; another CTA's: that CTA's array, a buffer of its own.
      const size_t i = shared_array(a, shared_hint_);
      r.buffer = !record_ ? trace::kNoBuffer
                 : r.remote ? d_.cluster_buffer(shared_buffer(i), uint32_t(cta->cluster_sreg(Sreg::ClusterCtarank)), b_)
                            : shared_buffer(i);
      r.offset = i < shared_range_.size() ? a - shared_range_[i].first : a;
      return r;
    }
    case Space::Local: {
      if (a + bytes > k_.local_bytes) fault(in, w, lane, "local frame", int64_t(a), k_.local_bytes);
      r.p = local_.data() + size_t(w * 32 + uint32_t(lane)) * k_.local_bytes + a;
      r.space = trace::Space::Local;
      r.buffer = record_ ? local_buffer() : trace::kNoBuffer;
      // Local memory interleaved across the warp as the hardware lays it out, here by the
      // access's width: the same word of the 32 lanes is contiguous.
      const uint64_t width = std::max<uint32_t>(4, bytes);
      const uint64_t warp_base = (uint64_t(block_) * nwarps_ + w) * ((k_.local_bytes + 15) / 16 * 16) * 32;
      r.offset = warp_base + (a / width) * 32 * width + uint64_t(lane) * width + a % width;
      return r;
    }
    case Space::Param: {
      r.space = trace::Space::Constant;
      r.buffer = trace::kNoBuffer;  // not recorded
      if (a >= kCallArea) {         // the thread's call area
        const uint64_t off = a - kCallArea;
        if (off + bytes > k_.call_bytes) fault(in, w, lane, "call parameters", int64_t(off), k_.call_bytes);
        r.p = call_.data() + size_t(w * 32 + uint32_t(lane)) * k_.call_bytes + off;
        return r;
      }
      if (a + bytes > a_.params.size()) fault(in, w, lane, "kernel parameters", int64_t(a), a_.params.size());
      r.p = const_cast<uint8_t*>(a_.params.data()) + a;
      r.space = trace::Space::Constant;
      r.buffer = trace::kNoBuffer;  // not recorded
      return r;
    }
    case Space::Const:
      a += kConstWindow;
      [[fallthrough]];
    default: {
      // The array of the previous access first: a warp's lanes mostly share one.
      Device::Alloc* al = last_ && !last_->freed && a >= last_->base && a + bytes <= last_->base + last_->bytes
                              ? last_
                              : (last_ = d_.find(a, bytes));
      if (!al) {
        // Name the array the pointer most likely came from: the one just below it.
        auto it = d_.allocs_.upper_bound(a);
        if (it != d_.allocs_.begin()) {
          --it;
          const Device::Alloc& n = *it->second;
          fault(in, w, lane, demangle_var(n.name), int64_t(a - n.base), n.bytes);
        }
        fault(in, w, lane, "no array", int64_t(a), 0);
      }
      touch(*al, in);
      r.alloc = al;
      r.p = al->ptr + (a - al->base);
      r.space = al->space;
      r.buffer = record_ ? global_buffer(*al) : trace::kNoBuffer;
      r.offset = a - al->base;
      return r;
    }
  }
}


// The shared array whose range holds window offset `a`: `hint` first (the array an
// earlier access reached), then each in turn; `hint` becomes the one found.
// shared_range_.size(): none (the padding between arrays).
size_t BlockRun::shared_array(uint64_t a, size_t& hint) const {
  auto holds = [&](size_t i) { return a >= shared_range_[i].first && a < shared_range_[i].second; };
  if (hint < shared_range_.size() && holds(hint)) [[likely]] return hint;
  for (size_t i = 0; i < shared_range_.size(); ++i)
    if (holds(i)) return hint = i;
  return shared_range_.size();
}


[[gnu::noinline]] uint32_t BlockRun::make_shared_buffers(size_t i) {
  {
    for (size_t i = 0; i < k_.shared.size(); ++i) {
      const Variable& v = k_.shared[i];
      const uint64_t bytes = v.external ? a_.dynamic_shared : v.bytes;
      const uint32_t eb = std::max<uint32_t>(1, v.elem_bytes == 1 ? 4 : v.elem_bytes);
      shared_buf_.push_back(b_.add_shared(demangle_var(v.name), eb, 1, std::max<uint64_t>(1, bytes / eb), bytes,
                                          i < shared_range_.size() ? shared_range_[i].first : ~uint64_t(0)));
    }
    shared_buf_.push_back(b_.add_shared("shared memory", 4, 1, std::max<uint64_t>(1, shared_.size() / 4), shared_.size(), 0));
  }
  return shared_buf_[std::min(i, shared_buf_.size() - 1)];
}

// The one trace array of every thread's local frame, laid out as the hardware interleaves
// them (made on first use: most kernels have no local traffic).
uint32_t BlockRun::local_buffer() {
  if (local_buf_ == trace::kNoBuffer) {
    trace::Buffer lb;
    lb.name = "local frames";
    lb.space = trace::Space::Local;
    lb.elem_bytes = 4;
    const uint64_t bytes = (k_.local_bytes + 15) / 16 * 16 * 32 * nwarps_ * a_.grid.count();
    lb.cols = std::max<uint64_t>(1, bytes / 4);  // (frames padded to 16 bytes)
    lb.size_bytes = bytes;
    local_buf_ = b_.add_buffer(std::move(lb));
  }
  return local_buf_;
}


void BlockRun::insn_fault(const Insn& in, const std::string& why) const {
  throw Fault("kernel " + kernel_name(k_.name) + ": PTX line " + std::to_string(in.text_line) + ": " + in.opcode + ": " + why);
}

// The trace site of instruction `pc` in space `sp`: one per instruction of the launch (two
// alike loads on one line stay two sites), made on first execution.
uint32_t BlockRun::site_of(uint32_t pc, const Insn& in, trace::Space sp, trace::Op op, uint32_t bytes) {
  uint32_t& id = sites_[size_t(pc) * trace::kSpaceCount + size_t(sp)];
  if (id != trace::kNoBuffer) [[likely]] return id;
  if (worker_ && !b_.room()) {  // made at the merge (parallel_blocks): no record of it is kept here
    const auto same = [&](const SiteWant& w) { return w.pc == pc && w.space == sp; };
    if (std::none_of(site_wants_.begin(), site_wants_.end(), same)) site_wants_.push_back({pc, sp, op, bytes});
    return trace::kNoBuffer;
  }
  trace::Site s;
  s.file = trace_file(in.file);
  s.line = in.line;
  s.column = in.column;
  s.space = sp;
  s.op = op;
  s.bytes = uint8_t(bytes);
  s.instruction = in.opcode;
  s.buffer = trace::kNoBuffer;
  // What ptxas makes of the atomic decides its cost.
  if (op == trace::Op::Atomic) {
    if (uniform_.empty()) uniform_ = uniform_registers(k_);
    s.atomic = atomic_path(k_, in, uniform_);
  }
  id = b_.add_site(std::move(s));
  return id;
}

uint32_t BlockRun::global_buffer(Device::Alloc& al) {
  if (!worker_) return d_.buffer_of(al, b_);
  if (al.buffer != trace::kNoBuffer) return al.buffer;
  if (std::find_if(new_arrays_.begin(), new_arrays_.end(), [&](const auto& x) { return x.first == block_ && x.second == &al; }) ==
      new_arrays_.end())
    new_arrays_.emplace_back(block_, &al);
  auto it = std::find(provisional_.begin(), provisional_.end(), &al);
  if (it == provisional_.end()) it = provisional_.insert(it, &al);
  return provisional(size_t(it - provisional_.begin()));
}

// The trace's file of a .file number (0 when the PTX named none).
uint32_t BlockRun::trace_file(uint32_t f) {
  if (f < files_.size() && files_[f] != trace::kNoBuffer) return files_[f];
  return 0;
}


// A record's head: where in the launch, which instruction, which lanes, which array.
trace::WarpAccess BlockRun::warp_access(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec, trace::Space space, trace::Op op,
                              uint32_t bytes, uint32_t buffer) {
  trace::WarpAccess acc;
  acc.block = block_;
  acc.warp = w;
  acc.epoch = epoch_;
  acc.seq = warps_[w].seq++;
  acc.active = exec;
  acc.site = site_of(pc, in, space, op, bytes);
  acc.buffer = buffer;
  return acc;
}


// One warp-level memory instruction: the lanes' accesses as one record.
// Lanes that reached other CTAs' shared memory (distributed shared memory) are a record of
// their own, in the Cluster space (its site another of the instruction's), after the
// lanes of this CTA's.
void BlockRun::record(uint32_t pc, const Insn& in, trace::Op op, uint32_t bytes, uint32_t exec, const Where* where, uint32_t w) {
  if (!record_) return;
  uint32_t remote = 0;
  for (uint32_t m = cluster_addresses_ ? exec : 0; m; m &= m - 1)
    if (where[std::countr_zero(m)].remote) remote |= 1u << std::countr_zero(m);
  if (remote && remote != exec) {
    record_lanes(pc, in, op, bytes, exec & ~remote, where, w);
    exec = remote;
  }
  record_lanes(pc, in, op, bytes, exec, where, w);
}

void BlockRun::record_lanes(uint32_t pc, const Insn& in, trace::Op op, uint32_t bytes, uint32_t exec, const Where* where,
                            uint32_t w) {
  if (!exec) return;
  int first = std::countr_zero(exec);
  if (where[first].buffer == trace::kNoBuffer) return;  // parameter reads are not memory traffic
  if (where[first].space == trace::Space::Local && !d_.record_local_) return;
  trace::WarpAccess acc = warp_access(pc, in, w, exec, where[first].space, op, bytes, where[first].buffer);
  uint32_t offs[32] = {};
  trace::LaneBuffers lanes{};
  bool mixed = false;
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    offs[l] = uint32_t(where[l].offset);
    lanes[size_t(l)] = where[l].buffer;
    mixed |= where[l].buffer != acc.buffer;
  }
  acc.offset = offs;
  if (mixed) acc.lanes = &lanes;
  b_.add(acc);
}


// A load or store of the shared or global space whose lanes all reach one array (the
// common case), done without the general path's per-lane bookkeeping. False: not such an
// access; nothing was changed, memory() does it.
bool BlockRun::memory_one_array(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  const bool is_ld = in.op == Opc::Ld;
  const Operand& ao = is_ld ? in.o[1] : in.o[0];
  // The lanes' addresses, the operand read once: written through the pointers below, the
  // register file would otherwise be read again for every lane.
  uint64_t at[32];
  {
    const uint64_t base = uint64_t(ao.imm) + (ao.has_symbol ? symval(ao.symbol) : 0);
    if (ao.has_reg) {
      const uint64_t* R = &reg(w, ao.reg, 0);
      for (int l = 0; l < 32; ++l) at[l] = base + R[l];
    } else {
      std::fill_n(at, 32, base);
    }
    if (ao.has_symbol && k_.frame_bytes)
      for (uint32_t m = exec; m; m &= m - 1) at[std::countr_zero(m)] += local_shift(ao.symbol, w, std::countr_zero(m));
  }
  OneArray r;
  if (!one_array(pc, in, w, exec, at, r)) return false;
  const uint32_t eb = type_bytes(in.type);
  // Element by element (a vector's registers in turn), each with its own width's copy.
  auto each_elem = [&](auto&& f) {
    switch (eb) {
      case 1: f(uint8_t{}); break;
      case 2: f(uint16_t{}); break;
      case 4: f(uint32_t{}); break;
      default: f(uint64_t{}); break;
    }
  };
  uint8_t* const* ptr = r.ptr;
  if (is_ld) {
    const Operand& d = in.o[0];
    const bool sx = is_signed(in.type);
    each_elem([&](auto e) {
      using E = decltype(e);
      for (uint32_t i = 0; i < in.vec; ++i) {
        const uint32_t rg = d.kind == Operand::Vec ? d.vec[i] : d.reg;
        if (rg == kSink) continue;
        uint64_t* R = &reg(w, rg, 0);
        auto load = [&](int l) {
          E v;
          std::memcpy(&v, ptr[l] + i * sizeof(E), sizeof(E));
          return v;
        };
        if (sx) {
          for (uint32_t m = exec; m; m &= m - 1) R[std::countr_zero(m)] = uint64_t(sext(in.type, load(std::countr_zero(m))));
        } else {
          for (uint32_t m = exec; m; m &= m - 1) R[std::countr_zero(m)] = uint64_t(load(std::countr_zero(m)));
        }
      }
    });
  } else {
    const Operand& sv = in.o[1];
    each_elem([&](auto e) {
      using E = decltype(e);
      for (uint32_t i = 0; i < in.vec; ++i) {
        const bool sink = sv.kind == Operand::Vec && sv.vec[i] == kSink;
        for (uint32_t m = exec; m; m &= m - 1) {
          const int l = std::countr_zero(m);
          const E v = sink ? 0 : E(sv.kind == Operand::Vec ? reg(w, sv.vec[i], l) : val(sv, w, l));
          std::memcpy(ptr[l] + i * sizeof(E), &v, sizeof(E));
        }
      }
    });
  }
  one_array_record(pc, in, w, exec, r);
  return true;
}

// Where the lanes of a one-array access go (their bytes, their offsets in the array), and in
// a recorded launch the shared words' race check; false, with nothing changed but the
// array noted as touched, when they do not all reach one array of shared or global memory.
bool BlockRun::one_array(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec, const uint64_t* at, OneArray& r) {
  const bool is_ld = in.op == Opc::Ld;
  const uint32_t bytes = type_bytes(in.type) * in.vec;
  const int first = std::countr_zero(exec);
  // Whether every lane's bytes lie in [lo, hi), and each one's offset there and pointer
  // (`base` holds byte lo).
  auto place = [&](uint64_t lo, uint64_t hi, uint8_t* base) {
    bool inside = true;
    // (a whole warp as a plain count of 32, with no search through the mask; else its lanes)
    WS_EACH(exec, {
      const uint64_t a = at[l];
      inside &= a >= lo && a + bytes <= hi;
      r.offs[l] = uint32_t(a - lo);
      r.ptr[l] = base + (a - lo);
    });
    return inside;
  };
  if (in.space == Space::Shared) {
    // The array this instruction reached last time, else the first lane's.
    size_t& h = pc_shared_[pc];
    if (shared_array(at[first], h) == shared_range_.size()) return false;
    const auto [lo, hi] = shared_range_[h];
    if (!place(lo, hi, shared_.data() + lo)) return false;
    if (record_) shared_touch(pc, w, exec, at, bytes, is_ld ? RaceEnd::Read : RaceEnd::Write);
    r.buffer = record_ ? shared_buffer(h) : trace::kNoBuffer;
    r.space = trace::Space::Shared;
    return true;
  }
  Device::Alloc*& al = pc_alloc_[pc];
  const uint64_t a0 = at[first];
  if (!al || al->freed || a0 < al->base || a0 + bytes > al->base + al->bytes) al = d_.find(a0, bytes);
  if (!al || al->space != trace::Space::Global) return false;
  touch(*al, in);
  if (!place(al->base, al->base + al->bytes, al->ptr)) return false;
  r.buffer = record_ ? global_buffer(*al) : trace::kNoBuffer;
  r.space = trace::Space::Global;
  return true;
}

// A one-array access's record (a recorded launch's).
void BlockRun::one_array_record(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec, OneArray& r) {
  if (!record_) return;
  const trace::Op op = in.op == Opc::Ld ? trace::Op::Load : trace::Op::Store;
  if (!b_.room()) {  // past the record cap: counted (its site made all the same)
    warp_access(pc, in, w, exec, r.space, op, type_bytes(in.type) * in.vec, r.buffer);
    b_.drop(1);
    return;
  }
  if (exec != ~0u)
    for (uint32_t m = ~exec; m; m &= m - 1) r.offs[std::countr_zero(m)] = 0;
  const uint32_t bytes = type_bytes(in.type) * in.vec;
  trace::WarpAccess acc = warp_access(pc, in, w, exec, r.space, op, bytes, r.buffer);
  acc.offset = r.offs;
  b_.add(acc);
}


// ld, st, atom, red for the lanes of `exec`: each lane's address resolved to the array it
// reaches (or a fault), loads read before stores write, and the warp's accesses recorded as
// one record. A kernel parameter's load is a value, not memory traffic. Returns the lane
// accesses made.
uint64_t BlockRun::memory_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  const bool is_ld = in.op == Opc::Ld, is_st = in.op == Opc::St;
  if ((is_ld || is_st) && (in.space == Space::Shared || in.space == Space::Global) && memory_one_array(pc, in, w, exec))
    return uint64_t(std::popcount(exec));
  if (is_ld && in.space == Space::Param && !in.o[1].has_reg && in.o[0].kind == Operand::Reg && in.vec == 1) {
    // A kernel parameter: one value for every lane, not memory traffic.
    const uint64_t at = addr(in.o[1], w, 0);
    const uint32_t eb = type_bytes(in.type);
    if (at + eb <= a_.params.size()) {
      uint64_t v = 0;
      std::memcpy(&v, a_.params.data() + at, eb);
      if (is_signed(in.type)) v = uint64_t(sext(in.type, v));
      uint64_t* R = &reg(w, in.o[0].reg, 0);
      for (uint32_t m = exec; m; m &= m - 1) R[std::countr_zero(m)] = v;
      return 0;
    }
  }
  const Operand& ao = is_ld || in.op == Opc::Atom ? in.o[1] : in.o[0];
  const uint32_t eb = type_bytes(in.type);
  const uint32_t bytes = eb * in.vec;
  Where where[32];
  const trace::Op op = is_ld ? trace::Op::Load : is_st ? trace::Op::Store : trace::Op::Atomic;
  try {
    for (uint32_t m = exec; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      where[l] = resolve(in, in.space, addr(ao, w, l), bytes, w, l);
    }
  } catch (Fault& f) {
    if (f.kind == "out_of_bounds") fault_request(f, pc, in, ao, w, exec, op, bytes);
    throw;
  }
  if (record_) shared_touch(pc, w, exec, where, bytes, is_ld ? RaceEnd::Read : is_st ? RaceEnd::Write : RaceEnd::Atomic);
  // Loads read before stores write: the warp's lanes act at once.
  if (is_ld) {
    const Operand& d = in.o[0];
    for (uint32_t m = exec; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      for (uint32_t i = 0; i < in.vec; ++i) {
        uint64_t v = 0;
        std::memcpy(&v, where[l].p + i * eb, eb);
        if (is_signed(in.type)) v = uint64_t(sext(in.type, v));
        const uint32_t r = d.kind == Operand::Vec ? d.vec[i] : d.reg;
        if (r != kSink) reg(w, r, l) = v;
      }
    }
  } else if (is_st) {
    const Operand& s = in.o[1];
    for (uint32_t m = exec; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      for (uint32_t i = 0; i < in.vec; ++i) {
        const uint64_t v = s.kind == Operand::Vec ? (s.vec[i] == kSink ? 0 : reg(w, s.vec[i], l)) : val(s, w, l);
        std::memcpy(where[l].p + i * eb, &v, eb);
      }
    }
  } else {
    atomics(in, w, exec, where);
  }
  record(pc, in, op, bytes, exec, where, w);
  return in.space == Space::Param ? 0 : uint64_t(std::popcount(exec));
}


}  // namespace ws::ptx
