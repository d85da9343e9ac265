// src/ptx/decode.cpp — an instruction's dotted opcode ("ld.global.nc.v4.f32") read into
// the interpreter's form: its Opc, from the names opcodes.def gives, and its types, state
// space and modifiers as fields, so that executing it never looks at text again.
#include <algorithm>
#include <map>

#include "ptx/reader.h"

namespace ws::ptx {

namespace {

// Opcodes the interpreter runs, by their first word: every named row of opcodes.def and
// its aliases.
const std::map<std::string, Opc>& opcodes() {
  static const std::map<std::string, Opc> ops = [] {
    std::map<std::string, Opc> m;
#define PTX_OP(E, N, K, F) \
  if (*N) m.emplace(N, Opc::E);
#define PTX_ALIAS(N, E) m.emplace(N, Opc::E);
#include "ptx/opcodes.def"
    return m;
  }();
  return ops;
}

}  // namespace

bool known_opcode(const std::string& base) { return opcodes().count(base) != 0; }

// bar and barrier: bar.warp.sync is a Nop (every lane of the warp runs in lock step here
// already); bar.red keeps what it reduces, bar.arrive that it does not wait, barrier.cluster
// which half it is (every thread of the cluster). False for a bar.red with a thread count
// (d, a, c) and a bar.arrive without one; bar.sync's count is read when it runs (bar_op).
static bool decode_barrier(Insn& in, const std::vector<std::string>& parts) {
  in.op = std::find(parts.begin(), parts.end(), "warp") != parts.end() ? Opc::Nop : Opc::Bar;
  auto has = [&](const char* w) { return std::find(parts.begin(), parts.end(), w) != parts.end(); };
  if (has("red")) in.sub = uint8_t(has("popc") ? BarRed::Popc : has("and") ? BarRed::And : BarRed::Or);
  if (has("cluster")) in.sub = uint8_t(has("arrive") ? BarRed::ClusterArrive : BarRed::ClusterWait);
  else if (has("arrive")) in.sub = uint8_t(BarRed::Arrive);
  if (BarRed(in.sub) == BarRed::Arrive && in.nops != 2) return false;  // bar.arrive a, b: the count is required
  return in.nops <= (in.sub && in.sub < uint8_t(BarRed::Arrive) ? 3 : 2);
}

// tensormap's words for what it does: a field it replaces, or the copy to global memory.
const std::map<std::string, TensormapOp>& tensormap_ops() {
  static const std::map<std::string, TensormapOp> m{{"global_address", TensormapOp::GlobalAddress},
                                                    {"global_dim", TensormapOp::GlobalDim},
                                                    {"global_stride", TensormapOp::GlobalStride},
                                                    {"cp_fenceproxy", TensormapOp::Copy}};
  return m;
}

// Every dotted word after the first is a type (the first the operation's, a second cvt's
// source or set's destination), a state space, or a modifier kept as a field; the words
// that change nothing in the emulation are read and dropped.
void decode(Insn& in, const std::string& module) {
  std::vector<std::string> parts = split_dots(in.opcode);
  const std::string base = parts.empty() ? "" : parts[0];
  auto refuse = [&](const std::string& why) {
    throw Error(module + ":" + std::to_string(in.text_line) + ": " + in.opcode + ": " + why);
  };
  if (const std::string why = refusal(parts); !why.empty()) refuse(why);
  int roundings = 0;
  std::vector<Type> types;
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string& m = parts[i];
    auto it = type_names().find(m);
    if (it != type_names().end()) { types.push_back(it->second); continue; }
    if (m == "global") in.space = Space::Global;
    else if (m == "shared" || m == "shared::cta" || m == "shared::cluster") in.space = Space::Shared;
    else if (m == "local") in.space = Space::Local;
    else if (m == "const") in.space = Space::Const;
    else if (m == "param" || m == "param::entry" || m == "param::func") in.space = Space::Param;
    else if (m == "wide") in.mods |= kWide;
    // setp.lo/.hi and set.lo/.hi are the unsigned comparisons, read with the others below.
    else if (m == "lo" && base != "setp" && base != "set") in.mods |= kLo;
    else if (m == "hi" && base != "setp" && base != "set") in.mods |= kHi;
    else if (m == "uni") in.mods |= kUni;
    else if (m == "approx") in.mods |= kApprox;
    else if (m == "ftz") in.mods |= kFtz;
    else if (m == "sat") in.mods |= kSat;
    else if (m == "relu" && base == "cvt") in.sub = 1;  // an 8-bit float's cvt: negative results +0
    else if (m == "nc") in.mods |= kNc;
    else if (m == "clamp") in.mods |= kShiftClamp;
    else if (m == "shiftamt") in.mods |= kShiftAmt;
    else if (m == "NaN") in.mods |= kNaN;
    else if (m == "v2") in.vec = 2;
    else if (m == "v4") in.vec = 4;
    else if ((m == "rn" || m == "rz" || m == "rm" || m == "rp" || m == "rni" || m == "rzi" || m == "rmi" || m == "rpi") &&
             ++roundings > 1)
      refuse("two rounding modifiers");
    else if (m == "rn") in.rnd = Rnd::Rn;
    else if (m == "rz") in.rnd = Rnd::Rz;
    else if (m == "rm") in.rnd = Rnd::Rm;
    else if (m == "rp") in.rnd = Rnd::Rp;
    else if (m == "rni") in.rnd = Rnd::Rni;
    else if (m == "rzi") in.rnd = Rnd::Rzi;
    else if (m == "rmi") in.rnd = Rnd::Rmi;
    else if (m == "rpi") in.rnd = Rnd::Rpi;
    else if (base == "setp" || base == "set") {
      static const std::map<std::string, Cmp> cmps{{"eq", Cmp::Eq},   {"ne", Cmp::Ne},   {"lt", Cmp::Lt},
                                                   {"le", Cmp::Le},   {"gt", Cmp::Gt},   {"ge", Cmp::Ge},
                                                   {"lo", Cmp::Lo},   {"ls", Cmp::Ls},   {"hi", Cmp::Hi},
                                                   {"hs", Cmp::Hs},   {"equ", Cmp::Equ}, {"neu", Cmp::Neu},
                                                   {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu},
                                                   {"geu", Cmp::Geu}, {"num", Cmp::Num}, {"nan", Cmp::Nan}};
      auto c = cmps.find(m);
      if (c != cmps.end()) in.cmp = c->second;
      else if (m == "and") in.mods |= kCmpAnd;
      else if (m == "or") in.mods |= kCmpOr;
      else if (m == "xor") in.mods |= kCmpXor;
    } else if (base == "shfl") {
      if (m == "up") in.sub = uint8_t(ShflMode::Up);
      else if (m == "down") in.sub = uint8_t(ShflMode::Down);
      else if (m == "bfly") in.sub = uint8_t(ShflMode::Bfly);
      else if (m == "idx") in.sub = uint8_t(ShflMode::Idx);
    } else if (base == "vote") {
      if (m == "all") in.sub = uint8_t(VoteMode::All);
      else if (m == "any") in.sub = uint8_t(VoteMode::Any);
      else if (m == "uni") in.sub = uint8_t(VoteMode::Uni);
      else if (m == "ballot") in.sub = uint8_t(VoteMode::Ballot);
    } else if (base == "testp") {
      static const std::map<std::string, TestpKind> tests{
          {"finite", TestpKind::Finite}, {"infinite", TestpKind::Infinite}, {"number", TestpKind::Number},
          {"notanumber", TestpKind::NotANumber}, {"normal", TestpKind::Normal}, {"subnormal", TestpKind::Subnormal}};
      if (auto t = tests.find(m); t != tests.end()) in.sub = uint8_t(t->second);
    } else if (base == "prmt") {
      static const std::map<std::string, PrmtMode> modes{{"f4e", PrmtMode::F4e}, {"b4e", PrmtMode::B4e},
                                                         {"rc8", PrmtMode::Rc8}, {"ecl", PrmtMode::Ecl},
                                                         {"ecr", PrmtMode::Ecr}, {"rc16", PrmtMode::Rc16}};
      if (auto p = modes.find(m); p != modes.end()) in.sub = uint8_t(p->second);
    } else if (base == "tensormap") {
      if (auto f = tensormap_ops().find(m); f != tensormap_ops().end()) in.sub = uint8_t(f->second);
    } else if (base == "shf") {
      if (m == "r") in.sub = 1;  // else .l, 0
    } else if (base == "match") {
      if (m == "all") in.sub = 1;  // else .any, 0
    } else if (base == "atom" || base == "red" || base == "redux") {
      static const std::map<std::string, AtomOp> aops{{"add", AtomOp::Add}, {"min", AtomOp::Min},
                                                      {"max", AtomOp::Max}, {"exch", AtomOp::Exch},
                                                      {"cas", AtomOp::Cas}, {"and", AtomOp::And},
                                                      {"or", AtomOp::Or},   {"xor", AtomOp::Xor},
                                                      {"inc", AtomOp::Inc}, {"dec", AtomOp::Dec}};
      auto a = aops.find(m);
      if (a != aops.end()) in.sub = uint8_t(a->second);
    }
    // Every other word a form accepts (.volatile, .relaxed, .gpu, .cta, .sync, .aligned,
    // .L1::..., .full, .ca, .cg, .cs, .lu, .cv, .wb, .wt) changes nothing on a device that
    // runs one block at a time in order; the forms (opcodes.def) refused all others above.
  }
  const bool to = std::find(parts.begin(), parts.end(), "to") != parts.end();
  in.type = types.empty() ? Type::None : types[0];
  if (types.size() > 1) in.type2 = types[1];
  if (base == "set" && types.size() == 2) std::swap(in.type, in.type2);  // compared in stype, written as dtype
  const auto& ops = opcodes();

  if (base == "bar" || base == "barrier") {
    if (!decode_barrier(in, parts))
      refuse(BarRed(in.sub) == BarRed::Arrive ? "bar.arrive names its barrier and its thread count"
                                              : "a bar.red for part of the block (a thread count) is not implemented");
    return;
  }
  auto it = ops.find(base);
  if (it == ops.end()) refuse("the instruction " + base + " is not implemented");
  in.op = it->second;
  if (in.op == Opc::Cvta && to) in.op = Opc::CvtaTo;
  if (in.op == Opc::Ld || in.op == Opc::St) {
    if (in.type == Type::None) refuse("a type is needed");
  }
  if (in.op == Opc::Cvt && in.rnd >= Rnd::Rni) in.mods |= kRzi;
  // PTX saturates only the high half's sum (mad.hi.sat.s32, mad24.hi.sat.s32).
  if ((in.op == Opc::Mad || in.op == Opc::Mad24) && in.type == Type::S32 && (in.mods & kSat) && !(in.mods & kHi))
    refuse("the modifier .sat is taken only with .hi");
}

}  // namespace ws::ptx
