// src/ptx/value.h — a register's 64 bits read as the instruction's type: integers of each
// width (masked, sign-extended), f32 and f64 by their IEEE bits, cvt's rounding and
// saturation, setp's comparisons. Shared by the semantic functions (arith.h) and the
// atomics (memory.cpp). Private to src/ptx.
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

inline double as_double(Type t, uint64_t v) { return t == Type::F64 ? f64(v) : double(f32(v)); }
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
