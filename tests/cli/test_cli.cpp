// The warpscope program as a user runs it: output, exit codes, and one-line errors.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "catalog.h"
#include "session/bench.h"
#include "trace/bench.h"
#include "trace/wstrace.h"
#include "../support.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct Run {
  int rc = -1;
  std::string out, err;
  std::vector<std::string> err_lines() const {
    std::vector<std::string> lines;
    std::istringstream s(err);
    for (std::string l; std::getline(s, l);) lines.push_back(l);
    return lines;
  }
};

// A directory for this run's files, removed when the tests end.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("ws_cli_test_" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

fs::path scratch() {
  static Scratch s;
  return s.dir;
}

using ws::test::slurp;

// Runs `warpscope ARGS` (ARGS as a shell would split them), after `prefix` (e.g. env);
// `binary`: another copy of it (one with other assets beside it).
Run warpscope(const std::string& args, const std::string& prefix = "", const std::string& binary = WS_BINARY) {
  const fs::path out = scratch() / "stdout", err = scratch() / "stderr";
  std::string cmd = prefix + std::string("'") + binary + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  int status = std::system(cmd.c_str());
  Run r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

json report_json(const std::string& args) {
  Run r = warpscope("report " + args + " --format json");
  INFO("warpscope report " << args << "\n" << r.err);
  REQUIRE(r.rc == 0);
  REQUIRE(r.err.empty());
  return json::parse(r.out);
}

// The one launch of a report (version 2: a list of launch reports).
const json& only_launch(const json& rep) {
  REQUIRE(rep["report_version"] == 2);
  REQUIRE(rep["launches"].size() == 1);
  return rep["launches"][0];
}

const json* find_site(const json& rep, const std::string& array, const std::string& space, const std::string& op) {
  for (const json& s : only_launch(rep)["sites"])
    if (s["array"] == array && s["space"] == space && s["op"] == op) return &s;
  return nullptr;
}

// Bad input: nothing on stdout, exactly one line on stderr, exit code 2.
void check_bad(const std::string& args, const std::string& mentions = "") {
  Run r = warpscope(args);
  INFO("warpscope " << args << "\nstderr: " << r.err);
  CHECK(r.rc == 2);
  CHECK(r.out.empty());
  auto lines = r.err_lines();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("warpscope: error: ", 0) == 0);
  if (!mentions.empty()) CHECK(lines[0].find(mentions) != std::string::npos);
}

}  // namespace

TEST_CASE("list names every catalog kernel, in text and JSON") {
  Run text = warpscope("list");
  REQUIRE(text.rc == 0);
  CHECK(text.err.empty());
  for (const auto& k : ws::catalog::all()) {
    CHECK(text.out.find(k.id) != std::string::npos);
    CHECK(text.out.find(k.title) != std::string::npos);
    for (const auto& p : k.params) CHECK(text.out.find("--set " + p.name + "=") != std::string::npos);
  }
  CHECK(text.out.find("transpose\n") != std::string::npos);

  Run js = warpscope("list --format json");
  REQUIRE(js.rc == 0);
  json j = json::parse(js.out);
  REQUIRE(j["kernels"].size() == ws::catalog::all().size());
  for (const auto& k : ws::catalog::all()) {
    bool found = false;
    for (const json& e : j["kernels"])
      if (e["id"] == k.id) {
        found = true;
        CHECK(e["family"] == k.family);
        CHECK(e["size"]["default"] == k.teach_size);
        CHECK(e["params"].size() == k.params.size());
      }
    CHECK(found);
  }
  CHECK(j["dram_presets"].size() >= 2);
}

TEST_CASE("no command and no display prints the usage") {
  Run r = warpscope("", "env -u DISPLAY -u WAYLAND_DISPLAY ");
  CHECK(r.rc == 0);
  CHECK(r.out.find("warpscope report --kernel ID") != std::string::npos);
  CHECK(r.out.find("warpscope report --trace FILE") != std::string::npos);
  CHECK(r.out.find("warpscope record --kernel ID") != std::string::npos);
  Run help = warpscope("report --help");
  CHECK(help.rc == 0);
  CHECK(help.out.find("--trace") != std::string::npos);
}

TEST_CASE("the transposed tile store is a 32-way conflict that padding removes") {
  json rep = report_json("--kernel transpose_tiled --size 64");
  CHECK(only_launch(rep)["launch"] == 1);
  CHECK(only_launch(rep)["kernel"] == "transpose_tiled");
  CHECK(rep["backend"] == "emulator");
  CHECK(only_launch(rep)["params"]["size"] == 64);
  CHECK(only_launch(rep)["params"]["pad"] == 0);
  CHECK(only_launch(rep)["grid"] == json::array({2, 2, 1}));
  CHECK(only_launch(rep)["block"] == json::array({32, 8, 1}));
  CHECK(only_launch(rep)["blocks_recorded"] == 4);  // every block by default
  CHECK(rep["check"]["matches_reference"] == true);
  CHECK(rep["dram_model"]["preset"] == "textbook");
  const json* store = find_site(rep, "tile", "shared", "store");
  REQUIRE(store);
  CHECK((*store)["bank_conflicts"].get<int64_t>() > 0);
  CHECK((*store)["code"].get<std::string>().find("tile[threadIdx.x]") != std::string::npos);
  // Each site by file, line and column: the store's column is where `tile[` starts.
  CHECK((*store)["file"] == "transpose.h");
  CHECK((*store)["column"].get<uint32_t>() > 1);
  const json* load = find_site(rep, "in", "global", "load");
  REQUIRE(load);
  CHECK((*load)["sectors_per_request"] == 4.0);

  // The source gutter's figures, one object per line that touches memory.
  REQUIRE(only_launch(rep)["source_lines"].is_array());
  REQUIRE(only_launch(rep)["source_lines"].size() == 2);
  const json& tile_line = only_launch(rep)["source_lines"][0];
  CHECK(tile_line["line"] == (*store)["line"]);
  CHECK(tile_line["code"] == (*store)["code"]);
  CHECK(tile_line["max_way"] == 32);
  CHECK(tile_line["sectors_per_request"] == 4.0);
  CHECK(tile_line["badge"] == "in 4 · tile 32-way");

  // One request as the warp inspector shows it: warp 0's first tile store, lane i to word
  // 32·i, all in bank 0.
  json one = only_launch(report_json("--kernel transpose_tiled --size 64 --step 2"))["request"];
  CHECK(one["request"] == 2);
  CHECK(one["array"] == "tile");
  CHECK(one["max_way"] == 32);
  REQUIRE(one["words"].size() == 32);
  for (int i = 0; i < 32; ++i) {
    CHECK(one["words"][i]["bank"] == 0);
    CHECK(one["words"][i]["word"] == 32 * i);
    CHECK(one["words"][i]["lanes"] == json::array({i}));
  }
  json first = only_launch(report_json("--kernel transpose_tiled --size 64 --step 1"))["request"];
  CHECK(first["request"] == 1);
  CHECK(first["sectors"] == 4);
  CHECK(first["sector_lanes"][1]["lanes"] == json::array({8, 9, 10, 11, 12, 13, 14, 15}));

  json padded = report_json("--kernel transpose_tiled --size 64 --set pad=1");
  CHECK(only_launch(padded)["params"]["pad"] == 1);
  CHECK(only_launch(padded)["source_lines"][0]["max_way"] == 1);
  int shared = 0;
  for (const json& s : only_launch(padded)["sites"])
    if (s["space"] == "shared") {
      ++shared;
      CHECK(s["bank_conflicts"] == 0);
    }
  CHECK(shared == 2);

  Run text = warpscope("report --kernel transpose_tiled --size 64");
  REQUIRE(text.rc == 0);
  CHECK(text.out.find("transpose_tiled") != std::string::npos);
  CHECK(text.out.find("grid (2, 2, 1)") != std::string::npos);
  CHECK(text.out.find("output matches CPU reference") != std::string::npos);
}

TEST_CASE("--set dram and --blocks") {
  json hbm = report_json("--kernel transpose_tiled --size 64 --set dram=hbm --set pad=1");
  CHECK(hbm["dram_model"]["preset"] == "hbm");
  CHECK(only_launch(hbm)["params"].count("dram") == 0);  // not a kernel parameter

  json one = report_json("--kernel transpose_tiled --size 64 --blocks 0");
  CHECK(only_launch(one)["blocks_recorded"] == 1);
  CHECK(one["check"]["checked"] == false);
  json some = report_json("--kernel transpose_tiled --size 64 --blocks 0,2-3");
  CHECK(only_launch(some)["blocks_recorded"] == 3);
  const json* store = find_site(some, "tile", "shared", "store");
  REQUIRE(store);
  CHECK((*store)["requests"] == 3 * 8 * 4);  // blocks × warps × loop trips
}

TEST_CASE("gui takes every DRAM preset that list offers") {
  const json l = json::parse(warpscope("list --format json").out);
  REQUIRE(l["dram_presets"].size() >= 2);
  for (const auto& p : l["dram_presets"]) {
    // Refused only for the kernel named after it, checked before any window opens: the
    // preset itself passed.
    Run r = warpscope("gui --set dram=" + p.get<std::string>() + " --kernel nosuch");
    INFO(r.err);
    CHECK(r.rc == 2);
    CHECK(r.err.find("unknown kernel 'nosuch'") != std::string::npos);
    CHECK(r.err.find("dram") == std::string::npos);
  }
}

TEST_CASE("a recorded trace reports the same sites as the direct report") {
  const std::string file = (scratch() / "tiled.wstrace").string();
  Run rec = warpscope("record --kernel transpose_tiled --size 64 --backend emulator --out '" + file + "'");
  INFO(rec.err);
  REQUIRE(rec.rc == 0);
  CHECK(rec.out.find("wrote") != std::string::npos);
  REQUIRE(fs::exists(file));
  CHECK(!fs::exists(file + ".tmp"));

  json direct = report_json("--kernel transpose_tiled --size 64");
  json saved = report_json("--trace '" + file + "'");
  CHECK(saved["backend"] == "file");
  CHECK(saved["recorded_with"] == "emulator");
  CHECK(only_launch(saved)["kernel"] == only_launch(direct)["kernel"]);
  CHECK(only_launch(saved)["params"] == only_launch(direct)["params"]);
  CHECK(only_launch(saved)["grid"] == only_launch(direct)["grid"]);
  CHECK(only_launch(saved)["sites"] == only_launch(direct)["sites"]);
  CHECK(only_launch(saved)["epochs"] == only_launch(direct)["epochs"]);
  json hbm = report_json("--trace '" + file + "' --set dram=hbm");
  CHECK(hbm["dram_model"]["preset"] == "hbm");

  Run text = warpscope("report --trace '" + file + "'");
  CHECK(text.rc == 0);
  CHECK(text.out.find("file, recorded by emulator") != std::string::npos);
}

TEST_CASE("a version 1 trace from the previous release reports the same figures as it did") {
  // tests/data/v1: traces written by the release before format version 2, and the reports
  // that release printed for them. Read today, the text report is the same to the byte;
  // the JSON report gives every site the same figures, and now its file and column too.
  for (const std::string name : {"transpose_tiled-64", "matmul_tiled-32"}) {
    CAPTURE(name);
    const std::string file = "tests/data/v1/" + name + ".wstrace";
    Run text = warpscope("report --trace " + file);
    REQUIRE(text.rc == 0);
    CHECK(text.out == slurp("tests/data/v1/" + name + ".report.txt"));
    const json before = json::parse(slurp("tests/data/v1/" + name + ".report.json"));
    const json now_report = report_json("--trace " + file);
    const json& now = only_launch(now_report);
    CHECK(now["kernel"] == before["kernel"]);
    CHECK(now["params"] == before["params"]);
    CHECK(now["grid"] == before["grid"]);
    CHECK(now["epochs"] == before["epochs"]);
    REQUIRE(now["sites"].size() == before["sites"].size());
    for (size_t i = 0; i < before["sites"].size(); ++i) {
      json site = now["sites"][i];
      CHECK(site["file"] == (before["kernel"] == "transpose_tiled" ? "transpose.h" : "matmul.h"));
      CHECK(site["column"].get<uint32_t>() >= 1);
      for (const char* added : {"site", "file", "column"}) site.erase(added);
      CHECK(site == before["sites"][i]);
    }
  }
}

TEST_CASE("a trace of several launches reports each, or the one --launch names") {
  // Two recordings joined into one trace of two launches (as a program's trace will be).
  const std::string a = (scratch() / "a.wstrace").string(), b = (scratch() / "b.wstrace").string();
  REQUIRE(warpscope("record --kernel transpose_tiled --size 64 --out '" + a + "'").rc == 0);
  REQUIRE(warpscope("record --kernel copy --size 4096 --out '" + b + "'").rc == 0);
  ws::trace::Trace t = ws::trace::read_trace(a), u = ws::trace::read_trace(b);
  const uint32_t files = uint32_t(t.files.size()), buffers = uint32_t(t.buffers.size()),
                 sites = uint32_t(t.sites.size());
  t.files.insert(t.files.end(), u.files.begin(), u.files.end());
  t.buffers.insert(t.buffers.end(), u.buffers.begin(), u.buffers.end());
  for (auto s : u.sites) {
    s.file += files;
    s.buffer += buffers;
    t.sites.push_back(s);
  }
  t.launches.push_back(u.launch());
  for (auto r : u.records) {
    r.launch = 1;
    r.site += sites;
    r.buffer += buffers;
    t.records.push_back(r);
  }
  const std::string both = (scratch() / "both.wstrace").string();
  ws::trace::write_trace(t, both);

  json all = report_json("--trace '" + both + "'");
  REQUIRE(all["launches"].size() == 2);
  CHECK(all["launches"][0]["launch"] == 1);
  CHECK(all["launches"][0]["kernel"] == "transpose_tiled");
  CHECK(all["launches"][1]["launch"] == 2);
  CHECK(all["launches"][1]["kernel"] == "copy");
  CHECK(all["launches"][1]["sites"][0]["file"] == "basics.h");
  CHECK(all["launches"][1]["records"] == u.records.size());
  json second = report_json("--trace '" + both + "' --launch 2");
  REQUIRE(second["launches"].size() == 1);
  CHECK(second["launches"][0] == all["launches"][1]);
  CHECK(only_launch(report_json("--trace '" + a + "'"))["sites"] == all["launches"][0]["sites"]);
  Run text = warpscope("report --trace '" + both + "'");
  CHECK(text.out.find("launch    2 of 2") != std::string::npos);
  check_bad("report --trace '" + both + "' --launch 3", "allowed 1..2");
  check_bad("report --trace '" + both + "' --step 1", "--launch");
}

TEST_CASE("every catalog kernel reports and matches its CPU reference") {
  for (const auto& k : ws::catalog::all()) {
    CAPTURE(k.id);
    json rep = report_json("--kernel " + k.id);
    CHECK(only_launch(rep)["kernel"] == k.id);
    CHECK(rep["check"]["matches_reference"] == true);
    CHECK(!only_launch(rep)["sites"].empty());
  }
}

TEST_CASE("every bad input is one line on stderr and exit code 2") {
  check_bad("report --kernel nope", "unknown kernel 'nope': allowed ");
  check_bad("record --kernel nope --out x.wstrace", "transpose_tiled");
  check_bad("report --kernel transpose_tiled --set bogus=1", "unknown parameter 'bogus'");
  check_bad("report --kernel transpose_tiled --set pad=7", "allowed 0, 1");
  check_bad("report --kernel transpose_tiled --set pad", "name=value");
  check_bad("report --kernel transpose_tiled --set pad=one", "whole number");
  check_bad("report --kernel transpose_tiled --set =1", "name=value");
  check_bad("report --kernel transpose_tiled --set dram=ddr4", "allowed textbook, hbm");
  check_bad("gui --kernel transpose_tiled --set dram=ddr4", "unknown DRAM preset 'ddr4': allowed textbook, hbm");
  check_bad("report --kernel transpose_tiled --format xml", "allowed text, json");
  check_bad("list --format yaml", "allowed text, json");
  check_bad("report --kernel transpose_tiled --backend cuda", "allowed auto, gpu, emulator");
  check_bad("report --kernel transpose_tiled --size 0", "allowed 1..");
  check_bad("report --kernel transpose_tiled --size -5", "out of range");
  check_bad("report --kernel transpose_tiled --size ten", "whole number");
  check_bad("report --kernel transpose_tiled --size ''");
  check_bad("report --kernel transpose_tiled --size 99999999999999999999999", "out of range");
  check_bad("report --kernel transpose_tiled --size 32768", "too large for memory");
  check_bad("report --kernel transpose_tiled --blocks 1-x", "0,1,5-7");
  check_bad("report --kernel transpose_tiled --blocks 7-2", "backwards");
  check_bad("report --kernel transpose_tiled --size 64 --blocks 4", "outside the grid");
  check_bad("report --kernel transpose_tiled --size 64 --step 513", "allowed 1..512");
  check_bad("report --kernel transpose_tiled --size 64 --step 0", "--step");
  check_bad("report --kernel transpose_tiled --size 64 --step -1", "--step");
  check_bad("report --kernel transpose_tiled --blocks 0-4294967295", "too");
  check_bad("report", "--kernel");
  check_bad("record --kernel transpose_tiled", "--out");
  check_bad("record --kernel transpose_tiled --out x.wstrace --set dram=hbm", "dram");
  check_bad("report --kernel transpose_tiled --trace x.wstrace", "excludes");
  check_bad("report --kernel transpose_tiled --wat", "--wat");
  check_bad("frobnicate", "unknown command 'frobnicate': allowed list, report, record");
  check_bad("report --trace '" + (scratch() / "missing.wstrace").string() + "'", "cannot open");
  check_bad("report --trace '" + scratch().string() + "'", "directory");
  check_bad("record --kernel transpose_tiled --out '" + (scratch() / "no" / "dir.wstrace").string() + "'",
            "cannot write");
  if (ws::catalog::find("matmul_coarse2d_vec")) {
    check_bad("report --kernel matmul_coarse2d_vec --size 130", "multiple of 4");
    check_bad("record --kernel matmul_coarse2d_vec --size 6 --out x.wstrace", "multiple of 4");
  }
  if (ws::catalog::find("strided_copy")) check_bad("report --kernel strided_copy --set stride=3", "allowed");
  check_bad("bench --family tensor", "unknown family 'tensor': allowed basics, transpose, sgemm, swizzle, async, tma, hgemm");
  if (!ws::session::gpu_backend_built())
    check_bad("report --kernel transpose_tiled --backend gpu", "no GPU backend");
  else if (!ws::session::bench_unavailable().empty())  // built for GPUs, none here
    check_bad("report --kernel transpose_tiled --backend gpu", "no GPU found");
}

TEST_CASE("damaged trace files are one-line errors") {
  const fs::path good = scratch() / "good.wstrace";
  REQUIRE(warpscope("record --kernel transpose_tiled --size 40 --out '" + good.string() + "'").rc == 0);
  const std::string bytes = slurp(good);
  REQUIRE(bytes.size() > 64);
  auto write = [](const fs::path& p, const std::string& b) { std::ofstream(p, std::ios::binary) << b; };

  const fs::path empty = scratch() / "empty.wstrace";
  write(empty, "");
  check_bad("report --trace '" + empty.string() + "'", "not a warpscope trace");

  const fs::path text = scratch() / "text.wstrace";
  write(text, "hello, I am not a trace\n");
  check_bad("report --trace '" + text.string() + "'", "not a warpscope trace");

  const fs::path cut = scratch() / "cut.wstrace";
  for (size_t n : {size_t(5), size_t(12), size_t(20), bytes.size() / 2, bytes.size() - 1}) {
    write(cut, bytes.substr(0, n));
    check_bad("report --trace '" + cut.string() + "'", "truncated");
  }

  const fs::path flipped = scratch() / "flipped.wstrace";
  for (size_t at : {bytes.size() / 3, bytes.size() / 2, bytes.size() - 2}) {
    std::string b = bytes;
    b[at] = char(b[at] ^ 0x20);
    write(flipped, b);
    check_bad("report --trace '" + flipped.string() + "'", "corrupted");
  }

  std::string newer = bytes;
  newer[8] = 9;
  write(flipped, newer);
  check_bad("report --trace '" + flipped.string() + "'", "version 9 is newer");

  // A failed record leaves an existing file as it was.
  REQUIRE(warpscope("record --kernel transpose_tiled --size 40 --set bogus=1 --out '" + good.string() + "'").rc == 2);
  CHECK(slurp(good) == bytes);
}

TEST_CASE("bench without a GPU shows the replay pack's rows of the kernels asked for, not the whole pack") {
  if (ws::session::bench_unavailable().empty()) return;  // a GPU here: bench runs them instead
  const Run r = warpscope("bench --family swizzle");
  CHECK(r.rc == 0);
  CHECK(r.out.find("swizzle_xor") != std::string::npos);
  CHECK(r.out.find("matmul_naive") == std::string::npos);
  CHECK(r.out.find("transpose_tiled") == std::string::npos);
  const Run k = warpscope("bench --kernel copy");
  CHECK(k.out.find("copy ") != std::string::npos);
  CHECK(k.out.find("swizzle_xor") == std::string::npos);
  CHECK(k.err.find("not in the replay pack") == std::string::npos);
  // The pack's run of the top HGEMM rungs at 8192 comes after its run of every family, the
  // rows at 4096 first; as JSON, the run of every family.
  const Run h = warpscope("bench --kernel tc_wgmma");
  CHECK(h.rc == 0);
  const size_t at4096 = h.out.find("tc_wgmma                                4096"),
               at8192 = h.out.find("tc_wgmma                                8192");
  CHECK(at4096 != std::string::npos);
  CHECK(at8192 != std::string::npos);
  CHECK(at4096 < at8192);
  CHECK(warpscope("bench --format json").out.find("\"tc_mma_plain\"") != std::string::npos);
}

TEST_CASE("bench without a GPU names the kernels a replay pack has no timings of") {
  if (ws::session::bench_unavailable().empty()) return;
  // A pack measured before the catalog gained tma_transpose and tc_wgmma: the bundled run
  // with their rows taken out.
  ws::trace::BenchResult r;
  std::string err;
  REQUIRE(ws::trace::read_bench_file("assets/replay/bench.json", r, err));
  std::erase_if(r.rows, [](const ws::trace::BenchRow& w) { return w.kernel == "tma_transpose" || w.kernel == "tc_wgmma"; });
  // The binary with that pack beside it (assets/replay/ next to the binary comes first).
  const fs::path dir = scratch() / "old_pack";
  fs::create_directories(dir / "assets" / "replay");
  std::ofstream(dir / "assets" / "replay" / "bench.json") << ws::trace::bench_json(r);
  fs::copy_file(WS_BINARY, dir / "warpscope", fs::copy_options::overwrite_existing);
  const std::string old = (dir / "warpscope").string();
  // A rung the catalog gained after the pack was measured is named, not left out in silence.
  const Run t = warpscope("bench --family transpose", "", old);
  CHECK(t.out.find("transpose_tiled") != std::string::npos);
  CHECK(t.err.find("not in the replay pack (newer than its measurements): tma_transpose") != std::string::npos);
  // Only such a rung asked for: it is named in the one line that says nothing is shown.
  const Run w = warpscope("bench --kernel tc_wgmma", "", old);
  CHECK(w.rc == 1);
  CHECK(w.err.find("the replay pack has no timings of tc_wgmma") != std::string::npos);
  fs::remove_all(dir);
}
