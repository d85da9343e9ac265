// src/ptx/codegen.cpp — a module's kernels as C++ for the compiling engine (engine.h). Each
// instruction becomes a labelled block of the kernel's function:
//   Alu and Move rows   the row's semantic function (arith.h, named by opcodes.def) over the
//                       lanes that execute it, registers read and written in place;
//   ld / st             of shared and global memory: the lanes' addresses checked against
//                       the shared window or the allocation the instruction reached last,
//                       in a recorded block the interpreter's bookkeeping called (its race
//                       check and record), the bytes moved; a kernel parameter's load as a
//                       value; anything else (an address outside, lanes in several arrays,
//                       another space) handed to the interpreter's execute;
//   bra                 a jump when every lane goes the same way, else back to the scheduler;
//   every other row     Control rows (barriers, calls, returns, exits) back to the
//                       scheduler before they run; the rest through execute.
// So the generated code never holds a second copy of an instruction's meaning: it calls
// the function the interpreter calls, or the interpreter itself.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "ptx/arith.h"
#include "ptx/engine.h"
#include "ptx/fused_text.h"

namespace ws::ptx {

namespace {

using namespace fused;

// Each row's semantic function, by opcode (opcodes.def).
constexpr const char* kFunction[] = {
#define PTX_OP(E, N, K, F) #F,
#include "ptx/opcodes.def"
};

// The semantic function of a row as the generated code names it: its own, or wrapped in
// exact_op for .ftz and .sat.
std::string row_function(const Insn& in, const char* f) {
  const std::string own = std::string(f) + "<Fixed>";
  return in.mods & (kFtz | kSat) ? "exact_op<&" + own + ", Fixed>" : own;
}

// A register_row that runs on a block's 32-bit copies of registers: it reads only its
// sources' low halves and writes a zero-extended value (low_half_alu).
bool local_alu(const Insn& in) { return register_row(in) && !handed_form(in) && low_half_alu(in); }

// The registers a kernel's blocks may keep in 32-bit copies: those local_alu rows and loads
// of 32-bit values write.
std::vector<uint32_t> copied_registers(const Kernel& k) {
  std::vector<uint32_t> regs;
  for (const Insn& in : k.code)
    if (local_alu(in) || low_half_load(in)) registers(k, in.o[0], [&](uint32_t r) { if (r != kSink) regs.push_back(r); });
  return regs;
}

// A symbol's value as the generated code reads it, "" where it moves with the thread (a
// local symbol of a recursive kernel).
std::string symbol(const Kernel& k, uint32_t sym) {
  if (k.frame_bytes && k.symbols[sym].kind == Kernel::Sym::Local) return "";
  return "S[" + num(sym) + "]";
}

const char* element(uint32_t bytes) {
  return bytes == 1 ? "uint8_t" : bytes == 2 ? "uint16_t" : bytes == 4 ? "uint32_t" : "uint64_t";
}

// Writes a kernel's instructions to `o`, and to `head` what they share with the module's
// other kernels (each form and constant once).
class Writer {
 public:
  // What the module's kernels share: the declarations written once (head), by text.
  struct Shared {
    std::ostringstream head;
    std::map<std::string, size_t> forms;
    std::map<uint64_t, size_t> constants;
    std::map<uint32_t, size_t> constants32;
  };
  Writer(const Kernel& k, const Liveness& live, Shared& shared, bool inline_helpers)
      : k_(k), head_(shared.head), forms_(shared.forms), constants_(shared.constants), constants32_(shared.constants32),
        live_(live), suffix_(inline_helpers ? "_inline" : "") {}

  void instruction(uint32_t pc) {
    const Insn& in = k_.code[pc];
    if (local_alu(in)) {
      alu32(in);
    } else {
      before(in);
      if (!native(pc, in)) {
        flush_all();  // the interpreter runs it: it may read, and write, any register
        locals_.clear();
        o_ << "  { ++n; const uint32_t ex = " << guard(in) << "; if (ex) " << handed(pc) << " }\n";
        spreads_.clear();  // the interpreter ran it: any register may have changed
      }
    }
    written(in);
  }

  // The instructions [first, last) of a block as one loop over the lanes (fusable): the
  // functions' text, named `name`, or "" when the block does not qualify. The block then
  // starts with `if (active == ~0u && name(c, n, acc)) <exit>` and runs as written where
  // the call says no. `out`: where the block goes after them (the registers live there are
  // written back).
  // `loops`: instruction `last` is a branch back to `first` (the block is a loop's own), which
  // the function then takes again itself while it may (fused::next_turn).
  std::string fused(uint32_t first, uint32_t last, const std::string& name, uint32_t out, bool loops);
  // Control instruction pc as the block's last, written where no register has a copy (after
  // a fused block: every register it wrote is in the file).
  std::string branch(uint32_t pc) {
    std::ostringstream o;
    std::swap(o, o_);
    control(pc, k_.code[pc]);
    std::swap(o, o_);
    return o.str();
  }

  // The block written so far (its spreads and 32-bit copies declared first) and its end,
  // on to instruction `end`; a fresh start for the next.
  std::string take_block(uint32_t end) {
    std::string text;
    for (size_t i = 0; i < spread_count_; ++i)
      text += "  Spread A" + num(i) + "; bool a" + num(i) + " = false; Seen s" + num(i) + ";\n";
    for (uint32_t r : declared_) text += "  alignas(64) uint32_t L" + num(r) + "[32]; uint32_t m" + num(r) + " = 0;\n";
    text += o_.str() + "  " + leave(end) + "WS_NEXT(" + num(end) + ");\n";
    o_.str("");
    spreads_.clear();
    spread_count_ = 0;
    locals_.clear();
    declared_.clear();
    return text;
  }

 private:
  // ---- registers kept in the block's own 32-bit copies (Lr, its written lanes mr) ----------
  // Register r's copy, made here if the block has none (filled from the register file when
  // `fill`: a read, or a write of only some lanes, needs the others).
  std::string local(uint32_t r, bool fill) {
    if (!locals_.count(r)) {
      declared_.insert(r);
      locals_[r] = false;
      if (fill) o_ << "  narrow(L" << r << ", R + " << uint64_t(r) * 32 << ");\n";
    }
    return "L" + num(r);
  }
  // The copy's written lanes back to the register file: code, and as emitted (then clean).
  static std::string widen(uint32_t r) {
    return "widen(R + " + num(uint64_t(r) * 32) + ", m" + num(r) + ", L" + num(r) + "); ";
  }
  void flush(uint32_t r) {
    auto it = locals_.find(r);
    if (it == locals_.end() || !it->second) return;
    o_ << "  " << widen(r) << "m" << r << " = 0;\n";
    it->second = false;
  }
  void flush_all() {
    for (auto& [r, dirty] : locals_)
      if (dirty) o_ << "  " << widen(r) << "m" << r << " = 0;\n", dirty = false;
  }
  // What a way out of the block to instruction `to` writes back first: the registers
  // written here that are live there.
  std::string leave(uint32_t to) const {
    std::string text;
    for (auto& [r, dirty] : locals_)
      if (dirty && live_.live(to, r)) text += widen(r);
    return text;
  }
  // Before an instruction that reads and writes the register file itself: the copies of the
  // registers it names written back; the copies of those it writes dropped (a load of
  // 32-bit values keeps its destinations' copies: memory()).
  void before(const Insn& in) {
    for (const Operand& o : in.o) registers(k_, o, [this](uint32_t r) { flush(r); });
    if (in.guard != kSink) flush(in.guard);
    if (in.dst2 != kSink) flush(in.dst2), locals_.erase(in.dst2);
    if (in.op == Opc::St) return;                        // it only reads
    if (in.op == Opc::Ld && low_half_load(in)) return;  // memory() keeps its destinations' copies
    registers(k_, in.o[0], [this](uint32_t r) { locals_.erase(r); });
  }
  // An Alu or Move row on the copies (local_alu).
  void alu32(const Insn& in) {
    std::string src[4];
    for (int i = 0; i < 4; ++i) {
      const Operand& x = in.o[size_t(i) + 1];
      src[i] = x.kind == Operand::Reg ? local(x.reg, true) : constant32(x.kind == Operand::Imm ? uint64_t(x.imm) : 0);
    }
    const uint32_t d = in.o[0].reg;
    const std::string D = local(d, in.guard != kSink);
    o_ << "  { ++n; const uint32_t ex = " << guard(in) << "; if (ex) { alu32" << suffix_ << "<&" << row_function(in, kFunction[size_t(in.op)])
       << ", Type(" << int(in.type) << "), kForm" << form(in) << ">(" << D << ", ex, " << src[0] << ", " << src[1]
       << ", " << src[2] << ", " << src[3] << "); m" << d << " |= ex; } }\n";
    locals_[d] = true;
  }

  // Writes instruction pc natively; false when it is left to execute.
  bool native(uint32_t pc, const Insn& in) {
    switch (kind_of(in.op)) {
      case Kind::Control: control(pc, in); return true;
      case Kind::Nothing: o_ << "  ++n;\n"; return true;
      case Kind::Alu:
      case Kind::Move: return lanes(pc, in);
      case Kind::Memory: return memory(pc, in);
      case Kind::Warp: return false;
    }
    return false;
  }
  // The registers an instruction writes end the spreads that read them.
  void written(const Insn& in) {
    auto drop = [this](uint32_t r) {
      for (auto it = spreads_.begin(); it != spreads_.end();) it = it->first.first == r ? spreads_.erase(it) : std::next(it);
    };
    const Operand& d = in.o[0];
    if (d.kind == Operand::Reg) drop(d.reg);
    if (d.kind == Operand::Vec && d.has_reg) spreads_.clear();  // a long vector's registers (Kernel::lists)
    else if (d.kind == Operand::Vec)
      for (uint32_t r : d.vec) drop(r);
    if (in.dst2 != kSink) drop(in.dst2);
  }
  // The spread of register r for elements of eb bytes in this block (declared by
  // take_block, computed where first needed).
  size_t spread_of(uint32_t r, uint32_t eb) {
    auto [it, fresh] = spreads_.emplace(std::make_pair(r, eb), spread_count_);
    if (fresh) ++spread_count_;
    return it->second;
  }

  std::string guard(const Insn& in) const {
    if (in.guard == kSink) return "active";
    return "guard(R + " + num(uint64_t(in.guard) * 32) + ", " + (in.guard_neg ? "true" : "false") + ", active)";
  }
  // Instruction pc run by the interpreter for the lanes of `ex` (n counts it already).
  std::string handed(uint32_t pc) const {
    return "{ c.n = n; acc += c.execute(c, " + num(pc) + ", ex); if (c.yield) { " + leave(pc + 1) + "WS_STOP(" + num(pc + 1) +
           "); } }";
  }

  void control(uint32_t pc, const Insn& in) {
    const uint64_t to = uint64_t(in.o[0].imm);
    if (in.op == Opc::Bra && in.o[0].kind == Operand::Label && to <= k_.code.size()) {
      // In a cooperative launch a jump back (a loop, maybe one waiting for another block)
      // gives the grid's other blocks their turn, as the interpreter's does.
      const std::string back = to <= pc ? "if (c.loops_yield) { c.yield = true; WS_STOP(" + num(to) + "); } " : "";
      o_ << "  { const uint32_t ex = " << guard(in) << ";\n"
         << "    if (ex == active) { " << leave(uint32_t(to)) << "++n; " << back << "if (" << to << "u >= stop) WS_STOP(" << to
         << "); WS_NEXT(" << to << "); }\n"
         << "    if (ex) { " << leave(pc) << "WS_STOP(" << pc << "); }\n"
         << "    ++n; }\n";
      return;
    }
    o_ << "  { " << leave(pc) << "WS_STOP(" << pc << "); }\n";  // the scheduler runs it
  }

  // An Alu or Move row over the lanes (compiled::alu for its row, type and form); false
  // when its form is left to execute.
  bool lanes(uint32_t pc, const Insn& in) {
    (void)pc;
    if (in.o[0].kind != Operand::Reg || handed_form(in)) return false;
    std::string src[4], fill;
    for (int i = 0; i < 4; ++i) {
      const Operand& x = in.o[size_t(i) + 1];
      if (x.kind == Operand::Reg) {
        src[i] = "R + " + num(uint64_t(x.reg) * 32);
      } else if (x.kind == Operand::Imm || x.kind == Operand::None) {
        src[i] = constant(x.kind == Operand::Imm ? uint64_t(x.imm) : 0);
      } else {
        // A symbol's value, or one of the place's registers (%tid, %ctaid...), lane by lane
        // into a row of its own.
        std::string each;
        if (x.kind == Operand::Symbol) each = symbol(k_, x.symbol);
        if (x.kind == Operand::Special && place_register(x.sreg))
          each = "place_value(Sreg(" + num(uint32_t(x.sreg)) + "), c.place, c.warp, l)";
        if (each.empty()) return false;
        src[i] = "t" + num(uint64_t(i));
        fill += "uint64_t t" + num(uint64_t(i)) + "[32]; for (int l = 0; l < 32; ++l) t" + num(uint64_t(i)) + "[l] = " + each + "; ";
      }
    }
    o_ << "  { ++n; const uint32_t ex = " << guard(in) << "; if (ex) { " << fill << "alu" << suffix_ << "<&"
       << row_function(in, kFunction[size_t(in.op)]) << ", Type(" << int(in.type) << "), kForm" << form(in) << ">(R + "
       << uint64_t(in.o[0].reg) * 32
       << ", ex, " << src[0] << ", " << src[1] << ", " << src[2] << ", " << src[3] << "); } }\n";
    return true;
  }

  // The instruction's form as constants (compiled::Fixed), declared once per module: its number.
  size_t form(const Insn& in) {
    std::ostringstream f;
    f << "Fixed{Opc(" << int(in.op) << "), Type(" << int(in.type2) << "), Space(" << int(in.space) << "), " << in.mods
      << ", Rnd(" << int(in.rnd) << "), Cmp(" << int(in.cmp) << "), " << int(in.sub) << ", " << in.dst2 << "u, {";
    for (int i = 0; i < 5; ++i) f << (i ? ", " : "") << "{" << (in.o[size_t(i)].negate ? "true" : "false") << "}";
    f << "}}";
    auto [it, fresh] = forms_.emplace(f.str(), forms_.size());
    if (fresh) head_ << "constexpr " << it->first.substr(0, 5) << " kForm" << it->second << it->first.substr(5) << ";\n";
    return it->second;
  }
  // The same of 32-bit lanes: its low half.
  std::string constant32(uint64_t v) {
    const uint32_t lo = uint32_t(v);
    auto [it, fresh] = constants32_.emplace(lo, constants32_.size());
    if (fresh) {
      head_ << "constexpr uint32_t kConst32_" << it->second << "[32] = {";
      for (int l = 0; l < 32; ++l) head_ << (l ? ", " : "") << lo << "u";
      head_ << "};\n";
    }
    return "kConst32_" + num(it->second);
  }

  // A 32-lane array of `v`, declared once per module.
  std::string constant(uint64_t v) {
    auto [it, fresh] = constants_.emplace(v, constants_.size());
    if (fresh) {
      head_ << "constexpr uint64_t kConst" << it->second << "[32] = {";
      for (int l = 0; l < 32; ++l) head_ << (l ? ", " : "") << v << "ull";
      head_ << "};\n";
    }
    return "kConst" + num(it->second);
  }

  // ld / st of shared or global memory (and a kernel parameter's load); false when the
  // instruction is left to execute whole.
  bool memory(uint32_t pc, const Insn& in) {
    const bool ld = in.op == Opc::Ld, st = in.op == Opc::St;
    if (!ld && !st) return false;
    const uint32_t eb = type_bytes(in.type);
    if (eb == 0 || eb > 8 || (in.vec != 1 && in.vec != 2 && in.vec != 4)) return false;
    const Operand& ao = ld ? in.o[1] : in.o[0];
    if (ao.kind != Operand::Addr) return false;
    std::string base = num(uint64_t(ao.imm)) + "ull";
    if (ao.has_symbol) {
      const std::string s = symbol(k_, ao.symbol);
      if (s.empty()) return false;
      base += " + " + s;
    }
    if (ld && in.space == Space::Param) return parameter(pc, in, ao, base, eb);
    if (in.space != Space::Shared && in.space != Space::Global) return false;
    // What moves, element by element, for lane l at byte pointer p; and for a whole warp
    // whose addresses the block's spread of the register holds (fast).
    std::ostringstream move, fast, after;
    const bool whole = ao.has_reg && (eb == 4 || eb == 8);
    const std::string E = element(eb);
    // A load of 32-bit values through a register's spread keeps them in the block's copies
    // (the general way writes the register file, and the copies are filled from it after).
    std::vector<uint32_t> dests;
    if (ld)
      for (uint32_t i = 0; i < in.vec; ++i) {
        const Operand& d = in.o[0];
        const uint32_t r = d.kind == Operand::Vec && !d.has_reg ? d.vec[i] : d.kind == Operand::Reg && in.vec == 1 ? d.reg : kSink - 1;
        if (r == kSink - 1) return false;
        dests.push_back(r);
      }
    const bool copy = ld && whole && low_half_load(in);
    for (uint32_t r : dests)
      if (r != kSink && !copy) locals_.erase(r);  // (before() wrote it back)
    const std::string A = whole ? "A" + num(spread_of(ao.reg, eb)) : "";
    for (uint32_t i = 0; i < in.vec; ++i) {
      if (ld) {
        const uint32_t r = dests[i];
        if (r == kSink) continue;
        move << "      gather" << (whole ? "" : suffix_) << "<" << E << ", Type(" << int(in.type) << ")>(R + " << uint64_t(r) * 32 << ", ex, P, B, at, "
             << i * eb << ");\n";
        if (copy) {
          const std::string L = local(r, in.guard != kSink);
          fast << "      load_spread32(" << L << ", P, " << A << ", d + " << i * eb << "); m" << r << " = ~0u;\n";
          after << " narrow(" << L << ", R + " << uint64_t(r) * 32 << ");";
        } else {
          fast << "      load_spread<" << E << ", Type(" << int(in.type) << ")>(R + " << uint64_t(r) * 32 << ", P, " << A << ", d + "
               << i * eb << ");\n";
        }
      } else {
        const Operand& s = in.o[1];
        std::string v;
        if (s.kind == Operand::Vec) v = s.vec[i] == kSink ? constant(0) : "R + " + num(uint64_t(s.vec[i]) * 32);
        else if (in.vec == 1 && s.kind == Operand::Reg) v = "R + " + num(uint64_t(s.reg) * 32);
        else if (in.vec == 1 && s.kind == Operand::Imm) v = constant(uint64_t(s.imm));
        if (v.empty()) return false;
        move << "      scatter" << (whole ? "" : suffix_) << "<" << E << ">(P, B, at, " << i * eb << ", ex, " << v << ");\n";
        fast << "      store_spread<" << E << ">(P, " << A << ", d + " << i * eb << ", " << v << ");\n";
      }
    }
    const uint32_t bytes = eb * in.vec;
    const bool sh = in.space == Space::Shared;
    const uint32_t head2 = bytes | (st ? 1u << 24 : 0u);  // the race check reference's bytes | kind << 24
    o_ << "  { ++n; const uint32_t ex = " << guard(in) << "; if (ex) {\n";
    if (!sh) o_ << "    GlobalSlot& g = c.globals[" << pc << "];\n";
    if (whole) {
      // A whole warp: the block's spread of the address register, made where first needed,
      // serves every access through it (its bounds and how its lanes lie settled once); the
      // same bookkeeping as below, where only counting is left.
      const std::string a = "a" + A.substr(1);
      o_ << "    const uint64_t off = " << base << ";\n"
         << "    if (ex == ~0u && (" << a << " || (spread<" << eb << ">(" << A << ", R + " << uint64_t(ao.reg) * 32 << "), " << a
         << " = true)) && fits(" << A << ", off, " << bytes << ", " << (sh ? "0, c.shared_bytes" : "g.base, g.end")
         << ") && (!c.record || (c.quick && "
         << (sh ? "repeats(c, " + num(pc) + ", c.warp, ex, " + A + ".at, " + num(head2) + "u, off, &s" + A.substr(1) + ")"
                : std::string("g.counted"))
         << " && (++c.dropped, true)))) {\n"
         << "      uint8_t* const P = " << (sh ? "c.shared" : "g.ptr") << "; const uint64_t d = off" << (sh ? "" : " - g.base")
         << ";\n"
         << fast.str() << "      acc += 32;\n    } else {\n";
    }
    o_ << "    uint64_t at[32];\n";
    if (ao.has_reg) o_ << "    addresses(at, R + " << uint64_t(ao.reg) * 32 << ", " << base << ");\n";
    else o_ << "    for (int l = 0; l < 32; ++l) at[l] = " << base << ";\n";
    // In a recorded block the interpreter's bookkeeping (note) comes first; an access it does
    // not take, or one outside, goes to execute whole.
    // Past the cap on a worker (quick) an access only counts, once the race check has seen a
    // shared one repeat its reference, or a global one's array is known.
    const std::string quick = sh ? "repeats(c, " + num(pc) + ", c.warp, ex, at, " + num(head2) + "u)" : std::string("g.counted");
    const std::string noted = "(c.record && !(c.quick && " + quick + " ? (++c.dropped, true) : c.note(c, " + num(pc) + ", ex, at)))";
    if (sh) {
      o_ << "    if (!inside(at, ex, " << bytes << ", 0, c.shared_bytes) || " << noted << ") " << handed(pc) << " else {\n"
         << "      uint8_t* const P = c.shared; const uint64_t B = 0;\n";
    } else {
      o_ << "    const uint64_t a0 = at[std::countr_zero(ex)];\n"
         << "    if ((!within(a0, " << bytes << ", g.base, g.end) && !c.find(c, " << pc << ", a0, " << bytes
         << ")) || !inside(at, ex, " << bytes << ", g.base, g.end) || " << noted << ") " << handed(pc) << " else {\n"
         << "      uint8_t* const P = g.ptr; const uint64_t B = g.base;\n";
    }
    o_ << move.str() << "      acc += uint64_t(std::popcount(ex)); }" << after.str() << (whole ? " }" : "") << " } }\n";
    if (copy)
      for (uint32_t r : dests)
        if (r != kSink) locals_[r] = true;
    return true;
  }

  // ld.param of one register at a fixed offset: one value for every lane, as the
  // interpreter reads it (not memory traffic).
  bool parameter(uint32_t pc, const Insn& in, const Operand& ao, const std::string& base, uint32_t eb) {
    if (ao.has_reg || in.o[0].kind != Operand::Reg || in.vec != 1) return false;
    std::string v = "v";
    if (is_signed(in.type)) v = "uint64_t(sext(Type(" + num(uint32_t(in.type)) + "), v))";
    o_ << "  { ++n; const uint32_t ex = " << guard(in) << "; if (ex) {\n"
       << "    const uint64_t at = " << base << ";\n"
       << "    if (at + " << eb << " <= c.param_bytes) { uint64_t v = 0; std::memcpy(&v, c.params + at, " << eb
       << "); const uint64_t x = " << v << "; WS_LANES(ex, R + " << uint64_t(in.o[0].reg) * 32
       << ", x); }\n"
       << "    else " << handed(pc) << " } }\n";
    return true;
  }

  const Kernel& k_;
  std::ostringstream o_;  // the block being written
  std::ostringstream& head_;
  std::map<std::string, size_t>& forms_;
  std::map<uint64_t, size_t>& constants_;
  std::map<uint32_t, size_t>& constants32_;
  const Liveness& live_;
  std::map<uint32_t, bool> locals_;  // the registers with a copy here: whether written since it was last written back
  std::set<uint32_t> declared_;     // every register with a copy in the block
  const char* suffix_;  // "_inline": the helpers inlined at each instruction
  std::map<std::pair<uint32_t, uint32_t>, size_t> spreads_;  // (register, element bytes) -> its spread, while unwritten
  size_t spread_count_ = 0;
};

std::string Writer::fused(uint32_t first, uint32_t last, const std::string& name, uint32_t out, bool loops) {
  // What qualifies: four instructions or more, one of them arithmetic; loads through at most
  // two address registers (each of them a template flag: run or one word), none written here.
  // (An address register may be written after its last load: a loop's pointers stepped at
  // its end. The spreads are taken at the entry, which is what those loads read.)
  uint32_t alus = 0, loads = 0;
  std::vector<uint32_t> spreads;  // the address registers, in order of first use
  const std::set<uint32_t> written = written_in(k_, first, last);
  std::set<uint32_t> written_yet;
  for (uint32_t pc = first; pc < last; ++pc) {
    const Insn& in = k_.code[pc];
    if (kind_of(in.op) == Kind::Nothing) continue;
    if (fusable_alu(in)) {
      ++alus;
      registers(k_, in.o[0], [&](uint32_t r) { written_yet.insert(r); });
      continue;
    }
    if (!fusable_load(in) || written_yet.count(in.o[1].reg)) return "";
    written_yet.insert(in.o[0].reg);
    ++loads;
    if (std::find(spreads.begin(), spreads.end(), in.o[1].reg) == spreads.end()) spreads.push_back(in.o[1].reg);
  }
  if (alus == 0 || last - first < 4 || spreads.size() > 2) return "";
  auto spread_index = [&](uint32_t r) { return size_t(std::find(spreads.begin(), spreads.end(), r) - spreads.begin()); };
  // The lanes, eight at a time: each eight's load addresses first, then each lane's values
  // from the first instruction to the last (a register's 64 bits, as the file holds them),
  // the registers live at the exit written back.
  std::ostringstream f, lane, back, bounds;  // bounds: the global accesses' checks
  std::string counted;                       // the global accesses' test: an array not known yet
  std::vector<FusedLoad> shared, all;      // the shared loads, and all of them, in order
  std::vector<std::pair<uint64_t, uint64_t>> range(spreads.size(), {~0ull, 0});  // each spread's shared offsets
  std::set<uint32_t> known;  // registers with a value in the loop (read from the file where first read)
  // A source: its 64 bits, or for a row on 32-bit copies (local_alu: the register's low half,
  // an immediate's) as that row reads it.
  auto value = [&](const Operand& x, bool low) -> std::string {
    const uint64_t imm = x.kind == Operand::Imm ? uint64_t(x.imm) : 0;
    if (x.kind != Operand::Reg) return low ? num(uint32_t(imm)) + "u" : num(imm) + "ull";
    if (known.insert(x.reg).second) lane << "      uint64_t v" << x.reg << " = R[" << uint64_t(x.reg) * 32 << " + l];\n";
    return low ? "uint32_t(v" + num(x.reg) + ")" : "v" + num(x.reg);
  };
  // (A function of its own: inlined into its caller, the host compiler no longer turns the
  // loop over eight lanes into vectors.)
  f << "template <int How>\n[[gnu::noinline]] static void " << name << "_lanes(const Ctx& c, uint64_t* __restrict R, const Spread* A) {\n"
    << "  for (int g = 0; g < 4; ++g) {\n";
  const std::vector<Window> win = windows(k_, first, last, spreads, f);
  for (uint32_t pc = first; pc < last; ++pc) {
    const Insn& in = k_.code[pc];
    if (kind_of(in.op) == Kind::Nothing) continue;
    if (fusable_alu(in)) {
      const bool low = local_alu(in);  // as alu32 runs it: the low halves in, a zero-extended value out
      const std::string a = value(in.o[1], low), b = value(in.o[2], low), c = value(in.o[3], low), e = value(in.o[4], low);
      const uint32_t d = in.o[0].reg;
      const std::string D = known.insert(d).second ? "uint64_t v" + num(d) : "v" + num(d);
      const std::string call = row_function(in, kFunction[size_t(in.op)]) +
                               "(kForm" + num(form(in)) + ", TC<" + num(uint32_t(in.type)) + ">{}, " + a + ", " + b + ", " + c + ", " + e + ")";
      lane << "      " << D << " = " << (low ? "uint32_t(" + call + ")" : call) << ";\n";
      continue;
    }
    const Operand& ao = in.o[1];
    const size_t js = spread_index(ao.reg);
    const std::string j = num(js), off = num(uint64_t(ao.imm)) + "ull", q = "q" + num(pc);
    std::string apart;  // a lane's own address, where the eights lie apart
    if (in.space == Space::Shared) {
      auto& [lo, hi] = range[js];
      lo = std::min(lo, uint64_t(ao.imm)), hi = std::max(hi, uint64_t(ao.imm));
      shared.push_back({pc, uint32_t(js), uint64_t(ao.imm)});
      f << "    const uint8_t* const " << q << " = c.shared + (A[" << j << "].at[8 * g] + " << off << ");\n";
      apart = "c.shared + (A[" + j + "].at[l] + " + off + ")";
    } else {
      const std::string g = "c.globals[" + num(pc) + "]";
      bounds << "  if (!fits(A[" << j << "], " << off << ", 4, " << g << ".base, " << g << ".end)) return false;\n";
      counted += (counted.empty() ? "!" : " || !") + g + ".counted";
      f << "    const uint8_t* const " << q << " = " << g << ".ptr + (A[" << j << "].at[8 * g] + " << off << " - " << g << ".base);\n";
      apart = g + ".ptr + (A[" + j + "].at[l] + " + off + " - " + g + ".base)";
    }
    all.push_back({pc, uint32_t(js), uint64_t(ao.imm)});
    const uint32_t d = in.o[0].reg;
    const std::string D = known.insert(d).second ? "uint64_t v" + num(d) : "v" + num(d);
    if (win[js].words)  // (a lane's own address read through its window)
      lane << "      " << D << " = (How >> (2 + " << j << ")) & 1 ? uint64_t(T" << j << "[" << (ao.imm - win[js].lo) / 4
           << "][i]) : load<uint32_t>(" << q << " + ((How >> " << j << ") & 1 ? 0 : 4 * i));\n";
    else
      lane << "      " << D << " = load<uint32_t>((How >> (2 + " << j << ")) & 1 ? " << apart << " : " << q << " + ((How >> " << j
           << ") & 1 ? 0 : 4 * i));\n";
  }
  for (uint32_t r : written)
    if (live_.live(out, r)) {  // (every register but the 32-bit copies' is taken as live)
      f << "    uint64_t w" << r << "[8];\n";
      lane << "      w" << r << "[i] = v" << r << ";\n";
      back << "    for (int i = 0; i < 8; ++i) R[" << uint64_t(r) * 32 << " + 8 * g + i] = w" << r << "[i];\n";
    }
  f << "    for (int i = 0; i < 8; ++i) {\n      const int l = 8 * g + i;\n" << lane.str() << "    }\n" << back.str() << "  }\n}\n";
  // The block's entry: its spreads, the accesses' bounds, the reference repeated; the lanes.
  const size_t n = std::max<size_t>(1, spreads.size());
  f << "[[gnu::noinline]] static bool " << name << "(Ctx& c, uint64_t& n, uint64_t& acc) {\n"
    << "  uint64_t* const R = c.regs;\n  Spread A[" << n << "];\n";
  // A warp of fewer lanes than 32 (the block's last, its threads not a multiple of 32) where
  // all its lanes run, and no access is noted or checked against the race check's reference:
  // its missing lanes read the first lane's words and compute what no thread reads.
  f << "  if (c.active != ~0u && (" << (shared.empty() ? "(c.record && !c.quick) || !whole_warp(c)" : "true") << ")) return false;\n";
  for (size_t i = 0; i < spreads.size(); ++i)
    f << "  uint64_t P" << i << "[32];\n  spread<4>(A[" << i << "], existing_lanes(c, R + " << uint64_t(spreads[i]) * 32 << ", P" << i << "));\n";
  const std::string checks = entry_checks(bounds.str(), win, range);
  f << checks;
  if (loads)  // (a block that accesses no memory records nothing)
    f << "  if (c.record && !c.quick) {  // records kept: each load noted, in order, as the code below notes it\n"
      << noted_test(all, range) << "  } else if (c.record) {  // counted: each access repeats the race check's reference\n"
      << (counted.empty() ? "" : "    if (" + counted + ") return false;\n") << repeated_test(shared, range)
      << "    c.dropped += " << loads << ";\n  }\n";
  const std::vector<uint64_t> steps = loops ? spread_steps(k_, first, last, spreads) : std::vector<uint64_t>{};
  const bool stepped = loops && steps.size() == spreads.size();
  if (stepped) f << "  for (const uint32_t active = c.active;;) {\n";
  f << lanes_switch(name, spreads.size());
  f << "  }\n  n += " << last - first << ";\n  acc += " << loads << "u * uint64_t(std::popcount(c.active));\n";
  if (stepped)
    f << next_turn({steps, guard(k_.code[last]), first, last + 1 - first, checks, counted, loads, !shared.empty()});
  f << "  return true;\n}\n";
  return f.str();
}

// A name as a C++ comment may hold it: letters, digits and _$.% only (a backslash would
// continue the comment onto the code's next line).
std::string comment(const std::string& name) {
  std::string out;
  for (char ch : name)
    out += std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '$' || ch == '.' || ch == '%' ? ch : '?';
  return out;
}

// Where the scheduler may enter a kernel, and where its blocks start: the first
// instruction, branch targets, and the instruction after each one the scheduler runs
// itself. An entry elsewhere runs nothing (the interpreter steps on to one of these).
std::vector<bool> leaders(const Kernel& k) {
  std::vector<bool> at(k.code.size() + 1, false);
  at[0] = true;
  for (size_t pc = 0; pc < k.code.size(); ++pc) {
    const Insn& in = k.code[pc];
    if (kind_of(in.op) != Kind::Control) continue;
    at[pc + 1] = true;
    if (in.op == Opc::Bra && in.o[0].kind == Operand::Label && uint64_t(in.o[0].imm) <= k.code.size())
      at[size_t(in.o[0].imm)] = true;
  }
  at[k.code.size()] = false;  // past the end: the scheduler's
  return at;
}

}  // namespace

// Each block of straight-line instructions is a small function of its own, the kernel's
// entry a loop that runs block after block: the host compiler's time then grows with the
// kernel's length, where one function holding every instruction grew far faster.
bool long_module(const Module& m) {
  size_t length = 0;
  for (const Kernel& k : m.kernels) length += k.refused.empty() ? k.code.size() : 0;
  return length > kInlineInstructions;
}

Generated generate(const Module& m) {
  Writer::Shared shared;
  std::ostringstream& head = shared.head;
  Generated g;
  // (The module's file name is left out: a program's PTX lies in a folder of its own each
  // run, and the text is what the cache is keyed by.)
  head << "// a module for warpscope's compiling engine (generated: src/ptx/codegen.cpp)\n"
    << "#include \"ws_prelude.h\"\n"
    << "using namespace ws::ptx;\nusing namespace ws::ptx::compiled;\n"
    << "template <int I> using TC = std::integral_constant<Type, Type(I)>;\n"
    << "using Block = uint32_t (*)(Ctx&);\n"
    << "constexpr uint32_t kStop = 0x80000000u;  // a block's answer: back to the scheduler at this pc\n"
    << "#define WS_NEXT(pc) do { c.n = n; c.lanes = acc; return (pc); } while (0)\n"
    << "#define WS_STOP(pc) do { c.n = n; c.lanes = acc; return (pc) | kStop; } while (0)\n";
  g.units.push_back("extern \"C\" [[gnu::visibility(\"default\")]] uint32_t ws_engine_abi() { return kAbi; }\n");
  // A module of few instructions has its helpers inlined (the fastest code, compiled in
  // about a second); a longer one calls them (compiled in proportion to its length).
  const bool inline_helpers = !long_module(m);
  size_t long_loops = 0;  // the loops fused in a long module
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    if (!k.refused.empty()) continue;
    const std::vector<bool> lead = leaders(k);
    const Liveness live(k, copied_registers(k));
    Writer w(k, live, shared, inline_helpers);
    std::ostringstream blocks;  // their declarations, for the entry
    for (uint32_t pc = 0; pc < k.code.size();) {
      std::ostringstream o;
      std::string fused;  // the block's fused form, where it has one
      if (pc == 0) o << "\n// " << comment(k.name) << "\n";
      blocks << "WS_BLOCK uint32_t k" << i << "_" << pc << "(Ctx& c);\n";
      o << "WS_BLOCK uint32_t k" << i << "_" << pc << "(Ctx& c) {\n"
        << "  uint64_t* const R = c.regs;\n  const uint64_t* const S = c.symbols;\n"
        << "  const uint32_t active = c.active, stop = c.stop;\n  const uint64_t budget = c.budget;\n"
        << "  uint64_t n = c.n, acc = c.lanes;\n  (void)S; (void)R; (void)active;\n";
      uint32_t end = pc + 1;
      while (end < k.code.size() && !lead[end]) ++end;
      // Where the warp's other lanes wait (stop) inside the block, or too little budget left
      // for all of it: back to the scheduler, which runs the block's instructions one by one
      // (the interpreter's) up to the next block. Else the block runs whole.
      o << "  if (stop - " << pc << "u < " << end - pc << "u || budget - n < " << end - pc << "u) [[unlikely]] WS_STOP(" << pc
        << ");\n";
      // A whole warp through a block of lane-wise instructions: as one loop over its lanes
      // (Writer::fused), up to a last instruction the scheduler runs. In a long module only a
      // loop's own block (one that branches back to its start), a few of them, so that the
      // compile time stays in proportion to the module's length.
      const bool ends = kind_of(k.code[end - 1].op) == Kind::Control;  // in a branch, a barrier, an exit...
      const uint32_t upto = ends ? end - 1 : end;
      const Insn& last = k.code[end - 1];
      const bool loop = last.op == Opc::Bra && last.o[0].kind == Operand::Label && uint64_t(last.o[0].imm) == pc;
      if (inline_helpers || (loop && long_loops < kLongModuleLoops)) {
        const std::string name = "f" + num(i) + "_" + num(pc);
        const std::string f = w.fused(pc, upto, name, upto, loop);
        if (!f.empty()) {
          long_loops += !inline_helpers;
          fused = f;
          o << "  if (" << name << "(c, n, acc)) {\n" << (ends ? w.branch(upto) : "") << "  WS_NEXT(" << end << ");\n  }\n";
        }
      }
      for (; pc < end; ++pc) w.instruction(pc);
      o << w.take_block(end) << "}\n";
      g.units.push_back(fused + o.str());
    }
    std::ostringstream o;
    o << blocks.str() << "extern \"C\" [[gnu::visibility(\"default\")]] void ws_kernel_" << i << "(Ctx& c) {\n"
      << "  static const Block kAt[] = {";
    for (size_t pc = 0; pc <= k.code.size(); ++pc)
      o << (pc ? ", " : "") << (lead[pc] ? "k" + num(i) + "_" + num(pc) : std::string("nullptr"));
    o << "};\n"
      << "  uint32_t pc = c.pc;\n  c.n = 0;\n  c.lanes = 0;\n"
      << "  while (Block b = kAt[pc]) {\n    pc = b(c);\n    if (pc & kStop) { pc &= ~kStop; break; }\n  }\n"
      << "  c.pc = pc;\n}\n";
    g.units.push_back(o.str());
  }
  g.head = head.str();
  return g;
}

// One translation unit: the block functions file-local, as the compiler likes them best.
std::string Generated::text() const {
  std::string t = head + "#define WS_BLOCK static\n";
  for (const std::string& u : units) t += u;
  return t;
}

// Several: the units in order, cut where each part has about its share of the text; the
// block functions then have the library's (hidden) linkage, as an entry may lie in
// another part than its blocks.
std::vector<std::string> Generated::parts(size_t n) const {
  size_t total = 0;
  for (const std::string& u : units) total += u.size();
  std::vector<std::string> out;
  const std::string start = head + "#define WS_BLOCK\n";
  size_t done = 0;
  for (const std::string& u : units) {
    if (out.empty() || (done >= total * out.size() / n && out.size() < n)) out.push_back(start);
    out.back() += u;
    done += u.size();
  }
  return out;
}

}  // namespace ws::ptx
