// src/ptx/fused_text.cpp — the parts of a fused block's generated text (fused_text.h).
#include "ptx/fused_text.h"

#include <algorithm>
#include <sstream>

#include "ptx/arith.h"
#include "ptx/engine.h"

namespace ws::ptx::fused {

// An Alu or Move row into a register from registers and immediates only.
bool register_row(const Insn& in) {
  if ((kind_of(in.op) != Kind::Alu && kind_of(in.op) != Kind::Move) || in.o[0].kind != Operand::Reg) return false;
  for (int i = 1; i < 5; ++i)
    if (in.o[size_t(i)].kind != Operand::Reg && in.o[size_t(i)].kind != Operand::Imm && in.o[size_t(i)].kind != Operand::None)
      return false;
  return true;
}

// ---- a block as one loop over the lanes ----------------------------------------------------
// A block of Alu and Move rows (fusable_alu) and loads of 32-bit values (low_half_load)
// through registers the block does not write, with no guard and no store, runs for a whole
// warp as one loop over its lanes: each lane's values stay in the host's registers from the
// first instruction to the last, where the instruction-at-a-time code moves each
// instruction's 32 lanes through memory. The loads' addresses are settled at the block's
// entry: each address register's spread, every eight lanes one run of consecutive words or
// all on one word (a tile's row, a broadcast), every access inside the shared window or the
// array its instruction reached last; in a recorded launch's counted blocks the race check's
// reference repeated access by access first. As the block stores nothing, no lane can see
// another's work, and each lane's values are those of the code below. (The tiled SGEMM's
// inner product: 32 shared loads and 16 FMAs a phase.)

// A fused row: a register_row with no guard, a destination that is kept, and no form the
// interpreter must run (a second destination, directed rounding).
bool fusable_alu(const Insn& in) { return in.guard == kSink && register_row(in) && in.o[0].reg != kSink && !handed_form(in); }
bool fusable_load(const Insn& in) {
  const Operand& a = in.o[1];
  return in.guard == kSink && low_half_load(in) && in.vec == 1 && in.o[0].kind == Operand::Reg && in.o[0].reg != kSink &&
         a.kind == Operand::Addr && a.has_reg && !a.has_symbol && a.count == 0;
}


// The registers the instructions [first, last) write.
std::set<uint32_t> written_in(const Kernel& k, uint32_t first, uint32_t last) {
  std::set<uint32_t> w;
  for (uint32_t pc = first; pc < last; ++pc)
    if (kind_of(k.code[pc].op) != Kind::Nothing) registers(k, k.code[pc].o[0], [&](uint32_t r) { w.insert(r); });
  return w;
}


// The windows of the fused block [first, last), a spread apiece; the lanes loop's lines that
// fill each eight's (to `f`, at the top of its loop over the eights).
std::vector<Window> windows(const Kernel& k, uint32_t first, uint32_t last, const std::vector<uint32_t>& spreads, std::ostream& f) {
  std::vector<Window> win(spreads.size());
  for (uint32_t pc = first; pc < last; ++pc) {
    const Insn& in = k.code[pc];
    if (kind_of(in.op) == Kind::Nothing || fusable_alu(in)) continue;
    Window& w = win[size_t(std::find(spreads.begin(), spreads.end(), in.o[1].reg) - spreads.begin())];
    if (!w.loads) w.pc = pc;
    ++w.loads;
    w.lo = std::min(w.lo, in.o[1].imm), w.hi = std::max(w.hi, in.o[1].imm);
    (in.space == Space::Shared ? w.shared : w.global) = true;
    w.pcs.push_back(pc);
  }
  for (size_t j = 0; j < win.size(); ++j) {
    Window& w = win[j];
    for (uint32_t pc : w.pcs) w.aligned = w.aligned && (k.code[pc].o[1].imm - w.lo) % 4 == 0;
    const int64_t words = (w.hi - w.lo) / 4 + 1;
    if (w.shared == w.global || !w.aligned || (words != 4 && words != 8) || 2 * w.loads < words) continue;
    w.words = uint32_t(words);
    const std::string T = "T" + num(j), lo = num(uint64_t(w.lo)) + "ull", g = "c.globals[" + num(w.pc) + "]";
    f << "    alignas(32) uint32_t " << T << "[" << w.words << "][8];\n"
      << "    if constexpr ((How >> " << 2 + j << ") & 1) window<" << w.words << ">(" << T << ", "
      << (w.shared ? "c.shared, " + lo : g + ".ptr, " + lo + " - " + g + ".base") << ", A[" << j << "].at + 8 * g);\n";
  }
  return win;
}

namespace {
// The entry's test that each global window's loads reach one array, where its lanes lie apart.
std::string window_checks(const std::vector<Window>& win) {
  std::ostringstream o;
  for (size_t j = 0; j < win.size(); ++j)
    if (win[j].words && win[j].global)
      for (uint32_t pc : win[j].pcs)
        if (pc != win[j].pc)
          o << "  if (A[" << j << "].all == Eight::Apart && (c.globals[" << pc << "].ptr != c.globals[" << win[j].pc << "].ptr || c.globals["
            << pc << "].base != c.globals[" << win[j].pc << "].base)) return false;\n";
  return o.str();
}
}  // namespace

std::string entry_checks(const std::string& bounds, const std::vector<Window>& win,
                         const std::vector<std::pair<uint64_t, uint64_t>>& range) {
  std::string checks = bounds + window_checks(win);
  for (size_t j = 0; j < range.size(); ++j)
    if (range[j].first <= range[j].second)
      checks += "  if (!fits_range(A[" + num(j) + "], " + num(range[j].first) + "ull, " + num(range[j].second) +
                "ull, 4, 0, c.shared_bytes)) return false;\n";
  return checks;
}

// A fused block's choice of its lanes loop by how each spread's lanes lie, a template flag
// apiece: bit s, spread s's eights all one word (else runs); bit 2 + s, its lanes apart, each
// at its own address. Instances for runs and words in any mix, and for one spread apart beside
// the other's one word (a naive matrix product: each lane's own row against a row every lane
// reads); any other mix with lanes apart takes both spreads lane by lane (12). The switch
// opens; the caller closes it.
std::string lanes_switch(const std::string& name, size_t spreads) {
  std::ostringstream f;
  f << "  switch (0";
  for (size_t j = 0; j < spreads; ++j)
    f << " | (A[" << j << "].all == Eight::One) << " << j << " | (A[" << j << "].all == Eight::Apart) << " << 2 + j;
  f << ") {\n";
  std::vector<int> hows;
  for (int h = 0; h < (1 << spreads); ++h) hows.push_back(h);
  if (spreads == 2) hows.push_back(4 | 2), hows.push_back(8 | 1);
  for (int h : hows) f << "    case " << h << ": " << name << "_lanes<" << h << ">(c, R, A); break;\n";
  if (spreads) f << "    default: " << name << "_lanes<" << (spreads == 1 ? 4 : 12) << ">(c, R, A); break;\n";
  return f.str();
}

// A fused block's test that its shared accesses repeat the race check's reference, the
// record-mode part of its entry (compiled.h, same_words): the first access through each
// spread lane by lane, then the block's entries word for word. (A block with an offset of
// 2^31 or more, a negative one, is not tested: past the record cap it runs as written.)
std::string repeated_test(const std::vector<FusedLoad>& shared, const std::vector<std::pair<uint64_t, uint64_t>>& range) {
  if (shared.empty()) return "";
  const size_t spreads = range.size(), words = shared.size() * compiled::kMemoHead;
  for (const FusedLoad& a : shared)
    if (a.off >= (1ull << 31)) return "    return false;\n";
  std::ostringstream f, T, I;
  f << "    const uint32_t* const r = memo_ahead(c, " << words << ");\n    if (!r) return false;\n    Seen seen[" << spreads << "];\n";
  std::vector<bool> first(spreads, true);
  for (size_t i = 0; i < shared.size(); ++i) {
    const FusedLoad& a = shared[i];
    const std::string j = num(a.spread);
    if (first[a.spread]) {
      first[a.spread] = false;
      f << "    if (!warp_repeats(c, r + " << i * compiled::kMemoHead << ", A[" << j << "].at, " << a.off << "ull)) return false;\n"
        << "    seen[" << j << "] = {r[" << i * compiled::kMemoHead + 6 << "], uint64_t(r[" << i * compiled::kMemoHead + 5 << "]) - " << a.off
        << "ull};\n    if (!seen_range(seen[" << j << "], " << range[a.spread].first << "ull, " << range[a.spread].second
        << "ull)) return false;\n";
    }
    // pc, warp, lanes, bytes | kind << 24, epoch, b, pattern (kMemoHead)
    T << (i ? ", " : "") << a.pc << "u, 0u, 0xffffffffu, 4u, 0u, " << uint32_t(a.off) << "u, 0u";
    I << (i ? ", " : "") << "0u, 1u, 0u, 0u, 2u, " << 3 + a.spread << "u, " << 3 + spreads + a.spread << "u";
  }
  f << "    alignas(64) static const uint32_t kT[" << words << "] = {" << T.str() << "};\n"
    << "    alignas(64) static const uint32_t kI[" << words << "] = {" << I.str() << "};\n"
    << "    alignas(64) const uint32_t V[16] = {0u, c.warp, *c.epoch";
  for (size_t j = 0; j < spreads; ++j) f << ", uint32_t(seen[" << j << "].delta)";
  for (size_t j = 0; j < spreads; ++j) f << ", seen[" << j << "].pattern";
  f << "};\n    if (!same_words(r, kT, kI, V, " << words << ")) return false;\n    c.memo_at += " << words << ";\n";
  return f.str();
}

// A fused block's loads in a block whose records are kept: each spread's shared loads lie in
// one shared array (so that note takes each of them), then each load noted in order, its
// lanes' addresses the spread's plus its offset. Only the first may be refused (nothing is
// recorded then, and the block runs as written); a later one cannot be, and would be the
// engine's error (fused_note_failed).
std::string noted_test(const std::vector<FusedLoad>& loads, const std::vector<std::pair<uint64_t, uint64_t>>& range) {
  std::ostringstream f, P, S, O;
  for (size_t j = 0; j < range.size(); ++j)
    if (range[j].first <= range[j].second)
      f << "    if (!c.one_shared(c, A[" << j << "].lo + " << range[j].first << "ull, A[" << j << "].hi + " << range[j].second
        << "ull + 4)) return false;\n";
  for (size_t i = 0; i < loads.size(); ++i)
    P << (i ? ", " : "") << loads[i].pc << "u", S << (i ? ", " : "") << loads[i].spread << "u", O << (i ? ", " : "") << loads[i].off << "ull";
  f << "    static const uint32_t kPc[" << loads.size() << "] = {" << P.str() << "}, kS[" << loads.size() << "] = {" << S.str()
    << "};\n    static const uint64_t kOff[" << loads.size() << "] = {" << O.str() << "};\n"
    << "    for (size_t k = 0; k < " << loads.size() << "; ++k) {\n      uint64_t at[32];\n"
    << "      addresses(at, A[kS[k]].at, kOff[k]);\n"
    << "      if (!c.note(c, kPc[k], ~0u, at)) {\n        if (k == 0) return false;\n        fused_note_failed(kPc[k]);\n      }\n    }\n";
  return f.str();
}

// How far a loop's own block moves each of its spreads from one turn to the next: each
// address register written in [first, last) only by one add of an immediate to itself, in 64
// bits (a pointer stepped at the loop's end), or not at all (0); empty where any is written
// otherwise (the block is then not taken again within one call).
std::vector<uint64_t> spread_steps(const Kernel& k, uint32_t first, uint32_t last, const std::vector<uint32_t>& spreads) {
  std::vector<uint64_t> step(spreads.size(), 0);
  std::vector<bool> seen(spreads.size(), false);
  for (uint32_t pc = first; pc < last; ++pc) {
    const Insn& in = k.code[pc];
    bool ok = true;
    registers(k, in.o[0], [&](uint32_t r) {
      const size_t j = size_t(std::find(spreads.begin(), spreads.end(), r) - spreads.begin());
      if (j == spreads.size()) return;
      const bool wide = in.type == Type::S64 || in.type == Type::U64 || in.type == Type::B64;
      const bool add = in.op == Opc::Add && wide && in.mods == 0 && in.guard == kSink && in.o[0].kind == Operand::Reg &&
                       in.o[1].kind == Operand::Reg && in.o[1].reg == r && in.o[2].kind == Operand::Imm;
      if (!add || seen[j]) ok = false;
      else seen[j] = true, step[j] = uint64_t(in.o[2].imm);
    });
    if (!ok || (in.dst2 != kSink && std::find(spreads.begin(), spreads.end(), in.dst2) != spreads.end())) return {};
  }
  return step;
}

// A fused block's checks at its entry (each `return false;`) as its later turns make them:
// the block has run, so a failing one leaves the loop (the branch then taken as written).
std::string again(std::string checks) {
  const std::string from = "return false;", to = "break;";
  for (size_t at = checks.find(from); at != std::string::npos; at = checks.find(from, at + to.size()))
    checks.replace(at, from.size(), to);
  return checks;
}

std::string next_turn(const Turn& t) {
  // The loop's own block again, within this call, while every lane goes back to its start
  // and the block would run whole there (no stop inside it, budget for all of it): its
  // pointers stepped, its accesses checked again, where nothing is noted or checked against
  // the race check's reference (unrecorded, or counted global loads). Where it may not, the
  // caller's branch takes the warp back to the block or on, as after one turn.
  std::ostringstream f;
  f << "  if (" << (t.shared ? "c.record" : "c.record && !c.quick") << ") break;\n"
    << "  if (" << t.guard << " != active || c.loops_yield || " << t.first << "u >= c.stop || c.stop - " << t.first << "u < "
    << t.len << "u || c.budget - (n + 1) < " << t.len << "u) break;\n";
  for (size_t j = 0; j < t.steps.size(); ++j)
    if (t.steps[j]) f << "  if (!step(A[" << j << "], " << t.steps[j] << "ull)) break;\n";
  f << again(t.checks);
  if (t.loads && !t.counted.empty()) f << "  if (c.record && (" << t.counted << ")) break;\n";
  if (t.loads) f << "  if (c.record) c.dropped += " << t.loads << ";\n";
  f << "  ++n;  // (the branch back)\n  }\n";
  return f.str();
}

}  // namespace ws::ptx::fused
