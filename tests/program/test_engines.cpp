// tests/program/test_engines.cpp — the emulated device's two engines give the same answers:
// every single-file program of tests/programs and examples/ run once on the interpreter and
// once on the compiling engine (compiled at its first launch) writes the same trace file
// byte for byte once the figures that time the run are set aside (each launch's seconds
// and engine, the date), and prints the same, exits the same, stops at the same fault and
// finds the same races. Skipped (with a message) where nvcc is missing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <csignal>
#include <fstream>
#include <iterator>
#include <unistd.h>
#include <string>
#include <vector>

#include "program/program.h"
#include "trace/wstrace.h"
#include "../support.h"

using namespace ws;

namespace {

namespace fs = std::filesystem;

// The trace without what differs from run to run: timings, the engine's name, the date.
std::string timeless(trace::Trace t) {
  for (trace::Launch& l : t.launches) {
    l.seconds = 0;
    l.engine.clear();
  }
  t.provenance.date.clear();
  return trace::encode_trace(t);
}

program::Result run_on(const std::string& file, const std::string& engine, uint64_t max_records = 2'000'000) {
  program::Options o;
  o.source = file;
  o.max_records = max_records;
  o.echo = false;
  o.engine = engine;
  o.timeout_seconds = 120;
  // The compiling engine from the first launch on (not after its usual 0.3 s interpreted).
  setenv("WARPSCOPE_ENGINE_AFTER", engine == "compiled" ? "0" : "0.3", 1);
  program::Result r;
  try {
    r = program::run(o);
  } catch (const program::Error& e) {
    r.output = std::string("error: ") + e.what();
  }
  unsetenv("WARPSCOPE_ENGINE_AFTER");
  return r;
}

// The programs: one .cu each (left out: folders of several files, programs that never end,
// and threads.cu, whose host threads launch in an order no two runs share).
std::vector<std::string> programs() {
  std::vector<std::string> out;
  for (const char* dir : {"tests/programs", "examples"})
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const std::string p = e.path().string();
      if (e.path().extension() != ".cu" || p.find("/multi/") != std::string::npos) continue;
      if (p.find("threads.cu") != std::string::npos || p.find("endless") != std::string::npos || p.find("spins") != std::string::npos ||
          p.find("too_much_memory") != std::string::npos || p.find("does_not_compile") != std::string::npos ||
          p.find("does_not_link") != std::string::npos)
        continue;
      out.push_back(p);
    }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("every program gives the same trace, output and ending on the interpreter and the compiling engine") {
  if (!ws::test::have_nvcc("the engines' comparison skipped")) return;
  const std::vector<std::string> files = programs();
  CHECK(files.size() >= 20);
  size_t compiled_launches = 0;
  for (const std::string& f : files) {
    INFO(f);
    const program::Result a = run_on(f, "interpreter"), b = run_on(f, "compiled");
    CHECK(a.output == b.output);
    CHECK(a.exit_code == b.exit_code);
    CHECK(a.ending.kind == b.ending.kind);
    CHECK(a.ending.message == b.ending.message);
    CHECK(a.races == b.races);
    CHECK(timeless(a.trace) == timeless(b.trace));
    for (const trace::Launch& l : a.trace.launches)
      if (!l.engine.empty()) CHECK(l.engine == "interpreter");
    for (const trace::Launch& l : b.trace.launches) compiled_launches += l.engine == "compiled";
  }
  CHECK(compiled_launches > files.size());  // the comparison ran native code, not the interpreter twice
}

TEST_CASE("past a record cap of 40, programs with async copies, mbarriers and matrix loads give the same trace on both engines") {
  // Past the cap the compiling engine counts an access itself; the warp's sequence moves on
  // as the interpreter's does, so the events after it (an async copy's commit and wait, an
  // mma, an mbarrier's phase) carry the same sequence numbers.
  if (!ws::test::have_nvcc("the engines' comparison skipped")) return;
  size_t with_events = 0;
  for (const std::string& f : programs()) {
    if (f.find("async_copy") == std::string::npos && f.find("tma_ring") == std::string::npos &&
        f.find("tc_twin") == std::string::npos && f.find("ldmatrix_swizzle") == std::string::npos)
      continue;
    INFO(f);
    const program::Result a = run_on(f, "interpreter", 40), b = run_on(f, "compiled", 40);
    CHECK(a.exit_code == b.exit_code);
    REQUIRE(!a.trace.launches.empty());
    CHECK(a.trace.launches[0].dropped_records > 0);
    with_events += !a.trace.events.empty();
    CHECK(timeless(a.trace) == timeless(b.trace));
  }
  CHECK(with_events >= 2);  // async_copy's commits and waits, tma_ring's mbarrier phases
}

TEST_CASE("past a small record cap, on every core, both engines find the one block's race and count the same records") {
  if (!ws::test::have_nvcc("the engines' comparison past the cap skipped")) return;
  // late_race.cu: 64 blocks alike but block 37, which races; the cap (4 records) is reached
  // in block 0, so the other 63 run on the workers, where the compiling engine counts the
  // accesses and checks the repeated blocks' races in its own code.
  const std::string f = "tests/programs/races/late_race.cu";
  const program::Result a = run_on(f, "interpreter", 4), b = run_on(f, "compiled", 4);
  CHECK(a.exit_code == 0);
  CHECK(b.output == a.output);
  CHECK(timeless(a.trace) == timeless(b.trace));
  REQUIRE(b.trace.launches.size() == 1);
  CHECK(b.trace.launches[0].engine == "compiled");
  CHECK(b.trace.launches[0].dropped_records == a.trace.launches[0].dropped_records);
  CHECK(b.trace.launches[0].dropped_records > 0);
  CHECK(a.races == b.races);
  REQUIRE(b.races.races.size() == 1);
  const program::Race& r = b.races.races[0];
  CHECK(r.block.x == 37);
  // Warp 0 runs first: it writes its words after reading warp 1's; warp 1 then reads them.
  CHECK(r.ends[0].line == ws::test::line_of(f, "LATE-WRITE"));
  CHECK(r.ends[1].line == ws::test::line_of(f, "LATE-READ"));
}

TEST_CASE("a short module's compile still running when the program ends is left to fill the cache, holding none of its output") {
  if (!ws::test::have_nvcc("the compile's end skipped")) return;
  // A fresh cache: the engine's headers and the module are compiled again (seconds), in the
  // background once matmul_tiled.cu's launch has run 0.3 s interpreted; the program ends
  // about half a second later, long before the compile would. The program's run returns at
  // once (the compiler holds none of its output open), and its compiler goes on, marked as
  // the cache folder's one left compile (EngineBuild::leave; test_engine waits for such a
  // compile's end and finds its library). A long module's compile is stopped instead
  // (CUTLASS's: gigabytes and many minutes each).
  const fs::path cache = fs::temp_directory_path() / ("warpscope-test-engine-leave-" + std::to_string(::getpid()));
  fs::create_directories(cache);
  const char* old = std::getenv("XDG_CACHE_HOME");
  const std::string kept = old ? old : "";
  setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  program::Options o;
  o.source = "tests/programs/matmul_tiled.cu";
  o.args = {"384"};
  o.echo = false;
  o.engine = "compiled";
  o.timeout_seconds = 120;
  const program::Result r = program::run(o);
  if (old) setenv("XDG_CACHE_HOME", kept.c_str(), 1);
  else unsetenv("XDG_CACHE_HOME");
  CHECK(r.exit_code == 0);
  // The processes whose command line names the fresh cache (the compiler's), killed with
  // `kill` set: this test does not wait for them.
  auto compilers = [&](bool kill_them) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator("/proc")) {
      std::ifstream f(e.path() / "cmdline", std::ios::binary);
      const std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      if (cmd.find(cache.string()) == std::string::npos) continue;
      ++n;
      if (kill_them) ::kill(std::atoi(e.path().filename().c_str()), SIGKILL);
    }
    return n;
  };
  size_t markers = 0, libraries = 0;
  for (const auto& e : fs::directory_iterator(cache / "warpscope" / "engine")) {
    const std::string name = e.path().filename().string();
    markers += name.rfind("left-", 0) == 0;
    libraries += e.path().extension() == ".so";
  }
  CHECK(markers + libraries == 1);     // left and running, or done already
  CHECK((compilers(false) > 0) == (markers == 1));
  compilers(true);
  fs::remove_all(cache);
}
