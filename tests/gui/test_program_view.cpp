// The app on a user's program: opened, a launch picked, the file edited and saved — the
// view rebuilds it in the background and keeps its launch and step. Skipped without nvcc.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
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
