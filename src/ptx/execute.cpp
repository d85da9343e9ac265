// src/ptx/execute.cpp — every instruction that is not control flow, dispatched by its row
// of opcodes.def: the Alu and Move rows as their semantic function (arith.h) applied over
// the warp's active lanes, the Memory rows to memory.cpp, and here the Warp rows, whose
// lanes read each other's values.
#include <cfenv>
#include <type_traits>

#include "ptx/arith.h"
#include "ptx/block_run.h"

namespace ws::ptx {

namespace {

// Calls body(t) with the types kernels compute in most as compile-time constants, so that
// a semantic function inlined into body decides its type branches once, outside the loop
// over the lanes; other types come as a plain value.
template <class Body>
[[gnu::always_inline]] inline void by_type(Type t, Body&& body) {
  switch (t) {
    case Type::F32: body(std::integral_constant<Type, Type::F32>{}); return;
    case Type::S32: body(std::integral_constant<Type, Type::S32>{}); return;
    case Type::U32: body(std::integral_constant<Type, Type::U32>{}); return;
    case Type::B32: body(std::integral_constant<Type, Type::B32>{}); return;
    case Type::S64: body(std::integral_constant<Type, Type::S64>{}); return;
    case Type::U64: body(std::integral_constant<Type, Type::U64>{}); return;
    case Type::B64: body(std::integral_constant<Type, Type::B64>{}); return;
    default: body(t); return;
  }
}

// f(lane) for the lanes of `exec`; a converged warp's plain count lets the compiler unroll.
template <class F>
[[gnu::always_inline]] inline void over_lanes(uint32_t exec, F&& f) {
  if (exec == ~0u) {
    for (int l = 0; l < 32; ++l) f(l);
  } else {
    for (uint32_t m = exec; m; m &= m - 1) f(std::countr_zero(m));
  }
}

}  // namespace

uint64_t BlockRun::execute(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  switch (in.op) {
#define PTX_OP(E, N, K, F) PTX_EXEC_##K(E, F)
#define PTX_EXEC_Alu(E, F) \
  case Opc::E: return lanes<&F<Insn>, false>(in, w, exec);
#define PTX_EXEC_Move(E, F) \
  case Opc::E: return lanes<&F<Insn>, true>(in, w, exec);
#define PTX_EXEC_Memory(E, F) \
  case Opc::E: return F(pc, in, w, exec);
#define PTX_EXEC_Warp(E, F) \
  case Opc::E: return F(pc, in, w, exec);
#define PTX_EXEC_Nothing(E, F) \
  case Opc::E: return 0;
#define PTX_EXEC_Control(E, F)  // run_warp runs them
#include "ptx/opcodes.def"
#undef PTX_EXEC_Alu
#undef PTX_EXEC_Move
#undef PTX_EXEC_Memory
#undef PTX_EXEC_Warp
#undef PTX_EXEC_Nothing
#undef PTX_EXEC_Control
    default: break;
  }
  throw Fault("instruction '" + in.opcode + "' is not supported yet");
}

// Semantic function F over the lanes of `exec`: the sources' 32 values gathered once (a
// register's own array, without copying), the result written to the destination's.
// `kVectors`: a Move row, whose operands may be vectors (mov_vector).
template <auto F, bool kVectors>
uint64_t BlockRun::lanes(const Insn& in, uint32_t w, uint32_t exec) {
  if constexpr (kVectors) {
    if (in.o[0].kind == Operand::Vec || in.o[1].kind == Operand::Vec) return mov_vector(in, w, exec);
  }
  if (exact_path(in)) [[unlikely]] return lanes_exact<F>(in, w, exec);
  uint64_t ta[32], tb[32], tc[32], te[32], sink[32];
  const uint64_t* A = lanes_of(in.o[1], w, exec, ta);
  const uint64_t* B = lanes_of(in.o[2], w, exec, tb);
  const uint64_t* C = lanes_of(in.o[3], w, exec, tc);
  const uint64_t* E = lanes_of(in.o[4], w, exec, te);
  // A destination that is not a register (none in nvcc's PTX) is computed and dropped.
  uint64_t* D = in.o[0].kind == Operand::Reg ? &reg(w, in.o[0].reg, 0) : sink;
  by_type(in.type, [&](auto t) { over_lanes(exec, [&](int l) { D[l] = F(in, t, A[l], B[l], C[l], E[l]); }); });
  return 0;
}

// Directed rounding as the host's rounding mode for one instruction, restored after it.
class RoundingScope {
 public:
  explicit RoundingScope(Rnd r) : old_(std::fegetround()) {
    std::fesetround(r == Rnd::Rz ? FE_TOWARDZERO : r == Rnd::Rm ? FE_DOWNWARD : r == Rnd::Rp ? FE_UPWARD : FE_TONEAREST);
  }
  ~RoundingScope() { std::fesetround(old_); }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int old_;
};

// The forms the converged loop does not handle: .ftz, .sat, a second destination, and
// directed rounding (the host's mode set around the operation).
bool BlockRun::exact_path(const Insn& in) { return exact_form(in); }

// F over the lanes with the forms exact_path() names: .ftz and .sat as exact_op does them
// (arith.h, the compiled code's too), under the instruction's directed rounding, setp's
// second predicate split off (its result a predicate, which neither form touches).
template <auto F>
uint64_t BlockRun::lanes_exact(const Insn& in, uint32_t w, uint32_t exec) {
  uint64_t v[4][32];
  for (int i = 0; i < 4; ++i)
    for (int l = 0; l < 32; ++l) v[i][l] = (exec >> l) & 1u ? val(in.o[size_t(i) + 1], w, l) : 0;
  uint64_t r[32] = {};
  {
    RoundingScope mode(in.rnd);
    asm volatile("" : : "r"(v) : "memory");  // the sources are read under the mode, not before
    for (uint32_t m = exec; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      r[l] = exact_op<F>(in, in.type, v[0][l], v[1][l], v[2][l], v[3][l]);
    }
    asm volatile("" : : "r"(r) : "memory");  // every result is computed before the mode returns
  }
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    uint64_t x = r[l];
    if (in.dst2 != kSink) {
      reg(w, in.dst2, l) = (x >> 1) & 1;
      x &= 1;
    }
    set(in.o[0], w, l, x);
  }
  return 0;
}

// mov's vector forms: {a, b} packed into one wider register, or one register unpacked.
uint64_t BlockRun::mov_vector(const Insn& in, uint32_t w, uint32_t exec) {
  const Operand &d = in.o[0], &A = in.o[1];
  const Type t = in.type;
  auto elem_mask = [](uint32_t eb) { return eb >= 8 ? ~0ull : (1ull << (8 * eb)) - 1; };
  over_lanes(exec, [&](int l) {
    if (d.kind == Operand::Vec) {  // unpack
      const uint64_t v = val(A, w, l);
      const uint32_t eb = type_bytes(t) / d.count;
      for (int i = 0; i < d.count; ++i)
        if (d.vec[size_t(i)] != kSink) reg(w, d.vec[size_t(i)], l) = (v >> (8 * eb * uint32_t(i))) & elem_mask(eb);
    } else {  // pack
      const uint32_t eb = type_bytes(t) / A.count;
      uint64_t v = 0;
      for (int i = 0; i < A.count; ++i) {
        const uint64_t e = A.vec[size_t(i)] == kSink ? 0 : reg(w, A.vec[size_t(i)], l);
        v |= (e & elem_mask(eb)) << (8 * eb * uint32_t(i));
      }
      set(d, w, l, v);
    }
  });
  return 0;
}

// ---- the warp's lanes together ------------------------------------------------------------

// shfl.mode d, a, b, c: each lane reads a from the lane b names (up, down, xor, index) within
// its segment (c's upper bits) and clamp (c's lower bits); out of range, its own value (and
// false in the predicate of `d|p`). Every source is read before any lane writes.
uint64_t BlockRun::shfl_op(uint32_t, const Insn& in, uint32_t w, uint32_t exec) {
  const Operand &d = in.o[0], &A = in.o[1], &B = in.o[2], &C = in.o[3];
  uint64_t src[32] = {};
  for (int l = 0; l < 32; ++l) src[l] = (exec >> l) & 1u ? val(A, w, l) : 0;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint32_t b = uint32_t(val(B, w, l)) & 31, c = uint32_t(val(C, w, l));
    const uint32_t cval = c & 31, segmask = (c >> 8) & 31;
    const uint32_t maxl = (uint32_t(l) & segmask) | (cval & ~segmask), minl = uint32_t(l) & segmask;
    int64_t j = l;
    bool ok = false;
    switch (ShflMode(in.sub)) {
      case ShflMode::Up: j = l - int64_t(b); ok = j >= int64_t(maxl); break;
      case ShflMode::Down: j = l + int64_t(b); ok = j <= int64_t(maxl); break;
      case ShflMode::Bfly: j = l ^ int64_t(b); ok = j <= int64_t(maxl); break;
      case ShflMode::Idx: j = int64_t(minl | (b & ~segmask)); ok = j <= int64_t(maxl); break;
    }
    if (!ok) j = l;
    set(d, w, l, src[j & 31] & 0xffffffffull);
    if (in.dst2 != kSink) reg(w, in.dst2, l) = ok;  // d|p: whether the source lane was in range
  }
  return 0;
}

// vote.mode d, p: the predicate of every executing lane, as a ballot or its all/any/uni.
uint64_t BlockRun::vote_op(uint32_t, const Insn& in, uint32_t w, uint32_t exec) {
  const Operand &d = in.o[0], &A = in.o[1];
  uint32_t ballot = 0;
  for (uint32_t m = exec; m; m &= m - 1)
    if (pred(A, w, std::countr_zero(m))) ballot |= 1u << std::countr_zero(m);
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    // vote.sync: only the lanes of this lane's membermask take part (a group of a partition).
    const uint32_t g = members(in, 2, w, l, exec), b = ballot & g;
    switch (VoteMode(in.sub)) {
      case VoteMode::Ballot: set(d, w, l, b); break;
      case VoteMode::All: set(d, w, l, b == g); break;
      case VoteMode::Any: set(d, w, l, b != 0); break;
      case VoteMode::Uni: set(d, w, l, b == g || b == 0); break;
    }
  }
  return 0;
}

uint64_t BlockRun::activemask_op(uint32_t, const Insn& in, uint32_t w, uint32_t exec) {
  for (uint32_t m = exec; m; m &= m - 1) set(in.o[0], w, std::countr_zero(m), exec);
  return 0;
}

// redux.sync.op d, a, membermask: every executing lane gets the reduction of the a of the
// lanes of its membermask (add wrapping, min/max signed or not by the type, and/or/xor of
// the bits); lanes of a partition (labeled_partition) each reduce over their own group.
uint64_t BlockRun::redux_op(uint32_t, const Insn& in, uint32_t w, uint32_t exec) {
  const bool s = is_signed(in.type);
  uint32_t v[32] = {};
  for (uint32_t m = exec; m; m &= m - 1) v[std::countr_zero(m)] = uint32_t(val(in.o[1], w, std::countr_zero(m)));
  auto reduce = [&](uint32_t group) {
    uint64_t acc = v[std::countr_zero(group)];
    for (uint32_t m = group & (group - 1); m; m &= m - 1) {
      const uint32_t x = v[std::countr_zero(m)];
      switch (AtomOp(in.sub)) {
        case AtomOp::Add: acc = uint32_t(acc + x); break;
        case AtomOp::Min: acc = s ? uint32_t(std::min(int32_t(acc), int32_t(x))) : std::min<uint32_t>(uint32_t(acc), x); break;
        case AtomOp::Max: acc = s ? uint32_t(std::max(int32_t(acc), int32_t(x))) : std::max<uint32_t>(uint32_t(acc), x); break;
        case AtomOp::And: acc &= x; break;
        case AtomOp::Or: acc |= x; break;
        case AtomOp::Xor: acc ^= x; break;
        default: break;
      }
    }
    return acc;
  };
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint32_t g = members(in, 2, w, l, exec);
    set(in.o[0], w, l, g ? reduce(g) : v[l]);
  }
  return 0;
}

// match.any d, a, mask: the executing lanes whose a equals this lane's; match.all d|p: all
// of the executing lanes when every a is equal (p true), else 0 (p false).
uint64_t BlockRun::match_op(uint32_t, const Insn& in, uint32_t w, uint32_t exec) {
  const uint64_t mask = width_mask(in.type);
  uint64_t v[32] = {};
  for (uint32_t m = exec; m; m &= m - 1) v[std::countr_zero(m)] = val(in.o[1], w, std::countr_zero(m)) & mask;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    // Only the lanes of this lane's membermask are compared.
    const uint32_t g = members(in, 2, w, l, exec);
    uint32_t same = 0;
    for (uint32_t k = g; k; k &= k - 1)
      if (v[std::countr_zero(k)] == v[l]) same |= 1u << std::countr_zero(k);
    const bool all = same == g;
    set(in.o[0], w, l, in.sub ? (all ? g : 0) : same);
    if (in.dst2 != kSink) reg(w, in.dst2, l) = all;
  }
  return 0;
}

// elect.sync d|p, membermask: the lowest lane that executes it leads (the mask's lanes, when
// it is used as the PTX ISA defines; lanes outside the mask that run it anyway are counted
// too, as the H200 does); every executing lane gets its lane id in d, and p set on the leader.
uint64_t BlockRun::elect_op(uint32_t, const Insn& in, uint32_t w, uint32_t exec) {
  const uint32_t leader = exec ? uint32_t(std::countr_zero(exec)) : 0;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    set(in.o[0], w, l, leader);
    if (in.dst2 != kSink) reg(w, in.dst2, l) = uint32_t(l) == leader;
  }
  return 0;
}

// getctarank{.shared::cluster} d, a: the rank in the cluster of the CTA whose shared
// memory a names: a shared::cluster address (the rank mapa wrote into it, none for this
// CTA's own offsets), or a generic one in the shared window; any other address faults.
uint64_t BlockRun::getctarank_op(uint32_t, const Insn& in, uint32_t w, uint32_t exec) {
  const uint64_t own = cluster_sreg(Sreg::ClusterCtarank);
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    uint64_t a = val(in.o[1], w, l) & width_mask(in.type);
    if (in.space != Space::Shared) {
      if (a < kSharedWindow || a >= kSharedWindow + kWindowBytes)
        throw Fault("kernel " + kernel_name(k_.name) + ": PTX line " + std::to_string(in.text_line) +
                    ": getctarank of an address outside shared memory");
      a -= kSharedWindow;
    }
    const uint64_t rank = a >> kClusterRankShift;
    set(in.o[0], w, l, rank ? rank - 1 : own);
  }
  return 0;
}

}  // namespace ws::ptx
