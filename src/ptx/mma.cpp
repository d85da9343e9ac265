// src/ptx/mma.cpp — the tensor cores' product D = A x B + C of mma.sync and wmma.mma: the
// warp's fragments gathered into whole matrices (matrix.h says which lane holds what), the
// product computed, D scattered back, and the instruction kept as a trace::Event of
// Form::Mma (it moves no memory, but a view shows which lanes fed it).
//
// Rounding: the products of f16, bf16 and tf32 inputs are exact in double, and so is their
// sum for any inputs within about 30 binades of each other; the sum is rounded once, to
// nearest even, into the accumulator's type. The H100 truncates some low bits of its
// partial sums instead, so a result may differ from the GPU's in its last bit; NVIDIA's
// samples check with a tolerance. tf32 inputs are f32 registers with their low 13 bits
// dropped, as the tensor core reads them. f64 (m8n8k4) is a chain of fused multiply-adds
// in k order; integers are exact, wrapping in s32 (or clamped with .satfinite).
#include <cmath>
#include <cstring>
#include <limits>

#include "ptx/block_run.h"
#include "ptx/matrix.h"
#include "ptx/value.h"

namespace ws::ptx {

using matrix::Elem;
using matrix::Info;
using matrix::Part;

namespace {

uint64_t elem_of(const uint64_t* regs, Elem t, uint32_t e) {
  const uint32_t bits = matrix::elem_bits(t);
  if (bits == 64) return regs[e];
  const uint32_t per_reg = 32 / bits;
  return (regs[e / per_reg] >> (bits * (e % per_reg))) & ((1ull << bits) - 1);
}

// An input element's value (integers exactly, in a double too).
double value_of(Elem t, uint64_t v) {
  switch (t) {
    case Elem::F16: return half_to_double(uint32_t(v), false);
    case Elem::BF16: return half_to_double(uint32_t(v), true);
    case Elem::TF32: return double(f32(v & ~0x1fffull));
    case Elem::F32: return double(f32(v));
    case Elem::F64: return f64(v);
    case Elem::S8: return double(int8_t(v));
    case Elem::U8: return double(uint8_t(v));
    case Elem::S32: return double(int32_t(v));
    default: return 0;
  }
}

// The accumulator's bits of a float result.
uint64_t float_bits(Elem t, double x) {
  if (t == Elem::F16) return double_to_half(x, false, Rnd::Rn);
  if (t == Elem::F64) return bits(x);
  if (std::isnan(x)) return 0x7fffffffu;  // the GPU's canonical f32 NaN
  return bits(float(x));
}

uint64_t int_bits(int64_t x, bool satfinite) {
  if (satfinite) x = std::clamp<int64_t>(x, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  return uint32_t(x);
}

}  // namespace

// mma.sync d, a, b, c and wmma.mma d, a, b, c: the whole warp's fragments read, then written.
uint64_t BlockRun::mma_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  const Info mi = matrix::unpack(in.matrix);
  whole_warp(in, w, exec);
  const bool wmma = mi.part == Part::WmmaMma;
  const matrix::Dims d = matrix::dims(mi.shape);
  const uint32_t na = d.m * d.k / 32, nb = d.k * d.n / 32, nc = d.m * d.n / 32;
  // Where element i of lane l's fragment lies.
  auto at_a = [&](int l, uint32_t i) { return wmma ? matrix::wmma_at(d.m, d.k, mi.a_col, l, i) : matrix::mma_a(mi, l, i); };
  auto at_b = [&](int l, uint32_t i) { return wmma ? matrix::wmma_at(d.k, d.n, mi.b_col, l, i) : matrix::mma_b(mi, l, i); };
  auto at_c = [&](int l, uint32_t i) { return wmma ? matrix::wmma_at(d.m, d.n, false, l, i) : matrix::mma_c(mi, l, i); };
  // The largest shapes: 32 x 16 (A), 16 x 32 (B), 32 x 32 covers every C.
  static thread_local double A[32][32], B[32][32], C[32][32];
  static thread_local int64_t IA[32][32], IB[32][32], IC[32][32];
  const bool integer = mi.c == Elem::S32;
  uint64_t regs[8];
  for (int l = 0; l < 32; ++l) {
    fragment_in(in.o[1], w, l, regs);
    for (uint32_t i = 0; i < na; ++i) {
      const auto [r, c] = at_a(l, i);
      const uint64_t v = elem_of(regs, mi.a, i);
      if (integer) IA[r][c] = int64_t(value_of(mi.a, v));
      else A[r][c] = value_of(mi.a, v);
    }
    fragment_in(in.o[2], w, l, regs);
    for (uint32_t i = 0; i < nb; ++i) {
      const auto [r, c] = at_b(l, i);
      const uint64_t v = elem_of(regs, mi.b, i);
      if (integer) IB[r][c] = int64_t(value_of(mi.b, v));
      else B[r][c] = value_of(mi.b, v);
    }
    fragment_in(in.o[3], w, l, regs);
    for (uint32_t i = 0; i < nc; ++i) {
      const auto [r, c] = at_c(l, i);
      const uint64_t v = elem_of(regs, mi.c, i);
      if (integer) IC[r][c] = int32_t(v);
      else C[r][c] = value_of(mi.c, v);
    }
  }
  const uint32_t bits = matrix::elem_bits(mi.d);
  const uint32_t cap = in.o[0].kind == Operand::Vec ? in.o[0].count * (bits == 64 ? 1 : 32 / bits) : 1;
  for (int l = 0; l < 32; ++l) {
    std::fill_n(regs, 8, 0);
    for (uint32_t i = 0; i < cap; ++i) {
      const auto [r, c] = at_c(l, i % nc);
      uint64_t v;
      if (integer) {
        int64_t s = IC[r][c];
        for (uint32_t k = 0; k < d.k; ++k) s += IA[r][k] * IB[k][c];
        v = int_bits(s, mi.satfinite);
      } else if (mi.a == Elem::F64) {
        double s = C[r][c];
        for (uint32_t k = 0; k < d.k; ++k) s = std::fma(A[r][k], B[k][c], s);
        v = float_bits(mi.d, s);
      } else {
        double s = C[r][c];
        for (uint32_t k = 0; k < d.k; ++k) s += A[r][k] * B[k][c];
        v = float_bits(mi.d, s);
      }
      if (bits == 64) regs[i] = v;
      else regs[i / (32 / bits)] |= v << (bits * (i % (32 / bits)));
    }
    fragment_out(in.o[0], w, l, regs);  // every source was gathered above: d may be a or c
  }
  mma_event(pc, in, w, exec);
  return 0;
}


// The warp's mma as an event of the trace, on its records' scale of seq: its event site is
// made on first execution (an mma has no memory site, so its slot of sites_ holds it).
void BlockRun::mma_event(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  if (!record_) return;
  const uint32_t seq = warps_[w].seq++;
  if (!b_.room()) return;
  trace::Trace& t = b_.trace();
  uint32_t& id = sites_[size_t(pc) * trace::kSpaceCount];
  if (id == trace::kNoBuffer) {
    trace::Site s;
    s.file = trace_file(in.file);
    s.line = in.line;
    s.column = in.column;
    s.space = trace::Space::Shared;
    s.bytes = 4;  // moves no memory; a width the trace file takes (a register's)
    s.instruction = in.opcode;
    // wgmma with A in registers says so (the fragment view draws A's lanes then).
    if (in.op == Opc::Wgmma && in.o[1].kind == Operand::Vec) s.instruction += " (A in registers)";
    s.form = trace::Form::Mma;
    // Added as a memory site first so that its source line is filled in, then moved over.
    b_.add_site(std::move(s));
    t.event_sites.push_back(std::move(t.sites.back()));
    t.sites.pop_back();
    id = uint32_t(t.event_sites.size() - 1);
  }
  trace::Event e;
  e.launch = b_.launch_index();
  e.block = block_;
  e.warp = w;
  e.site = id;
  e.seq = seq;
  e.epoch = epoch_;
  e.active = exec;
  e.at = b_.launch_records();
  t.events.push_back(e);
}

}  // namespace ws::ptx
