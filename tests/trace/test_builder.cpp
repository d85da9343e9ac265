// The trace builder: how lane accesses become warp records (the SIMT grouping every
// backend shares), what the record cap keeps, and records whose lanes reach several
// arrays. Cases small enough to work out on paper.
#include <doctest/doctest.h>

#include <vector>

#include "trace/builder.h"
#include "trace/grouping.h"

using namespace ws::trace;

namespace {

uint64_t entry(uint32_t key, uint32_t off) { return uint64_t(key) << 32 | off; }

// A builder whose keys k are sites k of array k % 2, so the test can name them.
struct Fixture {
  Trace t;
  Builder b{t};
  Fixture() {
    t.buffers = {Buffer{.name = "a"}, Buffer{.name = "b"}};
    Launch l;
    l.kernel = "k";
    b.begin_launch(l);
    b.set_key_resolver([this](uint32_t key) {
      Site s;
      s.line = key;
      s.buffer = key % 2;
      return KeySite{b.site(s), key % 2};
    });
  }
  // Groups lanes' streams (one vector of entries per lane) as one warp interval.
  uint64_t group(const std::vector<std::vector<uint64_t>>& lanes, uint32_t epoch = 0) {
    const uint64_t* first[kWarpSize];
    const uint64_t* end[kWarpSize];
    for (size_t l = 0; l < lanes.size(); ++l) {
      first[l] = lanes[l].data();
      end[l] = lanes[l].data() + lanes[l].size();
    }
    return b.group(first, end, int(lanes.size()), 0, 0, epoch, seq);
  }
  uint32_t seq = 0;
};

}  // namespace

TEST_CASE("the leader is the lowest pending lane; its site's lanes form the record") {
  CHECK(group_leader(0b1000) == 3);
  CHECK(group_leader(0xffffffffu) == 0);
  CHECK(group_leader(0x80000000u) == 31);
  CHECK(group_lanes(0b1111, 0b0101) == 0b0101);
  CHECK(group_lanes(0b0011, 0b1110) == 0b0010);
}

TEST_CASE("a converged warp makes one record of every lane per access") {
  Fixture f;
  std::vector<std::vector<uint64_t>> lanes(32);
  for (uint32_t l = 0; l < 32; ++l) lanes[l] = {entry(1, 4 * l), entry(2, 8 * l)};
  f.group(lanes);
  REQUIRE(f.t.records.size() == 2);
  CHECK(f.t.records[0].active == 0xffffffffu);
  CHECK(f.t.records[0].offset[5] == 20);
  CHECK(f.t.records[0].buffer == 1);
  CHECK(f.t.records[1].buffer == 0);
  CHECK(f.t.records[1].offset[31] == 248);
  CHECK(f.t.records[1].seq == 1);
  CHECK(f.seq == 2);
  CHECK(f.t.sites.size() == 2);
}

TEST_CASE("a divergent warp: each branch is its own record, the lowest lane's first") {
  // Even lanes take `if` (key 3), odd lanes `else` (key 4), then each reaches key 5. The
  // lowest pending lane leads every round, so the even lanes run on to 5 before the odd
  // lanes start: the rule knows no reconvergence point. On paper: even lanes at 3, even
  // lanes at 5, odd lanes at 4, odd lanes at 5.
  Fixture f;
  std::vector<std::vector<uint64_t>> lanes(32);
  for (uint32_t l = 0; l < 32; ++l) lanes[l] = {entry(l % 2 ? 4 : 3, l), entry(5, l)};
  f.group(lanes);
  REQUIRE(f.t.records.size() == 4);
  CHECK(f.t.records[0].active == 0x55555555u);
  CHECK(f.t.sites[f.t.records[0].site].line == 3);
  CHECK(f.t.records[1].active == 0x55555555u);
  CHECK(f.t.sites[f.t.records[1].site].line == 5);
  CHECK(f.t.records[2].active == 0xaaaaaaaau);
  CHECK(f.t.sites[f.t.records[2].site].line == 4);
  CHECK(f.t.records[3].active == 0xaaaaaaaau);
  CHECK(f.t.records[3].offset[7] == 7);
  CHECK(f.t.records[3].seq == 3);
}

TEST_CASE("lanes that run out early drop out of later records; a partial warp has only its lanes") {
  Fixture f;
  std::vector<std::vector<uint64_t>> lanes(5);  // a block of 5 threads
  for (uint32_t l = 0; l < 5; ++l) {
    lanes[l] = {entry(1, l)};
    if (l < 2) lanes[l].push_back(entry(1, 100 + l));  // a loop lanes 0 and 1 run twice
  }
  f.group(lanes);
  REQUIRE(f.t.records.size() == 2);
  CHECK(f.t.records[0].active == 0b11111);
  CHECK(f.t.records[1].active == 0b00011);
  CHECK(f.t.records[1].offset[1] == 101);
}

TEST_CASE("a warp-collective instruction is one record of all its lanes, however they came to it") {
  // Lanes 0-15 fill a tile with zeros (two stores, key 3), lanes 16-31 copy (one, key 4);
  // then the whole warp runs an ldmatrix (key m) and an mma (an event), then a store (key
  // 5). The lowest lane reaches the ldmatrix first, but the instruction waits for lanes
  // 16-31, which are not there yet. On paper: 3 (0-15), 3 (0-15), 4 (16-31), m (all),
  // the mma (all), 5 (all).
  Fixture f;
  const uint32_t m = with_form(make_key(9, 0, 0, 16), 1), mma = event_key(10, 6);
  REQUIRE(key_is_collective(m));
  REQUIRE(key_is_collective(mma));
  CHECK_FALSE(key_is_collective(event_key(10, 7)));  // a commit is no collective
  std::vector<std::vector<uint64_t>> lanes(32);
  for (uint32_t l = 0; l < 32; ++l) {
    if (l < 16)
      lanes[l] = {entry(3, l), entry(3, 64 + l)};
    else
      lanes[l] = {entry(4, l)};
    lanes[l].push_back(entry(m, 16 * l));
    lanes[l].push_back(entry(mma, 0));
    lanes[l].push_back(entry(5, l));
  }
  f.group(lanes);
  REQUIRE(f.t.records.size() == 5);
  const uint32_t want[5][2] = {{3, 0xffffu}, {3, 0xffffu}, {4, 0xffff0000u}, {m, ~0u}, {5, ~0u}};
  for (int i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(f.t.sites[f.t.records[size_t(i)].site].line == want[i][0]);
    CHECK(f.t.records[size_t(i)].active == want[i][1]);
  }
  CHECK(f.t.records[3].offset[31] == 496);
  REQUIRE(f.t.events.size() == 1);
  CHECK(f.t.events[0].active == ~0u);
  CHECK(f.t.events[0].seq == 4);
}

TEST_CASE("an ldmatrix .x2: lanes 16-31 are at the instruction with no row, and no access") {
  // Converged, and after a divergent start: either way one record of lanes 0-15.
  const uint32_t m = with_form(make_key(9, 0, 0, 16), 1);
  for (bool diverge : {false, true}) {
    CAPTURE(diverge);
    Fixture f;
    std::vector<std::vector<uint64_t>> lanes(32);
    for (uint32_t l = 0; l < 32; ++l) {
      if (diverge && l >= 16) lanes[l].push_back(entry(4, l));
      lanes[l].push_back(entry(m, l < 16 ? 16 * l : kNoRow));
      lanes[l].push_back(entry(5, l));
    }
    const uint64_t accesses = f.group(lanes);
    REQUIRE(f.t.records.size() == (diverge ? 3u : 2u));
    const Record& r = f.t.records[diverge ? 1 : 0];
    CHECK(f.t.sites[r.site].line == m);
    CHECK(r.active == 0xffffu);
    CHECK(r.offset[15] == 240);
    CHECK(r.offset[16] == 0);
    CHECK(f.t.records.back().active == ~0u);
    CHECK(accesses == (diverge ? 16u : 0u) + 16 + 32);
  }
}

TEST_CASE("event entries become events, numbered on the records' seq, and count as no access") {
  // Lanes 0-15 issue a copy read (key 1), every lane commits (an event), lanes 0-15 wait
  // with N = 1 (an event whose entry carries 1), then every lane reads (key 2). On paper:
  // record (lanes 0-15), commit event (all), wait event (lanes 0-15), record (all).
  Fixture f;
  const uint32_t commit = event_key(20, uint32_t(Form::Commit)), wait = event_key(21, uint32_t(Form::Wait));
  CHECK(key_is_event(commit));
  CHECK(key_event_form(wait) == uint32_t(Form::Wait));
  CHECK_FALSE(key_is_event(with_form(make_key(7, 2, 0, 16), uint32_t(Form::AsyncWrite))));
  std::vector<std::vector<uint64_t>> lanes(32);
  for (uint32_t l = 0; l < 32; ++l) {
    if (l < 16) lanes[l].push_back(entry(1, 16 * l));
    lanes[l].push_back(entry(commit, 0));
    if (l < 16) lanes[l].push_back(entry(wait, 1));
    lanes[l].push_back(entry(2, 4 * l));
  }
  const uint64_t* first[kWarpSize];
  const uint64_t* end[kWarpSize];
  for (size_t l = 0; l < 32; ++l) {
    first[l] = lanes[l].data();
    end[l] = lanes[l].data() + lanes[l].size();
  }
  uint32_t seq = 0;
  CHECK(f.b.group(first, end, 32, 0, 0, 0, seq) == 16 + 32);  // the events are not accesses
  REQUIRE(f.t.records.size() == 2);
  REQUIRE(f.t.events.size() == 2);
  CHECK(f.t.records[0].active == 0xffffu);
  CHECK(f.t.records[0].seq == 0);
  CHECK(f.t.events[0].seq == 1);
  CHECK(f.t.events[0].at == 1);  // after the launch's first record
  CHECK(f.t.events[0].active == 0xffffffffu);
  CHECK(f.t.event_sites[f.t.events[0].site].form == Form::Commit);
  CHECK(f.t.events[1].seq == 2);
  CHECK(f.t.events[1].active == 0xffffu);
  CHECK(f.t.events[1].arg == 1);
  CHECK(f.t.event_sites[f.t.events[1].site].line == 21);
  CHECK(f.t.records[1].seq == 3);
  CHECK(f.t.records[1].active == 0xffffffffu);
  CHECK(seq == 4);
}

TEST_CASE("a catalog key's form reaches its site, and an async copy's two halves are linked") {
  Trace t;
  t.buffers = {Buffer{.name = "in"}, shared_buffer("tile", 4, 1, 64, 256)};
  Builder b(t);
  b.begin_launch(Launch{});
  const uint32_t read = with_form(make_key(9, 0, 0, 16), uint32_t(Form::AsyncRead));
  const uint32_t write = with_form(make_key(9, 1, 1, 16), uint32_t(Form::AsyncWrite));
  const uint32_t rows = with_form(make_key(12, 1, 0, 16), uint32_t(Form::Matrix));
  const uint32_t r = b.key_site(read).site, m = b.key_site(rows).site, w = b.key_site(write).site;
  CHECK(t.sites[r].form == Form::AsyncRead);
  CHECK(t.sites[m].form == Form::Matrix);
  CHECK(t.sites[m].partner == kNoSite);
  CHECK(t.sites[w].form == Form::AsyncWrite);
  CHECK(t.sites[w].space == Space::Shared);
  CHECK(t.sites[r].partner == w);
  CHECK(t.sites[w].partner == r);
  CHECK(key_of(t.sites[w]) == write);
  // The same line and array as a plain load is another site.
  CHECK(b.key_site(make_key(12, 1, 0, 16)).site != m);
}

TEST_CASE("the record cap keeps the first records and counts the rest in the launch") {
  Trace t;
  Builder b(t, 3);
  b.begin_launch(Launch{});
  uint32_t off[32] = {};
  WarpAccess a;
  a.offset = off;
  a.active = 1;
  int kept = 0;
  for (int i = 0; i < 10; ++i) kept += b.add(a) ? 1 : 0;
  CHECK(kept == 3);
  CHECK(t.records.size() == 3);
  CHECK(t.launch().dropped_records == 7);
}

TEST_CASE("records name their launch; one launch's trace keeps its own records") {
  Trace t;
  t.buffers = {Buffer{.name = "a"}};
  Builder b(t);
  uint32_t off[32] = {};
  WarpAccess a;
  a.offset = off;
  a.active = 1;
  a.site = b.site(Site{.line = 3});
  Launch first, second;
  first.kernel = "k1";
  second.kernel = "k2";
  CHECK(b.begin_launch(first) == 0);
  b.add(a);
  CHECK(b.begin_launch(second) == 1);
  b.add(a);
  b.add(a);
  CHECK(t.records[0].launch == 0);
  CHECK(t.records[2].launch == 1);
  Trace two = launch_trace(t, 1);
  CHECK(two.launches.size() == 1);
  CHECK(two.launch().kernel == "k2");
  REQUIRE(two.records.size() == 2);
  CHECK(two.records[0].launch == 0);
  CHECK(two.sites.size() == 1);
  CHECK_THROWS_AS(launch_trace(t, 2), std::out_of_range);
}

TEST_CASE("one instruction, two arrays: lanes keep their own array, and never share a sector") {
  Trace t;
  t.buffers = {Buffer{.name = "x"}, Buffer{.name = "y"}};
  Builder b(t);
  b.begin_launch(Launch{});
  LaneBuffers lanes;
  uint32_t off[32];
  for (int l = 0; l < 32; ++l) {
    lanes[size_t(l)] = uint32_t(l % 2);
    off[l] = uint32_t(4 * (l / 2));  // x[0..15] and y[0..15]: the same offsets
  }
  WarpAccess a;
  a.active = ~0u;
  a.buffer = 0;
  a.lanes = &lanes;
  a.offset = off;
  b.add(a);
  const Record& r = t.records.at(0);
  CHECK(r.buffer_of(0) == 0);
  CHECK(r.buffer_of(1) == 1);
  CHECK(r.address(0) == 0);
  CHECK(r.address(1) == (uint64_t(1) << 40));
  CHECK(r.address(3) == (uint64_t(1) << 40) + 4);
  Record copy = r;
  CHECK(copy == r);
  copy.lanes = nullptr;
  CHECK(!(copy == r));
}

TEST_CASE("sites are instructions: the same line and column with another width is another site") {
  Trace t;
  t.files = {{"p.cu", "int main() {\n  y[i] = 2 * x[i];\n}\n"}};
  Builder b(t);
  Site s{.file = 0, .line = 2, .column = 14, .space = Space::Global, .op = Op::Load, .bytes = 4,
         .instruction = "ld.global.f32"};
  const uint32_t a = b.site(s);
  CHECK(b.site(s) == a);
  s.bytes = 16;
  s.instruction = "ld.global.v4.f32";
  CHECK(b.site(s) != a);
  CHECK(t.sites[a].code == "y[i] = 2 * x[i];");
  CHECK(index_column(t.files[0].text, 2, "x") == 14);
  CHECK(index_column(t.files[0].text, 2, "y") == 3);
  CHECK(index_column(t.files[0].text, 2, "i") == 3);  // `i` is never indexed: first character
  CHECK(index_column(t.files[0].text, 9, "x") == 0);  // no such line
}
