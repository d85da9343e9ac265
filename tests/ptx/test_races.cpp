// Shared-memory races on the emulated device: tests/programs/races/races.cu's kernels (its
// PTX in fixtures/races.ptx), one block of two warps each. A race is two warps on one word
// between the same two barriers, one writing, not both atomic; each pair of lines once.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "../support.h"

using namespace ws;

namespace {

std::string text_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), "missing " << path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The line of races.cu that holds `marker` (1-based).
uint32_t line_of(const std::string& marker) { return ws::test::line_of("tests/programs/races/races.cu", marker); }

// An emulated device with races.cu loaded, and the trace its launches go to.
struct Machine {
  ptx::Device dev;
  trace::Trace t;
  trace::Builder b{t};
};

// Runs races.cu's kernel `name` (one block of 64 threads) on `m`: recorded, or a recorded
// launch then an unrecorded one.
void run(Machine& m, const std::string& name, bool recorded = true) {
  ptx::Device& dev = m.dev;
  if (dev.module().kernels.empty()) dev.load(ptx::parse(text_of("tests/ptx/fixtures/races.ptx"), "races.ptx"));
  const ptx::Kernel* k = nullptr;
  for (const ptx::Kernel& x : dev.module().kernels)
    if (ptx::kernel_name(x.name) == name) k = &x;
  REQUIRE_MESSAGE(k, "no kernel " << name);
  const uint64_t out = dev.malloc(64 * 4, "d_out");
  std::vector<uint8_t> params(k->param_bytes, 0);
  std::memcpy(params.data() + k->params.at(0).offset, &out, 8);
  dev.record_launches(recorded ? 0 : 1);
  if (!recorded) dev.launch({k->name, {1, 1, 1}, {64, 1, 1}, 0, params}, m.b);  // the first launch is recorded
  dev.launch({k->name, {1, 1, 1}, {64, 1, 1}, 0, params}, m.b);
}

}  // namespace

TEST_CASE("two warps on one shared word with no barrier between: the read and the write, both lines and threads") {
  Machine m;
  const ptx::Device& dev = m.dev;
  run(m, "raceNoBarrier");
  REQUIRE(dev.races().size() == 1);
  const ptx::Race& r = dev.races()[0];
  // Warp 0 runs first here: thread 31 reads s[63 - 31] = s[32] before thread 32 writes it.
  CHECK(r.name == "raceNoBarrier::s");
  CHECK(r.offset == 32 * 4);
  CHECK(r.block == 0);
  CHECK(r.first.access == ptx::RaceEnd::Read);
  CHECK(r.first.line == line_of("RACE-READ"));
  CHECK(r.first.thread == 31);
  CHECK(r.second.access == ptx::RaceEnd::Write);
  CHECK(r.second.line == line_of("RACE-WRITE"));
  CHECK(r.second.thread == 32);
  CHECK(dev.races_left_out().empty());
}

TEST_CASE("no race across a barrier, among atomics on one word, within one warp, or on neighbouring bytes") {
  for (const char* k : {"barrierBetween", "atomicsOnOneWord", "oneWarpOnly", "neighbouringBytes"}) {
    CAPTURE(k);
    Machine m;
    const ptx::Device& dev = m.dev;
    run(m, k);
    CHECK(dev.races().empty());
  }
}

TEST_CASE("an atomic and a plain read of one word with no barrier between race") {
  Machine m;
  const ptx::Device& dev = m.dev;
  run(m, "atomicThenRead");
  REQUIRE(dev.races().size() == 1);
  const ptx::Race& r = dev.races()[0];
  // Warp 0's lanes add and read; warp 1's first add meets thread 0's read.
  CHECK(r.name == "atomicThenRead::n");
  CHECK(r.offset == 0);
  CHECK(r.first.access == ptx::RaceEnd::Read);
  CHECK(r.first.line == line_of("ATOMIC-READ"));
  CHECK(r.first.thread == 0);
  CHECK(r.second.access == ptx::RaceEnd::Atomic);
  CHECK(r.second.line == line_of("ATOMIC-ADD"));
  CHECK(r.second.thread == 32);
}

TEST_CASE("each pair of lines is reported once, at most kRacesPerLaunch a launch; the rest are counted") {
  Machine m;
  const ptx::Device& dev = m.dev;
  run(m, "manyRaces");
  // Warp 1's write of line i meets warp 0's first read (line 1): 12 pairs; its read of line
  // i meets warp 0's last write (line 12): 12 more, (1, 12) among both: 23 in all.
  CHECK(dev.races().size() == ptx::kRacesPerLaunch);
  REQUIRE(dev.races_left_out().count(0));
  CHECK(dev.races_left_out().at(0) == 23 - ptx::kRacesPerLaunch);
  // Per launch: a second launch keeps its own ten.
  run(m, "manyRaces");
  CHECK(dev.races().size() == 2 * ptx::kRacesPerLaunch);
  CHECK(dev.races().back().launch == 1);
}

TEST_CASE("races are looked for in recorded launches only, and not at all when turned off") {
  Machine unrecorded;
  run(unrecorded, "raceNoBarrier", false);
  CHECK(unrecorded.dev.races().size() == 1);  // the first launch, recorded; the second, unrecorded, adds none
  Machine off;
  off.dev.detect_races(false);
  run(off, "raceNoBarrier");
  CHECK(off.dev.races().empty());
}
