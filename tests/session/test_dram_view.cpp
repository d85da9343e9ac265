// The DRAM view's defaults: it follows the current request's array (the textbook's tiled
// SGEMM example shows its 2 of 4 channels with no filter), a shared request shows the array
// and phase of the global request beside it, and the view says which blocks and records
// its figures sum over.
#include <doctest/doctest.h>

#include "session/dram.h"
#include "session/session.h"
#include "session/worker.h"

using namespace ws;

namespace {

std::shared_ptr<session::Session> textbook_sgemm() {
  session::LaunchSpec spec;
  spec.kernel = "matmul_tiled";
  spec.size = 4;
  spec.params["tile"] = 2;
  spec.backend = "emulator";
  return session::record_session(spec);
}

uint64_t first(const session::Session& s, trace::Space space, const std::string& array) {
  for (uint64_t i = 0; i < s.size(); ++i) {
    const session::RequestFigures r = s.request(i);
    if (r.site->space == space && r.buffer && r.buffer->name == array) return i;
  }
  FAIL("no such request");
  return 0;
}

}  // namespace

TEST_CASE("following the request: the textbook's 4x4 SGEMM with 2x2 tiles uses channels 0 and 2 for M") {
  auto s = textbook_sgemm();
  REQUIRE(s->report().dram.preset == "textbook");
  const uint64_t a = first(*s, trace::Space::Global, "A");
  const session::RequestFigures ra = s->request(a);
  REQUIRE(ra.rec->epoch == 0);

  session::DramArray shown;
  session::DramFigures f = session::dram_view_figures(*s, ra, session::DramChoice::follow(), &shown);
  CHECK(shown.followed);
  CHECK_FALSE(shown.other_request);
  REQUIRE(!shown.all());
  CHECK(s->trace().buffers[shown.buffer].name == "A");
  // Phase 0 of every block reads M[0], M[1], M[4], M[5] or M[8], M[9], M[12], M[13]: both
  // banks of channels 0 and 2, half the channels.
  CHECK(f.busy == 2);
  CHECK(f.per_channel[1] == 0);
  CHECK(f.per_channel[3] == 0);
  CHECK(f.cells[0 * 4 + 0] > 0);
  CHECK(f.cells[1 * 4 + 0] > 0);
  CHECK(f.cells[0 * 4 + 2] > 0);
  CHECK(f.cells[1 * 4 + 2] > 0);
  CHECK(!f.hit.empty());
  // Every array at once hides it: B's tiles fill the other channels.
  CHECK(session::dram_view_figures(*s, ra, session::DramChoice::all()).busy == 4);
  // A chosen array stays chosen whatever the request.
  const uint64_t b = first(*s, trace::Space::Global, "B");
  session::DramArray chosen = session::dram_array_at(*s, b, session::DramChoice::array(shown.buffer));
  CHECK(chosen.buffer == shown.buffer);
  CHECK_FALSE(chosen.followed);
  CHECK(session::dram_array_at(*s, b, session::DramChoice::follow()).buffer != shown.buffer);
  // A buffer id the trace does not have: every array.
  CHECK(session::dram_array_at(*s, b, session::DramChoice::array(99)).all());
}

TEST_CASE("following a shared request: the last global request's array and phase, nothing outlined") {
  auto s = textbook_sgemm();
  // A read of the shared tile in the multiply phase (after the first barrier).
  uint64_t step = 0;
  for (uint64_t i = 0; i < s->size(); ++i) {
    const session::RequestFigures r = s->request(i);
    if (r.shared && r.rec->epoch == 1 && r.site->op == trace::Op::Load) {
      step = i;
      break;
    }
  }
  REQUIRE(step > 0);
  const session::RequestFigures rv = s->request(step);
  session::DramArray shown;
  const session::DramFigures f = session::dram_view_figures(*s, rv, session::DramChoice::follow(), &shown);
  CHECK(shown.followed);
  CHECK(shown.other_request);
  REQUIRE(shown.from < step);
  const session::RequestFigures g = s->request(shown.from);
  CHECK_FALSE(g.shared);
  for (uint64_t i = shown.from + 1; i < step; ++i) CHECK(s->request(i).shared);  // the nearest one
  CHECK(shown.buffer == g.rec->buffer);
  CHECK(f.shared);
  CHECK(f.epoch == g.rec->epoch);  // the phase that loaded it, not the multiply phase with no traffic
  CHECK(f.total > 0);
  CHECK(f.hit.empty());
  CHECK(f.request_bursts == 0);

  // A trace that starts with shared requests looks ahead for the first global one.
  auto t = std::make_shared<trace::Trace>(s->trace());
  size_t k = 0;
  while (k < t->records.size() && t->sites[t->records[k].site].space == trace::Space::Global) ++k;
  REQUIRE(k < t->records.size());
  t->records.erase(t->records.begin(), t->records.begin() + long(k));
  auto s2 = session::Session::from_trace(t, s->report().dram);
  const session::DramArray ahead = session::dram_array_at(*s2, 0, session::DramChoice::follow());
  CHECK(ahead.other_request);
  CHECK(ahead.from > 0);
  CHECK(!ahead.all());
}

TEST_CASE("the DRAM view says which blocks and records it sums over") {
  session::LaunchSpec spec;
  spec.kernel = "transpose_read_coalesced";
  spec.size = 64;
  spec.backend = "emulator";
  auto all = session::record_session(spec);
  CHECK(session::recorded_text(*all) == "all 16 blocks");
  CHECK(session::dram_figures(*all, all->request(0), ws::trace::kNoBuffer).recorded == "all 16 blocks");

  spec.blocks = "0-3";
  CHECK(session::recorded_text(*session::record_session(spec)) == "blocks 0-3 of 16");
  spec.blocks = "5";
  CHECK(session::recorded_text(*session::record_session(spec)) == "block 5 of 16");
  spec.blocks = "0,2,5-6";
  CHECK(session::recorded_text(*session::record_session(spec)) == "blocks 0, 2, 5-6 of 16");
  spec.blocks = "0,2,4,6";
  CHECK(session::recorded_text(*session::record_session(spec)) == "4 blocks of 16");

  // The record cap: the first records, and how many more there were.
  spec.blocks.clear();
  spec.max_records = 10;
  auto capped = session::record_session(spec);
  REQUIRE(capped->trace().launch().dropped_records > 0);
  CHECK(session::recorded_text(*capped) == "all 16 blocks, first 10 records (" +
                                               std::to_string(capped->trace().launch().dropped_records) + " more dropped)");

  // A large launch records its first blocks only (the few-blocks default of the app).
  spec = session::LaunchSpec{};
  spec.kernel = "matmul_tiled";
  spec.size = 512;
  spec.backend = "emulator";
  spec.block_default = session::BlockDefault::FewWhenLarge;
  auto big = session::record_session(spec);
  REQUIRE(big->few_blocks());
  CHECK(session::recorded_text(*big) == "blocks 0-3 of 1,024");
}
