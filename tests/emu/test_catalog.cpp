// Every catalog kernel, emulated, equals its CPU reference: at several sizes (including
// sizes that are not multiples of the tile) and with each allowed value of its parameters.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "catalog.h"
#include "emu/record.h"
#include "trace/wstrace.h"

using namespace ws;

namespace {

using Settings = std::map<std::string, int64_t>;

// Runs `id` at `size` with `set` and returns the emulated output's error against the
// reference (and the trace, for the caller to inspect).
double run_error(const std::string& id, int64_t size, const Settings& set,
                 trace::Trace* trace_out = nullptr) {
  const auto* k = catalog::find(id);
  REQUIRE(k);
  catalog::Params p;
  std::string err = catalog::resolve(*k, size, set, p);
  INFO(id << " size " << size << ": " << err);
  REQUIRE(err == "");
  auto got = catalog::make_arrays(*k, p);
  auto want = got;
  k->reference(p, want);
  trace::Trace t;
  emu::record(*k, p, got, {}, t);
  CHECK(!t.records.empty());
  // Elements left unwritten by both sides compare equal, so the kernel must write something.
  size_t written = 0;
  auto specs = k->buffers(p);
  for (size_t i = 0; i < specs.size(); ++i)
    if (catalog::is_output(specs[i].role))
      for (float v : got[i]) written += v == v;
  CHECK(written > 0);
  if (trace_out) *trace_out = std::move(t);
  return catalog::max_rel_error(*k, p, got, want);
}

// Every combination of the kernel's parameter values (allowed lists; a few points of ranges).
std::vector<Settings> all_settings(const catalog::KernelInfo& k) {
  std::vector<Settings> out{{}};
  for (const auto& spec : k.params) {
    if (spec.name == "m") continue;  // transpose shape: covered by test_transpose
    std::vector<int64_t> values = spec.allowed;
    if (values.empty()) values = {spec.min, spec.def, spec.max};
    std::vector<Settings> next;
    for (const auto& s : out)
      for (int64_t v : values) {
        Settings t = s;
        t[spec.name] = v;
        next.push_back(t);
      }
    out = next;
  }
  return out;
}

// Sizes to try per kernel: small, odd, and not multiples of any tile (where allowed).
std::vector<int64_t> sizes_for(const std::string& id) {
  if (id == "pmpp_exercise") return {256, 768};
  if (id == "copy" || id == "strided_copy" || id == "offset_copy") return {1, 255, 256, 1000};
  if (id == "matmul_coarse2d_vec") return {4, 36, 68, 132};
  if (id == "matmul_coarse2d") return {1, 13, 70, 130};
  if (id == "matmul_siboehm5" || id == "matmul_siboehm6") return {128, 256};  // no bounds checks
  if (id == "matmul_xgemm6") return {4, 36, 100, 132};                        // multiples of 4
  if (id == "matmul_tuned") return {36, 200};  // a part tile; two block rows for the block order
  if (id == "matmul_warptile" || id == "matmul_double_buffer") return {4, 36, 132, 200};
  if (id.rfind("matmul_", 0) == 0) return {1, 4, 33, 50};
  if (id.rfind("swizzle_", 0) == 0) return {64, 128};         // whole 64×64 tiles
  if (id == "async_copy_tiles") return {64, 576, 1024};        // a part block, whole blocks
  if (id == "tma_copy") return {256};                           // whole boxes of every shape
  if (id == "tma_transpose") return {32, 96};                   // one box; 3 × 3 boxes
  if (id.rfind("tc_mma_", 0) == 0) return {8, 72, 136};  // multiples of 8, not of the tiles
  if (id == "tc_wgmma") return {256, 384};  // whole tiles; more k tiles than stages: the ring wraps
  if (id == "tc_wgmma_cluster") return {256, 512};  // whole pairs of tiles
  return {1, 31, 64, 70};  // transposes
}

double tolerance(const catalog::KernelInfo& k) { return k.family == "sgemm" || k.family == "hgemm" ? 1e-5 : 0.0; }

std::string describe(const Settings& s) {
  std::string d;
  for (const auto& [name, v] : s) d += name + "=" + std::to_string(v) + " ";
  return d;
}

}  // namespace

TEST_CASE("the catalog lists the 34 kernels in teaching order") {
  std::vector<std::string> want = {"copy",
                                   "strided_copy",
                                   "offset_copy",
                                   "pmpp_exercise",
                                   "transpose_read_coalesced",
                                   "transpose_write_coalesced",
                                   "transpose_tiled",
                                   "transpose_tiled_dynamic",
                                   "matmul_naive_uncoalesced",
                                   "matmul_naive",
                                   "matmul_naive_colmajor",
                                   "matmul_tiled",
                                   "matmul_corner_turning",
                                   "matmul_coarse1d",
                                   "matmul_coarse2d",
                                   "matmul_coarse2d_vec",
                                   "matmul_siboehm5",
                                   "matmul_siboehm6",
                                   "matmul_xgemm6",
                                   "matmul_warptile",
                                   "matmul_double_buffer",
                                   "matmul_tuned",
                                   "swizzle_plain",
                                   "swizzle_padded",
                                   "swizzle_xor",
                                   "async_copy_tiles",
                                   "tma_copy",
                                   "tma_transpose",
                                   "tc_mma_plain",
                                   "tc_mma_swizzled",
                                   "tc_mma_pipelined",
                                   "tc_mma_tuned",
                                   "tc_wgmma",
                                   "tc_wgmma_cluster"};
  std::vector<std::string> got;
  for (const auto& k : catalog::all()) {
    got.push_back(k.id);
    CHECK(!k.title.empty());
    CHECK(k.lesson.size() > 80);
    CHECK(!catalog::source(k.source_file).empty());
    CHECK((k.buffers && k.reference && k.flops && k.bytes));
  }
  CHECK(got == want);
}

TEST_CASE("the source panel's kernel files hold kernels and their reference, not the catalog") {
  for (const auto& k : catalog::all()) {
    CAPTURE(k.id);
    const std::string& text = catalog::source(k.source_file);
    CHECK(text.find("#include \"catalog.h\"") == std::string::npos);
    CHECK(text.find("KernelInfo") == std::string::npos);
    CHECK(text.find("_reference(") != std::string::npos);
  }
  CHECK(!catalog::source("contract.h").empty());
  CHECK(catalog::source("catalog.h").empty());
  CHECK(catalog::source("all.h").empty());
}

TEST_CASE("every catalog kernel equals its CPU reference in the emulator") {
  for (const auto& k : catalog::all()) {
    for (const auto& set : all_settings(k)) {
      for (int64_t n : sizes_for(k.id)) {
        CAPTURE(k.id);
        CAPTURE(n);
        INFO(describe(set));
        catalog::Params p;
        const std::string e = catalog::resolve(k, n, set, p);
        if (k.id == "transpose_tiled" && e.find("at most 1024 threads") != std::string::npos) {
          CHECK(set.at("tile") * set.at("rows") > 1024);  // refused for its shape, nothing else
          continue;
        }
        if (k.id == "tma_copy" && e.find("wider than the swizzle span") != std::string::npos) {
          CHECK(4 * set.at("box_cols") > set.at("swizzle"));  // a row the swizzle cannot hold
          continue;
        }
        if (k.id == "tc_wgmma" && e.find("whole 128 × 256 tiles") != std::string::npos) {
          CHECK((set.at("bn") == 256 && n % 256 != 0));  // refused for its tile, nothing else
          continue;
        }
        CHECK(run_error(k.id, n, set) <= tolerance(k));
      }
    }
  }
}

TEST_CASE("every catalog kernel runs at its teaching size with its defaults, and its trace reads back from a file") {
  for (const auto& k : catalog::all()) {
    CAPTURE(k.id);
    trace::Trace t;
    CHECK(run_error(k.id, 0, {}, &t) <= tolerance(k));
    // Its events too (mma, commit, wait: sites of no width), as the app saves and opens it.
    CHECK(trace::decode_trace(trace::encode_trace(t)) == t);
  }
}

TEST_CASE("matmul_tiled works at N=4 with tile 2") {
  trace::Trace t;
  CHECK(run_error("matmul_tiled", 4, {{"tile", 2}}, &t) <= 1e-5);
  CHECK(t.launch().block.x == 2);
  CHECK(t.launch().block.y == 2);
  CHECK(t.launch().grid.x == 2);
  CHECK(t.launch().grid.y == 2);
}

TEST_CASE("float4 accesses of matmul_coarse2d_vec are single 16-byte accesses") {
  trace::Trace t;
  CHECK(run_error("matmul_coarse2d_vec", 64, {{"bm", 64}}, &t) <= 1e-5);
  int wide_global = 0, wide_shared = 0;
  for (const auto& s : t.sites) {
    if (s.bytes != 16) continue;
    (s.space == trace::Space::Global ? wide_global : wide_shared)++;
  }
  CHECK(wide_global == 3);  // A and B loads, C store
  CHECK(wide_shared == 3);  // Bs store and load, As read as float4
}

TEST_CASE("catalog parameters and sizes are validated with a one-line error") {
  catalog::Params p;
  auto resolve = [&](const char* id, int64_t n, const Settings& set) {
    const auto* k = catalog::find(id);
    REQUIRE(k);
    return catalog::resolve(*k, n, set, p);
  };
  SUBCASE("float4 kernel needs a multiple of 4") {
    std::string e = resolve("matmul_coarse2d_vec", 66, {});
    CHECK(e.find("multiple of 4") != std::string::npos);
    CHECK(e.find("66") != std::string::npos);
    CHECK(resolve("matmul_coarse2d_vec", 68, {}) == "");
    CHECK(resolve("matmul_coarse2d", 66, {}) == "");
  }
  SUBCASE("pmpp_exercise needs whole blocks of 256 threads") {
    std::string e = resolve("pmpp_exercise", 300, {});
    CHECK(e.find("multiple of 256") != std::string::npos);
    CHECK(resolve("pmpp_exercise", 512, {}) == "");
    CHECK(resolve("pmpp_exercise", 100, {}) != "");
  }
  SUBCASE("unknown and disallowed parameters") {
    std::string e = resolve("matmul_tiled", 64, {{"tiles", 16}});
    CHECK(e.find("unknown parameter 'tiles'") != std::string::npos);
    CHECK(e.find("tile") != std::string::npos);
    e = resolve("copy", 64, {{"stride", 2}});
    CHECK(e.find("unknown parameter 'stride'") != std::string::npos);
    CHECK(e.find("allowed vec") != std::string::npos);
    e = resolve("pmpp_exercise", 256, {{"stride", 2}});
    CHECK(e.find("allowed none") != std::string::npos);
    CHECK(resolve("copy", 64, {{"vec", 3}}).find("1, 2, 4") != std::string::npos);
    e = resolve("matmul_tiled", 64, {{"tile", 3}});
    CHECK(e.find("2, 4, 8, 16, 32") != std::string::npos);
    CHECK(resolve("matmul_coarse1d", 64, {{"coarse", 3}}).find("1, 2, 4, 8") != std::string::npos);
    CHECK(resolve("matmul_coarse2d", 64, {{"bm", 32}}).find("64, 128") != std::string::npos);
    CHECK(resolve("strided_copy", 64, {{"stride", 3}}).find("1, 2, 4, 8, 16, 32") != std::string::npos);
    CHECK(resolve("offset_copy", 64, {{"offset", 33}}).find("0..32") != std::string::npos);
  }
  SUBCASE("defaults") {
    REQUIRE(resolve("matmul_tiled", 0, {}) == "");
    CHECK(p["tile"] == 16);
    CHECK(p.size() == 64);
    REQUIRE(resolve("matmul_coarse2d_vec", 0, {}) == "");
    CHECK(p["bm"] == 128);
    CHECK(p.size() == 128);
    REQUIRE(resolve("strided_copy", 0, {}) == "");
    CHECK(p["stride"] == 2);
    CHECK(p.size() == 4096);
  }
  for (const auto& k : catalog::all()) {
    CHECK(resolve(k.id.c_str(), 0, {}) == "");
    CHECK(resolve(k.id.c_str(), 0, {}).find('\n') == std::string::npos);
  }
}

TEST_CASE("catalog work figures") {
  const auto* k = catalog::find("matmul_naive");
  REQUIRE(k);
  catalog::Params p;
  REQUIRE(catalog::resolve(*k, 4096, {}, p) == "");
  CHECK(k->flops(p) == doctest::Approx(2.0 * 4096.0 * 4096.0 * 4096.0));
  CHECK(k->bytes(p) == doctest::Approx(3.0 * 4.0 * 4096.0 * 4096.0));
  const auto* c = catalog::find("matmul_naive_colmajor");
  REQUIRE(c);
  auto specs = c->buffers(p);
  REQUIRE(specs.size() == 3);
  CHECK(specs[1].name == "B");
  CHECK(specs[1].col_major);
  CHECK(!specs[0].col_major);
}

TEST_CASE("an entry's grid, read without running it: a tile a block, or a persistent grid") {
  auto blocks = [](const std::string& id, int64_t size, const std::map<std::string, int64_t>& set) {
    const auto* k = catalog::find(id);
    REQUIRE(k);
    catalog::Params p;
    REQUIRE(catalog::resolve(*k, size, set, p) == "");
    return catalog::launch_blocks(*k, p);
  };
  CHECK(blocks("matmul_tiled", 64, {{"tile", 16}}) == 16);  // 4 × 4 tiles of 16
  CHECK(blocks("tc_wgmma", 512, {{"grid", 0}}) == 8);        // 4 × 2 tiles of 128 × 256
  CHECK(blocks("tc_wgmma", 512, {}) == 8);                   // fewer tiles than 132 blocks
  CHECK(blocks("tc_wgmma", 512, {{"grid", 2}}) == 2);
  CHECK(blocks("tc_wgmma", 4096, {}) == 132);  // 512 tiles: one block an SM
}
