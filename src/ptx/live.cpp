// src/ptx/live.cpp — what the compiling engine needs to keep a register in a block's own
// 32-bit array instead of the warp's 64-bit register file (codegen.cpp): which
// instructions read only the low half of their sources and write a zero-extended 32-bit
// value (so the array holds all they need, and writing it back gives the very bits the
// interpreter writes), and, for the registers they write, where each is live: read on some
// path before it is written again. A block writes back only the registers live where it
// leaves; the others (a tile loop's loaded values, read once by the next fma) never reach
// the register file.
//
// The analysis only ever errs towards live: an instruction whose operands it does not
// know reads every register (calls, returns to a caller, branches through a register), a
// guarded write or one of an instruction that is not a plain Alu, Move or ld kills
// nothing, and a thread's exit reads nothing.
#include <algorithm>

#include "ptx/engine.h"

namespace ws::ptx {

bool low_half_alu(const Insn& in) {
  if (in.type2 != Type::None) return false;
  if (in.op == Opc::Mov) return in.type == Type::F32 || in.type == Type::B32 || in.type == Type::U32;
  if (in.type != Type::F32) return false;
  switch (in.op) {
    case Opc::Add: case Opc::Sub: case Opc::Mul: case Opc::Fma: case Opc::Mad:
    case Opc::Min: case Opc::Max: case Opc::Neg: case Opc::Abs:
      return true;
    default:
      return false;
  }
}

bool low_half_load(const Insn& in) {
  return in.op == Opc::Ld && (in.space == Space::Shared || in.space == Space::Global) &&
         (in.type == Type::F32 || in.type == Type::B32 || in.type == Type::U32) && (in.vec == 1 || in.vec == 2 || in.vec == 4);
}

namespace {

// An instruction whose destination o[0] is written whole in every lane it runs for: an
// Alu or Move row into a register, or a load into registers.
bool writes_whole(const Insn& in) {
  if (in.o[0].kind == Operand::Reg) return kind_of(in.op) == Kind::Alu || kind_of(in.op) == Kind::Move || in.op == Opc::Ld;
  return in.op == Opc::Ld && in.o[0].kind == Operand::Vec && !in.o[0].has_reg;
}

}  // namespace

Liveness::Liveness(const Kernel& k, const std::vector<uint32_t>& regs) {
  index_.assign(k.registers, -1);
  uint32_t n = 0;
  for (uint32_t r : regs)
    if (r < k.registers && index_[r] < 0) index_[r] = int32_t(n++);
  words_ = (size_t(n) + 63) / 64;
  const size_t pcs = k.code.size();
  in_.assign((pcs + 1) * words_, 0);  // pc == size: past the end, nothing live
  if (!n) return;
  bool calls = false;
  for (const Insn& in : k.code) calls |= in.op == Opc::Call;

  // Each instruction's reads and kills among the candidates, and where it may go next.
  std::vector<uint64_t> use(pcs * words_, 0), kill(pcs * words_, 0);
  std::vector<uint8_t> all(pcs, 0);  // reads every register
  std::vector<uint32_t> jump(pcs, kSink);  // a branch's target
  std::vector<uint8_t> falls(pcs, 1);      // goes on to pc + 1
  for (size_t pc = 0; pc < pcs; ++pc) {
    const Insn& in = k.code[pc];
    uint64_t* u = use.data() + pc * words_;
    auto mark = [&](uint64_t* set, uint32_t r) {
      if (r < k.registers && index_[r] >= 0) set[size_t(index_[r]) / 64] |= uint64_t(1) << (index_[r] % 64);
    };
    if (in.guard != kSink) mark(u, in.guard);
    if (kind_of(in.op) == Kind::Control) {
      if (in.op == Opc::Bra && in.o[0].kind == Operand::Label && uint64_t(in.o[0].imm) <= pcs) {
        jump[pc] = uint32_t(in.o[0].imm);
        falls[pc] = in.guard != kSink;
      } else if (in.op == Opc::Exit || (in.op == Opc::Ret && !calls)) {
        falls[pc] = in.guard != kSink;  // the thread ends (its registers never read again), or goes on
      } else if (in.op == Opc::Bar) {
        for (const Operand& o : in.o) registers(k, o, [&](uint32_t r) { mark(u, r); });
      } else {
        all[pc] = 1;  // a call, a return to a caller, a branch through a register
      }
      continue;
    }
    const bool whole = writes_whole(in);
    for (size_t i = whole ? 1 : 0; i < std::size(in.o); ++i) registers(k, in.o[i], [&](uint32_t r) { mark(u, r); });
    if (in.dst2 != kSink) mark(u, in.dst2);  // (read too, to err towards live)
    if (whole && in.guard == kSink) registers(k, in.o[0], [&](uint32_t r) { mark(kill.data() + pc * words_, r); });
  }

  // Backwards to a fixed point: live in = reads + (live out - kills).
  std::vector<uint64_t> next(words_);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t pc = pcs; pc-- > 0;) {
      uint64_t* live = in_.data() + pc * words_;
      if (all[pc]) {
        for (size_t w = 0; w < words_; ++w) {
          const uint64_t v = w + 1 < words_ || n % 64 == 0 ? ~0ull : (uint64_t(1) << (n % 64)) - 1;
          changed |= live[w] != v;
          live[w] = v;
        }
        continue;
      }
      std::fill(next.begin(), next.end(), 0);
      if (falls[pc])
        for (size_t w = 0; w < words_; ++w) next[w] |= in_[(pc + 1) * words_ + w];
      if (jump[pc] != kSink)
        for (size_t w = 0; w < words_; ++w) next[w] |= in_[size_t(jump[pc]) * words_ + w];
      for (size_t w = 0; w < words_; ++w) {
        const uint64_t v = use[pc * words_ + w] | (next[w] & ~kill[pc * words_ + w]);
        changed |= live[w] != v;
        live[w] = v;
      }
    }
  }
}

std::vector<uint32_t> entry_registers(const Kernel& k) {
  std::vector<uint8_t> read(k.registers, 0);
  // Every register of an instruction whose lanes may read another's (a shuffle, an mma), or
  // whose reads and writes the analysis does not follow lane by lane.
  for (const Insn& in : k.code) {
    const Kind kind = kind_of(in.op);
    const bool own = kind == Kind::Alu || kind == Kind::Move || kind == Kind::Control || kind == Kind::Nothing ||
                     in.op == Opc::Ld || in.op == Opc::St || in.op == Opc::Atom || in.op == Opc::Red;
    if (own) continue;
    for (const Operand& o : in.o) registers(k, o, [&](uint32_t r) { if (r < k.registers) read[r] = 1; });
    for (uint32_t r : {in.guard, in.dst2})
      if (r < k.registers) read[r] = 1;
  }
  std::vector<uint32_t> all(k.registers);
  for (uint32_t r = 0; r < k.registers; ++r) all[r] = r;
  const Liveness live(k, all);
  std::vector<uint32_t> out;
  for (uint32_t r = 0; r < k.registers; ++r)
    if (read[r] || live.live(0, r)) out.push_back(r);
  return out;
}

bool Liveness::live(uint32_t pc, uint32_t reg) const {
  if (reg >= index_.size() || index_[reg] < 0) return true;  // not looked at: taken as live
  if (size_t(pc) * words_ >= in_.size()) return false;
  return (in_[size_t(pc) * words_ + size_t(index_[reg]) / 64] >> (index_[reg] % 64)) & 1;
}

}  // namespace ws::ptx
