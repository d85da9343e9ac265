// tests/gui/test_tensor_views.cpp — the views of a tensor-core tile loop, headless, on the
// hand-built trace of tests/tensor_traces.h: the warp inspector's ldmatrix phases (8-way
// in a plain tile, conflict-free swizzled), the fragment view's cells, the memory view's
// source-column tint and an async copy's other half, the timeline's commit and wait marks,
// and the whole app on the trace saved as a .wstrace.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <unistd.h>

#include "../tensor_traces.h"
#include "trace/wstrace.h"
#include "ui/figure/headless.h"
#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"
#include "text_rules.h"
#include "ui_test.h"

using namespace ws;

namespace {

std::shared_ptr<const session::Session> session_of(bool swizzled, trace::Trace t = {}) {
  if (t.records.empty()) t = test::tensor_trace(swizzled);
  analysis::DramModel dram;
  return session::Session::from_trace(std::make_shared<const trace::Trace>(std::move(t)), dram);
}

std::set<std::string> texts_of(const ui::Scene& sc) {
  std::set<std::string> out;
  for (const auto& i : sc.items)
    if (i.kind == ui::Scene::Kind::Text) out.insert(i.text);
  return out;
}

// The records of the trace: 16 reads, 16 landed writes, then the two ldmatrix.
constexpr uint64_t kFirstWrite = 16, kLdmatrix = 32;

}  // namespace

TEST_CASE("the warp inspector shows an ldmatrix's four matrices: 8-way plain, one wavefront each swizzled") {
  ui::HeadlessContext ctx(1280, 720);
  for (bool swizzled : {false, true}) {
    CAPTURE(swizzled);
    auto m = session_of(swizzled);
    const session::RequestFigures rv = m->request(kLdmatrix);
    REQUIRE(rv.matrix.size() == 4);
    ui::Scene sc;
    ui::warp_panel_scene(sc, rv, ImVec2(560, 900));
    const auto texts = texts_of(sc);
    for (int k = 0; k < 4; ++k) {
      const std::string lanes = std::to_string(8 * k) + "–" + std::to_string(8 * k + 7);
      const std::string title = "matrix " + std::to_string(k) + " · lanes " + lanes + " → rows 0–7 · " +
                                (swizzled ? "1 wavefront" : "8 wavefronts");
      CHECK(texts.count(title) == 1);
    }
    CHECK(texts.count("8-way") == (swizzled ? 0u : 1u));
    CHECK(texts.count(swizzled ? "4" : "32") == 1);  // the wavefronts card
    // Rows that meet are rimmed in red: all 32 in the plain tile, none swizzled.
    int rims = 0;
    for (const auto& i : sc.items)
      if (i.kind == ui::Scene::Kind::Rect && i.color == ui::theme().bad && i.width == 1.5f) ++rims;
    CHECK(rims == (swizzled ? 0 : 32));
    // Short: each matrix's stack of thin bars shares one rim.
    ui::Scene low;
    ui::warp_panel_scene(low, rv, ImVec2(560, 330));
    rims = 0;
    for (const auto& i : low.items)
      if (i.kind == ui::Scene::Kind::Rect && i.color == ui::theme().bad && i.width == 1.5f) ++rims;
    CHECK(rims == (swizzled ? 0 : 4));
    // At every height, the four matrices alike: where one shows its lanes, all do (the last
    // matrix, which carries the bank numbers, lost its lanes L24-L31 first).
    for (float h : {300.0f, 360.0f, 420.0f, 480.0f, 560.0f, 700.0f}) {
      CAPTURE(h);
      ui::Scene at;
      ui::warp_panel_scene(at, rv, ImVec2(560, h));
      int shown[4] = {};
      for (const auto& i : at.items)
        if (i.kind == ui::Scene::Kind::Fill && i.round == 3 && i.b.y - i.a.y >= 10 && i.b.y - i.a.y <= 20)
          for (int l = 0; l < 32; ++l)
            if (i.color == ui::lane_color(l)) ++shown[l / 8];
      CHECK(shown[3] == shown[0]);
      CHECK(shown[1] == shown[0]);
    }
  }
}

TEST_CASE("the fragment view names the lane and register of every element of A, B and C") {
  ui::HeadlessContext ctx(1280, 720);
  auto m = session_of(false);
  ui::Scene sc;
  const ui::FragmentHit none = ui::fragment_scene(sc, *m, kLdmatrix, 0, ImVec2(1200, 720), ImVec2(-1, -1));
  CHECK(none.lane == -1);
  const auto texts = texts_of(sc);
  CHECK(texts.count("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == 1);
  CHECK(texts.count("A: 16×16 · .f16 · 4 registers a lane") == 1);
  CHECK(texts.count("B: 16×8 · .f16 · 2 registers a lane") == 1);
  CHECK(texts.count("C/D: 16×8 · .f32 · 4 registers a lane") == 1);
  CHECK(texts.count("block (0,0) · warp 0 · line 14 · the warp's next mma after this request") == 1);
  for (int lane : {0, 17, 31}) CHECK(texts.count(std::to_string(lane)) == 1);
  CHECK(texts.count("r3") == 1);
  // The cells, row-major A then B then C, each its lane's colour; lane 0 lit, the others faded.
  std::vector<const ui::Scene::Item*> cells;
  for (const auto& i : sc.items)
    if (i.kind == ui::Scene::Kind::Fill) cells.push_back(&i);
  REQUIRE(cells.size() == 16 * 16 + 16 * 8 + 16 * 8);
  CHECK(cells[0]->color == ui::lane_color(0));
  CHECK(cells[2]->color == ui::lane_color(1, 110));  // A (0, 2): lane 1's a0
  // The element under the pointer: A (8, 9) is lane 0's a7, in its register 3.
  const ui::Scene::Item& a89 = *cells[8 * 16 + 9];
  const ImVec2 mid((a89.a.x + a89.b.x) * 0.5f, (a89.a.y + a89.b.y) * 0.5f);
  ui::Scene probe;
  const ui::FragmentHit h = ui::fragment_scene(probe, *m, kLdmatrix, -1, ImVec2(1200, 720), mid);
  CHECK(h.lane == 0);
  CHECK(h.matrix == 'A');
  CHECK(h.row == 8);
  CHECK(h.col == 9);
  CHECK(h.cell.elem == 7);
  CHECK(h.cell.reg == 3);
  // B (9, 3): lane 12 (group 3, place 0) holds b3 there.
  const ui::Scene::Item& b93 = *cells[256 + 9 * 8 + 3];
  const ui::FragmentHit hb =
      ui::fragment_scene(probe, *m, kLdmatrix, -1, ImVec2(1200, 720), ImVec2(b93.a.x + 2, b93.a.y + 2));
  CHECK(hb.matrix == 'B');
  CHECK(hb.lane == 12);
  CHECK(hb.cell.elem == 3);
}

TEST_CASE("a producer warp's request shows the block's wgmma over the warpgroup's four warps") {
  ui::HeadlessContext ctx(1280, 720);
  // Every request is warp 0's (the TMA producer); warp 4 runs the wgmmas.
  auto m = session_of(false, test::pipeline_trace());
  ui::Scene sc;
  ui::fragment_scene(sc, *m, 5, -1, ImVec2(1200, 720), ImVec2(-1, -1));
  const auto texts = texts_of(sc);
  CHECK(texts.count("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16") == 1);
  bool nearest = false;
  for (const std::string& s : texts) nearest |= s.find("warp 4 · line 4 · the block's mma nearest this request (warp 0 ran none)") != std::string::npos;
  CHECK(nearest);
  for (int w = 4; w < 8; ++w) CHECK(texts.count("warp " + std::to_string(w)) == 1);  // D's bands
  // The cells: A (64×16, from shared memory), B (16×32), then D's 64×32 over the lanes.
  std::vector<const ui::Scene::Item*> cells;
  for (const auto& i : sc.items)
    if (i.kind == ui::Scene::Kind::Fill) cells.push_back(&i);
  REQUIRE(cells.size() == 64 * 16 + 16 * 32 + 64 * 32);
  const size_t d0 = 64 * 16 + 16 * 32;
  // D (41, 2): warp 6's lane 5 (its row 9), register 2; warp 4's band at full strength.
  const ui::Scene::Item& c = *cells[d0 + 41 * 32 + 2];
  CHECK(c.color == ui::lane_color(5, 70));
  CHECK(cells[d0 + 9 * 32 + 2]->color == ui::lane_color(5));
  ui::Scene probe;
  const ui::FragmentHit h =
      ui::fragment_scene(probe, *m, 5, -1, ImVec2(1200, 720), ImVec2((c.a.x + c.b.x) * 0.5f, (c.a.y + c.b.y) * 0.5f));
  CHECK(h.matrix == 'C');
  CHECK(h.lane == 5);
  CHECK(h.warp == 6);
  CHECK(h.row == 41);
  CHECK(h.cell.reg == 2);
  // Too little height for four bands at cells of 8 px: the mma's own warp's 16 rows alone, said.
  ui::Scene low;
  ui::fragment_scene(low, *m, 5, -1, ImVec2(1200, 300), ImVec2(-1, -1));
  CHECK(texts_of(low).count("warp 4's rows 0–15 alone: enlarge the panel for all four warps") == 1);
  size_t fills = 0;
  for (const auto& i : low.items) fills += i.kind == ui::Scene::Kind::Fill;
  CHECK(fills == 16 * 16 + 16 * 32 + 16 * 32);
}

TEST_CASE("the fragment view says why it draws nothing, in one line") {
  ui::HeadlessContext ctx(1280, 720);
  trace::Trace t = test::tensor_trace(false);
  t.event_sites[2].instruction = "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32";
  auto m = session_of(false, t);
  ui::Scene sc;
  ui::fragment_scene(sc, *m, kLdmatrix, 0, ImVec2(1200, 720), ImVec2(-1, -1));
  bool said = false;
  for (const std::string& s : texts_of(sc)) said |= s.find("no fragment layout for 'wmma.mma") == 0;
  CHECK(said);
  t.events.clear();
  t.event_sites.clear();
  auto none = session_of(false, t);
  CHECK(!ui::has_mma(*none));
  ui::Scene sn;
  ui::fragment_scene(sn, *none, 0, 0, ImVec2(1200, 720), ImVec2(-1, -1));
  CHECK(texts_of(sn).count("no mma in this launch") == 1);
}

TEST_CASE("the memory view tints the shared tile by source chunk and rims an async copy's other half") {
  ui::HeadlessContext ctx(1280, 720);
  for (bool swizzled : {false, true}) {
    CAPTURE(swizzled);
    auto m = session_of(swizzled);
    const session::RequestFigures rv = m->request(kLdmatrix);
    ui::MemoryViewState st;
    st.heat = false;
    st.source_columns = true;
    const ui::MemoryLayout L = ui::memory_layout(*m, rv, st, ImVec2(700, 500));
    const ui::MemoryLayout::Slot* tile = nullptr;
    for (const auto& s : L.slots)
      if (s.buffer == 1 && !s.tile) tile = &s;
    REQUIRE(tile);
    ui::Scene canvas, labels;
    ui::memory_slot_scene(canvas, labels, *m, rv, st, L, *tile);
    // The tint of cell (41, 0) (chunk 0 of row 41, which no lane of the ldmatrix reads): chunk
    // 0 of its global row plainly, chunk 0 ^ (41 & 7) = 1 swizzled.
    const float inset = tile->cell >= 8 ? 1.0f : 0.0f;
    const ImVec2 at(tile->origin.x + inset, tile->origin.y + 41 * tile->cell + inset);
    int found = 0;
    for (const auto& i : canvas.items)
      if (i.kind == ui::Scene::Kind::Fill && std::abs(i.a.x - at.x) < 0.01f && std::abs(i.a.y - at.y) < 0.01f) {
        CHECK(i.color == ui::source_chunk_color(swizzled ? 8 : 0, 2, 140));
        ++found;
      }
    CHECK(found == 1);
    // Off: no tint.
    st.source_columns = false;
    ui::Scene plain, plain_labels;
    ui::memory_slot_scene(plain, plain_labels, *m, rv, st, L, *tile);
    CHECK(canvas.items.size() - plain.items.size() == size_t(tile->row1 - tile->row0) * (tile->col1 - tile->col0));
  }
  // Before the copies land, nothing is tinted; a landed write names its read and rims it.
  auto m = session_of(true);
  const session::RequestFigures w = m->request(kFirstWrite);
  CHECK(w.partner == 0);
  CHECK(ui::partner_text(w) == "copy issued at request 1, landed at request 17");
  CHECK(ui::partner_text(m->request(0)) == "copy issued at request 1, landed at request 17");
  CHECK(ui::partner_text(m->request(kLdmatrix)).empty());
  ui::MemoryViewState st;
  st.heat = false;
  st.source_columns = true;
  const ui::MemoryLayout L = ui::memory_layout(*m, w, st, ImVec2(700, 500));
  for (const auto& s : L.slots) {
    if (s.tile || s.buffer != 0) continue;
    ui::Scene canvas, labels;
    ui::memory_slot_scene(canvas, labels, *m, w, st, L, s);
    int rims = 0;
    for (const auto& i : canvas.items)
      if (i.kind == ui::Scene::Kind::Rect && i.color == ui::lane_color(5)) ++rims;
    CHECK(rims >= 1);  // lane 5's 16 bytes of the global read
  }
}

TEST_CASE("the timeline marks the commit, the wait and the mma at their requests") {
  ui::HeadlessContext ctx(1280, 720);
  auto m = session_of(true);
  const auto marks = ui::timeline_marks(*m, 340);  // 34 requests: 10 px each
  REQUIRE(marks.size() == 3);
  CHECK(marks[0].kind == trace::Form::Commit);
  CHECK(marks[0].step == 16);
  CHECK(marks[0].x == doctest::Approx(165));
  CHECK(marks[1].kind == trace::Form::Wait);
  CHECK(marks[1].step == 16);
  CHECK(marks[2].kind == trace::Form::Mma);
  CHECK(marks[2].step == 33);
  CHECK(marks[2].x == doctest::Approx(335));
  // Narrow: still one of each kind where their columns differ, never two in one column.
  CHECK(ui::timeline_marks(*m, 2).size() == 3);
  CHECK(ui::timeline_marks(*m, 0).empty());
}

TEST_CASE("the app opens the tile trace from a file: fragment panel in place of the DRAM view, the views drawn") {
  const auto dir = std::filesystem::temp_directory_path() / ("warpscope-test-tensor-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "tile.wstrace").string();
  trace::write_trace(test::tensor_trace(true), path);
  for (bool present : {false, true}) {
    ui::HeadlessContext ctx(1280, 720);
    ui::Ui u(test::quiet_env());
    u.open_file(path);
    test::settle(ctx, u);
    REQUIRE(u.has_model());
    if (present) u.toggle_presentation();
    u.set_step(kLdmatrix);
    test::settle(ctx, u);
    const auto texts = test::frame_texts(ctx, u);
    // (at 1280x720 the four matrices go in two columns, their lanes kept, the title shorter)
    CHECK(texts.count("matrix 0 · lanes 0–7 → rows 0–7 · 1 wavefront") + texts.count("matrix 0 · lanes 0–7 · 1 wavefront") +
              texts.count("matrix 0 · 1 wavefront") + texts.count("matrix 0") == 1);
    // Every lane named, matrices 2 and 3 too: "L24", or "24" where "L31" does not fit a box.
    for (const char* lane : {"0", "9", "16", "24", "31"}) CHECK(texts.count(std::string("L") + lane) + texts.count(lane) >= 1);
    CHECK(u.state.fragments);
    if (!present) CHECK(texts.count("A: 16×16 · .f16") + texts.count("A: 16×16 · .f16 · 4 registers a lane") == 1);
    // On a projector every lane is named (the words above give way) and the banks numbered.
    if (present) {
      for (const char* lane : {"L0", "L8", "L16", "L24", "L31"}) CHECK(texts.count(lane) == 1);
      CHECK(texts.count("28") == 1);
    }
    // 8 enlarges the fragment panel.
    u.enlarge(ui::Panel::Fragments);
    const auto big = test::frame_texts(ctx, u);
    CHECK(big.count("C/D: 16×8 · .f32") + big.count("C/D: 16×8 · .f32 · 4 registers a lane") == 1);
    CHECK(big.count("A: 16×16 · .f16 · 4 registers a lane") == 1);
    for (int i = 0; i < 30; ++i) ctx.frame(u);
  }
  std::filesystem::remove_all(dir);
}

namespace {

// Texts of a frame that overlap another, run out of their clip, or are under 11 px (the
// rules of tests/gui/text_rules.h); the source panel's mono code lines scroll sideways, so
// any mono text may run past its right edge.
std::vector<std::string> text_problems(const std::vector<ui::SceneChunk>& chunks) {
  return test::text_problems(test::texts_of(chunks), ImVec2(0, 0), ImVec2(1e9f, 1e9f));
}

}  // namespace

TEST_CASE("the tile trace's panels keep their texts whole and apart at both sizes, normal and presentation") {
  const auto dir = std::filesystem::temp_directory_path() / ("warpscope-test-tensor-l-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (bool swizzled : {false, true}) {
    const std::string path = (dir / (swizzled ? "s.wstrace" : "p.wstrace")).string();
    trace::write_trace(test::tensor_trace(swizzled), path);
    for (ImVec2 size : {ImVec2(1280, 720), ImVec2(1920, 1080)})
      for (bool present : {false, true}) {
        ui::HeadlessContext ctx(size.x, size.y);
        ui::Ui u(test::quiet_env());
        u.open_file(path);
        test::settle(ctx, u);
        REQUIRE(u.has_model());
        u.state.present = present;
        for (uint64_t step : {uint64_t(5), kFirstWrite + 3, kLdmatrix})
          for (int enlarged : {-1, int(ui::Panel::Warp), int(ui::Panel::Fragments), int(ui::Panel::Memory)}) {
            CAPTURE(swizzled);
            CAPTURE(size.x);
            CAPTURE(present);
            CAPTURE(step);
            CAPTURE(enlarged);
            u.set_step(step);
            u.state.enlarged = enlarged;
            test::settle(ctx, u);
            const auto problems = text_problems(test::frame_scenes(ctx, u));
            CHECK(problems.empty());
            for (size_t k = 0; k < problems.size() && k < 5; ++k) MESSAGE(problems[k]);
          }
      }
  }
  std::filesystem::remove_all(dir);
}
