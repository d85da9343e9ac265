// The app on a user's program: opened, a launch picked, the file edited and saved — the
// view rebuilds it in the background and keeps its launch and step. Skipped without nvcc.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "session/report.h"
#include "program/program.h"
#include "ui/theme.h"
#include "ui_test.h"

using namespace ws;

namespace {

uint32_t shared_load_way(const session::Session& s) {
  uint32_t way = 0;
  for (const analysis::SiteStats& st : s.report().sites) {
    const trace::Site& site = s.trace().sites[st.site];
    if (site.space == trace::Space::Shared && site.op == trace::Op::Load) way = std::max(way, st.max_way);
  }
  return way;
}

// Opens `program` in `u` and waits for it; false (with a message) where nvcc is missing.
bool open_settled(ui::HeadlessContext& ctx, ui::Ui& u, const std::string& program) {
  if (program::find_nvcc().empty()) {
    MESSAGE("nvcc not found: skipped");
    return false;
  }
  session::LaunchSpec spec;
  spec.program.source = program;
  spec.program.echo = false;
  u.open_program(spec);
  test::settle(ctx, u);
  return true;
}

}  // namespace

TEST_CASE("a program in the app: [32][32] -> [32][33] saved, the view rebuilds to no conflict on the same launch and step") {
  if (program::find_nvcc().empty()) {
    MESSAGE("nvcc not found: skipped");
    return;
  }
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ws-program-view-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path prog = dir / "transpose.cu";
  fs::copy_file("examples/transpose.cu", prog, fs::copy_options::overwrite_existing);

  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  session::LaunchSpec spec;
  spec.program.source = prog.string();
  spec.program.echo = false;
  u.open_program(spec);
  test::settle(ctx, u);
  REQUIRE(u.pane.model);
  CHECK(u.pane.model->origin() == "program");
  CHECK(u.pane.model->program_output().find("correct") != std::string::npos);  // kept for File → Program output
  REQUIRE(u.pane.model->launches() == 3);
  u.show_launch(1);  // transposeTiled<0>: tile[32][32]
  test::settle(ctx, u);
  REQUIRE(u.pane.model->launch() == 1);
  CHECK(shared_load_way(*u.pane.model) == 32);
  u.set_step(100);
  test::settle(ctx, u);

  // The edit a student makes, saved a moment later.
  std::stringstream text;
  text << std::ifstream(prog).rdbuf();
  std::string src = text.str();
  const std::string from = "__shared__ float tile[TILE][TILE + PAD];";
  REQUIRE(src.find(from) != std::string::npos);
  src.replace(src.find(from), from.size(), "__shared__ float tile[TILE][TILE + PAD + 1];");
  std::ofstream(prog) << src;
  fs::last_write_time(prog, fs::last_write_time(prog) + std::chrono::seconds(2));
  CHECK(u.rebuild_if_saved());
  test::settle(ctx, u);
  REQUIRE(u.pane.model);
  CHECK(u.pane.model->launch() == 1);
  CHECK(u.pane.step == 100);
  CHECK(shared_load_way(*u.pane.model) == 1);
  CHECK_FALSE(u.rebuild_if_saved());  // nothing changed since
  fs::remove_all(dir);
}

TEST_CASE("the source panel follows the request into a header; a memory line opens to its PTX instructions and their costs") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  if (!open_settled(ctx, u, "tests/programs/stencil/stencil.cu")) return;
  REQUIRE(u.pane.model);
  const session::Session& m = *u.pane.model;
  REQUIRE(m.sources().size() >= 2);
  CHECK(m.sources()[0].file == 0);
  const session::SourceText* header = nullptr;
  for (const auto& s : m.sources())
    if (s.name.find("stencil.cuh") != std::string::npos) header = &s;
  REQUIRE(header);
  CHECK_FALSE(header->toolkit);
  REQUIRE(header->stats.count(6));  // weighted(): three shared loads and three constant loads
  CHECK(header->stats.at(6).sites.size() == 6);

  // A request of the header's line: the panel shows the header.
  uint64_t step = 0;
  while (step < m.size() && m.trace().sites[m.trace().records[step].site].file != header->file) ++step;
  REQUIRE(step < m.size());
  u.set_step(step);
  test::settle(ctx, u);
  CHECK(u.pane.source_file == header->file);

  // Opened, the line is followed by one row per instruction, each naming its PTX and cost.
  const auto closed = ui::source_rows(*header, [](uint32_t) { return false; });
  const auto open = ui::source_rows(*header, [](uint32_t line) { return line == 6; });
  REQUIRE(open.size() == closed.size() + 6);
  CHECK(closed.size() == header->lines.size());
  ui::Scene sc;
  ui::source_scene(sc, *u.pane.model, *header, open, u.pane.request(), 0, int(open.size()), 1600, 200);
  int shared = 0, constant = 0;
  for (const auto& it : sc.items) {
    if (it.kind != ui::Scene::Kind::Text) continue;
    shared += it.text.find("ld.shared.f32  stencil1d::s") != std::string::npos;
    constant += it.text.find("ld.const.f32  kWeights") != std::string::npos;
  }
  CHECK(shared == 3);
  CHECK(constant == 3);
  bool cost = false;
  for (const auto& it : sc.items) cost |= it.kind == ui::Scene::Kind::Text && it.text.find("1-way · 1.00 wavefronts/request") == 0;
  CHECK(cost);
}

TEST_CASE("a program with a SASS trace in the replay pack: an opened line shows what the GPU ran beside its PTX") {
  ui::HeadlessContext ctx(1600, 1000);
  ui::Ui u(test::quiet_env());
  if (!open_settled(ctx, u, "tests/programs/matmul_tiled.cu")) return;
  REQUIRE(u.pane.model);
  const session::Session& m = *u.pane.model;
  REQUIRE(m.hardware());  // assets/replay/sass/matmul_tiled.wstrace, recorded on an H100
  const session::SourceText& f = m.sources().at(0);
  REQUIRE(f.stats.count(21));
  REQUIRE(f.stats.at(21).hardware.size() == 1);
  const std::string h = session::hardware_text(f.stats.at(21).hardware[0]);
  CHECK(h.find("H100 ran 512 LDS + 128 LDS.128 a block (PTX: 1024 ld.shared.f32)") == 0);
  CHECK(h.find("merged 4 scalar 4-byte accesses") != std::string::npos);
  // Opened, line 21 is followed by its PTX instructions, then the GPU's row, drawn.
  const auto open = ui::source_rows(f, [](uint32_t line) { return line == 21; });
  int hw = 0;
  for (const auto& r : open) hw += r.hardware >= 0;
  CHECK(hw == 1);
  ui::Scene sc;
  ui::source_scene(sc, m, f, open, u.pane.request(), 0, int(open.size()), 1600, 200);
  bool drawn = false;
  for (const auto& it : sc.items) drawn |= it.kind == ui::Scene::Kind::Text && it.text.find("LDS.128") != std::string::npos;
  CHECK(drawn);
}

namespace {

// Every text item of `chunks` joined by spaces, to look for a message wrapped over lines.
std::string joined_texts(const std::vector<ui::SceneChunk>& chunks) {
  std::string all;
  for (const auto& c : chunks)
    for (const auto& i : c.scene.items)
      if (i.kind == ui::Scene::Kind::Text) all += i.text + " ";
  return all;
}

bool has_fill(const ui::Scene& sc, ImU32 color) {
  for (const auto& i : sc.items)
    if (i.kind == ui::Scene::Kind::Fill && i.color == color) return true;
  return false;
}

}  // namespace

TEST_CASE("an out-of-bounds write opens on its request: banner, marked line, lanes past the edge; fixed, the same launch and step") {
  if (program::find_nvcc().empty()) {
    MESSAGE("nvcc not found: skipped");
    return;
  }
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ws-program-fault-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path prog = dir / "transpose.cu";
  std::stringstream text;
  text << std::ifstream("examples/transpose.cu").rdbuf();
  const std::string good = text.str();
  std::string bad = good;
  const std::string from = "out[x * n + y] = in[y * n + x];";
  REQUIRE(bad.find(from) != std::string::npos);
  bad.replace(bad.find(from), from.size(), "out[y * n + x + 1] = in[y * n + x];");
  std::ofstream(prog) << bad;

  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  session::LaunchSpec spec;
  spec.program.source = prog.string();
  spec.program.echo = false;
  u.open_program(spec);
  test::settle(ctx, u);
  REQUIRE(u.pane.model);
  const program::Problem& p = u.status.problem;
  REQUIRE(p.kind == "out_of_bounds");
  CHECK(p.array == "d_out");
  CHECK(p.offset == 16384);  // out[64 * 64]: one past the last element
  CHECK(p.size == 16384);
  REQUIRE(p.at.size() == 1);
  CHECK(p.at[0].line == 15);
  CHECK(p.at[0].thread[0] == 31);
  CHECK(p.at[0].thread[1] == 31);
  CHECK(p.at[0].block[0] == 1);
  CHECK(p.at[0].block[1] == 1);
  // Opened on the faulting request of the naive launch, which kept its arrays' names.
  CHECK(u.pane.model->launch() == 0);
  REQUIRE(u.pane.model->problem_step() >= 0);
  const uint64_t step = uint64_t(u.pane.model->problem_step());
  CHECK(u.pane.step == step);
  const session::RequestFigures rv = u.pane.model->request(step);
  REQUIRE(rv.buffer);
  CHECK(rv.buffer->name == "d_out");
  CHECK(rv.site->op == trace::Op::Store);
  for (const auto& s : u.pane.model->trace().sites) CHECK(s.buffer != trace::kNoBuffer);

  // The banner, whole; the lanes past the edge in the memory view's scene.
  const std::string all = joined_texts(test::frame_scenes(ctx, u));
  CHECK(all.find("Out-of-bounds write to 'd_out'") != std::string::npos);
  CHECK(all.find("transpose.cu:15 · thread (31,31) of block (1,1), warp 31") != std::string::npos);
  CHECK(all.find("byte offset 16384 in 'd_out' of 16384 bytes") != std::string::npos);
  CHECK(all.find("1 of 32 lanes of the request went past its edge") != std::string::npos);
  CHECK(all.find("past the end of d_out (16384 bytes): lane 31 at byte 16384") != std::string::npos);
  {
    ui::Scene banner;  // the banner as a narrow panel would hold it: wrapped, nothing cut
    ui::problem_banner_scene(banner, p, 420, true);
    CHECK(joined_texts({ui::SceneChunk{banner, {}, {}}}).find("\u2026") == std::string::npos);
  }
  {
    ui::Scene sc, labels;
    const ui::MemoryViewState st = ui::memory_state(u.state, u.pane);
    const ui::MemoryLayout L = ui::memory_layout(*u.pane.model, rv, st, ImVec2(800, 500));
    bool drawn = false;
    for (const auto& s : L.slots)
      if (s.current && !s.tile) {
        ui::memory_slot_scene(sc, labels, *u.pane.model, rv, st, L, s);
        // Lane 31's cell, where row 64 of the grid would be, rimmed as outside.
        for (const auto& i : sc.items)
          drawn |= i.kind == ui::Scene::Kind::Rect && i.color == ui::theme().bad &&
                   i.a.y >= s.origin.y + 64 * s.cell - 0.5f;
      }
    CHECK(drawn);
  }
  // The line marked in the source panel.
  CHECK(session::problem_line(*u.pane.model, 0) == 15);
  {
    const session::SourceText& f = u.pane.model->main_source();
    const auto rows = ui::source_rows(f, [](uint32_t) { return false; });
    ui::Scene sc;
    ui::source_scene(sc, *u.pane.model, f, rows, rv, 14, 1, 1200, 200);  // line 15's row
    CHECK(has_fill(sc, ui::with_alpha(ui::theme().bad, 56)));
    ui::Scene other;
    ui::source_scene(other, *u.pane.model, f, rows, rv, 12, 1, 1200, 200);
    CHECK_FALSE(has_fill(other, ui::with_alpha(ui::theme().bad, 56)));
  }

  // Fixed and saved: the same launch and request, no banner.
  std::ofstream(prog) << good;
  fs::last_write_time(prog, fs::last_write_time(prog) + std::chrono::seconds(2));
  CHECK(u.rebuild_if_saved());
  test::settle(ctx, u);
  REQUIRE(u.pane.model);
  CHECK(u.status.problem.empty());
  CHECK(u.pane.model->launches() == 3);
  CHECK(u.pane.model->launch() == 0);
  CHECK(u.pane.step == step);
  const session::RequestFigures after = u.pane.model->request(u.pane.step);
  REQUIRE(after.site);
  CHECK(after.site->line == 15);
  CHECK(after.site->op == trace::Op::Store);
  CHECK(after.rec->warp == rv.rec->warp);
  CHECK(after.rec->block == rv.rec->block);
  CHECK(joined_texts(test::frame_scenes(ctx, u)).find("Out-of-bounds") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("the banners of a stopped loop, a compile error and a host crash wrap every word and cut none") {
  ui::HeadlessContext ctx(1280, 720);
  program::Problem loop;
  loop.kind = "endless_loop";
  loop.message = "kernel spin did not finish within 600000000 warp instructions (an endless loop?): block (0,0), warp 0 at line 3";
  loop.at.push_back(program::Place{"endless.cu", 3, true, {0, 0, 0}, {0, 0, 0}, 0});
  loop.launch = 1;
  program::Problem crash;
  crash.kind = "crash";
  crash.message = "the program's host code was killed by signal 11 (Segmentation fault)";
  crash.output = "step 1 done\nstep 2 done\nabout to read the results";
  program::Problem compile;
  compile.kind = "compile";
  compile.message = "does_not_compile.cu(2): error: identifier \"undefined_name\" is undefined";
  compile.at.push_back(program::Place{"does_not_compile.cu", 2});
  for (const program::Problem* p : {&loop, &crash, &compile}) {
    for (float width : {260.0f, 900.0f}) {
      ui::Scene sc;
      const float h = ui::problem_banner_scene(sc, *p, width, false);
      CHECK(h > 0);
      std::string all;
      for (const auto& i : sc.items)
        if (i.kind == ui::Scene::Kind::Text) {
          ImVec2 a, b;
          ui::text_box(i, a, b);
          CHECK(b.x <= width + 0.5f);  // inside the banner
          CHECK(b.y <= h + 0.5f);
          CHECK(i.text.find("\u2026") == std::string::npos);
          all += i.text + " ";
        }
      // Every word of the message is on the banner.
      std::istringstream words(p->message + " " + p->output);
      for (std::string w; words >> w;) CHECK_MESSAGE(all.find(w) != std::string::npos, w);
    }
  }
  ui::Scene sc;
  ui::problem_banner_scene(sc, loop, 900, false);
  CHECK(joined_texts({ui::SceneChunk{sc, {}, {}}}).find("Endless loop stopped") != std::string::npos);
  CHECK(joined_texts({ui::SceneChunk{sc, {}, {}}}).find("endless.cu:3 · thread (0,0) of block (0,0), warp 0") != std::string::npos);
  ui::problem_banner_scene(sc = {}, crash, 900, false);
  CHECK(joined_texts({ui::SceneChunk{sc, {}, {}}}).find("The program crashed") != std::string::npos);
}

TEST_CASE("a program that does not compile: the banner names the error and its line") {
  if (program::find_nvcc().empty()) {
    MESSAGE("nvcc not found: skipped");
    return;
  }
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  session::LaunchSpec spec;
  spec.program.source = "tests/programs/bad/does_not_compile.cu";
  spec.program.echo = false;
  u.open_program(spec);
  u.recorder.wait_idle();  // no Session comes of it: nothing to settle on
  ctx.frame(u);
  CHECK_FALSE(u.pane.model);
  REQUIRE(u.status.problem.kind == "compile");
  REQUIRE(u.status.problem.at.size() == 1);
  CHECK(u.status.problem.at[0].line == 2);
  const std::string all = joined_texts(test::frame_scenes(ctx, u));
  CHECK(all.find("Compile error") != std::string::npos);
  CHECK(all.find("does_not_compile.cu:2") != std::string::npos);
  CHECK(all.find("undefined_name") != std::string::npos);
}
