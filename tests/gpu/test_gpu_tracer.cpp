// The GPU tracer live on this machine's GPU: the programs of tests/programs run traced at the
// SASS level and on the emulated device; transpose_twin.cu's two traces are equal warp by
// warp, and the textbook tiled SGEMM's inner product runs as LDS.128. Skipped where the
// tracer was not built (no compute-sanitizer/ in the toolkit) or nvcc is missing.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "../compare_requests.h"
#include "analysis/levels.h"
#include "cli/catalog_sass.h"
#include "program/program.h"
#include "session/bench.h"
#include "session/capture.h"
#include "session/hardware.h"
#include "trace/bench.h"

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

TEST_CASE("each launch timed plainly on this GPU: buffers restored between runs, work from the annotation, % of cuBLAS") {
  if (!can_trace()) return;
  // histogram.cu adds into its global bins with atomics: a launch run again and again
  // without its buffers restored would multiply them, and the program's own check fails.
  program::Options o;
  o.source = "examples/histogram.cu";
  o.echo = false;
  o.backend = "gpu";
  const program::Result h = program::run(o);
  CHECK(h.exit_code == 0);
  CHECK(h.notes.empty());
  trace::BenchResult b;
  std::string error;
  REQUIRE(trace::read_bench(h.trace.timings_json, b, error));
  REQUIRE(b.rows.size() == h.trace.launches.size());
  for (const trace::BenchRow& r : b.rows) {
    CAPTURE(r.kernel);
    CHECK(r.ok);
    CHECK(r.runs >= 10);
    CHECK(r.ms > 0);
    CHECK(r.ms_min <= r.ms);
    CHECK(r.ms <= r.ms_max);
    CHECK(r.note.find("restored before each run") != std::string::npos);
  }
  o.time = false;
  CHECK(program::run(o).trace.timings_json.empty());

  // The textbook tiled SGEMM at 512: 2·512³ flops from its `// warpscope:` line.
  const program::Result m = run("matmul_tiled.cu", "gpu", {"512"});
  CHECK(m.exit_code == 0);
  REQUIRE(trace::read_bench(session::with_yardsticks(m.trace.timings_json), b, error));
  REQUIRE(b.rows.size() == 1);
  const trace::BenchRow& r = b.rows[0];
  CHECK(r.kernel == "matmulTiled");
  CHECK(r.params.at("N") == 512);
  CHECK(r.gflops == doctest::Approx(2.0 * 512 * 512 * 512 / (r.ms * 1e-3) / 1e9));
  CHECK(b.cublas_size == 512);
  CHECK(b.cublas_gflops > 0);
  CHECK(r.pct_cublas == doctest::Approx(100.0 * r.gflops / b.cublas_gflops));
  CHECK(r.pct_cublas > 1);
  CHECK(r.pct_cublas < 100);  // a textbook kernel, not cuBLAS
  CHECK(r.gbs > 0);
  CHECK(b.copy_bytes == 3 * 4 * 512 * 512 / 2 / 256 * 256 * 2);
  MESSAGE(trace::program_times_text(b));
}

TEST_CASE("the catalog's own matmul_tiled traced at the SASS level: the source's scalar shared loads ran as LDS.128 too") {
  if (!can_trace()) return;
  session::LaunchSpec spec;
  spec.kernel = "matmul_tiled";
  spec.backend = "emulator";
  const session::ResolvedLaunch l = session::resolve(spec);
  const trace::Trace sass = cli::catalog_sass(l);
  REQUIRE(sass.launches.size() == 1);
  CHECK(sass.launches[0].kernel == "matmul_tiled");
  CHECK(sass.launches[0].params == l.params.values);
  CHECK(sass.launches[0].dropped_records == 0);
  std::set<std::string> names;
  for (const trace::Buffer& b : sass.buffers) names.insert(b.name);
  CHECK(names.count("A"));
  CHECK(names.count("C"));
  std::set<std::string> ops;
  for (const trace::Site& s : sass.sites) ops.insert(s.instruction);
  CHECK(ops.count("LDS.128"));
  // Lines of kernels/matmul.h, beside the emulated device's trace of the same launch.
  const session::Capture c = session::capture(l);
  bool merged = false, global_same = false;
  for (const analysis::LineLevels& lv : analysis::compare_levels(c.trace, 0, sass, 0)) {
    CAPTURE(lv.line);
    CHECK(lv.file == "matmul.h");
    if (lv.space == trace::Space::Shared && lv.op == trace::Op::Load)
      merged = lv.verdict.find("merged 4 scalar 4-byte accesses") != std::string::npos;
    if (lv.space == trace::Space::Global && lv.op == trace::Op::Load) global_same = global_same || lv.verdict.empty();
  }
  CHECK(merged);
  CHECK(global_same);
}
