// The analysis on real traces recorded by the CPU emulator.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "analysis/analysis.h"
#include "catalog.h"
#include "emu/record.h"

using namespace ws;

namespace {

struct Run {
  trace::Trace t;
  analysis::Report rep;
};

Run record(const catalog::KernelInfo& k, int64_t size, std::map<std::string, int64_t> set = {},
           const std::string& dram = "textbook") {
  catalog::Params p;
  std::string err = catalog::resolve(k, size, set, p);
  REQUIRE_MESSAGE(err.empty(), err);
  auto arrays = catalog::make_arrays(k, p);
  Run r;
  emu::record(k, p, arrays, {}, r.t);
  analysis::DramModel m;
  REQUIRE(analysis::dram_preset(dram, m));
  r.rep = analysis::analyze(r.t, m);
  return r;
}

Run record(const char* id, int64_t size, std::map<std::string, int64_t> set = {}) {
  const auto* k = catalog::find(id);
  REQUIRE(k);
  return record(*k, size, std::move(set));
}

const analysis::SiteStats& find_site(const Run& r, const std::string& array, trace::Op op) {
  for (const auto& s : r.rep.sites) {
    const auto& site = r.t.sites[s.site];
    if (r.t.buffers[site.buffer].name == array && site.op == op) return s;
  }
  FAIL("no site for " << array << " " << trace::to_string(op));
  return r.rep.sites.front();
}

}  // namespace

TEST_CASE("transpose_tiled, pad 0: the transposed tile store is a 32-way conflict") {
  auto r = record("transpose_tiled", 64, {{"pad", 0}});
  const auto& st = find_site(r, "tile", trace::Op::Store);
  REQUIRE(st.requests > 0);
  CHECK(st.max_way == 32);
  CHECK(st.bank_conflicts == 31 * st.requests);
  CHECK(st.wavefronts == 32 * st.requests);
  CHECK(st.why == "all 32 lanes hit the same bank in different words → 32-way conflict");
  const auto& ld = find_site(r, "tile", trace::Op::Load);
  CHECK(ld.bank_conflicts == 0);
  CHECK(ld.max_way == 1);
  const auto& in = find_site(r, "in", trace::Op::Load);
  CHECK(in.sectors_per_request == doctest::Approx(4.0));
  CHECK(in.efficiency == doctest::Approx(1.0));
  const auto& out = find_site(r, "out", trace::Op::Store);
  CHECK(out.sectors_per_request == doctest::Approx(4.0));
  // The load of the tile happens before the barrier, the store of `out` after it.
  REQUIRE(r.rep.epochs.size() == 2);
  REQUIRE(r.rep.epochs[0].arrays.size() == 1);
  CHECK(r.t.buffers[r.rep.epochs[0].arrays[0].buffer].name == "in");
  CHECK(r.rep.epochs[0].arrays[0].channels_used == 4);
  REQUIRE(r.rep.epochs[1].arrays.size() == 1);
  CHECK(r.t.buffers[r.rep.epochs[1].arrays[0].buffer].name == "out");
}

TEST_CASE("transpose_tiled, pad 1: the padded tile removes the conflict") {
  auto r = record("transpose_tiled", 64, {{"pad", 1}});
  const auto& st = find_site(r, "tile", trace::Op::Store);
  REQUIRE(st.requests > 0);
  CHECK(st.bank_conflicts == 0);
  CHECK(st.max_way == 1);
  CHECK(st.wavefronts == st.requests);
  CHECK(st.why == "row padded to 33 words: 32 lanes spread over 32 banks → no conflict");
  CHECK(find_site(r, "tile", trace::Op::Load).bank_conflicts == 0);
}

TEST_CASE("transpose_tiled_dynamic: the same conflict and the same cure") {
  auto r0 = record("transpose_tiled_dynamic", 64, {{"pad", 0}});
  const auto& s0 = find_site(r0, "tile", trace::Op::Store);
  CHECK(s0.max_way == 32);
  CHECK(s0.bank_conflicts == 31 * s0.requests);
  auto r1 = record("transpose_tiled_dynamic", 64, {{"pad", 1}});
  const auto& s1 = find_site(r1, "tile", trace::Op::Store);
  CHECK(s1.max_way == 1);
  CHECK(s1.bank_conflicts == 0);
}

TEST_CASE("transpose_read_coalesced: 4 sectors a load, 32 a store") {
  auto r = record("transpose_read_coalesced", 64);
  const auto& ld = find_site(r, "in", trace::Op::Load);
  CHECK(ld.sectors_per_request == doctest::Approx(4.0));
  CHECK(ld.ideal_sectors_per_request == doctest::Approx(4.0));
  CHECK(ld.efficiency == doctest::Approx(1.0));
  CHECK(ld.lines * 1 == ld.requests);
  CHECK(ld.why == "consecutive lanes read consecutive 4-byte words → 4 sectors, fully used");
  const auto& st = find_site(r, "out", trace::Op::Store);
  CHECK(st.sectors_per_request == doctest::Approx(32.0));
  CHECK(st.ideal_sectors_per_request == doctest::Approx(4.0));
  CHECK(st.efficiency == doctest::Approx(0.125));
  CHECK(st.why == "lanes are 256 B apart → 32 sectors per request; ideal 4");
  // DRAM (textbook): `in` is read once, 16 bursts a request, spread evenly over 4 channels.
  REQUIRE(r.rep.epochs.size() == 1);
  for (const auto& a : r.rep.epochs[0].arrays) {
    CHECK(a.channels_used == 4);
    if (r.t.buffers[a.buffer].name == "in") {
      CHECK(a.bursts == 64 * 64 / 2);
      CHECK(a.per_channel == std::vector<uint64_t>(4, 64 * 64 / 8));
    } else {
      CHECK(a.bursts == 64 * 64);  // every lane its own burst, half of it used
    }
  }
}

TEST_CASE("transpose_write_coalesced: the mirror image") {
  auto r = record("transpose_write_coalesced", 64);
  CHECK(find_site(r, "in", trace::Op::Load).sectors_per_request == doctest::Approx(32.0));
  CHECK(find_site(r, "out", trace::Op::Store).sectors_per_request == doctest::Approx(4.0));
}

TEST_CASE("bulk statistics equal the sum of the per-request functions") {
  for (const char* id : {"transpose_tiled", "transpose_read_coalesced", "transpose_tiled_dynamic"}) {
    for (int64_t n : {31, 70}) {
      auto r = record(id, n);
      std::vector<analysis::SiteStats> want(r.t.sites.size());
      for (const auto& rec : r.t.records) {
        const auto& site = r.t.sites[rec.site];
        auto& w = want[rec.site];
        w.requests++;
        if (site.space == trace::Space::Global) {
          auto c = analysis::global_cost(rec, site.bytes);
          w.sectors += c.sectors;
          w.lines += c.lines;
          w.ideal_sectors += c.ideal_sectors;
          w.bytes_requested += c.bytes_requested;
        } else {
          auto c = analysis::shared_cost(rec, site.bytes);
          w.wavefronts += c.wavefronts;
          w.ideal_wavefronts += c.ideal_wavefronts;
          w.bank_conflicts += c.conflicts;
          w.max_way = std::max(w.max_way, c.max_way);
        }
      }
      for (size_t i = 0; i < want.size(); ++i) {
        CAPTURE(id);
        CAPTURE(n);
        CAPTURE(i);
        const auto& got = r.rep.sites[i];
        CHECK(got.requests == want[i].requests);
        CHECK(got.sectors == want[i].sectors);
        CHECK(got.lines == want[i].lines);
        CHECK(got.ideal_sectors == want[i].ideal_sectors);
        CHECK(got.bytes_requested == want[i].bytes_requested);
        CHECK(got.wavefronts == want[i].wavefronts);
        CHECK(got.ideal_wavefronts == want[i].ideal_wavefronts);
        CHECK(got.bank_conflicts == want[i].bank_conflicts);
        CHECK(got.max_way == want[i].max_way);
      }
    }
  }
}

TEST_CASE("report_json has the schema of a launch in `warpscope report --format json`") {
  auto r = record("transpose_tiled", 64);
  auto j = nlohmann::json::parse(analysis::report_json(r.t, r.rep));
  CHECK(j["launch"] == 1);  // launches are numbered from 1, as requests are
  CHECK(j["kernel"] == "transpose_tiled");
  CHECK(j["params"]["size"] == 64);
  CHECK(j["params"]["pad"] == 0);
  CHECK(j["grid"] == nlohmann::json::array({2, 2, 1}));
  CHECK(j["block"] == nlohmann::json::array({32, 8, 1}));
  CHECK(j["blocks_recorded"] == 4);
  auto d = nlohmann::json::parse(analysis::dram_json(r.rep.dram));
  CHECK(d["preset"] == "textbook");
  CHECK(d["channels"] == 4);
  CHECK(d["banks"] == 2);
  CHECK(d["burst_bytes"] == 8);
  REQUIRE(j["sites"].is_array());
  REQUIRE(j["sites"].size() == r.t.sites.size());
  bool saw_conflict = false;
  for (const auto& s : j["sites"]) {
    for (const char* key : {"file", "line", "column", "code", "array", "space", "op", "bytes_per_lane", "requests",
                            "lane_accesses", "why"})
      CHECK_MESSAGE(s.contains(key), key);
    CHECK(s["file"] == "transpose.h");
    CHECK(s["column"].get<uint32_t>() >= 1);
    CHECK(!s["code"].get<std::string>().empty());
    CHECK(!s["why"].get<std::string>().empty());
    if (s["space"] == "global") {
      for (const char* key : {"sectors", "sectors_per_request", "ideal_sectors_per_request", "efficiency"})
        CHECK_MESSAGE(s.contains(key), key);
      CHECK(!s.contains("wavefronts"));
    } else {
      CHECK(s["space"] == "shared");
      for (const char* key : {"wavefronts", "ideal_wavefronts", "bank_conflicts"}) CHECK_MESSAGE(s.contains(key), key);
      CHECK(!s.contains("sectors"));
      if (s["array"] == "tile" && s["op"] == "store") {
        saw_conflict = true;
        CHECK(s["bank_conflicts"] == 31 * s["requests"].get<uint64_t>());
        CHECK(s["max_way"] == 32);
      }
    }
  }
  CHECK(saw_conflict);
  REQUIRE(j["epochs"].is_array());
  REQUIRE(j["epochs"].size() == 2);
  CHECK(j["epochs"][0]["epoch"] == 0);
  const auto& in = j["epochs"][0]["arrays"]["in"];
  CHECK(in["channels_used"] == 4);
  CHECK(in["per_channel"].size() == 4);
  REQUIRE(in["per_bank"].size() == 4);
  CHECK(in["per_bank"][0].size() == 2);
  CHECK(j["epochs"][1]["arrays"].contains("out"));
}

TEST_CASE("report_text is a readable table with the DRAM summary") {
  auto r = record("transpose_tiled", 64);
  std::string text = analysis::report_text(r.t, r.rep);
  CHECK(text.find("requests") != std::string::npos);
  CHECK(text.find("tile") != std::string::npos);
  CHECK(text.find("32-way") != std::string::npos);
  CHECK(text.find("100%") != std::string::npos);
  CHECK(text.find("DRAM") != std::string::npos);
  CHECK(text.find("4/4 channels") != std::string::npos);
  MESSAGE(text);
}

TEST_CASE("every catalog kernel analyses to consistent numbers, in both DRAM models") {
  for (const auto& k : catalog::all()) {
    for (const char* dram : {"textbook", "hbm"}) {
      CAPTURE(k.id);
      CAPTURE(dram);
      auto r = record(k, k.teach_size, {}, dram);
      CHECK(r.rep.records == r.t.records.size());
      for (const auto& s : r.rep.sites) {
        CHECK(s.requests > 0);
        CHECK(!s.why.empty());
        if (r.t.sites[s.site].space == trace::Space::Global) {
          CHECK(s.sectors >= s.ideal_sectors);
          CHECK(s.efficiency <= 1.0 + 1e-12);
          CHECK(s.lines <= s.sectors);
        } else {
          CHECK(s.wavefronts == s.ideal_wavefronts + s.bank_conflicts);
          CHECK(s.max_way <= 32);
        }
      }
      uint64_t bursts = 0;
      for (const auto& e : r.rep.epochs)
        for (const auto& a : e.arrays) {
          uint64_t sum = 0;
          for (const auto& row : a.per_bank)
            for (uint64_t v : row) sum += v;
          CHECK(sum == a.bursts);
          bursts += sum;
        }
      auto j = nlohmann::json::parse(analysis::dram_json(r.rep.dram));
      CHECK(j["preset"] == dram);
      CHECK(!analysis::report_text(r.t, r.rep).empty());
    }
  }
}

TEST_CASE("basics: copy, strided and misaligned copies (when in the catalog)") {
  if (const auto* k = catalog::find("copy")) {
    auto r = record(*k, 1024);
    for (const auto& s : r.rep.sites) {
      CHECK(s.sectors_per_request == doctest::Approx(4.0));
      CHECK(s.efficiency == doctest::Approx(1.0));
    }
  }
  if (const auto* k = catalog::find("strided_copy"); k && catalog::find("copy")) {
    catalog::Params p;
    if (catalog::resolve(*k, 1024, {{"stride", 2}}, p).empty()) {
      auto r = record(*k, 1024, {{"stride", 2}});
      bool strided = false;
      for (const auto& s : r.rep.sites) strided |= s.sectors_per_request > 7.9;
      CHECK(strided);
    }
  }
  if (const auto* k = catalog::find("offset_copy")) {
    catalog::Params p;
    if (catalog::resolve(*k, 1024, {{"offset", 1}}, p).empty()) {
      auto r = record(*k, 1024, {{"offset", 1}});
      bool misaligned = false;
      for (const auto& s : r.rep.sites) misaligned |= s.sectors_per_request > 4.5;
      CHECK(misaligned);
    }
  }
}
