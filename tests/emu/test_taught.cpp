// The kernels as the course's texts print them: the entries (and settings) that reproduce
// a published kernel show its access pattern, conflicts included, refuse the sizes the
// source does not support, and name their source. Every figure here can be worked out on
// paper from the source's index expressions.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "analysis/analysis.h"
#include "catalog.h"
#include "emulated.h"

using namespace ws;

namespace {

// Records `id` at `size` with `set`, checks its outputs against the reference, and returns
// the statistics of the site on source line `code` (the first site whose text contains it).
struct Recorded : test::Emulated {
  const analysis::SiteStats* site(const std::string& code, trace::Op op) const {
    for (size_t i = 0; i < t.sites.size(); ++i)
      if (t.sites[i].code.find(code) != std::string::npos && t.sites[i].op == op) return &rep.sites[i];
    return nullptr;
  }
};

Recorded record(const std::string& id, int64_t size, const std::map<std::string, int64_t>& set = {}) {
  Recorded r{test::emulate(id, size, set)};
  CHECK(r.error <= 1e-5);
  return r;
}

std::string refused(const std::string& id, int64_t size, const std::map<std::string, int64_t>& set = {}) {
  catalog::Params p;
  return catalog::resolve(*catalog::find(id), size, set, p);
}

}  // namespace

TEST_CASE("siboehm's kernel 5: As rows 8 floats apart, Bs as two LDS.128, C read before it is written") {
  auto r = record("matmul_siboehm5", 128);
  // As[innerRowA + off][innerColA] with innerRowA = tid / 8, innerColA = tid % 8: word tid.
  const auto* as_store = r.site("As[innerRowA + off][innerColA]", trace::Op::Store);
  REQUIRE(as_store);
  CHECK(as_store->max_way == 1);
  // regM[i] = As[threadRow * 8 + i][k]: threadRow = tid / 16, so lanes 0-15 read one word,
  // lanes 16-31 the word 64 floats further: the same bank, two words → 2-way.
  const auto* as_load = r.site("As[threadRow * TM + i][k]", trace::Op::Load);
  REQUIRE(as_load);
  CHECK(as_load->max_way == 2);
  // Bs read 16 bytes a lane.
  const auto* bs_load = r.site("Bs4[k][threadCol * (TN / 4) + q]", trace::Op::Load);
  REQUIRE(bs_load);
  CHECK(r.t.sites[bs_load->site].bytes == 16);
  // The epilogue: lanes 8 floats apart in two rows of C → 32 sectors for 128 bytes.
  const auto* c_load = r.site("a.beta * C[c]", trace::Op::Load);
  const auto* c_store = r.site("a.beta * C[c]", trace::Op::Store);
  REQUIRE(c_load);
  REQUIRE(c_store);
  CHECK(c_load->sectors_per_request == doctest::Approx(32));
  CHECK(c_store->sectors_per_request == doctest::Approx(32));
  CHECK(c_load->requests == c_store->requests);
}

TEST_CASE("siboehm's kernel 6: the transposed As store is 2-way, every global access 16 bytes") {
  auto r = record("matmul_siboehm6", 128);
  // As[innerColA * 4 + c][innerRowA], innerRowA = tid / 2, innerColA = tid % 2: rows 512
  // words apart share a bank → lanes 2t and 2t+1 collide: 16 banks, 2-way.
  const auto* s = r.site("As[innerColA * 4 + 0][innerRowA]", trace::Op::Store);
  REQUIRE(s);
  CHECK(s->max_way == 2);
  int wide_global = 0;
  for (const auto& site : r.t.sites) wide_global += site.space == trace::Space::Global && site.bytes == 16;
  CHECK(wide_global == 4);  // A, B, C read, C written
  for (const auto& site : r.t.sites)
    if (site.space == trace::Space::Global) CHECK(site.bytes == 16);
}

TEST_CASE("xGeMM step 6: the transposed store is 4-way, the scalar epilogue reads and writes 32 sectors") {
  auto r = record("matmul_xgemm6", 128);
  // sh_A[A_tx * 4 + c][off + A_ty], A_ty = tid / 4, A_tx = tid % 4: 8 banks, 4 lanes each.
  const auto* s = r.site("sh_A[A_tx * 4 + 0][off + A_ty]", trace::Op::Store);
  REQUIRE(s);
  CHECK(s->max_way == 4);
  const auto* c_load = r.site("0.0f * C[r * N + c]", trace::Op::Load);
  REQUIRE(c_load);
  CHECK(r.t.sites[c_load->site].bytes == 4);
  CHECK(c_load->sectors_per_request == doctest::Approx(32));
  // Two passes of each tile load a phase: 128 rows / 64 and 16 rows / 8.
  const auto* a_load = r.site("A[r * N4 + k4]", trace::Op::Load);
  REQUIRE(a_load);
  CHECK(a_load->requests == 2 * 8 * 8);  // 2 passes × 8 warps × 8 phases (N = 128, BK = 16)
  // Sizes that are not multiples of the tile work, as the source's bounds checks allow.
  record("matmul_xgemm6", 100);
}

TEST_CASE("faithful entries refuse the sizes their sources do not support, naming the allowed ones") {
  std::string e = refused("matmul_siboehm5", 200);
  CHECK(e.find("multiple of 128") != std::string::npos);
  CHECK(e.find("no bounds checks") != std::string::npos);
  CHECK(e.find('\n') == std::string::npos);
  CHECK(refused("matmul_siboehm6", 100).find("multiple of 128") != std::string::npos);
  CHECK(refused("matmul_siboehm6", 384) == "");
  CHECK(refused("matmul_xgemm6", 130).find("multiple of 4") != std::string::npos);
  CHECK(refused("matmul_xgemm6", 132) == "");
  e = refused("transpose_tiled", 64, {{"tile", 64}, {"rows", 32}});
  CHECK(e.find("at most 1024 threads") != std::string::npos);
}

TEST_CASE("the blog's static tiled transpose: TILE×TILE threads, one element each, no conflict with TILE + 1") {
  auto r = record("transpose_tiled", 64, {{"pad", 1}, {"tile", 32}, {"rows", 32}});
  CHECK(r.t.launch().block.x == 32);
  CHECK(r.t.launch().block.y == 32);
  CHECK(r.t.launch().grid.x == 2);
  const auto* st = r.site("tile[threadIdx.x][threadIdx.y + k] = in", trace::Op::Store);
  REQUIRE(st);
  CHECK(st->max_way == 1);
  // One element a thread: 64² elements / 32 lanes = 128 requests for each access.
  CHECK(st->requests == 64 * 64 / 32);
  auto r0 = record("transpose_tiled", 64, {{"pad", 0}, {"tile", 32}, {"rows", 32}});
  CHECK(r0.site("tile[threadIdx.x][threadIdx.y + k] = in", trace::Op::Store)->max_way == 32);
}

TEST_CASE("the fast transpose shape: 64×4 threads, 16 elements each, blocks down the columns of in") {
  auto r = record("transpose_tiled", 128, {{"pad", 1}, {"tile", 64}, {"rows", 4}, {"order", 1}});
  CHECK(r.t.launch().block.x == 64);
  CHECK(r.t.launch().block.y == 4);
  // Block 1 is the tile below block 0 in `in` (rows 64..127, columns 0..63): its first
  // load reads row 64, column 0.
  const trace::Record* first = nullptr;
  for (const auto& rec : r.t.records)
    if (rec.block == 1 && r.t.sites[rec.site].op == trace::Op::Load && r.t.sites[rec.site].space == trace::Space::Global) {
      first = &rec;
      break;
    }
  REQUIRE(first);
  CHECK(first->offset[0] == uint32_t(64 * 128 * 4));
  const auto* st = r.site("tile[threadIdx.x][threadIdx.y + k] = in", trace::Op::Store);
  REQUIRE(st);
  CHECK(st->max_way == 1);  // row of 65 words
  CHECK(st->requests == 128 * 128 / 32);
}

TEST_CASE("every faithful entry and setting names its source, and the setting resolves") {
  int with_source = 0;
  for (const auto& k : catalog::all()) {
    for (const auto& s : k.sources) {
      CAPTURE(k.id);
      CAPTURE(s.text);
      ++with_source;
      CHECK(!s.claim.empty());
      CHECK(!s.label.empty());
      int64_t size = 0;
      auto set = catalog::setting_values(s, size);
      catalog::Params p;
      CHECK(catalog::resolve(k, size, set, p) == "");
    }
  }
  CHECK(with_source >= 14);
  int64_t size = 0;
  auto set = catalog::setting_values(catalog::find("matmul_tiled")->sources.at(1), size);
  CHECK(size == 4);
  CHECK(set.at("tile") == 2);
  // A launch reproduces a source only with the source's setting.
  catalog::Params p;
  REQUIRE(catalog::resolve(*catalog::find("transpose_tiled"), 64, {{"pad", 1}, {"tile", 32}, {"rows", 32}}, p) == "");
  REQUIRE(catalog::reproduced(*catalog::find("transpose_tiled"), p));
  CHECK(catalog::reproduced(*catalog::find("transpose_tiled"), p)->label.find("static") != std::string::npos);
  REQUIRE(catalog::resolve(*catalog::find("transpose_tiled"), 64, {{"pad", 1}}, p) == "");
  CHECK(!catalog::reproduced(*catalog::find("transpose_tiled"), p));
  REQUIRE(catalog::resolve(*catalog::find("matmul_xgemm6"), 100, {}, p) == "");
  CHECK(catalog::reproduced(*catalog::find("matmul_xgemm6"), p));
}

TEST_CASE("PMPP's DRAM example: tile width 2 on 4×4 matrices, phase 0 of M uses channels 0 and 2 only") {
  // matmul_tiled at tile=2, N=4 with the textbook model (4 channels × 2 banks, 2 floats a
  // burst): in phase 0 the blocks read M[0], M[1], M[4], M[5] and M[8], M[9], M[12], M[13],
  // bytes 0-7, 16-23, 32-39, 48-55: channels 0, 2, 0, 2.
  auto r = record("matmul_tiled", 4, {{"tile", 2}});
  const auto* src = catalog::reproduced(*catalog::find("matmul_tiled"), [] {
    catalog::Params p;
    catalog::resolve(*catalog::find("matmul_tiled"), 4, {{"tile", 2}}, p);
    return p;
  }());
  REQUIRE(src);
  CHECK(src->label.find("DRAM") != std::string::npos);
  REQUIRE(!r.rep.epochs.empty());
  const auto& e0 = r.rep.epochs.front();
  bool seen = false;
  for (const auto& a : e0.arrays)
    if (r.t.buffers.at(a.buffer).name == "A") {
      seen = true;
      CHECK(a.channels_used == 2);
      REQUIRE(a.per_channel.size() == 4);
      CHECK(a.per_channel[0] > 0);
      CHECK(a.per_channel[1] == 0);
      CHECK(a.per_channel[2] > 0);
      CHECK(a.per_channel[3] == 0);
    }
  CHECK(seen);
}
