// tests/gui/test_timing.cpp — The timing panel: which rows a family shows and in what order, each labelled with its
// variant; bars on a fixed scale of the reference; what the benchmark size means; and the
// panel drawing pad 0 and pad 1 side by side when the app starts from another folder.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "ui/figure/headless.h"
#include "ui/figure/theme.h"
#include "ui/timing.h"
#include "ui/ui.h"
#include "ui/controls.h"
#include "ui/figure/scenes.h"
#include "ui_test.h"

using namespace ws;

namespace {

ui::TimingSample sample(const std::string& kernel, std::map<std::string, int64_t> params, double gbs, double pct_copy,
                        double gflops = 0, double pct_cublas = 0) {
  ui::TimingSample s;
  s.kernel = kernel;
  s.params = std::move(params);
  if (auto it = s.params.find("size"); it != s.params.end()) s.size = it->second;
  s.ok = true;
  s.ms = 1;
  s.gbs = gbs;
  s.gflops = gflops;
  s.pct_copy = pct_copy;
  s.pct_cublas = pct_cublas;
  if (pct_cublas > 0) {
    s.ref = "cuBLAS";
    s.pct_ref = pct_cublas;
  } else if (pct_copy > 0) {
    s.ref = "device copy";
    s.pct_ref = pct_copy;
  }
  return s;
}

// A transpose table in no particular order, as a hand-edited pack could be.
ui::TimingTable transpose_table() {
  ui::TimingTable t;
  t.origin = "replay";
  t.device = "Test GPU";
  t.date = "2026-01-02T03:04:05Z";
  t.copy_gbs = 4000;
  t.copy_bytes = uint64_t(512) << 20;
  t.samples = {sample("transpose_tiled", {{"pad", 1}, {"size", 8192}}, 3520, 88),
               sample("copy", {{"size", 1 << 26}}, 2600, 65),
               sample("transpose_tiled_dynamic", {{"pad", 1}, {"tile", 32}, {"size", 8192}}, 1675, 41.9),
               sample("transpose_read_coalesced", {{"size", 8192}}, 525, 13.1),
               sample("transpose_tiled", {{"pad", 0}, {"size", 8192}}, 1697, 42.4),
               sample("transpose_tiled_dynamic", {{"pad", 0}, {"tile", 32}, {"size", 8192}}, 1190, 0)};
  return t;
}

std::vector<std::string> labels(const ui::TimingLadder& l) {
  std::vector<std::string> out;
  for (const auto& r : l.rows) out.push_back(r.name + (r.variant.empty() ? "" : " " + r.variant));
  return out;
}

}  // namespace

TEST_CASE("the ladder: every timed variant of the family, in catalog order, the one on screen marked") {
  ui::TimingStore store;
  store.replay = {transpose_table()};
  ui::TimingLadder l = ui::timing_ladder(store, "transpose_tiled", {{"pad", 1}, {"size", 64}});
  REQUIRE(l.table);
  CHECK(l.table->device == "Test GPU");
  CHECK_FALSE(l.compute);
  CHECK(l.unit == "GB/s");
  CHECK(l.ref == "device-to-device copy");
  CHECK(l.ref_value == 4000);
  CHECK(l.ref_size == "256 MiB");
  // The TMA rung, named otherwise, keeps its whole id and leaves the others' short names.
  CHECK(labels(l) == std::vector<std::string>{"read_coalesced", "write_coalesced", "tiled pad=0", "tiled pad=1",
                                              "tiled_dynamic pad=0", "tiled_dynamic pad=1", "tma_transpose"});
  CHECK(l.here == 3);
  CHECK(l.rows[3].here);
  CHECK(l.rows[2].same_kernel);
  CHECK_FALSE(l.rows[2].here);
  CHECK_FALSE(l.rows[0].same_kernel);
  CHECK(l.rows[1].sample == nullptr);  // write_coalesced: not in this table, still on the ladder
  CHECK(l.rows[3].value == 3520);
  CHECK(l.rows[3].pct == 88);
  // A row without a percentage gets one from the reference measured in the same run.
  CHECK(l.rows[4].pct == doctest::Approx(100.0 * 1190 / 4000));
  CHECK(l.size == "8192 × 8192 floats");

  // pad 0 on screen: the other row is marked; the teaching size changes nothing.
  l = ui::timing_ladder(store, "transpose_tiled", {{"pad", 0}, {"size", 32}});
  CHECK(l.here == 2);
  // Parameters no row was timed with: the kernel's rows say which parameters they had.
  l = ui::timing_ladder(store, "transpose_tiled_dynamic", {{"pad", 1}, {"tile", 16}});
  CHECK(l.here == -1);
  CHECK(labels(l)[4] == "tiled_dynamic tile=32 pad=0");
  CHECK(labels(l)[5] == "tiled_dynamic tile=32 pad=1");
  // Another family on screen, or an unknown kernel: no transpose rows.
  l = ui::timing_ladder(store, "copy", {});
  REQUIRE(l.table);
  CHECK(labels(l) == std::vector<std::string>{"copy", "strided_copy", "offset_copy", "pmpp_exercise"});
  CHECK(l.size == "64 Mi floats");
  CHECK(ui::timing_ladder(store, "matmul_tiled", {}).table == nullptr);
  CHECK(ui::timing_ladder(store, "nosuch", {}).table == nullptr);
}

TEST_CASE("the ladder takes one table: live when it times the family, else the newest replay table") {
  ui::TimingStore store;
  ui::TimingTable old = transpose_table();
  old.device = "Old GPU";
  store.replay = {transpose_table(), old};
  CHECK(ui::timing_ladder(store, "transpose_tiled", {}).table->device == "Test GPU");

  ui::TimingTable live;
  live.origin = "live";
  live.device = "Live GPU";
  live.samples = {sample("transpose_tiled", {{"pad", 0}, {"size", 8192}}, 1000, 25)};
  store.add_live(live);
  ui::TimingLadder l = ui::timing_ladder(store, "transpose_tiled", {{"pad", 1}});
  CHECK(l.table->origin == "live");
  CHECK(labels(l) == std::vector<std::string>{"read_coalesced", "write_coalesced", "tiled pad=0", "tiled_dynamic",
                                              "tma_transpose"});
  CHECK(l.here == -1);
  // The next live run times pad=1: both variants show, each from the live runs.
  live.samples = {sample("transpose_tiled", {{"pad", 1}, {"size", 8192}}, 2000, 50)};
  store.add_live(live);
  l = ui::timing_ladder(store, "transpose_tiled", {{"pad", 1}});
  CHECK(labels(l)[2] == "tiled pad=0");
  CHECK(labels(l)[3] == "tiled pad=1");
  CHECK(l.rows[3].value == 2000);
  CHECK(l.here == 3);
  // A live run on another device replaces the earlier rows instead of mixing with them.
  live.device = "Other GPU";
  store.add_live(live);
  CHECK(store.live->samples.size() == 1);
  // A family the live runs never timed still comes from the replay pack.
  CHECK(ui::timing_ladder(store, "copy", {}).table->origin == "replay");
}

TEST_CASE("percent of the reference: cuBLAS for SGEMM, a device copy for memory-bound kernels") {
  ui::TimingTable t;
  t.cublas_gflops = 50000;
  t.copy_gbs = 4000;
  ui::TimingSample mm = sample("matmul_tiled", {{"tile", 32}, {"size", 4096}}, 13, 0.3, 8600, 17.2);
  CHECK(ui::percent_of_reference(mm, t, true) == 17.2);
  CHECK(ui::percent_of_reference(mm, t, false) == 0.3);
  mm.pct_cublas = 0;
  mm.ref.clear();
  mm.pct_ref = -1;
  CHECK(ui::percent_of_reference(mm, t, true) == doctest::Approx(17.2));
  // Faster than the reference: reported as measured, not capped.
  ui::TimingSample fast = sample("copy", {}, 5200, 0);
  CHECK(ui::percent_of_reference(fast, t, false) == doctest::Approx(130));
  // Nothing to compare with.
  ui::TimingTable none;
  CHECK(ui::percent_of_reference(sample("copy", {}, 5200, 0), none, false) < 0);

  ui::TimingStore store;
  t.cublas_size = 4096;
  t.samples = {sample("matmul_naive", {{"size", 4096}}, 9, 0.2, 5975, 11.7),
               sample("matmul_tiled", {{"tile", 32}, {"size", 4096}}, 13, 0.3, 8599, 16.9),
               sample("matmul_tiled", {{"tile", 16}, {"size", 4096}}, 12, 0.3, 8093, 15.9)};
  store.replay = {t};
  ui::TimingLadder l = ui::timing_ladder(store, "matmul_tiled", {});  // tile 16 is the default
  CHECK(l.compute);
  CHECK(l.unit == "GFLOP/s");
  CHECK(l.ref_size == "4096³");
  CHECK(l.size == "4096³ SGEMM");
  REQUIRE(l.rows.size() >= 5);
  CHECK(labels(l)[1] == "naive");
  CHECK(labels(l)[3] == "tiled tile=16");
  CHECK(labels(l)[4] == "tiled tile=32");
  CHECK(l.here == 3);
  CHECK(l.rows[4].pct == 16.9);
}

TEST_CASE("the tensor-core ladder is a percentage of cuBLAS HGEMM, not of SGEMM") {
  ui::TimingTable t;
  t.cublas_gflops = 50000;
  t.cublas_size = 4096;
  t.hgemm_gflops = 500000;
  t.hgemm_size = 4096;
  auto tc = [](const char* id, double gflops, double pct) {
    ui::TimingSample s = sample(id, {{"size", 4096}}, 0, 0, gflops, pct);
    s.vs_hgemm = true;
    s.ref = "cuBLAS HGEMM";
    return s;
  };
  t.samples = {sample("matmul_tiled", {{"tile", 16}, {"size", 4096}}, 12, 0.3, 8093, 15.9),
               tc("tc_mma_plain", 100000, 20), tc("tc_mma_swizzled", 150000, 30), tc("tc_mma_pipelined", 250000, 50)};
  ui::TimingStore store;
  store.replay = {t};
  const ui::TimingLadder l = ui::timing_ladder(store, "tc_mma_swizzled", {{"stages", 3}});
  CHECK(l.compute);
  CHECK(l.ref == "cuBLAS HGEMM");
  CHECK(l.ref_value == 500000);
  CHECK(l.ref_size == "4096³");
  CHECK(l.size == "4096³ HGEMM");
  REQUIRE(l.rows.size() == 6);  // the family's kernels only (tc_mma_tuned, tc_wgmma, tc_wgmma_cluster untimed here), not matmul_tiled
  CHECK(l.rows[1].kernel->id == "tc_mma_swizzled");
  CHECK(l.rows[1].here);
  CHECK(l.rows[1].pct == 30);
  // Without its own percentage, a row is measured against HGEMM.
  ui::TimingSample bare = tc("tc_mma_plain", 100000, 0);
  bare.pct_ref = -1;
  CHECK(ui::percent_of_reference(bare, t, true) == doctest::Approx(20));
  // The SGEMM ladder beside it keeps SGEMM.
  CHECK(ui::timing_ladder(store, "matmul_tiled", {}).ref == "cuBLAS SGEMM");
  // The bundled pack's H100 run, whose rows have GB/s as well: still HGEMM, in GFLOP/s, and
  // the SASS traces' index beside it is no timing file.
  std::string msg;
  ui::TimingStore bundled;
  bundled.replay = ui::load_replay_pack("assets/replay", msg);
  CHECK(msg.empty());
  const ui::TimingLadder h = ui::timing_ladder(bundled, "tc_mma_swizzled", {});
  CHECK(h.compute);
  CHECK(h.ref == "cuBLAS HGEMM");
  // Six rungs, the tuned one also with its two timed settings (warps=8, group=1) and
  // tc_wgmma with grid=0: the pack's run at 4096, not its run of the top rungs at 8192
  // (bench_8192.json, newer, which times fewer of the family's kernels).
  REQUIRE(h.rows.size() == 9);
  CHECK(h.size == "4096³ HGEMM");
  CHECK(h.rows[2].pct > h.rows[0].pct);  // pipelined ahead of plain
  // The rebuilt tuned rung, timed in the same run: more than twice the pipelined rung.
  int tuned = 0;
  for (const ui::LadderRow& r : h.rows) {
    if (r.kernel->id != "tc_mma_tuned") continue;
    ++tuned;
    CAPTURE(r.variant);
    REQUIRE(r.sample != nullptr);
    CHECK(r.pct > 2 * h.rows[2].pct);
  }
  CHECK(tuned == 3);
  // The Hopper rung, timed in the same run: past every mma.sync rung.
  for (const ui::LadderRow& r : h.rows)
    if (r.kernel->id == "tc_wgmma" && r.variant.empty()) {
      REQUIRE(r.sample != nullptr);
      for (const ui::LadderRow& o : h.rows)
        if (o.kernel->id.rfind("tc_mma", 0) == 0) CHECK(r.pct > o.pct);
    }
  CHECK(ui::timing_ladder(bundled, "swizzle_xor", {}).ref == "device-to-device copy");
  // A narrow panel (the normal layout at 1280x720): a row's settings give way before its
  // kernel's name, which is never cut to '…' alone.
  {
    ui::HeadlessContext ctx(1280, 720);
    const ui::TimingLadder n = ui::timing_ladder(bundled, "tc_mma_tuned", {});
    for (float w : {260.0f, 300.0f}) {
      CAPTURE(w);
      ui::Scene sc;
      ui::timing_scene(sc, n, w, 0, nullptr);
      int names = 0;
      for (const auto& i : sc.items) {
        if (i.kind != ui::Scene::Kind::Text || i.a.x > 5) continue;
        CAPTURE(i.text);
        if (i.text == "0") continue;
        ++names;
        CHECK(i.text.rfind("…", 0) != 0);
        CHECK(i.text.size() >= 4);
      }
      CHECK(names >= 6);
    }
  }
}

TEST_CASE("what the benchmark size means for each kernel") {
  auto text = [](const char* id, std::map<std::string, int64_t> p) {
    const catalog::KernelInfo* k = catalog::find(id);
    REQUIRE(k);
    return ui::bench_size_text(*k, p);
  };
  CHECK(text("matmul_tiled", {{"size", 4096}}) == "4096³ SGEMM");
  CHECK(text("tc_mma_pipelined", {{"size", 4096}}) == "4096³ HGEMM");
  CHECK(text("transpose_tiled", {{"size", 8192}, {"pad", 1}}) == "8192 × 8192 floats");
  CHECK(text("transpose_read_coalesced", {{"size", 8192}, {"m", 4096}}) == "8192 × 4096 floats");
  CHECK(text("copy", {{"size", int64_t(1) << 26}}) == "64 Mi floats");
  CHECK(text("strided_copy", {{"size", int64_t(1) << 26}, {"stride", 8}}) == "64 Mi floats");
  CHECK(text("copy", {{"size", 1000}}) == "1,000 floats");
  CHECK(text("pmpp_exercise", {{"size", int64_t(1) << 24}}) == "16 Mi threads");
  // The swizzle family's tiles are halves, not floats.
  CHECK(text("swizzle_xor", {{"size", 8192}}) == "8192 × 8192 halves");
  // No size: the kernel's bench size.
  CHECK(text("transpose_tiled", {}) == "8192 × 8192 floats");
}

TEST_CASE("the repository's replay pack: transpose pad 0 and 1, SGEMM tile 16 and 32") {
  std::string msg;
  ui::TimingStore store;
  store.replay = ui::load_replay_pack(ui::bundled_replay_dir(), msg);
  REQUIRE(!store.replay.empty());
  ui::TimingLadder l = ui::timing_ladder(store, "transpose_tiled", {{"pad", 1}});
  const auto t = labels(l);
  CHECK(std::find(t.begin(), t.end(), "tiled pad=0") != t.end());
  CHECK(std::find(t.begin(), t.end(), "tiled pad=1") != t.end());
  REQUIRE(l.here >= 0);
  CHECK(t[size_t(l.here)] == "tiled pad=1");
  CHECK(l.size == "8192 × 8192 floats");
  CHECK(!l.table->device.empty());
  for (const auto& r : l.rows)
    if (r.sample) CHECK(r.pct > 0);
  const auto m = labels(ui::timing_ladder(store, "matmul_tiled", {{"tile", 32}}));
  CHECK(std::find(m.begin(), m.end(), "tiled tile=16") != m.end());
  CHECK(std::find(m.begin(), m.end(), "tiled tile=32") != m.end());
}

TEST_CASE("the replay pack times each published kernel beside the entry that reproduces it") {
  std::string msg;
  ui::TimingStore store;
  store.replay = ui::load_replay_pack(ui::bundled_replay_dir(), msg);
  REQUIRE(!store.replay.empty());
  const ui::TimingLadder l = ui::timing_ladder(store, "matmul_xgemm6", {});
  int published = 0;
  for (size_t i = 0; i < l.rows.size(); ++i) {
    if (!l.rows[i].published) continue;
    ++published;
    REQUIRE(i > 0);
    const ui::LadderRow& entry = l.rows[i - 1];  // the entry it sits under
    CHECK(!entry.published);
    CHECK(l.rows[i].kernel == entry.kernel);
    CHECK(!l.rows[i].here);
    REQUIRE(entry.sample);
    // Scaled by the two medians of the same rounds.
    CHECK(l.rows[i].pct == doctest::Approx(entry.pct * entry.sample->ms / entry.sample->published_ms));
    CHECK(ui::timing_value_text(l.rows[i]).find("published code") != std::string::npos);
    // Named by whose code it is, never just "published" (kernels 10 and 11 have no label).
    CAPTURE(l.rows[i].name);
    CHECK(l.rows[i].name != "published");
    CHECK((l.rows[i].name.find("kernel") != std::string::npos || l.rows[i].name.find("step") != std::string::npos));
  }
  CHECK(published == 5);  // siboehm's kernels 5, 6, 10 and 11, xGeMM step 6
}

TEST_CASE("bars on a fixed 0-100 % scale of the reference, labelled, clamped past 100 %") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  ctx.frame(u);
  ui::TimingStore store;
  ui::TimingTable t = transpose_table();
  t.samples.push_back(sample("transpose_write_coalesced", {{"size", 8192}}, 5200, 130));
  store.replay = {t};
  const ui::TimingLadder l = ui::timing_ladder(store, "transpose_tiled", {{"pad", 1}});
  ui::Scene sc;
  std::vector<ui::SceneBox> rows;
  const float w = 400;
  const float h = ui::timing_scene(sc, l, w, 0, &rows);
  REQUIRE(rows.size() == l.rows.size());
  CHECK(h >= rows.back().max.y);
  std::set<std::string> texts;
  for (const auto& i : sc.items)
    if (i.kind == ui::Scene::Kind::Text) texts.insert(i.text);
  CHECK(texts.count("0"));
  CHECK(texts.count("50%"));
  CHECK(texts.count("100% copy"));
  CHECK(texts.count(" pad=0"));
  CHECK(texts.count(" pad=1"));
  CHECK(texts.count("3520 · 88%"));
  CHECK(texts.count("5200 · 130%"));  // printed as measured
  // Each row's bar against its track: the fill's share of the track is the percentage.
  const ImU32 track = ui::theme().cell_empty;
  for (size_t r = 0; r < rows.size(); ++r) {
    const ui::Scene::Item* tr = nullptr;
    const ui::Scene::Item* bar = nullptr;
    for (const auto& i : sc.items) {
      if (i.kind != ui::Scene::Kind::Fill || i.a.y < rows[r].min.y || i.b.y > rows[r].max.y) continue;
      if (i.color == track) tr = &i;
    }
    REQUIRE(tr);
    for (const auto& i : sc.items)
      if (i.kind == ui::Scene::Kind::Fill && &i != tr && i.a.x == tr->a.x && i.a.y == tr->a.y && i.b.y == tr->b.y)
        bar = &i;
    CAPTURE(r);
    if (!l.rows[r].sample) {
      CHECK(bar == nullptr);
      continue;
    }
    REQUIRE(bar);
    const double share = double(bar->b.x - bar->a.x) / double(tr->b.x - tr->a.x);
    CHECK(share == doctest::Approx(std::min(l.rows[r].pct, 100.0) / 100).epsilon(0.02));
  }
  // Text stays inside the width given.
  for (const auto& i : sc.items)
    if (i.kind == ui::Scene::Kind::Text) {
      ImVec2 a, b;
      ui::text_box(i, a, b);
      CHECK(a.x >= -0.5f);
      CHECK(b.x <= w + 0.5f);
    }
  // Short of height: smaller rows, every one still drawn.
  ui::Scene small;
  const float hs = ui::timing_scene(small, l, w, 100, nullptr);
  CHECK(hs < h);
  // At every width a row's figures lie after its bar or inside it, never across its end.
  for (float narrow : {220.0f, 260.0f, 300.0f, 400.0f}) {
    CAPTURE(narrow);
    ui::Scene n;
    std::vector<ui::SceneBox> boxes;
    ui::timing_scene(n, l, narrow, 0, &boxes);
    for (size_t r = 0; r < boxes.size(); ++r) {
      float bar_a = 0, bar_b = 0;  // the row's bar: the fill that is not its track or its band
      for (const auto& i : n.items)
        if (i.kind == ui::Scene::Kind::Fill && i.a.y >= boxes[r].min.y && i.b.y <= boxes[r].max.y && i.color != track &&
            i.a.x > boxes[r].min.x + 1 && i.b.x - i.a.x > 5)
          bar_a = i.a.x, bar_b = std::max(bar_b, i.b.x);
      if (bar_b <= bar_a) continue;
      for (const auto& i : n.items) {
        if (i.kind != ui::Scene::Kind::Text || i.a.y < boxes[r].min.y || i.a.y > boxes[r].max.y || i.a.x < bar_a) continue;
        ImVec2 a, b;
        ui::text_box(i, a, b);
        CAPTURE(i.text);
        CHECK((b.x <= bar_b + 0.5f || a.x >= bar_b - 0.5f));
        // Cut to "3520 · 8…" nowhere: the percentage alone stands in where the whole does not fit.
        CHECK(i.text.find("…") == std::string::npos);
      }
    }
    // The scale's lines at 50 and 100 % pass by every figure, never through one.
    for (const auto& line : n.items) {
      if (line.kind != ui::Scene::Kind::Line || line.a.x != line.b.x) continue;
      for (const auto& i : n.items) {
        if (i.kind != ui::Scene::Kind::Text) continue;
        ImVec2 a, b;
        ui::text_box(i, a, b);
        CAPTURE(i.text);
        const bool across = line.a.x > a.x + 0.5f && line.a.x < b.x - 0.5f && std::min(line.b.y, b.y) - std::max(line.a.y, a.y) > 1.5f;
        CHECK_FALSE(across);
      }
    }
  }
}

TEST_CASE("started from another folder, the panel draws pad 0 and pad 1 from the bundled pack") {
  const std::filesystem::path home = std::filesystem::current_path();
  const std::filesystem::path elsewhere =
      std::filesystem::temp_directory_path() / ("warpscope-test-timing-" + std::to_string(::getpid()));
  std::filesystem::create_directories(elsewhere);
  std::filesystem::current_path(elsewhere);
  {
    ui::HeadlessContext ctx(1920, 1080);
    ui::Environment env = test::quiet_env();
    env.replay_dir = ui::bundled_replay_dir();  // what the app does with no --replay-dir
    CHECK(!env.replay_dir.empty());
    ui::Ui u(env);
    u.state.kernel = "transpose_tiled";
    u.state.params = {{"pad", 1}};
    u.record();
    test::settle(ctx, u);
    REQUIRE(!u.timing.store().replay.empty());
    const std::set<std::string> texts = test::frame_texts(ctx, u);
    CHECK(texts.count(" pad=0"));
    CHECK(texts.count(" pad=1"));
    CHECK(texts.count("50%"));
    const nlohmann::json d = nlohmann::json::parse(u.describe_json());
    REQUIRE(d.contains("timing"));
    CHECK(d["timing"]["origin"] == "replay");
    CHECK(d["timing"]["here"] == "tiled pad=1");
    CHECK(d["timing"]["rows"].get<std::string>().find("tiled pad=0 | tiled pad=1") != std::string::npos);
  }
  std::filesystem::current_path(home);
  std::filesystem::remove_all(elsewhere);
}
