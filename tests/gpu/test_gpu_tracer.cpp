// The GPU tracer live on this machine's GPU: the programs of tests/programs run traced at the
// SASS level and on the emulated device; transpose_twin.cu's two traces are equal warp by
// warp, and the textbook tiled SGEMM's inner product runs as LDS.128. Skipped where the
// tracer was not built (no compute-sanitizer/ in the toolkit) or nvcc is missing.
#include <doctest/doctest.h>

#include <string>

#include "../compare_requests.h"
#include "analysis/levels.h"
#include "program/program.h"

using namespace ws;

namespace {

bool can_trace() {
  if (program::tracer_dir().empty() || program::find_nvcc().empty()) {
    MESSAGE("the GPU tracer or nvcc is missing here: skipped");
    return false;
  }
  return true;
}

program::Result run(const std::string& file, const char* backend, std::vector<std::string> args = {}) {
  program::Options o;
  o.source = "tests/programs/" + file;
  o.echo = false;
  o.backend = backend;
  o.args = std::move(args);
  return program::run(o);
}

}  // namespace

TEST_CASE("the GPU tracer: programs run traced on this GPU, as many launches as on the emulated device") {
  if (!can_trace()) return;
  for (const char* p : {"vector_add.cu", "tiled_reduce.cu", "transpose_twin.cu", "matmul_tiled.cu"}) {
    CAPTURE(p);
    const program::Result g = run(p, "gpu"), e = run(p, "emulator");
    CHECK(g.trace.provenance.backend == "gpu");
    CHECK(g.exit_code == 0);
    REQUIRE(g.trace.launches.size() == e.trace.launches.size());
    for (size_t k = 0; k < g.trace.launches.size(); ++k) {
      CHECK(g.trace.launches[k].dropped_records == 0);
      CHECK(g.trace.launches[k].lane_accesses > 0);
    }
  }
}

TEST_CASE("the GPU tracer: transpose_twin.cu equals the emulated device warp by warp; matmul_tiled.cu's LDS.128 merge") {
  if (!can_trace()) return;
  const program::Result g = run("transpose_twin.cu", "gpu"), e = run("transpose_twin.cu", "emulator");
  REQUIRE(g.trace.launches.size() == 2);
  for (uint32_t k = 0; k < 2; ++k) CHECK(test::requests_of(g.trace, k) == test::requests_of(e.trace, k));
  const program::Result mg = run("matmul_tiled.cu", "gpu"), me = run("matmul_tiled.cu", "emulator");
  bool merged = false;
  for (const analysis::LineLevels& l : analysis::compare_levels(me.trace, 0, mg.trace, 0))
    merged |= l.line == 21 && l.verdict.find("merged 4 scalar 4-byte accesses") != std::string::npos;
  CHECK(merged);
}
