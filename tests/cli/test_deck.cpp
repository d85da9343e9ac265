// Slide decks (.wsdeck): a round trip keeps every slide; a damaged, newer or wrong deck is
// one line that names the slide and what is allowed; a deck's programs run only with --yes;
// `gui` opens a program's launch beside another, and a program slide, from the command line.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "program/program.h"
#include "session/deck.h"
#include "session/session.h"
#include "session/worker.h"

using namespace ws;
namespace fs = std::filesystem;

namespace {

session::Deck sample() {
  session::Deck d;
  d.title = "Bank conflicts";
  d.slides.push_back(session::slide_of("transpose_tiled", {{"size", 64}, {"pad", 0}}, 1, "banks", "32 lanes, one bank"));
  d.slides.push_back(session::slide_of("transpose_tiled", {{"pad", 1}}, 1, "warp", "one extra column: \"no\" conflict"));
  session::Slide s;
  s.kernel = "matmul_coarse2d_vec";
  s.step = 3;
  s.view = "memory";
  d.slides.push_back(s);
  return d;
}

std::string error_of(const std::string& text) {
  try {
    session::parse_deck(text, "t.wsdeck");
  } catch (const session::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a deck saved and loaded again is the same deck") {
  const session::Deck d = sample();
  const fs::path p = fs::temp_directory_path() / ("ws_deck_test_" + std::to_string(::getpid()) + ".wsdeck");
  session::save_deck(d, p.string());
  const session::Deck back = session::load_deck(p.string());
  fs::remove(p);
  CHECK(back == d);
  CHECK(back.slides[0].size == 64);
  CHECK(back.slides[1].size == std::nullopt);
  CHECK(session::parse_deck(session::deck_json(d), "x") == d);
}

TEST_CASE("a deck file holds request numbers from 1, as --step and the timeline count") {
  // Slide 0 shows record 1: the file says request 2, the way the app and captions name it.
  const session::Deck d = sample();
  CHECK(session::deck_json(d).find("\"step\": 2") != std::string::npos);
  // Version 1 files counted records from 0: their step 1 is still record 1.
  const session::Deck v1 = session::parse_deck(R"({"version": 1, "slides": [{"kernel": "transpose_tiled", "step": 1}]})", "v1");
  const session::Deck v2 = session::parse_deck(R"({"version": 2, "slides": [{"kernel": "transpose_tiled", "step": 2}]})", "v2");
  CHECK(v1.slides[0].step == 1);
  CHECK(v2.slides[0].step == 1);
}

TEST_CASE("a slide is the same variant as a trace once its defaults are filled in") {
  const session::Deck d = sample();
  // transpose_tiled at its teaching size: a trace's launch holds every value, size included.
  auto full = session::resolved_params(d.slides[1]);
  REQUIRE(full);
  CHECK(full->count("size") == 1);
  CHECK(session::same_variant(d.slides[1], "transpose_tiled", *full));
  CHECK(!session::same_variant(d.slides[0], "transpose_tiled", *full));  // pad 0, not 1
  CHECK(!session::same_variant(d.slides[1], "transpose_naive", *full));
  CHECK(d.slides[0].variant_text() == "transpose_tiled size=64 pad=0");
}

TEST_CASE("damaged, newer and wrong decks are one-line errors naming what is allowed") {
  CHECK(error_of("{\"version\": 1, \"slides\": [") .find("t.wsdeck is not a warpscope deck (bad JSON") == 0);
  CHECK(error_of("[1, 2]").find("is not a warpscope deck") != std::string::npos);
  CHECK(error_of("{\"version\": 9, \"slides\": []}") ==
        "t.wsdeck is deck version 9, newer than this warpscope reads (3): update warpscope");
  const std::string unknown =
      error_of(R"({"version": 1, "slides": [{"kernel": "transpose_tiled", "step": 0},
                                             {"kernel": "no_such_kernel", "step": 0}]})");
  CHECK(unknown.find("t.wsdeck: slide 2: unknown kernel 'no_such_kernel': allowed ") == 0);
  CHECK(unknown.find("transpose_tiled") != std::string::npos);
  const std::string param = error_of(R"({"version": 1, "slides": [{"kernel": "transpose_tiled", "params": {"pad": 7}, "step": 0}]})");
  CHECK(param.find("t.wsdeck: slide 1: ") == 0);
  CHECK(param.find("pad") != std::string::npos);
  CHECK(error_of(R"({"version": 1, "slides": [{"kernel": "transpose_tiled", "step": 0, "view": "timeline"}]})") ==
        "t.wsdeck: slide 1: unknown view 'timeline': allowed memory, warp, banks, dram, source, pipeline, cluster");
  CHECK(error_of(R"({"version": 1, "slides": [{"kernel": "transpose_tiled", "step": -1}]})") ==
        "t.wsdeck: slide 1: \"step\" must be 0 or more, not -1");
  CHECK(error_of(R"({"version": 2, "slides": [{"kernel": "transpose_tiled", "step": 0}]})") ==
        "t.wsdeck: slide 1: \"step\" must be 1 or more, not 0");
  CHECK(error_of(R"({"version": 1, "slides": [{"kernel": "transpose_tiled"}]})").find("slide 1: no \"step\"") !=
        std::string::npos);
  for (const char* bad : {"", "{}", "{\"version\": \"1\", \"slides\": []}", "{\"version\": 1, \"slides\": {}}"}) {
    CAPTURE(bad);
    const std::string e = error_of(bad);
    CHECK(!e.empty());
    CHECK(e.find('\n') == std::string::npos);
  }
  CHECK_THROWS_WITH_AS(session::load_deck("/nonexistent/x.wsdeck"), "cannot open deck /nonexistent/x.wsdeck",
                       session::InputError);
}

// ---- `warpscope export --deck` --------------------------------------------------------

namespace {

struct Cli {
  int rc = -1;
  std::string out, err;
};

std::string slurp_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

Cli run_warpscope(const std::string& args, const fs::path& dir) {
  const fs::path out = dir / "stdout", err = dir / "stderr";
  const std::string cmd = std::string("'") + WS_BINARY + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  Cli r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  r.out = slurp_file(out);
  r.err = slurp_file(err);
  return r;
}

size_t lines(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("export --deck draws every slide of the example deck as a numbered PNG") {
  const fs::path dir = fs::temp_directory_path() / ("ws_deck_export_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path slides = dir / "slides";  // made by export
  Cli r = run_warpscope("export --deck assets/decks/bank-conflicts.wsdeck --width 400 --height 300 --out '" +
                            slides.string() + "'",
                        dir);
  if (r.err.find("has no GUI") != std::string::npos) {
    MESSAGE("this build has no figure export");
    fs::remove_all(dir);
    return;
  }
  INFO(r.err);
  REQUIRE(r.rc == 0);
  CHECK(lines(r.out) == 3);  // one line per figure
  const char* names[] = {"01-transpose_tiled-banks.png", "02-transpose_tiled-banks.png",
                         "03-matmul_coarse2d_vec-warp.png"};
  for (const char* n : names) {
    CAPTURE(n);
    const std::string png = slurp_file(slides / n);
    REQUIRE(png.size() > 24);
    CHECK(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
    // IHDR: width and height, big-endian.
    auto be32 = [&](size_t at) {
      return uint32_t(uint8_t(png[at])) << 24 | uint32_t(uint8_t(png[at + 1])) << 16 |
             uint32_t(uint8_t(png[at + 2])) << 8 | uint32_t(uint8_t(png[at + 3]));
    };
    CHECK(be32(16) == 400);
    CHECK(be32(20) == 300);
  }
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(slides)) ++files;
  CHECK(files == 3);

  // SVG on request.
  r = run_warpscope("export --deck assets/decks/bank-conflicts.wsdeck --format svg --width 400 --height 300 --out '" +
                        (dir / "svg").string() + "'",
                    dir);
  CHECK(r.rc == 0);
  CHECK(slurp_file(dir / "svg" / "01-transpose_tiled-banks.svg").find("<svg") != std::string::npos);

  // A step past the end of its launch: one line naming the slide and the range, nothing written.
  session::Deck d;
  d.slides.push_back(session::slide_of("transpose_tiled", {{"pad", 0}}, 1, "warp", ""));
  d.slides.push_back(session::slide_of("transpose_tiled", {{"pad", 1}}, 99999999, "warp", ""));
  session::save_deck(d, (dir / "far.wsdeck").string());
  r = run_warpscope("export --deck '" + (dir / "far.wsdeck").string() + "' --out '" + (dir / "far").string() + "'", dir);
  CHECK(r.rc == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("slide 2 (transpose_tiled size=64 m=0 order=0 pad=1 rows=8 tile=32): request 100000000 is out of "
                    "range: allowed 1..") != std::string::npos);
  CHECK(!fs::exists(dir / "far"));

  // --deck with the options of a single figure, or --format without a deck: usage errors.
  for (const char* bad : {"export --deck assets/decks/bank-conflicts.wsdeck --kernel transpose_tiled --out x",
                          "export --deck assets/decks/bank-conflicts.wsdeck --view warp --out x",
                          "export --deck assets/decks/bank-conflicts.wsdeck --step 3 --out x",
                          "export --deck assets/decks/bank-conflicts.wsdeck",
                          "export --kernel transpose_tiled --view warp --format svg --out x.png",
                          "export --deck /nonexistent.wsdeck --out x"}) {
    CAPTURE(bad);
    r = run_warpscope(bad, dir);
    CHECK(r.rc == 2);
    CHECK(r.out.empty());
    CHECK(lines(r.err) == 1);
    CHECK(r.err.rfind("warpscope: error: ", 0) == 0);
  }
  fs::remove_all(dir);
}

// ---- slides of a program ----------------------------------------------------------------

namespace {

// A deck of one slide of launch 2 of `prog`, at record `step`, with `hash` as its sources' hash.
session::Deck program_deck(const std::string& prog, uint64_t step, const std::string& hash) {
  session::Deck d;
  session::Slide s;
  s.kernel = "transposeTiled<0>";
  s.step = step;
  s.view = "warp";
  s.caption = "32-way";
  s.program = session::SlideProgram{prog, {"-DN=64"}, {"--quiet"}, false, 1, hash};
  d.slides.push_back(s);
  return d;
}

bool have_nvcc_and_xvfb() {
  if (program::find_nvcc().empty()) return false;
  return std::system("command -v xvfb-run >/dev/null 2>&1") == 0;
}

}  // namespace

TEST_CASE("a program slide keeps its file, flags, arguments, launch and hash through its file; bad ones are one line") {
  const session::Deck d = program_deck("examples/transpose.cu", 7, "0123456789abcdef");
  const std::string text = session::deck_json(d);
  CHECK(text.find("\"version\": 3") != std::string::npos);  // older readers say "update" rather than guess
  CHECK(text.find("\"launch\": 2") != std::string::npos);    // counted from 1, as --launch
  const session::Deck back = session::parse_deck(text, "p.wsdeck");
  CHECK(back == d);
  CHECK(back.slides[0].variant_text() == "transpose.cu transposeTiled<0> launch 2");
  const session::LaunchSpec spec = back.slides[0].spec();
  CHECK(spec.program.source == "examples/transpose.cu");
  CHECK(spec.program.nvcc_flags == std::vector<std::string>{"-DN=64"});
  CHECK(spec.program.args == std::vector<std::string>{"--quiet"});
  CHECK(spec.launch == 1);
  CHECK(spec.nearest_launch);
  // What opening it would run, named before it runs.
  CHECK(session::program_command(*back.slides[0].program) ==
        "nvcc -DN=64 examples/transpose.cu, then ./transpose --quiet");
  CHECK(session::runs_programs(back) ==
        "slide 1 builds and runs examples/transpose.cu (nvcc -DN=64 examples/transpose.cu, then ./transpose --quiet)");
  CHECK(session::runs_programs(sample()).empty());
  // A deck of catalog slides alone is still written as version 2.
  CHECK(session::deck_json(sample()).find("\"version\": 2") != std::string::npos);
  const char* bad[] = {
      R"({"version": 3, "slides": [{"program": {"source": "x.txt"}, "step": 1}]})",
      R"({"version": 3, "slides": [{"program": {"launch": 1}, "step": 1}]})",
      R"({"version": 3, "slides": [{"program": {"source": "a.cu", "launch": 0}, "step": 1}]})",
      R"({"version": 3, "slides": [{"program": {"source": "a.cu", "nvcc": "-O2"}, "step": 1}]})",
      R"({"version": 3, "slides": [{"program": "a.cu", "step": 1}]})",
  };
  for (const char* b : bad) {
    CAPTURE(b);
    const std::string e = error_of(b);
    CHECK(e.rfind("t.wsdeck: slide 1: ", 0) == 0);
    CHECK(e.find('\n') == std::string::npos);
  }
}

TEST_CASE("a deck that runs a program: refused in one line without --yes, naming the program and the command") {
  const fs::path dir = fs::temp_directory_path() / ("ws_deck_program_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path deck = dir / "p.wsdeck";
  session::save_deck(program_deck(fs::absolute("examples/transpose.cu").string(), 7, ""), deck.string());
  for (const std::string& cmd : {"gui --deck '" + deck.string() + "' --frames 3 --config-dir none",
                                 "export --deck '" + deck.string() + "' --out '" + (dir / "out").string() + "'"}) {
    CAPTURE(cmd);
    const Cli r = run_warpscope(cmd, dir);
    if (r.err.find("has no GUI") != std::string::npos) continue;
    CHECK(r.rc == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("slide 1 builds and runs ") != std::string::npos);
    CHECK(r.err.find("examples/transpose.cu (nvcc -DN=64 ") != std::string::npos);
    CHECK(r.err.find("then ./transpose --quiet): add --yes") != std::string::npos);
  }
  CHECK(!fs::exists(dir / "out"));
  // With --yes, export builds the program once and draws its slide; sources that changed
  // since the slide was made are said on stderr, and drawn as they are now.
  if (!program::find_nvcc().empty()) {
    session::save_deck(program_deck(fs::absolute("examples/transpose.cu").string(), 66, "0000000000000000"),
                       deck.string());
    const Cli r = run_warpscope("export --deck '" + deck.string() + "' --yes --width 400 --height 300 --out '" +
                                    (dir / "out").string() + "'",
                                dir);
    if (r.err.find("has no GUI") == std::string::npos) {
      INFO(r.err);
      CHECK(r.rc == 0);
      CHECK(lines(r.out) == 1);
      CHECK(r.out.find("slide 1, warp view of transposeTiled<0>") != std::string::npos);
      CHECK(fs::file_size(dir / "out" / "01-transposeTiled_0_-warp.png") > 1000);
      CHECK(r.err.find("slide 1: " + fs::absolute("examples/transpose.cu").string() +
                       " changed since the slide was made: drawn as it is now (launch 2)") != std::string::npos);
    }
  }
  // --launch and --compare-launch need a program or a trace.
  for (const char* cmd : {"gui --launch 2 --frames 1 --config-dir none", "gui --compare-launch 3 --frames 1 --config-dir none"}) {
    CAPTURE(cmd);
    const Cli r = run_warpscope(cmd, dir);
    CHECK(r.rc == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("needs a program (FILE.cu) or a trace (FILE.wstrace)") != std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("from the command line: a program's launch 2 beside its launch 3, and a deck's program slide with --yes") {
  if (!have_nvcc_and_xvfb()) {
    MESSAGE("nvcc or xvfb-run not found: skipped");
    return;
  }
  const fs::path dir = fs::temp_directory_path() / ("ws_gui_program_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // The request to look at: launch 2's first shared load (the tile read, 32-way).
  session::LaunchSpec spec;
  spec.program.source = "examples/transpose.cu";
  spec.program.echo = false;
  spec.launch = 1;
  const auto m = session::record_session(spec);
  uint64_t step = 0;
  while (m->trace().sites[m->trace().records[step].site].space != trace::Space::Shared ||
         m->trace().sites[m->trace().records[step].site].op != trace::Op::Load)
    ++step;
  const std::string xvfb = "xvfb-run -a -s '-screen 0 1280x720x24' ";
  // xvfb-run starts warpscope (the binary goes after it) through a script that keeps
  // warpscope's own exit status: xvfb-run's exit status is its own where it fails to clean
  // up its temporary folder, as it can when other tests run xvfb-run beside it.
  auto under_xvfb = [&](const std::string& args, const fs::path& json) {
    const fs::path out = dir / "stdout", err = dir / "stderr", rc = dir / "rc", script = dir / "run.sh";
    fs::remove(rc);
    {
      std::ofstream sh(script);
      sh << "'" << WS_BINARY << "' gui " << args << " --config-dir none --width 1280 --height 720 --frames 3 --windows-json '"
         << json.string() << "' >'" << out.string() << "' 2>'" << err.string() << "'\necho $? >'" << rc.string() << "'\n";
    }
    const int status = std::system((xvfb + "sh '" + script.string() + "'").c_str());
    Cli r;
    const std::string kept = slurp_file(rc);
    r.rc = !kept.empty() ? std::atoi(kept.c_str()) : WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    r.err = slurp_file(err);
    return r;
  };
  const std::string req = std::to_string(step + 1);
  Cli r = under_xvfb("examples/transpose.cu --launch 2 --compare-launch 3 --step " + req, dir / "ab.json");
  INFO(r.err);
  REQUIRE(r.rc == 0);
  nlohmann::json j = nlohmann::json::parse(slurp_file(dir / "ab.json"));
  CHECK(j["step"] == step + 1);
  CHECK(j["compare"]["spec"] == "launch 3");
  CHECK(j["compare"]["locked"] == true);
  CHECK(j["compare"]["a"]["max_way"] == 32);
  CHECK(j["compare"]["b"]["max_way"] == 1);
  // A launch the program did not make: refused in one line.
  r = under_xvfb("examples/transpose.cu --launch 2 --compare-launch 9", dir / "bad.json");
  CHECK(r.rc == 2);
  CHECK(r.err.find("compare: launch 9 is out of range") != std::string::npos);

  // A deck's program slide, allowed with --yes: it builds and lands on its request.
  const fs::path deck = dir / "p.wsdeck";
  session::Deck d = program_deck(fs::absolute("examples/transpose.cu").string(), step, session::source_hash(*m));
  d.slides[0].program->nvcc_flags.clear();
  d.slides[0].program->args.clear();
  session::save_deck(d, deck.string());
  r = under_xvfb("--deck '" + deck.string() + "' --yes", dir / "deck.json");
  INFO(r.err);
  REQUIRE(r.rc == 0);
  j = nlohmann::json::parse(slurp_file(dir / "deck.json"));
  CHECK(j["step"] == step + 1);
  CHECK(j["slide_here"] == 0);
  CHECK(j["title"].get<std::string>().find("transposeTiled<0> · launch 2 of 3") != std::string::npos);
  fs::remove_all(dir);
}
