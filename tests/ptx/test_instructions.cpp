// tests/ptx/test_instructions.cpp — one instruction's semantics per test case: a small PTX
// kernel written by hand runs on the emulated device in one thread and stores its results,
// which are checked against values worked out on paper from the PTX ISA's definition.
#include <doctest/doctest.h>

#include <cstring>
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
