// The tensor-core HGEMM ladder, emulated: each rung equals the half-input reference at sizes
// that are not tile multiples, and its trace shows what the rung teaches: the plain tile's
// ldmatrix 8-way (32 wavefronts an instruction), the swizzled tiles' 4, the pipeline's
// copies as a global read at issue and a shared write landed at a wait, every mma an event.
// The figures are worked out on paper from the kernels' index expressions (kernels/tensor.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <map>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "catalog.h"
#include "emulated.h"
#include "tensor.h"

using namespace ws;

namespace {

using Settings = std::map<std::string, int64_t>;

struct Recorded : test::Emulated {
  // The sites of `array` with this form and op.
  std::vector<const trace::Site*> sites(const std::string& array, trace::Form form, trace::Op op) const {
    std::vector<const trace::Site*> out;
    for (const auto& s : t.sites)
      if (s.buffer < t.buffers.size() && t.buffers[s.buffer].name == array && s.form == form && s.op == op)
        out.push_back(&s);
    return out;
  }
  const analysis::SiteStats& stats(const trace::Site* s) const { return rep.sites[size_t(s - t.sites.data())]; }
  // Events of `form`, with the wait argument of each.
  std::vector<trace::Event> events(trace::Form form) const {
    std::vector<trace::Event> out;
    for (const auto& e : t.events)
      if (e.site < t.event_sites.size() && t.event_sites[e.site].form == form) out.push_back(e);
    return out;
  }
};

Recorded record(const std::string& id, int64_t size, const Settings& set = {}) { return {test::emulate(id, size, set)}; }

}  // namespace

TEST_CASE("the HGEMM reference reads its inputs as halves, as the kernels do") {
  // 1.0001 is not a half: the nearest is 1 (halves near 1 are 2^-10 apart), so every product
  // is 1 and each C element is exactly 8, not 8.0008.
  const int64_t N = 8;
  std::vector<float> A(N * N, 1.0001f), B(N * N, 1.0f), C(N * N, -1.0f);
  kernels::hgemm_reference(A.data(), B.data(), C.data(), N);
  for (float c : C) CHECK(c == 8.0f);
  // B is column-major: column n is B[n*N .. n*N+N). A row of 1s times column n of
  // B[n*N + k] = n gives 8n.
  std::fill(A.begin(), A.end(), 1.0f);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < N; ++k) B[size_t(n * N + k)] = float(n);
  kernels::hgemm_reference(A.data(), B.data(), C.data(), N);
  for (int64_t i = 0; i < N; ++i)
    for (int64_t n = 0; n < N; ++n) CHECK(C[size_t(i * N + n)] == 8.0f * float(n));
}

TEST_CASE("every tensor-core rung equals the half-input reference at sizes that are not tile multiples") {
  const std::vector<std::pair<std::string, Settings>> rungs = {
      {"tc_mma_plain", {}}, {"tc_mma_swizzled", {}}, {"tc_mma_pipelined", {{"stages", 2}}},
      {"tc_mma_pipelined", {{"stages", 3}}},
      {"tc_mma_tuned", {}},
      {"tc_mma_tuned", {{"warps", 8}, {"stages", 4}, {"group", 1}}}};
  for (const auto& [id, set] : rungs)
    for (int64_t n : {8, 72, 200}) {
      CAPTURE(id);
      CAPTURE(n);
      Recorded r = record(id, n, set);
      CHECK(r.error <= 1e-5);
    }
  // tc_mma_tuned with 4 stages refills a stage only from the fifth k tile on (N > 256); at
  // 320 the grid has blocks inside the matrices (the untested copies) and edge blocks.
  for (const Settings& set : {Settings{{"warps", 4}, {"stages", 4}}, Settings{{"warps", 8}, {"stages", 4}},
                              Settings{{"warps", 8}, {"stages", 3}, {"group", 2}}}) {
    CAPTURE(set.at("warps"));
    CAPTURE(set.at("stages"));
    Recorded r = record("tc_mma_tuned", 320, set);
    CHECK(r.error <= 1e-5);
  }
}

TEST_CASE("tc_mma_plain: ldmatrix from a plain 128-byte-a-row tile is 8-way, 32 wavefronts an instruction") {
  Recorded r = record("tc_mma_plain", 64);
  CHECK(r.error <= 1e-5);
  for (const char* tile : {"As", "Bs"}) {
    CAPTURE(tile);
    auto ld = r.sites(tile, trace::Form::Matrix, trace::Op::Load);
    REQUIRE(ld.size() == 1);
    CHECK(ld[0]->bytes == 16);
    const auto& s = r.stats(ld[0]);
    // The 8 rows of each 8×8 matrix are 128 bytes apart: one bank group, 8 wavefronts a
    // matrix, 4 matrices.
    CHECK(s.wavefronts_per_request == 32);
    CHECK(s.max_way == 8);
    // N = 64: one block of 4 warps, 4 k16 steps; A: 2 ldmatrix a step, B: 2.
    CHECK(s.requests == 4 * 4 * 2);
    // The copy into the tile: 16 bytes a lane, a row (128 bytes) per 8-lane phase.
    auto st = r.sites(tile, trace::Form::Plain, trace::Op::Store);
    REQUIRE(st.size() == 1);
    CHECK(r.stats(st[0]).wavefronts_per_request == 4);
    CHECK(r.stats(st[0]).bank_conflicts == 0);
  }
  // The global side of the copy: 4 rows of 128 bytes a request, 4 sectors each.
  for (const char* m : {"A", "B"}) {
    auto ld = r.sites(m, trace::Form::Plain, trace::Op::Load);
    REQUIRE(ld.size() == 1);
    CHECK(r.stats(ld[0]).sectors_per_request == 16);
  }
  // Every mma is an event: 4 warps × 4 k16 steps × (2×4) tiles.
  CHECK(r.events(trace::Form::Mma).size() == 4 * 4 * 8);
}

TEST_CASE("tc_mma_swizzled: the same ldmatrix from the XOR-swizzled tile is conflict-free, 4 wavefronts") {
  Recorded r = record("tc_mma_swizzled", 64);
  CHECK(r.error <= 1e-5);
  for (const char* tile : {"As", "Bs"}) {
    CAPTURE(tile);
    auto ld = r.sites(tile, trace::Form::Matrix, trace::Op::Load);
    REQUIRE(ld.size() == 1);
    const auto& s = r.stats(ld[0]);
    CHECK(s.wavefronts_per_request == 4);
    CHECK(s.bank_conflicts == 0);
    CHECK(s.requests == 4 * 4 * 2);  // the same instructions as the plain rung
    auto st = r.sites(tile, trace::Form::Plain, trace::Op::Store);
    REQUIRE(st.size() == 1);
    CHECK(r.stats(st[0]).wavefronts_per_request == 4);  // each row's chunks only permuted
    CHECK(r.stats(st[0]).bank_conflicts == 0);
  }
  CHECK(r.events(trace::Form::Mma).size() == 4 * 4 * 8);
}

TEST_CASE("tc_mma_pipelined: cp.async halves, commit and wait events, conflict-free swizzled lines") {
  for (int stages : {2, 3}) {
    CAPTURE(stages);
    Recorded r = record("tc_mma_pipelined", 128, {{"stages", stages}});
    CHECK(r.error <= 1e-5);
    CHECK(r.t.launch().dynamic_shared_bytes == uint32_t(stages * (128 + 64) * 32 * 2));
    for (const char* m : {"A", "B"}) {
      CAPTURE(m);
      // The read half: 16 bytes a lane, 4 lanes a 64-byte row, 8 rows: 2 sectors a row.
      auto rd = r.sites(m, trace::Form::AsyncRead, trace::Op::Load);
      REQUIRE(rd.size() == 1);
      CHECK(rd[0]->bytes == 16);
      CHECK(r.stats(rd[0]).sectors_per_request == 16);
      // Its write half, linked, lands in the tiles: a 128-byte line per 8-lane phase.
      REQUIRE(rd[0]->partner < r.t.sites.size());
      const trace::Site& wr = r.t.sites[rd[0]->partner];
      CHECK(wr.form == trace::Form::AsyncWrite);
      CHECK(wr.space == trace::Space::Shared);
      CHECK(r.t.buffers[wr.buffer].name == "tiles");
      CHECK(r.stats(&wr).wavefronts_per_request == 4);
      CHECK(r.stats(&wr).bank_conflicts == 0);
      CHECK(r.stats(&wr).requests == r.stats(rd[0]).requests);  // every copy landed
    }
    // The A and B fragments: two ldmatrix sites, both at the minimum.
    auto ld = r.sites("tiles", trace::Form::Matrix, trace::Op::Load);
    REQUIRE(ld.size() == 2);
    for (const auto* s : ld) {
      CHECK(r.stats(s).wavefronts_per_request == 4);
      CHECK(r.stats(s).bank_conflicts == 0);
    }
    // N = 128: two blocks of 4 warps (8 warps), 4 k tiles of 32, 2 k16 steps each, 4×4
    // tiles a warp.
    CHECK(r.events(trace::Form::Mma).size() == 8 * 4 * 2 * 16);
    // A commit per prologue stage and per k tile; a wait per k tile, then the last one.
    CHECK(r.events(trace::Form::Commit).size() == size_t(8 * ((stages - 1) + 4)));
    auto waits = r.events(trace::Form::Wait);
    REQUIRE(waits.size() == size_t(8 * (4 + 1)));
    size_t in_loop = 0;
    for (const auto& w : waits) in_loop += w.arg == uint32_t(stages - 2);
    CHECK(in_loop >= size_t(8 * 4));  // wait_group stages-2 in the loop (and 0 at the end)
  }
  // At a size that is not a tile multiple, the chunks past N are zeros stored directly.
  Recorded r = record("tc_mma_pipelined", 72);
  CHECK(r.error <= 1e-5);
  CHECK(r.sites("tiles", trace::Form::Plain, trace::Op::Store).size() == 2);  // A's and B's
}

TEST_CASE("tc_mma_tuned: k 64 tiles copied a row chunk a lane, fragments a step ahead, conflict-free") {
  // N = 128, the defaults: one block of 4 warps, each 64×64 of C; 2 k tiles of 64, 4 k16
  // steps each.
  Recorded r = record("tc_mma_tuned", 128);
  CHECK(r.error <= 1e-5);
  CHECK(r.t.launch().dynamic_shared_bytes == uint32_t(3 * (128 + 128) * 64 * 2));
  for (const char* m : {"A", "B"}) {
    CAPTURE(m);
    // A warp's 32 lanes: 8 chunks of 16 bytes of each of 4 rows, 128 bytes a row: 16 sectors,
    // all used. 8 such copies a tile (rows 0, 16, ... 112 of the warp's share), 2 tiles, 4
    // warps. Every tile lies inside the matrix: only the untested copy ran.
    auto rd = r.sites(m, trace::Form::AsyncRead, trace::Op::Load);
    REQUIRE(rd.size() == 1);
    CHECK(r.stats(rd[0]).sectors_per_request == 16);
    CHECK(r.stats(rd[0]).requests == 4 * 2 * 8);
    // Each 8-lane phase writes one row's 8 chunks, permuted within its line: 4 wavefronts.
    const trace::Site& wr = r.t.sites[rd[0]->partner];
    CHECK(r.stats(&wr).wavefronts_per_request == 4);
    CHECK(r.stats(&wr).bank_conflicts == 0);
  }
  // ldmatrix: 4 of A and 4 of B a step, for steps 0..7 (the last step loads nothing, no
  // tile follows it), 4 warps; all at the minimum, 4 wavefronts.
  auto ld = r.sites("tiles", trace::Form::Matrix, trace::Op::Load);
  REQUIRE(ld.size() == 2);
  for (const auto* s : ld) {
    CHECK(r.stats(s).requests == 4 * 8 * 4);
    CHECK(r.stats(s).wavefronts_per_request == 4);
    CHECK(r.stats(s).bank_conflicts == 0);
  }
  CHECK(r.events(trace::Form::Mma).size() == 4 * 8 * 32);
  // Commits: 2 in the prologue, one a tile; waits: one before the loop, one a tile, the last.
  CHECK(r.events(trace::Form::Commit).size() == size_t(4 * (2 + 2)));
  CHECK(r.events(trace::Form::Wait).size() == size_t(4 * (1 + 2 + 1)));
  // Fragments a step ahead: the first mma of a warp comes after its first two k16 steps'
  // ldmatrix (16 of them), not after the first step's 8.
  const auto mma = r.events(trace::Form::Mma);
  size_t ldm_before = 0;
  for (const auto& rec : r.t.records)
    if (rec.block == 0 && rec.warp == 0 && r.t.sites[rec.site].form == trace::Form::Matrix &&
        rec.seq < mma[0].seq)
      ++ldm_before;
  CHECK(mma[0].warp == 0);
  CHECK(ldm_before == 16);
}

TEST_CASE("tc_mma_tuned: blocks walk C in bands of `group` block rows") {
  // N = 256: 2 × 2 blocks of 128×128. Row by row (group 1) block 1 computes the tile right of
  // block 0 and reads A's rows 0-127; in bands of 8 (two rows here) it computes the tile
  // below block 0 and reads rows 128-255.
  for (int group : {1, 8}) {
    CAPTURE(group);
    Recorded r = record("tc_mma_tuned", 256, {{"group", group}});
    CHECK(r.error <= 1e-5);
    auto rd = r.sites("A", trace::Form::AsyncRead, trace::Op::Load);
    REQUIRE(rd.size() == 1);
    uint32_t lowest = UINT32_MAX;
    for (const auto& rec : r.t.records)
      if (rec.block == 1 && &r.t.sites[rec.site] == rd[0])
        for (int l = 0; l < 32; ++l)
          if (rec.lane_active(l)) lowest = std::min(lowest, rec.offset[size_t(l)]);
    CHECK(lowest / 2 / 256 == (group == 1 ? 0u : 128u));  // the first row the block reads
  }
}

TEST_CASE("tensor-core sizes that are not multiples of 8 are refused in one line") {
  for (const char* id : {"tc_mma_plain", "tc_mma_swizzled", "tc_mma_pipelined", "tc_mma_tuned"}) {
    CAPTURE(id);
    catalog::Params p;
    const std::string e = catalog::resolve(*catalog::find(id), 100, {}, p);
    CHECK(e.find("multiple of 8") != std::string::npos);
    CHECK(e.find("got 100") != std::string::npos);
    CHECK(e.find("try 104") != std::string::npos);
    CHECK(e.find('\n') == std::string::npos);
    CHECK(catalog::resolve(*catalog::find(id), 104, {}, p) == "");
  }
  catalog::Params p;
  CHECK(catalog::resolve(*catalog::find("tc_mma_pipelined"), 128, {{"stages", 4}}, p).find("2, 3") !=
        std::string::npos);
}
