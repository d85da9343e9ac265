// The small atomic programs of tests/programs/atomics on the emulated device: each launch's
// atomic site gets the path ptxas gives it and the figures an H100 measured for it with
// Nsight Compute (docs/validation.md, "Atomics"). Skipped where nvcc is missing.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis.h"
#include "program/program.h"

using namespace ws;
using trace::AtomicPath;

namespace {

program::Result run_atomics(const std::string& file) {
  program::Options o;
  o.source = "tests/programs/atomics/" + file;
  o.record_launches = 0;  // every launch: each is a pattern of its own
  o.echo = false;
  o.timeout_seconds = 60;
  return program::run(o);
}

struct Atomic {
  AtomicPath path = AtomicPath::PerLane;
  double per_request = 0;  // wavefronts (shared) or sectors (global) per request
  double conflicts = 0;    // shared: bank conflicts per request
  std::string why;
};

// The one atomic site of each launch, in launch order.
std::vector<Atomic> atomics_of(const trace::Trace& t) {
  std::vector<Atomic> out;
  for (uint32_t k = 0; k < t.launches.size(); ++k) {
    const trace::Trace one = trace::launch_trace(t, k);
    const analysis::Report rep = analysis::analyze(one, analysis::DramModel{});
    for (const analysis::SiteStats& s : rep.sites) {
      const trace::Site& site = one.sites[s.site];
      if (site.op != trace::Op::Atomic) continue;
      const bool shared = site.space == trace::Space::Shared;
      out.push_back({site.atomic, shared ? s.wavefronts_per_request : s.sectors_per_request,
                     s.conflicts_per_request, s.why});
    }
  }
  return out;
}

}  // namespace

TEST_CASE("shared_atomics.cu: ATOMS.POPC.INC 1 wavefront, contended ATOMS.ADD 32 (31 conflicts), REDUX 1, spread 1") {
  if (program::find_nvcc().empty()) return;
  const program::Result r = run_atomics("shared_atomics.cu");
  CHECK(r.output.find("shared atomics: correct") != std::string::npos);
  const auto a = atomics_of(r.trace);
  REQUIRE(a.size() == 4);
  CHECK(a[0].path == AtomicPath::Increment);
  CHECK(a[0].per_request == 1);
  CHECK(a[0].why == "every lane updates the same word → an add of 1: ATOMS.POPC.INC counts the lanes on each word, 1 wavefront per request");
  CHECK(a[1].path == AtomicPath::PerLane);
  CHECK(a[1].per_request == 32);
  CHECK(a[1].conflicts == 31);
  CHECK(a[1].why == "every lane updates the same word → lanes on one word take turns: 32 wavefronts per request, 31 counted as bank conflicts");
  CHECK(a[2].path == AtomicPath::Combined);
  CHECK(a[2].per_request == 1);
  CHECK(a[2].why.find("ptxas combines the warp's updates into one: 1 wavefront per request") != std::string::npos);
  CHECK(a[3].path == AtomicPath::PerLane);
  CHECK(a[3].per_request == 1);
  CHECK(a[3].conflicts == 0);
}

TEST_CASE("global_atomics.cu: RED on one run-time address 32 sectors, an add of 1 or not; REDUX 1; 32 consecutive ints 4") {
  if (program::find_nvcc().empty()) return;
  const program::Result r = run_atomics("global_atomics.cu");
  CHECK(r.output.find("global atomics: correct") != std::string::npos);
  const auto a = atomics_of(r.trace);
  REQUIRE(a.size() == 4);
  CHECK(a[0].path == AtomicPath::PerLane);  // no POPC.INC for global memory
  CHECK(a[0].per_request == 32);
  CHECK(a[0].why == "every lane updates the same 4-byte word → lanes on one address take turns: 32 sectors per request; ideal 1");
  CHECK(a[1].path == AtomicPath::PerLane);
  CHECK(a[1].per_request == 32);
  CHECK(a[2].path == AtomicPath::Combined);
  CHECK(a[2].per_request == 1);
  CHECK(a[2].why == "every lane updates the same 4-byte word, at an address the same in every lane by construction → ptxas combines the warp's updates into one: 1 sector per request");
  CHECK(a[3].path == AtomicPath::PerLane);
  CHECK(a[3].per_request == 4);
}

TEST_CASE("atomic_patterns.cu: lanes sharing some words take turns per word, banks and sectors as measured") {
  if (program::find_nvcc().empty()) return;
  const program::Result r = run_atomics("atomic_patterns.cu");
  CHECK(r.output.find("atomic patterns: correct") != std::string::npos);
  const auto a = atomics_of(r.trace);
  REQUIRE(a.size() == 8);  // shared then global, for each of the four patterns
  const double shared[] = {16, 32, 8, 16}, global[] = {16, 32, 8, 32};
  for (int p = 0; p < 4; ++p) {
    CAPTURE(p);
    CHECK(a[size_t(2 * p)].per_request == shared[p]);
    CHECK(a[size_t(2 * p + 1)].per_request == global[p]);
  }
  CHECK(a[2].why == "the 32 lanes update only 2 distinct words → lanes on one word take turns: 32 wavefronts per request, 31 counted as bank conflicts");
}
