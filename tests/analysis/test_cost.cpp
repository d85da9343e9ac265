// Per-request costs on hand-built warps: cases a student can work out on paper.
#include <doctest/doctest.h>

#include <functional>

#include "analysis/analysis.h"

using namespace ws;
using analysis::global_cost;
using analysis::shared_cost;

namespace {

// A warp whose lane l accesses byte offset f(l).
trace::Record warp(const std::function<uint32_t(uint32_t)>& f, uint32_t active = ~0u) {
  trace::Record r;
  r.active = active;
  for (uint32_t l = 0; l < 32; ++l) r.offset[l] = (active >> l) & 1 ? f(l) : 0xdead0000u + l * 4;
  return r;
}

}  // namespace

TEST_CASE("global: 32 lanes read consecutive floats -> 4 sectors, 1 line, fully used") {
  auto c = global_cost(warp([](uint32_t l) { return 4 * l; }), 4);
  CHECK(c.sectors == 4);
  CHECK(c.lines == 1);
  CHECK(c.bytes_requested == 128);
  CHECK(c.ideal_sectors == 4);
  CHECK(c.efficiency == doctest::Approx(1.0));
}

TEST_CASE("global: stride of 2 floats -> 8 sectors, half of each used") {
  auto c = global_cost(warp([](uint32_t l) { return 8 * l; }), 4);
  CHECK(c.sectors == 8);
  CHECK(c.lines == 2);
  CHECK(c.ideal_sectors == 4);
  CHECK(c.efficiency == doctest::Approx(0.5));
}

TEST_CASE("global: stride of 32 floats (128 B) -> 32 sectors, ideal 4") {
  auto c = global_cost(warp([](uint32_t l) { return 128 * l; }), 4);
  CHECK(c.sectors == 32);
  CHECK(c.lines == 32);
  CHECK(c.ideal_sectors == 4);
  CHECK(c.bytes_requested == 128);
  CHECK(c.efficiency == doctest::Approx(0.125));
}

TEST_CASE("global: every lane at the same address -> 1 sector") {
  auto c = global_cost(warp([](uint32_t) { return 4096; }), 4);
  CHECK(c.sectors == 1);
  CHECK(c.lines == 1);
  CHECK(c.bytes_requested == 4);
  CHECK(c.ideal_sectors == 1);
  CHECK(c.efficiency == doctest::Approx(4.0 / 32.0));
}

TEST_CASE("global: consecutive floats starting 4 bytes in -> 5 sectors, 2 lines") {
  auto c = global_cost(warp([](uint32_t l) { return 4 + 4 * l; }), 4);
  CHECK(c.sectors == 5);
  CHECK(c.lines == 2);
  CHECK(c.ideal_sectors == 4);
  CHECK(c.efficiency == doctest::Approx(128.0 / 160.0));
}

TEST_CASE("global: float4, fully coalesced -> 512 bytes = 16 sectors, ideal 16") {
  auto c = global_cost(warp([](uint32_t l) { return 16 * l; }), 16);
  CHECK(c.sectors == 16);
  CHECK(c.lines == 4);
  CHECK(c.bytes_requested == 512);
  CHECK(c.ideal_sectors == 16);
  CHECK(c.efficiency == doctest::Approx(1.0));
}

TEST_CASE("global: 8-byte lanes, consecutive -> 8 sectors") {
  auto c = global_cost(warp([](uint32_t l) { return 8 * l; }), 8);
  CHECK(c.sectors == 8);
  CHECK(c.ideal_sectors == 8);
  CHECK(c.efficiency == doctest::Approx(1.0));
}

TEST_CASE("global: a lane whose bytes straddle a sector boundary counts both sectors") {
  // float4 lanes starting 8 bytes in: bytes 8..519 -> sectors 0..16.
  auto c = global_cost(warp([](uint32_t l) { return 8 + 16 * l; }), 16);
  CHECK(c.sectors == 17);
  CHECK(c.ideal_sectors == 16);
}

TEST_CASE("global: partial masks count active lanes only") {
  SUBCASE("lanes 0-15 consecutive -> 2 sectors, fully used") {
    auto c = global_cost(warp([](uint32_t l) { return 4 * l; }, 0x0000ffffu), 4);
    CHECK(c.sectors == 2);
    CHECK(c.ideal_sectors == 2);
    CHECK(c.bytes_requested == 64);
    CHECK(c.efficiency == doctest::Approx(1.0));
  }
  SUBCASE("lanes 16-31 consecutive -> 2 sectors") {
    auto c = global_cost(warp([](uint32_t l) { return 4 * l; }, 0xffff0000u), 4);
    CHECK(c.sectors == 2);
    CHECK(c.lines == 1);
  }
  SUBCASE("16 lanes 128 B apart -> 16 sectors, ideal 2") {
    auto c = global_cost(warp([](uint32_t l) { return 128 * l; }, 0x0000ffffu), 4);
    CHECK(c.sectors == 16);
    CHECK(c.ideal_sectors == 2);
    CHECK(c.efficiency == doctest::Approx(64.0 / 512.0));
  }
  SUBCASE("every other lane -> the gaps are not requested") {
    auto c = global_cost(warp([](uint32_t l) { return 4 * l; }, 0x55555555u), 4);
    CHECK(c.sectors == 4);
    CHECK(c.bytes_requested == 64);
    CHECK(c.ideal_sectors == 2);
  }
  SUBCASE("no lane active -> nothing") {
    auto c = global_cost(warp([](uint32_t l) { return 4 * l; }, 0u), 4);
    CHECK(c.sectors == 0);
    CHECK(c.lines == 0);
    CHECK(c.efficiency == 0.0);
  }
}

TEST_CASE("global: lane order does not matter") {
  auto reversed = global_cost(warp([](uint32_t l) { return 4 * (31 - l); }), 4);
  CHECK(reversed.sectors == 4);
  CHECK(reversed.bytes_requested == 128);
  auto shuffled = global_cost(warp([](uint32_t l) { return 4 * ((l * 7) % 32); }), 4);
  CHECK(shuffled.sectors == 4);
  CHECK(shuffled.efficiency == doctest::Approx(1.0));
  auto pairs = global_cost(warp([](uint32_t l) { return 4 * (l / 2); }), 4);  // two lanes per word
  CHECK(pairs.sectors == 2);
  CHECK(pairs.bytes_requested == 64);
}

TEST_CASE("global: touched_granules lists the sectors and lines") {
  auto r = warp([](uint32_t l) { return 4 + 4 * l; });
  CHECK(analysis::touched_granules(r, 4, 32) == std::vector<uint64_t>{0, 1, 2, 3, 4});
  CHECK(analysis::touched_granules(r, 4, 128) == std::vector<uint64_t>{0, 1});
}

TEST_CASE("where a byte lands: sector, line, bank") {
  // Byte 200 of an array: sector 6 (192..223), line 1 (128..255), word 50, bank 18.
  CHECK(analysis::sector_of(200) == 6);
  CHECK(analysis::line_of(200) == 1);
  CHECK(analysis::line_of_sector(6) == 1);
  CHECK(analysis::line_of_sector(3) == 0);
  CHECK(analysis::bank_of(200) == 18);
  CHECK(analysis::bank_of(128) == 0);  // a row of 32 floats later: the same bank
  CHECK(analysis::bank_of(132) == 1);  // TILE+1 padding moves the next row one bank on
}

TEST_CASE("global: sector_bytes names the lane behind each requested byte") {
  // Lanes 0..7 read consecutive floats from byte 16: bytes 16..47, over sectors 0 and 1.
  auto s = analysis::sector_bytes(warp([](uint32_t l) { return 16 + 4 * l; }, 0xffu), 4);
  REQUIRE(s.size() == 2);
  CHECK(s[0].sector == 0);
  CHECK(s[0].lane[15] == -1);  // fetched, not requested
  CHECK(s[0].lane[16] == 0);
  CHECK(s[0].lane[31] == 3);
  CHECK(s[1].sector == 1);
  CHECK(s[1].lane[0] == 4);
  CHECK(s[1].lane[15] == 7);
  CHECK(s[1].lane[16] == -1);  // past the last lane: fetched, not requested
  // Every lane at one address: one sector, the lowest lane owns the bytes.
  auto b = analysis::sector_bytes(warp([](uint32_t) { return 64; }), 4);
  REQUIRE(b.size() == 1);
  CHECK(b[0].lane[0] == 0);
  CHECK(b[0].lane[4] == -1);
}

TEST_CASE("phases: shared 1/2/4 by width, global quarter-warps for 16 bytes only") {
  CHECK(analysis::shared_phases(4) == 1);
  CHECK(analysis::shared_phases(8) == 2);
  CHECK(analysis::shared_phases(16) == 4);
  CHECK(analysis::global_phases(4) == 1);
  CHECK(analysis::global_phases(8) == 1);
  CHECK(analysis::global_phases(16) == 4);
}

// ---- shared -----------------------------------------------------------------------------

TEST_CASE("shared: bank_words lists each word with its bank, lanes and n-way") {
  // Lanes 0 and 1 in bank 0 (words 0 and 32: 2-way), lanes 2 and 3 both on word 1 (a broadcast).
  auto w = analysis::bank_words(warp([](uint32_t l) { return l == 0 ? 0u : l == 1 ? 128u : 4u; }, 0xfu), 4);
  REQUIRE(w.size() == 3);
  CHECK(w[0].bank == 0);
  CHECK(w[0].word == 0);
  CHECK(w[0].way == 2);
  CHECK(w[1].bank == 0);
  CHECK(w[1].word == 32);
  CHECK(w[2].bank == 1);
  CHECK(w[2].lanes == 0xcu);
  CHECK(w[2].way == 1);
  CHECK(analysis::broadcast_lanes(w) == 0xcu);
  // 16-byte lanes: four phases of 8; lanes 0 and 8 read the same word in different phases,
  // which is no broadcast.
  auto v = analysis::bank_words(warp([](uint32_t l) { return l == 8 ? 0u : 16 * l; }, 0x101u), 16);
  CHECK(v.front().phase == 0);
  REQUIRE(v.size() == 8);
  CHECK(v.back().phase == 1);
  CHECK(analysis::broadcast_lanes(v) == 0u);
}


TEST_CASE("shared: consecutive words -> 1 wavefront, one word in every bank") {
  auto c = shared_cost(warp([](uint32_t l) { return 4 * l; }), 4);
  CHECK(c.wavefronts == 1);
  CHECK(c.ideal_wavefronts == 1);
  CHECK(c.conflicts == 0);
  CHECK(c.max_way == 1);
  REQUIRE(c.words_per_bank.size() == 32);
  for (uint32_t b = 0; b < 32; ++b) CHECK(c.words_per_bank[b] == 1);
}

TEST_CASE("shared: stride of 2 words -> 2-way conflict on the even banks") {
  auto c = shared_cost(warp([](uint32_t l) { return 8 * l; }), 4);
  CHECK(c.wavefronts == 2);
  CHECK(c.conflicts == 1);
  CHECK(c.max_way == 2);
  for (uint32_t b = 0; b < 32; ++b) CHECK(c.words_per_bank[b] == (b % 2 ? 0u : 2u));
}

TEST_CASE("shared: stride of 32 words -> all lanes in bank 0, 32-way, 31 conflicts") {
  auto c = shared_cost(warp([](uint32_t l) { return 128 * l; }), 4);
  CHECK(c.wavefronts == 32);
  CHECK(c.ideal_wavefronts == 1);
  CHECK(c.conflicts == 31);
  CHECK(c.max_way == 32);
  CHECK(c.words_per_bank[0] == 32);
  CHECK(c.words_per_bank[1] == 0);
}

TEST_CASE("shared: stride of 33 words (a padded row) -> conflict free") {
  auto c = shared_cost(warp([](uint32_t l) { return 132 * l; }), 4);
  CHECK(c.wavefronts == 1);
  CHECK(c.conflicts == 0);
  CHECK(c.max_way == 1);
  for (uint32_t b = 0; b < 32; ++b) CHECK(c.words_per_bank[b] == 1);
}

TEST_CASE("shared: same word is a broadcast, not a conflict") {
  auto all = shared_cost(warp([](uint32_t) { return 64; }), 4);
  CHECK(all.wavefronts == 1);
  CHECK(all.conflicts == 0);
  CHECK(all.words_per_bank[16] == 1);
  auto pairs = shared_cost(warp([](uint32_t l) { return 4 * (l / 2); }), 4);
  CHECK(pairs.wavefronts == 1);
  // Two words in bank 0 (0 and 32), and a third lane reading word 0 again: 2-way.
  auto mixed = shared_cost(warp([](uint32_t l) { return l == 1 ? 128u : 0u; }, 0x7u), 4);
  CHECK(mixed.wavefronts == 2);
  CHECK(mixed.max_way == 2);
}

TEST_CASE("shared: 8-byte consecutive -> two phases of 16 lanes, 2 wavefronts, no conflict") {
  auto c = shared_cost(warp([](uint32_t l) { return 8 * l; }), 8);
  CHECK(c.wavefronts == 2);
  CHECK(c.ideal_wavefronts == 2);
  CHECK(c.conflicts == 0);
  CHECK(c.max_way == 1);
  REQUIRE(c.words_per_bank.size() == 64);
  for (uint32_t i = 0; i < 64; ++i) CHECK(c.words_per_bank[i] == 1);
}

TEST_CASE("shared: 16-byte consecutive -> four phases of 8 lanes, 4 wavefronts, no conflict") {
  auto c = shared_cost(warp([](uint32_t l) { return 16 * l; }), 16);
  CHECK(c.wavefronts == 4);
  CHECK(c.ideal_wavefronts == 4);
  CHECK(c.conflicts == 0);
  CHECK(c.max_way == 1);
  CHECK(c.words_per_bank.size() == 128);
  CHECK(analysis::shared_phases(16) == 4);
  CHECK(analysis::shared_phases(8) == 2);
  CHECK(analysis::shared_phases(4) == 1);
}

TEST_CASE("shared: 16-byte lanes 32 words apart -> 8-way in every phase") {
  // Each lane covers banks 0-3; the 8 lanes of a phase put 8 different words in each.
  auto c = shared_cost(warp([](uint32_t l) { return 128 * l; }), 16);
  CHECK(c.wavefronts == 32);
  CHECK(c.ideal_wavefronts == 4);
  CHECK(c.conflicts == 28);
  CHECK(c.max_way == 8);
  CHECK(c.words_per_bank[0] == 8);
  CHECK(c.words_per_bank[3] == 8);
  CHECK(c.words_per_bank[4] == 0);
}

TEST_CASE("shared: partial masks") {
  SUBCASE("16 lanes 32 words apart -> 16-way") {
    auto c = shared_cost(warp([](uint32_t l) { return 128 * l; }, 0xffffu), 4);
    CHECK(c.wavefronts == 16);
    CHECK(c.conflicts == 15);
    CHECK(c.max_way == 16);
  }
  SUBCASE("8-byte, lanes 0-15 only -> one phase") {
    auto c = shared_cost(warp([](uint32_t l) { return 8 * l; }, 0xffffu), 8);
    CHECK(c.wavefronts == 1);
    CHECK(c.ideal_wavefronts == 1);
    for (uint32_t b = 0; b < 32; ++b) CHECK(c.words_per_bank[32 + b] == 0);
  }
  SUBCASE("no lane active -> nothing") {
    auto c = shared_cost(warp([](uint32_t l) { return 4 * l; }, 0u), 4);
    CHECK(c.wavefronts == 0);
    CHECK(c.ideal_wavefronts == 0);
    CHECK(c.max_way == 0);
  }
}

// ---- DRAM model ---------------------------------------------------------------------------

TEST_CASE("dram: the textbook interleaving of M[0..9]") {
  analysis::DramModel m;
  REQUIRE(analysis::dram_preset("textbook", m));
  CHECK(m.channels == 4);
  CHECK(m.banks == 2);
  CHECK(m.burst_bytes == 8);
  CHECK(!m.xor_hash);
  struct Want {
    uint32_t channel, bank;
  };
  // M[0],M[1] -> ch0 b0; M[2],M[3] -> ch1 b0; M[4],M[5] -> ch2 b0; M[6],M[7] -> ch3 b0;
  // M[8],M[9] -> ch0 b1.
  const Want want[10] = {{0, 0}, {0, 0}, {1, 0}, {1, 0}, {2, 0}, {2, 0}, {3, 0}, {3, 0}, {0, 1}, {0, 1}};
  for (uint32_t i = 0; i < 10; ++i) {
    CAPTURE(i);
    CHECK(m.channel(4 * i) == want[i].channel);
    CHECK(m.bank(4 * i) == want[i].bank);
  }
  CHECK(m.channel(4 * 16) == 0);  // M[16]: bank 0 again
  CHECK(m.bank(4 * 16) == 0);
}

TEST_CASE("dram: hbm preset is coarse and hashed; unknown names are refused") {
  analysis::DramModel m;
  REQUIRE(analysis::dram_preset("hbm", m));
  CHECK(m.preset == "hbm");
  CHECK(m.channels == 32);
  CHECK(m.banks == 16);
  CHECK(m.burst_bytes == 256);
  CHECK(m.xor_hash);
  CHECK(m.channel(0) == 0);
  CHECK(m.channel(255) == 0);
  CHECK(m.channel(256) == 1);
  // A stride of channels*banks*burst would hit one channel without the hash.
  const uint64_t row = 32ull * 16 * 256;
  for (uint64_t k = 0; k < 32; ++k) CHECK(m.channel(k * row) == k);
  analysis::DramModel untouched = m;
  CHECK(!analysis::dram_preset("gddr9", untouched));
  CHECK(untouched.preset == "hbm");
  auto names = analysis::dram_presets();
  CHECK(std::find(names.begin(), names.end(), "textbook") != names.end());
  CHECK(std::find(names.begin(), names.end(), "hbm") != names.end());
  CHECK(m.describe().find("model") != std::string::npos);
}
