// Whole-trace statistics and the plain-language lines, on hand-built traces.
#include <doctest/doctest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "analysis/analysis.h"

using namespace ws;

namespace {

trace::Record warp(uint16_t site, uint32_t epoch, const std::function<uint32_t(uint32_t)>& f,
                   uint32_t active = ~0u) {
  trace::Record r;
  r.site = site;
  r.epoch = epoch;
  r.active = active;
  for (uint32_t l = 0; l < 32; ++l) r.offset[l] = (active >> l) & 1 ? f(l) : 0;
  return r;
}

// A trace with one global array "M" (rows x cols floats) and one shared array "tile".
trace::Trace make(uint64_t tile_cols = 32) {
  trace::Trace t;
  t.launch().kernel = "hand";
  t.provenance.backend = "emulator";
  t.launch().params = {{"size", 64}};
  trace::Buffer m;
  m.name = "M";
  m.rows = 64;
  m.cols = 1024;
  m.size_bytes = 64 * 1024 * 4;
  trace::Buffer tile;
  tile.name = "tile";
  tile.space = trace::Space::Shared;
  tile.rows = 32;
  tile.cols = tile_cols;
  tile.size_bytes = 32 * tile_cols * 4;
  t.buffers = {m, tile};
  return t;
}

trace::Site site(uint32_t line, uint16_t buffer, trace::Space space, trace::Op op, uint8_t bytes = 4) {
  trace::Site s;
  s.line = line;
  s.buffer = buffer;
  s.space = space;
  s.op = op;
  s.bytes = bytes;
  s.code = "x = M[i];";
  return s;
}

analysis::DramModel textbook() {
  analysis::DramModel m;
  analysis::dram_preset("textbook", m);
  return m;
}

}  // namespace

TEST_CASE("per-site sums and averages") {
  auto t = make();
  t.sites = {site(10, 0, trace::Space::Global, trace::Op::Load),
             site(11, 1, trace::Space::Shared, trace::Op::Store)};
  t.records.push_back(warp(0, 0, [](uint32_t l) { return 4 * l; }));                // 4 sectors
  t.records.push_back(warp(0, 0, [](uint32_t l) { return 128 * l; }));              // 32 sectors
  t.records.push_back(warp(0, 1, [](uint32_t l) { return 4 * l; }, 0xffffu));       // 2 sectors
  t.records.push_back(warp(1, 0, [](uint32_t l) { return 128 * l; }));              // 32-way
  t.records.push_back(warp(1, 1, [](uint32_t l) { return 4 * l; }));                // 1 wavefront
  auto rep = analysis::analyze(t, textbook());
  REQUIRE(rep.sites.size() == 2);
  const auto& g = rep.sites[0];
  CHECK(g.requests == 3);
  CHECK(g.lane_accesses == 80);
  CHECK(g.sectors == 38);
  CHECK(g.ideal_sectors == 10);
  CHECK(g.bytes_requested == 320);
  CHECK(g.sectors_per_request == doctest::Approx(38.0 / 3));
  CHECK(g.ideal_sectors_per_request == doctest::Approx(10.0 / 3));
  CHECK(g.efficiency == doctest::Approx(320.0 / (38 * 32)));
  CHECK(g.wavefronts == 0);
  const auto& s = rep.sites[1];
  CHECK(s.requests == 2);
  CHECK(s.wavefronts == 33);
  CHECK(s.ideal_wavefronts == 2);
  CHECK(s.bank_conflicts == 31);
  CHECK(s.max_way == 32);
  CHECK(s.sectors == 0);
  CHECK(rep.records == 5);
  REQUIRE(rep.epochs.size() == 2);
  CHECK(rep.epochs[0].epoch == 0);
  CHECK(rep.epochs[0].requests == 3);
  CHECK(rep.epochs[0].sectors == 36);
  CHECK(rep.epochs[0].bank_conflicts == 31);
  CHECK(rep.epochs[1].sectors == 2);
}

TEST_CASE("per-epoch DRAM spread in the textbook model") {
  auto t = make();
  t.sites = {site(10, 0, trace::Space::Global, trace::Op::Load), site(12, 1, trace::Space::Shared, trace::Op::Load)};
  // Epoch 0: M[0..9] -> bursts 0..4 -> ch0 b0, ch1 b0, ch2 b0, ch3 b0, ch0 b1.
  t.records.push_back(warp(0, 0, [](uint32_t l) { return 4 * l; }, 0x3ffu));
  // Epoch 3: every lane 32 B apart -> every burst 4 apart -> all in channel 0, banks alternating.
  t.records.push_back(warp(0, 3, [](uint32_t l) { return 32 * l; }));
  // Shared accesses never reach DRAM.
  t.records.push_back(warp(1, 3, [](uint32_t l) { return 4 * l; }));
  auto rep = analysis::analyze(t, textbook());
  REQUIRE(rep.epochs.size() == 2);
  const auto& e0 = rep.epochs[0];
  CHECK(e0.epoch == 0);
  REQUIRE(e0.arrays.size() == 1);
  CHECK(e0.arrays[0].buffer == 0);
  CHECK(e0.arrays[0].bursts == 5);
  CHECK(e0.arrays[0].channels_used == 4);
  CHECK(e0.arrays[0].per_channel == std::vector<uint64_t>{2, 1, 1, 1});
  CHECK(e0.arrays[0].per_bank == std::vector<std::vector<uint64_t>>{{1, 1}, {1, 0}, {1, 0}, {1, 0}});
  const auto& e3 = rep.epochs[1];
  CHECK(e3.epoch == 3);
  REQUIRE(e3.arrays.size() == 1);
  CHECK(e3.arrays[0].channels_used == 1);
  CHECK(e3.arrays[0].per_channel == std::vector<uint64_t>{32, 0, 0, 0});
  CHECK(e3.arrays[0].per_bank[0] == std::vector<uint64_t>{16, 16});
}

TEST_CASE("why: the plain-language line follows the pattern") {
  auto t = make();
  t.sites = {site(10, 0, trace::Space::Global, trace::Op::Load), site(11, 1, trace::Space::Shared, trace::Op::Store),
             site(12, 1, trace::Space::Shared, trace::Op::Load), site(13, 0, trace::Space::Global, trace::Op::Load, 16)};
  using analysis::why;
  CHECK(why(t, warp(0, 0, [](uint32_t l) { return 4 * l; })) ==
        "consecutive lanes read consecutive 4-byte words → 4 sectors, fully used");
  CHECK(why(t, warp(0, 0, [](uint32_t l) { return 4096 * l; })) ==
        "lanes are 4096 B apart → 32 sectors per request; ideal 4");
  CHECK(why(t, warp(0, 0, [](uint32_t l) { return 8 * l; })) ==
        "lanes are 8 B apart (every 2nd 4-byte word) → 8 sectors per request; ideal 4");
  CHECK(why(t, warp(0, 0, [](uint32_t l) { return 4 + 4 * l; })) ==
        "consecutive lanes read consecutive 4-byte words, starting 4 B into a sector → 5 sectors per "
        "request; ideal 4");
  CHECK(why(t, warp(0, 0, [](uint32_t) { return 40; })).find("broadcast") != std::string::npos);
  CHECK(why(t, warp(3, 0, [](uint32_t l) { return 16 * l; })) ==
        "consecutive lanes read consecutive 16-byte float4s → 16 sectors, fully used");
  CHECK(why(t, warp(0, 0, [](uint32_t l) { return (l / 16) * 4096 + 4 * (l % 16); })) ==
        "the warp reads 2 runs of 16 consecutive 4-byte words → 4 sectors, fully used");
  CHECK(why(t, warp(1, 0, [](uint32_t l) { return 128 * l; })) ==
        "all 32 lanes hit bank 0 in different words → 32-way conflict");
  CHECK(why(t, warp(1, 0, [](uint32_t l) { return 128 * l + 12; })) ==
        "all 32 lanes hit bank 3 in different words → 32-way conflict");
  CHECK(why(t, warp(1, 0, [](uint32_t l) { return 8 * l; })) ==
        "lanes are 2 words apart: 16 banks used, 2 words each → 2-way conflict");
  CHECK(why(t, warp(2, 0, [](uint32_t) { return 64; })) == "every lane reads the same word → broadcast, 1 wavefront");
  CHECK(why(t, warp(2, 0, [](uint32_t l) { return 4 * l; })) ==
        "consecutive lanes read consecutive words → 1 wavefront, no conflict");
  CHECK(why(t, warp(2, 0, [](uint32_t l) { return 132 * l; })) ==
        "lanes are 33 words apart: 32 lanes spread over 32 banks → no conflict");
  CHECK(why(t, warp(0, 0, [](uint32_t l) { return (l / 16) * 4096 + 32 * (l % 16); })) ==
        "2 groups of 16 lanes, 32 B apart within a group, groups 4096 B apart → 32 sectors per request; ideal 4");
  CHECK(why(t, warp(2, 0, [](uint32_t l) { return (l / 16) * 128; })) ==
        "the 32 lanes read only 2 distinct words: 1 bank used → 2-way conflict");
  CHECK(why(t, warp(2, 0, [](uint32_t l) { return 28 * l; })) ==
        "lanes are 7 words apart: 32 lanes spread over 32 banks → no conflict");
  CHECK(why(t, warp(0, 0, [](uint32_t l) { return 4 * l; }, 0u)) == "no lane is active");
  auto padded = make(33);
  padded.sites = t.sites;
  CHECK(why(padded, warp(2, 0, [](uint32_t l) { return 132 * l; })) ==
        "row padded to 33 words: 32 lanes spread over 32 banks → no conflict");
}

TEST_CASE("why for a site speaks of the site's averages") {
  auto t = make();
  t.sites = {site(10, 0, trace::Space::Global, trace::Op::Store), site(11, 1, trace::Space::Shared, trace::Op::Store)};
  for (uint32_t w = 0; w < 4; ++w) {
    t.records.push_back(warp(0, 0, [w](uint32_t l) { return 4096 * l + 4 * w; }));
    t.records.push_back(warp(1, 0, [w](uint32_t l) { return 128 * l + 4 * w; }));
  }
  auto rep = analysis::analyze(t, textbook());
  CHECK(rep.sites[0].why == "lanes are 4096 B apart → 32 sectors per request; ideal 4");
  CHECK(rep.sites[1].why == "all 32 lanes hit the same bank in different words → 32-way conflict");
  CHECK(rep.sites[0].example < t.records.size());
}

TEST_CASE("records naming an unknown site are skipped, not a crash") {
  auto t = make();
  t.sites = {site(10, 0, trace::Space::Global, trace::Op::Load)};
  t.records.push_back(warp(0, 0, [](uint32_t l) { return 4 * l; }));
  t.records.push_back(warp(7, 0, [](uint32_t l) { return 4 * l; }));
  auto rep = analysis::analyze(t, textbook());
  CHECK(rep.records == 1);
  CHECK(rep.skipped_records == 1);
  CHECK(analysis::why(t, t.records[1]) == "unknown site");
  auto empty = analysis::analyze(make(), textbook());
  CHECK(empty.sites.empty());
  CHECK(empty.epochs.empty());
  CHECK(nlohmann::json::parse(analysis::report_json(make(), empty))["sites"].empty());
}

TEST_CASE("report_json survives source text that is not valid UTF-8") {
  auto t = make();
  t.sites = {site(10, 0, trace::Space::Global, trace::Op::Load)};
  t.sites[0].code = "x = M[i]; // \xff\xfe";
  t.records.push_back(warp(0, 0, [](uint32_t l) { return 4 * l; }));
  auto rep = analysis::analyze(t, textbook());
  auto j = nlohmann::json::parse(analysis::report_json(t, rep));
  CHECK(j["sites"][0]["sectors"] == 4);
  CHECK(j["epochs"][0]["arrays"]["M"]["channel_fraction"] == 1.0);
}

TEST_CASE("the text table has a row per source line, array, operation and width, its instructions counted") {
  auto t = make();
  // Line 20 unrolled into three shared loads of 4 bytes (two LDS, one LDS.U), a 16-byte
  // one beside them (another width: its own row), and a global load on line 21.
  t.sites = {site(20, 1, trace::Space::Shared, trace::Op::Load), site(20, 1, trace::Space::Shared, trace::Op::Load),
             site(20, 1, trace::Space::Shared, trace::Op::Load), site(20, 1, trace::Space::Shared, trace::Op::Load, 16),
             site(21, 0, trace::Space::Global, trace::Op::Load)};
  const char* names[] = {"LDS", "LDS.U", "LDS", "LDS.128", "LDG.E"};
  for (size_t i = 0; i < t.sites.size(); ++i) t.sites[i].instruction = names[i];
  t.records.push_back(warp(0, 0, [](uint32_t l) { return 4 * l; }));    // 1 wavefront
  t.records.push_back(warp(1, 0, [](uint32_t l) { return 128 * l; }));  // 32-way: 32 wavefronts
  t.records.push_back(warp(2, 0, [](uint32_t l) { return 4 * l; }));    // 1 wavefront
  t.records.push_back(warp(3, 0, [](uint32_t l) { return 16 * l; }));
  t.records.push_back(warp(4, 0, [](uint32_t l) { return 4 * l; }));    // 4 sectors
  const auto rep = analysis::analyze(t, textbook());
  const std::string text = analysis::report_text(t, rep);
  MESSAGE(text);
  // One row for line 20's 4-byte loads: 3 requests, (1 + 32 + 1) / 3 wavefronts each, the
  // worst of them (32-way) kept.
  CHECK(text.find("3 instructions: 2 LDS + 1 LDS.U") != std::string::npos);
  CHECK(text.find("11.33 wavefronts (1)") != std::string::npos);
  CHECK(text.find("32-way") != std::string::npos);
  CHECK(text.find("LDS.128") != std::string::npos);
  CHECK(text.find("LDG.E") != std::string::npos);
  size_t rows = 0;
  for (size_t p = text.find("\n  20  tile"); p != std::string::npos; p = text.find("\n  20  tile", p + 1)) ++rows;
  CHECK(rows == 2);  // the 4-byte row and the 16-byte row
}
