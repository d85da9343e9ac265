// The app on a user's program: opened, a launch picked, the file edited and saved — the
// view rebuilds it in the background and keeps its launch and step, the build before the
// save beside it as side A; two launches side by side; slides of a program. Skipped without nvcc.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "session/report.h"
#include "program/program.h"
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

// ---- compare your edit, two launches side by side, slides of a program ------------------

namespace {

namespace fs = std::filesystem;

// A copy of examples/transpose.cu in a folder of its own (the tests edit it).
fs::path transpose_copy(const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() / ("ws-" + tag + "-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path prog = dir / "transpose.cu";
  fs::copy_file("examples/transpose.cu", prog, fs::copy_options::overwrite_existing);
  return prog;
}

// Replaces `from` by `to` in `prog` and dates the file 2 s later, as an editor's save would.
void edit(const fs::path& prog, const std::string& from, const std::string& to) {
  std::stringstream text;
  text << std::ifstream(prog).rdbuf();
  std::string src = text.str();
  REQUIRE(src.find(from) != std::string::npos);
  src.replace(src.find(from), from.size(), to);
  std::ofstream(prog) << src;
  fs::last_write_time(prog, fs::last_write_time(prog) + std::chrono::seconds(2));
}

// Request `n` (from 0) of `m` among its shared-memory loads (the tile reads of line 27).
uint64_t shared_load(const session::Session& m, int n = 0) {
  for (uint64_t i = 0; i < m.size(); ++i) {
    const trace::Site& s = m.trace().sites[m.trace().records[i].site];
    if (s.space == trace::Space::Shared && s.op == trace::Op::Load && n-- == 0) return i;
  }
  FAIL("no shared load");
  return 0;
}

}  // namespace

TEST_CASE("saving the padded tile keeps the unpadded build as A beside the padded one as B, on the same request") {
  if (program::find_nvcc().empty()) {
    MESSAGE("nvcc not found: skipped");
    return;
  }
  const fs::path prog = transpose_copy("compare-edit");
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  session::LaunchSpec spec;
  spec.program.source = prog.string();
  u.open_program(spec);
  test::settle(ctx, u);
  REQUIRE(u.pane.model);
  CHECK_FALSE(u.comparing());  // a first build has nothing to compare with
  u.show_launch(1);            // transposeTiled<0>
  test::settle(ctx, u);
  const uint64_t step = shared_load(*u.pane.model);
  u.set_step(step);
  test::settle(ctx, u);
  REQUIRE(u.pane.request().s.max_way == 32);
  const std::shared_ptr<const session::Session> before = u.pane.model;

  edit(prog, "__shared__ float tile[TILE][TILE + PAD];", "__shared__ float tile[TILE][TILE + PAD + 1];");
  REQUIRE(u.rebuild_if_saved());
  test::settle(ctx, u);
  // One save: the build before it is side A, the new one side B, both launch 2 at the same request.
  REQUIRE(u.comparing());
  CHECK(u.ab.source == ui::AbSource::PreviousBuild);
  ui::Pane& a = u.side_pane(false);
  ui::Pane& b = u.side_pane(true);
  REQUIRE(a.model);
  REQUIRE(b.model);
  CHECK(a.model == before);
  CHECK(b.model == u.pane.model);
  CHECK(a.model->launch() == 1);
  CHECK(b.model->launch() == 1);
  CHECK(a.step == step);
  CHECK(b.step == step);
  const session::RequestFigures& ra = a.request();
  const session::RequestFigures& rb = b.request();
  REQUIRE(ra.rec);
  REQUIRE(rb.rec);
  CHECK(ra.rec->block == rb.rec->block);
  CHECK(ra.rec->warp == rb.rec->warp);
  CHECK(ra.site->line == rb.site->line);
  CHECK(ra.s.max_way == 32);
  CHECK(rb.s.max_way == 1);
  // The view's own account of it, and the sides named by the edit.
  const nlohmann::json j = nlohmann::json::parse(u.describe_json());
  CHECK(j["compare"]["spec"] == "previous build");
  CHECK(j["compare"]["locked"] == true);
  CHECK(j["compare"]["a"]["max_way"] == 32);
  CHECK(j["compare"]["b"]["max_way"] == 1);
  CHECK(u.ab_names().a.find("before your edit") == 0);
  CHECK(u.ab_names().b.find("after your edit") == 0);
  CHECK(u.ab_names().both.find("before vs after your edit · transposeTiled<0>") == 0);
  // Both sides are drawn: the A side's panels show the earlier build.
  ctx.frame(u);
  bool a_drawn = false, b_drawn = false;
  for (const auto& d : u.drawn()) (d.b_side ? b_drawn : a_drawn) |= d.panel == ui::Panel::Warp;
  CHECK(a_drawn);
  CHECK(b_drawn);
  // Stepping moves both; another launch moves both.
  u.set_step(step + 1);
  test::settle(ctx, u);
  CHECK(u.side_pane(false).step == step + 1);
  u.show_launch(2);
  test::settle(ctx, u);
  CHECK(u.side_pane(false).model->launch() == 2);
  CHECK(u.side_pane(true).model->launch() == 2);
  // A second save compares with the build before it.
  edit(prog, "TILE + PAD + 1", "TILE + PAD");
  REQUIRE(u.rebuild_if_saved());
  test::settle(ctx, u);
  CHECK(u.side_pane(false).model->trace().files.at(0).text.find("TILE + PAD + 1") != std::string::npos);
  CHECK(u.side_pane(true).model->trace().files.at(0).text.find("TILE + PAD + 1") == std::string::npos);
  // Leaving compare mode leaves the new build alone on screen.
  std::string err;
  CHECK(u.set_compare("", err));
  CHECK_FALSE(u.comparing());
  CHECK(u.pane.model);
  fs::remove_all(prog.parent_path());
}

TEST_CASE("launch 2 beside launch 3 of a program: locked to the same request, 32-way against 1-way") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  std::string err;
  // Asked for before the program arrives (the command line's order), taken once it does.
  REQUIRE(u.set_compare("launch 3", err));
  if (!open_settled(ctx, u, "examples/transpose.cu")) return;
  u.show_launch(1);
  test::settle(ctx, u);
  REQUIRE(u.ab.pane.model);
  CHECK(u.ab.source == ui::AbSource::Launch);
  CHECK(u.ab.pane.model->launch() == 2);
  CHECK(u.ab.pane.model->trace().launch().kernel == "transposeTiled<1>");
  u.set_step(shared_load(*u.pane.model));
  test::settle(ctx, u);
  CHECK(u.pane.request().s.max_way == 32);
  CHECK(u.ab.pane.request().s.max_way == 1);
  CHECK(u.ab.pane.request().rec->warp == u.pane.request().rec->warp);
  CHECK(u.ab_names().both.find("transposeTiled<0>") != std::string::npos);
  // Bad input: one line, nothing changed.
  CHECK_FALSE(u.set_compare("launch 4", err));
  CHECK(err == "compare: launch 4 is out of range: allowed 1..3");
  CHECK_FALSE(u.set_compare("launch 0", err));
  CHECK(err.find("numbered from 1") != std::string::npos);
  CHECK(u.ab.pane.model->launch() == 2);
}

TEST_CASE("a slide of a program: kept with its launch and hash; a deck asks before it builds, lands on the request, "
          "and says when the file changed") {
  if (program::find_nvcc().empty()) {
    MESSAGE("nvcc not found: skipped");
    return;
  }
  const fs::path prog = transpose_copy("program-slides");
  const std::string deck = (prog.parent_path() / "d.wsdeck").string();
  ui::HeadlessContext ctx(1280, 720);
  uint64_t step = 0;
  {
    ui::Ui u(test::quiet_env());
    session::LaunchSpec spec;
    spec.program.source = prog.string();
    spec.program.nvcc_flags = {"-DUNUSED=1"};
    u.open_program(spec);
    test::settle(ctx, u);
    u.show_launch(1);
    test::settle(ctx, u);
    step = shared_load(*u.pane.model, 3);
    u.set_step(step);
    test::settle(ctx, u);
    u.slides.add("32-way on the tile");
    REQUIRE(u.slides.deck.slides.size() == 1);
    const session::Slide& s = u.slides.deck.slides[0];
    REQUIRE(s.program);
    CHECK(s.kernel == "transposeTiled<0>");
    CHECK(s.program->source == prog.string());
    CHECK(s.program->nvcc_flags == std::vector<std::string>{"-DUNUSED=1"});
    CHECK(s.program->launch == 1);
    CHECK(s.program->hash == session::source_hash(*u.pane.model));
    CHECK(s.program->hash.size() == 16);
    CHECK(s.step == step);
    CHECK(u.slides.at(u.pane) == 0);
    // Another launch of the program on screen: the slide goes back without a build.
    u.show_launch(0);
    test::settle(ctx, u);
    CHECK(u.slides.go_to(0));
    CHECK(u.recorder.idle());
    CHECK(u.pane.model->launch() == 1);
    CHECK(u.pane.step == step);
    REQUIRE(u.slides.save(deck));
  }
  {
    // Someone else's deck: nothing builds or runs until the user says yes to the named program.
    ui::Ui v(test::quiet_env());
    REQUIRE(v.slides.load(deck));
    CHECK_FALSE(v.slides.go_to(0));
    CHECK(v.slides.confirming() == 0);
    CHECK(v.recorder.idle());
    CHECK(v.status.text == "slide 1 builds and runs transpose.cu: waiting for your yes");
    // The question is on screen.
    ctx.frame(v);
    ctx.frame(v);
    CHECK(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId));
    v.slides.confirm(false);
    CHECK(v.slides.confirming() == -1);
    CHECK_FALSE(v.has_model());
    CHECK_FALSE(v.slides.go_to(0));
    v.slides.confirm(true);
    test::settle(ctx, v);
    REQUIRE(v.pane.model);
    CHECK(v.pane.model->launch() == 1);
    CHECK(v.pane.step == step);
    CHECK(v.slides.at(v.pane) == 0);
    CHECK(v.pane.request().s.max_way == 32);
    CHECK(v.status.text == "slide 1 of 1: 32-way on the tile");
  }
  {
    // The file changed since: the slide says so and shows the same launch and request as the file is now.
    edit(prog, "__shared__ float tile[TILE][TILE + PAD];", "__shared__ float tile[TILE][TILE + PAD + 1];");
    ui::Ui w(test::quiet_env());
    w.slides.state.allow_programs = true;  // --yes
    REQUIRE(w.slides.load(deck));
    CHECK(w.slides.go_to(0));
    test::settle(ctx, w);
    REQUIRE(w.pane.model);
    CHECK(w.status.error);
    CHECK(w.status.text == "slide 1: transpose.cu changed since the slide was made (shown as it is now)");
    CHECK(w.pane.model->launch() == 1);
    CHECK(w.pane.step == step);
    CHECK(w.pane.request().s.max_way == 1);
    // A program no longer there: one line, nothing run.
    fs::remove(prog);
    ui::Ui x(test::quiet_env());
    x.slides.state.allow_programs = true;
    REQUIRE(x.slides.load(deck));
    CHECK_FALSE(x.slides.go_to(0));
    CHECK(x.status.text == "slide 1: its program " + prog.string() + " is not here: nothing to build");
    CHECK(x.recorder.idle());
  }
  fs::remove_all(prog.parent_path());
}
