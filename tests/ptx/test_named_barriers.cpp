// tests/ptx/test_named_barriers.cpp — named barriers for part of a block (bar.sync and
// bar.arrive with a thread count), as warp-specialized kernels use them: producer warps
// arrive without waiting, consumer warps wait for them and then among themselves; a barrier
// that can never open is a deadlock, said in one line.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "ptx/machine.h"
#include "ptx/ptx.h"

using namespace ws;

namespace {

std::vector<uint32_t> run_block(const char* body, uint32_t threads, size_t words) {
  const std::string text = std::string(R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 sm[512];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sm;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
)") + body + "\n  ret;\n}\n";
  ptx::Device dev;
  dev.load(ptx::parse(text, "named.ptx"));
  const uint64_t out = dev.malloc(words * 4, "out");
  dev.memset(out, 0, words * 4);
  const ptx::Kernel& k = dev.module().kernels.at(0);
  ptx::KernelLaunch la{k.name, {1, 1, 1}, {threads, 1, 1}, 0, std::vector<uint8_t>(k.param_bytes, 0)};
  std::memcpy(la.params.data(), &out, 8);
  trace::Trace t;
  trace::Builder b(t);
  dev.launch(la, b);
  std::vector<uint32_t> got(words);
  REQUIRE(dev.to_host(got.data(), out, words * 4));
  return got;
}

}  // namespace

TEST_CASE("named barriers: two producer warps arrive, two consumer warps wait for them, then sync among themselves") {
  // Threads 0-63 store 3·tid and arrive at barrier 1 (128 threads: all four warps); threads
  // 64-127 wait there, read the producer word tid - 64, sync at barrier 2 (their 64 alone)
  // and read their neighbour consumer's word, written before barrier 2.
  const std::vector<uint32_t> got = run_block(R"(
  setp.ge.u32 %p1, %r1, 64;
  @%p1 bra CONSUMER;
  mul.lo.u32 %r5, %r1, 3;
  st.shared.u32 [%r4], %r5;
  bar.arrive 1, 128;
  bra.uni END;
CONSUMER:
  bar.sync 1, 128;
  ld.shared.u32 %r6, [%r4+-256];
  st.shared.u32 [%r4], %r6;
  bar.sync 2, 64;
  xor.b32 %r7, %r1, 1;
  shl.b32 %r8, %r7, 2;
  add.u32 %r9, %r2, %r8;
  ld.shared.u32 %r10, [%r9];
  sub.u32 %r11, %r1, 64;
  mul.wide.u32 %rd2, %r11, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
END:)", 128, 64);
  for (uint32_t i = 0; i < 64; ++i) CHECK(got[i] == 3 * (i ^ 1));
}

TEST_CASE("a warp freed by a named barrier that opens after its turn runs on: no deadlock is seen") {
  // Warps 0 and 1 wait at barrier 1 (128 threads: warps 0-3). Warp 2 waits at barrier 3
  // (64), which warp 3 opens by arriving there after warp 2's turn, then waits at barrier 1
  // too: warp 2, free again, is the last one barrier 1 needs. (CUTLASS's ping-pong epilogue meets this
  // order: its warps released by one named barrier, one of them already at the next.)
  // Each thread then writes the word of the thread 32 above it, stored before barrier 1. A
  // fifth warp leaves at once, so that barrier 1 is a named barrier for part of the block.
  const std::vector<uint32_t> got = run_block(R"(
  setp.ge.u32 %p3, %r1, 128;
  @%p3 bra END;
  mul.lo.u32 %r5, %r1, 7;
  st.shared.u32 [%r4], %r5;
  shr.u32 %r6, %r1, 5;
  setp.eq.u32 %p1, %r6, 2;
  @%p1 bar.sync 3, 64;
  setp.eq.u32 %p2, %r6, 3;
  @%p2 bar.arrive 3, 64;
  bar.sync 1, 128;
  add.u32 %r7, %r1, 32;
  and.b32 %r7, %r7, 127;
  shl.b32 %r8, %r7, 2;
  add.u32 %r9, %r2, %r8;
  ld.shared.u32 %r10, [%r9];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
END:)", 160, 128);
  for (uint32_t i = 0; i < 128; ++i) CHECK(got[i] == 7 * ((i + 32) % 128));
}

TEST_CASE("a named barrier that can never open is a deadlock; a count that is not whole warps is refused") {
  // Warp 0 waits for 64 threads of the block's 96; warps 1 and 2 exit: on a GPU the block hangs.
  CHECK_THROWS_WITH_AS(run_block(R"(
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra END;
  bar.sync 1, 64;
END:)", 96, 1),
                       doctest::Contains("a deadlock: every warp of block 0 waits, 32 of the 64 threads named barrier 1"),
                       ptx::Fault);
  // The line says where each warp stands: warp 0 at its barrier, the others gone.
  std::string what;
  try {
    run_block(R"(
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra END;
  bar.sync 1, 64;
END:)", 96, 1);
  } catch (const ptx::Fault& f) {
    what = f.what();
  }
  CHECK(what.find("reached it (warp 0 at PTX line ") != std::string::npos);
  CHECK(what.find(" (bar.sync), warps 1-2 exited)") != std::string::npos);
  CHECK_THROWS_WITH_AS(run_block("  bar.sync 1, 48;", 64, 1), doctest::Contains("a thread count of 48"), ptx::Fault);
}
