// The compiling engine's cache: a module compiled once is found again by its code, whatever
// its PTX file is called (a program's PTX lies in a folder of its own each run), and loaded
// at once; a module the compiler cannot build runs on the interpreter, said in one line.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ptx/engine.h"
#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "past_cap_run.h"

using namespace ws;

namespace {

std::string past_cap_ptx() {
  std::ifstream f("tests/ptx/fixtures/past_cap.ptx", std::ios::binary);
  REQUIRE(f.good());
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string fresh_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d.string();
}

}  // namespace

TEST_CASE("a module is compiled once and found again by its code, under any file name") {
  ptx::EngineOptions o;
  o.cache_dir = fresh_dir("ws-engine-cache");
  const ptx::Module a = ptx::parse(past_cap_ptx(), "/tmp/run-1/prog.ptx");
  const ptx::Module b = ptx::parse(past_cap_ptx(), "/tmp/run-2/prog.ptx");
  ptx::EngineBuild first(a, o);
  CHECK(!first.ready());
  first.start(true);
  REQUIRE_MESSAGE(first.ready(), first.error());
  CHECK(first.compile_seconds() > 0);
  CHECK(bool(first.ready()->entry(0)));
  ptx::EngineBuild again(b, o);
  CHECK(again.library() == first.library());
  CHECK(again.ready());  // from the cache, at once
  CHECK(again.compile_seconds() == 0);
  std::filesystem::remove_all(o.cache_dir);
}

TEST_CASE("a module the compiler cannot build runs on the interpreter, and says why") {
  ptx::EngineOptions o;
  o.cache_dir = fresh_dir("ws-engine-nocompiler");
  o.compiler = "false";  // a compiler that fails every time
  o.wait = true;
  ptx::Device dev;
  dev.engine(ptx::Engine::Compiled, o);
  dev.load(ptx::parse(past_cap_ptx(), "past_cap.ptx"));
  const uint64_t out = dev.malloc(256, "d_out");
  std::vector<uint8_t> params(8);
  std::memcpy(params.data(), &out, 8);
  trace::Trace t;
  trace::Builder b(t);
  dev.launch({dev.module().kernels.at(1).name, {2, 1, 1}, {32, 1, 1}, 0, params}, b);
  CHECK(t.launches.at(0).engine == "interpreter");
  CHECK(dev.engine_note().find("cannot compile its own sources") != std::string::npos);
  std::filesystem::remove_all(o.cache_dir);
}

TEST_CASE("past the record cap the compiling engine counts the records and finds the races the interpreter does") {
  const std::string cache = fresh_dir("ws-engine-late");
  // On one core blocks 51 on are counted by the compiled code itself (every site made); on
  // two, by the workers that take over after block 50.
  for (uint32_t threads : {1u, 2u}) {
    INFO(threads << " cores");
    test::PastCap a = test::run_past_cap("late_races", threads), b = test::run_past_cap("late_races", threads, cache);
    REQUIRE(b.t.launches.size() == 1);
    CHECK(b.t.launches[0].engine == "compiled");
    for (test::PastCap* x : {&a, &b}) x->t.launches[0].engine.clear();
    CHECK(a.t == b.t);  // records, arrays, blocks and the records dropped past the cap
    CHECK(b.t.launches[0].dropped_records > 0);
    REQUIRE(b.races.size() == 2);  // block 37's and block 50's, each at its own line
    for (size_t i = 0; i < 2; ++i) {
      CHECK(b.races[i].block == a.races[i].block);
      CHECK(b.races[i].second.line == a.races[i].second.line);
      CHECK(b.races[i].second.thread == a.races[i].second.thread);
    }
    // Every block repeats its BlockRun's reference but the references and the two that race.
    CHECK(b.repeated >= 64 - 3 - 2);
    CHECK(a.repeated == b.repeated);
    // late_fault's block 60 writes past d_out: the same fault, and the records counted up to it.
    test::PastCap fa = test::run_past_cap("late_fault", threads), fb = test::run_past_cap("late_fault", threads, cache);
    CHECK(fa.fault.find("out-of-bounds") != std::string::npos);
    CHECK(fb.fault == fa.fault);
    REQUIRE(fb.t.launches.size() == 1);
    for (test::PastCap* x : {&fa, &fb}) x->t.launches[0].engine.clear();
    CHECK(fa.t == fb.t);
  }
  std::filesystem::remove_all(cache);
}
