// tests/ptx/diff/test_ptx_diff.cpp — the PTX interpreter against the GPU: every generated
// case (scripts/ptx_diff_cases.py, run into the build folder) runs on the emulated device
// with the inputs the GPU ran it with, and its results must equal the GPU's recorded in
// tests/ptx/fixtures/diff/h200.txt (within the PTX ISA's bound for .approx forms), except
// for the cases tests/ptx/fixtures/diff/known.txt lists with their reason; the cases the
// interpreter refuses are counted and named. Also: every
// opcode the interpreter accepts has a case, and the test's own machinery (formats,
// tolerances, the verdicts) on small inputs worked out by hand.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>

#include "diff_check.h"
#include "diff_forms.h"

using namespace ws::ptxdiff;

namespace {

const char* const kRefresh =
    "run on a machine with a GPU: scripts/device/run_all.sh with STAGES=diff, then copy its ptx_diff_h200.txt "
    "to tests/ptx/fixtures/diff/h200.txt";

std::vector<Case> generated_cases(std::string& ptx) {
  std::string text;
  REQUIRE_MESSAGE(read_file(WS_DIFF_PTX, ptx), "the generated module is missing: " WS_DIFF_PTX);
  REQUIRE_MESSAGE(read_file(WS_DIFF_CASES, text), "the generated cases are missing: " WS_DIFF_CASES);
  return read_cases(text, WS_DIFF_CASES);
}

uint64_t f32(float f) { return std::bit_cast<uint32_t>(f); }

Case approx(const std::string& tol, const std::string& type = "f32") {
  Case c;
  c.name = "probe";
  c.tol = tol;
  c.ins = {type, type};
  c.outs = {type};
  return c;
}

}  // namespace

TEST_CASE("the interpreter gives the GPU's results for every generated case") {
  std::string ptx, text;
  const std::vector<Case> cases = generated_cases(ptx);
  if (!read_file(WS_DIFF_FIXTURE, text)) {
    FAIL_CHECK("no GPU fixture at " WS_DIFF_FIXTURE ": " << std::string(kRefresh));
    return;
  }
  const Fixture fixture = read_fixture(text, WS_DIFF_FIXTURE);
  if (!fixture.from_gpu) {
    FAIL_CHECK(WS_DIFF_FIXTURE " was not made on a GPU (device " << fixture.device << "): " << std::string(kRefresh));
    return;
  }
  std::string known_text;
  REQUIRE_MESSAGE(read_file(WS_DIFF_KNOWN, known_text), "missing " WS_DIFF_KNOWN);
  const auto known = read_known(known_text, WS_DIFF_KNOWN);
  const std::vector<Verdict> verdicts = check_all(ptx, cases, fixture);
  size_t counts[4] = {};
  std::string refused;
  for (const Verdict& v : verdicts) {
    ++counts[size_t(v.outcome)];
    if (v.outcome == Outcome::Refused) refused += "\n  " + v.name + ": " + v.detail;
  }
  MESSAGE(verdicts.size() << " cases against " << fixture.device << ": " << counts[0] << " matched, " << counts[1]
                          << " differ, " << counts[2] << " refused, " << counts[3] << " without GPU results"
                          << std::string(refused.empty() ? "" : "; refused:") << refused);
  const std::vector<std::string> wrong = unexpected(verdicts, known);
  std::string all;
  for (const std::string& l : wrong) all += "\n  " + l;
  if (counts[3]) all += "\n  (cases without GPU results: " + std::string(kRefresh) + ")";
  CHECK_MESSAGE(wrong.empty(), wrong.size() << " cases disagree with " WS_DIFF_KNOWN ":" << all);
}

TEST_CASE("every opcode and form the interpreter accepts has a case") {
  std::string ptx, def;
  const std::vector<Case> cases = generated_cases(ptx);
  CHECK(cases.size() > 500);
  REQUIRE_MESSAGE(read_file(WS_DIFF_OPCODES, def), "cannot read " WS_DIFF_OPCODES);
  const Accepted accepted = read_accepted(def, WS_DIFF_OPCODES);
  CHECK(accepted.opcodes.size() > 50);
  std::string missing;
  for (const std::string& l : uncovered(accepted, cases)) missing += "\n  " + l;
  CHECK_MESSAGE(missing.empty(), "what scripts/ptx_diff_cases.py has no case for:" << missing);
  // The exemptions name opcodes the interpreter does accept (a stale one would hide nothing).
  for (const auto& [what, why] : untestable())
    CHECK_MESSAGE(accepted.opcodes.count(what.substr(0, what.find_first_of("./"))), what);
  // Every case's kernel is in the module.
  const Module m = split_module(ptx);
  for (const Case& c : cases) CHECK_MESSAGE(m.cases.count(c.name), c.name);
}

TEST_CASE("diff coverage: opcodes.def's rows read from its text, and the words no case uses") {
  const std::string def =
      "// a comment\n"
      "#define PTX_R \"rn rz\"\n"
      "#define PTX_L \"a b \" \\\n  \"c\"\n"
      "PTX_OP(Add, \"add\", Alu, add_op)\n"
      "PTX_FORM(\"add\", \"s32 u32\", \"\")\n"
      "PTX_FORM(\"add\", \"f32\", PTX_R \" ftz\")\n"
      "PTX_OP(Nop, \"\", Nothing, )\n"
      "PTX_ALIAS(\"trap\", Exit)\n"
      "PTX_OP(Cvt, \"cvt\", Alu, cvt_op)\n"
      "PTX_FORM(\"cvt\", \"u8 s8 | f32\", PTX_L)\n";
  const Accepted a = read_accepted(def, "o.def");
  CHECK(a.opcodes == std::set<std::string>{"add", "cvt", "trap"});
  REQUIRE(a.forms.size() == 3);
  CHECK(a.forms[1].modifiers == std::vector<std::string>{"rn", "rz", "ftz"});
  CHECK(a.forms[2].types == std::vector<std::vector<std::string>>{{"u8", "s8"}, {"f32"}});
  CHECK(a.forms[2].modifiers == std::vector<std::string>{"a", "b", "c"});
  const Spelling s = spell("cvt.rzi.sat.u8.f32 uniform");
  CHECK(s.opcode == "cvt");
  CHECK(s.types == std::vector<std::string>{"u8", "f32"});
  CHECK(s.modifiers == std::vector<std::string>{"rzi", "sat"});

  auto named = [](std::vector<std::string> names) {
    std::vector<Case> cs;
    for (auto& n : names) {
      cs.emplace_back();
      cs.back().name = n;
    }
    return cs;
  };
  // min.NaN.f32 fits no form: it covers nothing; trap is exempt.
  CHECK(uncovered(a, named({"add.s32", "add.u32", "add.rn.ftz.f32", "add.rz.f32", "cvt.a.u8.f32", "cvt.b.c.s8.f32"}))
            .empty());
  CHECK(uncovered(a, named({"add.s32", "add.rn.ftz.f32", "add.rz.f32", "cvt.a.b.c.u8.f32 again", "min.NaN.f32"})) ==
        std::vector<std::string>{"add s32,u32: no case of type .u32", "cvt u8,s8|f32: no case of type .s8 at position 1"});
  CHECK(uncovered(a, named({"add.s32", "add.u32", "add.rn.f32", "cvt.a.b.c.u8.f32", "cvt.s8.f32"})) ==
        std::vector<std::string>{"add f32: no case with .rz", "add f32: no case with .ftz"});
  CHECK(uncovered(a, named({"add.s32"}))[0] == "cvt: no case");
  CHECK_THROWS_WITH_AS(read_accepted("PTX_FORM(\"add\", PTX_NONE, \"\")\n", "o.def"),
                       "o.def:1: a row this reader cannot follow", FormatError);
}

TEST_CASE("diff formats: a case and its fixture read back; bad files are refused in one line") {
  const std::string text =
      "# comment\n"
      "case add.u32 | kernel=k0 threads=2 in=b32,b32 out=b32 tol=exact hash=abc\n"
      "0 00000001 00000002\n"
      "1 ffffffff 00000001\n";
  const std::vector<Case> cases = read_cases(text, "t.cases");
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].name == "add.u32");
  CHECK(cases[0].kernel == "k0");
  CHECK(cases[0].inputs[1][0] == 0xffffffffu);
  std::vector<Case> with = cases;
  with[0].outputs = {{3}, {0}};
  const std::string fx = write_fixture("gpu | Test GPU | sm_90 | driver 13.0", with);
  const Fixture f = read_fixture(fx, "f.txt");
  CHECK(f.from_gpu);
  CHECK(f.device == "gpu | Test GPU | sm_90 | driver 13.0");
  REQUIRE(f.cases.count("add.u32"));
  CHECK(f.cases.at("add.u32").outputs[0][0] == 3);
  CHECK(f.cases.at("add.u32").hash == "abc");
  CHECK_FALSE(read_fixture(write_fixture("interpreter | warpscope", with), "f.txt").from_gpu);

  CHECK_THROWS_WITH_AS(read_cases("case x | kernel=k threads=2 in=b32 out=b32 hash=h\n0 1\n", "a.cases"),
                       "a.cases:2: case 'x' has fewer threads than it says", FormatError);
  CHECK_THROWS_WITH_AS(read_cases("case x | kernel=k threads=1 in=b32 out=b32 hash=h\n0 zz\n", "a.cases"),
                       "a.cases:2: 'zz' is not a hexadecimal value", FormatError);
  CHECK_THROWS_WITH_AS(read_cases("case x | kernel=k threads=1 in=b31 out=b32 hash=h\n", "a.cases"),
                       "unknown operand type 'b31'", FormatError);
  CHECK_THROWS_WITH_AS(read_fixture(text, "f.txt"), "f.txt: no 'device' line: which device made this fixture?",
                       FormatError);
  CHECK_THROWS_WITH_AS(read_fixture("device gpu | x\n" + text, "f.txt"), "f.txt: case 'add.u32' has no results",
                       FormatError);
}

TEST_CASE("diff tolerances: bit for bit unless the case states the ISA's bound") {
  Case exact = approx("exact");
  CHECK(agrees(exact, 0, f32(1.0f), f32(1.0f), {}));
  CHECK_FALSE(agrees(exact, 0, f32(1.0f), f32(1.0f) + 1, {}));
  CHECK_FALSE(agrees(exact, 0, 0x7fffffff, 0x7fc00000, {}));  // NaN payloads count when exact
  Case ulp2 = approx("ulp:2");
  CHECK(agrees(ulp2, 0, f32(1.0f), f32(1.0f) + 3, {}));       // 2 from the GPU, 1 from the interpreter
  CHECK_FALSE(agrees(ulp2, 0, f32(1.0f), f32(1.0f) + 4, {}));
  CHECK(agrees(ulp2, 0, f32(1.0f), f32(1.0f) - 2, {}));       // through the binade's edge: 0x3f7ffffe
  CHECK(agrees(ulp2, 0, 0x80000001, 0x00000001, {}));         // -denorm to +denorm: 2 apart through zero
  CHECK(agrees(ulp2, 0, 0x7fffffff, 0x7fc00000, {}));         // any NaN for any NaN
  CHECK_FALSE(agrees(ulp2, 0, 0x7fffffff, f32(1.0f), {}));
  CHECK_FALSE(agrees(ulp2, 0, f32(INFINITY), f32(3.4e38f), {}));
  CHECK_FALSE(agrees(ulp2, 0, f32(0.0f), f32(-0.0f), {}));
  Case rel = approx("rel:-22.9");
  CHECK(agrees(rel, 0, f32(1.0f), f32(1.0f + 1.5e-7f), {}));   // 2^-22.9 = 1.28e-7, plus 1.19e-7 of slack
  CHECK_FALSE(agrees(rel, 0, f32(1.0f), f32(1.0f + 3e-7f), {}));
  Case abs = approx("abs:-20.5");
  CHECK(agrees(abs, 0, f32(0.0001f), f32(0.0001f + 6e-7f), {}));  // 2^-20.5 = 6.7e-7
  CHECK_FALSE(agrees(abs, 0, f32(0.0001f), f32(0.0001f + 8e-7f), {}));
  Case div = approx("ulp:2:divisor");
  CHECK(agrees(div, 0, f32(1.0f), f32(2.0f), {f32(1.0f), f32(1e-39f)}));   // divisor below 2^-126: no bound
  CHECK_FALSE(agrees(div, 0, f32(1.0f), f32(2.0f), {f32(1.0f), f32(3.0f)}));
  Case angle = approx("abs:-20.5:angle");
  CHECK_FALSE(agrees(angle, 0, f32(0.5f), f32(0.5001f), {f32(3.0f)}));
  CHECK(agrees(angle, 0, f32(0.5f), f32(0.5001f), {f32(300.0f)}));       // beyond pi: no bound
  CHECK_FALSE(agrees(angle, 0, 0x7fffffff, f32(0.5f), {f32(300.0f)}));  // but NaN stays NaN
  Case f64 = approx("ulp:1", "f64");
  CHECK(agrees(f64, 0, std::bit_cast<uint64_t>(1.0), std::bit_cast<uint64_t>(1.0) + 2, {}));
  CHECK_FALSE(agrees(f64, 0, std::bit_cast<uint64_t>(1.0), std::bit_cast<uint64_t>(1.0) + 3, {}));
  Case either = approx("abs:-22|ulp:2");
  CHECK(agrees(either, 0, f32(100.0f), f32(100.0f) + 3, {}));     // 3 ulp: within 2 (+1)
  CHECK(agrees(either, 0, f32(1e-6f), f32(1e-6f + 2e-7f), {}));   // many ulp, but 2e-7 < 2^-22
  CHECK_FALSE(agrees(either, 0, f32(100.0f), f32(100.0f) + 4, {}));
  CHECK_THROWS_AS(agrees(approx("abs:-22|bad:1"), 0, f32(1.0f), f32(1.0f), {}), FormatError);
  Case bad = approx("within:3");
  CHECK_THROWS_AS(agrees(bad, 0, f32(1.0f), f32(2.0f), {}), FormatError);
  Case pred = approx("ulp:2");
  pred.outs = {"pred"};
  CHECK_FALSE(agrees(pred, 0, 1, 0, {}));  // the bound is for floats: anything else stays exact
}

TEST_CASE("diff verdicts: a case on the interpreter matches, differs, is refused or lacks GPU results") {
  const std::string ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      "// ---- case add.u32\n"
      ".visible .entry k0(.param .u64 pin, .param .u64 pout)\n{\n"
      "  .reg .b32 %r<4>;\n  .reg .b64 %rd<8>;\n"
      "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n  mov.u32 %r0, %tid.x;\n"
      "  mul.wide.u32 %rd3, %r0, 16;\n  add.s64 %rd1, %rd1, %rd3;\n  mul.wide.u32 %rd3, %r0, 8;\n"
      "  add.s64 %rd2, %rd2, %rd3;\n  ld.global.b32 %r1, [%rd1];\n  ld.global.b32 %r2, [%rd1+8];\n"
      "  add.u32 %r3, %r1, %r2;\n  st.global.b32 [%rd2], %r3;\n  ret;\n}\n"
      "// ---- case frob.u32\n"
      ".visible .entry k1(.param .u64 pin, .param .u64 pout)\n{\n  .reg .b32 %r<2>;\n  frob.u32 %r0, %r1;\n  ret;\n}\n"
      "// ---- case add.u32 again\n"
      ".visible .entry k2(.param .u64 pin, .param .u64 pout)\n{\n  ret;\n}\n";
  const std::string cases_text =
      "case add.u32 | kernel=k0 threads=2 in=b32,b32 out=b32 tol=exact hash=h0\n0 00000001 00000002\n1 ffffffff 00000003\n"
      "case frob.u32 | kernel=k1 threads=1 in=b32 out=b32 tol=exact hash=h1\n0 00000001\n"
      "case add.u32 again | kernel=k2 threads=1 in=b32 out=b32 tol=exact hash=h2\n0 00000001\n";
  const std::vector<Case> cases = read_cases(cases_text, "v.cases");
  Fixture gpu;
  gpu.from_gpu = true;
  gpu.cases["add.u32"] = cases[0];
  gpu.cases["add.u32"].outputs = {{3}, {2}};  // worked out by hand: 1 + 2, 0xffffffff + 3 wrapped
  gpu.cases["frob.u32"] = cases[1];
  gpu.cases["frob.u32"].outputs = {{0}};
  gpu.cases["add.u32 again"] = cases[2];
  gpu.cases["add.u32 again"].hash = "older";
  gpu.cases["add.u32 again"].outputs = {{0}};
  std::vector<Verdict> v = check_all(ptx, cases, gpu);
  REQUIRE(v.size() == 3);
  CHECK(v[0].outcome == Outcome::Matched);
  CHECK(v[1].outcome == Outcome::Refused);
  CHECK(v[1].detail.find("frob") != std::string::npos);  // the interpreter's own line, naming the instruction
  CHECK(v[2].outcome == Outcome::Missing);
  CHECK(v[2].detail == "changed since the fixture");

  gpu.cases["add.u32"].outputs = {{3}, {7}};
  v = check_all(ptx, cases, gpu);
  CHECK(v[0].outcome == Outcome::Differs);
  CHECK(v[0].detail == "1 of 2 threads; thread 1 (ffffffff 00000003): gpu 00000007, interpreter 00000002");

  const auto known = read_known("# why\nadd.u32 | differs | a reason\nfrob.u32 | differs | another\n", "k.txt");
  const std::vector<std::string> lines = unexpected(v, known);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "frob.u32: listed as differs, now refused: " + v[1].detail);
  CHECK(lines[1] == "add.u32 again: no GPU results (changed since the fixture)");
  gpu.cases["add.u32"].outputs = {{3}, {2}};
  CHECK(unexpected(check_all(ptx, cases, gpu), known)[0] ==
        "add.u32: matches the GPU now: remove it from the known differences");
  CHECK(unexpected({}, known).size() == 2);  // listed names without a case
  // Unlisted: the difference and the missing results fail, the refusal is only named.
  gpu.cases["add.u32"].outputs = {{3}, {7}};
  CHECK(differing_threads(ptx, cases[0], gpu.cases["add.u32"]) ==
        std::vector<std::string>{"thread 1 (ffffffff 00000003): gpu 00000007, interpreter 00000002"});
  CHECK(differing_threads(ptx, cases[1], gpu.cases["frob.u32"])[0].rfind("refused: ", 0) == 0);
  const std::vector<std::string> bare = unexpected(check_all(ptx, cases, gpu), {});
  REQUIRE(bare.size() == 2);
  CHECK(bare[0].rfind("add.u32: differs: 1 of 2 threads", 0) == 0);
  CHECK(bare[1] == "add.u32 again: no GPU results (changed since the fixture)");
  CHECK_THROWS_WITH_AS(read_known("add.u32 | maybe | x\n", "k.txt"),
                       "k.txt:1: expected 'NAME | differs|refused | reason'", FormatError);
}
