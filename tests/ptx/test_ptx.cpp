// The PTX interpreter on PTX nvcc wrote for tests/programs (fixtures/, `nvcc -ptx -lineinfo
// -O3 -arch=sm_90`): results equal to the CPU's, records a student can count on paper.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>

#include "analysis/analysis.h"
#include "ptx/machine.h"
#include "ptx/ptx.h"

using namespace ws;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream f("tests/ptx/fixtures/" + name, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), "missing fixture " << name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

template <class... T>
std::vector<uint8_t> pack(const ptx::Kernel& k, T... args) {
  std::vector<uint8_t> p(k.param_bytes, 0);
  const std::vector<uint64_t> vals{uint64_t(args)...};
  REQUIRE(vals.size() == k.params.size());
  for (size_t i = 0; i < vals.size(); ++i) std::memcpy(p.data() + k.params[i].offset, &vals[i], k.params[i].bytes);
  return p;
}

}  // namespace

TEST_CASE("the decoder reads nvcc's PTX: kernels, parameters, shared arrays, source positions") {
  ptx::Module m = ptx::parse(fixture("transpose.ptx"), "transpose.ptx");
  REQUIRE(m.kernels.size() == 3);
  const ptx::Kernel* tiled = m.kernel("_Z14transposeTiledILi1EEvPfPKfi");
  REQUIRE(tiled);
  CHECK(tiled->params.size() == 3);
  CHECK(tiled->param_bytes == 20);  // two pointers and an int
  REQUIRE(tiled->shared.size() == 1);
  CHECK(tiled->shared[0].bytes == 32 * 33 * 4);
  // Every memory instruction carries the line of the program that wrote it.
  int loads = 0;
  for (const ptx::Insn& in : tiled->code)
    if (in.op == ptx::Opc::Ld && in.space == ptx::Space::Shared) {
      ++loads;
      CHECK(in.line == 24);  // out[y * n + x] = tile[threadIdx.x][threadIdx.y];
      CHECK(in.opcode == "ld.shared.f32");
    }
  CHECK(loads == 1);
  CHECK(m.files.at(1).find("transpose.cu") != std::string::npos);
}

TEST_CASE("an instruction the interpreter lacks is refused with its line, at its kernel's launch") {
  ptx::Device dev;
  dev.load(ptx::parse(".version 9.0\n.entry k() {\n tex.2d.v4.f32.f32 %f1, [t, {%f2}];\n}\n", "bad.ptx"));
  CHECK(dev.module().kernels.at(0).refused == "bad.ptx:3: tex.2d.v4.f32.f32: the instruction tex is not implemented");
  trace::Trace t;
  trace::Builder b(t);
  CHECK_THROWS_WITH_AS(dev.launch({"k", {1, 1, 1}, {1, 1, 1}, 0, {}}, b),
                       "kernel k cannot run: bad.ptx:3: tex.2d.v4.f32.f32: the instruction tex is not implemented",
                       ptx::Refused);
  // Text that is not PTX at all is still refused whole.
  CHECK_THROWS_AS(ptx::parse(".version 9.0\n.entry k( {\n", "bad.ptx"), ptx::Error);
}

TEST_CASE("vector add: every element right; 4-byte loads of 32 lanes, the tail warp masked") {
  ptx::Device dev;
  dev.load(ptx::parse(fixture("vector_add.ptx")));
  const int n = 1000;
  std::vector<float> a(n), b(n), c(n, -1);
  std::iota(a.begin(), a.end(), 0.0f);
  for (int i = 0; i < n; ++i) b[i] = 2.0f * i;
  const uint64_t da = dev.malloc(n * 4, "d_a"), db = dev.malloc(n * 4, "d_b"), dc = dev.malloc(n * 4, "d_c");
  REQUIRE(dev.to_device(da, a.data(), n * 4));
  REQUIRE(dev.to_device(db, b.data(), n * 4));
  const ptx::Kernel& k = dev.module().kernels.at(0);
  trace::Trace t;
  trace::Builder bld(t);
  ptx::KernelLaunch la{k.name, {4, 1, 1}, {256, 1, 1}, 0, pack(k, da, db, dc, n)};
  const uint64_t lanes = dev.launch(la, bld);
  REQUIRE(dev.to_host(c.data(), dc, n * 4));
  for (int i = 0; i < n; ++i) REQUIRE(c[i] == 3.0f * i);
  CHECK(lanes == 3 * n);                       // two loads and a store per element
  CHECK(t.records.size() == 3 * 32);           // 32 warps, 1000/32 -> 31.25: the last warp has 8 lanes
  CHECK(t.launches.size() == 1);
  CHECK(t.launches[0].blocks.size() == 4);
  CHECK(t.buffers.size() == 3);
  CHECK(t.buffers[2].name == "d_c");
  const trace::Record& last = t.records.back();
  CHECK(last.active == 0xffu);                 // elements 992..999
  CHECK(t.sites.size() == 3);
  for (const trace::Site& s : t.sites) {
    CHECK(s.line == 9);
    CHECK(s.bytes == 4);
  }
  const analysis::Report r = analysis::analyze(t, analysis::DramModel{});
  for (const analysis::SiteStats& s : r.sites) CHECK(s.sectors_per_request == doctest::Approx((31 * 4 + 1) / 32.0));
}

TEST_CASE("tiled transpose: 32-way bank conflicts on the column read, none with TILE+1") {
  ptx::Device dev;
  dev.load(ptx::parse(fixture("transpose.ptx")));
  const int n = 64;
  std::vector<float> in(n * n), out(n * n);
  std::iota(in.begin(), in.end(), 0.0f);
  const uint64_t din = dev.malloc(n * n * 4, "d_in"), dout = dev.malloc(n * n * 4, "d_out");
  REQUIRE(dev.to_device(din, in.data(), n * n * 4));
  for (int pad = 0; pad <= 1; ++pad) {
    const ptx::Kernel& k = *dev.module().kernel(pad ? "_Z14transposeTiledILi1EEvPfPKfi" : "_Z14transposeTiledILi0EEvPfPKfi");
    trace::Trace t;
    trace::Builder bld(t);
    dev.memset(dout, 0, n * n * 4);
    dev.launch({k.name, {2, 2, 1}, {32, 32, 1}, 0, pack(k, dout, din, n)}, bld);
    REQUIRE(dev.to_host(out.data(), dout, n * n * 4));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) REQUIRE(out[j * n + i] == in[i * n + j]);
    const analysis::Report r = analysis::analyze(t, analysis::DramModel{});
    bool found = false;
    for (const analysis::SiteStats& s : r.sites) {
      const trace::Site& site = t.sites[s.site];
      if (site.space != trace::Space::Shared || site.op != trace::Op::Load) continue;
      found = true;
      CHECK(site.instruction == "ld.shared.f32");
      CHECK(t.buffers[site.buffer].name == "transposeTiled::tile");
      CHECK(s.max_way == (pad ? 1u : 32u));
    }
    CHECK(found);
    // The barrier splits every block's records into two epochs.
    uint32_t max_epoch = 0;
    for (const trace::Record& rec : t.records) max_epoch = std::max(max_epoch, rec.epoch);
    CHECK(max_epoch == 1);
  }
}

TEST_CASE("reduction: divergent tree, shuffles, an atomic per block; the sum is right") {
  ptx::Device dev;
  dev.load(ptx::parse(fixture("reduce.ptx")));
  const int n = 5000, threads = 128;
  std::vector<int> h(n);
  long long want = 0;
  for (int i = 0; i < n; ++i) want += (h[i] = i % 7 - 3);
  const uint64_t din = dev.malloc(n * 4, "d_in"), dtot = dev.malloc(4, "d_total");
  REQUIRE(dev.to_device(din, h.data(), n * 4));
  const ptx::Kernel& k = dev.module().kernels.at(0);
  trace::Trace t;
  trace::Builder bld(t);
  const uint32_t blocks = (n + threads * 2 - 1) / (threads * 2);
  dev.launch({k.name, {blocks, 1, 1}, {threads, 1, 1}, threads * 4, pack(k, din, dtot, n)}, bld);
  int got = 0;
  REQUIRE(dev.to_host(&got, dtot, 4));
  CHECK(got == want);
  // One atomic per block, from lane 0 of warp 0, attributed to the program's line 23.
  int atomics = 0;
  for (const trace::Record& r : t.records)
    if (t.sites[r.site].op == trace::Op::Atomic) {
      ++atomics;
      CHECK(r.active == 1u);
      CHECK(t.sites[r.site].line == 23);
    }
  CHECK(atomics == int(blocks));
}

TEST_CASE("an access outside every array is a fault naming the array, not a crash") {
  ptx::Device dev;
  dev.load(ptx::parse(fixture("vector_add.ptx")));
  const uint64_t da = dev.malloc(64 * 4, "d_a"), db = dev.malloc(64 * 4, "d_b"), dc = dev.malloc(64 * 4, "d_c");
  const ptx::Kernel& k = dev.module().kernels.at(0);
  trace::Trace t;
  trace::Builder bld(t);
  // n says 100 but the arrays hold 64.
  CHECK_THROWS_AS(dev.launch({k.name, {1, 1, 1}, {128, 1, 1}, 0, pack(k, da, db, dc, 100)}, bld), ptx::Fault);
  try {
    dev.launch({k.name, {1, 1, 1}, {128, 1, 1}, 0, pack(k, da, db, dc, 100)}, bld);
  } catch (const ptx::Fault& f) {
    CHECK(std::string(f.what()).find("out-of-bounds access to 'd_") != std::string::npos);
  }
}

TEST_CASE("a kernel's name as the views show it: templates kept, the unnamed namespace and the signature left out") {
  CHECK(ptx::kernel_name("_Z14transposeTiledILi1EEvPfPKfi") == "transposeTiled<1>");
  CHECK(ptx::kernel_name("_ZN12_GLOBAL__N_15copy4EPK6float4PS0_m") == "copy4");  // was "": the "(" ended it
  CHECK(ptx::kernel_name("_ZN2ws4demo6kernelEPf") == "ws::demo::kernel");
  CHECK(ptx::kernel_name("plain_c_name") == "plain_c_name");
}
