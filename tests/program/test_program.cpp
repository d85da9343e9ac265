// The user's own CUDA programs (tests/programs), compiled by nvcc and run whole on the
// emulated device: what the report says of each launch, and what bad programs give.
// Skipped (with a message) where nvcc or the emulated runtime is missing.
#include <doctest/doctest.h>

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <tuple>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <map>

#include "analysis/analysis.h"
#include "program/program.h"
#include "session/report.h"
#include "session/session.h"
#include "session/worker.h"
#include "../support.h"

using namespace ws;

namespace {

bool can_run() { return ws::test::have_nvcc("user-program tests skipped"); }

// The catalog kernel a program twins, recorded by the emulator.
auto catalog_twin(const std::string& kernel, int64_t size, const std::map<std::string, int64_t>& params) {
  session::LaunchSpec twin;
  twin.kernel = kernel;
  twin.size = size;
  twin.params = params;
  twin.backend = "emulator";
  return session::record_session(twin);
}

// A program of tests/programs, or of examples/ ("examples/transpose.cu").
program::Options opts(const std::string& file) {
  program::Options o;
  o.source = file.rfind("examples/", 0) == 0 ? file : "tests/programs/" + file;
  o.echo = false;
  o.timeout_seconds = 60;
  return o;
}

// The report of launch `k` of a program's trace.
analysis::Report report_of(const trace::Trace& t, uint32_t k, trace::Trace& one) {
  one = trace::launch_trace(t, k);
  return analysis::analyze(one, analysis::DramModel{});
}

const analysis::SiteStats* find(const trace::Trace& t, const analysis::Report& r, trace::Space sp, trace::Op op,
                                uint32_t line) {
  for (const analysis::SiteStats& s : r.sites) {
    const trace::Site& site = t.sites[s.site];
    if (site.space == sp && site.op == op && site.line == line) return &s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("examples/transpose.cu: three launches; the naive store splits, the tile conflicts 32-way, TILE+1 fixes it") {
  if (!can_run()) return;
  program::Result r = program::run(opts("examples/transpose.cu"));
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("correct") != std::string::npos);
  const trace::Trace& t = r.trace;
  REQUIRE(t.launches.size() == 3);
  CHECK(t.launches[0].kernel == "transposeNaive");
  CHECK(t.launches[1].kernel == "transposeTiled<0>");
  CHECK(t.launches[2].kernel == "transposeTiled<1>");
  CHECK(t.launches[1].grid == trace::Dim3{2, 2, 1});
  CHECK(t.launches[1].block == trace::Dim3{32, 32, 1});
  // Arrays named from the program's text.
  bool d_in = false, d_out = false;
  for (const trace::Buffer& b : t.buffers) {
    d_in |= b.name == "d_in";
    d_out |= b.name == "d_out";
  }
  CHECK(d_in);
  CHECK(d_out);
  REQUIRE(!t.files.empty());
  CHECK(t.files[0].text.find("transposeTiled") != std::string::npos);

  trace::Trace one;
  // Naive: out[x * n + y], consecutive lanes 64 floats apart -> 32 sectors per request.
  analysis::Report naive = report_of(t, 0, one);
  const analysis::SiteStats* st = find(one, naive, trace::Space::Global, trace::Op::Store, 15);
  REQUIRE(st);
  CHECK(st->sectors_per_request == doctest::Approx(32.0));
  CHECK(one.sites[st->site].instruction == "st.global.f32");
  // Tiled: the column read of tile[32][32] is 32-way; of tile[32][33] conflict-free.
  for (uint32_t k : {1u, 2u}) {
    analysis::Report rep = report_of(t, k, one);
    const analysis::SiteStats* ld = find(one, rep, trace::Space::Shared, trace::Op::Load, 27);
    REQUIRE(ld);
    CHECK(ld->max_way == (k == 1 ? 32u : 1u));
    CHECK(ld->wavefronts_per_request == doctest::Approx(k == 1 ? 32.0 : 1.0));
    CHECK(one.sites[ld->site].code.find("tile[threadIdx.x][threadIdx.y]") != std::string::npos);
    CHECK(one.sites[ld->site].column > 0);
  }
}

TEST_CASE("examples/reduction.cu: dynamic shared memory, shuffles and one atomic per block, attributed to the program's lines") {
  if (!can_run()) return;
  program::Result r = program::run(opts("examples/reduction.cu"));
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("correct") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 1);
  CHECK(r.trace.launches[0].dynamic_shared_bytes == 128 * 4);
  int atomics = 0;
  for (const trace::Record& rec : r.trace.records)
    if (r.trace.sites[rec.site].op == trace::Op::Atomic) {
      ++atomics;
      CHECK(r.trace.sites[rec.site].line == 26);
      CHECK(r.trace.sites[rec.site].instruction == "atom.global.add.u32");
    }
  CHECK(atomics == 20);  // (5000 + 255) / 256 blocks
}

TEST_CASE("a session from a program: one source among the others, every launch reachable") {
  if (!can_run()) return;
  session::LaunchSpec spec;
  spec.program.source = "tests/programs/vector_add.cu";
  spec.program.args = {"300"};
  spec.program.echo = false;
  const session::ResolvedLaunch l = session::resolve(spec);
  CHECK(l.origin == session::Origin::Program);
  auto s = session::record_session(l, spec);
  CHECK(s->origin() == "program");
  CHECK(s->launches() == 1);
  CHECK(s->trace().launch().grid.x == 2);  // 300 elements, 256 per block
  CHECK(s->lane_accesses() == 900);
  CHECK_THROWS_AS(s->of_launch(1, analysis::DramModel{}), session::InputError);
}

TEST_CASE("the compiler's messages: file, line, the caret's column; the host compiler's form too") {
  const std::string log =
      "/tmp/p.cu(3): error: identifier \"undefined_name\" is undefined\n"
      "    a[threadIdx.x] = undefined_name;\n"
      "                     ^\n"
      "\n"
      "/tmp/p.cu(9): warning #177-D: variable \"z\" was declared but never referenced\n"
      "helper.h:4:7: error: expected ';' before '}' token\n"
      "2 errors detected in the compilation of \"/tmp/p.cu\".\n";
  const auto d = program::parse_diagnostics(log);
  REQUIRE(d.size() == 3);
  CHECK(d[0] == program::Diagnostic{"/tmp/p.cu", 3, 20, "error", "identifier \"undefined_name\" is undefined"});
  CHECK(d[1].severity == "warning");
  CHECK(d[1].line == 9);
  CHECK(d[1].column == 0);
  CHECK(d[2] == program::Diagnostic{"helper.h", 4, 7, "error", "expected ';' before '}' token"});
}

TEST_CASE("bad programs: a compile error, an out-of-bounds kernel, an endless loop — one line each, no crash") {
  if (!can_run()) return;
  try {
    program::run(opts("bad/does_not_compile.cu"));
    FAIL("a program that does not compile ran");
  } catch (const program::Error& e) {
    const std::string m = e.what();
    CHECK(m.find("does_not_compile.cu(2)") != std::string::npos);
    REQUIRE(!e.diagnostics.empty());
    CHECK(e.diagnostics[0].line == 2);
    CHECK(e.diagnostics[0].column > 0);
    CHECK(m.find("undefined") != std::string::npos);
    CHECK(m.find('\n') == std::string::npos);
  }
  program::Result oob = program::run(opts("bad/out_of_bounds.cu"));
  CHECK(oob.exit_code == 1);
  CHECK(oob.output.find("an illegal memory access was encountered") != std::string::npos);
  CHECK(oob.output.find("out-of-bounds access to 'd_in' at kernel line 7: byte offset 256 of 256") != std::string::npos);
  // A kernel that never ends, stopped at the timeout: its launch shown up to where it stopped.
  program::Options spin = opts("bad/endless.cu");
  spin.timeout_seconds = 3;
  const program::Result stopped = program::run(spin);
  CHECK(stopped.exit_code == 124);
  CHECK(stopped.ending.kind == "timeout");
  CHECK(stopped.ending.problem.kind == "timeout");
  CHECK(stopped.ending.problem.launch == 1);
  REQUIRE(stopped.ending.problem.at.size() == 1);
  CHECK(stopped.ending.problem.at[0].line == 3);
  CHECK(stopped.trace.launches.size() == 1);
  CHECK(stopped.ending.message.rfind("stopped at --timeout 3 s, in launch 1 (kernel spin was stopped at the time limit in block (0,0), warp 0 at line 3)", 0) == 0);
  // Stopped in its own code before any launch: nothing to show, the one line.
  program::Options host = opts("bad/prints_then_spins.cu");
  host.timeout_seconds = 3;
  CHECK_THROWS_WITH_AS(program::run(host), "the program did not finish within 3 s and was stopped before any launch ended",
                       program::Error);
  CHECK_THROWS_WITH_AS(program::run(opts("no_such_program.cu")), "no such file: tests/programs/no_such_program.cu",
                       program::Error);
}

TEST_CASE("a recorded launch of many blocks on every core keeps its records within a modest memory limit") {
  // 16,384 blocks of 256 threads, every record kept (393,216, under the cap): the workers'
  // pieces wait for their turn to be committed, so whatever a piece holds is held many times
  // over. (A piece that reserved room for the launch's whole cap, 352 MB, ran this out of
  // 2 GiB at once.)
  if (!can_run()) return;
  program::Options o = opts("vector_add.cu");
  o.args = {"4194304"};
  o.memory_limit_mib = 2048;
  const program::Result r = program::run(o);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("vectorAdd of 4194304 elements: correct") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 1);
  CHECK(r.trace.launches[0].dropped_records == 0);
  CHECK(r.trace.records.size() == 16384u * 8 * 3);
}

TEST_CASE("a program that takes all the memory stops at its limit, said in one line") {
  if (!can_run()) return;
  program::Options o = opts("bad/too_much_memory.cu");
  o.memory_limit_mib = 1024;
  try {
    program::run(o);
    FAIL("a program without end of memory finished");
  } catch (const program::Error& e) {
    const std::string m = e.what();
    CHECK(m.rfind("the program ran out of memory (its limit: 1024 MiB; --memory-limit MIB to change it)", 0) == 0);
    CHECK(m.find('\n') == std::string::npos);
    CHECK(e.problem.kind == "limit");
  }
}

namespace {

struct Totals {
  uint64_t requests = 0, sectors = 0, wavefronts = 0, lane_accesses = 0;
};
// Per (space, op): what every site of that kind cost, summed.
std::map<std::pair<int, int>, Totals> totals(const trace::Trace& t, const analysis::Report& r) {
  std::map<std::pair<int, int>, Totals> out;
  for (const analysis::SiteStats& s : r.sites) {
    Totals& x = out[{int(t.sites[s.site].space), int(t.sites[s.site].op)}];
    x.requests += s.requests;
    x.sectors += s.sectors;
    x.wavefronts += s.wavefronts;
    x.lane_accesses += s.lane_accesses;
  }
  return out;
}

}  // namespace

TEST_CASE("matmul_tiled.cu against its catalog twin matmul_tiled: the same requests, sectors and wavefronts") {
  if (!can_run()) return;
  program::Result r = program::run(opts("matmul_tiled.cu"));
  CHECK(r.output.find("correct") != std::string::npos);
  trace::Trace one;
  const analysis::Report mine = report_of(r.trace, 0, one);

  auto s = catalog_twin("matmul_tiled", 64, {{"tile", 16}});
  const auto a = totals(one, mine), b = totals(s->trace(), s->report());
  REQUIRE(a.size() == b.size());
  for (const auto& [kind, x] : a) {
    INFO("space " << kind.first << " op " << kind.second);
    REQUIRE(b.count(kind));
    const Totals& y = b.at(kind);
    CHECK(x.requests == y.requests);
    CHECK(x.lane_accesses == y.lane_accesses);
    CHECK(x.sectors == y.sectors);
    CHECK(x.wavefronts == y.wavefronts);
  }
}

TEST_CASE("stencil/stencil.cu: a helper in a header, constant memory, cooperative groups, unified memory, float4") {
  if (!can_run()) return;
  program::Result r = program::run(opts("stencil/stencil.cu"));
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("correct") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 2);
  REQUIRE(r.trace.files.size() >= 2);
  CHECK(r.trace.files[0].name.find("stencil.cu") != std::string::npos);
  bool header_line = false, constant = false, vec4 = false;
  for (const trace::Site& s : r.trace.sites) {
    const std::string& f = r.trace.files[s.file].name;
    header_line |= f.find("stencil.cuh") != std::string::npos && s.line == 6 && s.space == trace::Space::Shared;
    constant |= s.space == trace::Space::Constant && r.trace.buffers[s.buffer].name == "kWeights";
    vec4 |= s.bytes == 16 && s.instruction == "ld.global.v4.u32";
  }
  CHECK(header_line);
  CHECK(constant);
  CHECK(vec4);
  bool named = false;
  for (const trace::Buffer& b : r.trace.buffers) named |= b.name == "back";
  CHECK(named);
}

TEST_CASE("--literal (-G): device functions are called, not inlined; the stack's local traffic only when asked") {
  if (!can_run()) return;
  program::Options o = opts("stencil/stencil.cu");
  o.literal = true;
  program::Result r = program::run(o);
  CHECK(r.output.find("correct") != std::string::npos);
  int local = 0, helper = 0;
  for (const trace::Record& rec : r.trace.records) {
    const trace::Site& s = r.trace.sites[rec.site];
    local += s.space == trace::Space::Local;
    helper += s.line == 6 && r.trace.files[s.file].name.find("stencil.cuh") != std::string::npos;
  }
  CHECK(local == 0);
  CHECK(helper == 6 * 32);  // weighted(): 3 constant and 3 shared loads per warp, 32 warps
  o.show_local = true;
  program::Result all = program::run(o);
  local = 0;
  for (const trace::Record& rec : all.trace.records) local += all.trace.sites[rec.site].space == trace::Space::Local;
  CHECK(local > 0);
}

TEST_CASE("the emulated runtime exports every function of the toolkit's runtime list; the missing ones name themselves") {
  std::string dir;
  try {
    dir = program::runtime_dir();
  } catch (const program::Error&) {
    MESSAGE("the emulated runtime was not built: skipped");
    return;
  }
  std::ifstream f("/usr/local/cuda/include/cupti_runtime_cbid.h");
  if (!f.good()) {
    MESSAGE("no cupti_runtime_cbid.h: skipped");
    return;
  }
  std::stringstream text;
  text << f.rdbuf();
  const std::regex re("CUPTI_RUNTIME_TRACE_CBID_([A-Za-z0-9_]+?)(_v[0-9]+)?\\s*=");
  std::set<std::string> names;
  const std::string s = text.str();
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it) {
    const std::string n = (*it)[1].str();
    if (n != "INVALID" && n != "SIZE" && n != "FORCE_INT") names.insert(n);
  }
  CHECK(names.size() > 400);
  void* lib = dlopen((dir + "/libcudart.so.13").c_str(), RTLD_LAZY | RTLD_LOCAL);
  REQUIRE(lib);
  int missing = 0;
  for (const std::string& n : names)
    if (!dlsym(lib, n.c_str())) {
      ++missing;
      MESSAGE("not exported: " << n);
    }
  CHECK(missing == 0);
  // One the emulated device does not provide answers cudaErrorNotSupported (801).
  auto child_graph = reinterpret_cast<int (*)()>(dlsym(lib, "cudaGraphAddChildGraphNode"));
  REQUIRE(bool(child_graph));
  CHECK(child_graph() == 801);
  // Its own namespace stays inside: nothing but the runtime's names is exported.
  CHECK(dlsym(lib, "_ZN2ws3ptx5parseERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEES8_") == nullptr);
  // Not closed: the runtime keeps its state until the process ends, as in a program.
}

TEST_CASE("examples/histogram.cu and tests/programs/tiled_reduce.cu: shared atomics, printf, tiled_partition shuffles") {
  if (!can_run()) return;
  program::Result h = program::run(opts("examples/histogram.cu"));
  CHECK(h.output.find("block 0 counted") != std::string::npos);  // printf from the kernel
  CHECK(h.output.find("correct") != std::string::npos);
  bool shared_atomic = false;
  for (const trace::Site& s : h.trace.sites) shared_atomic |= s.instruction == "atom.shared.add.u32";
  CHECK(shared_atomic);
  program::Result r = program::run(opts("tiled_reduce.cu"));
  CHECK(r.output.find("correct") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 2);
  CHECK(r.trace.launches[1].grid == trace::Dim3{1, 1, 1});
  // Lane 0 of each warp stores its warp's sum: one active lane.
  bool partial = false;
  for (const trace::Record& rec : r.trace.records) partial |= rec.active == 1u && r.trace.sites[rec.site].line == 18;
  CHECK(partial);
}

TEST_CASE("examples/strided_loop.cu: the chunked loop's lanes are `per` floats apart, the grid-stride loop's adjacent") {
  if (!can_run()) return;
  program::Result r = program::run(opts("examples/strided_loop.cu"));
  CHECK(r.output.find("correct") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 2);
  trace::Trace one;
  const analysis::Report chunked = report_of(r.trace, 0, one);
  const analysis::SiteStats* a = find(one, chunked, trace::Space::Global, trace::Op::Load, 16);
  REQUIRE(a);
  CHECK(a->sectors_per_request == doctest::Approx(32.0));  // 8 floats = one sector per lane
  const analysis::Report stride = report_of(r.trace, 1, one);
  const analysis::SiteStats* b = find(one, stride, trace::Space::Global, trace::Op::Load, 22);
  REQUIRE(b);
  CHECK(b->sectors_per_request == doctest::Approx(4.0));
}

namespace {

// Every warp's requests in order: space, op, bytes per lane, active mask, the 32 offsets.
using WarpKey = std::pair<uint32_t, uint32_t>;  // block, warp
struct Request {
  int space, op, bytes;
  uint32_t active;
  std::array<uint32_t, 32> offset;
  bool operator==(const Request&) const = default;
};
std::map<WarpKey, std::vector<Request>> requests_by_warp(const trace::Trace& t) {
  std::map<WarpKey, std::vector<Request>> out;
  for (const trace::Record& r : t.records) {
    const trace::Site& s = t.sites[r.site];
    Request q{int(s.space), int(s.op), int(s.bytes), r.active, {}};
    for (int l = 0; l < 32; ++l) q.offset[size_t(l)] = r.lane_active(l) ? r.offset[size_t(l)] : 0;
    out[{r.block, r.warp}].push_back(q);
  }
  return out;
}

// How many warps of `a` issue the same requests as in `b`: in order, or (`as_set`) in any
// order (-O3 hoists loads above stores; -G keeps the source's order).
size_t same_warps(std::map<WarpKey, std::vector<Request>> a, std::map<WarpKey, std::vector<Request>> b, bool as_set) {
  size_t same = 0;
  for (auto& [key, reqs] : a) {
    REQUIRE(b.count(key));
    auto& c = b.at(key);
    if (as_set) {
      auto less = [](const Request& x, const Request& y) {
        return std::tie(x.space, x.op, x.bytes, x.active, x.offset) < std::tie(y.space, y.op, y.bytes, y.active, y.offset);
      };
      std::sort(reqs.begin(), reqs.end(), less);
      std::sort(c.begin(), c.end(), less);
    }
    same += reqs == c;
  }
  return same;
}

}  // namespace

TEST_CASE("transpose_twin.cu equals catalog transpose_tiled (tile 32, rows 8): request for request with --literal, as a set at -O3") {
  if (!can_run()) return;
  for (bool literal : {true, false}) {
    program::Options o = opts("transpose_twin.cu");
    o.literal = literal;
    program::Result r = program::run(o);
    CHECK(r.output.find("correct") != std::string::npos);
    REQUIRE(r.trace.launches.size() == 2);
    for (int pad = 0; pad <= 1; ++pad) {
      INFO(std::string(literal ? "--literal" : "-O3") << ", pad " << pad);
      const trace::Trace mine = trace::launch_trace(r.trace, uint32_t(pad));
      auto s = catalog_twin("transpose_tiled", 64, {{"tile", 32}, {"rows", 8}, {"pad", pad}});
      auto a = requests_by_warp(mine), b = requests_by_warp(s->trace());
      REQUIRE(a.size() == b.size());
      // -O3 hoists the four loads of the unrolled loop above the four stores.
      CHECK(same_warps(a, b, !literal) == a.size());
    }
  }
}

TEST_CASE("allocation names come from the program's text, whatever cast the pointer's address wears") {
  const std::string text = R"(
    float *d_A, *d_B, *d_C, *img; int* hist; size_t pitch;
    cudaMalloc(&d_A, bytes);
    checkCudaErrors(cudaMalloc(reinterpret_cast<void **>(&d_B), mem_size_B));
    cudaMalloc((void**) &d_C, n * sizeof(float));
    cudaMallocPitch(&img, &pitch, w * sizeof(float), h);
    cudaMallocManaged(&hist, 256 * sizeof(int));
  )";
  CHECK(program::allocation_names(text) == std::vector<std::string>{"d_A", "d_B", "d_C", "img", "hist"});
}

TEST_CASE("matmul_tiled.cu equals catalog matmul_tiled (tile 16) warp by warp: in order with --literal, as a set at -O3") {
  if (!can_run()) return;
  auto s = catalog_twin("matmul_tiled", 64, {{"tile", 16}});
  for (bool literal : {true, false}) {
    INFO(std::string(literal ? "--literal" : "-O3"));
    program::Options o = opts("matmul_tiled.cu");
    o.literal = literal;
    program::Result r = program::run(o);
    CHECK(r.output.find("correct") != std::string::npos);
    auto a = requests_by_warp(trace::launch_trace(r.trace, 0)), b = requests_by_warp(s->trace());
    REQUIRE(a.size() == b.size());
    CHECK(same_warps(a, b, !literal) == a.size());  // -O3 reorders; the requests stay the same
  }
}

TEST_CASE("tc_twin.cu equals catalog tc_mma_plain and tc_mma_swizzled warp by warp: ldmatrix rows, tile copies, float2 stores") {
  // At -O3 only: -G copies the float4 that the tile fill's `?:` picks through four 4-byte
  // loads, which is the compiler's choice, not the kernel's.
  if (!can_run()) return;
  program::Options o = opts("tc_twin.cu");
  program::Result r = program::run(o);
  CHECK(r.output.find("plain tiles: correct") != std::string::npos);
  CHECK(r.output.find("swizzled tiles: correct") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 2);
  for (uint32_t launch = 0; launch < 2; ++launch) {
    const char* id = launch ? "tc_mma_swizzled" : "tc_mma_plain";
    INFO(id);
    const trace::Trace mine = trace::launch_trace(r.trace, launch);
    auto s = catalog_twin(id, 128, {});
    auto a = requests_by_warp(mine), b = requests_by_warp(s->trace());
    REQUIRE(a.size() == b.size());
    CHECK(same_warps(a, b, false) == a.size());  // in order
    // The same products, as events: 4 k16 steps × 8 mmas a warp, 2 k passes, 16 warps.
    CHECK(mine.events.size() == s->trace().events.size());
    CHECK(mine.events.size() == 4 * 8 * 2 * 16);
  }
}

TEST_CASE("tests/programs/timing_loop.cu: a kernel's first launches recorded, the rest run unrecorded and reported as one line") {
  if (!can_run()) return;
  program::Options o = opts("timing_loop.cu");
  o.record_launches = 2;
  program::Result r = program::run(o);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("6 launches of accumulate: correct") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 6);
  for (size_t i = 0; i < 6; ++i) {
    const trace::Launch& l = r.trace.launches[i];
    CHECK(l.recorded == (i < 2));
    CHECK(l.blocks.size() == (i < 2 ? 40u : 0u));  // (5000 + 127) / 128 blocks
    CHECK(l.lane_accesses == r.trace.launches[0].lane_accesses);
  }
  for (const trace::Record& rec : r.trace.records) CHECK(rec.launch < 2);
  // The report: launches 1 and 2 in full, the other four one line.
  session::LaunchSpec spec;
  spec.program = o;
  spec.backend = "emulator";
  auto first = session::record_session(spec);
  std::vector<std::shared_ptr<const session::Session>> shown;
  for (uint32_t i = 0; i < first->launches(); ++i) shown.push_back(first->of_launch(i, analysis::DramModel{}));
  const std::string text = session::report_text(shown, -1);
  CHECK(text.find("launches  3–6: accumulate ×4, as launch 2 (not recorded: ") != std::string::npos);
  // 0 records every launch.
  o.record_launches = 0;
  program::Result all = program::run(o);
  REQUIRE(all.trace.launches.size() == 6);
  for (const trace::Launch& l : all.trace.launches) CHECK(l.recorded);
  // A loop of more launches than the time limit allows: the launches that ended are kept,
  // the one stopped is the last, and the problem names it.
  program::Options many = opts("timing_loop.cu");
  many.args = {"100000000"};
  many.timeout_seconds = 4;
  const program::Result cut = program::run(many);
  CHECK(cut.exit_code == 124);
  CHECK(cut.ending.kind == "timeout");
  REQUIRE(cut.trace.launches.size() >= 4);
  const size_t kept = cut.trace.launches.size();
  if (cut.ending.problem.launch == 0) {
    // The limit can land between two launches, in the host's own loop (a loaded machine
    // spends more of the time there): then every kept launch ended.
    CHECK(cut.ending.message.find("in the program's own code: its " + std::to_string(kept) + " launches ended") !=
          std::string::npos);
    for (size_t i = 0; i < kept; ++i) CHECK(cut.trace.launches[i].lane_accesses == 10040);
  } else {
    CHECK(cut.ending.problem.launch == kept);
    CHECK(cut.ending.message.find("launches 1-" + std::to_string(kept - 1) + " ended") != std::string::npos);
    for (size_t i = 0; i + 1 < kept; ++i) CHECK(cut.trace.launches[i].lane_accesses == 10040);
  }
}

TEST_CASE("labeled_partition: match, redux and vote reduce over each lane's own group, not the whole warp") {
  if (program::find_nvcc().empty()) return;
  program::Options o;
  o.source = "tests/programs/warp/partition_reduce.cu";
  o.echo = false;
  o.timeout_seconds = 60;
  const program::Result r = program::run(o);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("partition reduce: correct") != std::string::npos);
}
