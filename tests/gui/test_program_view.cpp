// The app on a user's program: opened, a launch picked, the file edited and saved — the
// view rebuilds it in the background and keeps its launch and step. Skipped without nvcc.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "program/program.h"
#include "ui_test.h"

using namespace ws;

namespace {

uint32_t shared_load_way(const session::Session& s) {
  uint32_t way = 0;
  for (const analysis::SiteStats& st : s.report.sites) {
    const trace::Site& site = s.trace().sites[st.site];
    if (site.space == trace::Space::Shared && site.op == trace::Op::Load) way = std::max(way, st.max_way);
  }
  return way;
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
  spec.program = prog.string();
  spec.program_echo = false;
  u.open_program(spec);
  test::settle(ctx, u);
  REQUIRE(u.pane.model);
  CHECK(u.pane.model->origin == "program");
  CHECK(u.pane.model->program_output.find("correct") != std::string::npos);  // kept for File → Program output
  REQUIRE(u.pane.model->launches() == 3);
  u.show_launch(1);  // transposeTiled<0>: tile[32][32]
  test::settle(ctx, u);
  REQUIRE(u.pane.model->launch == 1);
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
  CHECK(u.pane.model->launch == 1);
  CHECK(u.pane.step == 100);
  CHECK(shared_load_way(*u.pane.model) == 1);
  CHECK_FALSE(u.rebuild_if_saved());  // nothing changed since
  fs::remove_all(dir);
}
