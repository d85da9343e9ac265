// src/ptx/half.cpp — half precision exactly: f16 and bf16 bits to double and back with one
// rounding in any of PTX's four modes, and the round-to-odd double of an operation, which
// makes computing in double and then rounding to a half give the correctly rounded result.
#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>

#include "ptx/value.h"

namespace ws::ptx {

namespace {

// The two formats: significand bits (with the implicit one) and exponent range.
struct HalfFormat {
  int p, emin, emax, ebits;
};
constexpr HalfFormat kF16{11, -14, 15, 5}, kBF16{8, -126, 127, 8};

// |x| = a (sign `neg`) rounded by `r` (Rn, None: to nearest even; Rz; Rm; Rp) to a format of
// `fbits` fraction bits whose smallest normal binade is 2^emin: a = n * q with q the
// quantum of a's binade (or of the subnormals), n's fraction decides. Range not checked.
double rounded(double a, bool neg, int emin, int fbits, Rnd r) {
  int e = 0;
  std::frexp(a, &e);
  const int qexp = std::max(e - 1, emin) - fbits;
  const double n = std::ldexp(a, -qexp), whole = std::floor(n), frac = n - whole;
  bool up = false;
  switch (r) {
    case Rnd::Rz: break;
    case Rnd::Rm: up = neg && frac > 0; break;
    case Rnd::Rp: up = !neg && frac > 0; break;
    default: up = frac > 0.5 || (frac == 0.5 && std::fmod(whole, 2.0) == 1.0); break;
  }
  return std::ldexp(whole + (up ? 1 : 0), qexp);
}

// The exponent and fraction fields of a finite magnitude `mag` of that format (exponent
// bias emax): a subnormal's quanta, or its binade's exponent and fraction.
uint32_t fields(double mag, int emin, int emax, int fbits) {
  if (mag < std::ldexp(1.0, emin)) return uint32_t(std::ldexp(mag, -(emin - fbits)));
  int e = 0;
  std::frexp(mag, &e);
  const uint32_t m = uint32_t(std::ldexp(mag, fbits - (e - 1))) & ((1u << fbits) - 1);
  return uint32_t(e - 1 + emax) << fbits | m;
}

}  // namespace

double half_to_double(uint32_t h, bool bf) {
  const HalfFormat f = bf ? kBF16 : kF16;
  const int fbits = f.p - 1;
  const uint32_t e = (h >> fbits) & ((1u << f.ebits) - 1), m = h & ((1u << fbits) - 1);
  const double sign = (h >> (fbits + f.ebits)) & 1 ? -1.0 : 1.0;
  if (e == (1u << f.ebits) - 1) return m ? std::nan("") : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(double(m), f.emin - fbits);
  return sign * std::ldexp(double(m | (1u << fbits)), int(e) - f.emax - fbits);
}

uint32_t double_to_half(double x, bool bf, Rnd r) {
  const HalfFormat f = bf ? kBF16 : kF16;
  const int fbits = f.p - 1;
  const uint32_t inf = ((1u << f.ebits) - 1) << fbits;
  if (std::isnan(x)) return 0x7fff;
  const bool neg = std::signbit(x);
  const uint32_t sign = neg ? 1u << (fbits + f.ebits) : 0;
  const double a = std::fabs(x);
  if (std::isinf(a)) return sign | inf;
  if (a == 0) return sign;
  const double mag = rounded(a, neg, f.emin, fbits, r);
  const double max_finite = std::ldexp(double((2u << fbits) - 1), f.emax - fbits);
  if (mag > max_finite) {  // overflow: infinity, or the largest finite value toward zero
    const bool to_inf = r == Rnd::Rn || r == Rnd::None || (r == Rnd::Rp && !neg) || (r == Rnd::Rm && neg);
    return sign | (to_inf ? inf : inf - 1);
  }
  return sign | fields(mag, f.emin, f.emax, fbits);
}

namespace {

// The sticky bit: an inexact result truncated toward zero, with its last bit set, is the
// result rounded to odd.
double odd(double truncated, bool inexact) {
  return inexact ? std::bit_cast<double>(std::bit_cast<uint64_t>(truncated) | 1) : truncated;
}

}  // namespace

double odd_double(HalfOp op, double x, double y, double z) {
  std::fenv_t env;
  std::feholdexcept(&env);  // saves the caller's mode and flags, clears the flags
  std::fesetround(FE_TOWARDZERO);
  volatile double vx = x, vy = y, vz = z;  // computed under the mode, not before it
  volatile double r = op == HalfOp::Add ? vx + vy : op == HalfOp::Mul ? vx * vy : std::fma(vx, vy, vz);
  const bool inexact = std::fetestexcept(FE_INEXACT) != 0;
  std::fesetenv(&env);
  return odd(r, inexact);
}

double odd_double(int64_t s, uint64_t u, bool is_signed) {
  const bool neg = is_signed && s < 0;
  uint64_t m = is_signed ? (neg ? 0 - uint64_t(s) : uint64_t(s)) : u;
  int shift = 0;
  bool sticky = false;
  while (m >> 53) {  // keep 53 bits, the dropped ones folded into the last
    sticky |= m & 1;
    m >>= 1;
    ++shift;
  }
  if (sticky) m |= 1;
  const double d = std::ldexp(double(m), shift);
  return neg ? -d : d;
}

namespace {

// One 16-bit element of half_arith.
uint32_t half_element(HalfFn fn, bool bf, Rnd r, uint32_t a, uint32_t b, uint32_t c) {
  const double x = half_to_double(a, bf), y = half_to_double(b, bf);
  // neg and abs flip or clear the sign bit, except of a NaN: the GPU gives its canonical 7fff.
  if (fn == HalfFn::Neg) return std::isnan(x) ? 0x7fff : a ^ 0x8000;
  if (fn == HalfFn::Abs) return std::isnan(x) ? 0x7fff : a & 0x7fff;
  if (fn == HalfFn::Min || fn == HalfFn::Max) {
    if (std::isnan(x)) return std::isnan(y) ? 0x7fff : b;
    if (std::isnan(y)) return a;
    if (x == y) return fn == HalfFn::Min ? (a | b) : (a & b);  // equal bits, or the two zeros
    return (x < y) == (fn == HalfFn::Min) ? a : b;
  }
  double exact = 0;
  switch (fn) {
    case HalfFn::Add: exact = odd_double(HalfOp::Add, x, y, 0); break;
    case HalfFn::Sub: exact = odd_double(HalfOp::Add, x, -y, 0); break;
    case HalfFn::Mul: exact = odd_double(HalfOp::Mul, x, y, 0); break;
    default: exact = odd_double(HalfOp::Fma, x, y, half_to_double(c, bf)); break;
  }
  return double_to_half(exact, bf, r);
}

}  // namespace

uint64_t half_arith(HalfFn fn, Type t, Rnd r, uint64_t a, uint64_t b, uint64_t c) {
  const bool bf = is_bf(t);
  const uint32_t lo = half_element(fn, bf, r, uint32_t(a) & 0xffff, uint32_t(b) & 0xffff, uint32_t(c) & 0xffff);
  if (t != Type::F16X2 && t != Type::BF16X2) return lo;
  const uint32_t hi = half_element(fn, bf, r, uint32_t(a >> 16) & 0xffff, uint32_t(b >> 16) & 0xffff, uint32_t(c >> 16) & 0xffff);
  return lo | (hi << 16);
}

double fp8_value(uint8_t v, bool e5m2) {
  const bool neg = v & 0x80;
  const int e = e5m2 ? (v >> 2) & 0x1f : (v >> 3) & 0xf, m = e5m2 ? v & 3 : v & 7, mb = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  double x;
  if (e5m2 && e == 0x1f) x = m ? std::nan("") : INFINITY;
  else if (!e5m2 && e == 0xf && m == 7) x = std::nan("");
  else if (e == 0) x = std::ldexp(double(m), 1 - bias - mb);
  else x = std::ldexp(double((1 << mb) | m), e - bias - mb);
  return neg ? -x : x;
}

uint32_t double_to_fp8(double x, bool e5m2, bool relu) {
  if (std::isnan(x)) return 0x7f;
  if (relu && std::signbit(x)) return 0;
  const int mb = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  const uint32_t sign = std::signbit(x) ? 0x80u : 0u, largest = e5m2 ? 0x7bu : 0x7eu;
  const double a = std::fabs(x), max_finite = e5m2 ? 57344.0 : 448.0;
  if (a >= max_finite) return sign | largest;
  // Below half the smallest subnormal, or the tie with zero, rounds to a zero of x's sign.
  const double mag = rounded(a, std::signbit(x), 1 - bias, mb, Rnd::Rn);
  if (mag >= max_finite) return sign | largest;
  return sign | fields(mag, 1 - bias, bias, mb);
}

}  // namespace ws::ptx
