// tests/ptx/test_uniform.cpp — which registers are uniform by construction, seen through what
// it makes of an atomic (ptx/uniform.h): hand-written kernels whose atom / red instructions
// each get the path worked out from the rule (uniform sources only, no divergent guard,
// several definitions only without a divergent branch), then a warp run on the emulated
// device whose sites carry those paths into the trace and the report.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "ptx/uniform.h"

using namespace ws;
using trace::AtomicPath;

namespace {

std::string kernel(const std::string& body) {
  return R"(.version 8.0
.target sm_90
.address_size 64
.const .align 4 .b8 table[64];
.visible .entry probe(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<32>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<16>;
  .shared .align 4 .b8 sh[128];
  ld.param.u64 %rd0, [out];
  cvta.to.global.u64 %rd1, %rd0;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, sh;
)" + body + R"(
  ret;
}
)";
}

// The path of each atom / red of `body`, in order.
std::vector<AtomicPath> paths(const std::string& body) {
  const ptx::Module m = ptx::parse(kernel(body), "probe.ptx");
  const ptx::Kernel& k = m.kernels.at(0);
  const std::vector<uint8_t> u = ptx::uniform_registers(k);
  std::vector<AtomicPath> out;
  for (const ptx::Insn& in : k.code)
    if (in.op == ptx::Opc::Atom || in.op == ptx::Opc::Red) out.push_back(ptx::atomic_path(k, in, u));
  return out;
}

using V = std::vector<AtomicPath>;
constexpr AtomicPath kLane = AtomicPath::PerLane, kInc = AtomicPath::Increment, kOne = AtomicPath::Combined;

}  // namespace

TEST_CASE("global: an address from a parameter and %ctaid is combined, one from %tid or memory is not") {
  CHECK(paths(R"(
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  red.global.add.u32 [%rd3], %r1;          // blockIdx: uniform
  atom.global.add.u32 %r5, [%rd3], %r1;    // its result never read: as red
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  red.global.add.u32 [%rd5], %r1;          // threadIdx: one address per lane
  ld.global.u32 %r6, [%rd1];
  mul.wide.u32 %rd6, %r6, 4;
  add.s64 %rd7, %rd1, %rd6;
  red.global.add.u32 [%rd7], 1;            // read from memory: lanes may share it, or not
  ld.param.u32 %r7, [n];
  mul.wide.u32 %rd8, %r7, 4;
  add.s64 %rd9, %rd1, %rd8;
  red.global.add.u32 [%rd9], %r1;          // a parameter
)") == V{kOne, kOne, kLane, kLane, kOne});
}

TEST_CASE("shared: an add of 1 is ATOMS.POPC.INC; a uniform address is combined unless each lane needs its old value") {
  CHECK(paths(R"(
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r3, %r4;
  atom.shared.add.u32 %r6, [%r5], 1;       // per-lane address, constant 1
  atom.shared.add.u32 %r7, [%r5], 2;       // constant 2: no POPC.INC
  atom.shared.add.u32 %r8, [%r5], %r1;
  atom.shared.add.u32 %r9, [sh], %r1;      // the array's own address, result unused
  atom.shared.add.u32 %r10, [%r3+8], %r1;  // a uniform base and an offset
  atom.shared.add.u32 %r11, [sh+4], %r1;   // result read below: each lane's old value
  atom.shared.add.u32 %r12, [sh+4], 1;     // result read below, but a constant: POPC gives each lane's
  add.s32 %r13, %r11, %r12;
  st.shared.u32 [%r5], %r13;
)") == V{kInc, kLane, kLane, kOne, kOne, kLane, kOne});
}

TEST_CASE("only a 32-bit integer add is combined or counted") {
  CHECK(paths(R"(
  atom.shared.add.f32 %f1, [sh], 0f3F800000;
  atom.shared.max.u32 %r4, [sh], %r1;
  atom.shared.exch.b32 %r5, [sh], %r1;
  atom.shared.add.u64 %rd2, [sh], 1;
  atom.global.add.u32 %r6, [%rd1], %r1;
  atom.shared.inc.u32 %r7, [sh], 100;
  atom.add.u32 %r8, [%rd1], 1;             // generic, uniform: combined
  cvt.u64.u32 %rd3, %r1;
  add.s64 %rd4, %rd1, %rd3;
  atom.add.u32 %r9, [%rd4], 1;             // generic, per lane: no POPC.INC outside .shared
)") == V{kLane, kLane, kLane, kLane, kOne, kLane, kOne, kLane});
}

TEST_CASE("a guard or a branch on a lane's own value makes a register divergent") {
  // A definition guarded by a per-lane predicate: lanes keep different values.
  CHECK(paths(R"(
  mov.u32 %r4, 0;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 mov.u32 %r4, 8;
  add.s32 %r6, %r3, %r4;
  atom.shared.add.u32 %r5, [%r6], %r1;
)") == V{kLane});
  // The same on a uniform predicate: every lane takes the same definition.
  CHECK(paths(R"(
  mov.u32 %r4, 0;
  setp.lt.u32 %p1, %r2, 16;
  @%p1 mov.u32 %r4, 8;
  add.s32 %r6, %r3, %r4;
  atom.shared.add.u32 %r5, [%r6], %r1;
)") == V{kOne});
  // Two definitions on the two sides of a divergent branch meet at the atomic.
  CHECK(paths(R"(
  mov.u32 %r4, 0;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra DONE;
  mov.u32 %r4, 8;
DONE:
  add.s32 %r6, %r3, %r4;
  atom.shared.add.u32 %r5, [%r6], %r1;
)") == V{kLane});
  // A loop counting alike in every lane (a uniform exit) keeps its counter uniform.
  CHECK(paths(R"(
  mov.u32 %r4, 0;
LOOP:
  shl.b32 %r6, %r4, 2;
  add.s32 %r7, %r3, %r6;
  atom.shared.add.u32 %r5, [%r7], %r1;
  add.s32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, 8;
  @%p1 bra LOOP;
)") == V{kOne});
  // Its exit on a lane's own value: lanes leave after different counts.
  CHECK(paths(R"(
  mov.u32 %r4, 0;
LOOP:
  shl.b32 %r6, %r4, 2;
  add.s32 %r7, %r3, %r6;
  atom.shared.add.u32 %r5, [%r7], %r1;
  add.s32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, %r1;
  @%p1 bra LOOP;
)") == V{kLane});
}

TEST_CASE("uniform sources: parameters, the constant bank at a uniform address, %ntid; not shuffles or %laneid") {
  CHECK(paths(R"(
  ld.const.u32 %r4, [table+4];
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  red.global.add.u32 [%rd3], %r1;          // the constant bank: uniform
  mov.u32 %r5, %ntid.x;
  mul.wide.u32 %rd4, %r5, 4;
  add.s64 %rd5, %rd1, %rd4;
  red.global.add.u32 [%rd5], %r1;
  ld.global.nc.u32 %r6, [%rd1];
  mul.wide.u32 %rd6, %r6, 4;
  add.s64 %rd7, %rd1, %rd6;
  red.global.add.u32 [%rd7], %r1;          // read-only global memory: not proven
  shfl.sync.idx.b32 %r7, %r2, 0, 31, -1;
  mul.wide.u32 %rd8, %r7, 4;
  add.s64 %rd9, %rd1, %rd8;
  red.global.add.u32 [%rd9], %r1;          // a shuffle's result: not proven
  mov.u32 %r8, %laneid;
  mul.wide.u32 %rd10, %r8, 4;
  add.s64 %rd11, %rd1, %rd10;
  red.global.add.u32 [%rd11], %r1;
  mul.wide.u32 %rd12, %r30, 4;
  add.s64 %rd13, %rd1, %rd12;
  red.global.add.u32 [%rd13], %r1;         // %r30 is never written
)") == V{kOne, kOne, kLane, kLane, kLane, kLane});
}

TEST_CASE("a warp on the emulated device: the sites carry their paths, the report the H100's figures") {
  const std::string ptx = kernel(R"(
  ld.global.u32 %r4, [%rd1];               // 0: every lane the same word, found at run time
  shl.b32 %r5, %r4, 2;
  add.s32 %r6, %r3, %r5;
  atom.shared.add.u32 %r7, [%r6], 1;       // ATOMS.POPC.INC: 1 wavefront
  atom.shared.add.u32 %r8, [%r6], %r1;     // lanes take turns: 32 wavefronts
  atom.shared.add.u32 %r9, [sh+8], %r1;    // combined: 1 wavefront
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  red.global.add.u32 [%rd3+64], 1;         // lanes take turns: 32 sectors
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  red.global.add.u32 [%rd5+128], %r1;      // 32 consecutive ints: 4 sectors
  red.global.add.u32 [%rd1+256], %r1;      // combined: 1 sector
)");
  ptx::Device dev;
  dev.load(ptx::parse(ptx, "probe.ptx"));
  const uint64_t out = dev.malloc(512, "out");
  std::vector<uint8_t> zeros(512, 0);
  REQUIRE(dev.to_device(out, zeros.data(), zeros.size()));
  std::vector<uint8_t> params(12, 0);
  std::memcpy(params.data(), &out, 8);
  trace::Trace t;
  trace::Builder b(t);
  dev.launch({"probe", {1, 1, 1}, {32, 1, 1}, 0, params}, b);
  const analysis::Report rep = analysis::analyze(t, analysis::DramModel{});
  std::vector<std::pair<AtomicPath, double>> got;
  for (const analysis::SiteStats& s : rep.sites) {
    const trace::Site& site = t.sites[s.site];
    if (site.op != trace::Op::Atomic) continue;
    got.emplace_back(site.atomic, site.space == trace::Space::Shared ? s.wavefronts_per_request : s.sectors_per_request);
  }
  using P = std::vector<std::pair<AtomicPath, double>>;
  CHECK(got == P{{kInc, 1}, {kLane, 32}, {kOne, 1}, {kLane, 32}, {kLane, 4}, {kOne, 1}});
  // And the sums are right: lanes 0..31 add 0..31 = 496.
  std::vector<uint32_t> w(128);
  REQUIRE(dev.to_host(w.data(), out, 512));
  CHECK(w[16] == 32);   // red [word 0 + 64 B] of 1, 32 lanes
  CHECK(w[33] == 1);    // lane 1 added 1 to word 32 + 1
  CHECK(w[64] == 496);  // combined: every lane's value
}
