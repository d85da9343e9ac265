// The program owns the window while it is open: the catalog panel lists its kernels,
// launches and arrays; a catalog kernel opens only when asked for; file names and captions
// name the program; the timing panel shows the program's own numbers only (the same code's),
// marks them once the file is edited, and never breaks a figure across lines.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "drawn_text.h"
#include "program/program.h"
#include "ui_test.h"
#include "../support.h"

using namespace ws;
namespace fs = std::filesystem;

namespace {

bool open_program(ui::HeadlessContext& ctx, ui::Ui& u, const std::string& source) {
  if (!ws::test::have_nvcc("skipped")) return false;
  session::LaunchSpec spec;
  spec.program.source = source;
  spec.program.echo = false;
  u.open_program(spec);
  test::settle(ctx, u);
  return u.pane.model && u.pane.model->origin() == "program";
}

// Every text of one frame, one per line.
std::string drawn(ui::HeadlessContext& ctx, ui::Ui& u, std::vector<test::DrawnText>* items = nullptr) {
  ctx.frame(u);
  test::start_catching();
  const auto texts = test::stop_catching(ctx.frame(u));
  std::string all;
  for (const auto& d : texts) all += d.text + "\n";
  if (items) *items = texts;
  return all;
}

// The texts as one line: a sentence the panel wrapped between its words reads whole.
std::string flat(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

fs::path temp_copy(const std::string& from, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ws-program-panel-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(from, dir / name, fs::copy_options::overwrite_existing);
  return dir / name;
}

// No figure broken across lines: no drawn piece ends in a number's point or starts with a bare unit.
void no_broken_numbers(const std::vector<test::DrawnText>& texts) {
  for (const auto& d : texts) {
    CAPTURE(d.text);
    const std::string& s = d.text;
    const bool point_end = s.size() >= 2 && s.back() == '.' && std::isdigit(static_cast<unsigned char>(s[s.size() - 2]));
    CHECK_FALSE(point_end);
    CHECK(s.rfind("ms", 0) != 0);
    CHECK(s.rfind("GFLOP/s", 0) != 0);
    CHECK(s.rfind("%", 0) != 0);
  }
}

}  // namespace

TEST_CASE("a program open owns the catalog panel: its kernels, launches with times, arrays once; no catalog ladder") {
  ui::HeadlessContext ctx(1920, 1080);
  ui::Ui u(test::quiet_env());
  if (!open_program(ctx, u, "examples/transpose.cu")) return;
  std::vector<test::DrawnText> texts;
  const std::string all = drawn(ctx, u, &texts);
  // The catalog panel's own texts.
  const ui::DrawnPanel* panel = nullptr;
  for (const auto& p : u.drawn())
    if (p.panel == ui::Panel::Catalog) panel = &p;
  REQUIRE(panel);
  std::string mine;
  for (const auto& d : texts)
    if (d.pos.x >= panel->min.x && d.pos.x < panel->max.x && d.pos.y >= panel->min.y && d.pos.y < panel->max.y)
      mine += d.text + "\n";
  CHECK(all.find("transpose.cu\n") != std::string::npos);
  CHECK(all.find("Kernels") != std::string::npos);
  CHECK(all.find("transposeTiled<0>") != std::string::npos);
  CHECK(mine.find("1  transposeNaive\n<<<(2,2), (32,32)>>>\n") != std::string::npos);
  CHECK(mine.find("3  transposeTiled<1>\n<<<(2,2), (32,32)>>>\n") != std::string::npos);
  CHECK(mine.find(" ms\n") != std::string::npos);  // the replay pack's times of this very code
  // Arrays: each once, typed; printf's and the frames' only when asked for.
  size_t d_in = 0;
  for (size_t at = mine.find("\nd_in\n"); at != std::string::npos; at = mine.find("\nd_in\n", at + 1)) ++d_in;
  CHECK(d_in == 1);
  CHECK(mine.find("float 64 × 64") != std::string::npos);  // its `// warpscope: shape` line
  CHECK(flat(mine).find("shape: annotation") != std::string::npos);
  CHECK(mine.find("$str") == std::string::npos);
  CHECK(all.find("Open a catalog kernel…") != std::string::npos);
  // The catalog's ladder and parameters are not offered beside the program.
  CHECK(mine.find("transpose_tiled") == std::string::npos);
  CHECK(mine.find("Parameters") == std::string::npos);
}

TEST_CASE("with a program open a catalog kernel never replaces it in silence; file names and captions name the program") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  if (!open_program(ctx, u, "examples/transpose.cu")) return;
  CHECK(u.file_stem() == "transpose-transposeNaive-launch1");
  u.show_launch(1);
  test::settle(ctx, u);
  CHECK(u.file_stem() == "transpose-transposeTiled_0-launch2");
  u.set_step(4);
  const std::string caption = session::step_caption(*u.pane.model, u.pane.step);
  CHECK(caption.rfind("transpose.cu · transposeTiled<0> · launch 2 of 3 · request 5 of ", 0) == 0);
  u.open_export_dialog();
  const std::string dialog = drawn(ctx, u);
  CHECK(dialog.find("warpscope-transpose-transposeTiled_0-launch2-") != std::string::npos);
  CHECK(dialog.find("warpscope-transpose_read_coalesced") == std::string::npos);
  u.dialogs.figure = false;
  // A catalog kernel asked for (a lesson, a slide): the program closes, and the status bar says so.
  u.state.kernel = "transpose_tiled";
  u.request_record();
  test::settle(ctx, u);
  CHECK_FALSE(u.open_program_spec());
  CHECK(u.status.text.find("transpose.cu closed: the catalog's transpose_tiled is recorded") == 0);
  REQUIRE(u.pane.model);
  CHECK(u.pane.model->origin() != "program");
  CHECK(u.file_stem() == "transpose_tiled");
}

TEST_CASE("a program the replay pack never ran shows no replay-pack times: no catalog ladder in its place") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  // The transpose under another name and one edit: not the code the pack's GPU ran.
  const fs::path prog = temp_copy("examples/transpose.cu", "my_transpose.cu");
  {
    std::ifstream in(prog);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    text.replace(text.find("tile[TILE][TILE + PAD]"), 22, "tile[TILE][TILE + 1]");
    std::ofstream(prog) << text;
  }
  if (!open_program(ctx, u, prog.string())) return;
  CHECK_FALSE(u.pane.model->hardware());
  u.state.enlarged = int(ui::Panel::Timing);
  const std::string all = drawn(ctx, u);
  CHECK(all.find("No GPU times of this program") != std::string::npos);
  CHECK(all.find("replay pack, 20") == std::string::npos);
  CHECK(all.find("GB/s") == std::string::npos);      // the catalog's transpose ladder
  CHECK(all.find("H200") == std::string::npos);
  fs::remove_all(prog.parent_path());
}

TEST_CASE("after an edit the GPU's figures of the old text are marked as such, and hidden from the launch list") {
  ui::HeadlessContext ctx(1920, 1080);
  ui::Ui u(test::quiet_env());
  const fs::path prog = temp_copy("examples/transpose.cu", "transpose.cu");
  if (!open_program(ctx, u, prog.string())) return;
  REQUIRE(u.pane.model->hardware());  // the same code as the pack's: its figures
  u.state.enlarged = int(ui::Panel::Timing);
  std::string all = drawn(ctx, u);
  CHECK(all.find("before your edit") == std::string::npos);
  CHECK(all.find("replay pack, 20") != std::string::npos);
  // Edited on disk; not rebuilt yet (or it failed to build): the figures are the old text's.
  std::ofstream(prog, std::ios::app) << "// one more line\n";
  all = drawn(ctx, u);
  CHECK(flat(all).find("ran the file as it was at ") != std::string::npos);
  CHECK(flat(all).find("before your edit: these times are not the new text's.") != std::string::npos);
  u.state.enlarged = -1;
  all = drawn(ctx, u);
  CHECK(flat(all).find("The file changed since this run") != std::string::npos);
  CHECK(all.find("1  transposeNaive\n<<<(2,2), (32,32)>>>\n") != std::string::npos);
  CHECK(all.find("1  transposeNaive\n<<<(2,2), (32,32)>>>\n0.") == std::string::npos);  // no time beside the launch
  fs::remove_all(prog.parent_path());
}

TEST_CASE("a percentage of a launch of a few microseconds says so beside it; no figure breaks across lines") {
  for (bool present : {false, true})
    for (int h : {720, 1080}) {
      CAPTURE(present);
      CAPTURE(h);
      ui::HeadlessContext ctx(h == 720 ? 1280 : 1920, h);
      ui::Ui u(test::quiet_env());
      if (!open_program(ctx, u, "tests/programs/matmul_tiled.cu")) return;
      u.state.present = present;
      std::vector<test::DrawnText> texts;
      const std::string all = drawn(ctx, u, &texts);
      if (all.find("% of cuBLAS") != std::string::npos)
        CHECK(flat(all).find("this percentage means little") != std::string::npos);
      no_broken_numbers(texts);
      u.state.enlarged = int(ui::Panel::Timing);
      const std::string big = drawn(ctx, u, &texts);
      CHECK(big.find("% of cuBLAS") != std::string::npos);
      CHECK(flat(big).find("this percentage means little") != std::string::npos);
      no_broken_numbers(texts);
    }
}
