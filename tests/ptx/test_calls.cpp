// tests/ptx/test_calls.cpp — calls between device functions as C++ makes them: recursion
// (each activation with its own registers, parameters and local frame, and a depth the
// emulated stack refuses past), and calls through registers (function pointers, vtables),
// on small PTX kernels written by hand whose answers are worked out on paper.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ptx/machine.h"
#include "ptx/ptx.h"

using namespace ws;

namespace {

const char* kHead = R"(.version 8.0
.target sm_90
.address_size 64
)";

// Launches kernel `k` of `ptx` with `threads` threads and the output pointer as its one
// parameter; returns the `n` words it stored.
std::vector<uint32_t> run(const std::string& ptx, const std::string& k, uint32_t threads, size_t n) {
  ptx::Device dev;
  dev.load(ptx::parse(kHead + ptx, "calls.ptx"));
  const uint64_t out = dev.malloc(n * 4, "out");
  std::vector<uint8_t> params(8);
  std::memcpy(params.data(), &out, 8);
  trace::Trace t;
  trace::Builder b(t);
  dev.launch({k, {1, 1, 1}, {threads, 1, 1}, 0, params}, b);
  std::vector<uint32_t> words(n);
  REQUIRE(dev.to_host(words.data(), out, n * 4));
  return words;
}

// fact(n) = n * fact(n - 1), fact(0) = 1: nothing but registers and parameters.
const char* kFact = R"(
.func (.param .b32 func_retval0) fact(.param .b32 fact_param_0)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  ld.param.u32 %r1, [fact_param_0];
  mov.u32 %r5, 1;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra DONE;
  add.s32 %r2, %r1, -1;
  { .param .b32 param0;
    st.param.b32 [param0], %r2;
    .param .b32 retval0;
    call.uni (retval0), fact, (param0);
    ld.param.b32 %r3, [retval0];
  }
  mul.lo.s32 %r5, %r3, %r1;
DONE:
  st.param.b32 [func_retval0], %r5;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  { .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), fact, (param0);
    ld.param.b32 %r2, [retval0];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

// tens(n): keeps n in its local frame across the call it makes, then returns
// 10 * n + tens(n - 1), tens(0) = 0: with one frame shared by every activation the
// callee's store would overwrite the caller's n.
const char* kTens = R"(
.func (.param .b32 func_retval0) tens(.param .b32 tens_param_0)
{
  .local .align 4 .b8 __local_depot1[8];
  .reg .b64 %SPL;
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  mov.u64 %SPL, __local_depot1;
  ld.param.u32 %r1, [tens_param_0];
  st.local.u32 [%SPL+4], %r1;
  mov.u32 %r5, 0;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra DONE;
  add.s32 %r2, %r1, -1;
  mov.u32 %r1, 99;
  { .param .b32 param0;
    st.param.b32 [param0], %r2;
    .param .b32 retval0;
    call.uni (retval0), tens, (param0);
    ld.param.b32 %r3, [retval0];
  }
  ld.local.u32 %r4, [%SPL+4];
  mad.lo.s32 %r5, %r4, 10, %r3;
DONE:
  st.param.b32 [func_retval0], %r5;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  { .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), tens, (param0);
    ld.param.b32 %r2, [retval0];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

}  // namespace

TEST_CASE("recursion: every activation has its own registers, parameters and local frame") {
  // Lanes 0..5 recurse to different depths in one warp: 0! .. 5!.
  CHECK(run(kFact, "k", 6, 6) == std::vector<uint32_t>{1, 1, 2, 6, 24, 120});
  // tens(3) = 30 + tens(2) = 30 + 20 + 10 + 0 = 60; a shared frame would give 0 (the
  // innermost store of 0 seen by every caller), a shared register 99 * 10 per level.
  CHECK(run(kTens, "k", 5, 5) == std::vector<uint32_t>{0, 10, 30, 60, 100});
}

TEST_CASE("recursion past the emulated stack stops the launch in one line") {
  // fact of 2000 recurses 2000 deep: past the 1000 calls the stack holds.
  std::string deep = kFact;
  deep.replace(deep.find("mov.u32 %r1, %tid.x;"), 20, "mov.u32 %r1, 2000;");
  CHECK_THROWS_WITH_AS(run(deep, "k", 1, 1),
                       "kernel k: recursion deeper than 1000 calls, more than the emulated device's stack holds",
                       ptx::Fault);
  // With 8 bytes of local frame (16 a call, aligned) the stack holds 16 KiB / 16 = 1024
  // frames, so the 1000-call limit still decides; its message names the frame.
  std::string deep_tens = kTens;
  deep_tens.replace(deep_tens.find("mov.u32 %r1, %tid.x;"), 20, "mov.u32 %r1, 5000;");
  CHECK_THROWS_WITH_AS(run(deep_tens, "k", 1, 1),
                       "kernel k: recursion deeper than 1000 calls, more than the emulated device's stack holds "
                       "(16 bytes of local memory a call)",
                       ptx::Fault);
}

namespace {

// ops[] = {add, sub}: a __device__ table of function addresses; lane t calls ops[t % 2]
// on (t + 10, 3) through a register, and lane t also calls `mul` through an address
// taken by mov. Lanes whose `bad` is set call through 0, or through `one`'s address with
// two arguments where it takes one.
const char* kPointers = R"(
.func (.param .b32 func_retval0) add(.param .b32 add_param_0, .param .b32 add_param_1);
.func (.param .b32 func_retval0) sub(.param .b32 sub_param_0, .param .b32 sub_param_1);
.func (.param .b32 func_retval0) one(.param .b32 one_param_0);
.global .align 8 .u64 ops[2] = {add, sub};
.func (.param .b32 func_retval0) add(.param .b32 add_param_0, .param .b32 add_param_1)
{
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [add_param_0];
  ld.param.u32 %r2, [add_param_1];
  add.s32 %r3, %r1, %r2;
  st.param.b32 [func_retval0], %r3;
  ret;
}
.func (.param .b32 func_retval0) sub(.param .b32 sub_param_0, .param .b32 sub_param_1)
{
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [sub_param_0];
  ld.param.u32 %r2, [sub_param_1];
  sub.s32 %r3, %r1, %r2;
  st.param.b32 [func_retval0], %r3;
  ret;
}
.func (.param .b32 func_retval0) mul(.param .b32 mul_param_0, .param .b32 mul_param_1)
{
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [mul_param_0];
  ld.param.u32 %r2, [mul_param_1];
  mul.lo.s32 %r3, %r1, %r2;
  st.param.b32 [func_retval0], %r3;
  ret;
}
.func (.param .b32 func_retval0) one(.param .b32 one_param_0)
{
  .reg .b32 %r<2>;
  ld.param.u32 %r1, [one_param_0];
  st.param.b32 [func_retval0], %r1;
  ret;
}
.visible .entry k(.param .u64 out, .param .u32 bad)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r6, [bad];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  mul.wide.u32 %rd2, %r2, 8;
  mov.u64 %rd3, ops;
  add.s64 %rd4, %rd3, %rd2;
  ld.global.u64 %rd5, [%rd4];
  setp.eq.u32 %p1, %r6, 1;
  @%p1 mov.u64 %rd5, 0;
  setp.eq.u32 %p1, %r6, 2;
  @%p1 mov.u64 %rd5, one;
  add.s32 %r3, %r1, 10;
  { .param .b32 param0;
    st.param.b32 [param0], %r3;
    .param .b32 param1;
    st.param.b32 [param1], 3;
    .param .b32 retval0;
    prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);
    call (retval0), %rd5, (param0, param1), prototype_0;
    ld.param.b32 %r4, [retval0];
  }
  mov.u64 %rd6, mul;
  { .param .b32 param0;
    st.param.b32 [param0], %r3;
    .param .b32 param1;
    st.param.b32 [param1], 3;
    .param .b32 retval0;
    prototype_1 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);
    call (retval0), %rd6, (param0, param1), prototype_1;
    ld.param.b32 %r5, [retval0];
  }
  mul.wide.u32 %rd7, %r1, 8;
  add.s64 %rd8, %rd1, %rd7;
  st.global.v2.u32 [%rd8], {%r4, %r5};
  ret;
}
)";

std::vector<uint32_t> run_pointers(uint32_t bad) {
  ptx::Device dev;
  dev.load(ptx::parse(std::string(kHead) + kPointers, "pointers.ptx"));
  const uint64_t out = dev.malloc(4 * 8, "out");
  std::vector<uint8_t> params(12);
  std::memcpy(params.data(), &out, 8);
  std::memcpy(params.data() + 8, &bad, 4);
  trace::Trace t;
  trace::Builder b(t);
  dev.launch({"k", {1, 1, 1}, {4, 1, 1}, 0, params}, b);
  std::vector<uint32_t> words(8);
  REQUIRE(dev.to_host(words.data(), out, 4 * 8));
  return words;
}

}  // namespace

TEST_CASE("calls through registers: a table of function addresses, an address taken by mov") {
  // Lane t: ops[t % 2](t + 10, 3), then mul(t + 10, 3).
  CHECK(run_pointers(0) == std::vector<uint32_t>{13, 30, 8, 33, 15, 36, 10, 39});
  // The table holds the addresses the module gives its functions: add first, sub second.
  const ptx::Module m = ptx::parse(std::string(kHead) + kPointers, "pointers.ptx");
  REQUIRE(m.taken.size() == 4);
  CHECK(m.taken[0] == "add");
  CHECK(m.taken[1] == "sub");
  uint64_t table[2];
  std::memcpy(table, m.globals[0].init.data(), 16);
  CHECK(table[0] == ptx::kFunctionBase);
  CHECK(table[1] == ptx::kFunctionBase + 16);
  CHECK_THROWS_WITH_AS(run_pointers(1), "kernel k: PTX line 68: a call through a pointer that holds no function's address (0x0)",
                       ptx::Fault);
  CHECK_THROWS_WITH_AS(run_pointers(2), "kernel k: PTX line 68: a call through a pointer with 2 argument(s) to one, which takes 1",
                       ptx::Fault);
}

namespace {

// A grid-wide barrier as cooperative groups' this_grid().sync() compiles (CUDA 13): the
// workspace's address from %envreg2 (low) and %envreg1 (high), a trap when it is null, then
// each block's thread 0 adds itself at [workspace+4] (block 0 adds 0x80000001 - blocks, so
// that the last arrival flips the sign bit) and spins until the sign differs from what it
// saw. Before the barrier thread g writes g + 1 to a[g]; after it, b[g] = a[(g + 64) % n]:
// a value another block wrote.
const char* kGridSync = R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %envreg2;
  cvt.u64.u32 %rd2, %r1;
  mov.u32 %r2, %envreg1;
  cvt.u64.u32 %rd3, %r2;
  bfi.b64 %rd4, %rd3, %rd2, 32, 32;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mov.u32 %r6, %nctaid.x;
  mad.lo.s32 %r7, %r4, %r5, %r3;
  mul.lo.s32 %r8, %r5, %r6;
  add.s32 %r9, %r7, 1;
  mul.wide.u32 %rd5, %r7, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %r9;
  setp.ne.s64 %p1, %rd4, 0;
  @%p1 bra ARRIVE;
  trap;
ARRIVE:
  barrier.sync 0;
  setp.ne.s32 %p2, %r3, 0;
  @%p2 bra AFTER;
  add.s64 %rd7, %rd4, 4;
  setp.eq.s32 %p3, %r4, 0;
  mov.u32 %r10, -2147483647;
  sub.s32 %r11, %r10, %r6;
  selp.b32 %r12, %r11, 1, %p3;
  atom.add.release.gpu.u32 %r13, [%rd7], %r12;
SPIN:
  ld.acquire.gpu.u32 %r14, [%rd7];
  xor.b32 %r15, %r14, %r13;
  setp.gt.s32 %p3, %r15, -1;
  @%p3 bra SPIN;
AFTER:
  barrier.sync 0;
  add.s32 %r16, %r7, 64;
  rem.u32 %r17, %r16, %r8;
  mul.wide.u32 %rd8, %r17, 4;
  add.s64 %rd9, %rd1, %rd8;
  ld.global.u32 %r18, [%rd9];
  cvt.u64.u32 %rd10, %r8;
  shl.b64 %rd10, %rd10, 2;
  add.s64 %rd11, %rd6, %rd10;
  st.global.u32 [%rd11], %r18;
  ret;
}
)";

std::vector<uint32_t> run_grid(bool cooperative, uint64_t record_first = 0) {
  ptx::Device dev;
  dev.load(ptx::parse(std::string(kHead) + kGridSync, "grid.ptx"));
  dev.record_launches(record_first);
  const uint32_t n = 4 * 64;
  const uint64_t out = dev.malloc(2 * n * 4, "out");
  std::vector<uint8_t> params(8);
  std::memcpy(params.data(), &out, 8);
  trace::Trace t;
  trace::Builder b(t);
  ptx::KernelLaunch l{"k", {4, 1, 1}, {64, 1, 1}, 0, params};
  l.cooperative = cooperative;
  dev.launch(l, b);
  if (record_first) dev.launch(l, b);  // the second launch runs unrecorded
  std::vector<uint32_t> words(2 * n);
  REQUIRE(dev.to_host(words.data(), out, 2 * n * 4));
  return std::vector<uint32_t>(words.begin() + n, words.end());
}

}  // namespace

TEST_CASE("a cooperative launch: every block resident, a grid-wide barrier waits for all of them") {
  // b[g] = a[(g + 64) % 256] = (g + 64) % 256 + 1: written by the next block, which has not
  // run yet when blocks run one after another.
  std::vector<uint32_t> want(256);
  for (uint32_t g = 0; g < 256; ++g) want[g] = (g + 64) % 256 + 1;
  CHECK(run_grid(true) == want);
  CHECK(run_grid(true, 1) == want);  // recorded, then unrecorded
  // Outside a cooperative launch the workspace is null and the kernel traps, as on a GPU.
  CHECK_THROWS_WITH_AS(run_grid(false),
                       "kernel k: trap at PTX line 29: a grid-wide sync outside a cooperative launch "
                       "(cudaLaunchCooperativeKernel)",
                       ptx::Fault);
}
