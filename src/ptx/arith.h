// src/ptx/arith.h — what each Alu and Move row of opcodes.def computes, one function per
// instruction: a lane's result from the instruction's form (`in`: modifiers, comparison,
// rounding), its type `t` and its sources' values a, b, c, e (operands 1 to 4; 0 where the
// instruction has fewer). The interpreter applies the function over a warp's active lanes
// (BlockRun::lanes in execute.cpp); because they are inlined there with `t` often a
// constant, each becomes a tight loop over 32 lanes with its type decisions made once.
// Each is a template over the instruction's type: the interpreter passes its decoded Insn,
// the compiling engine's code (codegen.cpp) a compiled::Fixed of the same fields as
// constants, so that the compiler decides the form's branches too, once, at compile time.
// Private to src/ptx.
#pragma once
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "ptx/ptx.h"
#include "ptx/value.h"
#include "ptx/windows.h"

namespace ws::ptx {

#define WS_LANE_OP [[gnu::always_inline]] inline uint64_t

// A float operation in the type's own precision: f on f32 or f64 values, the result's bits.
template <class F>
[[gnu::always_inline]] inline uint64_t fop(Type t, uint64_t a, uint64_t b, uint64_t c, F f) {
  if (t == Type::F64) return bits(double(f(f64(a), f64(b), f64(c))));
  return bits(float(f(f32(a), f32(b), f32(c))));
}

// An f32 NaN result is the GPU's canonical 7fffffff, whatever the operands' payloads.
[[gnu::always_inline]] inline uint64_t canon(Type t, uint64_t r) {
  return t == Type::F32 && (r & 0x7fffffffu) > 0x7f800000u ? 0x7fffffffu : r;
}
// The same rule around fop, for the arithmetic that follows it (not copysign, whose NaN
// keeps its payload).
template <class F>
[[gnu::always_inline]] inline uint64_t fop_canon(Type t, uint64_t a, uint64_t b, uint64_t c, F f) {
  return canon(t, fop(t, a, b, c, f));
}
// f64 passes a NaN operand through, quieted; of two, the second (b) wins.
[[gnu::always_inline]] inline bool is_nan64(uint64_t x) { return (x & ~(1ull << 63)) > 0x7ff0000000000000ull; }
[[gnu::always_inline]] inline uint64_t quiet64(uint64_t x) { return x | (1ull << 51); }
template <class F>
[[gnu::always_inline]] inline uint64_t fop2(Type t, uint64_t a, uint64_t b, F f) {
  if (t == Type::F64 && (is_nan64(a) || is_nan64(b))) return quiet64(is_nan64(b) ? b : a);
  return fop_canon(t, a, b, 0, f);
}

// ---- data movement ----------------------------------------------------------------------
// A predicate keeps its one bit; anything else its type's width. (Vector forms: mov_vector.)
template <class In>
WS_LANE_OP mov_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  return t == Type::Pred ? (a & 1) : a & width_mask(t);
}
// cvta moves an address of a state space into its generic window; cvta.to takes it out.
template <class In>
WS_LANE_OP cvta_op(const In& in, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  const uint64_t win = in.space == Space::Shared ? kSharedWindow : in.space == Space::Local ? kLocalWindow
                     : in.space == Space::Const ? kConstWindow : in.space == Space::Param ? kParamWindow : 0;
  return (in.op == Opc::Cvta ? a + win : a - win) & width_mask(t);
}
// mapa: the address of the shared variable at `a` in the cluster's CTA of rank b. This
// device writes a shared::cluster address as the CTA's shared window offset with rank + 1
// in bits 24 and up (an offset alone is the executing CTA's own, as the ISA's shared::cta
// window lies inside shared::cluster's); a generic one is that in the shared window.
template <class In>
WS_LANE_OP mapa_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  const uint64_t base = in.space == Space::Shared ? 0 : kSharedWindow;
  return (base + (((b & 0xffu) + 1) << kClusterRankShift | ((a - base) & kClusterOffsetMask))) & width_mask(t);
}
// cvt to a half from a float (rounded by .rn/.rz/.rm/.rp; .rni and the like first round to
// an integral value) or an integer; to a pair from two f32 (cvt.f16x2.f32 d, a, b: a in the
// upper half). Halves widen exactly to f32 and f64 in cvt_op.
template <class In>
WS_LANE_OP cvt_to_half(const In& in, Type t, uint64_t a, uint64_t b) {
  const Type src = in.type2;
  const bool bf = is_bf(t);
  if (t == Type::F16X2 || t == Type::BF16X2)
    return (uint64_t(double_to_half(f32(a), bf, in.rnd)) << 16) | double_to_half(f32(b), bf, in.rnd);
  if (!is_float(src)) return double_to_half(odd_double(sext(src, a), a & width_mask(src), is_signed(src)), bf, in.rnd);
  const double x = as_double(src, a);
  // An f64 NaN narrows to the quiet NaN of its sign (an f32 NaN gives 7fff).
  if (src == Type::F64 && std::isnan(x)) return (std::signbit(x) ? 0x8000u : 0u) | (bf ? 0x7fc0u : 0x7e00u);
  if (in.mods & kRzi) return double_to_half(round_by(in.rnd, x), bf, Rnd::Rn);
  return double_to_half(x, bf, in.rnd);
}
// cvt.dst.src: float to float (rounded to an integer with .rni and the like), integer to
// float (rounded once, straight to the destination's precision, in the caller's rounding
// mode), float to integer (rounded, saturated, NaN to 0), integer to integer (sign- or
// zero-extended, wrapped; .sat clamps to the destination's range instead).
// A half NaN widened as the GPU does: to f32 the canonical 7fffffff from f16 and the
// payload kept from bf16; to f64 the payload kept from either (moved to the top of the
// fraction, sign kept, quieted).
WS_LANE_OP widen_half_nan(Type t, Type src, uint64_t a) {
  const uint64_t h = a & 0xffff, sign = (h >> 15) << 63;
  const uint64_t frac = src == Type::BF16 ? (h & 0x7f) << 45 : (h & 0x3ff) << 42;
  if (t == Type::F32) return src == Type::BF16 ? h << 16 : 0x7fffffffu;
  return sign | 0x7ff8000000000000ull | frac;
}
// cvt with 8-bit floats, two in 16 bits: a pair to a pair of halves (each exact; the pair's
// upper byte to the upper half), or a pair of f32 (cvt.e4m3x2.f32 d, a, b: a in the upper
// byte) or of halves to a pair, each rounded to nearest even and saturated; in.sub 1: .relu.
template <class In>
WS_LANE_OP cvt_fp8x2(const In& in, Type t, uint64_t a, uint64_t b) {
  const Type src = in.type2;
  const bool relu = in.sub == 1;
  if (is_fp8x2(src)) {
    auto widen = [&](uint32_t byte) -> uint64_t {
      const double x = fp8_value(uint8_t(byte), src == Type::E5M2X2);
      return double_to_half(relu && !std::isnan(x) && std::signbit(x) ? 0.0 : x, false, Rnd::Rn);
    };
    return widen(uint32_t(a >> 8) & 0xff) << 16 | widen(uint32_t(a) & 0xff);
  }
  const bool e5m2 = t == Type::E5M2X2;
  if (src == Type::F16X2)
    return uint64_t(double_to_fp8(half_to_double(uint32_t(a >> 16) & 0xffff, false), e5m2, relu)) << 8 |
           double_to_fp8(half_to_double(uint32_t(a) & 0xffff, false), e5m2, relu);
  return uint64_t(double_to_fp8(f32(a), e5m2, relu)) << 8 | double_to_fp8(f32(b), e5m2, relu);
}
template <class In>
WS_LANE_OP cvt_bits(const In& in, Type t, uint64_t a, uint64_t b) {
  const Type src = in.type2;
  if (is_fp8x2(t) || is_fp8x2(src)) return cvt_fp8x2(in, t, a, b);
  if (is_half(t)) return cvt_to_half(in, t, a, b);
  if (is_float(t) && is_float(src)) {
    double x = as_double(src, a);
    if (is_half(src) && std::isnan(x)) return widen_half_nan(t, src, a);
    // With .ftz the f32 source is read as f32 arithmetic reads it: a NaN is first 7fffffff.
    if ((in.mods & kFtz) && src == Type::F32 && t == Type::F64 && std::isnan(x)) return 0x7fffffffe0000000ull;
    if (in.mods & kRzi) x = round_by(in.rnd, x);
    return from_double(t, x);
  }
  if (is_float(t)) {
    const int64_t s = sext(src, a);
    const uint64_t u = a & width_mask(src);
    if (t == Type::F64) return bits(is_signed(src) ? double(s) : double(u));
    return bits(is_signed(src) ? float(s) : float(u));
  }
  // A half NaN to a 64-bit integer is 2^63 (any other NaN gives 0).
  if (is_half(src) && type_bytes(t) == 8 && std::isnan(as_double(src, a))) return 1ull << 63;
  if (is_float(src)) return float_to_int(t, as_double(src, a), in.rnd == Rnd::None ? Rnd::Rzi : in.rnd);
  if (in.mods & kSat) {
    const uint32_t bw = 8 * type_bytes(t);
    const __int128 x = is_signed(src) ? __int128(sext(src, a)) : __int128(a & width_mask(src));
    const __int128 lo = is_signed(t) ? -(__int128(1) << (bw - 1)) : 0;
    const __int128 hi = is_signed(t) ? (__int128(1) << (bw - 1)) - 1 : (__int128(1) << bw) - 1;
    return uint64_t(std::clamp(x, lo, hi)) & width_mask(t);
  }
  return (is_signed(src) ? uint64_t(sext(src, a)) : (a & width_mask(src))) & width_mask(t);
}
// An .s8 result fills its (wider) register with its sign, as ld.s8 does: cvt.s8.s32 of -1
// into a 16-bit register is ffff.
template <class In>
WS_LANE_OP cvt_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  const uint64_t r = cvt_bits(in, t, a, b);
  return t == Type::S8 ? uint64_t(sext(t, r)) : r;
}
// cvt.rna.tf32.f32: an f32 rounded to tf32's 10 fraction bits, to nearest with ties away
// from zero (the bits are sign and magnitude, so adding half of the dropped unit to them
// does it), kept as an f32 with its low 13 bits clear; a NaN is cut, not rounded: its low
// 13 bits dropped, so one whose payload lies only there becomes an infinity (the H100's
// answer, tests/ptx/fixtures/diff/h100.txt).
template <class In>
WS_LANE_OP cvt_tf32_op(const In&, Type, uint64_t a, uint64_t, uint64_t, uint64_t) {
  const uint32_t u = uint32_t(a);
  if ((u & 0x7fffffffu) > 0x7f800000u) return u & ~0x1fffu;
  return (u + 0x1000u) & ~0x1fffu;
}
// prmt d, a, b, sel: each of d's four bytes picked from a:b's eight by a selector nibble
// (its top bit: replicate the picked byte's sign); with a mode, sel's low two bits choose
// one of the mode's four byte orders (the PTX ISA's table, d's byte 0 first below).
template <class In>
WS_LANE_OP prmt_op(const In& in, Type, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  const uint64_t bytes8 = (a & 0xffffffff) | ((b & 0xffffffff) << 32);
  static constexpr uint8_t kModes[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e: a window of four, forwards
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e: backwards
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8: one byte replicated
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl: edge clamp left
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr: edge clamp right
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}}; // rc16: one half replicated
  if (in.sub != uint8_t(PrmtMode::Default)) {
    const uint8_t* order = kModes[in.sub - 1][c & 3];
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) r |= (uint32_t(bytes8 >> (8 * order[i])) & 0xff) << (8 * i);
    return r;
  }
  const uint32_t sel = uint32_t(c);
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    const uint32_t s = (sel >> (4 * i)) & 0xf;
    uint32_t byte = uint32_t(bytes8 >> (8 * (s & 7))) & 0xff;
    if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
    r |= byte << (8 * i);
  }
  return r;
}

// ---- integer and float arithmetic -----------------------------------------------------
// add.sat.s32 / sub.sat.s32: the exact result clamped to the s32 range. (.sat on f32 is
// applied to the result by the caller, BlockRun::lanes_exact.)
WS_LANE_OP clamp_s32(int64_t x) {
  return uint64_t(std::clamp<int64_t>(x, INT32_MIN, INT32_MAX)) & 0xffffffffu;
}
template <class In>
WS_LANE_OP add_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  if (is_half(t)) return half_arith(HalfFn::Add, t, in.rnd, a, b, 0);
  if (is_float(t)) return fop2(t, a, b, [](auto x, auto y, auto) { return x + y; });
  if ((in.mods & kSat) && t == Type::S32) return clamp_s32(sext(t, a) + sext(t, b));
  return (a + b) & width_mask(t);
}
template <class In>
WS_LANE_OP sub_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  if (is_half(t)) return half_arith(HalfFn::Sub, t, in.rnd, a, b, 0);
  if (is_float(t)) return fop2(t, a, b, [](auto x, auto y, auto) { return x - y; });
  if ((in.mods & kSat) && t == Type::S32) return clamp_s32(sext(t, a) - sext(t, b));
  return (a - b) & width_mask(t);
}
// mul and mad's integer product plus c: .wide (the double-width product), .hi (its upper
// half; mad.hi.sat.s32: the sum clamped to the s32 range), else .lo (the low half, wrapped
// to the type).
template <class In>
WS_LANE_OP int_product(const In& in, Type t, uint64_t a, uint64_t b, uint64_t c) {
  const uint64_t mask = width_mask(t);
  const int64_t sa = sext(t, a), sb = sext(t, b);
  const uint64_t ua = a & mask, ub = b & mask;
  if (in.mods & kWide) return (is_signed(t) ? uint64_t(sa * sb) : ua * ub) + c;
  if (in.mods & kHi) {
    const uint32_t bw = 8 * type_bytes(t);
    uint64_t hi;
    if (bw == 64) {
      hi = is_signed(t) ? uint64_t((__int128(sa) * __int128(sb)) >> 64)
                        : uint64_t((unsigned __int128)(ua) * (unsigned __int128)(ub) >> 64);
    } else {
      hi = is_signed(t) ? uint64_t((sa * sb) >> bw) : (ua * ub) >> bw;
    }
    if ((in.mods & kSat) && t == Type::S32) return clamp_s32(int64_t(int32_t(uint32_t(hi))) + sext(t, c));
    return (hi + c) & mask;
  }
  return (a * b + c) & mask;
}
template <class In>
WS_LANE_OP mul_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  if (is_half(t)) return half_arith(HalfFn::Mul, t, in.rnd, a, b, 0);
  if (is_float(t)) return fop2(t, a, b, [](auto x, auto y, auto) { return x * y; });
  return int_product(in, t, a, b, 0);
}
// fma and mad.f32 (fused, as the GPU computes it since sm_20); an f64 NaN comes from the
// product first (as mul picks it), else from c.
WS_LANE_OP fma_float(Type t, uint64_t a, uint64_t b, uint64_t c) {
  if (t == Type::F64 && (is_nan64(a) || is_nan64(b))) return quiet64(is_nan64(b) ? b : a);
  if (t == Type::F64 && is_nan64(c)) return quiet64(c);
  return fop_canon(t, a, b, c, [](auto x, auto y, auto z) { return std::fma(x, y, z); });
}
template <class In>
WS_LANE_OP mad_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  if (is_float(t)) return fma_float(t, a, b, c);
  return int_product(in, t, a, b, c);
}
template <class In>
WS_LANE_OP fma_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  if (is_half(t)) return half_arith(HalfFn::Fma, t, in.rnd, a, b, c);
  return fma_float(t, a, b, c);
}
// Integer division by zero gives all ones, as the GPU does (it never traps); INT_MIN / -1
// is computed without the host's overflow trap. div.approx.f32 multiplies by the divisor's
// reciprocal, which flushes to zero beyond 2^126: inf / -max is then NaN.
template <class In>
WS_LANE_OP div_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  if (t == Type::F32 && (in.mods & kApprox) && std::fabs(f32(b)) > 0x1p126f)
    return canon(t, bits(f32(a) * std::copysign(0.0f, f32(b))));
  if (is_float(t)) return fop_canon(t, a, b, 0, [](auto x, auto y, auto) { return x / y; });
  const uint64_t mask = width_mask(t), ua = a & mask, ub = b & mask;
  const int64_t sa = sext(t, a), sb = sext(t, b);
  if (ub == 0) return mask;
  return (is_signed(t) ? uint64_t(sb == -1 ? -sa : sa / sb) : ua / ub) & mask;
}
[[gnu::always_inline]] inline bool bw64(Type t) { return type_bytes(t) == 8; }
template <class In>
WS_LANE_OP rem_op(const In&, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  const uint64_t mask = width_mask(t), ua = a & mask, ub = b & mask;
  const int64_t sa = sext(t, a), sb = sext(t, b);
  if (ub == 0) return bw64(t) ? mask : ua;  // the 32-bit and narrower remainders by 0 keep a
  return (is_signed(t) ? uint64_t(sb == -1 ? 0 : sa % sb) : ua % ub) & mask;
}
// min/max of floats: a NaN operand, signaling or quiet, loses to a number (.NaN: wins, as
// the canonical NaN); two NaNs give f32's canonical NaN, f64's b (quieted); -0 is below +0.
template <class In>
WS_LANE_OP min_max_float(const In& in, Type t, uint64_t a, uint64_t b, bool max) {
  const double x = as_double(t, a), y = as_double(t, b);
  if ((in.mods & kNaN) && (std::isnan(x) || std::isnan(y))) return 0x7fffffffu;
  if (std::isnan(x) && std::isnan(y)) return t == Type::F64 ? quiet64(b) : 0x7fffffffu;
  if (std::isnan(x)) return b & width_mask(t);
  if (std::isnan(y)) return a & width_mask(t);
  if (x == 0 && y == 0) return (std::signbit(x) != max) ? a : b;
  return fop_canon(t, a, b, 0, [max](auto p, auto q, auto) { return max ? std::fmax(p, q) : std::fmin(p, q); });
}
template <class In>
WS_LANE_OP min_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  if (is_half(t)) return half_arith(HalfFn::Min, t, Rnd::Rn, a, b, 0);
  if (is_float(t)) return min_max_float(in, t, a, b, false);
  const uint64_t mask = width_mask(t);
  if (is_signed(t)) return uint64_t(std::min(sext(t, a), sext(t, b))) & mask;
  return std::min(a & mask, b & mask);
}
template <class In>
WS_LANE_OP max_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  if (is_half(t)) return half_arith(HalfFn::Max, t, Rnd::Rn, a, b, 0);
  if (is_float(t)) return min_max_float(in, t, a, b, true);
  const uint64_t mask = width_mask(t);
  if (is_signed(t)) return uint64_t(std::max(sext(t, a), sext(t, b))) & mask;
  return std::max(a & mask, b & mask);
}
template <class In>
WS_LANE_OP neg_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  if (is_half(t)) return half_arith(HalfFn::Neg, t, Rnd::Rn, a, 0, 0);
  if (t == Type::F64 && is_nan64(a)) return quiet64(a);  // the sign of an f64 NaN stays
  if (is_float(t)) return fop_canon(t, a, 0, 0, [](auto x, auto, auto) { return -x; });
  return (uint64_t(0) - uint64_t(sext(t, a))) & width_mask(t);  // wraps: -INT_MIN is INT_MIN
}
template <class In>
WS_LANE_OP abs_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  if (is_half(t)) return half_arith(HalfFn::Abs, t, Rnd::Rn, a, 0, 0);
  if (t == Type::F64 && is_nan64(a)) return quiet64(a);
  if (is_float(t)) return fop_canon(t, a, 0, 0, [](auto x, auto, auto) { return std::fabs(x); });
  const int64_t sa = sext(t, a);
  return (sa < 0 ? uint64_t(0) - uint64_t(sa) : uint64_t(sa)) & width_mask(t);  // wraps: abs(INT_MIN) is INT_MIN
}
// mul24 / mad24: the product of the low 24 bits (sign-extended for .s32), .hi its bits 16..47
// (mad24.hi.sat.s32: those as an s32 plus c, clamped to the s32 range).
template <class In>
WS_LANE_OP mul24_product(const In& in, Type t, uint64_t a, uint64_t b, uint64_t c) {
  const int64_t x = is_signed(t) ? (int64_t(a << 40) >> 40) : int64_t(a & 0xffffff);
  const int64_t y = is_signed(t) ? (int64_t(b << 40) >> 40) : int64_t(b & 0xffffff);
  const uint64_t p = uint64_t(x * y);
  if ((in.mods & kSat) && (in.mods & kHi) && t == Type::S32)
    return clamp_s32(int64_t(int32_t(uint32_t(p >> 16))) + sext(t, c));
  return (((in.mods & kHi) ? p >> 16 : p) + c) & width_mask(t);
}
template <class In>
WS_LANE_OP mul24_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  return mul24_product(in, t, a, b, 0);
}
template <class In>
WS_LANE_OP mad24_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  return mul24_product(in, t, a, b, c);
}
// sad d, a, b, c: |a - b| + c.
template <class In>
WS_LANE_OP sad_op(const In&, Type t, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  const uint64_t mask = width_mask(t), ua = a & mask, ub = b & mask;
  const int64_t sa = sext(t, a), sb = sext(t, b);
  const uint64_t diff = is_signed(t) ? (sa > sb ? uint64_t(sa) - uint64_t(sb) : uint64_t(sb) - uint64_t(sa))  // wraps, as the GPU
                                      : (ua > ub ? ua - ub : ub - ua);
  return (diff + c) & mask;
}

// ---- float functions: the .approx forms computed exactly (the GPU's answers may differ in
// the last bits) -------------------------------------------------------------------------
// An f64 subnormal flushed to a zero of its sign (rcp/rsqrt.approx.ftz.f64).
[[gnu::always_inline]] inline uint64_t flush64(uint64_t v) {
  return (v & 0x7ff0000000000000ull) == 0 ? (v & (1ull << 63)) : v;
}
// rcp/rsqrt.approx.ftz.f64 read only the operand's high word, as the GPU does: 7ff00000_00000001
// is infinity to them, and 1/inf is 0.
[[gnu::always_inline]] inline double high_word64(uint64_t v) { return f64(flush64(v) & 0xffffffff00000000ull); }
template <class In>
WS_LANE_OP rcp_op(const In& in, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  if (t == Type::F64 && (in.mods & kFtz)) return flush64(bits(1.0 / high_word64(a)));
  return fop_canon(t, a, 0, 0, [](auto x, auto, auto) { return decltype(x)(1) / x; });
}
template <class In>
WS_LANE_OP sqrt_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  return fop_canon(t, a, 0, 0, [](auto x, auto, auto) { return std::sqrt(x); });
}
template <class In>
WS_LANE_OP rsqrt_op(const In& in, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  if (t == Type::F64 && (in.mods & kFtz)) return flush64(bits(1.0 / std::sqrt(high_word64(a))));
  return fop(t, a, 0, 0, [](auto x, auto, auto) { return decltype(x)(1) / std::sqrt(x); });
}
template <class In>
WS_LANE_OP ex2_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  return fop(t, a, 0, 0, [](auto x, auto, auto) { return std::exp2(x); });
}
template <class In>
WS_LANE_OP lg2_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  return fop(t, a, 0, 0, [](auto x, auto, auto) { return std::log2(x); });
}
template <class In>
WS_LANE_OP sin_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  return fop(t, a, 0, 0, [](auto x, auto, auto) { return std::sin(x); });
}
template <class In>
WS_LANE_OP cos_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  return fop(t, a, 0, 0, [](auto x, auto, auto) { return std::cos(x); });
}
// tanh.approx.f32: the accurate value (the ISA allows a relative error of 2^-11).
template <class In>
WS_LANE_OP tanh_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  return fop(t, a, 0, 0, [](auto x, auto, auto) { return std::tanh(x); });
}
// copysign d, a, b: b's magnitude with a's sign.
template <class In>
WS_LANE_OP copysign_op(const In&, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  return fop(t, a, b, 0, [](auto x, auto y, auto) { return std::copysign(y, x); });
}
// testp.op: the class of a's value in its own type (a subnormal f32 is subnormal as f32);
// the GPU counts ±0 as normal.
template <class In>
WS_LANE_OP testp_op(const In& in, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  const int c = t == Type::F64 ? std::fpclassify(f64(a)) : std::fpclassify(f32(a));
  switch (TestpKind(in.sub)) {
    case TestpKind::Finite: return c != FP_INFINITE && c != FP_NAN;
    case TestpKind::Infinite: return c == FP_INFINITE;
    case TestpKind::Number: return c != FP_NAN;
    case TestpKind::NotANumber: return c == FP_NAN;
    case TestpKind::Normal: return c == FP_NORMAL || c == FP_ZERO;
    case TestpKind::Subnormal: return c == FP_SUBNORMAL;
  }
  return 0;
}

// ---- logic, shifts and bit fields -------------------------------------------------------
template <class In>
WS_LANE_OP and_op(const In&, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) { return (a & b) & width_mask(t); }
template <class In>
WS_LANE_OP or_op(const In&, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) { return (a | b) & width_mask(t); }
template <class In>
WS_LANE_OP xor_op(const In&, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) { return (a ^ b) & width_mask(t); }
template <class In>
WS_LANE_OP not_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  return t == Type::Pred ? (~a & 1) : (~a & width_mask(t));
}
// cnot d, a: 1 where a is 0, else 0.
template <class In>
WS_LANE_OP cnot_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  return (a & width_mask(t)) == 0 ? 1 : 0;
}
// Shifts take the amount as an unsigned 32-bit value; past the width, shl gives 0 and shr
// the sign fill.
template <class In>
WS_LANE_OP shl_op(const In&, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  const uint64_t s = b & 0xffffffff;
  return s >= 8 * type_bytes(t) ? 0 : (a << s) & width_mask(t);
}
template <class In>
WS_LANE_OP shr_op(const In&, Type t, uint64_t a, uint64_t b, uint64_t, uint64_t) {
  const uint32_t bw = 8 * type_bytes(t);
  const uint64_t s = std::min<uint64_t>(b & 0xffffffff, bw);
  if (is_signed(t)) return uint64_t(sext(t, a) >> std::min<uint64_t>(s, 63)) & width_mask(t);
  return s >= bw ? 0 : ((a & width_mask(t)) >> s);
}
// bfe d, a, pos, len: len bits of a from pos, sign-extended from the field's top bit for
// the signed types. The 32-bit forms read pos and len from their low 8 bits; the 64-bit
// ones, as the GPU does, from all 32.
[[gnu::always_inline]] inline uint64_t field_word(Type t, uint64_t v) { return type_bytes(t) == 8 ? (v & 0xffffffff) : (v & 0xff); }
template <class In>
WS_LANE_OP bfe_op(const In&, Type t, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  const uint64_t bw = 8 * type_bytes(t);
  const uint64_t pos = field_word(t, b), len = field_word(t, c);
  uint64_t r = 0;
  for (uint64_t i = 0; i < bw; ++i) {
    uint64_t bit;
    if (i < len && pos + i < bw) bit = (a >> (pos + i)) & 1;
    else if (is_signed(t)) bit = len == 0 ? 0 : (a >> std::min(pos + len - 1, bw - 1)) & 1;
    else bit = 0;
    r |= bit << i;
  }
  return r & width_mask(t);
}
// bfi d, f, b, pos, len: f's low len bits inserted into b at pos (pos and len read as bfe's).
template <class In>
WS_LANE_OP bfi_op(const In&, Type t, uint64_t f, uint64_t base, uint64_t c, uint64_t e) {
  const uint64_t pos = field_word(t, c), len = field_word(t, e);
  const uint64_t bw = 8 * type_bytes(t);
  uint64_t r = base;
  for (uint64_t i = 0; i < len && pos + i < bw; ++i) r = (r & ~(1ull << (pos + i))) | (((f >> i) & 1) << (pos + i));
  return r & width_mask(t);
}
// bfind d, a: the position of a's most significant non-sign bit (a 1, or for a negative
// signed value a 0), 0xffffffff when there is none; .shiftamt: instead the left shift that
// brings that bit to the top.
template <class In>
WS_LANE_OP bfind_op(const In& in, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  const uint32_t msb = 8 * type_bytes(t) - 1;
  uint64_t x = a & width_mask(t);
  if (is_signed(t) && sext(t, a) < 0) x = ~x & width_mask(t);
  if (x == 0) return 0xffffffff;
  const uint32_t pos = uint32_t(63 - std::countl_zero(x));
  return (in.mods & kShiftAmt) ? msb - pos : pos;
}
template <class In>
WS_LANE_OP popc_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  return uint64_t(std::popcount(a & width_mask(t)));
}
template <class In>
WS_LANE_OP clz_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  return uint64_t(std::countl_zero(a & width_mask(t)) - (64 - int(8 * type_bytes(t))));
}
template <class In>
WS_LANE_OP brev_op(const In&, Type t, uint64_t a, uint64_t, uint64_t, uint64_t) {
  const uint32_t bw = 8 * type_bytes(t);
  const uint64_t ua = a & width_mask(t);
  uint64_t r = 0;
  for (uint32_t i = 0; i < bw; ++i) r |= ((ua >> i) & 1) << (bw - 1 - i);
  return r;
}

// shf.l / shf.r d, a, b, c: the 64 bits b:a shifted by c (.wrap: c mod 32; .clamp: at most
// 32), d their upper (l) or lower (r) 32 bits.
template <class In>
WS_LANE_OP shf_op(const In& in, Type, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  const uint32_t n = (in.mods & kShiftClamp) ? std::min<uint32_t>(uint32_t(c), 32) : uint32_t(c) & 31;
  const uint64_t v = (b << 32) | (a & 0xffffffff);
  return in.sub ? uint32_t(v >> n) : uint32_t((v << n) >> 32);
}
// fns d, mask, base, offset: the position of the offset-th set bit of mask from bit base,
// searching up for a positive offset and down for a negative one; offset 0 asks whether bit
// base itself is set. 0xffffffff when there is none.
template <class In>
WS_LANE_OP fns_op(const In&, Type, uint64_t mask, uint64_t base, uint64_t offset, uint64_t) {
  const int32_t off = int32_t(uint32_t(offset));
  int64_t pos = int64_t(base & 0xffffffff);
  if (off == 0) return pos < 32 && ((mask >> pos) & 1) ? uint64_t(pos) : 0xffffffffu;
  int64_t count = (off > 0 ? int64_t(off) : -int64_t(off)) - 1;
  for (; pos >= 0 && pos < 32; pos += off > 0 ? 1 : -1)
    if ((mask >> pos) & 1 && count-- == 0) return uint64_t(pos);
  return 0xffffffffu;
}
// dp4a.atype.btype d, a, b, c: c plus the four products of a's and b's bytes, each byte
// signed or not by its operand's type; wrapped to 32 bits.
template <class In>
WS_LANE_OP dp4a_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  uint32_t sum = uint32_t(c);
  for (int i = 0; i < 4; ++i) {
    const int32_t x = is_signed(t) ? int8_t(a >> (8 * i)) : int32_t(uint8_t(a >> (8 * i)));
    const int32_t y = is_signed(in.type2) ? int8_t(b >> (8 * i)) : int32_t(uint8_t(b >> (8 * i)));
    sum += uint32_t(x * y);
  }
  return sum;
}
// dp2a.lo/.hi d, a, b, c: c plus a's two 16-bit halves times b's bytes 0 and 1 (.lo) or 2
// and 3 (.hi).
template <class In>
WS_LANE_OP dp2a_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  const int first = (in.mods & kHi) ? 2 : 0;
  uint32_t sum = uint32_t(c);
  for (int i = 0; i < 2; ++i) {
    const int32_t x = is_signed(t) ? int16_t(a >> (16 * i)) : int32_t(uint16_t(a >> (16 * i)));
    const int32_t y = is_signed(in.type2) ? int8_t(b >> (8 * (first + i))) : int32_t(uint8_t(b >> (8 * (first + i))));
    sum += uint32_t(x * y);
  }
  return sum;
}

// ---- comparison and selection -----------------------------------------------------------
// A comparison's outcome r combined (.and/.or/.xor) with the predicate operand c when
// there is one.
template <class In>
WS_LANE_OP combine(const In& in, bool r, uint64_t c) {
  if (in.mods & (kCmpAnd | kCmpOr | kCmpXor)) {
    const bool p = bool(c & 1) != in.o[3].negate;
    r = (in.mods & kCmpAnd) ? (r && p) : (in.mods & kCmpOr) ? (r || p) : (r != p);
  }
  return r;
}
// setp p[|q], a, b[, c]: p the comparison combined with c; q (bit 1 of the result, split off
// by BlockRun::lanes_exact) its complement combined with c.
template <class In>
WS_LANE_OP setp_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  const bool r = compare(in.cmp, t, a, b);
  return combine(in, r, c) | (in.dst2 != kSink ? combine(in, !r, c) << 1 : 0);
}
// set.cmp.dtype.stype (the decoder puts stype in `type`, dtype in `type2`): true as 1.0f for
// a float destination, all ones for an integer one.
template <class In>
WS_LANE_OP set_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  const bool r = combine(in, compare(in.cmp, t, a, b), c);
  return in.type2 == Type::F32 ? (r ? bits(1.0f) : 0) : (r ? 0xffffffffull : 0);
}
// selp d, a, b, p: a where p holds.
template <class In>
WS_LANE_OP selp_op(const In& in, Type, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  return (bool(c & 1) != in.o[3].negate) ? a : b;
}

// slct.dtype.ctype d, a, b, c: a where c >= 0 (an s32, or an f32 with .ftz flushing a
// subnormal c; a NaN c selects b), else b. a and b are moved as bits, never flushed.
template <class In>
WS_LANE_OP slct_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t c, uint64_t) {
  bool take_a;
  if (in.type2 == Type::F32) {
    const uint32_t cb = uint32_t(c);
    const bool flushed = (in.mods & kFtz) && (cb & 0x7f800000u) == 0;
    take_a = flushed || f32(cb) >= 0.0f;
  } else {
    take_a = int32_t(uint32_t(c)) >= 0;
  }
  return (take_a ? a : b) & width_mask(t);
}

// ---- the .ftz and .sat forms around any row ---------------------------------------------
// What a row's lanes need beyond its function and exact_op: a second destination, and
// directed rounding (the host's rounding mode set around the row); the interpreter's
// lanes_exact does those, the compiled code hands them to it.
template <class In>
constexpr bool handed_form(const In& in) {
  return in.dst2 != kSink || in.rnd == Rnd::Rz || in.rnd == Rnd::Rm || in.rnd == Rnd::Rp;
}
// The forms off the plain path: those, and .ftz and .sat (exact_op).
template <class In>
constexpr bool exact_form(const In& in) {
  return (in.mods & (kFtz | kSat)) || handed_form(in);
}
// An f32 subnormal flushed to a zero of its sign (.ftz): the register's 32 bits, all an f32
// row reads of it. (Written as masks, with no branch and no bool: a block's loop over the
// lanes of .ftz rows, which flush three sources and the result an instruction, then becomes
// vector code of 32-bit lanes; with a select on 64-bit values, the host compiler gave such
// loops up.)
[[gnu::always_inline]] inline uint32_t flush_f32(uint32_t b) {
  const uint32_t subnormal = uint32_t((b & 0x7f800000u) == 0) & uint32_t((b & 0x7fffffu) != 0);  // 1 or 0
  return (b & (subnormal - 1)) | (b & 0x80000000u & (0u - subnormal));
}
// .sat on a float result: clamped to [0, 1], NaN (and -0) to +0.
inline uint64_t saturate(Type t, uint64_t v) {
  const double x = as_double(t, v);
  if (!(x > 0)) return 0;
  return x >= 1 ? from_double(t, 1.0) : v;
}
// Row F with its .ftz and .sat, one lane: f32 sources flushed before (a compare's two, a
// row's three; slct flushes only its c, itself), the result saturated and flushed after.
// A second destination and directed rounding are the caller's (the interpreter's
// lanes_exact); the compiled code runs the rows with neither through this.
template <auto F, class In>
WS_LANE_OP exact_op(const In& in, Type t, uint64_t a, uint64_t b, uint64_t c, uint64_t e) {
  const bool compare = in.op == Opc::Setp || in.op == Opc::Set;
  const Type src = in.op == Opc::Cvt ? in.type2 : t;
  const Type dst = in.op == Opc::Setp || in.op == Opc::Testp ? Type::Pred : in.op == Opc::Set ? in.type2 : t;
  const bool ftz = (in.mods & kFtz) != 0 && in.op != Opc::Slct;
  if (ftz && src == Type::F32) {
    a = flush_f32(uint32_t(a)), b = flush_f32(uint32_t(b));
    if (!compare) c = flush_f32(uint32_t(c));
  }
  uint64_t x = F(in, t, a, b, c, e);
  if (is_float(dst) && (in.mods & kSat)) x = saturate(dst, x);
  if (ftz && dst == Type::F32) x = flush_f32(uint32_t(x));
  return x;
}

// ---- a thread's place: the special registers of its block and grid ----------------------
// The block's place, as the interpreter and the compiled code both read it: ntid x, y, z,
// ctaid x, y, z, nctaid x, y, z, and the block's warp count.
inline constexpr size_t kPlaceWords = 10;
// Whether `s` is one of the place's registers: %tid, %ntid, %ctaid, %nctaid (x, y, z),
// %laneid, %warpid (the warp's index in the block) and %nwarpid.
constexpr bool place_register(Sreg s) {
  return (s >= Sreg::TidX && s <= Sreg::Laneid) || s == Sreg::Warpid || s == Sreg::Nwarpid;
}
// Its value for lane `lane` of warp `w` (thread 32 w + lane of the block, x fastest).
[[gnu::always_inline]] inline uint64_t place_value(Sreg s, const uint32_t* p, uint32_t w, int lane) {
  const uint32_t t = w * 32 + uint32_t(lane);
  switch (s) {
    case Sreg::TidX: return t % p[0];
    case Sreg::TidY: return (t / p[0]) % p[1];
    case Sreg::TidZ: return t / (p[0] * p[1]);
    case Sreg::Laneid: return uint64_t(lane);
    case Sreg::Warpid: return w;
    case Sreg::Nwarpid: return p[9];
    default: return p[size_t(s) - size_t(Sreg::NtidX)];  // ntid, ctaid, nctaid: in the place's order
  }
}

#undef WS_LANE_OP

}  // namespace ws::ptx
