// tests/gui/test_pipeline_view.cpp — the pipeline view, headless, on the hand-built ring of
// tests/tensor_traces.h (pipeline_trace): four TMA boxes into two stages, their landings
// at the consumer's waits, its wgmma after each; the figures on paper, the scene's words,
// and the app giving the view the DRAM view's place for a launch with bulk copies.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <unistd.h>

#include "../tensor_traces.h"
#include "analysis/pipeline.h"
#include "program/program.h"
#include "session/session.h"
#include "trace/wstrace.h"
#include "ui/figure/figure.h"
#include "ui/figure/headless.h"
#include "ui/ui.h"
#include "ui/controls.h"
#include "text_rules.h"
#include "ui_test.h"

using namespace ws;

namespace {

std::shared_ptr<const session::Session> ring_session() {
  analysis::DramModel dram;
  return session::Session::from_trace(std::make_shared<const trace::Trace>(test::pipeline_trace()), dram);
}

}  // namespace

TEST_CASE("a ring of two stages filled by TMA: four boxes into two slots, each landing at the consumer's wait") {
  const trace::Trace t = test::pipeline_trace();
  const analysis::Pipeline p = analysis::pipeline_of(t, analysis::follow_copies(t), 0);
  REQUIRE(p.slots.size() == 2);
  CHECK(p.first == 0);
  CHECK(p.last == t.records.size() - 1);
  for (size_t s = 0; s < 2; ++s) {
    CAPTURE(s);
    CHECK(p.slots[s].buffer == 1);
    CHECK(p.slots[s].offset == 1024 * s);
    CHECK(p.slots[s].bytes == 1024);
    REQUIRE(p.slots[s].boxes.size() == 2);
    for (const analysis::PipelineBox& b : p.slots[s].boxes) {
      CHECK(b.warp == 0);
      CHECK(b.bytes == 1024);
      CHECK(b.issued < b.landed);
    }
    // Refilled only after it landed: the second box's issue follows the first one's landing.
    CHECK(p.slots[s].boxes[0].landed < p.slots[s].boxes[1].issued);
  }
  // Records on paper: boxes 0 and 1 issued (0-3), box 0 lands (4-5), box 2 issued (6-7),
  // box 1 lands (8-9), box 3 issued (10-11), boxes 2 and 3 land (12-13, 14-15).
  CHECK(p.slots[0].boxes[0].issued == 0);
  CHECK(p.slots[0].boxes[0].landed == 4);
  CHECK(p.slots[0].boxes[1].issued == 6);
  CHECK(p.slots[0].boxes[1].landed == 12);
  CHECK(p.slots[1].boxes[1].issued == 10);
  CHECK(p.warps == std::vector<uint32_t>{0, 4});
  size_t waits = 0, wgmma = 0;
  for (const analysis::PipelineTick& k : p.ticks) {
    (k.form == trace::Form::Mma ? wgmma : waits) += 1;
    if (k.form == trace::Form::Mma) CHECK(k.warp == 4);
  }
  CHECK(wgmma == 4);
  CHECK(waits == 4 + 2);
  // The first wgmma sits right after box 0 landed, among the producer's requests.
  for (const analysis::PipelineTick& k : p.ticks)
    if (k.form == trace::Form::Mma) {
      CHECK(k.step == 6);
      break;
    }
  // The stages' mbarriers: each phase completed by a box's 1 KiB, right after its issue (box
  // 0 at request 2, box 2 at 8), the consumer's waits naming them, not the producer's.
  REQUIRE(p.barriers.size() == 2);
  CHECK(p.barriers[0].offset == 2048);
  CHECK(p.barriers[1].offset == 2056);
  for (const analysis::PipelineBarrier& b : p.barriers) {
    REQUIRE(b.phases.size() == 2);
    CHECK(b.waits.size() == 2);
    for (const analysis::PipelinePhase& ph : b.phases) {
      CHECK(ph.bytes == 1024);
      CHECK(ph.warp == 0);
    }
    for (const analysis::PipelineTick& w : b.waits) CHECK(w.warp == 4);
  }
  CHECK(p.barriers[0].phases[0].step == 2);
  CHECK(p.barriers[0].phases[1].step == 8);
}

TEST_CASE("a session keeps each block's pipeline: computed once, the same on every ask, fresh for a new analysis") {
  const auto m = ring_session();
  const auto p = m->pipeline(0);
  REQUIRE(p);
  CHECK(p.get() == m->pipeline(0).get());  // kept, not made again each frame
  CHECK(p->slots.size() == 2);
  CHECK(p->block == 0);
  const auto again = m->reanalyzed(analysis::DramModel{});
  const auto q = again->pipeline(0);
  CHECK(q.get() != p.get());
  CHECK(q->slots.size() == p->slots.size());
  CHECK(q->ticks.size() == p->ticks.size());
}

TEST_CASE("the pipeline view names its block, slots and warps, keeps its texts apart, and takes the DRAM view's place") {
  auto m = ring_session();
  for (bool present : {false, true}) {
    CAPTURE(present);
    ui::HeadlessContext ctx(1280, 720);
    ui::ThemeScope theme(present ? ui::kThemePresentation : ui::kThemeDark);
    for (ImVec2 size : {ImVec2(420, 260), ImVec2(900, 500)}) {
      CAPTURE(size.x);
      ui::Scene sc;
      ui::pipeline_scene(sc, *m, 5, size);
      std::set<std::string> texts;
      for (const auto& i : sc.items)
        if (i.kind == ui::Scene::Kind::Text) texts.insert(i.text);
      if (size.x > 800) CHECK(texts.count("block (0,0) · 4 TMA boxes into 2 slots of shared memory · requests 1–16") == 1);
      // A slot names the array its boxes came from.
      for (const char* row : {"ring +0 B ← A", "ring +1.0 KiB ← A", "mbarrier +2,048 B", "mbarrier +2,056 B", "warp 0", "warp 4"})
        CHECK(texts.count(row) == 1);
      CHECK(texts.count("in flight: issued → landed at a wait") == 1);
      ui::SceneChunk chunk{sc, ImVec2(0, 0), size};
      for (const std::string& problem : test::text_problems(test::texts_of({chunk}))) FAIL_CHECK(problem);
    }
  }
  // A launch without bulk copies: one line says so.
  ui::HeadlessContext fonts(1280, 720);
  ui::Scene none;
  analysis::DramModel dram;
  auto plain = session::Session::from_trace(std::make_shared<const trace::Trace>(test::tensor_trace(false)), dram);
  ui::pipeline_scene(none, *plain, 0, ImVec2(600, 300));
  REQUIRE(!none.items.empty());
  CHECK(none.items[0].text == "block (0,0) made no bulk copy (TMA): no ring to draw");

  // The app: the trace saved and opened; the pipeline in the DRAM view's place, 9 enlarges it.
  const auto dir = std::filesystem::temp_directory_path() / ("warpscope-test-pipeline-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "ring.wstrace").string();
  trace::write_trace(test::pipeline_trace(), path);
  ui::HeadlessContext& ctx = fonts;
  ui::Ui u(test::quiet_env());
  u.open_file(path);
  test::settle(ctx, u);
  REQUIRE(u.has_model());
  ctx.frame(u);
  CHECK(u.state.pipeline);
  bool shown = false, dram_shown = false;
  for (const auto& d : u.drawn()) shown |= d.panel == ui::Panel::Pipeline, dram_shown |= d.panel == ui::Panel::Dram;
  CHECK(shown);
  CHECK_FALSE(dram_shown);
  u.enlarge(ui::Panel::Pipeline);
  const auto big = test::frame_texts(ctx, u);
  CHECK(big.count("block (0,0) · 4 TMA boxes into 2 slots of shared memory · requests 1–16") == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("the pipeline view exports as a figure: the same scene, under its caption") {
  ui::HeadlessContext ctx(1280, 720);
  ui::FigureView view;
  REQUIRE(ui::figure_view_from_key("pipeline", view));
  CHECK(view == ui::FigureView::Pipeline);
  const ui::Figure f = ui::render_figure(ring_session(), 5, view, 1280, 720, "a ring of two stages");
  const std::set<std::string> texts = test::figure_texts(f);
  CHECK(texts.count("block (0,0) · 4 TMA boxes into 2 slots of shared memory · requests 1–16") == 1);
  CHECK(texts.count("a ring of two stages") == 1);
  for (const std::string& problem : test::text_problems(test::texts_of(f.chunks))) FAIL_CHECK(problem);
}

TEST_CASE("the pipeline view's key names only the kinds of tick the block has: no mma for a ring that runs none") {
  trace::Trace t = test::pipeline_trace();
  std::vector<trace::Event> kept;
  for (const trace::Event& e : t.events)
    if (t.event_sites[e.site].form != trace::Form::Mma) kept.push_back(e);
  REQUIRE(kept.size() < t.events.size());
  t.events = kept;
  analysis::DramModel dram;
  auto m = session::Session::from_trace(std::make_shared<const trace::Trace>(std::move(t)), dram);
  ui::HeadlessContext ctx(1280, 720);
  ui::Scene sc;
  ui::pipeline_scene(sc, *m, 0, ImVec2(900, 400));
  bool mma = false, wait = false;
  for (const auto& i : sc.items)
    if (i.kind == ui::Scene::Kind::Text) mma |= i.text == "mma / wgmma", wait |= i.text == "wait";
  CHECK_FALSE(mma);
  CHECK(wait);
}

TEST_CASE("the warp inspector numbers a bulk copy's record by its pieces, not lanes: one thread issued it") {
  const auto m = ring_session();
  ui::HeadlessContext ctx(1280, 720);
  bool seen = false;
  for (uint64_t i = 0; i < m->size() && !seen; ++i) {
    const trace::Site& s = m->trace().sites[m->trace().records[i].site];
    if (s.form != trace::Form::BulkRead) continue;
    seen = true;
    const session::RequestFigures rv = m->request(i);
    ui::Scene sc;
    ui::warp_scene(sc, rv, ImVec2(600, 300));
    bool piece = false, lane = false;
    for (const auto& it : sc.items) {
      piece |= it.text.rfind("piece 0", 0) == 0;
      lane |= it.text.rfind("lane 0", 0) == 0;
    }
    CHECK(piece);
    CHECK_FALSE(lane);
  }
  CHECK(seen);
}

TEST_CASE("the pipeline view names an mbarrier by the shared array holding it, where the trace knows its place") {
  trace::Trace t = test::pipeline_trace();
  trace::Buffer full = trace::shared_buffer("ring_kernel::full", 8, 1, 2, 16);
  full.shared_offset = 2048;  // the two mbarriers at 2,048 and 2,056
  t.buffers.push_back(full);
  trace::Buffer all = trace::shared_buffer("shared memory", 4, 1, 1024, 4096);
  all.shared_offset = 0;  // the whole of shared memory holds them too: the smaller array names them
  t.buffers.push_back(all);
  analysis::DramModel dram;
  auto m = session::Session::from_trace(std::make_shared<const trace::Trace>(std::move(t)), dram);
  ui::HeadlessContext ctx(1280, 720);
  ui::Scene sc;
  ui::pipeline_scene(sc, *m, 5, ImVec2(900, 500));
  std::set<std::string> texts;
  for (const auto& i : sc.items)
    if (i.kind == ui::Scene::Kind::Text) texts.insert(i.text);
  CHECK(texts.count("full[0]") == 1);
  CHECK(texts.count("full[1]") == 1);
  CHECK(texts.count("mbarrier +2,048 B") == 0);
}

TEST_CASE("a TMA store's row is the shared box it reads, named with the global array it writes") {
  if (program::find_nvcc().empty()) return;
  session::LaunchSpec spec;
  spec.program.source = "tests/programs/tma_store.cu";
  spec.program.echo = false;
  spec.backend = "emulator";
  auto m = session::record_session(spec);
  REQUIRE(m);
  ui::HeadlessContext ctx(1280, 720);
  ui::ThemeScope theme(ui::kThemeDark);
  ui::Scene sc;
  ui::pipeline_scene(sc, *m, 0, ImVec2(900, 500));
  std::set<std::string> texts;
  for (const auto& i : sc.items)
    if (i.kind == ui::Scene::Kind::Text) texts.insert(i.text);
  // One box loaded into `a`; the transposed box read from `b` and written to d_out (it
  // used to be drawn as a box landing in a shared slot named d_out).
  CHECK(texts.count("block (0,0) · 1 TMA box into 1 slot of shared memory · 1 TMA store back · requests 1–96") == 1);
  CHECK(texts.count("a +0 B ← d_in") == 1);
  CHECK(texts.count("b +0 B → d_out") == 1);
  ui::SceneChunk chunk{sc, ImVec2(0, 0), ImVec2(900, 500)};
  for (const std::string& problem : test::text_problems(test::texts_of({chunk}))) FAIL_CHECK(problem);
}
