// tests/ptx/test_clusters.cpp — thread block clusters on the emulated device (grid.cpp):
// each cluster's CTAs resident together, %cluster_* registers, mapa and loads of another
// CTA's shared memory, the cluster barrier, launches refused in one line; and the { }
// blocks of PTX, whose labels and registers are their own (two expansions of one inline
// asm each jump to their own LAB_WAIT).
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "ptx/machine.h"
#include "ptx/ptx.h"

using namespace ws;

namespace {

std::vector<uint32_t> run_one(const char* text, trace::Dim3 grid, trace::Dim3 cluster, size_t words) {
  ptx::Device dev;
  dev.load(ptx::parse(text, "clusters.ptx"));
  const uint64_t out = dev.malloc(words * 4, "out");
  dev.memset(out, 0xff, words * 4);
  const ptx::Kernel& k = dev.module().kernels.at(0);
  ptx::KernelLaunch la{k.name, grid, {1, 1, 1}, 0, std::vector<uint8_t>(k.param_bytes, 0)};
  la.cluster = cluster;
  std::memcpy(la.params.data(), &out, 8);
  trace::Trace t;
  trace::Builder b(t);
  dev.launch(la, b);
  std::vector<uint32_t> got(words);
  REQUIRE(dev.to_host(got.data(), out, words * 4));
  return got;
}

// Each CTA stores its %ctaid.x in shared memory, waits at the cluster barrier, reads its
// partner's (rank ^ 1) through mapa and writes its rank and what it read.
const char* kPartner = R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry partner(.param .u64 out) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 sm[4];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, sm;
  st.shared.u32 [%r3], %r2;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  xor.b32 %r4, %r1, 1;
  mapa.shared::cluster.u32 %r5, %r3, %r4;
  ld.shared::cluster.u32 %r6, [%r5];
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  mov.u32 %r7, %nclusterid.x;
  mul.wide.u32 %rd2, %r2, 12;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  st.global.u32 [%rd3+4], %r6;
  st.global.u32 [%rd3+8], %r7;
  ret;
}
)";

}  // namespace

TEST_CASE("a cluster's CTAs read each other's shared memory after the cluster barrier: rank, partner, cluster count") {
  const std::vector<uint32_t> got = run_one(kPartner, {6, 1, 1}, {2, 1, 1}, 18);
  for (uint32_t b = 0; b < 6; ++b) {
    CHECK(got[b * 3] == b % 2);        // %cluster_ctarank
    CHECK(got[b * 3 + 1] == (b ^ 1));  // the partner's %ctaid.x, read from its shared memory
    CHECK(got[b * 3 + 2] == 3);        // %nclusterid.x
  }
  // Without clusters every CTA is a cluster of one: rank 0, and mapa to rank 1 faults.
  CHECK_THROWS_WITH_AS(run_one(kPartner, {2, 1, 1}, {1, 1, 1}, 6), doctest::Contains("shared memory of CTA rank 1 (the cluster has 1)"),
                       ptx::Fault);
}

TEST_CASE("a launch whose clusters cannot be is refused in one line") {
  CHECK_THROWS_WITH_AS(run_one(kPartner, {3, 1, 1}, {2, 1, 1}, 9), doctest::Contains("not a whole number of clusters"), ptx::Refused);
  CHECK_THROWS_WITH_AS(run_one(kPartner, {32, 1, 1}, {32, 1, 1}, 96), doctest::Contains("at most 16"), ptx::Refused);
}

TEST_CASE("labels and registers of a { } block are its own: two copies of one inline asm loop each in its own block") {
  const char* text = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry blocks(.param .u64 out) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 0;
  mov.u32 %r2, 7;
  {
  .reg .pred P;
  .reg .b32 %r2;
  mov.u32 %r2, 99;
  LOOP:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 P, %r1, 3;
  @P bra LOOP;
  bra DONE;
  mov.u32 %r1, 100;
  DONE:
  }
  {
  .reg .pred P;
  LOOP:
  add.u32 %r1, %r1, 10;
  setp.lt.u32 P, %r1, 33;
  @P bra LOOP;
  bra DONE;
  mov.u32 %r1, 200;
  DONE:
  }
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  ret;
}
)";
  const std::vector<uint32_t> got = run_one(text, {1, 1, 1}, {1, 1, 1}, 2);
  CHECK(got[0] == 33);  // 3 in the first block's loop, then 13, 23, 33 in the second's
  CHECK(got[1] == 7);   // the outer %r2: the block's own %r2 was another register
}
