// Lessons: every bundled lesson runs end to end headless, the answers computed from the
// traces are the ones a student works out on paper, malformed files give one clear line,
// and answers are checked and explained.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "analysis/analysis.h"
#include "analysis/cluster.h"
#include "catalog.h"
#include "lesson/lesson.h"
#include "session/lesson.h"
#include "../support.h"

using namespace ws;
namespace fs = std::filesystem;

namespace {

// A folder for this run's files, removed when the tests end.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("ws_lesson_test_" + std::to_string(::getpid()));
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

fs::path write(const std::string& name, const std::string& text) {
  fs::path p = scratch() / name;
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

// Records with the CPU emulator, remembering traces across tests.
const trace::Trace& recorded(const lesson::StepLaunch& l) {
  static lesson::Traces traces(session::lesson_recorder("emulator"));
  return traces.get(l);
}

// One step, written as a lesson author would, resolved against its recorded trace.
lesson::Resolved ask(const std::string& step_json) {
  lesson::Lesson l = lesson::parse(R"({"title": "t", "steps": [)" + step_json + "]}", "inline.json");
  REQUIRE(l.steps.size() == 1);
  return lesson::resolve_step(l.steps[0], recorded(l.steps[0].launch));
}

std::string step(const std::string& kernel, const std::string& params, const std::string& focus,
                 const std::string& metric) {
  return R"({"title": "s", "kernel": ")" + kernel + R"(", "params": {)" + params + R"(}, "focus": {)" + focus +
         R"(}, "text": "x", "question": {"ask": ")" + metric + R"(", "prompt": "?"}})";
}

// The error a malformed lesson gives.
std::string load_error(const std::string& name, const std::string& text) {
  fs::path p = write(name, text);
  try {
    lesson::load(p.string());
  } catch (const lesson::LessonError& e) {
    return e.what();
  }
  return "(no error)";
}

// A lesson with one valid step, its step object replaced by `s`.
std::string with_step(const std::string& s) { return R"({"title": "Broken", "steps": [)" + s + "]}"; }

const char* kValidStep = R"({"title": "s", "kernel": "copy", "text": "x"})";

// Every question of a bundled lesson, run on the emulator, as "kernel[ pad=P] array metric =
// answer".
std::vector<std::string> lesson_answers(const char* name) {
  lesson::Lesson l = lesson::load(lesson::find(name));
  lesson::RunReport rep = lesson::run(l, session::lesson_recorder("emulator"));
  REQUIRE(rep.ok);
  std::vector<std::string> out;
  for (const auto& sr : rep.steps)
    if (sr.resolved.question) {
      const auto& s = l.steps[sr.step];
      std::string pad = s.launch.params.count("pad") ? " pad=" + std::to_string(s.launch.params.at("pad")) : "";
      for (const auto& a : s.launch.args) pad += " " + a;
      out.push_back((s.launch.is_program() ? s.launch.program : s.launch.kernel) + pad + " " +
                    (s.focus->array.empty() ? trace::to_string(*s.focus->op) : s.focus->array) + " " +
                    lesson::info(s.question->ask).name + " = " + sr.resolved.answer.text);
    }
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

// ---- the bundled lessons ------------------------------------------------------------------

TEST_CASE("every bundled lesson parses and runs end to end headless") {
  auto entries = lesson::list();
  std::set<std::string> ids;
  for (const auto& e : entries) {
    INFO(e.path);
    CHECK(e.error == "");
    ids.insert(e.id);
  }
  for (const char* want : {"basics", "transpose", "sgemm", "pmpp_quiz"}) CHECK(ids.count(want));
  CHECK(entries.front().id == "basics");  // teaching order, from the files' "order"

  std::set<std::string> families;
  for (const auto& e : entries) {
    CAPTURE(e.id);
    lesson::Lesson l = lesson::load(e.path);
    CHECK(!l.title.empty());
    if (l.steps.front().launch.is_program() && !ws::test::have_nvcc("the program lessons skipped")) continue;
    for (const auto& s : l.steps)
      if (!s.launch.is_program()) families.insert(catalog::find(s.launch.kernel)->family);
    lesson::RunReport rep = lesson::run(l, session::lesson_recorder("emulator"));
    for (const auto& sr : rep.steps) CHECK_MESSAGE(sr.error.empty(), sr.error);
    CHECK(rep.ok);
    CHECK(rep.questions >= 5);
    for (const auto& sr : rep.steps) {
      if (!sr.resolved.question) continue;
      CHECK(sr.right.correct);
      CHECK(sr.wrong.understood);
      CHECK_FALSE(sr.wrong.correct);
      // Never the answer (past the echo of what was said, which may contain it: "uncoalesced").
      const size_t look = sr.wrong.explanation.find("Look again");
      REQUIRE(look != std::string::npos);
      CHECK(sr.wrong.explanation.find(sr.resolved.answer.text, look) == std::string::npos);
      // What the step shows before the answer does not state it ("16 sectors", "32-way").
      const lesson::Step& st = l.steps[sr.step];
      INFO(st.where);
      CHECK(st.text.find(sr.resolved.answer.text) == std::string::npos);
      if (!st.question->is_choice())  // a choice's prompt lists the choices, the answer among them
        CHECK(st.question->prompt.find(sr.resolved.answer.text) == std::string::npos);
      CHECK(sr.resolved.record != lesson::Resolved::kNone);
      CHECK(sr.resolved.after.find('{') == std::string::npos);  // every placeholder filled
    }
    std::string text = lesson::walkthrough(l, rep);
    CHECK(text.find("Answer:") != std::string::npos);
    CHECK(text.find("error") == std::string::npos);
    std::string sheet = lesson::walkthrough(l, rep, false);
    CHECK(sheet.find("Answer:") == std::string::npos);
    CHECK(sheet.find("Your answer") != std::string::npos);
  }
  // Each catalog family has a lesson.
  for (const auto& k : catalog::all()) CHECK_MESSAGE(families.count(k.family), k.family);
}

TEST_CASE("the pmpp quiz asks about every access, with the answers worked out on paper") {
  lesson::Lesson l = lesson::load(lesson::find("pmpp_quiz"));
  lesson::RunReport rep = lesson::run(l, session::lesson_recorder("emulator"));
  REQUIRE(rep.ok);
  // (array op, metric) -> answer, from the file's own steps.
  std::map<std::pair<std::string, std::string>, std::string> got, after;
  for (const auto& sr : rep.steps) {
    const auto& s = l.steps[sr.step];
    if (!s.question) continue;
    std::string access = s.focus->array + " " + trace::to_string(*s.focus->op);
    got[{access, lesson::info(s.question->ask).name}] = sr.resolved.answer.text;
    after[{access, lesson::info(s.question->ask).name}] = sr.resolved.after;
  }
  using P = std::pair<std::string, std::string>;
  // Coalescing, for all nine accesses.
  CHECK(got[P{"a load", "coalescing"}] == "coalesced");
  CHECK(got[P{"a_s store", "coalescing"}] == "n/a");
  CHECK(got[P{"b load", "coalescing"}] == "coalesced");
  CHECK(got[P{"c load", "coalescing"}] == "uncoalesced");
  CHECK(got[P{"bc_s store", "coalescing"}] == "n/a");
  CHECK(got[P{"a_s load", "coalescing"}] == "n/a");
  CHECK(got[P{"d store", "coalescing"}] == "coalesced");
  CHECK(got[P{"bc_s load", "coalescing"}] == "n/a");
  CHECK(got[P{"e store", "coalescing"}] == "uncoalesced");
  // Sectors per request, for the five global ones.
  CHECK(got[P{"a load", "site_sectors"}] == "4 sectors per request");
  CHECK(got[P{"b load", "site_sectors"}] == "4 sectors per request");
  CHECK(got[P{"c load", "site_sectors"}] == "16 sectors per request");  // lanes 16 B apart
  // d[i + 8] starts 32 B in: still on a sector boundary (4 sectors), across two lines.
  CHECK(got[P{"d store", "site_sectors"}] == "4 sectors per request");
  CHECK(after[P{"d store", "site_sectors"}].find("spans 2 lines") != std::string::npos);
  CHECK(got[P{"e store", "site_sectors"}] == "32 sectors per request");
  // The one shared access with a conflict.
  CHECK(got[P{"bc_s load", "way"}] == "4-way");
  CHECK(rep.questions == got.size());
}

TEST_CASE("the bundled transpose and sgemm lessons reach the key answers") {
  auto t = lesson_answers("transpose");
  CHECK(has(t, "transpose_tiled pad=0 tile way = 32-way"));
  CHECK(has(t, "transpose_tiled pad=0 tile conflicts = 31 bank conflicts"));
  CHECK(has(t, "transpose_tiled pad=1 tile way = 1-way"));
  CHECK(has(t, "transpose_read_coalesced out sectors = 32 sectors"));
  auto g = lesson_answers("sgemm");
  CHECK(has(g, "matmul_naive_uncoalesced A sectors = 32 sectors"));
  CHECK(has(g, "matmul_naive B sectors = 4 sectors"));
  CHECK(has(g, "matmul_naive_colmajor B coalescing = uncoalesced"));
  // Past the published kernels, worked out on paper. Warp tiles: 4 lanes a row read 4
  // neighbouring float4s (64 bytes), every row the same: a 16-byte load's least, 4 wavefronts.
  CHECK(has(g, "matmul_warptile Bs wavefronts = 4 wavefronts"));
  // As rows of 132 words: lane t writes word (4·(t%2) + q)·132 + t/2, bank 16·(t%2) + 4q + t/2.
  CHECK(has(g, "matmul_warptile As bank_conflict = conflict-free"));
  // One load of A a k-slice of 8: 128 / 8.
  CHECK(has(g, "matmul_double_buffer A requests = 16 requests"));
  // k-slices of 16: lane t writes k-rows 4·(t%4).., bank 16·(t%4) + 4q + t/4: lanes t%4 = 0 and 2 meet.
  CHECK(has(g, "matmul_tuned As way = 2-way"));
}

TEST_CASE("the bundled swizzle and async copy lessons reach the H100's figures") {
  auto w = lesson_answers("swizzle");
  INFO(w.size());
  CHECK(has(w, "swizzle_plain tile wavefronts = 32 wavefronts"));
  CHECK(has(w, "swizzle_padded tile wavefronts = 4 wavefronts"));
  CHECK(has(w, "swizzle_xor tile wavefronts = 4 wavefronts"));
  CHECK(has(w, "swizzle_xor tile bank_conflict = conflict-free"));
  auto a = lesson_answers("async_copy");
  CHECK(has(a, "async_copy_tiles in sectors = 8 sectors"));
  CHECK(has(a, "async_copy_tiles tile wavefronts = 2 wavefronts"));
  CHECK(has(a, "async_copy_tiles in requests = 7 requests"));
}

TEST_CASE("the bundled tma lesson: the catalog's TMA box, on paper") {
  auto t = lesson_answers("tma");
  INFO(t.size());
  // One record: 32 pieces of 16 bytes, rows 0 to 3 of the box, 128 bytes each: 4 whole
  // sectors a row, nothing shared with another record.
  CHECK(has(t, "tma_copy in sectors = 16 sectors"));
  CHECK(has(t, "tma_copy in coalescing = coalesced"));
  // A warp reads one 128-byte row of the tile: its 8 chunks only change places within the
  // row under the swizzle, so the 32 banks are covered once either way.
  CHECK(has(t, "tma_copy tile way = 1-way"));
  CHECK(std::count(t.begin(), t.end(), "tma_copy tile way = 1-way") == 2);
  CHECK(has(t, "tma_copy out coalescing = coalesced"));
  // tma_transpose reads a column of a 128-byte-wide box: one bank with no swizzle; under the
  // 128-byte swizzle the column's chunks move only within 8 rows, 8 banks; a staircase of 8
  // rows in each of 4 columns, 32 banks.
  CHECK(has(t, "tma_transpose tile way = 32-way"));
  CHECK(has(t, "tma_transpose tile way = 4-way"));
  CHECK(has(t, "tma_transpose tile way = 1-way"));
  CHECK(t.size() == 8);
}

TEST_CASE("the bundled hopper lesson: a TMA box's bytes, the ring's depth, the 128-byte swizzle, a GEMM's stage, on paper") {
  if (!ws::test::have_nvcc("the hopper lesson skipped")) return;
  auto h = lesson_answers("hopper");
  INFO(h.size());
  // A 32 x 32 box of floats: 32 rows of 128 bytes; 232,448 / 4,096 = 56.75.
  CHECK(has(h, "tma_ring.cu 256 0 d_in copy_bytes = 4096 bytes"));
  CHECK(has(h, "tma_ring.cu 256 0 d_in stages_fit = 56 stages"));
  // Lane i reads row i's 16-byte chunk (four columns); rows 128 bytes apart: the 8 lanes of
  // a phase all in the same four banks. Under the swizzle row r's chunk c is at c ^ (r % 8).
  CHECK(has(h, "tma_ring.cu 256 0 load way = 8-way"));
  CHECK(has(h, "tma_ring.cu 256 128 load way = 1-way"));
  CHECK(has(h, "tma_ring.cu 256 128 d_out coalescing = coalesced"));
  // Rank 0's multicast lands the 4 KiB A box in its partner too (mask 0b11, clusters of 2).
  CHECK(has(h, "tma_multicast.cu 128 1 dA multicast_bytes = 4096 bytes"));
  // Without multicast each CTA reads its own A box: nothing lands unasked.
  const lesson::Resolved own = ask(R"({"title": "s", "program": "tma_multicast.cu", "args": ["128", "0"],
      "focus": {"array": "dA", "op": "load"}, "text": "x", "question": {"ask": "multicast_bytes", "prompt": "?"}})");
  CHECK(own.answer.text == "0 bytes");
  // Over the launch: rank 0 multicast 4 boxes (k-steps of 32 at N = 128) of 4 KiB into rank 1.
  const lesson::Lesson mc = lesson::parse(
      R"({"title": "t", "steps": [{"title": "s", "program": "tma_multicast.cu", "args": ["128", "1"], "text": "x"}]})", "mc.json");
  const analysis::Cluster c = analysis::cluster_of(recorded(mc.steps[0].launch), 0, 0);
  REQUIRE(c.fanouts.size() == 1);
  CHECK(c.fanouts[0].to == 1);
  CHECK(c.fanouts[0].from == std::vector<uint32_t>{0});
  CHECK(c.fanouts[0].copies == 4);
  CHECK(c.fanouts[0].bytes == 4 * 4096);
  // tc_wgmma's B box: bn = 256 rows of 64 halves (128 bytes); its C store, a warp's 8 rows
  // of 4 lanes × 8 bytes: 8 whole sectors.
  CHECK(has(h, "tc_wgmma B copy_bytes = 32768 bytes"));
  CHECK(has(h, "tc_wgmma store coalescing = coalesced"));
  // tc_wgmma_cluster: rank 0's B box (256 rows of 128 bytes) lands in rank 1 as well.
  CHECK(has(h, "tc_wgmma_cluster B multicast_bytes = 32768 bytes"));
  // Its producer warpgroup keeps 40 of the 168 registers a thread (65,536 / 384 in eights).
  CHECK(has(h, "tc_wgmma_cluster B registers_given = 16384 registers"));
}

// ---- answers computed from traces ------------------------------------------------------

TEST_CASE("copy_bytes and stages_fit: every record of one bulk copy's issue, and 227 KiB divided by it") {
  // A bulk copy site (16 bytes a lane) issued twice by warp 0: seq 5 in three records of 32,
  // 32 and 8 lanes (1,152 bytes), seq 9 in one; a plain load beside it.
  trace::Trace t;
  t.launches.push_back({});
  t.launches[0].kernel = "k";
  t.launches[0].blocks = {0};
  t.buffers.push_back({});
  t.buffers[0].name = "in";
  trace::Site bulk;
  bulk.bytes = 16;
  bulk.form = trace::Form::BulkRead;
  bulk.buffer = 0;
  bulk.line = 3;
  trace::Site plain = bulk;
  plain.form = trace::Form::Plain;
  plain.bytes = 4;
  plain.line = 4;
  t.sites = {bulk, plain};
  auto rec = [&](uint32_t site, uint32_t seq, uint32_t active) {
    trace::Record r;
    r.site = site;
    r.seq = seq;
    r.active = active;
    for (int l = 0; l < 32; ++l) r.offset[size_t(l)] = uint32_t(16 * l);
    t.records.push_back(r);
  };
  rec(0, 5, ~0u);
  rec(0, 5, ~0u);
  rec(0, 5, 0xffu);
  rec(1, 6, ~0u);
  rec(0, 9, ~0u);
  auto ask_on = [&](const char* focus, const char* metric) {
    lesson::Lesson l = lesson::parse(R"({"title": "t", "steps": [{"title": "s", "program": "p.cu", "focus": {)" +
                                         std::string(focus) + R"(}, "text": "x", "question": {"ask": ")" + metric +
                                         R"(", "prompt": "?"}}]})",
                                     "paper.json");
    return lesson::resolve_step(l.steps[0], t);
  };
  CHECK(ask_on(R"("line": 3)", "copy_bytes").answer.text == "1152 bytes");
  // The request's line says whose copy a record is, and which of its records.
  CHECK(analysis::why(t, t.records[1]).rfind("one thread's bulk copy of 1152 bytes, record 2 of 3: its 32 pieces of 16 bytes → ", 0) == 0);
  CHECK(analysis::why(t, t.records[3]).find("bulk") == std::string::npos);  // the plain load beside it
  CHECK(ask_on(R"("line": 3)", "stages_fit").answer.value == 201);  // 232,448 / 1,152 = 201.8
  CHECK(ask_on(R"("line": 3, "request": 4)", "copy_bytes").answer.text == "512 bytes");
  CHECK(ask_on(R"("line": 3, "request": 4)", "stages_fit").answer.text == "454 stages");
  try {
    ask_on(R"("line": 4)", "copy_bytes");
    FAIL("a plain load answered copy_bytes");
  } catch (const lesson::LessonError& e) {
    CHECK(std::string(e.what()).find("'copy_bytes' is about a bulk (TMA) copy, but the focused in load is not one") !=
          std::string::npos);
  }
}

TEST_CASE("a step may show a launch of an example program: its file, arguments and launch, continued by the next") {
  lesson::Lesson l = lesson::parse(R"({"title": "x", "steps": [
      {"title": "a", "program": "tma_ring.cu", "args": ["256", "0"], "text": "x"},
      {"title": "b", "args": ["256", "128"], "launch": 2, "text": "y"},
      {"title": "c", "kernel": "copy", "text": "z"}]})",
                                   "programs.json");
  REQUIRE(l.steps.size() == 3);
  CHECK(l.steps[0].launch.is_program());
  CHECK(l.steps[0].launch.args == std::vector<std::string>{"256", "0"});
  CHECK(l.steps[1].launch.program == "tma_ring.cu");
  CHECK(l.steps[1].launch.launch == 1);
  CHECK_FALSE(l.steps[2].launch.is_program());
  CHECK(lesson::launch_text(l.steps[0].launch) == "256 0, launch 1");
  CHECK(lesson::launch_text(l.steps[1].launch) == "256 128, launch 2");
  // The run's spec: the example found beside the assets, its arguments, the launch shown.
  const session::LaunchSpec spec = session::spec_of(l.steps[1].launch);
  CHECK(fs::path(spec.program.source).filename() == "tma_ring.cu");
  CHECK(fs::exists(spec.program.source));
  CHECK(spec.program.args == std::vector<std::string>{"256", "128"});
  CHECK(spec.launch == 1);
  // A program that is not among the examples: one line, not a crash.
  lesson::Lesson gone = lesson::parse(R"({"title": "x", "steps": [{"title": "a", "program": "nowhere.cu", "text": "x"}]})",
                                      "gone.json");
  try {
    session::lesson_recorder("emulator")(gone.steps[0].launch);
    FAIL("a missing example ran");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()) == "the example program nowhere.cu is not in this installation's examples folder");
  }
}

TEST_CASE("transpose_tiled: the tile store is a 32-way conflict without padding, 1-way with it") {
  auto r0 = ask(step("transpose_tiled", R"("pad": 0)", R"("array": "tile", "op": "store")", "way"));
  CHECK(r0.answer.value == 32);
  CHECK(r0.answer.text == "32-way");
  CHECK(r0.why == "all 32 lanes hit bank 0 in different words → 32-way conflict");
  CHECK(ask(step("transpose_tiled", R"("pad": 0)", R"("array": "tile", "op": "store")", "conflicts")).answer.value == 31);
  CHECK(ask(step("transpose_tiled", R"("pad": 0)", R"("array": "tile", "op": "store")", "wavefronts")).answer.value == 32);
  CHECK(ask(step("transpose_tiled", R"("pad": 0)", R"("array": "tile", "op": "store")", "site_way")).answer.value == 32);
  CHECK(ask(step("transpose_tiled", R"("pad": 0)", R"("array": "tile", "op": "store")", "site_conflicts")).answer.value ==
        31);
  CHECK(ask(step("transpose_tiled", R"("pad": 0)", R"("array": "tile", "op": "store")", "bank_conflict")).answer.text ==
        "bank conflict");
  auto r1 = ask(step("transpose_tiled", R"("pad": 1)", R"("array": "tile", "op": "store")", "way"));
  CHECK(r1.answer.value == 1);
  CHECK(ask(step("transpose_tiled", R"("pad": 1)", R"("array": "tile", "op": "store")", "bank_conflict")).answer.text ==
        "conflict-free");
  // Both global sides of the tiled transpose are coalesced.
  CHECK(ask(step("transpose_tiled", R"("pad": 1)", R"("array": "in", "op": "load")", "coalescing")).answer.text ==
        "coalesced");
  CHECK(ask(step("transpose_tiled", R"("pad": 1)", R"("array": "out", "op": "store")", "sectors")).answer.value == 4);
}

TEST_CASE("naive SGEMM: B loads coalesce along columns, A loads scatter along rows") {
  auto b = ask(step("matmul_naive", "", R"("array": "B", "op": "load")", "sectors"));
  CHECK(b.answer.value == 4);
  CHECK(b.answer.text == "4 sectors");
  auto a = ask(step("matmul_naive_uncoalesced", "", R"("array": "A", "op": "load")", "sectors"));
  CHECK(a.answer.value == 32);
  CHECK(ask(step("matmul_naive_uncoalesced", "", R"("array": "A", "op": "load")", "efficiency")).answer.text == "12.5%");
  CHECK(ask(step("matmul_naive_uncoalesced", "", R"("array": "A", "op": "load")", "coalescing")).answer.text ==
        "uncoalesced");
  // Every lane on the same B word: a broadcast, one sector.
  CHECK(ask(step("matmul_naive_uncoalesced", "", R"("array": "B", "op": "load")", "sectors")).answer.value == 1);
  CHECK(ask(step("matmul_naive_colmajor", "", R"("array": "B", "op": "load")", "sectors")).answer.value == 32);
  // Coarsening: warp 0 loads A once per phase (N/32 = 4) and B once per phase and tile (16).
  auto coarse = [](const char* array) {
    return ask(std::string(R"({"title": "s", "kernel": "matmul_coarse1d", "size": 128, "params": {"coarse": 4},
                               "blocks": [0], "text": "x", "focus": {"op": "load", "array": ")") +
               array + R"("}, "question": {"ask": "requests", "prompt": "?"}})");
  };
  CHECK(coarse("A").answer.value == 4);
  CHECK(coarse("B").answer.value == 16);
  CHECK(coarse("B").answer.text == "16 requests");
}

TEST_CASE("the pmpp exercise kernel, access by access") {
  auto q = [](const std::string& focus, const std::string& metric) {
    return ask(step("pmpp_exercise", "", focus, metric)).answer;
  };
  CHECK(q(R"("array": "a", "op": "load")", "coalescing").text == "coalesced");
  CHECK(q(R"("array": "a", "op": "load")", "sectors").value == 4);
  CHECK(q(R"("array": "b", "op": "load")", "coalescing").text == "coalesced");
  CHECK(q(R"("array": "b", "op": "load")", "sectors").value == 4);
  CHECK(q(R"("array": "c", "op": "load")", "coalescing").text == "uncoalesced");
  CHECK(q(R"("array": "c", "op": "load")", "sectors").value == 16);
  CHECK(q(R"("array": "c", "op": "load", "request": 4)", "sectors").value == 16);  // j = 3
  CHECK(q(R"("array": "c", "op": "load")", "efficiency").value == 25);
  CHECK(q(R"("array": "d", "op": "store")", "coalescing").text == "coalesced");
  CHECK(q(R"("array": "d", "op": "store")", "sectors").value == 4);
  CHECK(q(R"("array": "d", "op": "store")", "lines").value == 2);
  CHECK(q(R"("array": "e", "op": "store")", "coalescing").text == "uncoalesced");
  CHECK(q(R"("array": "e", "op": "store")", "sectors").value == 32);
  CHECK(q(R"("array": "e", "op": "store")", "site_sectors").value == 32);
  for (const char* shared : {R"("array": "a_s", "op": "store")", R"("array": "bc_s", "op": "store")",
                             R"("array": "a_s", "op": "load")", R"("array": "bc_s", "op": "load")"}) {
    CAPTURE(shared);
    CHECK(q(shared, "coalescing").text == "n/a");
  }
  CHECK(q(R"("array": "bc_s", "op": "load")", "way").value == 4);
  CHECK(q(R"("code": "bc_s[threadIdx.x*4]", "op": "load")", "way").value == 4);  // by source text
  CHECK(q(R"("array": "bc_s", "op": "store")", "bank_conflict").text == "conflict-free");
  CHECK(q(R"("array": "e", "op": "store")", "bank_conflict").text == "n/a");
}

TEST_CASE("the copies: strides and misalignment") {
  CHECK(ask(step("strided_copy", R"("stride": 2)", R"("array": "in", "op": "load")", "sectors")).answer.value == 8);
  CHECK(ask(step("strided_copy", R"("stride": 8)", R"("array": "in", "op": "load")", "efficiency")).answer.value ==
        doctest::Approx(12.5));
  CHECK(ask(step("strided_copy", R"("stride": 32)", R"("array": "in", "op": "load")", "sectors")).answer.value == 32);
  CHECK(ask(step("offset_copy", R"("offset": 1)", R"("array": "in", "op": "load")", "sectors")).answer.value == 5);
  CHECK(ask(step("offset_copy", R"("offset": 1)", R"("array": "in", "op": "load")", "ideal_sectors")).answer.value == 4);
  CHECK(ask(step("offset_copy", R"("offset": 8)", R"("array": "in", "op": "load")", "sectors")).answer.value == 4);
}

TEST_CASE("the answer comes from the trace, not from the lesson file") {
  // A hand-made trace where lane k reads byte 8k: 8 sectors. The step names `copy`, but
  // whatever trace it is resolved against decides the answer.
  trace::Trace t;
  t.launch().kernel = "copy";
  t.buffers.push_back({.name = "in", .size_bytes = 4096});
  t.sites.push_back({.line = 7, .op = trace::Op::Load, .code = "x = in[2 * i];", .buffer = 0});
  trace::Record r;
  r.active = ~0u;
  for (int k = 0; k < 32; ++k) r.offset[size_t(k)] = uint32_t(8 * k);
  t.records.push_back(r);
  t.launch().blocks = {0};
  lesson::Lesson l = lesson::parse(with_step(step("copy", "", R"("array": "in")", "sectors")), "inline.json");
  auto res = lesson::resolve_step(l.steps[0], t);
  CHECK(res.answer.value == 8);
  CHECK(res.record == 0);
  CHECK(res.code == "x = in[2 * i];");
  CHECK(res.focus.find("line 7") != std::string::npos);
  // The same step against the real copy kernel.
  CHECK(ask(step("copy", "", R"("array": "in")", "sectors")).answer.value == 4);
}

// ---- checking answers -------------------------------------------------------------------

TEST_CASE("a wrong answer is marked wrong and told where to look, never what the answer is") {
  auto r = ask(step("transpose_tiled", R"("pad": 0)", R"("array": "tile", "op": "store")", "way"));
  auto v = r.check("4");
  CHECK(v.understood);
  CHECK_FALSE(v.correct);
  CHECK(v.explanation.find("Not quite: you said 4. Look again: ") == 0);
  CHECK(v.explanation.find("32") == std::string::npos);
  CHECK(v.explanation.find(r.why) == std::string::npos);
  CHECK(v.explanation.find('\n') == std::string::npos);
  for (const char* right : {"32", " 32 ", "32-way", "32 way", "32x", "32.0"}) {
    CAPTURE(right);
    CHECK(r.check(right).correct);
  }
  CHECK(r.check("32-way").explanation.find("Right: 32-way") == 0);
  for (const char* junk : {"", "  ", "lots", "4 or 5", "-"}) {
    CAPTURE(junk);
    auto j = r.check(junk);
    CHECK_FALSE(j.understood);
    CHECK_FALSE(j.correct);
    CHECK(j.explanation.find("number") != std::string::npos);
  }
  CHECK(lesson::wrong_answer(r) == "64");
  CHECK_FALSE(r.check(lesson::wrong_answer(r)).correct);
}

TEST_CASE("number answers: tolerance and percentages") {
  auto r = ask(step("strided_copy", R"("stride": 8)", R"("array": "in", "op": "load")", "efficiency"));
  CHECK(r.answer.text == "12.5%");
  CHECK(r.check("12.5%").correct);
  CHECK(r.check("12.5 %").correct);
  CHECK(r.check("13").correct);  // efficiency: within one percentage point
  CHECK_FALSE(r.check("50%").correct);
  lesson::Lesson strict = lesson::parse(
      with_step(R"({"title": "s", "kernel": "strided_copy", "params": {"stride": 8}, "focus": {"array": "in"},
                    "text": "x", "question": {"ask": "efficiency", "prompt": "?", "tolerance": 0}})"),
      "strict.json");
  auto rs = lesson::resolve_step(strict.steps[0], recorded(strict.steps[0].launch));
  CHECK(rs.check("12.5").correct);
  CHECK_FALSE(rs.check("13").correct);
}

TEST_CASE("choice answers: names, aliases and numbers") {
  auto c = ask(step("pmpp_exercise", "", R"("array": "c", "op": "load")", "coalescing"));
  REQUIRE(c.question);
  CHECK(c.question->choices == std::vector<std::string>{"coalesced", "uncoalesced", "n/a"});
  for (const char* right : {"uncoalesced", "Uncoalesced.", "not coalesced", "2", "UNCOALESCED"}) {
    CAPTURE(right);
    CHECK(c.check(right).correct);
  }
  auto v = c.check("coalesced");
  CHECK(v.understood);
  CHECK_FALSE(v.correct);
  CHECK(v.explanation.find("Not quite: you said coalesced. Look again: ") == 0);
  CHECK(v.explanation.find("uncoalesced") == std::string::npos);
  CHECK(v.explanation.find("16") == std::string::npos);
  auto bad = c.check("maybe");
  CHECK_FALSE(bad.understood);
  CHECK(bad.explanation == "Answer with one of: coalesced, uncoalesced, n/a");
  CHECK_FALSE(c.check("4").understood);

  auto s = ask(step("pmpp_exercise", "", R"("array": "a_s", "op": "store")", "coalescing"));
  for (const char* right : {"n/a", "N/A", "na", "not applicable", "3", "n/a (shared memory)"}) {
    CAPTURE(right);
    CHECK(s.check(right).correct);
  }
  CHECK(s.check("coalesced").explanation.find("n/a") == std::string::npos);
  CHECK(s.check("coalesced").explanation.find("which memory the array lives in") != std::string::npos);
}

// ---- focus ------------------------------------------------------------------------------

TEST_CASE("focus: site, block, warp and request select the record") {
  lesson::Lesson l = lesson::parse(
      with_step(R"({"title": "s", "kernel": "pmpp_exercise", "focus": {"array": "c", "block": 2, "warp": 3, "request": 2},
                    "text": "x"})"),
      "focus.json");
  const trace::Trace& t = recorded(l.steps[0].launch);
  auto r = lesson::resolve_step(l.steps[0], t);
  REQUIRE(r.record != lesson::Resolved::kNone);
  const auto& rec = t.records[r.record];
  CHECK(rec.block == 2);
  CHECK(rec.warp == 3);
  CHECK(t.buffers[t.sites[rec.site].buffer].name == "c");
  // Request 2 of that warp at c: j = 1, so lane 0 reads c[i * 4 + 1] with i = 2*256 + 3*32.
  CHECK(rec.offset[0] == uint32_t(4 * ((2 * 256 + 3 * 32) * 4 + 1)));
  CHECK(r.focus == "line " + std::to_string(t.sites[rec.site].line) + " · c load (global) · block 2 warp 3 (its request 2 here) · request " +
                       std::to_string(r.record + 1) + " of " + std::to_string(t.records.size()));
  CHECK_FALSE(r.question);

  // A focus naming only a warp takes its n-th request, whatever the site.
  lesson::Lesson w = lesson::parse(
      with_step(R"({"title": "s", "kernel": "copy", "focus": {"warp": 1, "request": 2}, "text": "x"})"), "w.json");
  auto rw = lesson::resolve_step(w.steps[0], recorded(w.steps[0].launch));
  const trace::Trace& tw = recorded(w.steps[0].launch);
  CHECK(tw.records[rw.record].warp == 1);
  CHECK(tw.sites[tw.records[rw.record].site].op == trace::Op::Store);

  // A step without a focus resolves to nothing in particular.
  lesson::Lesson n = lesson::parse(with_step(kValidStep), "n.json");
  CHECK(lesson::resolve_step(n.steps[0], recorded(n.steps[0].launch)).record == lesson::Resolved::kNone);
}

TEST_CASE("focus errors name the step and what is available") {
  auto err = [](const std::string& s) -> std::string {
    lesson::Lesson l = lesson::parse(with_step(s), "f.json");
    try {
      lesson::resolve_step(l.steps[0], recorded(l.steps[0].launch));
    } catch (const lesson::LessonError& e) {
      return e.what();
    }
    return "(no error)";
  };
  std::string e = err(R"({"title": "s", "kernel": "transpose_tiled", "focus": {"array": "tile", "op": "atomic"}, "text": "x"})");
  CHECK(e.find("f.json, step 1: no site matches tile atomic in transpose_tiled; its sites: in load (line") == 0);
  CHECK(e.find("tile store") != std::string::npos);
  e = err(R"({"title": "s", "kernel": "copy", "blocks": [0], "focus": {"array": "in", "block": 3}, "text": "x"})");
  CHECK(e == "f.json, step 1: block 3 was not recorded");
  e = err(R"({"title": "s", "kernel": "copy", "focus": {"array": "in", "request": 6}, "text": "x"})");
  CHECK(e.find("f.json, step 1: block 0 warp 0 issues 1 request at line") == 0);
  CHECK(e.find("its request 6 does not exist") != std::string::npos);
  CHECK_THROWS_AS(lesson::parse(with_step(R"({"title": "s", "kernel": "copy", "focus": {"array": "in", "request": 0}, "text": "x"})"),
                                "f.json"),
                  lesson::LessonError);  // requests are counted from 1
  e = err(step("transpose_tiled", "", R"("array": "tile", "op": "store")", "sectors"));
  CHECK(e == "f.json, step 1: 'sectors' is about global memory, but tile is in shared memory");
  e = err(step("copy", "", R"("array": "in")", "way"));
  CHECK(e == "f.json, step 1: 'way' is about shared memory, but in is in global memory");
}

// ---- lesson files -----------------------------------------------------------------------

TEST_CASE("a malformed lesson file gives one line naming the file and the problem") {
  struct Case {
    const char* text;
    const char* expect;  // after "<path>: ", or after "<path>, " for "step N: ..."
  };
  const Case cases[] = {
      {R"({"title": "x", "steps": [)", "not valid JSON: parse error at line 1, column 26"},
      {"[]", "expected a JSON object with \"title\" and \"steps\", got a list"},
      {R"({"steps": [{"title": "s", "kernel": "copy", "text": "x"}]})", "title: missing"},
      {R"({"title": "x", "steps": []})", "steps: empty: a lesson needs at least one step"},
      {R"({"title": "x", "setps": []})", "setps: unknown key; allowed: order, steps, summary, title"},
      {R"({"title": "x", "steps": [{"title": "s", "text": "x"}]})",
       "step 1: kernel: missing (the first step must name a kernel or a program)"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "copy", "program": "tma_ring.cu", "text": "x"}]})",
       "step 1: program: a step names a kernel or a program, not both"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "copy", "args": ["1"], "text": "x"}]})",
       "step 1: args: only a program step has arguments"},
      {R"({"title": "x", "steps": [{"title": "s", "program": "tma_ring.cu", "size": 64, "text": "x"}]})",
       "step 1: size: a program takes its sizes from its arguments (\"args\")"},
      {R"({"title": "x", "steps": [{"title": "s", "program": "../tma_ring.cu", "text": "x"}]})",
       "step 1: program: '../tma_ring.cu' is not a .cu file name of the examples folder"},
      {R"({"title": "x", "steps": [{"title": "s", "program": "tma_ring.cu", "launch": 0, "text": "x"}]})",
       "step 1: launch: 0 is out of range 1..1048576"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "matmul_fast", "text": "x"}]})",
       "step 1: kernel: unknown kernel 'matmul_fast'; allowed: copy, strided_copy"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "transpose_tiled", "params": {"pad": 2}, "text": "x"}]})",
       "step 1: parameter pad=2 is not allowed for transpose_tiled: allowed 0, 1"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "copy", "size": "big", "text": "x"}]})",
       "step 1: size: expected an integer, got a string"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "copy", "text": "x", "focus": {"array": "in"},
           "question": {"ask": "sector", "prompt": "?"}}]})",
       "step 1: question.ask: unknown metric 'sector'; allowed: sectors, lines"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "copy", "text": "x", "question": {"ask": "sectors", "prompt": "?"}}]})",
       "step 1: question: needs a focus naming an access (focus.array, .op, .code or .line)"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "copy", "text": "x", "focus": {"array": "in"},
           "question": {"ask": "sectors"}}]})",
       "step 1: question.prompt: missing"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "copy", "text": "x", "focus": {"array": "in", "op": "read"}}]})",
       "step 1: focus.op: unknown op 'read'; allowed: load, store, atomic"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "copy", "text": "x", "focus": {"array": "in"},
           "question": {"ask": "sectors", "prompt": "?", "answer": 4}}]})",
       "step 1: question.answer: unknown key; allowed: ask, prompt, tolerance"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "copy", "text": "x", "focus": {"array": "in"},
           "after": "{sector} sectors"}]})",
       "step 1: after: unknown placeholder {sector}"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "copy", "text": ["a", 3]}]})",
       "step 1: text[1]: expected a string, got an integer"},
      {R"({"title": "x", "steps": [{"title": "s", "kernel": "copy", "text": "x"}, {"title": "t", "text": "y", "focus": 1}]})",
       "step 2: focus: expected an object, got an integer"},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string name = "bad" + std::to_string(n++) + ".json";
    const std::string path = (scratch() / name).string();
    std::string e = load_error(name, c.text);
    CAPTURE(c.text);
    const std::string expect = std::string(c.expect).rfind("step ", 0) == 0 ? path + ", " + c.expect : path + ": " + c.expect;
    CHECK_MESSAGE(e.rfind(expect, 0) == 0, e);
    CHECK(e.find('\n') == std::string::npos);
  }
  std::string missing = (scratch() / "nope.json").string();
  try {
    lesson::load(missing);
    FAIL("no error");
  } catch (const lesson::LessonError& e) {
    CHECK(std::string(e.what()) == missing + ": cannot open the lesson file");
  }
}

TEST_CASE("steps without a kernel continue the previous launch, with overrides") {
  lesson::Lesson l = lesson::parse(R"({"title": "x", "steps": [
      {"title": "a", "kernel": "transpose_tiled", "size": 96, "params": {"pad": 0}, "blocks": [1, 0, 1], "text": "x"},
      {"title": "b", "params": {"pad": 1}, "text": "y"},
      {"title": "c", "kernel": "copy", "text": "z"}]})",
                                   "inherit.json");
  REQUIRE(l.steps.size() == 3);
  CHECK(l.id == "inherit");
  CHECK(l.steps[0].launch.blocks == std::vector<uint32_t>{0, 1});
  CHECK(l.steps[1].launch.kernel == "transpose_tiled");
  CHECK(l.steps[1].launch.size == 96);
  CHECK(l.steps[1].launch.params.at("pad") == 1);
  CHECK(l.steps[1].launch.blocks == std::vector<uint32_t>{0, 1});
  CHECK(l.steps[2].launch == lesson::StepLaunch{"copy", 0, {}, {}});
  CHECK(l.steps[1].where == "inherit.json, step 2");
  CHECK(lesson::launch_text(l.steps[1].launch) == "size=96 pad=1 blocks=0,1");
  CHECK(lesson::launch_text(l.steps[2].launch) == "size=4096");
}

TEST_CASE("lessons are found by name or path; the folder can be overridden") {
  std::string p = lesson::find("basics");
  CHECK(fs::path(p).filename() == "basics.json");
  CHECK(lesson::find(p) == p);
  try {
    lesson::find("nosuch");
    FAIL("no error");
  } catch (const lesson::LessonError& e) {
    std::string m = e.what();
    CHECK(m.rfind("unknown lesson 'nosuch'; allowed: basics, pmpp_quiz, transpose, sgemm", 0) == 0);
  }
  try {
    lesson::find("dir/nosuch.json");
    FAIL("no error");
  } catch (const lesson::LessonError& e) {
    CHECK(std::string(e.what()) == "dir/nosuch.json: no such lesson file");
  }

  fs::path dir = scratch() / "mine";
  write("mine/one.json", with_step(kValidStep));
  write("mine/broken.json", "{");
  write("mine/notes.txt", "not a lesson");
  ::setenv("WARPSCOPE_LESSONS", dir.c_str(), 1);
  CHECK(lesson::lessons_dir() == dir.string());
  auto entries = lesson::list();
  ::unsetenv("WARPSCOPE_LESSONS");
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].id == "broken");
  CHECK(entries[0].error.find("not valid JSON") != std::string::npos);
  CHECK(entries[1].id == "one");
  CHECK(entries[1].title == "Broken");
  CHECK(entries[1].steps == 1);
  CHECK(lesson::lessons_dir() != dir.string());
}

TEST_CASE("steps that share a launch share one recording") {
  int calls = 0;
  auto counting = [&calls](const lesson::StepLaunch& l) {
    ++calls;
    return session::lesson_recorder("emulator")(l);
  };
  lesson::Lesson l = lesson::load(lesson::find("transpose"));
  std::vector<lesson::StepLaunch> distinct;
  for (const auto& s : l.steps)
    if (std::find(distinct.begin(), distinct.end(), s.launch) == distinct.end()) distinct.push_back(s.launch);
  auto rep = lesson::run(l, counting);
  CHECK(rep.ok);
  CHECK(calls == int(distinct.size()));
  CHECK(calls < int(l.steps.size()));
}

TEST_CASE("a recorder that fails shows as a step error, not a crash") {
  lesson::Lesson l = lesson::parse(with_step(kValidStep), "fail.json");
  auto rep = lesson::run(l, [](const lesson::StepLaunch&) -> trace::Trace { throw std::runtime_error("no device"); });
  CHECK_FALSE(rep.ok);
  REQUIRE(rep.steps.size() == 1);
  CHECK(rep.steps[0].error == "fail.json, step 1: no device");
  CHECK(lesson::walkthrough(l, rep).find("error: fail.json, step 1: no device") != std::string::npos);
}

// ---- text -------------------------------------------------------------------------------

TEST_CASE("lesson text: paragraphs, bullets and code") {
  auto p = lesson::paragraphs("One line\njoins the next.\n\n- a bullet\n  that goes on\n- another\n    code(x);\nEnd.");
  CHECK(p == std::vector<std::string>{"One line joins the next.", "", "- a bullet that goes on", "- another",
                                      "    code(x);", "End."});
  CHECK(lesson::wrap("aaa bbb ccc ddd", 8) == "aaa bbb\nccc ddd\n");
  CHECK(lesson::wrap("- aaa bbb ccc", 9, 2) == "  - aaa\n    bbb\n    ccc\n");
}

TEST_CASE("teach: a student answers in a terminal") {
  lesson::Lesson l = lesson::parse(R"({"title": "Mini", "steps": [
      {"title": "one", "kernel": "strided_copy", "params": {"stride": 2}, "focus": {"array": "in"}, "text": "t",
       "question": {"ask": "sectors", "prompt": "How many?"}, "after": "Efficiency {efficiency}%."},
      {"title": "two", "focus": {"array": "in"}, "text": "t", "question": {"ask": "coalescing", "prompt": "Which?"}},
      {"title": "three", "focus": {"array": "out"}, "text": "t", "question": {"ask": "sectors", "prompt": "And?"}},
      {"title": "four", "text": "the end"}]})",
                                   "mini.json");
  // Right, then junk followed by a wrong choice, then Enter (reveal), then the input ends.
  std::istringstream in("8\n\nwhat\ncoalesced\n\n\n");
  std::ostringstream out;
  auto res = lesson::teach(l, session::lesson_recorder("emulator"), in, out);
  CHECK(res.questions == 3);
  CHECK(res.answered == 2);
  CHECK(res.right == 1);
  CHECK(res.errors == 0);
  std::string o = out.str();
  CHECK(o.find("Right: 8 sectors — lanes are 8 B apart") != std::string::npos);
  CHECK(o.find("Efficiency 50%.") != std::string::npos);
  CHECK(o.find("Answer with one of: coalesced, uncoalesced, n/a") != std::string::npos);
  CHECK(o.find("Not quite: you said coalesced. Look again") != std::string::npos);
  CHECK(o.find("Answer:  uncoalesced") != std::string::npos);  // step two: Enter after one wrong try
  CHECK(o.find("Answer:  8 sectors") != std::string::npos);  // step three, revealed
  CHECK(o.find("the end") != std::string::npos);
  CHECK(o.find("You answered 2 of 3 questions: 1 right on the first try.") != std::string::npos);
}

TEST_CASE("the metric table is complete and named uniquely") {
  std::set<std::string> names;
  for (const auto& m : lesson::metrics()) {
    CHECK(names.insert(m.name).second);
    CHECK(&lesson::info(m.metric) == &m);
    CHECK(std::string(m.description).size() > 10);
  }
  CHECK(names.size() == 19);
}

TEST_CASE("teach: a wrong answer followed by the right one scores as wrong; two wrong ones show the answer") {
  lesson::Lesson l = lesson::parse(R"({"title": "Mini", "steps": [
      {"title": "one", "kernel": "strided_copy", "params": {"stride": 2}, "focus": {"array": "in"}, "text": "t",
       "question": {"ask": "sectors", "prompt": "How many?"}},
      {"title": "two", "focus": {"array": "in"}, "text": "t", "question": {"ask": "sectors", "prompt": "Again?"}}]})",
                                   "mini2.json");
  std::istringstream in("4\n8\n\n4\n5\n");
  std::ostringstream out;
  auto res = lesson::teach(l, session::lesson_recorder("emulator"), in, out);
  CHECK(res.questions == 2);
  CHECK(res.answered == 2);
  CHECK(res.right == 0);  // step one: 4 then 8; step two: 4 then 5
  const std::string o = out.str();
  const size_t wrong = o.find("Not quite: you said 4. Look again");
  REQUIRE(wrong != std::string::npos);
  CHECK(o.find("8 sectors") > wrong);  // the answer only after the wrong try
  CHECK(o.find("Right: 8 sectors") != std::string::npos);
  CHECK(o.find("Answer:  8 sectors") != std::string::npos);  // step two, after two wrong tries
}
