// tests/program/test_async_copy.cpp — tests/programs/async_copy.cu on the emulated device:
// its double-buffered cp.async loop passes its own check, and the report gives each copy's
// halves the H100's figures (Nsight Compute on the same access shapes: 16 bytes a lane on
// 16 lanes, 8 sectors a request on the global side and 2 wavefronts on the shared side;
// 4 bytes a lane on 32 lanes, 4 sectors and 1 wavefront); tests/programs/tma_box.cu, a TMA
// box from a tensor map the program encodes through the runtime's driver entry point.
#include <doctest/doctest.h>

#include <bit>

#include "analysis/analysis.h"
#include "analysis/copies.h"
#include "analysis/pipeline.h"
#include "program/program.h"
#include "../support.h"

using namespace ws;

TEST_CASE("async_copy.cu: cp.async double buffering passes, each copy's two halves at the H100's figures") {
  if (!ws::test::have_nvcc("user-program tests skipped")) return;
  program::Options o;
  o.source = "tests/programs/async_copy.cu";
  o.echo = false;
  o.timeout_seconds = 60;
  const program::Result r = program::run(o);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("PASSED") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 1);
  const trace::Trace& t = r.trace;
  const analysis::Report rep = analysis::analyze(t, analysis::DramModel{});
  int reads16 = 0, reads4 = 0, writes16 = 0, writes4 = 0;
  for (const analysis::SiteStats& s : rep.sites) {
    const trace::Site& site = t.sites[s.site];
    if (site.form == trace::Form::AsyncRead || site.form == trace::Form::AsyncWrite) {
      // Each copy is a line of the program: the 16-byte one on line 31, the 4-byte on 32.
      CHECK(t.file_name(site).find("async_copy.cu") != std::string::npos);
      CHECK(site.line == (site.bytes == 16 ? 31u : 32u));
    }
    if (site.form == trace::Form::AsyncRead) {
      REQUIRE(site.partner < t.sites.size());
      CHECK(t.sites[site.partner].form == trace::Form::AsyncWrite);
      if (site.bytes == 16) {
        CHECK(s.sectors_per_request == doctest::Approx(8.0));
        ++reads16;
      } else {
        CHECK(site.bytes == 4);
        CHECK(s.sectors_per_request == doctest::Approx(4.0));
        ++reads4;
      }
    }
    if (site.form == trace::Form::AsyncWrite) {
      CHECK(s.wavefronts_per_request == doctest::Approx(site.bytes == 16 ? 2.0 : 1.0));
      (site.bytes == 16 ? writes16 : writes4)++;
    }
  }
  // The prologue's copy and the loop's: two sites of each width and half.
  CHECK(reads16 == 2);
  CHECK(reads4 == 2);
  CHECK(writes16 == 2);
  CHECK(writes4 == 2);
  // Every read has its write: as many records of each half.
  size_t read_records = 0, write_records = 0;
  for (const trace::Record& rec : t.records) {
    read_records += t.sites[rec.site].form == trace::Form::AsyncRead;
    write_records += t.sites[rec.site].form == trace::Form::AsyncWrite;
  }
  CHECK(read_records == 4 * 8 * 2);  // 4 blocks, 8 tiles, two copies a tile
  CHECK(write_records == read_records);
  // The loop's commits and waits are on the timeline: a wait_group 1 per tile.
  size_t waits = 0;
  for (const trace::Event& e : t.events)
    if (t.event_sites[e.site].form == trace::Form::Wait) {
      CHECK(e.arg == 1);
      ++waits;
    }
  CHECK(waits == 4 * 8);
}

TEST_CASE("tma_box.cu: a TMA box under the 128-byte swizzle from a map encoded through the driver entry point") {
  if (program::find_nvcc().empty()) return;
  program::Options o;
  o.source = "tests/programs/tma_box.cu";
  o.echo = false;
  o.timeout_seconds = 60;
  const program::Result r = program::run(o);
  CHECK(r.exit_code == 0);
  // The program's own check of every element (it passes on an H100 too).
  CHECK(r.output.find("PASSED: 0 of 1024") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 2);
  // Each box: 1024 bytes, written as two records of 32 16-byte pieces; the first box is
  // inside the matrix (read whole), the second reaches past its corner (16 of 64 pieces).
  size_t reads = 0, writes = 0, pieces_read = 0;
  for (const trace::Record& rec : r.trace.records) {
    const trace::Site& s = r.trace.sites[rec.site];
    if (s.form == trace::Form::BulkRead) ++reads, pieces_read += size_t(std::popcount(rec.active));
    if (s.form == trace::Form::BulkWrite) ++writes;
  }
  CHECK(writes == 4);
  CHECK(reads == 3);
  CHECK(pieces_read == 64 + 16);
  // Each landed piece paired with its read, as cp.async's halves are: the first box's two
  // write records with its two reads, and every element of the tile knows the global
  // element it came from, which shows the swizzle: box row r's 16-byte chunk c lies at
  // chunk c ^ (r % 8) of the tile's row (the box starts at column 64, a whole 128 bytes).
  const trace::Trace first = trace::launch_trace(r.trace, 0);
  const analysis::Copies c = analysis::follow_copies(first);
  CHECK(c.async_pairs.size() == 2);
  for (const auto& [w, rd] : c.async_pairs) {
    CHECK(first.sites[first.records[w].site].form == trace::Form::BulkWrite);
    CHECK(first.sites[first.records[rd].site].form == trace::Form::BulkRead);
    CHECK(c.partner(rd) == w);
  }
  REQUIRE(c.shared.size() == 1);
  const analysis::SourceColumns& tile = c.shared[0];
  REQUIRE(!tile.column.empty());
  const uint64_t sb = 1024 / tile.column.size(), gb = first.buffers[tile.from].elem_bytes;  // element bytes
  REQUIRE(gb > 0);
  int swizzled = 0;
  for (size_t e = 0; e < tile.column.size(); ++e) {
    REQUIRE(tile.column[e] >= 0);
    const uint64_t at = e * sb, from = uint64_t(tile.column[e]) * gb % 256;  // a matrix row: 256 bytes
    const int logical = int(from - 128) / 16, row = int(at / 128), chunk = int(at % 128) / 16;
    CHECK(chunk == (logical ^ (row % 8)));
    swizzled += chunk != logical;
  }
  CHECK(swizzled == int(tile.column.size()) * 7 / 8);  // all but row 0's
  // The second box reaches past the matrix: a group of it wholly outside has no read
  // record, so its halves are not paired (rather than paired wrong).
  CHECK(analysis::follow_copies(trace::launch_trace(r.trace, 1)).async_pairs.empty());
}

TEST_CASE("tma_box3d.cu: TMA boxes of three and five dimensions, rows in the order of their dimensions, zeros outside") {
  if (program::find_nvcc().empty()) return;
  program::Options o;
  o.source = "tests/programs/tma_box3d.cu";
  o.echo = false;
  o.timeout_seconds = 60;
  const program::Result r = program::run(o);
  CHECK(r.exit_code == 0);
  // The program's own check of every element (it passes on an H200 too).
  CHECK(r.output.find("PASSED: 0 of 2048") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 4);
  // Each box: 1024 bytes landed as two records of 32 16-byte pieces.
  size_t writes = 0;
  for (const trace::Record& rec : r.trace.records)
    writes += r.trace.sites[rec.site].form == trace::Form::BulkWrite;
  CHECK(writes == 8);
}

TEST_CASE("driver_api.cu: a program linked with -lcuda encodes its tensor map through the driver; what the driver lacks is refused in one line") {
  if (program::find_nvcc().empty()) return;
  program::Options o;
  o.source = "tests/programs/driver_api.cu";
  o.nvcc_flags = {"-arch=sm_90a", "-lcuda"};
  o.echo = false;
  o.timeout_seconds = 60;
  const program::Result r = program::run(o);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("driver 13000, error 1 is CUDA_ERROR_INVALID_VALUE") != std::string::npos);
  CHECK(r.output.find("PASSED: 0 of 256 elements wrong") != std::string::npos);
  CHECK(r.output.find("cuMemAlloc: refused") != std::string::npos);
  CHECK(r.output.find("the program called cuMemAlloc_v2, which the emulated device does not provide") != std::string::npos);
}

TEST_CASE("tma_store.cu: a transpose out through a TMA store, a tensor reduction, bulk stores and a bulk reduction") {
  if (program::find_nvcc().empty()) return;
  program::Options o;
  o.source = "tests/programs/tma_store.cu";
  o.echo = false;
  o.timeout_seconds = 60;
  const program::Result r = program::run(o);
  CHECK(r.exit_code == 0);
  // The program's own checks (they pass on an H200 too): every element of the transposed
  // output, its padding columns unwritten, the reduction's doubled output, the block rows
  // and the sums.
  CHECK(r.output.find("store: 0 of 10240 elements wrong") != std::string::npos);
  CHECK(r.output.find("reduce-add: 0 of 10240 elements wrong") != std::string::npos);
  CHECK(r.output.find("bulk stores and reduction: 0 of 1792 words wrong") != std::string::npos);
  CHECK(r.races.races.empty());
  REQUIRE(r.trace.launches.size() == 3);
  // The transpose's store: its shared half read when issued (45 records of 32 pieces: the
  // 9 boxes hold (8 + 8 + 2) x (32 + 32 + 16) = 1440 pieces of 16 bytes inside the 72 x 80
  // output, all whole), its global half written at the wait, each 512-byte record 16 sectors.
  for (uint32_t launch : {0u, 1u}) {
    CAPTURE(launch);
    const trace::Trace t = trace::launch_trace(r.trace, launch);
    size_t reads = 0, writes = 0;
    for (const trace::Record& rec : t.records) {
      const trace::Site& s = t.sites[rec.site];
      if (s.form == trace::Form::BulkRead && s.space == trace::Space::Shared) ++reads;
      if (s.form == trace::Form::BulkWrite && s.space == trace::Space::Global) {
        ++writes;
        CHECK(std::popcount(rec.active) == 32);
        CHECK(t.sites[s.partner].space == trace::Space::Shared);
      }
    }
    CHECK(reads == 45);
    CHECK(writes == 45);
    const analysis::Copies c = analysis::follow_copies(t);
    size_t stores = 0;
    for (const auto& [w, rd] : c.async_pairs) stores += t.sites[t.records[w].site].space == trace::Space::Global;
    CHECK(stores == 45);
    const analysis::Report rep = analysis::analyze(t, analysis::DramModel{});
    for (const analysis::SiteStats& s : rep.sites)
      if (t.sites[s.site].form == trace::Form::BulkWrite && t.sites[s.site].space == trace::Space::Global)
        CHECK(s.sectors_per_request == doctest::Approx(16.0));
  }
  // The pipeline of block 0: the box loaded into `a`, and the store's slot, the transposed
  // box in `b`, written to d_out at its wait (after it was issued).
  {
    const trace::Trace t = trace::launch_trace(r.trace, 0);
    const analysis::Pipeline p = analysis::pipeline_of(t, analysis::follow_copies(t), 0);
    REQUIRE(p.slots.size() == 2);
    size_t stores = 0;
    for (const analysis::PipelineSlot& s : p.slots) {
      REQUIRE(s.boxes.size() == 1);
      CHECK(s.bytes == 4096);
      CHECK(s.boxes[0].issued < s.boxes[0].landed);
      CHECK(t.buffers[s.buffer].space == trace::Space::Shared);
      if (s.to == trace::kNoBuffer) continue;
      ++stores;
      CHECK(t.buffers[s.buffer].name == "transposeTma::b");
      CHECK(t.buffers[s.to].name == "d_out");
    }
    CHECK(stores == 1);
  }
  // Six blocks, each a 1024-byte store and a 1024-byte reduction: two records each way.
  const trace::Trace t = trace::launch_trace(r.trace, 2);
  size_t global_writes = 0;
  for (const trace::Record& rec : t.records)
    global_writes += t.sites[rec.site].form == trace::Form::BulkWrite && t.sites[rec.site].space == trace::Space::Global;
  CHECK(global_writes == 6 * 4);
}
