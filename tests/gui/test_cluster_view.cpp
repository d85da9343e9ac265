// tests/gui/test_cluster_view.cpp — the cluster view, headless, on the hand-built cluster
// of tests/tensor_traces.h (cluster_trace): four CTAs, rank 0 reading rank 1's tile, rank 1
// reading ranks 0 and 2 in one request, a TMA box multicast from rank 0 into rank 1; the
// figures on paper, the scene's words, the warp inspector claiming no cost for such a
// request, and the app giving the view the DRAM view's place for a launch with clusters.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <unistd.h>

#include "../tensor_traces.h"
#include "analysis/cluster.h"
#include "trace/wstrace.h"
#include "ui/figure/figure.h"
#include "ui/figure/headless.h"
#include "ui/ui.h"
#include "ui/controls.h"
#include "text_rules.h"
#include "ui_test.h"

using namespace ws;

namespace {

std::shared_ptr<const session::Session> cluster_session() {
  analysis::DramModel dram;
  return session::Session::from_trace(std::make_shared<const trace::Trace>(test::cluster_trace()), dram);
}

std::set<std::string> texts_of(const ui::Scene& sc) {
  std::set<std::string> out;
  for (const auto& i : sc.items)
    if (i.kind == ui::Scene::Kind::Text) out.insert(i.text);
  return out;
}

}  // namespace

TEST_CASE("a cluster on paper: who reached whose shared memory, the request's lanes by CTA, a multicast's fan-out") {
  const trace::Trace t = test::cluster_trace();
  CHECK(analysis::cluster_rank(t.launch(), 2) == 2);
  CHECK(analysis::cluster_index(t.launch(), 3) == 0);
  const analysis::Cluster c = analysis::cluster_of(t, 1, 2);  // request 3: rank 1's split load
  CHECK(c.dims == trace::Dim3{4, 1, 1});
  CHECK(c.clusters == 1);
  REQUIRE(c.ctas.size() == 4);
  for (uint32_t r = 0; r < 4; ++r) CHECK((c.ctas[r].rank == r && c.ctas[r].block == r && c.ctas[r].recorded));
  // Rank 0 → 1: one load of 32 lanes (128 B); rank 1 → 0 and 1 → 2: the same request, 16
  // lanes each; rank 3 → 0: one store.
  REQUIRE(c.links.size() == 4);
  CHECK((c.links[0].from == 0 && c.links[0].to == 1 && c.links[0].loads == 1 && c.links[0].lanes == 32 && c.links[0].bytes == 128));
  CHECK((c.links[1].from == 1 && c.links[1].to == 0 && c.links[1].loads == 1 && c.links[1].lanes == 16 && c.links[1].bytes == 64));
  CHECK((c.links[2].from == 1 && c.links[2].to == 2 && c.links[2].lanes == 16));
  CHECK((c.links[3].from == 3 && c.links[3].to == 0 && c.links[3].stores == 1 && c.links[3].loads == 0));
  CHECK(c.links[0].arrays == std::vector<std::string>{"tile"});
  CHECK(c.request_from == 1);
  CHECK(c.lanes_to == std::vector<uint32_t>{0x0000ffffu, 0, 0xffff0000u, 0});
  // The box rank 0 read lands in rank 1 too, which never issued it: 32 lanes × 16 B.
  REQUIRE(c.fanouts.size() == 1);
  CHECK(c.fanouts[0].from == std::vector<uint32_t>{0});
  CHECK(c.fanouts[0].to == 1);
  CHECK(c.fanouts[0].bytes == 512);
  CHECK(c.fanouts[0].line == 5);
  // A request of this CTA's own memory lights no lanes.
  const analysis::Cluster own = analysis::cluster_of(t, 0, 0);
  CHECK(own.lanes_to == std::vector<uint32_t>(4, 0));
}

TEST_CASE("the cluster view draws the CTAs, the arrows' counts and the request's lanes, its texts apart, and takes the DRAM view's place") {
  auto m = cluster_session();
  for (bool present : {false, true}) {
    CAPTURE(present);
    ui::HeadlessContext ctx(1280, 720);
    ui::ThemeScope theme(present ? ui::kThemePresentation : ui::kThemeDark);
    for (ImVec2 size : {ImVec2(520, 300), ImVec2(1100, 560)}) {
      CAPTURE(size.x);
      ui::Scene sc;
      ui::cluster_scene(sc, *m, 2, size);
      const std::set<std::string> texts = texts_of(sc);
      for (const char* want : {"rank 0", "rank 1", "rank 2", "rank 3"}) CHECK(texts.count(want) == 1);
      if (size.x > 1000) {
        CHECK(texts.count("cluster 1 of 1 · 4×1×1 CTAs · this request: rank 1 (block 1) → rank 0, lanes 0–15 → rank 2, "
                          "lanes 16–31") == 1);
        CHECK(texts.count("1 load · 128 B") == 1);
        CHECK(texts.count("1 store · 128 B") == 1);  // over the row: ranks 3 and 0 are not neighbours
        CHECK(texts.count("TMA multicast, line 5 · 512 B") == 1);
      }
      ui::SceneChunk chunk{sc, ImVec2(0, 0), size};
      for (const std::string& problem : test::text_problems(test::texts_of({chunk}))) FAIL_CHECK(problem);
    }
  }
  // A launch without clusters: one line says so.
  ui::HeadlessContext fonts(1280, 720);
  ui::Scene none;
  analysis::DramModel dram;
  auto plain = session::Session::from_trace(std::make_shared<const trace::Trace>(test::pipeline_trace()), dram);
  ui::cluster_scene(none, *plain, 0, ImVec2(600, 300));
  REQUIRE(!none.items.empty());
  CHECK(none.items[0].text == "this launch has no thread block clusters");

  // The warp inspector on rank 1's request: lanes and bytes, never a sector or a wavefront.
  const session::RequestFigures rv = m->request(2);
  CHECK_FALSE(rv.modelled);
  CHECK(rv.g.sectors == 0);
  ui::Scene warp;
  ui::warp_panel_scene(warp, rv, ImVec2(600, 420));
  const std::set<std::string> wt = texts_of(warp);
  CHECK(wt.count("lanes into another CTA") == 1);
  CHECK(wt.count("no cost model") == 1);
  CHECK(wt.count("tile (CTA rank 0)") == 1);
  CHECK(wt.count("tile (CTA rank 2)") == 1);
  for (const std::string& s : wt) {  // (the lines that say none is modelled name them)
    CHECK(s.find("sectors (ideal") == std::string::npos);
    CHECK(s.find("wavefronts (ideal") == std::string::npos);
  }

  // The source gutter: another CTA's array by rank, no cost (ratio 1), kept whole where
  // the gutter keeps costs only.
  const session::SourceText& src = m->main_source();
  REQUIRE(src.stats.count(3));
  std::vector<std::string> parts;
  for (const auto& part : src.stats.at(3).parts) {
    parts.push_back(part.text);
    CHECK(part.ratio == 1);
  }
  CHECK(parts == std::vector<std::string>{"→ rank 1", "→ rank 0"});

  // The app: the trace saved and opened; the cluster view in the DRAM view's place, 9 enlarges it.
  const auto dir = std::filesystem::temp_directory_path() / ("warpscope-test-cluster-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "cluster.wstrace").string();
  trace::write_trace(test::cluster_trace(), path);
  ui::HeadlessContext& ctx = fonts;
  ui::Ui u(test::quiet_env());
  u.open_file(path);
  test::settle(ctx, u);
  REQUIRE(u.has_model());
  ctx.frame(u);
  CHECK(u.state.cluster);
  bool shown = false, other = false;
  for (const auto& d : u.drawn())
    shown |= d.panel == ui::Panel::Cluster, other |= d.panel == ui::Panel::Dram || d.panel == ui::Panel::Pipeline;
  CHECK(shown);
  CHECK_FALSE(other);
  ctx.type(ImWchar('9'));
  ctx.frame(u);
  CHECK(u.state.enlarged == int(ui::Panel::Cluster));
  std::filesystem::remove_all(dir);
}

TEST_CASE("the cluster view exports as a figure: the same scene, under its caption") {
  ui::HeadlessContext ctx(1280, 720);
  ui::FigureView view;
  REQUIRE(ui::figure_view_from_key("cluster", view));
  CHECK(view == ui::FigureView::Cluster);
  const ui::Figure f = ui::render_figure(cluster_session(), 2, view, 1280, 720, "four CTAs of one cluster");
  const std::set<std::string> texts = test::figure_texts(f);
  CHECK(texts.count("rank 3") == 1);
  CHECK(texts.count("four CTAs of one cluster") == 1);
  for (const std::string& problem : test::text_problems(test::texts_of(f.chunks))) FAIL_CHECK(problem);
}

TEST_CASE("a cluster whose CTAs reach nothing of each other's says so where it clears the key, in little height too") {
  // cluster_trace with only its CTAs' own accesses: no distributed shared memory, no multicast.
  trace::Trace t = test::cluster_trace();
  std::vector<trace::Record> own;
  for (const trace::Record& r : t.records) {
    const trace::Site& s = t.sites[r.site];
    if (s.space != trace::Space::Cluster && s.form != trace::Form::BulkRead && s.form != trace::Form::BulkWrite) own.push_back(r);
  }
  REQUIRE(!own.empty());
  t.records = own;
  analysis::DramModel dram;
  auto m = session::Session::from_trace(std::make_shared<const trace::Trace>(std::move(t)), dram);
  ui::HeadlessContext ctx(1280, 720);
  for (ImVec2 size : {ImVec2(390, 150), ImVec2(390, 200), ImVec2(600, 320)}) {
    CAPTURE(size.y);
    ui::Scene sc;
    ui::cluster_scene(sc, *m, 0, size);
    ui::SceneChunk chunk{sc, ImVec2(0, 0), size};
    for (const std::string& problem : test::text_problems(test::texts_of({chunk}))) FAIL_CHECK(problem);
    // No arrow into another CTA's shared memory is drawn: none is keyed.
    for (const auto& i : sc.items) CHECK(i.text.find("distributed shared memory):") == std::string::npos);
  }
}
