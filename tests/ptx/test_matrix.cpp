// tests/ptx/test_matrix.cpp — the warp-collective matrix instructions: fragment placement
// as the PTX ISA's figures draw it (worked out by hand for chosen lanes; the same formulas
// run on an H100 in tests/programs/matrix/fragments.cu), ldmatrix's registers and its one
// Form::Matrix record with the wavefronts the shared-memory model gives it, mma.sync's
// product and its event, and what is refused in one line.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "ptx/machine.h"
#include "ptx/matrix.h"
#include "ptx/ptx.h"

using namespace ws;
namespace mx = ws::ptx::matrix;

namespace {

mx::Info info_of(const std::string& opcode) {
  std::vector<std::string> parts;
  size_t at = 0;
  for (size_t dot; (dot = opcode.find('.', at)) != std::string::npos; at = dot + 1) parts.push_back(opcode.substr(at, dot - at));
  parts.push_back(opcode.substr(at));
  mx::Info i;
  REQUIRE(mx::decode(parts, i) == "");
  return i;
}

bool at(mx::At a, uint32_t r, uint32_t c) { return a.row == r && a.col == c; }

// One kernel `k(out, in, pitch)` of one warp built around `body`; returns the trace and the
// `n` words it wrote at out.
struct Run {
  trace::Trace t;
  std::vector<uint32_t> out;
};
Run run_warp(const std::string& body, size_t n, const std::vector<uint32_t>& in = {}, uint32_t pitch = 16) {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 pitch)
{
  .reg .pred %p<4>;
  .reg .b32 %r<64>;
  .reg .f32 %f<32>;
  .reg .b64 %rd<16>;
  .shared .align 16 .b8 tile[4096];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.u64 %rd5, [in];
  cvta.to.global.u64 %rd6, %rd5;
  ld.param.u32 %r30, [pitch];
  mov.u32 %r1, %tid.x;
)" + body + R"(
  ret;
}
)";
  ptx::Device dev;
  dev.load(ptx::parse(ptx, "k.ptx"));
  const uint64_t out = dev.malloc(n * 4, "out");
  const uint64_t inp = dev.malloc(std::max<size_t>(4, in.size() * 4), "in");
  if (!in.empty()) dev.to_device(inp, in.data(), in.size() * 4);
  std::vector<uint8_t> params(20);
  std::memcpy(params.data(), &out, 8);
  std::memcpy(params.data() + 8, &inp, 8);
  std::memcpy(params.data() + 16, &pitch, 4);
  Run r;
  trace::Builder b(r.t);
  dev.launch({"k", {1, 1, 1}, {32, 1, 1}, 0, params}, b);
  r.out.resize(n);
  REQUIRE(dev.to_host(r.out.data(), out, n * 4));
  return r;
}

// Lane l writes row l of the tile (`pitch` bytes apart): the 16-bit values 8l .. 8l+7, so
// that matrix m, row r, column c holds (8m + r) * 8 + c.
const char* kFill = R"(
  shl.b32 %r2, %r1, 3;
  mul.lo.u32 %r3, %r2, 65537;
  add.u32 %r4, %r3, 65536;
  add.u32 %r5, %r3, 196610;
  add.u32 %r6, %r3, 327684;
  add.u32 %r7, %r3, 458758;
  mul.lo.u32 %r8, %r1, %r30;
  mov.u32 %r9, tile;
  add.u32 %r10, %r9, %r8;
  st.shared.v4.b32 [%r10], {%r4, %r5, %r6, %r7};
  bar.sync 0;
  mul.wide.u32 %rd3, %r1, 24;
  add.s64 %rd4, %rd2, %rd3;
)";

}  // namespace

TEST_CASE("mma.sync fragments: the PTX ISA's figures, for lane 5 (group 1, thread 1) and lane 30 (group 7, thread 2)") {
  const mx::Info f16 = info_of("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  // A: a0 a1 at row g, columns 2t and 2t+1; a2 a3 at row g+8; a4..a7 the same 8 columns on.
  CHECK(at(mx::mma_a(f16, 5, 0), 1, 2));
  CHECK(at(mx::mma_a(f16, 5, 1), 1, 3));
  CHECK(at(mx::mma_a(f16, 5, 2), 9, 2));
  CHECK(at(mx::mma_a(f16, 5, 5), 1, 11));
  CHECK(at(mx::mma_a(f16, 30, 7), 15, 13));
  // B (k x n): b0 b1 at k = 2t, 2t+1 of column g; b2 b3 eight rows on.
  CHECK(at(mx::mma_b(f16, 5, 0), 2, 1));
  CHECK(at(mx::mma_b(f16, 5, 3), 11, 1));
  CHECK(at(mx::mma_b(f16, 30, 2), 12, 7));
  // C/D: c0 c1 at row g, columns 2t, 2t+1; c2 c3 at row g+8.
  CHECK(at(mx::mma_c(f16, 5, 1), 1, 3));
  CHECK(at(mx::mma_c(f16, 30, 2), 15, 4));
  CHECK(mx::mma_count_a(f16) == 8);
  CHECK(mx::mma_count_b(f16) == 4);
  CHECK(mx::mma_count_c(f16) == 4);
  // tf32 m16n8k8: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); b0 (t, g), b1 (t+4, g).
  const mx::Info tf32 = info_of("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
  CHECK(at(mx::mma_a(tf32, 5, 1), 9, 1));
  CHECK(at(mx::mma_a(tf32, 5, 2), 1, 5));
  CHECK(at(mx::mma_b(tf32, 30, 1), 6, 7));
  // s8 m16n8k32: a0..a3 at row g, columns 4t..4t+3; a4..a7 row g+8; a8.. 16 columns on.
  const mx::Info s8 = info_of("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
  CHECK(at(mx::mma_a(s8, 5, 3), 1, 7));
  CHECK(at(mx::mma_a(s8, 5, 6), 9, 6));
  CHECK(at(mx::mma_a(s8, 5, 9), 1, 21));
  CHECK(at(mx::mma_b(s8, 30, 5), 25, 7));
  // f64 m8n8k4: a (g, t), b (t, g), c0 c1 (g, 2t), (g, 2t+1).
  const mx::Info f64 = info_of("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64");
  CHECK(at(mx::mma_a(f64, 30, 0), 7, 2));
  CHECK(at(mx::mma_b(f64, 30, 0), 2, 7));
  CHECK(at(mx::mma_c(f64, 30, 1), 7, 5));
}

TEST_CASE("wmma fragments: each lane's share is one run of consecutive elements in the memory's order") {
  // 16 x 16 halves row-major: 8 a lane, lane 3 holds row 1, columns 8..15.
  CHECK(at(mx::wmma_at(16, 16, false, 3, 0), 1, 8));
  CHECK(at(mx::wmma_at(16, 16, false, 3, 7), 1, 15));
  CHECK(at(mx::wmma_at(16, 16, false, 3, 8), 1, 8));  // an f16 fragment's second copy
  // Column-major: lane 3 holds column 1, rows 8..15.
  CHECK(at(mx::wmma_at(16, 16, true, 3, 2), 10, 1));
  // 32 x 8 accumulator: lane 31 holds row 31.
  CHECK(at(mx::wmma_at(32, 8, false, 31, 7), 31, 7));
}

TEST_CASE("ldmatrix .x4 and .x2.trans: registers as the figures place them, one Form::Matrix record each") {
  const std::string body = std::string(kFill) + R"(
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r11, %r12, %r13, %r14}, [%r10];
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r15, %r16}, [%r10];
  st.global.v2.b32 [%rd4], {%r11, %r12};
  st.global.v2.b32 [%rd4+8], {%r13, %r14};
  st.global.v2.b32 [%rd4+16], {%r15, %r16};
)";
  for (uint32_t pitch : {16u, 128u}) {
    CAPTURE(pitch);
    const Run r = run_warp(body, 32 * 6, {}, pitch);
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t g = l / 4, t = l % 4;
      for (uint32_t m = 0; m < 4; ++m) {
        const uint32_t v = (8 * m + g) * 8 + 2 * t;  // row g, columns 2t and 2t+1
        CHECK(r.out[l * 6 + m] == (v | (v + 1) << 16));
      }
      for (uint32_t m = 0; m < 2; ++m) {  // .trans: column g, rows 2t and 2t+1
        const uint32_t lo = (8 * m + 2 * t) * 8 + g, hi = (8 * m + 2 * t + 1) * 8 + g;
        CHECK(r.out[l * 6 + 4 + m] == (lo | hi << 16));
      }
    }
    // The fill, then the two ldmatrix records, then three stores.
    REQUIRE(r.t.records.size() == 6);
    const trace::Record& x4 = r.t.records[1];
    const trace::Record& x2 = r.t.records[2];
    CHECK(r.t.sites[x4.site].form == trace::Form::Matrix);
    CHECK(r.t.sites[x4.site].bytes == 16);
    CHECK(r.t.sites[x4.site].space == trace::Space::Shared);
    CHECK(r.t.sites[r.t.records[0].site].form == trace::Form::Plain);
    CHECK(x4.active == ~0u);
    CHECK(x2.active == 0xffffu);  // .x2: the first 16 lanes give row addresses
    CHECK(x4.offset[9] == 9 * pitch);
    // Rows 16 bytes apart fill all 32 banks: one wavefront a matrix. 128 bytes apart, the 8
    // rows of a matrix share their banks: 8 wavefronts a matrix.
    const analysis::Report rep = analysis::analyze(r.t, analysis::DramModel{});
    for (const analysis::SiteStats& s : rep.sites) {
      if (s.site == x4.site) CHECK(s.wavefronts_per_request == doctest::Approx(pitch == 16 ? 4 : 32));
      if (s.site == x2.site) CHECK(s.wavefronts_per_request == doctest::Approx(pitch == 16 ? 2 : 16));
    }
  }
}

TEST_CASE("stmatrix and movmatrix: stmatrix.trans writes the transpose of ldmatrix's rows; movmatrix transposes registers") {
  const std::string body = std::string(kFill) + R"(
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 %r11, [%r10];
  movmatrix.sync.aligned.m8n8.trans.b16 %r12, %r11;
  bar.sync 0;
  stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%r10], %r11;
  bar.sync 0;
  ld.shared.v4.b32 {%r13, %r14, %r15, %r16}, [%r10];
  st.global.b32 [%rd4], %r12;
  st.global.v4.b32 [%rd4+8], {%r13, %r14, %r15, %r16};
)";
  const Run r = run_warp(body, 32 * 6);
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t g = l / 4, t = l % 4;
    CHECK(r.out[l * 6] == ((2 * t * 8 + g) | ((2 * t + 1) * 8 + g) << 16));
    if (l < 8) {  // row l of matrix 0 now holds its column l
      for (uint32_t c = 0; c < 8; ++c) CHECK(((r.out[l * 6 + 2 + c / 2] >> (16 * (c % 2))) & 0xffff) == c * 8 + l);
    }
  }
  bool store_form = false;
  for (const trace::Record& rec : r.t.records)
    store_form |= r.t.sites[rec.site].op == trace::Op::Store && r.t.sites[rec.site].form == trace::Form::Matrix && rec.active == 0xffu;
  CHECK(store_form);
}

TEST_CASE("mma.sync m16n8k16 f16 -> f32: D = A x B + C from lanes' registers; one Form::Mma event") {
  // A (16 x 16), B (16 x 8), C (16 x 8) of small integers; each lane's registers packed on
  // the host by the figures: 4 A words, 2 B words, 4 C floats.
  auto A = [](uint32_t r, uint32_t k) { return int((r * 3 + k * 5) % 11) - 5; };
  auto B = [](uint32_t k, uint32_t n) { return int((k * 7 + n) % 9) - 4; };
  auto C = [](uint32_t r, uint32_t n) { return int((r + n * 2) % 5) - 2; };
  auto half = [](int v) {  // small integers: exact in binary16
    if (v == 0) return 0u;
    const uint32_t s = v < 0 ? 0x8000u : 0u, a = uint32_t(std::abs(v));
    const int e = 31 - __builtin_clz(a);
    return s | uint32_t(e + 15) << 10 | ((a << (10 - e)) & 0x3ffu);
  };
  std::vector<uint32_t> in(32 * 10);
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t g = l / 4, t = l % 4;
    for (uint32_t j = 0; j < 4; ++j) {  // a(2j), a(2j+1): rows g / g+8, columns 2t (+8)
      const uint32_t r = g + 8 * (j & 1), c = 2 * t + 8 * (j >> 1);
      in[l * 10 + j] = half(A(r, c)) | half(A(r, c + 1)) << 16;
    }
    for (uint32_t j = 0; j < 2; ++j) in[l * 10 + 4 + j] = half(B(2 * t + 8 * j, g)) | half(B(2 * t + 8 * j + 1, g)) << 16;
    for (uint32_t i = 0; i < 4; ++i) {
      const float f = float(C(g + 8 * (i >> 1), 2 * t + (i & 1)));
      std::memcpy(&in[l * 10 + 6 + i], &f, 4);
    }
  }
  const std::string body = R"(
  mul.wide.u32 %rd3, %r1, 40;
  add.s64 %rd7, %rd6, %rd3;
  ld.global.v4.b32 {%r11, %r12, %r13, %r14}, [%rd7];
  ld.global.v2.b32 {%r15, %r16}, [%rd7+16];
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd7+24];
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5, %f6, %f7, %f8}, {%r11, %r12, %r13, %r14}, {%r15, %r16}, {%f1, %f2, %f3, %f4};
  mul.wide.u32 %rd8, %r1, 16;
  add.s64 %rd9, %rd2, %rd8;
  st.global.v4.f32 [%rd9], {%f5, %f6, %f7, %f8};
)";
  const Run r = run_warp(body, 32 * 4, in);
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t i = 0; i < 4; ++i) {
      const uint32_t row = l / 4 + 8 * (i >> 1), col = 2 * (l % 4) + (i & 1);
      int want = C(row, col);
      for (uint32_t k = 0; k < 16; ++k) want += A(row, k) * B(k, col);
      float got;
      std::memcpy(&got, &r.out[l * 4 + i], 4);
      CHECK(got == float(want));
    }
  REQUIRE(r.t.events.size() == 1);
  const trace::Event& e = r.t.events[0];
  CHECK(r.t.event_sites[e.site].form == trace::Form::Mma);
  CHECK(r.t.event_sites[e.site].instruction == "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  CHECK(e.active == ~0u);
  // On the warp's scale of seq: after the three loads, before the store.
  CHECK(e.seq == 3);
  CHECK(r.t.records.back().seq == 4);
}

TEST_CASE("mma.sync m16n8k8 tf32: the low 13 bits of each input are dropped; the sum is rounded once to f32") {
  // Every lane's a = 1 + 2^-10 (0x3f802000: the last bit tf32's 10-bit fraction keeps) plus
  // junk in the low 13 bits, b = 1, c = 2^-30: each of D's elements is 8 (1 + 2^-10) + 2^-30,
  // rounded to f32: 8 + 2^-7 (the 2^-30 below half an ulp).
  std::vector<uint32_t> in(32 * 2);
  for (uint32_t l = 0; l < 32; ++l) in[l * 2] = 0x3f802000u | (l * 97 & 0x1fff), in[l * 2 + 1] = 0x30800000u;  // c = 2^-30
  const std::string body = R"(
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd7, %rd6, %rd3;
  ld.global.v2.b32 {%r11, %r12}, [%rd7];
  mov.b32 %r13, 0x3f800000;
  mov.b32 %f1, %r12;
  mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f5, %f6, %f7, %f8}, {%r11, %r11, %r11, %r11}, {%r13, %r13}, {%f1, %f1, %f1, %f1};
  mul.wide.u32 %rd8, %r1, 16;
  add.s64 %rd9, %rd2, %rd8;
  st.global.v4.f32 [%rd9], {%f5, %f6, %f7, %f8};
)";
  const Run r = run_warp(body, 32 * 4, in);
  const float want = 8.0f + std::ldexp(1.0f, -7);
  for (uint32_t i = 0; i < 32 * 4; ++i) {
    float got;
    std::memcpy(&got, &r.out[i], 4);
    CHECK(got == want);
  }
}

TEST_CASE("matrix instructions refused in one line: other shapes, layouts, wgmma, wrong operands; a part of a warp faults") {
  auto refused = [](const std::string& insn) {
    const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
                            "  .reg .b32 %r<20>;\n  .reg .f32 %f<20>;\n  .reg .b64 %rd<4>;\n  " + insn + "\n  ret;\n}\n";
    return ptx::parse(ptx, "k.ptx").kernels[0].refused;
  };
  CHECK(refused("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];") == "");
  CHECK(refused("ldmatrix.sync.aligned.m8n8.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];") ==
        "k.ptx:9: ldmatrix.sync.aligned.m8n8.shared.b16: one of .x1, .x2, .x4 is needed");
  CHECK(refused("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2}, [%r5];") ==
        "k.ptx:9: ldmatrix.sync.aligned.m8n8.x4.shared.b16: its destination must be 4 registers");
  CHECK(refused("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r5];") ==
        "k.ptx:9: ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8: the type b8 is not implemented");
  CHECK(refused("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, {%f1, %f2, %f3, %f4};") ==
        "k.ptx:9: mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32: the modifier .m16n8k4 is not implemented");
  CHECK(refused("mma.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};") ==
        "k.ptx:9: mma.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32: mma.sync is implemented with .row.col only");
  CHECK(refused("mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16 {%r1, %r2}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%r1, %r2};") ==
        "k.ptx:9: mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16: this shape with these types is not implemented");
  CHECK(refused("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5, %r6}, {%f1, %f2, %f3, %f4};") ==
        "k.ptx:9: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: a must be 4 registers");
  // wgmma runs (wgmma.cpp, tests/programs/wgmma_tile.cu); what it lacks is said in one line.
  CHECK(refused("wgmma.fence.sync.aligned;") == "");
  CHECK(refused("wgmma.wait_group.sync.aligned 1;") == "");
  CHECK(refused("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;") == "");
  CHECK(refused("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 1, 1;") == "");
  CHECK(refused("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 2, 0;") ==
        "k.ptx:9: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16: the transposes are 0 or 1");
  CHECK(refused("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;") ==
        "k.ptx:9: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16: d must be 8 registers for .m64n16k16");
  CHECK(refused("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1;") == "");
  CHECK(refused("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;") ==
        "k.ptx:9: wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3: tf32 and 8-bit float inputs take imm-scale-a and "
        "imm-scale-b alone (no transposes)");
  CHECK(refused("wgmma.mma_async.sync.aligned.m64n8k16.f32.tf32.tf32 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1;") ==
        "k.ptx:9: wgmma.mma_async.sync.aligned.m64n8k16.f32.tf32.tf32: the modifier .m64n8k16 is not implemented with these types");
  CHECK(refused("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, 1, 1, 1;") ==
        "k.ptx:9: wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8: an integer wgmma takes d, a (or a-desc), b-desc and "
        "scale-d only");
  CHECK(refused("mov.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}, %r1;").find("a vector of more than 8 registers") !=
        std::string::npos);
  CHECK(refused("wmma.load.a.sync.aligned.row.m16n16k8.shared.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%r9], %r10;") ==
        "k.ptx:9: wmma.load.a.sync.aligned.row.m16n16k8.shared.f16: this shape with this type is not implemented");
  CHECK(refused("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%r9], %r10;") == "");
  CHECK(refused("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, "
                "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, "
                "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};") == "");

  // Run by half a warp: one line, never a guess at the other lanes' elements.
  const std::string body = std::string(kFill) + R"(
  setp.lt.u32 %p1, %r1, 16;
  @%p1 ldmatrix.sync.aligned.m8n8.x1.shared.b16 %r11, [%r10];
)";
  std::string what;
  try {
    run_warp(body, 32 * 6);
  } catch (const ptx::Fault& f) {
    what = f.what();
  }
  CHECK(what == "ldmatrix.sync.aligned.m8n8.x1.shared.b16 was run by 16 lanes of a warp: it needs all 32 (in k)");
}
