// Where the assets are found: next to the binary, then an unpacked archive, then an
// installed prefix, then the source tree the build came from.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "trace/assets.h"

using namespace ws::trace;
namespace fs = std::filesystem;

TEST_CASE("asset folders: the binary's own before the source tree") {
  const auto roots = asset_roots("/opt/ws/bin", "/src/warpscope/assets");
  REQUIRE(roots.size() == 4);
  CHECK(roots[0] == "/opt/ws/bin/assets");
  CHECK(roots[1] == "/opt/ws/assets");
  CHECK(roots[2] == "/opt/ws/share/warpscope");
  CHECK(roots[3] == "/src/warpscope/assets");
  // Nothing known: nothing searched (never the working directory).
  CHECK(asset_roots("", "").empty());
  CHECK(asset_roots("", "/src/a") == std::vector<std::string>{"/src/a"});
}

TEST_CASE("find_asset_in takes the first folder that holds the file") {
  const fs::path base = fs::temp_directory_path() / ("warpscope-test-assets-" + std::to_string(::getpid()));
  fs::remove_all(base);
  auto put = [&](const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "{}";
  };
  const fs::path bin = base / "prefix" / "bin", source = base / "src" / "assets";
  const auto roots = asset_roots(bin.string(), source.string());
  CHECK(find_asset_in(roots, "replay/bench.json").empty());

  put(source / "replay" / "bench.json");
  CHECK(find_asset_in(roots, "replay/bench.json") == (source / "replay" / "bench.json").string());
  put(base / "prefix" / "share" / "warpscope" / "replay" / "bench.json");
  CHECK(find_asset_in(roots, "replay/bench.json") ==
        (base / "prefix" / "share" / "warpscope" / "replay" / "bench.json").string());
  put(base / "prefix" / "assets" / "replay" / "bench.json");
  CHECK(find_asset_in(roots, "replay") == (base / "prefix" / "assets" / "replay").string());
  put(bin / "assets" / "replay" / "bench.json");
  CHECK(find_asset_in(roots, "replay/bench.json") == (bin / "assets" / "replay" / "bench.json").string());
  // A folder that holds something else does not count.
  CHECK(find_asset_in(roots, "lessons").empty());
  fs::remove_all(base);
}

TEST_CASE("the running build finds the repository's replay pack from any working directory") {
  const fs::path here = fs::current_path();
  fs::current_path(fs::temp_directory_path());
  const std::string found = find_asset("replay/bench.json");
  fs::current_path(here);
  REQUIRE(!found.empty());
  CHECK(fs::path(found).is_absolute());
  CHECK(fs::exists(found));
  CHECK(!exe_dir().empty());
}
