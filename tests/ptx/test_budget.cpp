// The endless-loop stop: a block that spends its instruction budget is watched, and only a
// block whose every warp comes back to where it stood with nothing changed is stopped; a
// long loop that counts runs to its end, on both engines, with a budget far below its length.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ptx/engine.h"
#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "../support.h"
#include "past_cap_run.h"

using namespace ws;

namespace {

struct Outcome {
  std::string fault;
  std::vector<uint32_t> out;
};

// Kernel `name` of loops.ptx, one block of `threads`, with a budget of `budget` warp
// instructions a block; on the compiling engine when `cache` is given.
Outcome run_loop(const std::string& name, uint32_t threads, uint32_t n, uint64_t budget, const std::string& cache = "") {
  Outcome r;
  ptx::Device dev;
  test::engine_for(dev, cache);
  const std::string text = test::slurp("tests/ptx/fixtures/loops.ptx");
  REQUIRE_MESSAGE(!text.empty(), "missing fixture loops.ptx");
  dev.load(ptx::parse(text, "loops.ptx"));
  const uint64_t out = dev.malloc(threads * 4, "d_out");
  const ptx::Kernel& k = *dev.module().kernel(name);
  std::vector<uint8_t> params(k.param_bytes, 0);
  std::memcpy(params.data() + k.params[0].offset, &out, 8);
  if (k.params.size() > 1) std::memcpy(params.data() + k.params[1].offset, &n, 4);
  trace::Trace t;
  trace::Builder b(t, 1000);
  try {
    dev.launch({k.name, {1, 1, 1}, {threads, 1, 1}, 0, params}, b, budget);
  } catch (const ptx::Fault& f) {
    r.fault = f.what();
  }
  r.out.resize(threads);
  dev.to_host(r.out.data(), out, threads * 4);
  return r;
}

}  // namespace

TEST_CASE("a block past its budget is stopped only if nothing in it changes: a long loop runs to its end") {
  const std::string cache = test::temp_dir("budget-engine", true).string();
  for (const std::string& c : {std::string(), cache}) {
    CAPTURE(c);
    // 50,000 times round a three-instruction loop: 150,000 warp instructions, 300 times the budget.
    const Outcome counted = run_loop("count", 64, 50'000, 500, c);
    CHECK(counted.fault.empty());
    for (uint32_t t = 0; t < 64; ++t) CHECK(counted.out[t] == 50'000 + t % 32);

    const Outcome spun = run_loop("spin", 32, 0, 500, c);
    CHECK(spun.fault.find("kernel spin is in an endless loop: after 500 warp instructions, block (0,0), warp 0 at line 0 "
                          "came back with every register unchanged") != std::string::npos);

    // Warp 0's count is progress, each time the budget runs out; once it has ended, warp 1
    // spinning alone is the endless loop, and warp 0's result is in memory.
    const Outcome mixed = run_loop("count_then_spin", 64, 20'000, 500, c);
    CHECK(mixed.fault.find("kernel count_then_spin is in an endless loop") != std::string::npos);
    CHECK(mixed.fault.find("warp 1 at line 0 came back") != std::string::npos);  // no .loc in this PTX: line 0
    CHECK(mixed.out[0] == 20'000);
    CHECK(mixed.out[31] == 20'000);
  }
}
