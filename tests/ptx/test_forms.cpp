// tests/ptx/test_forms.cpp — what the interpreter accepts and what it refuses: every word of
// an opcode is checked against the forms opcodes.def declares, a refused instruction marks
// only the kernels that hold it (or call a function that does), and launching one of those
// gives one line naming the instruction and its PTX line while the others run.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "ptx/machine.h"
#include "ptx/ptx.h"

using namespace ws;

namespace {

// A module of three kernels: `bad` holds a refused instruction on PTX line 9, `calls_bad`
// calls a function that holds one on line 5, `good` stores 7 through its pointer.
const char* kModule = R"(.version 8.0
.target sm_90
.address_size 64
.func helper() {
  add.tf32 %r1, %r1, %r1;
  ret;
}
.visible .entry bad(.param .u64 out) {
  .reg .b32 %r<2>;
  add.sat.s64 %r1, %r1, %r1;
  ret;
}
.visible .entry calls_bad(.param .u64 out) {
  call.uni helper, ();
  ret;
}
.visible .entry good(.param .u64 out) {
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 7;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

}  // namespace

TEST_CASE("a refused instruction stops only the kernels that reach it, when they launch") {
  ptx::Device dev;
  dev.load(ptx::parse(kModule, "three.ptx"));
  const uint64_t out = dev.malloc(4, "out");
  std::vector<uint8_t> params(8);
  std::memcpy(params.data(), &out, 8);
  trace::Trace t;
  trace::Builder b(t);
  CHECK_THROWS_WITH_AS(dev.launch({"bad", {1, 1, 1}, {1, 1, 1}, 0, params}, b),
                       "kernel bad cannot run: three.ptx:10: add.sat.s64: the modifier .sat is not implemented with "
                       "these types",
                       ptx::Refused);
  CHECK_THROWS_WITH_AS(dev.launch({"calls_bad", {1, 1, 1}, {1, 1, 1}, 0, params}, b),
                       "kernel calls_bad cannot run: three.ptx:5: add.tf32: the type tf32 is not implemented",
                       ptx::Refused);
  dev.launch({"good", {1, 1, 1}, {1, 1, 1}, 0, params}, b);
  uint32_t v = 0;
  REQUIRE(dev.to_host(&v, out, 4));
  CHECK(v == 7);
}

TEST_CASE("no word of an opcode is passed over: each one a form does not take is named") {
  auto refused = [](const std::string& insn) {
    const std::string ptx = ".version 8.0\n.entry k() {\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n .reg .pred %p<2>;\n " +
                            insn + "\n ret;\n}\n";
    return ptx::parse(ptx, "k.ptx").kernels.at(0).refused;
  };
  CHECK(refused("cvt.rn.satfinite.e2m1x2.f32 %r1, %r2, %r3;") ==
        "k.ptx:6: cvt.rn.satfinite.e2m1x2.f32: the type e2m1x2 is not implemented");
  CHECK(refused("cvt.rn.satfinite.e4m3x2.f32 %r1, %r2, %r3;") == "");  // 8-bit floats: the differential test's
  CHECK(refused("cvt.rz.satfinite.e4m3x2.f32 %r1, %r2, %r3;") ==
        "k.ptx:6: cvt.rz.satfinite.e4m3x2.f32: the modifier .rz is not implemented with these types");
  CHECK(refused("add.sat.f16 %r1, %r2, %r3;") == "k.ptx:6: add.sat.f16: the modifier .sat is not implemented with these types");
  CHECK(refused("add.f32.xyz %r1, %r2, %r3;") == "k.ptx:6: add.f32.xyz: the modifier .xyz is not implemented");
  CHECK(refused("min.NaN.f64 %rd1, %rd2, %rd3;") ==
        "k.ptx:6: min.NaN.f64: the modifier .NaN is not implemented with these types");
  CHECK(refused("mad.lo.sat.s32 %r1, %r2, %r3, %r1;") ==
        "k.ptx:6: mad.lo.sat.s32: the modifier .sat is not implemented with these types");
  CHECK(refused("mad.sat.s32 %r1, %r2, %r3, %r1;") == "k.ptx:6: mad.sat.s32: the modifier .sat is taken only with .hi");
  CHECK(refused("slct.b32.u32 %r1, %r2, %r3, %r1;") == "k.ptx:6: slct.b32.u32: the type u32 is not implemented");
  CHECK(refused("min.NaN.f32 %r1, %r2, %r3;") == "");
  CHECK(refused("cnot.b32 %r1, %r2;") == "");
  CHECK(refused("mul.wide.u64 %rd1, %rd2, %rd3;") ==
        "k.ptx:6: mul.wide.u64: the modifier .wide is not implemented with these types");
  CHECK(refused("add.cc.u32 %r1, %r2, %r3;") == "k.ptx:6: add.cc.u32: the modifier .cc is not implemented");
  CHECK(refused("add.rn.rz.f32 %r1, %r2, %r3;") == "k.ptx:6: add.rn.rz.f32: two rounding modifiers");
  CHECK(refused("ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;") ==
        "k.ptx:6: ld.global.L2::cache_hint.u32: the modifier .L2::cache_hint is not implemented");
  CHECK(refused("bar.sync 1, 64;") == "");  // the count is checked when it runs (test_instructions)
  CHECK(refused("bar.red.popc.u32 %r1, 1, 64, %p1;") ==
        "k.ptx:6: bar.red.popc.u32: a bar.red for part of the block (a thread count) is not implemented");
  CHECK(refused("mov.u32 %r1, %envreg0;") == "k.ptx:6: mov.u32: the name %envreg0 is not implemented");
  CHECK(refused("proto: .callprototype (.param .b32 _) _ (.param .b32 _);") == "");  // what calls through registers name
  CHECK(refused("add.u32 %r1, %r2;") == "");
  CHECK(refused("shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;") == "");
  CHECK(refused("fence.acq_rel.gpu;") == "");
  CHECK(refused("membar.gl;") == "");
  CHECK(refused("nanosleep.u32 100;") == "");
}

TEST_CASE("accepted_forms lists every form, each of an opcode the interpreter decodes") {
  const std::vector<ptx::Form>& forms = ptx::accepted_forms();
  REQUIRE(!forms.empty());
  auto find = [&](const std::string& op, const std::string& type, const std::string& mod) {
    return std::any_of(forms.begin(), forms.end(), [&](const ptx::Form& f) {
      return f.opcode == op && !f.types.empty() &&
             std::find(f.types[0].begin(), f.types[0].end(), type) != f.types[0].end() &&
             (mod.empty() || std::find(f.modifiers.begin(), f.modifiers.end(), mod) != f.modifiers.end());
    });
  };
  CHECK(find("add", "f32", "sat"));
  CHECK(find("add", "s32", "sat"));
  CHECK(!find("add", "s64", "sat"));
  CHECK(find("fma", "f64", "rz"));
  CHECK(find("testp", "f32", "subnormal"));
  for (const ptx::Form& f : forms) {
    INFO(f.opcode);
    CHECK(!f.opcode.empty());
    // Two type positions at most (cvt's destination and source), but the tensor cores' d, a, b, c.
    CHECK(f.types.size() <= (f.opcode == "mma" || f.opcode == "wmma" ? 4u : f.opcode == "wgmma" ? 3u : 2u));
    for (const auto& slot : f.types) CHECK(!slot.empty());
  }
}

TEST_CASE("a table of function addresses holds them; one of a variable's address refuses only the kernels that read it") {
  const char* ptx = R"(.version 8.0
.target sm_90
.address_size 64
.func fn() {
  ret;
}
.global .align 8 .u64 table[2] = {0, fn};
.global .align 4 .u32 x;
.global .align 8 .u64 ptrs[1] = {x};
.visible .entry uses() {
  .reg .b64 %rd<2>;
  mov.u64 %rd1, table;
  ret;
}
.visible .entry reads_ptrs() {
  .reg .b64 %rd<2>;
  mov.u64 %rd1, ptrs;
  ret;
}
.visible .entry plain() {
  ret;
}
)";
  const ptx::Module m = ptx::parse(ptx, "fp.ptx");
  CHECK(m.kernel("uses")->refused.empty());
  REQUIRE(m.globals[0].init.size() == 16);
  uint64_t table[2];
  std::memcpy(table, m.globals[0].init.data(), 16);
  CHECK(table[0] == 0);
  CHECK(table[1] == ptx::kFunctionBase);  // fn, the first function whose address is taken
  CHECK(m.kernel("reads_ptrs")->refused ==
        "fp.ptx:9: ptrs holds the address of x: an initializer of addresses of variables is not implemented");
  CHECK(m.kernel("plain")->refused.empty());
}
