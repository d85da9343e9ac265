// tests/ptx/test_instructions.cpp — one instruction's semantics per test case: a small PTX
// kernel written by hand runs on the emulated device in one thread and stores its results,
// which are checked against values worked out on paper from the PTX ISA's definition.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ptx/machine.h"
#include "ptx/ptx.h"

using namespace ws;

namespace {

// Runs `body` (PTX instructions that read the output pointer from %rd1 and store 32-bit
// results at [%rd1], [%rd1+4], ...) as the one thread of a kernel; returns the `n` words
// it stored.
std::vector<uint32_t> run_one_thread(const std::string& body, size_t n) {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry probe(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd0, [out];
  cvta.to.global.u64 %rd1, %rd0;
)" + body + R"(
  ret;
}
)";
  ptx::Device dev;
  dev.load(ptx::parse(ptx, "probe.ptx"));
  const uint64_t out = dev.malloc(n * 4, "out");
  std::vector<uint8_t> params(8);
  std::memcpy(params.data(), &out, 8);
  trace::Trace t;
  trace::Builder b(t);
  dev.launch({"probe", {1, 1, 1}, {1, 1, 1}, 0, params}, b);
  std::vector<uint32_t> words(n);
  REQUIRE(dev.to_host(words.data(), out, n * 4));
  return words;
}

}  // namespace

TEST_CASE("bfind: the most significant non-sign bit, or the shift that brings it to the top") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  mov.u32 %r1, 0x00012345;            // highest 1: bit 16
  bfind.u32 %r2, %r1;
  bfind.shiftamt.u32 %r3, %r1;
  bfind.s32 %r4, %r1;                 // positive: the same bit
  mov.u32 %r5, 0;
  bfind.u32 %r6, %r5;                 // no bit set
  bfind.shiftamt.u32 %r7, %r5;
  mov.u32 %r8, -8;                    // 0xfffffff8: the highest 0 is bit 2
  bfind.s32 %r9, %r8;
  bfind.shiftamt.s32 %r10, %r8;
  bfind.u32 %r11, %r8;                // unsigned: bit 31
  mov.u32 %r12, -1;                   // every bit is the sign
  bfind.s32 %r13, %r12;
  mov.u64 %rd2, 0x0000010000000000;   // bit 40
  bfind.u64 %r14, %rd2;
  bfind.shiftamt.u64 %r15, %rd2;
  mov.u64 %rd3, -256;                 // 0xff..ff00: the highest 0 is bit 7
  bfind.s64 %r16, %rd3;
  bfind.shiftamt.s64 %r17, %rd3;
  st.global.u32 [%rd1], %r2;
  st.global.u32 [%rd1+4], %r3;
  st.global.u32 [%rd1+8], %r4;
  st.global.u32 [%rd1+12], %r6;
  st.global.u32 [%rd1+16], %r7;
  st.global.u32 [%rd1+20], %r9;
  st.global.u32 [%rd1+24], %r10;
  st.global.u32 [%rd1+28], %r11;
  st.global.u32 [%rd1+32], %r13;
  st.global.u32 [%rd1+36], %r14;
  st.global.u32 [%rd1+40], %r15;
  st.global.u32 [%rd1+44], %r16;
  st.global.u32 [%rd1+48], %r17;
)", 13);
  CHECK(r[0] == 16);
  CHECK(r[1] == 15);           // 31 - 16
  CHECK(r[2] == 16);
  CHECK(r[3] == 0xffffffffu);
  CHECK(r[4] == 0xffffffffu);  // .shiftamt of nothing is still nothing
  CHECK(r[5] == 2);
  CHECK(r[6] == 29);           // 31 - 2
  CHECK(r[7] == 31);
  CHECK(r[8] == 0xffffffffu);
  CHECK(r[9] == 40);
  CHECK(r[10] == 23);          // 63 - 40
  CHECK(r[11] == 7);
  CHECK(r[12] == 56);          // 63 - 7
}

namespace {

// `st.global.u32 [%rd1+4i], %ri;` for i in [0, n): the results a case leaves in %r0..%r(n-1).
std::string store_results(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "  st.global.u32 [%rd1+" + std::to_string(4 * i) + "], %r" + std::to_string(i) + ";\n";
  return s;
}

}  // namespace

TEST_CASE(".sat: f32 results clamped to [0, 1] with NaN to 0, s32 sums to the s32 range, cvt to its type") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  add.sat.f32 %r0, 0f3F400000, 0f3F000000;     // 0.75 + 0.5 = 1.25 -> 1
  sub.sat.f32 %r1, 0f3E800000, 0f3F000000;     // 0.25 - 0.5 -> 0
  mul.sat.f32 %r2, 0f7FC00000, 0f3F800000;     // NaN -> 0
  fma.rn.sat.f32 %r3, 0f3F000000, 0f3F000000, 0f3E000000;  // 0.375 stays
  mad.sat.f32 %r4, 0f40000000, 0f40000000, 0f00000000;     // 4 -> 1
  cvt.sat.f32.f32 %r5, 0fC0400000;             // -3 -> 0
  add.sat.s32 %r6, 0x7fffffff, 1;              // INT32_MAX
  sub.sat.s32 %r7, -2147483648, 1;             // INT32_MIN
  add.sat.s32 %r8, -5, 3;                      // -2, inside the range
  add.s32 %r9, 0x7fffffff, 1;                  // without .sat it wraps
  cvt.sat.u8.s32 %r10, 300;                    // 255
  cvt.sat.u8.s32 %r11, -5;                     // 0
  mov.u64 %rd2, 0x10000000000;
  cvt.sat.s32.s64 %r12, %rd2;                  // 2^40 -> INT32_MAX
  cvt.u8.s32 %r13, 300;                        // without .sat: 300 & 0xff
  cvt.sat.u16.s32 %r14, 70000;                 // 65535
)" + store_results(15), 15);
  CHECK(r[0] == 0x3F800000u);
  CHECK(r[1] == 0u);
  CHECK(r[2] == 0u);
  CHECK(r[3] == 0x3EC00000u);
  CHECK(r[4] == 0x3F800000u);
  CHECK(r[5] == 0u);
  CHECK(r[6] == 0x7fffffffu);
  CHECK(r[7] == 0x80000000u);
  CHECK(r[8] == 0xfffffffeu);
  CHECK(r[9] == 0x80000000u);
  CHECK(r[10] == 255u);
  CHECK(r[11] == 0u);
  CHECK(r[12] == 0x7fffffffu);
  CHECK(r[13] == 44u);
  CHECK(r[14] == 65535u);
}

TEST_CASE("cvt float to integer: rounded as asked, out of range clamped, NaN to 0") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  cvt.rni.s32.f32 %r0, 0f7FC00000;   // NaN -> 0
  cvt.rni.s32.f32 %r1, 0f4F32D05E;   // 3e9 -> INT32_MAX
  cvt.rni.s32.f32 %r2, 0fCF32D05E;   // -3e9 -> INT32_MIN
  cvt.rni.s32.f32 %r3, 0f40200000;   // 2.5 -> 2 (to even)
  cvt.rni.s32.f32 %r4, 0fC0200000;   // -2.5 -> -2
  cvt.rzi.u32.f32 %r5, 0fBFC00000;   // -1.5 -> 0 (unsigned floor of the range)
  cvt.rmi.s32.f32 %r6, 0fBFC00000;   // -1.5 -> -2
  cvt.rpi.s32.f32 %r7, 0f3F99999A;   // 1.2 -> 2
  cvt.rzi.s32.f32 %r8, 0fBFC00000;   // -1.5 -> -1
  cvt.rzi.u32.f32 %r9, 0f4F32D05E;   // 3e9 fits u32: 3000000000
  cvt.rni.s32.f64 %r10, 0d7FF8000000000000;  // NaN -> 0
)" + store_results(11), 11);
  CHECK(r[0] == 0u);
  CHECK(r[1] == 0x7fffffffu);
  CHECK(r[2] == 0x80000000u);
  CHECK(r[3] == 2u);
  CHECK(r[4] == 0xfffffffeu);
  CHECK(r[5] == 0u);
  CHECK(r[6] == 0xfffffffeu);
  CHECK(r[7] == 2u);
  CHECK(r[8] == 0xffffffffu);
  CHECK(r[9] == 3000000000u);
  CHECK(r[10] == 0u);
}

TEST_CASE("directed rounding .rz/.rm/.rp: the exact result rounded once, the named way") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  add.rz.f32 %r0, 0f3F800000, 0f30800000;      // 1 + 2^-30 -> 1
  add.rp.f32 %r1, 0f3F800000, 0f30800000;      // -> 1 + 2^-23
  add.rm.f32 %r2, 0fBF800000, 0fB0800000;      // -1 - 2^-30 -> -(1 + 2^-23)
  add.rn.f32 %r3, 0f3F800000, 0f30800000;      // -> 1
  mul.rp.f32 %r4, 0f3F800001, 0f3F800001;      // 1 + 2^-22 + 2^-46 -> 1 + 3 * 2^-23
  mul.rz.f32 %r5, 0f3F800001, 0f3F800001;      // -> 1 + 2 * 2^-23
  div.rz.f32 %r6, 0f3F800000, 0f40400000;      // 1/3 -> 0x3EAAAAAA
  div.rp.f32 %r7, 0f3F800000, 0f40400000;      // -> 0x3EAAAAAB
  div.rm.f32 %r8, 0f3F800000, 0f40400000;      // -> 0x3EAAAAAA
  sqrt.rz.f32 %r9, 0f40000000;                 // sqrt 2 -> 0x3FB504F3
  sqrt.rp.f32 %r10, 0f40000000;                // -> 0x3FB504F4
  fma.rp.f32 %r11, 0f3F800000, 0f3F800000, 0f30800000;  // 1 + 2^-30 -> 1 + 2^-23
  fma.rz.f32 %r12, 0f3F800000, 0f3F800000, 0f30800000;  // -> 1
  rcp.rz.f32 %r13, 0f40400000;                 // 1/3 -> 0x3EAAAAAA
  rcp.rn.f32 %r14, 0f40400000;                 // -> 0x3EAAAAAB
  cvt.rz.f32.f64 %r15, 0d3FD5555555555555;     // double 1/3 -> 0x3EAAAAAA
  cvt.rp.f32.f64 %r16, 0d3FD5555555555555;     // -> 0x3EAAAAAB
  cvt.rz.f32.s32 %r17, 16777217;               // 2^24 + 1 -> 2^24
  cvt.rp.f32.s32 %r18, 16777217;               // -> 2^24 + 2
  cvt.rn.f32.s32 %r19, 16777217;               // a tie: to even, 2^24
  mov.u64 %rd2, 0x1000001000000001;            // 2^60 + 2^36 + 1: just above a tie of f32
  cvt.rn.f32.s64 %r20, %rd2;                   // rounded once: up (through f64 it would tie down)
  add.rp.f64 %rd3, 0d3FF0000000000000, 0d3C30000000000000;  // 1 + 2^-60 -> 1 + 2^-52
  add.rz.f64 %rd4, 0d3FF0000000000000, 0d3C30000000000000;  // -> 1
  cvt.u32.u64 %r21, %rd3;
  cvt.u32.u64 %r22, %rd4;
  add.f32 %r23, 0f3F800000, 0f30800000;        // the mode is restored: nearest again
)" + store_results(24), 24);
  CHECK(r[0] == 0x3F800000u);
  CHECK(r[1] == 0x3F800001u);
  CHECK(r[2] == 0xBF800001u);
  CHECK(r[3] == 0x3F800000u);
  CHECK(r[4] == 0x3F800003u);
  CHECK(r[5] == 0x3F800002u);
  CHECK(r[6] == 0x3EAAAAAAu);
  CHECK(r[7] == 0x3EAAAAABu);
  CHECK(r[8] == 0x3EAAAAAAu);
  CHECK(r[9] == 0x3FB504F3u);
  CHECK(r[10] == 0x3FB504F4u);
  CHECK(r[11] == 0x3F800001u);
  CHECK(r[12] == 0x3F800000u);
  CHECK(r[13] == 0x3EAAAAAAu);
  CHECK(r[14] == 0x3EAAAAABu);
  CHECK(r[15] == 0x3EAAAAAAu);
  CHECK(r[16] == 0x3EAAAAABu);
  CHECK(r[17] == 0x4B800000u);
  CHECK(r[18] == 0x4B800001u);
  CHECK(r[19] == 0x4B800000u);
  CHECK(r[20] == 0x5D800001u);
  CHECK(r[21] == 1u);
  CHECK(r[22] == 0u);
  CHECK(r[23] == 0x3F800000u);
}

TEST_CASE(".ftz: f32 subnormal sources and results flushed to zeros of their sign") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  add.ftz.f32 %r0, 0f00000001, 0f00000000;     // the smallest subnormal -> 0
  add.f32 %r1, 0f00000001, 0f00000000;         // kept without .ftz
  mul.ftz.f32 %r2, 0f80000001, 0f3F800000;     // -subnormal -> -0
  mul.ftz.f32 %r3, 0f00800000, 0f3F000000;     // 2^-126 / 2: a subnormal result -> 0
  mul.f32 %r4, 0f00800000, 0f3F000000;         // kept: 2^-127
  setp.ftz.eq.f32 %p1, 0f00000001, 0f00000000; // equal once flushed
  selp.u32 %r5, 1, 0, %p1;
  setp.eq.f32 %p2, 0f00000001, 0f00000000;
  selp.u32 %r6, 1, 0, %p2;
  cvt.ftz.f32.f32 %r7, 0f807FFFFF;             // the largest -subnormal -> -0
)" + store_results(8), 8);
  CHECK(r[0] == 0u);
  CHECK(r[1] == 1u);
  CHECK(r[2] == 0x80000000u);
  CHECK(r[3] == 0u);
  CHECK(r[4] == 0x00400000u);
  CHECK(r[5] == 1u);
  CHECK(r[6] == 0u);
  CHECK(r[7] == 0x80000000u);
}

TEST_CASE("setp p|q: q the complement, each combined with the predicate operand") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  setp.lt.s32 %p0|%p1, 1, 2;           // p true, q false
  selp.u32 %r0, 1, 0, %p0;
  selp.u32 %r1, 1, 0, %p1;
  setp.eq.s32 %p3, 0, 0;               // true
  setp.lt.and.s32 %p0|%p1, 3, 2, %p3;  // p = false & true, q = true & true
  selp.u32 %r2, 1, 0, %p0;
  selp.u32 %r3, 1, 0, %p1;
  setp.lt.or.s32 %p0|%p1, 1, 2, !%p3;  // p = true | false, q = false | false
  selp.u32 %r4, 1, 0, %p0;
  selp.u32 %r5, 1, 0, %p1;
)" + store_results(6), 6);
  CHECK(r == std::vector<uint32_t>{1, 0, 0, 1, 1, 0});
}

TEST_CASE("testp: each class of an f32 and an f64 value") {
  // Values: 1.0, the smallest subnormal, +inf, NaN, 0. Each result word holds six bits:
  // finite, infinite, number, notanumber, normal, subnormal (bit 0 first).
  const char* values[] = {"0f3F800000", "0f00000001", "0f7F800000", "0f7FC00000", "0f00000000",
                          "0d0000000000000001"};
  const char* tests[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
  std::string body;
  for (int v = 0; v < 6; ++v) {
    body += "  mov.u32 %r" + std::to_string(v) + ", 0;\n";
    for (int t = 0; t < 6; ++t) {
      body += std::string("  testp.") + tests[t] + (v == 5 ? ".f64" : ".f32") + " %p1, " + values[v] + ";\n";
      body += "  selp.u32 %r10, " + std::to_string(1 << t) + ", 0, %p1;\n";
      body += "  or.b32 %r" + std::to_string(v) + ", %r" + std::to_string(v) + ", %r10;\n";
    }
  }
  const std::vector<uint32_t> r = run_one_thread(body + store_results(6), 6);
  CHECK(r[0] == 0b010101u);  // 1.0: finite, number, normal
  CHECK(r[1] == 0b100101u);  // subnormal: finite, number, subnormal
  CHECK(r[2] == 0b000110u);  // inf: infinite, number
  CHECK(r[3] == 0b001000u);  // NaN: notanumber only
  CHECK(r[4] == 0b010101u);  // 0: finite, number, and normal as the H100 answers (not subnormal)
  CHECK(r[5] == 0b100101u);  // the smallest f64 subnormal
}

TEST_CASE("prmt: the default selector and every mode's byte orders") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  mov.u32 %r20, 0x33221100;
  mov.u32 %r21, 0x77665544;           // a:b's byte i is 0x11 * i
  prmt.b32 %r0, %r20, %r21, 0x7654;   // b
  prmt.b32 %r1, %r20, %r21, 0x0008;   // byte 0 with its sign (0x00: 0), then byte 0 thrice
  prmt.b32.f4e %r2, %r20, %r21, 1;    // bytes 1..4
  prmt.b32.b4e %r3, %r20, %r21, 0;    // bytes 0, 7, 6, 5
  prmt.b32.rc8 %r4, %r20, %r21, 2;    // byte 2 four times
  prmt.b32.ecl %r5, %r20, %r21, 1;    // 1, 1, 2, 3
  prmt.b32.ecr %r6, %r20, %r21, 2;    // 0, 1, 2, 2
  prmt.b32.rc16 %r7, %r20, %r21, 1;   // 2, 3, 2, 3
  mov.u32 %r22, 0x000000f0;
  prmt.b32 %r8, %r22, %r21, 0x8888;   // byte 0 is 0xf0: negative, so 0xff everywhere
)" + store_results(9), 9);
  CHECK(r[0] == 0x77665544u);
  CHECK(r[1] == 0x00000000u);
  CHECK(r[2] == 0x44332211u);
  CHECK(r[3] == 0x55667700u);
  CHECK(r[4] == 0x22222222u);
  CHECK(r[5] == 0x33221111u);
  CHECK(r[6] == 0x22221100u);
  CHECK(r[7] == 0x33223322u);
  CHECK(r[8] == 0xffffffffu);
}

TEST_CASE("shfl d|p: p says whether the source lane was in range; the special registers") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  mov.u32 %r10, 42;
  shfl.sync.up.b32 %r0|%p1, %r10, 1, 0, -1;     // lane 0 - 1: out of range, its own value
  selp.u32 %r1, 1, 0, %p1;
  shfl.sync.idx.b32 %r2|%p2, %r10, 0, 31, -1;   // lane 0: in range
  selp.u32 %r3, 1, 0, %p2;
  mov.u32 %r4, WARP_SZ;
  mov.u32 %r5, %nsmid;
  mov.u32 %r6, %gridid;
  mov.u32 %r7, %lanemask_eq;
  mov.u32 %r8, %lanemask_gt;
  mov.u32 %r9, %smid;
)" + store_results(10), 10);
  CHECK(r == std::vector<uint32_t>{42, 0, 42, 1, 32, 1, 1, 1, 0xfffffffeu, 0});
}

TEST_CASE("half precision conversions: f16 and bf16 widened exactly, narrowed with one rounding") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  mov.b16 %r20, 0x3F80;                 // bf16 1.0
  cvt.f32.bf16 %r0, %r20;
  mov.b16 %r21, 0x0001;                 // f16's smallest subnormal, 2^-24
  cvt.f32.f16 %r1, %r21;
  mov.b16 %r22, 0x7C00;                 // f16 +inf
  cvt.f32.f16 %r2, %r22;
  cvt.rn.f16.f32 %r3, 0f3F801000;       // 1 + 2^-11: a tie, to even 1.0
  cvt.rn.f16.f32 %r4, 0f3F803000;       // 1 + 3 * 2^-11: a tie, to even 1 + 2^-9
  cvt.rz.f16.f32 %r5, 0f3F803000;       // 1 + 2^-10
  cvt.rp.f16.f32 %r6, 0f3F800008;       // 1 + 2^-20 up: 1 + 2^-10
  cvt.rm.f16.f32 %r7, 0fBF800008;       // its negative down: -(1 + 2^-10)
  cvt.rn.f16.f32 %r8, 0f477FF000;       // 65520, a tie above 65504: to even, infinity
  cvt.rn.f16.f32 %r9, 0f477FEF00;       // 65519: 65504
  cvt.rz.f16.f32 %r10, 0f49742400;      // 1e6 toward zero: 65504
  cvt.rn.f16.f32 %r11, 0f33000000;      // 2^-25, a tie between 0 and 2^-24: 0
  cvt.rn.f16.f32 %r12, 0f33400000;      // 1.5 * 2^-25: 2^-24
  cvt.rn.f16.f32 %r13, 0f7FC00000;      // NaN: the canonical 0x7fff
  cvt.rn.bf16.f32 %r14, 0f3F808000;     // 1 + 2^-8, a tie: 1.0
  cvt.rn.bf16.f32 %r15, 0f3F818000;     // 1 + 3 * 2^-8, a tie: to even 1 + 2^-6
  cvt.rn.bf16.f32 %r16, 0f3F808001;     // just above the tie: 1 + 2^-7
  cvt.rz.bf16.f32 %r17, 0f3F81FFFF;     // 1 + 2^-7
  cvt.rn.bf16.f32 %r18, 0f00018000;     // a subnormal tie: to even, 0x0002
  cvt.rn.bf16.s32 %r19, 259;            // a tie between 258 and 260: 260
  mov.b16 %r23, 0x4100;                 // f16 2.5
  cvt.rni.s32.f16 %r24, %r23;           // 2
  mov.b16 %r25, 0xBFC0;                 // bf16 -1.5
  cvt.rzi.s32.bf16 %r26, %r25;          // -1
  cvt.rn.f16x2.f32 %r27, 0f3F800000, 0f40000000;  // 1.0 in the upper half, 2.0 in the lower
  mov.b16 %r28, 0xC000;                 // f16 -2.0
  cvt.f64.f16 %rd2, %r28;
  mov.b64 {%r29, %r30}, %rd2;
  st.global.u32 [%rd1+80], %r24;
  st.global.u32 [%rd1+84], %r26;
  st.global.u32 [%rd1+88], %r27;
  st.global.u32 [%rd1+92], %r30;
)" + store_results(20), 24);
  CHECK(r[0] == 0x3F800000u);  // 1.0, not 16256.0
  CHECK(r[1] == 0x33800000u);
  CHECK(r[2] == 0x7F800000u);
  CHECK(r[3] == 0x3C00u);
  CHECK(r[4] == 0x3C02u);
  CHECK(r[5] == 0x3C01u);
  CHECK(r[6] == 0x3C01u);
  CHECK(r[7] == 0xBC01u);
  CHECK(r[8] == 0x7C00u);
  CHECK(r[9] == 0x7BFFu);
  CHECK(r[10] == 0x7BFFu);
  CHECK(r[11] == 0x0000u);
  CHECK(r[12] == 0x0001u);
  CHECK(r[13] == 0x7FFFu);
  CHECK(r[14] == 0x3F80u);
  CHECK(r[15] == 0x3F82u);
  CHECK(r[16] == 0x3F81u);
  CHECK(r[17] == 0x3F81u);
  CHECK(r[18] == 0x0002u);
  CHECK(r[19] == 0x4382u);
  CHECK(r[20] == 2u);
  CHECK(r[21] == 0xffffffffu);
  CHECK(r[22] == 0x3C004000u);
  CHECK(r[23] == 0xC0000000u);  // -2.0's upper word
}

TEST_CASE("half precision arithmetic: scalar and paired, rounded once; min, max, neg, abs, setp, atom.add") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  mov.b16 %r20, 0x3C00;                 // f16 1.0
  mov.b16 %r21, 0x1000;                 // 2^-11
  add.rn.f16 %r0, %r20, %r21;           // a tie: 1.0
  mov.b16 %r22, 0x3C01;                 // 1 + 2^-10
  mul.rn.f16 %r1, %r22, %r22;           // 1 + 2^-9 + 2^-20: 1 + 2^-9
  mov.b16 %r23, 0xBC02;                 // -(1 + 2^-9)
  fma.rn.f16 %r2, %r22, %r22, %r23;     // exactly 2^-20, a subnormal: 16 * 2^-24
  mov.b16 %r24, 0x3F80;                 // bf16 1.0
  mov.b16 %r25, 0x3B81;                 // bf16 2^-8 * (1 + 2^-7)
  add.rn.bf16 %r3, %r24, %r25;          // above the tie: 1 + 2^-7
  sub.rn.bf16 %r4, %r24, %r24;          // +0
  mov.b32 %r26, 0x40003C00;             // f16x2 {1, 2}
  mov.b32 %r27, 0x3C003C00;             // f16x2 {1, 1}
  add.rn.f16x2 %r5, %r26, %r27;         // {2, 3}
  neg.f16 %r6, %r20;
  mov.b32 %r28, 0xBF80BF80;
  abs.bf16x2 %r7, %r28;
  mov.b16 %r29, 0x7E00;                 // f16 NaN
  min.f16 %r8, %r29, %r20;              // the number wins
  mov.b16 %r30, 0x8000;                 // -0
  mov.b16 %r31, 0x0000;
  max.f16 %r9, %r30, %r31;              // +0
  min.f16 %r10, %r31, %r30;             // -0
  mov.b16 %r21, 0x4000;                 // f16 2.0
  setp.lt.f16 %p1, %r20, %r21;
  selp.u32 %r11, 1, 0, %p1;
  setp.gt.f16 %p1, %r20, %r21;
  selp.u32 %r12, 1, 0, %p1;
  mov.b32 %r13, 0x3F803F80;             // bf16x2 {1, 1} in memory, word 16
  st.global.u32 [%rd1+64], %r13;
  add.u64 %rd2, %rd1, 64;
  atom.global.add.noftz.bf16x2 %r14, [%rd2], 0x3F804000;  // += {2, 1}: {3, 2}
  ld.global.u32 %r15, [%rd2];
)" + store_results(16), 17);
  CHECK(r[0] == 0x3C00u);
  CHECK(r[1] == 0x3C02u);
  CHECK(r[2] == 0x0010u);
  CHECK(r[3] == 0x3F81u);
  CHECK(r[4] == 0x0000u);
  CHECK(r[5] == 0x42004000u);
  CHECK(r[6] == 0xBC00u);
  CHECK(r[7] == 0x3F803F80u);
  CHECK(r[8] == 0x3C00u);
  CHECK(r[9] == 0x0000u);
  CHECK(r[10] == 0x8000u);
  CHECK(r[11] == 1u);
  CHECK(r[12] == 0u);
  CHECK(r[14] == 0x3F803F80u);  // atom's old value
  CHECK(r[15] == 0x40004040u);  // {3, 2} as bf16
}

namespace {

// Runs `body` in `threads` threads of one block; each thread finds its own %r30 = %tid.x and
// stores its `n` results from %rd1 on (out + tid * 4n). Returns every thread's words.
std::vector<uint32_t> run_threads(const std::string& body, uint32_t threads, size_t n) {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry probe(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd0, [out];
  cvta.to.global.u64 %rd2, %rd0;
  mov.u32 %r30, %tid.x;
  mul.wide.u32 %rd3, %r30, )" + std::to_string(4 * n) + R"(;
  add.s64 %rd1, %rd2, %rd3;
)" + body + R"(
  ret;
}
)";
  ptx::Device dev;
  dev.load(ptx::parse(ptx, "probe.ptx"));
  REQUIRE(dev.module().kernels.at(0).refused.empty());
  const uint64_t out = dev.malloc(threads * n * 4, "out");
  std::vector<uint8_t> params(8);
  std::memcpy(params.data(), &out, 8);
  trace::Trace t;
  trace::Builder b(t);
  dev.launch({"probe", {1, 1, 1}, {threads, 1, 1}, 0, params}, b);
  std::vector<uint32_t> words(threads * n);
  REQUIRE(dev.to_host(words.data(), out, threads * n * 4));
  return words;
}

}  // namespace

TEST_CASE("shf, fns, dp4a, dp2a, tanh") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  mov.u32 %r20, 0x89ABCDEF;             // a
  mov.u32 %r21, 0x01234567;             // b
  shf.l.wrap.b32 %r0, %r20, %r21, 8;    // upper half of b:a << 8
  shf.r.wrap.b32 %r1, %r20, %r21, 8;    // lower half of b:a >> 8
  shf.l.wrap.b32 %r2, %r20, %r21, 40;   // 40 mod 32 = 8
  shf.l.clamp.b32 %r3, %r20, %r21, 40;  // 32: a
  shf.r.clamp.b32 %r4, %r20, %r21, 40;  // 32: b
  mov.u32 %r22, 0xB4;                   // bits 2, 4, 5, 7
  fns.b32 %r5, %r22, 3, 1;              // the first set bit from 3 up: 4
  fns.b32 %r6, %r22, 3, 2;              // the second: 5
  fns.b32 %r7, %r22, 3, 4;              // a fourth there is not
  fns.b32 %r8, %r22, 3, -1;             // the first from 3 down: 2
  fns.b32 %r9, %r22, 4, 0;              // bit 4 itself: set
  fns.b32 %r10, %r22, 3, 0;             // bit 3 itself: clear
  dp4a.u32.u32 %r11, 0x01020304, 0x01010101, 10;    // 1 + 2 + 3 + 4 + 10
  dp4a.s32.s32 %r12, 0xFF02FE04, 0x02020202, 0;     // 2 * (4 - 2 + 2 - 1)
  dp4a.s32.u32 %r13, 0xFF000000, 0xFF000000, 0;     // -1 * 255
  dp2a.lo.s32.s32 %r14, 0xFFFF0003, 0x00000502, 1;  // 3 * 2 + -1 * 5 + 1
  dp2a.hi.u32.u32 %r15, 0x00020003, 0x04030000, 0;  // 3 * 3 + 2 * 4
  tanh.approx.f32 %r16, 0f3F000000;     // tanh 0.5
  tanh.approx.f32 %r17, 0f00000000;
)" + store_results(18), 18);
  CHECK(r[0] == 0x23456789u);
  CHECK(r[1] == 0x6789ABCDu);
  CHECK(r[2] == 0x23456789u);
  CHECK(r[3] == 0x89ABCDEFu);
  CHECK(r[4] == 0x01234567u);
  CHECK(r[5] == 4u);
  CHECK(r[6] == 5u);
  CHECK(r[7] == 0xffffffffu);
  CHECK(r[8] == 2u);
  CHECK(r[9] == 4u);
  CHECK(r[10] == 0xffffffffu);
  CHECK(r[11] == 20u);
  CHECK(r[12] == 6u);
  CHECK(r[13] == 0xFFFFFF01u);
  CHECK(r[14] == 2u);
  CHECK(r[15] == 17u);
  float t = 0;
  std::memcpy(&t, &r[16], 4);
  CHECK(std::fabs(t - 0.46211715726f) <= 0.46211715726f * 0x1p-11f);
  CHECK(r[17] == 0u);
}

TEST_CASE("redux.sync and match.sync over a warp's lanes") {
  const std::vector<uint32_t> r = run_threads(R"(
  redux.sync.add.u32 %r0, %r30, 0xffffffff;       // 0 + 1 + ... + 31
  sub.s32 %r20, %r30, 16;
  redux.sync.min.s32 %r1, %r20, 0xffffffff;       // -16
  redux.sync.max.u32 %r2, %r30, 0xffffffff;       // 31
  or.b32 %r21, %r30, 0x100;
  redux.sync.and.b32 %r3, %r21, 0xffffffff;       // 0x100
  redux.sync.or.b32 %r4, %r21, 0xffffffff;        // 0x11f
  redux.sync.xor.b32 %r5, %r30, 0xffffffff;       // 0 ^ 1 ^ ... ^ 31 = 0
  and.b32 %r22, %r30, 3;
  match.any.sync.b32 %r6, %r22, 0xffffffff;       // the lanes of the same tid % 4
  match.all.sync.b32 %r7|%p1, 7, 0xffffffff;      // all equal
  selp.u32 %r8, 1, 0, %p1;
  match.all.sync.b32 %r9|%p2, %r30, 0xffffffff;   // not
  selp.u32 %r10, 1, 0, %p2;
  mov.b64 %rd4, 0x100000000;
  match.any.sync.b64 %r11, %rd4, 0xffffffff;      // equal in 64 bits
)" + store_results(12), 32, 12);
  for (uint32_t l = 0; l < 32; ++l) {
    INFO("lane " << l);
    const uint32_t* w = &r[l * 12];
    CHECK(w[0] == 496u);
    CHECK(w[1] == uint32_t(-16));
    CHECK(w[2] == 31u);
    CHECK(w[3] == 0x100u);
    CHECK(w[4] == 0x11fu);
    CHECK(w[5] == 0u);
    CHECK(w[6] == (0x11111111u << (l & 3)));
    CHECK(w[7] == 0xffffffffu);
    CHECK(w[8] == 1u);
    CHECK(w[9] == 0u);
    CHECK(w[10] == 0u);
    CHECK(w[11] == 0xffffffffu);
  }
}

TEST_CASE("elect.sync: the lowest lane of the mask leads, every lane learns which; setmaxnreg changes nothing") {
  const std::vector<uint32_t> r = run_threads(R"(
  setmaxnreg.dec.sync.aligned.u32 40;
  elect.sync %r0|%p1, 0xffffffff;                 // lane 0
  selp.u32 %r1, 1, 0, %p1;
  setp.ge.u32 %p1, %r30, 4;
  mov.b32 %r2, 99;
  setp.ne.u32 %p2, %r30, %r30;
  @%p1 elect.sync %r2|%p2, 0xfffffff0;            // lane 4, of the lanes 4-31 that run it
  selp.u32 %r3, 1, 0, %p2;
  elect.sync _|%p3, 0xffffffff;                   // no lane id asked for
  selp.u32 %r4, 1, 0, %p3;
  setmaxnreg.inc.sync.aligned.u32 232;
)" + store_results(5), 32, 5);
  for (uint32_t l = 0; l < 32; ++l) {
    INFO("lane " << l);
    const uint32_t* w = &r[l * 5];
    CHECK(w[0] == 0u);
    CHECK(w[1] == uint32_t(l == 0));
    CHECK(w[2] == (l >= 4 ? 4u : 99u));
    CHECK(w[3] == uint32_t(l == 4));
    CHECK(w[4] == uint32_t(l == 0));
  }
}

TEST_CASE("device malloc and free: memory of the device, a freed block faults, a bad free is refused") {
  const std::string head = R"(.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);
.extern .func free (.param .b64 free_param_0);
.visible .entry k(.param .u64 out, .param .u32 late)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.u32 %r3, [late];
  { .param .b64 param0;
    st.param.b64 [param0], 16;
    .param .b64 retval0;
    call.uni (retval0), malloc, (param0);
    ld.param.b64 %rd3, [retval0];
  }
  mov.u32 %r1, 7;
  st.u32 [%rd3+12], %r1;
  ld.u32 %r2, [%rd3+12];
  st.global.u32 [%rd2], %r2;
  { .param .b64 param0;
    st.param.b64 [param0], %rd3;
    call.uni free, (param0);
  }
  setp.eq.u32 %p1, %r3, 1;
  @%p1 ld.u32 %r2, [%rd3];
  setp.eq.u32 %p1, %r3, 2;
  @!%p1 bra DONE;
  { .param .b64 param0;
    st.param.b64 [param0], %rd3;
    call.uni free, (param0);
  }
DONE:
  ret;
}
)";
  ptx::Device dev;
  dev.load(ptx::parse(head, "heap.ptx"));
  const uint64_t out = dev.malloc(4, "out");
  auto launch = [&](uint32_t late) {
    std::vector<uint8_t> params(12);
    std::memcpy(params.data(), &out, 8);
    std::memcpy(params.data() + 8, &late, 4);
    trace::Trace t;
    trace::Builder b(t);
    dev.launch({"k", {1, 1, 1}, {1, 1, 1}, 0, params}, b);
  };
  launch(0);
  uint32_t v = 0;
  REQUIRE(dev.to_host(&v, out, 4));
  CHECK(v == 7);
  CHECK_THROWS_AS(launch(1), ptx::Fault);  // reading the freed block
  CHECK_THROWS_WITH_AS(launch(2), "free of an address that malloc did not return (or freed already) in k", ptx::Fault);
}

TEST_CASE("bar.red: __syncthreads_count, _and and _or over the block's threads") {
  // 64 threads (two warps): tid < 40 for the count; every thread's tid < 64; only tid 63's
  // tid == 63. Each thread stores the three results.
  const std::vector<uint32_t> r = run_threads(R"(
  setp.lt.u32 %p1, %r30, 40;
  bar.red.popc.u32 %r0, 0, %p1;           // 40
  setp.lt.u32 %p1, %r30, 64;
  bar.red.and.pred %p2, 0, %p1;           // true
  selp.u32 %r1, 1, 0, %p2;
  setp.eq.u32 %p1, %r30, 63;
  barrier.red.or.pred %p2, 0, %p1;        // true: one thread
  selp.u32 %r2, 1, 0, %p2;
  bar.red.and.pred %p2, 0, %p1;           // false
  selp.u32 %r3, 1, 0, %p2;
  bar.red.popc.u32 %r4, 0, !%p1;          // 63
)" + store_results(5), 64, 5);
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("thread " << l);
    CHECK(r[l * 5] == 40u);
    CHECK(r[l * 5 + 1] == 1u);
    CHECK(r[l * 5 + 2] == 1u);
    CHECK(r[l * 5 + 3] == 0u);
    CHECK(r[l * 5 + 4] == 63u);
  }
}

TEST_CASE("the H100's answers at the edges: unsigned setp words, NaNs, zeros, 64-bit remainders and fields, .s8") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  .reg .b16 %h<4>;
  setp.lo.u32 %p1, 0xFFFFFFFF, 1;               // unsigned: 2^32 - 1 is not below 1
  selp.u32 %r0, 1, 0, %p1;
  setp.hi.u32 %p1, 0xFFFFFFFF, 0xFFFF8000;      // .hi is unsigned >, not .eq
  selp.u32 %r1, 1, 0, %p1;
  add.f32 %r2, 0fBF800000, 0fFFC00001;          // any f32 NaN result: 7fffffff
  add.f64 %rd2, 0d7FF8000000012345, 0dFFF8000000000001;  // f64: the second NaN, as it is
  mov.b64 {%r3, %r4}, %rd2;
  neg.f64 %rd3, 0d7FF8000000000000;             // an f64 NaN keeps its sign
  mov.b64 {%r5, %r6}, %rd3;
  min.f32 %r7, 0f7F800001, 0f4B000001;          // a signaling NaN loses to the number too
  max.ftz.f32 %r8, 0f00000000, 0f807FFFFF;      // max(+0, -0 once flushed) = +0
  min.f32 %r9, 0f00000000, 0f80000000;          // min(+0, -0) = -0
  rem.u64 %rd4, 12345, 0;                       // 64-bit remainder by 0: all ones
  mov.b64 {%r10, %r11}, %rd4;
  rem.u32 %r12, 12345, 0;                       // 32-bit: a itself
  bfe.u64 %rd5, 0xF72B1FD32A9C9B5D, 0x80000000, 7;  // pos 2^31: past the value, 0 (not pos 0)
  mov.b64 {%r13, %r14}, %rd5;
  cvt.s8.s32 %h1, -1;                           // .s8 fills its 16-bit register with the sign
  cvt.u32.u16 %r15, %h1;
  mov.b16 %h2, 0x7E55;
  cvt.f32.f16 %r16, %h2;                        // f16 NaN to f32: canonical
  cvt.f64.f16 %rd6, %h2;                        // to f64: payload 0x255 at the fraction's top
  mov.b64 {%r17, %r18}, %rd6;
  cvt.rn.f16.f64 %h3, 0dFFF8000000000001;       // an f64 NaN to f16: the quiet NaN of its sign
  cvt.u32.u16 %r19, %h3;
  div.approx.f32 %r20, 0f7F800000, 0fFF7FFFFF;  // inf times the flushed reciprocal -0: NaN
  testp.normal.f32 %p1, 0f80000000;             // -0 counts as normal
  selp.u32 %r21, 1, 0, %p1;
  st.global.u32 [%rd1+96], 0x00400000;          // a subnormal in global memory
  atom.global.add.f32 %r22, [%rd1+96], 0f80000000;  // read flushed: +0 + -0 = +0
  ld.global.u32 %r23, [%rd1+96];
)" + store_results(24), 25);
  CHECK(r[0] == 0u);
  CHECK(r[1] == 1u);
  CHECK(r[2] == 0x7FFFFFFFu);
  CHECK(r[3] == 0x00000001u);
  CHECK(r[4] == 0xFFF80000u);
  CHECK(r[5] == 0u);
  CHECK(r[6] == 0x7FF80000u);
  CHECK(r[7] == 0x4B000001u);
  CHECK(r[8] == 0u);
  CHECK(r[9] == 0x80000000u);
  CHECK(r[10] == 0xFFFFFFFFu);
  CHECK(r[11] == 0xFFFFFFFFu);
  CHECK(r[12] == 12345u);
  CHECK(r[13] == 0u);
  CHECK(r[14] == 0u);
  CHECK(r[15] == 0xFFFFu);
  CHECK(r[16] == 0x7FFFFFFFu);
  CHECK(r[17] == 0u);
  CHECK(r[18] == 0x7FF95400u);
  CHECK(r[19] == 0xFE00u);
  CHECK(r[20] == 0x7FFFFFFFu);
  CHECK(r[21] == 1u);
  CHECK(r[22] == 0x00400000u);  // atom's old value, as stored
  CHECK(r[23] == 0u);
}

TEST_CASE("cnot, slct, min/max.NaN, mad.hi.sat.s32, mad24.hi.sat.s32, rcp/rsqrt.approx.ftz.f64") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  cnot.b32 %r0, 0;                              // 1
  cnot.b32 %r1, 0x80000000;                     // 0
  slct.b32.s32 %r2, 11, 22, 0;                  // c >= 0: a
  slct.b32.s32 %r3, 11, 22, -1;                 // c < 0: b
  slct.f32.f32 %r4, 11, 22, 0f80000000;         // -0 >= 0: a
  slct.f32.f32 %r5, 11, 22, 0f7FC00000;         // NaN: b
  slct.f32.f32 %r6, 11, 22, 0f80000001;         // -subnormal < 0: b
  slct.ftz.f32.f32 %r7, 11, 22, 0f80000001;     // flushed to -0: a
  min.NaN.f32 %r8, 0f3F800000, 0f7FC12345;      // a NaN operand wins: canonical
  max.NaN.f32 %r9, 0f3F800000, 0f40000000;      // else as max: 2.0
  mad.hi.sat.s32 %r10, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF;  // 0x3FFFFFFF + 0x7FFFFFFF: clamped
  mad.hi.sat.s32 %r11, 0x10000, 0x10000, -2;    // high half 1, plus -2: -1
  mad24.hi.sat.s32 %r12, 0x7FFFFF, 0x7FFFFF, 0x7FFFFFFF;    // 0x3FFFFF00 + 0x7FFFFFFF, clamped
  mad24.hi.sat.s32 %r13, 0x7FFFFF, 0x7FFFFF, 0; // (2^23-1)^2 = 0x3FFFFF000001: bits 16..47 0x3FFFFF00
  rcp.approx.ftz.f64 %rd2, 0d7FF0000000000001;  // the high word reads infinity: 0
  mov.b64 {%r14, %r15}, %rd2;
  rcp.approx.ftz.f64 %rd3, 0d000FFFFFFFFFFFFF;  // a subnormal is zero: +inf
  mov.b64 {%r16, %r17}, %rd3;
  rsqrt.approx.ftz.f64 %rd4, 0d4010000000000000;  // 1/sqrt(4) = 0.5, exact in the high word
  mov.b64 {%r18, %r19}, %rd4;
)" + store_results(20), 20);
  CHECK(r[0] == 1u);
  CHECK(r[1] == 0u);
  CHECK(r[2] == 11u);
  CHECK(r[3] == 22u);
  CHECK(r[4] == 11u);
  CHECK(r[5] == 22u);
  CHECK(r[6] == 22u);
  CHECK(r[7] == 11u);
  CHECK(r[8] == 0x7FFFFFFFu);
  CHECK(r[9] == 0x40000000u);
  CHECK(r[10] == 0x7FFFFFFFu);
  CHECK(r[11] == 0xFFFFFFFFu);
  CHECK(r[12] == 0x7FFFFFFFu);
  CHECK(r[13] == 0x3FFFFF00u);
  CHECK(r[14] == 0u);
  CHECK(r[15] == 0u);
  CHECK(r[16] == 0u);
  CHECK(r[17] == 0x7FF00000u);
  CHECK(r[18] == 0u);
  CHECK(r[19] == 0x3FE00000u);
}

TEST_CASE("bar.sync with a thread count: the whole block's waits as bar.sync; more than the block is refused when it runs") {
  const std::vector<uint32_t> r = run_one_thread(R"(
  bar.sync 0, 32;                               // one warp: 32 is the whole block
  mov.u32 %r0, 5;
)" + store_results(1), 1);
  CHECK(r[0] == 5u);
  CHECK_THROWS_WITH_AS(run_one_thread("  bar.sync 1, 64;\n", 1),
                       "kernel probe: PTX line 11: bar.sync: a thread count of 64 (a multiple of 32, at most the block's 32)",
                       ptx::Fault);
}
