// src/ptx/value.h — a register's 64 bits read as the instruction's type: integers of each
// width (masked, sign-extended), f32 and f64 by their IEEE bits, f16 and bf16 and their
// pairs (computed in half.cpp), cvt's rounding and saturation, setp's comparisons. Shared
// by the semantic functions (arith.h) and the atomics (memory.cpp). Private to src/ptx.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ptx/ptx.h"

namespace ws::ptx {


// The type's bits of a register (all 64 for a 64-bit type or none).
[[gnu::always_inline]] inline uint64_t width_mask(Type t) {
  const uint32_t b = type_bytes(t);
  return b >= 8 ? ~0ull : b == 0 ? ~0ull : (1ull << (8 * b)) - 1;
}
// The type's bits of a register as a signed value.
[[gnu::always_inline]] inline int64_t sext(Type t, uint64_t v) {
  const uint32_t b = type_bytes(t);
  if (b >= 8 || b == 0) return int64_t(v);
  const uint32_t sh = 64 - 8 * b;
  return int64_t(v << sh) >> sh;
}
// A float lives in a register as its IEEE bits (f32: the low 32).
inline float f32(uint64_t v) { return std::bit_cast<float>(uint32_t(v)); }
inline double f64(uint64_t v) { return std::bit_cast<double>(v); }
inline uint64_t bits(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }

// ---- half precision (half.cpp) --------------------------------------------------------
// A half's 16 bits as the double it denotes, exactly (bf: bfloat16, else IEEE binary16).
double half_to_double(uint32_t h, bool bf);
// `x` rounded once to a half by `r` (Rn, None: to nearest even; Rz; Rm; Rp), subnormals and
// overflow as IEEE 754 asks; NaN as the GPU's canonical 0x7fff. Exact when `x` is the exact
// value or its round-to-odd double (odd_double).
uint32_t double_to_half(double x, bool bf, Rnd r);
// An operation of halves computed in double and rounded to odd: rounding that double to a
// half gives the correctly rounded result in every mode (the format has far fewer bits).
enum class HalfOp : uint8_t { Add, Mul, Fma };
double odd_double(HalfOp op, double x, double y, double z);
// An integer rounded to odd in double (exact below 2^53), for the same reason.
double odd_double(int64_t s, uint64_t u, bool is_signed);
constexpr bool is_bf(Type t) { return t == Type::BF16 || t == Type::BF16X2; }
// ---- 8-bit floats (half.cpp): e4m3 (bias 7, 3 fraction bits, no infinity, S.1111.111 its
// NaN, largest 448) and e5m2 (bias 15, 2 fraction bits, laid out as IEEE's halves, largest
// finite 57344).
// A byte's value, exactly.
double fp8_value(uint8_t v, bool e5m2);
// `x` rounded to nearest even, as cvt.rn.satfinite writes it: beyond the largest finite value
// (an infinity too) the largest finite of x's sign; NaN 0x7f; with relu a negative result +0.
uint32_t double_to_fp8(double x, bool e5m2, bool relu);
// An arithmetic instruction on halves of type t (scalar, or each element of a pair), its
// result rounded once by r: add, sub, mul, fma, min and max (a NaN loses to a number, -0 is
// below +0), neg and abs (the sign bit).
enum class HalfFn : uint8_t { Add, Sub, Mul, Fma, Min, Max, Neg, Abs };
uint64_t half_arith(HalfFn fn, Type t, Rnd r, uint64_t a, uint64_t b, uint64_t c);

inline double as_double(Type t, uint64_t v) {
  if (t == Type::F16 || t == Type::BF16) return half_to_double(uint32_t(v) & 0xffff, t == Type::BF16);
  return t == Type::F64 ? f64(v) : double(f32(v));
}
inline uint64_t from_double(Type t, double d) { return t == Type::F64 ? bits(d) : bits(float(d)); }

// cvt's rounding of a float to an integral value; the default truncates, as .rzi.
inline double round_by(Rnd r, double x) {
  switch (r) {
    case Rnd::Rni: case Rnd::Rn: return std::nearbyint(x);
    case Rnd::Rmi: case Rnd::Rm: return std::floor(x);
    case Rnd::Rpi: case Rnd::Rp: return std::ceil(x);
    default: return std::trunc(x);
  }
}

// Float -> integer as cvt does: rounded, saturated to the type's range, NaN to 0.
inline uint64_t float_to_int(Type dst, double x, Rnd r) {
  if (std::isnan(x)) return 0;
  x = round_by(r, x);
  const uint32_t b = type_bytes(dst);
  if (is_signed(dst)) {
    const double lo = -std::ldexp(1.0, int(8 * b - 1)), hi = std::ldexp(1.0, int(8 * b - 1)) - 1;
    if (x <= lo) return uint64_t(int64_t(lo)) & width_mask(dst);
    if (x >= hi) return b >= 8 ? uint64_t(std::numeric_limits<int64_t>::max()) : uint64_t(int64_t(hi));
    return uint64_t(int64_t(x)) & width_mask(dst);
  }
  if (x <= 0) return 0;
  const double hi = std::ldexp(1.0, int(8 * b)) - 1;
  if (x >= hi) return b >= 8 ? ~0ull : uint64_t(hi);
  return uint64_t(x);
}

// setp's comparison in the type: floats ordered (false with a NaN) unless the `u` forms
// ask for unordered (true with a NaN); integers signed or unsigned by the type, lo/ls/hi/hs
// always unsigned. Inlined: with a constant type only one of its halves remains.
[[gnu::always_inline]] inline bool compare(Cmp c, Type t, uint64_t a, uint64_t b) {
  if (is_float(t)) {
    const double x = as_double(t, a), y = as_double(t, b);
    const bool un = std::isnan(x) || std::isnan(y);
    switch (c) {
      case Cmp::Eq: return !un && x == y;
      case Cmp::Ne: return !un && x != y;
      case Cmp::Lt: return !un && x < y;
      case Cmp::Le: return !un && x <= y;
      case Cmp::Gt: return !un && x > y;
      case Cmp::Ge: return !un && x >= y;
      case Cmp::Equ: return un || x == y;
      case Cmp::Neu: return un || x != y;
      case Cmp::Ltu: return un || x < y;
      case Cmp::Leu: return un || x <= y;
      case Cmp::Gtu: return un || x > y;
      case Cmp::Geu: return un || x >= y;
      case Cmp::Num: return !un;
      case Cmp::Nan: return un;
      default: return false;
    }
  }
  const uint64_t m = width_mask(t);
  const uint64_t ua = a & m, ub = b & m;
  const int64_t sa = sext(t, a), sb = sext(t, b);
  const bool s = is_signed(t);
  switch (c) {
    case Cmp::Eq: return ua == ub;
    case Cmp::Ne: return ua != ub;
    case Cmp::Lt: return s ? sa < sb : ua < ub;
    case Cmp::Le: return s ? sa <= sb : ua <= ub;
    case Cmp::Gt: return s ? sa > sb : ua > ub;
    case Cmp::Ge: return s ? sa >= sb : ua >= ub;
    case Cmp::Lo: return ua < ub;
    case Cmp::Ls: return ua <= ub;
    case Cmp::Hi: return ua > ub;
    case Cmp::Hs: return ua >= ub;
    default: return false;
  }
}

}  // namespace ws::ptx
