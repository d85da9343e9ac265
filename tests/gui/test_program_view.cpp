// The app on a user's program: opened, a launch picked, the file edited and saved — the
// view rebuilds it in the background and keeps its launch and step, the build before the
// save beside it as side A; two launches side by side; slides of a program. Skipped without nvcc.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "session/report.h"
#include "program/program.h"
#include "ui/figure/theme.h"
#include "ui_test.h"
#include "../support.h"

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
  if (!ws::test::have_nvcc("skipped")) return false;
  session::LaunchSpec spec;
  spec.program.source = program;
  spec.program.echo = false;
  u.open_program(spec);
  test::settle(ctx, u);
  return true;
}

}  // namespace

TEST_CASE("a program in the app: [32][32] -> [32][33] saved, the view rebuilds to no conflict on the same launch and step") {
  if (!ws::test::have_nvcc("skipped")) return;
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
  REQUIRE(m.hardware());  // assets/replay/sass/matmul_tiled.wstrace, recorded on an H200
  const session::SourceText& f = m.sources().at(0);
  REQUIRE(f.stats.count(21));
  REQUIRE(f.stats.at(21).hardware.size() == 1);
  const std::string h = session::hardware_text(f.stats.at(21).hardware[0]);
  CHECK(h.find("H200 ran 512 LDS + 128 LDS.128 a block (PTX: 1024 ld.shared.f32)") == 0);
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
  if (!ws::test::have_nvcc("skipped")) return;
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
  // The table lists what the edit changed; what it left alone is named once under it.
  {
    const ui::AbSplit sp = u.ab_split();
    auto has = [](const std::vector<std::string>& v, const char* x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    CHECK(has(sp.listed, "this request"));
    CHECK(has(sp.listed, "worst n-way (shared)"));
    CHECK(has(sp.same, "requests"));
    CHECK(has(sp.same, "sectors / 128 B used (ideal 4)"));
    CHECK_FALSE(has(sp.listed, "requests"));
  }
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

TEST_CASE("a save that changes another launch than the one shown: before vs after moves to the launch it changed") {
  if (!ws::test::have_nvcc("skipped")) return;
  const fs::path prog = transpose_copy("compare-other-launch");
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  REQUIRE(open_settled(ctx, u, prog.string()));
  REQUIRE(u.pane.model);
  REQUIRE(u.pane.model->launch() == 0);  // transposeNaive, which the edit leaves alone
  edit(prog, "__shared__ float tile[TILE][TILE + PAD];", "__shared__ float tile[TILE][TILE + PAD + 1];");
  REQUIRE(u.rebuild_if_saved());
  test::settle(ctx, u);
  REQUIRE(u.comparing());
  CHECK(u.ab.source == ui::AbSource::PreviousBuild);
  REQUIRE(u.side_pane(false).model);
  REQUIRE(u.side_pane(true).model);
  // Launch 2 (transposeTiled<0>) is where the padding took the conflict away: shown on both
  // sides, said in the status line, and no 'the same cost' about launch 1.
  CHECK(u.side_pane(false).model->launch() == 1);
  CHECK(u.side_pane(true).model->launch() == 1);
  CHECK(u.side_pane(false).model->totals() != u.side_pane(true).model->totals());
  CHECK(u.status.text.find("your edit changed launch 2 (transposeTiled<0>), not launch 1") == 0);
  CHECK(u.ab_split().listed.size() > 0);
  // Nothing changed anywhere (a comment): the launch on screen stays.
  u.show_launch(0);
  test::settle(ctx, u);
  edit(prog, "int main() {", "// a comment\nint main() {");
  REQUIRE(u.rebuild_if_saved());
  test::settle(ctx, u);
  CHECK(u.pane.model->launch() == 0);
  fs::remove_all(prog.parent_path());
}

TEST_CASE("a cluster launch's timeline names each cluster once, not its CTAs at every turn") {
  if (!ws::test::have_nvcc("skipped")) return;
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  session::LaunchSpec spec;
  spec.program.source = "examples/tma_multicast.cu";
  spec.program.args = {"128", "1"};
  spec.program.echo = false;
  u.open_program(spec);
  test::settle(ctx, u);
  REQUIRE(u.pane.model);
  REQUIRE(u.pane.model->trace().launch().cluster.x == 2);
  ctx.frame(u);
  REQUIRE(!u.pane.strip_blocks.empty());
  std::set<std::string> seen;
  for (const auto& [x, label] : u.pane.strip_blocks) {
    CAPTURE(label);
    CHECK(label.rfind("cluster ", 0) == 0);
    CHECK(seen.insert(label).second);
  }
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
  if (!ws::test::have_nvcc("skipped")) return;
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
  if (!ws::test::have_nvcc("skipped")) return;
  namespace fs = std::filesystem;
  const fs::path prog = test::faulting_transpose("fault");
  const fs::path dir = prog.parent_path();
  std::stringstream text;
  text << std::ifstream("examples/transpose.cu").rdbuf();
  const std::string good = text.str();

  // A full-HD window: at 1280x720 the grid is too short for the lanes' strip, which the
  // banner then stands for (the banners' wrapping at small widths is the next test's).
  ui::HeadlessContext ctx(1920, 1080);
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
  // The warp inspector says the same of the lane: not 'every lane active' alone, and its
  // sector past the end rimmed in red with its key.
  CHECK(rv.past_end == 1u << 31);
  CHECK(rv.why.rfind("Lane 31 goes past the end of d_out (byte 16384 of 16384)", 0) == 0);
  CHECK(all.find("32 of 32 lanes active, 1 past its end") != std::string::npos);
  CHECK(all.find("past the array's end") != std::string::npos);
  {
    ui::Scene sc;
    ui::warp_scene(sc, rv, ImVec2(600, 400));
    bool red_rim = false;
    for (const auto& i : sc.items) red_rim |= i.kind == ui::Scene::Kind::Rect && i.color == ui::theme().bad;
    CHECK(red_rim);
  }
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
  const std::shared_ptr<const session::Session> faulted = u.pane.model;
  std::ofstream(prog) << good;
  fs::last_write_time(prog, fs::last_write_time(prog) + std::chrono::seconds(2));
  CHECK(u.rebuild_if_saved());
  test::settle(ctx, u);
  REQUIRE(u.pane.model);
  CHECK(u.status.problem.empty());
  // An A/B of the fixed program against the faulting one says B stopped instead of
  // comparing costs; two clean sides say nothing.
  const std::string ab = ui::ab_stopped(*u.pane.model, *faulted);
  CHECK(ab.find("B stopped: Out-of-bounds write to 'd_out' (launch 1)") != std::string::npos);
  CHECK(ab.find("A stopped") == std::string::npos);
  CHECK(ui::ab_stopped(*u.pane.model, *u.pane.model).empty());
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

TEST_CASE("a launch named on the command line stays shown when a later launch faults; the banner still names the fault") {
  if (!ws::test::have_nvcc("skipped")) return;
  namespace fs = std::filesystem;
  // examples/transpose.cu whose tiled store writes one past its row: launch 2 faults.
  const fs::path dir = fs::temp_directory_path() / ("ws-program-named-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path prog = dir / "transpose.cu";
  std::string text = test::slurp("examples/transpose.cu");
  const std::string from = "out[y * n + x] = tile";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), "out[y * n + x + 1] = tile");
  std::ofstream(prog) << text;
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  std::string err;
  // --launch 1 --compare-launch 2, as gui_options makes them.
  REQUIRE(u.set_compare("launch 2", err));
  session::LaunchSpec spec;
  spec.program.source = prog.string();
  spec.program.echo = false;
  spec.launch = 0;
  spec.launch_named = true;
  u.open_program(spec);
  test::settle(ctx, u);
  REQUIRE(u.pane.model);
  CHECK(u.status.problem.kind == "out_of_bounds");
  CHECK(u.status.problem.launch == 2);
  CHECK(u.pane.model->launch() == 0);  // not moved to the faulting launch
  REQUIRE(u.ab.pane.model);
  CHECK(u.ab.pane.model->launch() == 1);
  // The banner over side A names the fault; the A/B strip says which side stopped: B
  // (launch 2), not 'A and B' (launch 1 ran clean).
  CHECK(joined_texts(test::frame_scenes(ctx, u)).find("transpose.cu:27 · thread (31,31) of block (1,1)") != std::string::npos);
  CHECK(joined_texts(test::frame_scenes(ctx, u)).find("Out-of-bounds write to 'd_out' in launch") == std::string::npos);
  // Launch 1 alone: the banner says which launch it happened in, and what the request did
  // there (a write).
  REQUIRE(u.set_compare("", err));
  ctx.frame(u);
  CHECK(joined_texts(test::frame_scenes(ctx, u)).find("Out-of-bounds write to 'd_out' in launch 2, transposeTiled<0>") !=
        std::string::npos);
  REQUIRE(u.set_compare("launch 2", err));
  test::settle(ctx, u);
  CHECK(ui::ab_stopped(*u.pane.model, *u.ab.pane.model) ==
        "B stopped: Out-of-bounds write to 'd_out' (launch 2): no cost is compared past it");
  // In presentation at 1280x720 each side's memory panel is short: the banner is one line
  // over the foot of side B's grids (the side that stopped), and both sides keep their grids.
  u.state.present = true;
  ctx.frame(u);
  {
    const std::string all = joined_texts(test::frame_scenes(ctx, u));
    CHECK(all.find("Out-of-bounds write to 'd_out' · transpose.cu:27") != std::string::npos);
    size_t grids = 0;
    for (size_t at = all.find("64×64 float · global"); at != std::string::npos; at = all.find("64×64 float · global", at + 1))
      ++grids;
    CHECK(grids >= 2);
  }
  u.state.present = false;
  // A save that still faults moves the view to the fault, as any save's does.
  std::ofstream(prog) << text << "\n// saved\n";
  fs::last_write_time(prog, fs::last_write_time(prog) + std::chrono::seconds(2));
  REQUIRE(u.rebuild_if_saved());
  test::settle(ctx, u);
  REQUIRE(u.pane.model);
  CHECK(u.pane.model->launch() == 1);
  fs::remove_all(dir);
}

TEST_CASE("a race opens with its word marked in the memory view, beside the banner that names it") {
  if (!ws::test::have_nvcc("skipped")) return;
  const fs::path prog = transpose_copy("race-mark");
  edit(prog, "  __syncthreads();\n", "");
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  REQUIRE(open_settled(ctx, u, prog.string()));
  REQUIRE(u.pane.model);
  REQUIRE(u.status.problem.kind == "race");
  CHECK(u.pane.model->launch() == u.status.problem.launch - 1);
  const std::string word = "word " + std::to_string(u.status.problem.offset / 4);
  const std::string all = joined_texts(test::frame_scenes(ctx, u));
  CHECK(all.find("race on " + word) != std::string::npos);      // the banner
  CHECK(all.find("◀ race: " + word) != std::string::npos);     // the cell
  // The memory view draws this launch's arrays: not launch 3's tile (transposeTiled<1>'s,
  // 1056 floats), which the whole trace also holds.
  const auto& bufs = u.pane.model->trace().buffers;
  bool other_tile = false;
  for (size_t b = 0; b < bufs.size(); ++b)
    if (bufs[b].space == trace::Space::Shared && bufs[b].size_bytes == 1056 * 4) {
      other_tile = true;
      CHECK_FALSE(u.pane.model->touches(b));
    }
  CHECK(other_tile);
  const ui::MemoryLayout L = ui::memory_layout(*u.pane.model, u.pane.request(), ui::memory_state(u.state, u.pane), ImVec2(800, 500));
  for (const auto& slot : L.slots) CHECK(bufs[slot.buffer].size_bytes != 1056 * 4);
  // Launch 3 races too (its padded tile): shown, it names and marks its own race, not
  // launch 2's; beside launch 2 both sides say they race.
  REQUIRE(u.pane.model->races().races.size() >= 2);
  u.show_launch(2);
  test::settle(ctx, u);
  CHECK(u.status.problem.launch == 3);
  REQUIRE(u.show_problem());  // the banner's click: to launch 3's race
  test::settle(ctx, u);
  const std::string word3 = "word " + std::to_string(u.status.problem.offset / 4);
  CHECK(joined_texts(test::frame_scenes(ctx, u)).find("◀ race: " + word3) != std::string::npos);
  CHECK(ui::ab_stopped(*u.pane.model->of_launch(1, analysis::DramModel{}), *u.pane.model).find("A races") == 0);
  CHECK(ui::ab_stopped(*u.pane.model->of_launch(1, analysis::DramModel{}), *u.pane.model).find("B races") != std::string::npos);
  fs::remove_all(prog.parent_path());
}

TEST_CASE("a save that makes the program fault or race opens what went wrong, not a before/after comparison") {
  const fs::path prog = transpose_copy("save-fault");
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  if (!open_settled(ctx, u, prog.string())) return;
  REQUIRE(u.pane.model);
  REQUIRE(u.status.problem.empty());
  u.show_launch(1);  // the student looks at transposeTiled<0> ...
  u.set_step(40);
  test::settle(ctx, u);

  // ... and saves an off-by-one store in transposeNaive, launch 1.
  edit(prog, "out[x * n + y] = in[y * n + x];", "out[y * n + x + 1] = in[y * n + x];");
  REQUIRE(u.rebuild_if_saved());
  test::settle(ctx, u);
  REQUIRE(u.status.problem.kind == "out_of_bounds");
  REQUIRE(u.status.problem.launch == 1);
  CHECK_FALSE(u.comparing());  // the fault wins over "before vs after your edit"
  REQUIRE(u.pane.model);
  CHECK(u.pane.model->launch() == 0);
  REQUIRE(u.pane.model->problem_step() >= 0);
  const uint64_t at = uint64_t(u.pane.model->problem_step());
  CHECK(u.pane.step == at);
  CHECK(u.pane.request().site->line == 15);
  CHECK(u.status.text.find("the saved program stops in launch 1") != std::string::npos);
  // The memory view follows the lane past the end (row 64 of the 64-row d_out) into view,
  // clear of the strip at the canvas's foot that names it.
  {
    const ui::MemoryViewState st = ui::memory_state(u.state, u.pane);
    const ui::MemoryLayout L = ui::memory_layout(*u.pane.model, u.pane.request(), st, ImVec2(560, 220));
    int focus = 0;
    for (const auto& s : L.slots)
      if (s.current && !s.tile) {
        ++focus;
        CHECK(s.origin.y + 65 * s.cell <= s.clip_max.y - 20);
        CHECK(s.row1 == 64);  // the grid's own rows only
      }
    CHECK(focus == 1);
    // A canvas too narrow for the row's 64 columns (presentation mode at 1280x720) starts at
    // the 31 lanes inside the array, columns 33 to 63, rather than at column 0, where the one
    // lane past the end wraps to on the row below (the strip names it).
    const ui::MemoryLayout N = ui::memory_layout(*u.pane.model, u.pane.request(), st, ImVec2(330, 220));
    int narrow = 0;
    for (const auto& s : N.slots)
      if (s.current && !s.tile) {
        ++narrow;
        INFO("columns " << s.col0 << ".." << s.col1);
        CHECK(s.col1 - s.col0 < 64);  // the narrow case indeed
        CHECK(s.col0 >= 32);
        CHECK(s.col0 <= 33);
        CHECK(s.row1 == 64);
      }
    CHECK(narrow == 1);
  }
  // Marked in the Launch menu and on the timeline.
  CHECK(ui::launch_label(*u.pane.model, 0, u.status.problem).find("stopped here: Out-of-bounds access to 'd_out'") !=
        std::string::npos);
  CHECK(ui::launch_label(*u.pane.model, 1, u.status.problem).empty());  // the program made one launch before it stopped
  {
    ctx.frame(u);
    const nlohmann::json j = nlohmann::json::parse(u.describe_json());
    CHECK(j["problem"]["marked_request"] == session::request_number(at));
  }
  // The program stopped there, so launch 1 is its only one. Stepped elsewhere, a click on
  // the banner comes back to the request.
  CHECK(u.pane.model->launches() == 1);
  u.set_step(3);
  test::settle(ctx, u);
  ctx.frame(u);
  REQUIRE(u.status.banner_max.x > u.status.banner_min.x);
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 mid((u.status.banner_min.x + u.status.banner_max.x) / 2, (u.status.banner_min.y + u.status.banner_max.y) / 2);
  for (bool down : {false, true, false}) {
    io.MousePos = mid;
    io.MouseDown[0] = down;
    ctx.frame(u);
  }
  io.MousePos = ImVec2(-1, -1);
  test::settle(ctx, u);
  CHECK(u.pane.model->launch() == 0);
  CHECK(u.pane.step == at);

  // Fixed, then a barrier taken out: the race opens where it is, still no comparison, and
  // the timeline counts the racing build's epochs, not the clean one's.
  edit(prog, "out[y * n + x + 1] = in[y * n + x];", "out[x * n + y] = in[y * n + x];");
  REQUIRE(u.rebuild_if_saved());
  test::settle(ctx, u);
  CHECK(u.status.problem.empty());
  CHECK(u.comparing());  // clean again: before vs after is back
  edit(prog, "  __syncthreads();\n", "\n");
  REQUIRE(u.rebuild_if_saved());
  test::settle(ctx, u);
  REQUIRE(u.status.problem.kind == "race");
  CHECK_FALSE(u.comparing());
  CHECK(u.pane.model->launch() + 1 == u.status.problem.launch);
  REQUIRE(u.pane.model->problem_step() >= 0);
  CHECK(u.pane.step == uint64_t(u.pane.model->problem_step()));
  CHECK(u.pane.model->trace().files.at(0).text.find("__syncthreads") == std::string::npos);
  CHECK(ui::launch_label(*u.pane.model, u.status.problem.launch - 1, u.status.problem).find("races here") != std::string::npos);
  CHECK(u.pane.request().site->line == u.status.problem.at.front().line);  // the banner's first place
  // While a problem is shown the memory view keeps its room (the source panel's larger share
  // is for a program that runs clean): at 1280x720 the racing request's cells stay in view.
  {
    ctx.frame(u);
    float mem_h = 0, src_h = 0;
    for (const auto& d : u.drawn())
      if (d.panel == ui::Panel::Memory) mem_h = d.max.y - d.min.y;
      else if (d.panel == ui::Panel::Source) src_h = d.max.y - d.min.y;
    CHECK(mem_h > src_h);
  }
  ctx.frame(u);
  CHECK(nlohmann::json::parse(u.describe_json())["problem"]["marked_request"] == session::request_number(u.pane.step));
  fs::remove_all(prog.parent_path());
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
  if (!ws::test::have_nvcc("skipped")) return;
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
