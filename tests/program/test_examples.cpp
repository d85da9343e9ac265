// tests/program/test_examples.cpp — every "Try" of examples/*.cu carried out: the edit its text
// asks for made on a copy, the copy run on the emulated device as the app runs it, and the
// figure the text promises checked. Skipped (with a message) where nvcc is missing.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "program/program.h"
#include "../support.h"

using namespace ws;

namespace {

namespace fs = std::filesystem;

bool can_run() { return ws::test::have_nvcc("the examples' Try tests skipped"); }

std::string read_text(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path).rdbuf();
  return s.str();
}

// examples/NAME.cu with each {from, to} replaced (each `from` must be there), written to a
// folder of its own, run; its output and trace.
program::Result run_edited(const std::string& name, const std::vector<std::pair<std::string, std::string>>& edits,
                           const std::vector<std::string>& args = {}) {
  std::string src = read_text("examples/" + name);
  for (const auto& [from, to] : edits) {
    const size_t at = src.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, "the Try's edit no longer matches " << name << ": " << from);
    src.replace(at, from.size(), to);
  }
  const fs::path dir = fs::temp_directory_path() / ("ws-try-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / name;
  std::ofstream(file) << src;
  program::Options o;
  o.source = file.string();
  o.args = args;
  o.echo = false;
  o.timeout_seconds = 60;
  program::Result r = program::run(o);
  fs::remove_all(dir);
  return r;
}

// The report of launch `k` and the site of `space`/`op` on `line` in it.
struct LaunchSite {
  trace::Trace one;
  analysis::Report rep;
  const analysis::SiteStats* st = nullptr;
};
LaunchSite site_of(const trace::Trace& t, uint32_t k, trace::Space space, trace::Op op, uint32_t line) {
  LaunchSite s;
  s.one = trace::launch_trace(t, k);
  s.rep = analysis::analyze(s.one, analysis::DramModel{});
  for (const analysis::SiteStats& st : s.rep.sites) {
    const trace::Site& site = s.one.sites[st.site];
    if (site.space == space && site.op == op && site.line == line && st.requests) s.st = &st;
  }
  return s;
}

// The Try text of an example, as one line.
std::string try_text(const std::string& name) {
  std::string t = read_text("examples/" + name);
  t = t.substr(0, t.find("#include"));
  std::string out;
  for (size_t at = 0; at < t.size();) {
    const size_t end = t.find('\n', at);
    std::string line = t.substr(at, end - at);
    if (line.rfind("//", 0) == 0) line = line.substr(line.find_first_not_of("/ "));
    out += line + " ";
    at = end == std::string::npos ? t.size() : end + 1;
  }
  return out.substr(out.find("Try:"));
}

}  // namespace

TEST_CASE("transpose.cu's Try: the naive kernel with x and y swapped writes coalesced and reads strided; line 27 is 32-way, 1-way with PAD = 1") {
  if (!can_run()) return;
  CHECK(try_text("transpose.cu").find("swap the roles of x and y (write coalesced, read strided)") != std::string::npos);
  const program::Result r =
      run_edited("transpose.cu", {{"out[x * n + y] = in[y * n + x];", "out[y * n + x] = in[x * n + y];"}});
  CHECK(r.output.find("correct") != std::string::npos);  // the same transpose
  // Lanes along x: the store's 32 floats are consecutive (4 sectors), the load's 64 floats apart.
  const LaunchSite st = site_of(r.trace, 0, trace::Space::Global, trace::Op::Store, 15);
  REQUIRE(st.st);
  CHECK(st.st->sectors_per_request == doctest::Approx(4.0));
  CHECK(st.st->ideal_sectors_per_request == doctest::Approx(4.0));
  const LaunchSite ld = site_of(r.trace, 0, trace::Space::Global, trace::Op::Load, 15);
  REQUIRE(ld.st);
  CHECK(ld.st->sectors_per_request == doctest::Approx(32.0));
  // The file as it is: launch 2's line 27 is 32-way, launch 3's (PAD = 1) 1-way.
  const program::Result as_is = run_edited("transpose.cu", {});
  REQUIRE(as_is.trace.launches.size() == 3);
  for (uint32_t k : {1u, 2u}) {
    const LaunchSite tile = site_of(as_is.trace, k, trace::Space::Shared, trace::Op::Load, 27);
    REQUIRE(tile.st);
    CHECK(tile.st->max_way == (k == 1 ? 32u : 1u));
  }
}

TEST_CASE("reduction.cu's Try: interleaved addressing reads 2 words apart (2-way), then 4 (4-way), half the warps idle; the tooltip's line adds up") {
  if (!can_run()) return;
  const std::string text = try_text("reduction.cu");
  CHECK(text.find("2 words apart (2-way), then 4 (4-way)") != std::string::npos);
  const program::Result r = run_edited(
      "reduction.cu", {{"for (int s = blockDim.x / 2; s >= 32; s >>= 1) {", "for (int s = 1; s < blockDim.x / 32; s *= 2) {"},
                       {"if (t < s) partial[t] += partial[t + s];",
                        "if (2 * s * t < blockDim.x) partial[2 * s * t] += partial[2 * s * t + s];"},
                       {"v = partial[t];", "v = partial[t * (blockDim.x / 32)];"}});
  CHECK(r.output.find("correct") != std::string::npos);  // still the right sum
  REQUIRE(r.trace.launches.size() == 1);
  // Per block, line 20 reads twice in warps 0 and 1 at s = 1 (2-way), in warp 0 alone at s = 2
  // (4-way): warps 2 and 3 never, warp 1 once of the two steps.
  std::multiset<uint32_t> ways;
  std::set<uint32_t> warps;
  for (const trace::Record& rec : r.trace.records) {
    const trace::Site& s = r.trace.sites[rec.site];
    if (s.line != 20 || s.space != trace::Space::Shared || s.op != trace::Op::Load || rec.block != 0) continue;
    CHECK(rec.active == 0xffffffffu);
    ways.insert(analysis::shared_cost(s, rec).max_way);
    warps.insert(rec.warp);
  }
  CHECK(ways == std::multiset<uint32_t>{2, 2, 2, 2, 4, 4});
  CHECK(warps == std::set<uint32_t>{0, 1});
  // The line the gutter's tooltip gives: one request's shape and its own way, then the worst.
  const LaunchSite ld = site_of(r.trace, 0, trace::Space::Shared, trace::Op::Load, 20);
  REQUIRE(ld.st);
  CHECK(ld.st->max_way == 4);
  CHECK(ld.st->why == "lanes are 2 words apart: 16 banks used, 2 words each → 2-way conflict; "
                      "other requests of the line up to 4-way");
  const LaunchSite last = site_of(r.trace, 0, trace::Space::Shared, trace::Op::Load, 24);
  REQUIRE(last.st);
  CHECK(last.st->max_way == 4);
  CHECK(last.st->why == "lanes are 4 words apart: 8 banks used, 4 words each → 4-way conflict");
}

TEST_CASE("histogram.cu's Try: one bin stays 1 wavefront (ATOMS.POPC.INC); adding values that differ takes 32 turns") {
  if (!can_run()) return;
  const std::string text = try_text("histogram.cu");
  CHECK(text.find("stays 1 wavefront") != std::string::npos);
  CHECK(text.find("32 wavefronts") != std::string::npos);
  // Every value in bin 0: the 32 lanes' increments of one word, one wavefront a request.
  const std::pair<std::string, std::string> one_bin{"(unsigned char)((i * 7) % BINS)", "(unsigned char)(0)"};
  const program::Result a = run_edited("histogram.cu", {one_bin});
  CHECK(a.output.find("correct") != std::string::npos);
  CHECK(a.output.find("counted 1280 values in bin 0") != std::string::npos);  // 10 strides of 128 threads
  const LaunchSite inc = site_of(a.trace, 0, trace::Space::Shared, trace::Op::Atomic, 19);
  REQUIRE(inc.st);
  CHECK(inc.st->wavefronts_per_request == doctest::Approx(1.0));
  CHECK(inc.st->max_way == 1);
  // Then values that differ (0 and 2: the same total): the lanes take turns.
  const program::Result b =
      run_edited("histogram.cu", {one_bin, {"atomicAdd(&local[data[i]], 1u);", "atomicAdd(&local[data[i]], (threadIdx.x % 2) * 2u);"}});
  CHECK(b.output.find("correct") != std::string::npos);
  const LaunchSite add = site_of(b.trace, 0, trace::Space::Shared, trace::Op::Atomic, 19);
  REQUIRE(add.st);
  CHECK(add.st->max_way == 32);
  uint32_t full = 0;  // a whole warp's request: 32 wavefronts
  for (const trace::Record& rec : b.trace.records) {
    const trace::Site& s = b.trace.sites[rec.site];
    if (s.line == 19 && s.op == trace::Op::Atomic && rec.active == 0xffffffffu) {
      CHECK(analysis::shared_cost(s, rec).wavefronts == 32);
      ++full;
    }
  }
  CHECK(full > 0);
}

TEST_CASE("strided_loop.cu's Try: the chunked copy's load is 32 sectors a request, the grid-stride copy's 4, at 8 and at 64 a thread") {
  if (!can_run()) return;
  CHECK(try_text("strided_loop.cu").find("predict the sectors per request of each copy's load") != std::string::npos);
  for (const char* per : {"8", "64"}) {
    CAPTURE(per);
    const program::Result r = run_edited("strided_loop.cu", {}, {per});
    CHECK(r.output.find("correct") != std::string::npos);
    REQUIRE(r.trace.launches.size() == 2);
    const LaunchSite chunked = site_of(r.trace, 0, trace::Space::Global, trace::Op::Load, 16);
    REQUIRE(chunked.st);
    CHECK(chunked.st->sectors_per_request == doctest::Approx(32.0));  // lanes 32 B or more apart
    const LaunchSite stride = site_of(r.trace, 1, trace::Space::Global, trace::Op::Load, 22);
    REQUIRE(stride.st);
    CHECK(stride.st->sectors_per_request == doctest::Approx(4.0));
  }
}
