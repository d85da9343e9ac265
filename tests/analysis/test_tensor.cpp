// The figures behind the tensor-core views, worked out by hand: an ldmatrix.x4 row by row
// (a plain 64×64 half tile 8-way in every matrix, the XOR-swizzled one conflict-free: the
// H100's 32 and 4 wavefronts), the PTX ISA's mma fragment layouts, an async copy's halves
// paired and the shared tile's source columns, and the events placed among the requests.
#include <doctest/doctest.h>

#include <set>

#include "../tensor_traces.h"
#include "analysis/analysis.h"
#include "analysis/copies.h"
#include "analysis/fragments.h"

using namespace ws;

namespace {

const trace::Record& ldmatrix_record(const trace::Trace& t) {
  for (const auto& r : t.records)
    if (t.sites[r.site].form == trace::Form::Matrix) return r;
  FAIL("no ldmatrix record");
  return t.records.front();
}

}  // namespace

TEST_CASE("an ldmatrix.x4 of a plain tile: each matrix's 8 rows in banks 0-3, 8-way, 32 wavefronts") {
  const trace::Trace t = test::tensor_trace(false);
  const auto phases = analysis::matrix_phases(ldmatrix_record(t));
  REQUIRE(phases.size() == 4);
  uint32_t total = 0;
  for (const auto& p : phases) {
    CHECK(p.wavefronts == 8);
    for (uint32_t row = 0; row < 8; ++row) {
      const auto& mr = p.rows[row];
      CHECK(mr.lane == 8 * p.matrix + row);
      CHECK(mr.offset == (8 * p.matrix + row) * 128);
      CHECK(mr.first_bank == 0);
      CHECK(mr.way == 8);
      CHECK(mr.shares == (0xffu & ~(1u << row)));  // every other row of its matrix
    }
    total += p.wavefronts;
  }
  CHECK(total == 32);
  CHECK(analysis::shared_cost(ldmatrix_record(t), 16).wavefronts == total);
}

TEST_CASE("an ldmatrix.x4 of an XOR-swizzled tile: row r of each matrix in banks 4r..4r+3, 4 wavefronts") {
  const trace::Trace t = test::tensor_trace(true);
  const auto phases = analysis::matrix_phases(ldmatrix_record(t));
  uint32_t total = 0;
  for (const auto& p : phases) {
    CHECK(p.wavefronts == 1);
    for (uint32_t row = 0; row < 8; ++row) {
      CHECK(p.rows[row].first_bank == 4 * row);  // chunk 0 ^ row lands in chunk `row`
      CHECK(p.rows[row].way == 1);
      CHECK(p.rows[row].shares == 0);
    }
    total += p.wavefronts;
  }
  CHECK(total == 4);
  CHECK(analysis::shared_cost(ldmatrix_record(t), 16).wavefronts == 4);
}

TEST_CASE("an ldmatrix.x2 leaves matrices 2 and 3 without rows or wavefronts") {
  trace::Record r = ldmatrix_record(test::tensor_trace(false));
  r.active = 0xffffu;
  const auto phases = analysis::matrix_phases(r);
  CHECK(phases[1].wavefronts == 8);
  CHECK(phases[2].wavefronts == 0);
  CHECK(!phases[3].rows[0].active);
}

TEST_CASE("mma m16n8k16 f16 fragments as the PTX ISA draws them") {
  analysis::Fragments f;
  std::string err;
  REQUIRE(analysis::mma_fragments("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", f, err));
  CHECK(f.a.rows == 16);
  CHECK(f.a.cols == 16);
  CHECK(f.b.rows == 16);
  CHECK(f.b.cols == 8);
  CHECK(f.c.rows == 16);
  CHECK(f.c.cols == 8);
  CHECK(f.a.regs == 4);  // four .f16x2 registers
  CHECK(f.b.regs == 2);
  CHECK(f.c.regs == 4);  // four .f32
  // Lane 0: a0,a1 = (0, 0..1), a2,a3 = (8, 0..1), a4,a5 = (0, 8..9), a6,a7 = (8, 8..9).
  auto a = [&](uint32_t r, uint32_t c) { return f.a.at(r, c); };
  CHECK(a(0, 0).lane == 0);
  CHECK(a(0, 0).elem == 0);
  CHECK(a(0, 1).elem == 1);
  CHECK(a(0, 1).reg == 0);
  CHECK(a(8, 0).lane == 0);
  CHECK(a(8, 0).elem == 2);
  CHECK(a(8, 1).reg == 1);
  CHECK(a(0, 8).elem == 4);
  CHECK(a(0, 9).reg == 2);
  CHECK(a(8, 9).elem == 7);
  CHECK(a(8, 9).reg == 3);
  // Lane 5 (group 1, place 1): a0 at (1, 2).
  CHECK(a(1, 2).lane == 5);
  CHECK(a(1, 2).elem == 0);
  // Lane 31 (group 7, place 3): a7 at (15, 15).
  CHECK(a(15, 15).lane == 31);
  CHECK(a(15, 15).elem == 7);
  // B: lane 0 holds b0,b1 = (0..1, 0), b2,b3 = (8..9, 0); lane 6 (group 1, place 2) b0 at (4, 1).
  CHECK(f.b.at(0, 0).lane == 0);
  CHECK(f.b.at(1, 0).elem == 1);
  CHECK(f.b.at(9, 0).elem == 3);
  CHECK(f.b.at(9, 0).reg == 1);
  CHECK(f.b.at(4, 1).lane == 6);
  // C: lane 0 holds c0,c1 = (0, 0..1), c2,c3 = (8, 0..1); lane 30 c3 at (15, 5).
  CHECK(f.c.at(8, 1).lane == 0);
  CHECK(f.c.at(8, 1).elem == 3);
  CHECK(f.c.at(15, 5).lane == 30);
  CHECK(f.c.at(15, 5).elem == 3);
}

TEST_CASE("every fragment layout gives each lane an equal share and each element one owner") {
  for (const char* ins : {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                          "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
                          "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                          "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"}) {
    CAPTURE(ins);
    analysis::Fragments f;
    std::string err;
    REQUIRE(analysis::mma_fragments(ins, f, err));
    for (const analysis::FragmentGrid* g : {&f.a, &f.b, &f.c}) {
      std::set<std::pair<int, int>> owned;  // (lane, elem): once each
      int per_lane[32] = {};
      for (const auto& c : g->cells) {
        CHECK(owned.insert({c.lane, c.elem}).second);
        ++per_lane[c.lane];
      }
      for (int n : per_lane) CHECK(n == int(g->cells.size() / 32));
    }
  }
}

TEST_CASE("tf32 and s8 fragments follow their own figures") {
  analysis::Fragments f;
  std::string err;
  REQUIRE(analysis::mma_fragments("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", f, err));
  // Lane 0: a0 (0,0), a1 (8,0), a2 (0,4), a3 (8,4); b0 (0,0), b1 (4,0); one element a register.
  CHECK(f.a.at(8, 0).elem == 1);
  CHECK(f.a.at(0, 4).elem == 2);
  CHECK(f.a.at(8, 4).reg == 3);
  CHECK(f.b.at(4, 0).lane == 0);
  CHECK(f.b.at(4, 0).elem == 1);
  REQUIRE(analysis::mma_fragments("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", f, err));
  CHECK(f.a.cols == 32);
  CHECK(f.b.rows == 32);
  // Lane 1 (place 1): a0..a3 = (0, 4..7) in register 0, a8 = (0, 20) in register 2, a4 = (8, 4).
  CHECK(f.a.at(0, 4).lane == 1);
  CHECK(f.a.at(0, 7).elem == 3);
  CHECK(f.a.at(0, 20).elem == 8);
  CHECK(f.a.at(0, 20).reg == 2);
  CHECK(f.a.at(8, 4).elem == 4);
  // B: lane 1 b4 = (20, 0) in register 1.
  CHECK(f.b.at(20, 0).lane == 1);
  CHECK(f.b.at(20, 0).reg == 1);
}

TEST_CASE("wgmma m64nNk16: the warpgroup's 64 rows of D over four warps' lanes, B (and A from a descriptor) from shared memory") {
  analysis::Fragments f;
  std::string err;
  REQUIRE(analysis::mma_fragments("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", f, err));
  CHECK(f.full_n == 64);
  CHECK(f.n == 32);  // the layout repeats every 8 columns: 32 drawn
  CHECK(f.c.rows == 64);
  CHECK(f.warps == 4);
  CHECK(f.a.rows == 64);
  CHECK(f.c.regs == 32);  // 64 / 2 f32 accumulators a lane
  CHECK(f.a.shared);
  CHECK(f.b.shared);
  CHECK(f.b.at(3, 17).lane == analysis::kSharedCell);
  // Lane 5 (g 1, t 1): d0, d1 at row 1, columns 2, 3; d2, d3 at row 9; d4 eight columns on.
  CHECK(f.c.at(1, 2).lane == 5);
  CHECK(f.c.at(1, 2).reg == 0);
  CHECK(f.c.at(1, 3).reg == 1);
  CHECK(f.c.at(9, 2).reg == 2);
  CHECK(f.c.at(1, 10).reg == 4);
  CHECK(f.c.at(15, 31).lane == 31);
  CHECK(f.c.at(15, 31).reg == 15);
  CHECK(f.c.at(15, 31).warp == 0);
  // Warp 2 holds rows 32-47 as warp 0 holds rows 0-15: lane 5's d2 at row 32 + 9.
  CHECK(f.c.at(41, 2).lane == 5);
  CHECK(f.c.at(41, 2).reg == 2);
  CHECK(f.c.at(41, 2).warp == 2);
  CHECK(f.c.at(63, 31).warp == 3);
  // f16 accumulators: two a register; A in registers as mma.sync's m16n8k16 A.
  REQUIRE(analysis::mma_fragments("wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 (A in registers)", f, err));
  CHECK(f.c.regs == 4);
  CHECK(f.c.at(1, 3).reg == 0);
  CHECK(f.c.at(9, 2).reg == 1);
  CHECK(!f.a.shared);
  CHECK(f.a.regs == 4);
  CHECK(f.a.at(8, 9).lane == 0);
  CHECK(f.a.at(8, 9).elem == 7);
  CHECK(f.a.at(16 + 8, 9).lane == 0);
  CHECK(f.a.at(16 + 8, 9).warp == 1);
  // tf32 (K 8, A as mma.sync's m16n8k8 tf32 A: a2 four columns on) and 8-bit floats (K 32).
  REQUIRE(analysis::mma_fragments("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 (A in registers)", f, err));
  CHECK(f.k == 8);
  CHECK(f.a.regs == 4);
  CHECK(f.a.at(0, 4).reg == 2);
  REQUIRE(analysis::mma_fragments("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2", f, err));
  CHECK(f.k == 32);
  CHECK(f.b.rows == 32);
  CHECK(!analysis::mma_fragments("wgmma.mma_async.sync.aligned.m64n8k32.f32.e3m2.e3m2", f, err));
  CHECK(err.find("inputs of type .e3m2 are not drawn") != std::string::npos);
  // s8 into s32, K 32, A in registers as mma.sync's m16n8k32 A: lane 0's a8 (register 2) at
  // row 0, column 16; a4 (register 1) at row 8; warp 3's the same 48 rows on.
  REQUIRE(analysis::mma_fragments("wgmma.mma_async.sync.aligned.m64n16k32.satfinite.s32.s8.u8 (A in registers)", f, err));
  CHECK(f.k == 32);
  CHECK(f.a.cols == 32);
  CHECK(f.a.regs == 4);
  CHECK(f.a.at(0, 16).lane == 0);
  CHECK(f.a.at(0, 16).reg == 2);
  CHECK(f.a.at(8, 0).reg == 1);
  CHECK(f.a.at(48 + 8, 0).warp == 3);
  CHECK(f.b.rows == 32);
  CHECK(f.c.regs == 8);  // 16 / 2 s32 accumulators a lane
  CHECK(f.c.at(1, 2).lane == 5);
}

TEST_CASE("instructions with no drawn layout are refused in one line") {
  analysis::Fragments f;
  std::string err;
  CHECK(!analysis::mma_fragments("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", f, err));
  CHECK(err.find("wmma") != std::string::npos);
  CHECK(err.find('\n') == std::string::npos);
  CHECK(!analysis::mma_fragments("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", f, err));
  CHECK(err.find("m16n8k") != std::string::npos);
  CHECK(!analysis::mma_fragments("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64", f, err));
  CHECK(err.find(".f64") != std::string::npos);
  CHECK(!analysis::mma_fragments("mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32", f, err));
  CHECK(!analysis::mma_fragments("", f, err));
  CHECK(!err.empty());
}

TEST_CASE("an async copy's halves pair by order, and the swizzled tile's source columns show the XOR") {
  const trace::Trace t = test::tensor_trace(true);
  const analysis::Copies c = analysis::follow_copies(t);
  REQUIRE(c.async_pairs.size() == 16);
  // Write k (record 16 + k) is the copy read by record k.
  for (uint64_t k = 0; k < 16; ++k) {
    CHECK(c.partner(16 + k) == k);
    CHECK(c.partner(k) == 16 + k);
  }
  CHECK(c.partner(32) == analysis::kNoRecord);  // an ldmatrix
  const analysis::SourceColumns* s = c.columns_of(1);
  REQUIRE(s);
  CHECK(s->from == 0);
  CHECK(c.columns_of(0) == nullptr);
  // Shared row r, chunk q holds global chunk q ^ (r & 7): element (1, 0) came from column 8,
  // (1, 8) from column 0, (7, 27) from chunk 4 (columns 32..39), (9, 63) from chunk 6's last.
  auto col = [&](uint32_t r, uint32_t cc) { return s->column[r * 64 + cc]; };
  CHECK(col(0, 0) == 0);
  CHECK(col(1, 0) == 8);
  CHECK(col(1, 8) == 0);
  CHECK(col(7, 27) == 35);
  CHECK(col(9, 63) == 55);
  CHECK(s->written_at[0] == 16);
  CHECK(s->written_at[64 * 64 - 1] == 31);
  // Plainly stored: every element keeps its own column.
  const analysis::Copies p = analysis::follow_copies(test::tensor_trace(false));
  for (uint32_t e = 0; e < 64 * 64; e += 37) CHECK(p.columns_of(1)->column[e] == int32_t(e % 64));
}

TEST_CASE("a plain ld → st copy takes the same lane's last global load; a copy with no read stays unpaired") {
  trace::Trace t = test::tensor_trace(false);
  // Turn the async halves into a plain load and store, each load just before its store.
  t.sites[0].form = trace::Form::Plain;
  t.sites[1].form = trace::Form::Plain;
  t.sites[0].partner = t.sites[1].partner = trace::kNoSite;
  std::vector<trace::Record> recs;
  for (int k = 0; k < 16; ++k) {
    trace::Record st = t.records[size_t(16 + k)];
    // Each lane stores its chunk one row down: the column stays.
    for (auto& o : st.offset) o = (o + 128) % (64 * 64 * 2);
    recs.push_back(t.records[size_t(k)]);
    recs.push_back(st);
  }
  t.records = recs;
  const analysis::Copies c = analysis::follow_copies(t);
  CHECK(c.async_pairs.empty());
  REQUIRE(c.columns_of(1));
  CHECK(c.columns_of(1)->column[64 + 9] == 9);
  CHECK(c.columns_of(1)->written_at[64 + 9] == 1);
  // A landed write whose read was not recorded pairs with nothing.
  trace::Trace u = test::tensor_trace(true);
  u.records.erase(u.records.begin());
  const analysis::Copies d = analysis::follow_copies(u);
  CHECK(d.async_pairs.size() == 15);
  CHECK(d.partner(15) == 0);   // the first landed write now takes the second read
}

TEST_CASE("events sit between the requests of their warp") {
  const trace::Trace t = test::tensor_trace(true);
  const analysis::Copies c = analysis::follow_copies(t);
  REQUIRE(c.events.size() == 3);
  // The commit and the wait come after the 16 reads, before the first landed write.
  CHECK(c.events[0].after == 15);
  CHECK(c.events[0].before == 16);
  CHECK(c.events[1].step() == 16);
  // The mma is the warp's last instruction: marked at the last ldmatrix.
  CHECK(c.events[2].before == analysis::kNoRecord);
  CHECK(c.events[2].step() == 33);
  CHECK(analysis::event_text(t, t.events[1]) == "cp.async.wait_group 0 (lets 0 groups stay in flight)");
  CHECK(analysis::event_text(t, t.events[0]) == "cp.async.commit_group");
}

TEST_CASE("the mma a request's warp ran nearest before it, else the next one") {
  trace::Trace t = test::tensor_trace(false);
  bool later = false;
  // The warp's one mma follows its last ldmatrix: every request names the next one.
  CHECK(analysis::nearest_mma(t, 33, &later) == 2);
  CHECK(later);
  CHECK(analysis::nearest_mma(t, 0, &later) == 2);
  CHECK(later);
  t.events.push_back(t.events[2]);
  t.events.back().seq = 17;  // an mma between the wait and the landed writes
  CHECK(analysis::nearest_mma(t, 20, &later) == 3);
  CHECK(!later);
  t.events[3].warp = 1;      // another warp's: not this one's
  CHECK(analysis::nearest_mma(t, 20, &later) == 2);
  CHECK(analysis::nearest_mma(t, 999) == -1);
  // A warp that ran none (a producer): the block's mma nearest in time, another warp's.
  bool other = false;
  for (trace::Event& e : t.events) e.warp = 1;
  t.events[2].at = 30;
  t.events[3].at = 22;
  CHECK(analysis::nearest_mma(t, 20, &later, &other) == 3);
  CHECK(other);
  CHECK(later);
  CHECK(analysis::nearest_mma(t, 29, &later, &other) == 2);
  t.events[2].block = 5;  // another block's: never
  t.events[3].block = 5;
  CHECK(analysis::nearest_mma(t, 20, &later, &other) == -1);
}
