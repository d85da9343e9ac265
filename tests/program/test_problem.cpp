// What stopped a user's program, as the record every front end draws (program/problem.h):
// an access outside its array with the lanes of its request, a loop stopped, a failed
// assert, a host crash, a compile error; and the launch that faulted keeps its arrays and
// its requests up to the fault. Programs run on the emulated device; skipped without nvcc.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "program/program.h"
#include "session/session.h"
#include "session/worker.h"
#include "../support.h"

using namespace ws;

namespace {

bool can_run() { return ws::test::have_nvcc("skipped"); }

program::Options opts(const std::string& file) {
  program::Options o;
  o.source = file;
  o.echo = false;
  o.timeout_seconds = 90;
  return o;
}

// `text` written as `name` in a fresh folder of its own.
std::string program_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("ws-problem-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

}  // namespace

TEST_CASE("a problem record goes through JSON unchanged, and says where in words") {
  program::Problem p;
  p.kind = "out_of_bounds";
  p.message = "out-of-bounds access to 'd_out' at kernel line 15: byte offset 16384 of 16384";
  p.at.push_back(program::Place{"/tmp/x/transpose.cu", 15, true, {31, 31, 0}, {1, 1, 0}, 31});
  p.launch = 1;
  p.record = 254;
  p.array = "d_out";
  p.offset = 16384;
  p.size = 16384;
  p.lanes = 0xffffffffu;
  for (int l = 0; l < 32; ++l) p.lane_offset[size_t(l)] = 16384 - 124 + 4 * l;
  CHECK(program::problem_from_json(program::problem_json(p)) == p);
  CHECK(program::problem_title(p, true) == "Out-of-bounds write to 'd_out'");
  const auto lines = program::problem_lines(p);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "transpose.cu:15 · thread (31,31) of block (1,1), warp 31");
  // Only lane 31 reaches byte 16384.
  CHECK(lines[1] == "byte offset 16384 in 'd_out' of 16384 bytes · 1 of 32 lanes of the request went past its edge");
  p.kind = "assert";
  CHECK(program::problem_lines(p).back() == p.message);
  // Not a problem record: one line, no guess.
  CHECK_THROWS_WITH_AS(program::problem_from_json("[1,2]"), doctest::Contains("not a problem record"), std::runtime_error);
  CHECK_THROWS_AS(program::problem_from_json("{\"kind\": 3}"), std::runtime_error);
  CHECK(program::last_lines("a\nb\nc\n", 2) == "b\nc");
  CHECK(program::last_lines("a\nb\nc", 5) == "a\nb\nc");
  CHECK(program::last_lines("", 3) == "");
}

TEST_CASE("an out-of-bounds load: the fault's array, offset, thread and lanes; the launch keeps its arrays and requests") {
  if (!can_run()) return;
  program::Result r = program::run(opts("tests/programs/bad/out_of_bounds.cu"));
  const program::Problem& p = r.ending.problem;
  REQUIRE(p.kind == "out_of_bounds");
  CHECK(p.array == "d_in");
  CHECK(p.offset == 256);  // in[64] of 64 floats
  CHECK(p.size == 256);
  CHECK(p.launch == 1);
  REQUIRE(p.at.size() == 1);
  CHECK(p.at[0].line == 7);
  CHECK(p.at[0].file.find("out_of_bounds.cu") != std::string::npos);
  CHECK(p.at[0].placed);
  CHECK(p.at[0].thread[0] == 64);
  CHECK(p.at[0].block[0] == 0);
  CHECK(p.at[0].warp == 2);
  // Warp 2 is threads 64-95: every lane reads past the 256 bytes, lane l at 256 + 4 l.
  CHECK(p.lanes == 0xffffffffu);
  for (int l = 0; l < 32; ++l) CHECK(p.lane_offset[size_t(l)] == 256 + 4 * l);
  // The faulting request is the launch's last record, its lanes as the warp asked.
  const trace::Trace& t = r.trace;
  REQUIRE(p.record >= 0);
  REQUIRE(size_t(p.record) + 1 == t.records.size());
  const trace::Record& rec = t.records[size_t(p.record)];
  CHECK(rec.warp == 2);
  CHECK(rec.offset[31] == 256 + 124);
  // Every request recorded up to the fault names its one array (no "(several)").
  for (const trace::Record& x : t.records) {
    REQUIRE(t.sites[x.site].buffer != trace::kNoBuffer);
    const std::string& name = t.buffers[t.sites[x.site].buffer].name;
    CHECK((name == "d_in" || name == "d_out"));
  }
  CHECK(t.launches[0].blocks.size() == 1);  // the faulting block is counted as recorded

  // The Session opens on it: the request, and the line to mark.
  session::LaunchSpec spec;
  spec.program = opts("tests/programs/bad/out_of_bounds.cu");
  auto s = session::record_session(spec);
  REQUIRE(s);
  CHECK(s->problem().kind == "out_of_bounds");
  CHECK(s->problem_step() == int64_t(s->size() - 1));
  CHECK(session::problem_line(*s, 0) == 7);
  CHECK(session::problem_line(*s, 99) == 0);
}

TEST_CASE("an endless loop stopped, a failed assert, a host crash and a compile error each say what and where") {
  if (!can_run()) return;
  SUBCASE("endless loop") {
    // Stopped after its budget of warp instructions, here a thirtieth of the default
    // (WARPSCOPE_BLOCK_BUDGET, which the program's process reads): the default's 600 M take
    // about a minute on one core, and the watch that follows the budget is the same.
    program::Options o = opts("tests/programs/bad/endless.cu");
    o.timeout_seconds = 400;
    setenv("WARPSCOPE_BLOCK_BUDGET", "20000000", 1);
    program::Result r = program::run(o);
    unsetenv("WARPSCOPE_BLOCK_BUDGET");
    const program::Problem& p = r.ending.problem;
    CHECK(p.kind == "endless_loop");
    CHECK(p.launch == 1);
    REQUIRE(p.at.size() == 1);
    CHECK(p.at[0].line == 3);
    CHECK(p.at[0].placed);
    CHECK(p.message.find("is in an endless loop: after 20000000 warp instructions, block (0,0), warp 0 at line 3 came back "
                         "with every register unchanged") != std::string::npos);
    CHECK(p.record == -1);  // no request of its own
  }
  SUBCASE("assert") {
    const std::string prog = program_file("asserts.cu",
                                          "#include <cassert>\n"
                                          "__global__ void k(int* a) {\n"
                                          "  a[threadIdx.x] = 1;\n"
                                          "  assert(threadIdx.x < 5);\n"
                                          "}\n"
                                          "int main() { int* a; cudaMalloc(&a, 128); k<<<1, 32>>>(a);\n"
                                          "  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1; }\n");
    program::Result r = program::run(opts(prog));
    const program::Problem& p = r.ending.problem;
    CHECK(p.kind == "assert");
    REQUIRE(p.at.size() == 1);
    CHECK(p.at[0].line == 4);
    CHECK(p.at[0].file.find("asserts.cu") != std::string::npos);
    CHECK(p.at[0].thread[0] == 5);  // the first lane for which it fails
    CHECK(p.message.find("Assertion `threadIdx.x < 5` failed") != std::string::npos);
    CHECK(r.exit_code == 1);
  }
  SUBCASE("host crash") {
    const std::string prog = program_file("crashes.cu",
                                          "#include <cstdio>\n"
                                          "__global__ void k(int* a) { a[threadIdx.x] = 1; }\n"
                                          "int main() { int* a; cudaMalloc(&a, 128); k<<<1, 32>>>(a);\n"
                                          "  cudaDeviceSynchronize();\n"
                                          "  std::printf(\"one\\ntwo\\nabout to crash\\n\"); std::fflush(stdout);\n"
                                          "  *(volatile int*)nullptr = 1; return 0; }\n");
    try {
      program::run(opts(prog));
      FAIL("a program that crashed came back as run");
    } catch (const program::Error& e) {
      CHECK(e.problem.kind == "crash");
      CHECK(e.problem.message.find("Segmentation fault") != std::string::npos);
      CHECK(e.problem.output.find("about to crash") != std::string::npos);
      CHECK(e.problem.output.find("two") != std::string::npos);
    }
  }
  SUBCASE("compile error") {
    try {
      program::run(opts("tests/programs/bad/does_not_compile.cu"));
      FAIL("a program that does not compile ran");
    } catch (const program::Error& e) {
      CHECK(e.problem.kind == "compile");
      REQUIRE(e.problem.at.size() == 1);
      CHECK(e.problem.at[0].line == 2);
      CHECK(e.problem.at[0].file.find("does_not_compile.cu") != std::string::npos);
      CHECK(e.problem.message == e.what());
    }
  }
}
