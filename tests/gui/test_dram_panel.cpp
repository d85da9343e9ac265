// The DRAM panel's defaults in the app: it follows the request's array (a setting that
// settings files of every age load), and it says what it follows and what was recorded.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "ui/figure/headless.h"
#include "ui/settings.h"
#include "ui/ui.h"
#include "ui/controls.h"
#include "ui_test.h"

using namespace ws;

TEST_CASE("the DRAM view follows the request by default; settings files of every age keep working") {
  using Choice = session::DramChoice;
  CHECK(ui::UiState{}.dram.array == Choice::follow());
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("warpscope-test-dram-" + std::to_string(::getpid()) + ".json");
  std::string msg, err;
  for (Choice choice : {Choice::follow(), Choice::all(), Choice::array(2)}) {
    CAPTURE(int(choice.kind));
    ui::UiState s;
    s.dram.array = choice;
    REQUIRE(ui::save_settings(path.string(), s, err));
    ui::UiState back;
    back.dram.array = Choice::array(7);
    REQUIRE(ui::load_settings(path.string(), back, msg));
    CHECK(back.dram.array == choice);
  }
  // A version 1 file written before the view could follow stored its default, every array:
  // it gets the new default. A buffer the user picked stays picked.
  std::ofstream(path, std::ios::trunc) << R"({"version": 1, "dram_array": -1})";
  ui::UiState old;
  REQUIRE(ui::load_settings(path.string(), old, msg));
  CHECK(old.dram.array == Choice::follow());
  std::ofstream(path, std::ios::trunc) << R"({"version": 1, "dram_array": 1})";
  REQUIRE(ui::load_settings(path.string(), old, msg));
  CHECK(old.dram.array == Choice::array(1));
  std::ofstream(path, std::ios::trunc) << R"({"version": 1, "dram_array": -1, "dram_follow": false})";
  REQUIRE(ui::load_settings(path.string(), old, msg));
  CHECK(old.dram.array == Choice::all());
  std::ofstream(path, std::ios::trunc) << R"({"version": 1, "dram_array": -40, "dram_follow": false})";
  REQUIRE(ui::load_settings(path.string(), old, msg));
  CHECK(old.dram.array == Choice::follow());
  std::filesystem::remove(path);
}

TEST_CASE("the DRAM panel names the array it follows and the blocks it sums over") {
  ui::HeadlessContext ctx(1920, 1080);
  ui::Ui u(test::quiet_env());
  u.state.kernel = "matmul_tiled";
  u.state.size = 4;
  u.state.params = {{"tile", 2}};
  u.state.enlarged = int(ui::Panel::Dram);
  u.record();
  test::settle(ctx, u);
  auto drawn = [&] { return test::frame_texts(ctx, u); };
  u.set_step(0);
  std::set<std::string> t = drawn();
  CHECK(t.count("array A, the request's"));
  CHECK(t.count("2 / 4"));  // the textbook's 50 %
  CHECK(t.count("8 bursts in epoch 0 · all 4 blocks"));
  nlohmann::json d = nlohmann::json::parse(u.describe_json());
  CHECK(d["dram"]["array"] == "A");
  CHECK(d["dram"]["busy"] == 2);
  // Every array, by choice.
  u.state.dram.array = session::DramChoice::all();
  t = drawn();
  CHECK(t.count("every global array"));
  CHECK(t.count("4 / 4"));
}
