// The compiling engine's cache: a module compiled once is found again by its code, whatever
// its PTX file is called (a program's PTX lies in a folder of its own each run), and loaded
// at once; a module the compiler cannot build runs on the interpreter, said in one line; a
// block's accesses through one register, settled once, move what the interpreter moves.
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

TEST_CASE("a block's whole-warp accesses through one register move the bytes and make the records the interpreter does") {
  const std::string cache = fresh_dir("ws-engine-spread");
  const std::string text = test::slurp("tests/ptx/fixtures/spread.ptx");
  REQUIRE(!text.empty());
  // Each engine three ways: every access recorded; 8 blocks past a cap of 4 records on two
  // workers (where the compiled code only counts); unrecorded (only the bytes move).
  struct Run {
    trace::Trace t;
    std::vector<uint32_t> out = std::vector<uint32_t>(257);
  };
  const auto run = [&](bool compiled, int way) {
    Run r;
    ptx::Device dev;
    if (compiled) {
      ptx::EngineOptions o;
      o.cache_dir = cache;
      o.wait = true;
      dev.engine(ptx::Engine::Compiled, o);
    } else {
      dev.engine(ptx::Engine::Interpreter);
    }
    dev.load(ptx::parse(text, "spread.ptx"));
    dev.threads(2);
    const uint64_t d = dev.malloc(1028, "d_out");
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &d, 8);
    trace::Builder b(r.t, way == 1 ? 4 : 1'000'000);
    const ptx::KernelLaunch la{dev.module().kernels.at(0).name, {way == 1 ? 8u : 1u, 1, 1}, {32, 1, 1}, 0, params};
    if (way == 2) {  // the first launch recorded, the second (on other bytes) not
      dev.record_launches(1);
      dev.launch(la, b);
      REQUIRE(dev.memset(d, 0xff, 1028));
    }
    dev.launch(la, b);
    REQUIRE(dev.to_host(r.out.data(), d, 1028));
    for (trace::Launch& l : r.t.launches) l.seconds = 0;
    CHECK(r.t.launches.back().engine == (compiled ? "compiled" : "interpreter"));
    for (trace::Launch& l : r.t.launches) l.engine.clear();
    return r;
  };
  // The figures on paper: tile[i] = i and tile[32 + i] = 100 + i; tile[64] is lane 31's (one
  // element, the last lane wins); tile[80 + j] lane 28 + j's (lanes apart, in order).
  const auto tile = [](uint32_t i) { return i < 32 ? i : 100 + (i - 32); };
  for (int way = 0; way < 3; ++way) {
    INFO("way " << way);
    const Run a = run(false, way), c = run(true, way);
    CHECK(a.t == c.t);  // records, and past the cap the records dropped
    if (way == 1) CHECK(c.t.launches.at(0).dropped_records > 0);
    CHECK(a.out == c.out);
    for (uint32_t l = 0; l < 32; ++l) {
      INFO("lane " << l);
      const uint32_t* w = c.out.data() + 8 * l;
      CHECK(w[0] == tile(l + 1));  // an offset of the register's run
      CHECK(w[1] == tile(l + 2));  // the register written between two uses
      CHECK(w[2] == 31);           // a broadcast
      CHECK(w[3] == 28 + l % 4);   // lanes apart
      CHECK(w[4] == tile(2 * l));  // v2
      CHECK(w[5] == tile(2 * l + 1));
      CHECK(w[6] == l);            // lanes 0-3's addresses wrap past 2^64
      CHECK(w[7] == tile(l + 1));  // a negative offset
    }
    CHECK(c.out[256] == 31);  // one global element, the last lane's
  }
  std::filesystem::remove_all(cache);
}
