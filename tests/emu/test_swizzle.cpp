// tests/emu/test_swizzle.cpp — the swizzle and async-copy entries on the CPU emulator: the
// ldmatrix reads of a 64×64 half tile cost the H100's wavefronts (32 plain, 4 padded, 4
// XOR-swizzled), the output equals the CPU reference, and the double-buffered copy's two
// halves cost what the H100 measured (8 sectors read, 2 wavefronts written) and are
// recorded where they happen (the write at the wait).
#include <doctest/doctest.h>

#include <bit>
#include <map>
#include <string>

#include "analysis/analysis.h"
#include "analysis/cluster.h"
#include "analysis/copies.h"
#include "analysis/pipeline.h"
#include "catalog.h"
#include "contract.h"
#include "emu/record.h"
#include "emulated.h"

using namespace ws;

namespace {

using Run = test::Emulated;

const analysis::SiteStats& site_stats(const Run& r, trace::Form form) {
  for (const auto& s : r.rep.sites)
    if (r.t.sites[s.site].form == form) return s;
  FAIL("no site of form " << trace::to_string(form));
  return r.rep.sites.front();
}

}  // namespace

TEST_CASE("ldmatrix.x4 of a 64×64 half tile: 32 wavefronts plain, 4 padded, 4 XOR-swizzled") {
  const std::map<std::string, double> want = {{"swizzle_plain", 32}, {"swizzle_padded", 4}, {"swizzle_xor", 4}};
  for (const auto& [id, wavefronts] : want) {
    CAPTURE(id);
    Run r = test::emulate(id, 64);
    CHECK(r.error == 0.0);
    const auto& ld = site_stats(r, trace::Form::Matrix);
    CHECK(ld.requests == 16);  // 4 warps × 4 k-steps
    CHECK(r.t.sites[ld.site].bytes == 16);
    CHECK(r.t.buffers[r.t.sites[ld.site].buffer].name == "tile");
    CHECK(ld.wavefronts_per_request == doctest::Approx(wavefronts));
    CHECK(ld.ideal_wavefronts == 4 * ld.requests);
  }
  // The padded tile holds 64 rows of 72 halves; the others 64 of 64.
  CHECK(test::emulate("swizzle_padded", 64).t.buffers.back().size_bytes == 64 * 72 * 2);
  CHECK(test::emulate("swizzle_xor", 64).t.buffers.back().size_bytes == 64 * 64 * 2);
}

TEST_CASE("the swizzle entries read half arrays and refuse a size that is not whole tiles") {
  const auto* k = catalog::find("swizzle_xor");
  REQUIRE(k);
  catalog::Params p;
  const std::string e = catalog::resolve(*k, 96, {}, p);
  CHECK(e.find("multiple of 64, got 96") != std::string::npos);
  REQUIRE(catalog::resolve(*k, 64, {}, p) == "");
  auto specs = k->buffers(p);
  CHECK(specs[0].elem_bytes == 2);
  // Inputs of half arrays are what 16 bits hold: 0.001 is not, its nearest half is.
  auto a = catalog::make_arrays(*k, p);
  for (float v : a[0]) CHECK(half_value(half_bits(v)) == v);
}

TEST_CASE("async_copy_tiles: 8 sectors read at issue, 2 wavefronts written at the wait") {
  Run r = test::emulate("async_copy_tiles", 1024);
  CHECK(r.error == 0.0);
  // Two cp_async16 calls (the first tile, then each next one): every site of either half
  // costs the same, and each block has 8 of each.
  uint64_t read_requests = 0, write_requests = 0;
  for (const auto& s : r.rep.sites) {
    const trace::Site& site = r.t.sites[s.site];
    if (site.form == trace::Form::AsyncRead) {
      CHECK(site.space == trace::Space::Global);
      CHECK(s.sectors_per_request == doctest::Approx(8.0));
      read_requests += s.requests;
    }
    if (site.form == trace::Form::AsyncWrite) {
      CHECK(site.space == trace::Space::Shared);
      CHECK(site.op == trace::Op::Store);
      CHECK(s.wavefronts_per_request == doctest::Approx(2.0));
      write_requests += s.requests;
    }
  }
  CHECK(read_requests == 2 * 8);  // 2 blocks, 8 tiles each
  CHECK(write_requests == 2 * 8);
  // Each read site is linked to the write site of its own line.
  int reads = 0;
  for (uint32_t i = 0; i < r.t.sites.size(); ++i) {
    const trace::Site& s = r.t.sites[i];
    if (s.form != trace::Form::AsyncRead) continue;
    ++reads;
    REQUIRE(s.partner < r.t.sites.size());
    CHECK(r.t.sites[s.partner].line == s.line);
    CHECK(r.t.sites[s.partner].partner == i);
  }
  CHECK(reads == 2);
  // Per block: 9 commits (one before the loop, one a tile) and 8 waits with arg 1.
  int commits = 0, waits = 0;
  for (const auto& e : r.t.events) {
    const trace::Form f = r.t.event_sites.at(e.site).form;
    commits += f == trace::Form::Commit;
    if (f == trace::Form::Wait) {
      ++waits;
      CHECK(e.arg == 1);
    }
  }
  CHECK(commits == 2 * 9);
  CHECK(waits == 2 * 8);
  // Block 0's tile 1: its read is issued before the wait that lands tile 0, its write is
  // recorded after that wait and before the next one.
  std::vector<uint32_t> wait_seq;
  for (const auto& e : r.t.events)
    if (e.block == 0 && r.t.event_sites[e.site].form == trace::Form::Wait) wait_seq.push_back(e.seq);
  std::vector<uint32_t> read_seq, write_seq;
  for (const auto& rec : r.t.records) {
    if (rec.block != 0) continue;
    if (r.t.sites[rec.site].form == trace::Form::AsyncRead) read_seq.push_back(rec.seq);
    if (r.t.sites[rec.site].form == trace::Form::AsyncWrite) write_seq.push_back(rec.seq);
  }
  REQUIRE(wait_seq.size() == 8);
  REQUIRE(read_seq.size() == 8);
  REQUIRE(write_seq.size() == 8);
  CHECK(read_seq[1] < wait_seq[0]);                              // tile 1 issued before tile 0's wait
  CHECK(write_seq[0] < wait_seq[0]);                             // tile 0 lands at the first wait
  CHECK((write_seq[1] > wait_seq[0] && write_seq[1] < wait_seq[1]));  // tile 1 at the second
}

TEST_CASE("tma_copy store=1: the TMA store reads the swizzled tile at issue and writes out at its bulk wait") {
  test::Emulated r = test::emulate("tma_copy", 128, {{"store", 1}});
  CHECK(r.error == 0.0);
  const trace::Trace& t = r.t;
  std::vector<const trace::Record*> reads, writes;  // block 0's store: the tile read, out written
  for (const auto& rec : t.records) {
    const trace::Site& s = t.sites[rec.site];
    if (rec.block != 0) continue;
    if (s.form == trace::Form::BulkRead && s.space == trace::Space::Shared) reads.push_back(&rec);
    if (s.form == trace::Form::BulkWrite && s.space == trace::Space::Global) writes.push_back(&rec);
  }
  REQUIRE(reads.size() == 8);
  REQUIRE(writes.size() == 8);
  const trace::Site& rs = t.sites[reads[0]->site];
  CHECK(rs.partner == writes[0]->site);  // the store's two halves, one line
  for (int k = 0; k < 8; ++k)
    for (int l = 0; l < 32; ++l) {
      const uint32_t p = uint32_t(32 * k + l), o = 16 * p;
      // Piece p of the box is row p / 8, chunk p % 8: in the tile where the swizzle put it,
      // in out (128 floats a row) at row p / 8.
      CHECK(reads[size_t(k)]->offset[size_t(l)] == (o ^ (((o >> 7) & 7u) << 4)));
      CHECK(writes[size_t(k)]->offset[size_t(l)] == p / 8 * 512 + 16 * (p % 8));
    }
  CHECK(reads.back()->seq < writes.front()->seq);
  // No thread stores to out: the TMA wrote every element.
  for (const auto& s : t.sites) CHECK_FALSE((s.form == trace::Form::Plain && s.space == trace::Space::Global && s.op == trace::Op::Store));
}

TEST_CASE("tma_copy store=1 in the pipeline view: the box that came in and the store that went out, two rows") {
  test::Emulated r = test::emulate("tma_copy", 128, {{"store", 1}});
  const analysis::Pipeline p = analysis::pipeline_of(r.t, analysis::follow_copies(r.t), 0);
  REQUIRE(p.slots.size() == 2);  // the same tile: once where the box landed, once what the store read
  int in = 0, out = 0;
  for (const analysis::PipelineSlot& s : p.slots) {
    CHECK(s.boxes.size() == 1);
    CHECK(s.bytes == 4096);
    CHECK(s.offset == 0);
    (s.to == trace::kNoBuffer ? in : out) += 1;
    if (s.to != trace::kNoBuffer) CHECK(r.t.buffers[s.to].name == "out");
  }
  CHECK(in == 1);
  CHECK(out == 1);
}

TEST_CASE("tc_wgmma in the pipeline view: 4 stages of A and B from their arrays, each filled twice, each box landed before the products that read it") {
  test::Emulated r = test::emulate("tc_wgmma", 512, {});
  const analysis::Pipeline p = analysis::pipeline_of(r.t, analysis::follow_copies(r.t), 0);
  // 8 k tiles of 64 through a ring of 4: slots of 128 x 64 halves of A, then 256 x 64 of B.
  REQUIRE(p.slots.size() == 8);
  for (size_t i = 0; i < 8; ++i) {
    CAPTURE(i);
    const analysis::PipelineSlot& s = p.slots[i];
    const bool a = i < 4;
    REQUIRE(s.from < r.t.buffers.size());
    CHECK(r.t.buffers[s.from].name == (a ? "A" : "B"));
    CHECK(s.to == trace::kNoBuffer);
    CHECK(s.bytes == (a ? 16384u : 32768u));
    CHECK(s.offset == (a ? 16384u * i : 65536u + 32768u * (i - 4)));
    REQUIRE(s.boxes.size() == 2);
    for (const analysis::PipelineBox& b : s.boxes) {
      CHECK(b.warp == 0);  // the producer
      REQUIRE(b.landed != analysis::kNoRecord);
      CHECK(b.landed > b.issued);
    }
    CHECK(s.boxes[0].landed < s.boxes[1].issued);  // the stage was given back before its refill
  }
  // Eight consumer warps, four wgmma a k tile each; the first product after both boxes of
  // stage 0 landed (the producer records a box's landing at its next mbarrier wait).
  uint64_t products = 0, first = ~uint64_t(0);
  for (const analysis::PipelineTick& k : p.ticks)
    if (k.form == trace::Form::Mma) {
      ++products;
      first = std::min(first, k.step);
      CHECK((k.warp >= 4 && k.warp < 12));
    }
  CHECK(products == 8 * 8 * 4);
  CHECK(first >= p.slots[0].boxes[0].landed);
  CHECK(first >= p.slots[4].boxes[0].landed);
  // Each product is named as the warpgroup instruction it is, for the fragment view.
  for (const trace::Site& s : r.t.event_sites)
    if (s.form == trace::Form::Mma) CHECK(s.instruction == "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16");
}

TEST_CASE("tc_wgmma on a persistent grid: a block takes tile after tile, its ring running on, and C equals the CPU's") {
  // 512: 4 × 2 tiles of 128 × 256. On 2 blocks, block 0 takes tiles 0, 2, 4 and 6: 4 tiles
  // of 8 k tiles through the ring of 4 stages, so each stage is filled 8 times.
  test::Emulated r = test::emulate("tc_wgmma", 512, {{"grid", 2}});
  REQUIRE(r.t.launches.size() == 1);
  CHECK(r.t.launches[0].grid.x * r.t.launches[0].grid.y == 2);
  const analysis::Pipeline p = analysis::pipeline_of(r.t, analysis::follow_copies(r.t), 0);
  REQUIRE(p.slots.size() == 8);
  for (size_t i = 0; i < 8; ++i) {
    CAPTURE(i);
    const analysis::PipelineSlot& s = p.slots[i];
    REQUIRE(s.boxes.size() == 8);
    for (size_t b = 0; b + 1 < s.boxes.size(); ++b) {
      REQUIRE(s.boxes[b].landed != analysis::kNoRecord);
      CHECK(s.boxes[b].landed < s.boxes[b + 1].issued);  // given back before its next fill
    }
  }
  uint64_t products = 0;
  for (const analysis::PipelineTick& k : p.ticks) products += k.form == trace::Form::Mma;
  CHECK(products == 8 * 32 * 4);  // 8 consumer warps, 32 k tiles, 4 wgmma each
  CHECK(r.error <= 1e-5);  // C against the CPU's product
}

TEST_CASE("tc_wgmma_cluster: two CTAs run together, rank 0's one request for B lands in both, and C equals the CPU's") {
  // 512: 2 columns of 4 tiles of 128 × 256, computed in pairs one above the other (4 pairs).
  // On a grid of 2 blocks, one cluster takes all 4 pairs: 4 × 8 k tiles through the ring.
  test::Emulated r = test::emulate("tc_wgmma_cluster", 512, {{"grid", 2}});
  REQUIRE(r.t.launches.size() == 1);
  CHECK(r.t.launch().cluster == trace::Dim3{2, 1, 1});
  CHECK(r.t.launch().blocks == std::vector<uint32_t>{0, 1});
  CHECK(r.error <= 1e-5);  // C against the CPU's product
  // Global bytes read, by block and array: each CTA its own 128 × 64 boxes of A (16 KiB);
  // rank 0 alone the 256 × 64 boxes of B (32 KiB), once for both.
  std::map<std::pair<uint32_t, std::string>, uint64_t> read;
  for (const trace::Record& rec : r.t.records) {
    const trace::Site& s = r.t.sites.at(rec.site);
    if (s.form == trace::Form::BulkRead) read[{rec.block, r.t.buffers.at(s.buffer).name}] += 16u * std::popcount(rec.active);
  }
  CHECK(read[{0, "A"}] == 32 * 16384u);
  CHECK(read[{1, "A"}] == 32 * 16384u);
  CHECK(read[{0, "B"}] == 32 * 32768u);
  CHECK(read.count({1, "B"}) == 0);
  // The cluster view's fan-out: the B boxes landed in rank 1, which never asked for them.
  const analysis::Cluster c = analysis::cluster_of(r.t, 1, ~uint64_t(0));
  REQUIRE(c.ctas.size() == 2);
  CHECK((c.ctas[0].recorded && c.ctas[1].recorded));
  REQUIRE(c.fanouts.size() == 1);
  CHECK(c.fanouts[0].from == std::vector<uint32_t>{0});
  CHECK(c.fanouts[0].to == 1);
  CHECK(c.fanouts[0].bytes == 32 * 32768u);
  CHECK(c.fanouts[0].copies == 32);  // one box a k tile: 4 pairs of tiles × 8 k tiles
  // setmaxnreg, once a warp: warps 0-3 keep 40 registers a thread, warps 4-11 take 232.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> regs;  // (block, warp) -> counts
  for (const trace::Event& e : r.t.events)
    if (r.t.event_sites.at(e.site).form == trace::Form::Registers) regs[{e.block, e.warp}].push_back(e.arg);
  CHECK(regs.size() == 24);
  for (const auto& [bw, counts] : regs) CHECK(counts == std::vector<uint32_t>{bw.second < 4 ? 40u : 232u});
  CHECK(trace::registers_at_launch(384) == 168);
  for (const trace::Site& s : r.t.event_sites)
    if (s.form == trace::Form::Registers)
      CHECK(s.instruction == (s.code.find("dec") != std::string::npos ? "setmaxnreg.dec.sync.aligned.u32"
                                                                       : "setmaxnreg.inc.sync.aligned.u32"));
  // The pipeline view draws the boxes a CTA asked for: rank 0's ring has its 4 stages of A
  // and of B, each filled 8 times; rank 1's, the A stages alone (its B stages' boxes are
  // rank 0's, drawn as the fan-out in the cluster view).
  const analysis::Pipeline p0 = analysis::pipeline_of(r.t, analysis::follow_copies(r.t), 0);
  const analysis::Pipeline p1 = analysis::pipeline_of(r.t, analysis::follow_copies(r.t), 1);
  REQUIRE(p0.slots.size() == 8);
  REQUIRE(p1.slots.size() == 4);
  for (const analysis::PipelineSlot& s : p0.slots) CHECK(s.boxes.size() == 8);
  for (const analysis::PipelineSlot& s : p1.slots) CHECK(r.t.buffers.at(s.from).name == "A");
}

TEST_CASE("clusters on the emulated device: a block asked for brings the other CTA of its cluster") {
  const auto* k = catalog::find("tc_wgmma_cluster");
  REQUIRE(k);
  catalog::Params p;
  REQUIRE(catalog::resolve(*k, 512, {{"grid", 0}}, p) == "");
  auto arrays = catalog::make_arrays(*k, p);
  trace::Trace t;
  emu::CaptureOptions opt;
  opt.blocks = {5};
  emu::record(*k, p, arrays, opt, t);
  CHECK(t.launch().blocks == std::vector<uint32_t>{4, 5});  // block 5 is rank 1 of the cluster of 4 and 5
  const analysis::Cluster c = analysis::cluster_of(t, 5, ~uint64_t(0));
  REQUIRE(c.fanouts.size() == 1);
  CHECK(c.fanouts[0].to == 1);
}
