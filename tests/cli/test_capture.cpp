// The capture layer behind the commands: requests in, checked traces out.
#include <doctest/doctest.h>

#include <regex>

#include "capture/capture.h"

using namespace ws;

namespace {
std::string input_error(const capture::Request& req) {
  try {
    capture::record(req);
  } catch (const capture::InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("parse_blocks reads ids and ranges") {
  CHECK(capture::parse_blocks("0") == std::vector<uint32_t>{0});
  CHECK(capture::parse_blocks("0,1,5-7") == std::vector<uint32_t>{0, 1, 5, 6, 7});
  CHECK(capture::parse_blocks(" 3 , 1-2 ,3") == std::vector<uint32_t>{1, 2, 3});  // sorted, once each
  CHECK(capture::parse_blocks("4-4") == std::vector<uint32_t>{4});
  for (const char* bad : {"", ",", "x", "1,,2", "-1", "1-", "-", "3-1", "1.5", "0x10", "4294967295", "0-99999999999"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(capture::parse_blocks(bad), capture::InputError);
  }
  CHECK_THROWS_WITH_AS(capture::parse_blocks("0-4294967294"), doctest::Contains("too many blocks"), capture::InputError);
}

TEST_CASE("a capture runs every block, checks the output and stamps the launch") {
  capture::Request req;
  req.kernel = "transpose_tiled";
  req.size = 40;
  req.backend = "auto";
  capture::Result r = capture::record(req);
  CHECK(r.checked);
  CHECK(r.max_rel_error == 0.0);
  CHECK(r.params.size() == 40);
  CHECK(r.trace.blocks.size() == r.trace.launch.grid.count());
  CHECK(r.lane_accesses > 0);
  CHECK(r.seconds >= 0);
  CHECK(r.trace.launch.version == capture::version());
  CHECK(std::regex_match(r.trace.launch.date, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
#ifndef WS_HAVE_CUDA
  CHECK(r.trace.launch.backend == "emulator");
  CHECK(r.trace.launch.device == "CPU emulator");
  CHECK(r.note.find("CPU emulator") != std::string::npos);  // auto says what ran
#endif

  req.backend = "emulator";
  req.blocks = {1};
  capture::Result one = capture::record(req);
  CHECK(!one.checked);
  CHECK(one.note.empty());
  CHECK(one.trace.blocks == std::vector<uint32_t>{1});
  for (const auto& rec : one.trace.records) CHECK(rec.block == 1);

  req.blocks = {0, 1, 2, 3};  // every block, named one by one
  CHECK(capture::record(req).checked);
}

TEST_CASE("bad requests are one-line input errors") {
  capture::Request req;
  req.kernel = "transpose_tiledd";
  CHECK(input_error(req) == "unknown kernel 'transpose_tiledd': allowed " + catalog::ids());
  req.kernel = "transpose_tiled";
  req.set = {{"pad", 2}};
  CHECK(input_error(req).find("allowed 0, 1") != std::string::npos);
  req.set = {};
  req.backend = "tpu";
  CHECK(input_error(req) == "unknown backend 'tpu': allowed auto, gpu, emulator");
  req.backend = "emulator";
  req.size = 32768;
  CHECK(input_error(req).find("too large for memory") != std::string::npos);
  req.size = 64;
  req.blocks = {99};
  CHECK(input_error(req).find("outside the grid") != std::string::npos);
#ifndef WS_HAVE_CUDA
  req.blocks = {};
  req.backend = "gpu";
  CHECK(input_error(req) == "no GPU backend: this build has no CUDA support (use --backend emulator)");
#endif
}

TEST_CASE("the record cap drops and counts") {
  capture::Request req;
  req.kernel = "transpose_tiled";
  req.size = 64;
  req.backend = "emulator";
  req.max_records = 10;
  capture::Result r = capture::record(req);
  CHECK(r.trace.records.size() == 10);
  CHECK(r.trace.dropped_records > 0);
  CHECK(r.checked);  // every block still ran
}
