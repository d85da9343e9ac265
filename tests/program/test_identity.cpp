// What makes two builds the same code: the hash of a program's sources and flags that the
// replay pack's figures are matched by (never the file's name), and the pack's index of it.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "program/program.h"
#include "trace/wstrace.h"
#include "../support.h"

using namespace ws;
namespace fs = std::filesystem;

namespace {

using ws::test::slurp;

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string hash_of(const fs::path& p, std::vector<std::string> flags = {}) {
  program::Options o;
  o.source = p.string();
  o.nvcc_flags = std::move(flags);
  return program::source_hash(o);
}

}  // namespace

TEST_CASE("a program's source hash: its code and flags, not its name or its comments' words") {
  const fs::path dir = fs::temp_directory_path() / ("ws-identity-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string text = slurp("examples/transpose.cu");
  REQUIRE(!text.empty());
  write(dir / "transpose.cu", text);
  write(dir / "mine.cu", text);
  const std::string h = hash_of(dir / "transpose.cu");
  CHECK(h.size() == 16);
  CHECK(hash_of(dir / "transpose.cu") == h);  // stable
  CHECK(hash_of(dir / "mine.cu") == h);       // a renamed copy is the same code

  // A comment's words rewritten within its lines: the code and every line number as they were.
  std::string words = text;
  const size_t try_at = words.find("// Try:");
  REQUIRE(try_at != std::string::npos);
  words.replace(try_at, 7, "// Also try:");
  write(dir / "mine.cu", words);
  CHECK(hash_of(dir / "mine.cu") == h);

  // A line added, even a comment, moves the lines the figures are of: another program.
  write(dir / "mine.cu", "// one more line\n" + text);
  CHECK(hash_of(dir / "mine.cu") != h);
  // The padded tile: one character of code.
  std::string padded = text;
  const size_t tile = padded.find("tile[TILE][TILE + PAD]");
  REQUIRE(tile != std::string::npos);
  padded.replace(tile, 22, "tile[TILE][TILE + 1]");
  write(dir / "mine.cu", padded);
  CHECK(hash_of(dir / "mine.cu") != h);
  // A "//" inside a string literal is code, not a comment.
  write(dir / "a.cu", "const char* s = \"a // b\";\n");
  write(dir / "b.cu", "const char* s = \"a // c\";\n");
  CHECK(hash_of(dir / "a.cu") != hash_of(dir / "b.cu"));

  // Flags are part of the build.
  CHECK(hash_of(dir / "transpose.cu", {"-DTILE2=16"}) != h);
  CHECK(hash_of(dir / "transpose.cu", {"-O3"}) != hash_of(dir / "transpose.cu", {"-O2"}));

  // A header the program includes with quotes is its code too.
  write(dir / "k.cuh", "#define K 4\n");
  write(dir / "inc.cu", "#include \"k.cuh\"\nint x = K;\n");
  const std::string with = hash_of(dir / "inc.cu");
  write(dir / "k.cuh", "#define K 8\n");
  CHECK(hash_of(dir / "inc.cu") != with);

  // A file that is not there: no hash, so nothing can match it.
  CHECK(hash_of(dir / "missing.cu").empty());
  fs::remove_all(dir);
}

TEST_CASE("the replay pack's program traces: each indexed by the hash of the committed program it was recorded from") {
  const nlohmann::json j = nlohmann::json::parse(slurp("assets/replay/sass/programs.json"), nullptr, false);
  REQUIRE(!j.is_discarded());
  REQUIRE(j["programs"].size() >= 8);
  int traces = 0;
  for (const auto& e : fs::directory_iterator("assets/replay/sass"))
    traces += e.path().extension() == ".wstrace";
  CHECK(j["programs"].size() == size_t(traces));  // every program trace is indexed
  for (const auto& e : j["programs"]) {
    const std::string source = e["source"], name = e["trace"];
    CAPTURE(source);
    // scripts/replay_index.py computed it as program::source_hash does.
    CHECK(e["hash"].get<std::string>() == hash_of(source, e["flags"].get<std::vector<std::string>>()));
    // The trace holds the text the GPU ran: the committed file's, comments aside.
    const trace::Trace t = trace::read_trace("assets/replay/sass/" + name);
    REQUIRE(!t.files.empty());
    const fs::path dir = fs::temp_directory_path() / ("ws-identity-pack-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    write(dir / fs::path(source).filename(), t.files[0].text);
    CHECK(hash_of(dir / fs::path(source).filename()) == e["hash"].get<std::string>());
    fs::remove_all(dir);
  }
}
