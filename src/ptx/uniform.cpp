// src/ptx/uniform.cpp — the uniformity of a kernel's registers, found the way a divergence
// analysis does: everything starts uniform, and what a non-uniform source, a divergent
// guard or a divergent branch reaches is marked otherwise until nothing changes. The
// marking only ever removes uniformity, so it ends, and what stays is proven.
#include "ptx/uniform.h"

namespace ws::ptx {
namespace {

// Calls f(r) for each register operand `o` reads (an address's base register included).
template <class F>
void operand_regs(const Kernel& k, const Operand& o, F&& f) {
  if (o.kind == Operand::Reg) f(o.reg);
  else if (o.kind == Operand::Addr && o.has_reg) f(o.reg);
  else if (o.kind == Operand::Vec)
    for (uint32_t i = 0; i < o.count; ++i)
      if (const uint32_t r = vec_reg(k, o, i); r != kSink) f(r);
}

// Stores write memory, not registers: every operand of theirs is read.
bool writes_no_register(const Insn& in) {
  const Kind kd = kind_of(in.op);
  return in.op == Opc::St || in.op == Opc::Red || kd == Kind::Control || kd == Kind::Nothing;
}

// Calls f(r) for each register `in` reads, its guard included.
template <class F>
void for_each_read(const Kernel& k, const Insn& in, F&& f) {
  if (in.guard != kSink) f(in.guard);
  if (kind_of(in.op) == Kind::Control) return;  // a label or a call's index, no register
  for (uint32_t i = writes_no_register(in) ? 0 : 1; i < in.nops && i < in.o.size(); ++i) operand_regs(k, in.o[i], f);
}

// Calls f(r) for each register `in` writes (the destination, one or a vector of them).
template <class F>
void for_each_write(const Kernel& k, const Insn& in, F&& f) {
  if (writes_no_register(in) || in.nops == 0) return;
  const Operand& d = in.o[0];
  if (d.kind == Operand::Reg && d.reg != kSink) f(d.reg);
  else if (d.kind == Operand::Vec) operand_regs(k, d, f);
}

bool uniform_special(Sreg s) {
  switch (s) {
    case Sreg::CtaidX: case Sreg::CtaidY: case Sreg::CtaidZ:
    case Sreg::NctaidX: case Sreg::NctaidY: case Sreg::NctaidZ:
    case Sreg::NtidX: case Sreg::NtidY: case Sreg::NtidZ:
      return true;
    default:
      return false;  // the thread's own ids, the clock, the SM: differ between lanes or reads
  }
}

struct Uniformity {
  const Kernel& k;
  std::vector<uint8_t>& u;

  bool reg(uint32_t r) const { return r < u.size() && u[r]; }

  bool operand(const Operand& o) const {
    switch (o.kind) {
      case Operand::None: case Operand::Imm: case Operand::Symbol: case Operand::Label: return true;
      case Operand::Special: return uniform_special(o.sreg);
      case Operand::Reg: case Operand::Addr: case Operand::Vec: {
        bool all = true;
        operand_regs(k, o, [&](uint32_t r) { all &= reg(r); });
        return all;
      }
    }
    return false;
  }

  // A load gives every lane one value when it reads a kernel parameter or the constant bank
  // at a uniform address; any other memory may differ from lane to lane.
  bool uniform_load(const Insn& in) const {
    if (in.op != Opc::Ld || in.nops < 2 || !operand(in.o[1])) return false;
    if (in.space == Space::Const) return true;
    if (in.space != Space::Param || !in.o[1].has_symbol || in.o[1].symbol >= k.symbols.size()) return false;
    return k.symbols[in.o[1].symbol].kind == Kernel::Sym::Param;  // not a device function's call area
  }

  // Whether what `in` writes is the same in every lane that runs it.
  bool defines_uniform(const Insn& in) const {
    if (in.guard != kSink && !reg(in.guard)) return false;
    switch (kind_of(in.op)) {
      case Kind::Alu:
      case Kind::Move:
        for (uint32_t i = 1; i < in.nops && i < in.o.size(); ++i)
          if (!operand(in.o[i])) return false;
        return true;
      case Kind::Memory: return uniform_load(in);
      default: return false;  // shuffles, votes, the active mask: lanes see different values
    }
  }
};

}  // namespace

std::vector<uint8_t> uniform_registers(const Kernel& k) {
  std::vector<uint8_t> u(k.registers, 1);
  std::vector<uint32_t> defs(k.registers, 0);
  for (const Insn& in : k.code)
    for_each_write(k, in, [&](uint32_t r) {
      if (r < defs.size()) ++defs[r];
    });
  for (uint32_t r = 0; r < k.registers; ++r)
    if (!defs[r]) u[r] = 0;  // read before any write, or written where the decoder keeps no operand
  const Uniformity U{k, u};
  for (bool changed = true; changed;) {
    changed = false;
    auto drop = [&](uint32_t r) {
      if (r < u.size() && u[r]) u[r] = 0, changed = true;
    };
    bool divergent_branch = false;
    for (const Insn& in : k.code) {
      if (in.op == Opc::Bra && in.guard != kSink && !U.reg(in.guard)) divergent_branch = true;
      if (!U.defines_uniform(in)) for_each_write(k, in, drop);
    }
    // Lanes that part at a divergent branch may meet again having run different definitions
    // of one register (or different counts of a loop's): only a single definition is safe.
    if (divergent_branch)
      for (uint32_t r = 0; r < k.registers; ++r)
        if (defs[r] > 1) drop(r);
  }
  return u;
}

bool old_value_read(const Kernel& k, const Insn& in) {
  if (in.op == Opc::Red) return false;
  if (in.o[0].kind != Operand::Reg) return in.o[0].kind != Operand::None;
  if (in.o[0].reg == kSink) return false;
  bool read = false;
  for (const Insn& other : k.code) for_each_read(k, other, [&](uint32_t r) { read |= r == in.o[0].reg; });
  return read;
}

void mark_reductions(Kernel& k) {
  for (Insn& in : k.code)
    in.reduces = (in.op == Opc::Red || in.op == Opc::Atom) && AtomOp(in.sub) != AtomOp::Cas && in.vec == 1 &&
                 (in.space == Space::Global || in.space == Space::Generic) && !old_value_read(k, in);
}

bool uniform_address(const Operand& a, const std::vector<uint8_t>& uniform) {
  const bool reg_uniform = a.reg < uniform.size() && uniform[a.reg];
  if (a.kind == Operand::Addr) return !a.has_reg || reg_uniform;
  return a.kind == Operand::Reg && reg_uniform;
}

trace::AtomicPath atomic_path(const Kernel& k, const Insn& in, const std::vector<uint8_t>& uniform) {
  using trace::AtomicPath;
  if ((in.op != Opc::Atom && in.op != Opc::Red) || AtomOp(in.sub) != AtomOp::Add) return AtomicPath::PerLane;
  if (in.type != Type::U32 && in.type != Type::S32) return AtomicPath::PerLane;  // REDUX and POPC count 32-bit integers
  const bool red = in.op == Opc::Red;
  const Operand& addr = red ? in.o[0] : in.o[1];
  const Operand& value = red ? in.o[1] : in.o[2];
  const bool constant = value.kind == Operand::Imm;
  // Each lane's old value of a combined add of different values would need a prefix sum:
  // only an atom whose result nothing reads is combined then.
  if (uniform_address(addr, uniform) && (red || constant || !old_value_read(k, in))) return AtomicPath::Combined;
  if (in.space == Space::Shared && constant && value.imm == 1) return AtomicPath::Increment;
  return AtomicPath::PerLane;
}

}  // namespace ws::ptx
