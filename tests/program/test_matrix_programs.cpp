// tests/program/test_matrix_programs.cpp — programs that read shared tiles with ldmatrix and
// multiply on the tensor cores (tests/programs/ldmatrix_swizzle.cu, matrix/fragments.cu,
// matrix/wmma.cu), run whole on the emulated device: their own checks pass, and the report
// gives the H100's wavefronts for a plain and an XOR-swizzled tile.
#include <doctest/doctest.h>

#include <string>

#include "analysis/analysis.h"
#include "program/program.h"

using namespace ws;

namespace {

program::Result run_program(const std::string& file) {
  program::Options o;
  o.source = "tests/programs/" + file;
  o.echo = false;
  o.timeout_seconds = 120;
  return program::run(o);
}

}  // namespace

TEST_CASE("ldmatrix_swizzle.cu: ldmatrix.x4 costs 32 wavefronts from the plain tile, 4 from the swizzled one (the H100's figures)") {
  if (program::find_nvcc().empty()) return;
  const program::Result r = run_program("ldmatrix_swizzle.cu");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("plain tile: correct") != std::string::npos);
  CHECK(r.output.find("swizzled tile: correct") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 2);
  for (uint32_t k = 0; k < 2; ++k) {
    CAPTURE(k);
    const trace::Trace one = trace::launch_trace(r.trace, k);
    const analysis::Report rep = analysis::analyze(one, analysis::DramModel{});
    int ldmatrix_sites = 0;
    for (const analysis::SiteStats& s : rep.sites) {
      const trace::Site& site = one.sites[s.site];
      if (site.form != trace::Form::Matrix) continue;
      ++ldmatrix_sites;
      CHECK(site.instruction == "ldmatrix.sync.aligned.m8n8.x4.shared.b16");
      CHECK(site.bytes == 16);
      // Launch 0 reads the plain tile: each matrix's 8 rows share their banks.
      CHECK(s.wavefronts_per_request == doctest::Approx(k == 0 ? 32.0 : 4.0));
    }
    CHECK(ldmatrix_sites >= 2);  // A's and B's (one site per unrolled instruction)
  }
  // Each of 4 warps: 4 steps of k, 8 mma each, in both launches.
  CHECK(r.trace.events.size() == 2 * 4 * 4 * 8);
  for (const trace::Event& e : r.trace.events) CHECK(r.trace.event_sites[e.site].form == trace::Form::Mma);
}

TEST_CASE("matrix/fragments.cu: ldmatrix, stmatrix, movmatrix and every mma.sync form place elements as the H100 does") {
  if (program::find_nvcc().empty()) return;
  const program::Result r = run_program("matrix/fragments.cu");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("cvt.rna.tf32.f32: correct") != std::string::npos);
  CHECK(r.output.find("WRONG") == std::string::npos);
  CHECK(r.output.find("PASSED") != std::string::npos);
}

TEST_CASE("matrix/wmma.cu: nvcuda::wmma's load, mma, store and elementwise steps for every shape and type") {
  if (program::find_nvcc().empty()) return;
  const program::Result r = run_program("matrix/wmma.cu");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("WRONG") == std::string::npos);
  CHECK(r.output.find("PASSED") != std::string::npos);
  // Loads and stores are plain accesses of up to 16 bytes a lane; the products are events.
  bool wide = false;
  for (const trace::Site& s : r.trace.sites)
    if (s.instruction.rfind("wmma.", 0) == 0) {
      CHECK(s.form == trace::Form::Plain);
      CHECK(s.bytes <= 16);
      wide |= s.bytes == 16;
    }
  CHECK(wide);
  CHECK(r.trace.events.size() == 12);
}
