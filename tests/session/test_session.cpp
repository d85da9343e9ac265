// The session layer behind every front end: one LaunchSpec, one resolve, one capture,
// one Session.
#include <algorithm>
#include <bit>
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "session/bench.h"
#include "session/capture.h"
#include "session/dram.h"
#include "session/report.h"
#include "cli/launch_options.h"
#include "session/session.h"
#include "session/step_match.h"
#include "session/worker.h"

using namespace ws;

namespace {
session::Capture record(const session::LaunchSpec& spec) { return session::capture(session::resolve(spec)); }

std::string input_error(const session::LaunchSpec& req) {
  try {
    record(req);
  } catch (const session::InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("parse_blocks reads ids and ranges") {
  CHECK(session::parse_blocks("0") == std::vector<uint32_t>{0});
  CHECK(session::parse_blocks("0,1,5-7") == std::vector<uint32_t>{0, 1, 5, 6, 7});
  CHECK(session::parse_blocks(" 3 , 1-2 ,3") == std::vector<uint32_t>{1, 2, 3});  // sorted, once each
  CHECK(session::parse_blocks("4-4") == std::vector<uint32_t>{4});
  for (const char* bad : {"", ",", "x", "1,,2", "-1", "1-", "-", "3-1", "1.5", "0x10", "4294967295", "0-99999999999"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(session::parse_blocks(bad), session::InputError);
  }
  CHECK_THROWS_WITH_AS(session::parse_blocks("0-4294967294"), doctest::Contains("too many blocks"), session::InputError);
}

TEST_CASE("a capture runs every block, checks the output and stamps the launch") {
  session::LaunchSpec req;
  req.kernel = "transpose_tiled";
  req.size = 40;
  req.backend = "auto";
  session::Capture r = record(req);
  CHECK(r.checked);
  CHECK(r.max_rel_error == 0.0);
  CHECK(r.params.size() == 40);
  CHECK(r.trace.launch().blocks.size() == r.trace.launch().grid.count());
  CHECK(r.lane_accesses > 0);
  CHECK(r.seconds >= 0);
  CHECK(r.trace.provenance.version == session::version());
  CHECK(std::regex_match(r.trace.provenance.date, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  if (!session::gpu_backend_built()) {
    CHECK(r.trace.provenance.backend == "emulator");
    CHECK(r.trace.provenance.device == "CPU emulator");
    CHECK(r.note.find("CPU emulator") != std::string::npos);  // auto says what ran
  }

  req.backend = "emulator";
  req.blocks = "1";
  session::Capture one = record(req);
  CHECK(!one.checked);
  CHECK(one.note.empty());
  CHECK(one.trace.launch().blocks == std::vector<uint32_t>{1});
  for (const auto& rec : one.trace.records) CHECK(rec.block == 1);

  req.blocks = "0-3";  // every block, named one by one
  CHECK(record(req).checked);
}

TEST_CASE("--spaces is the GPU tracer's: an unknown space or the emulated device is refused in one line") {
  session::LaunchSpec req;
  req.program.source = "tests/programs/vector_add.cu";
  req.backend = "emulator";
  req.program.spaces = "global";
  CHECK_THROWS_WITH_AS(session::resolve(req), doctest::Contains("the emulated device records every space"),
                       session::InputError);
  req.backend = "gpu";
  CHECK(session::resolve(req).program.spaces == "global");
  req.program.spaces = "texture";
  CHECK_THROWS_WITH_AS(session::resolve(req), "unknown spaces 'texture': allowed all, global, shared", session::InputError);
  req.program.spaces = "all";
  CHECK(session::resolve(req).program.spaces == "all");
}

TEST_CASE("bad requests are one-line input errors") {
  session::LaunchSpec req;
  req.kernel = "transpose_tiledd";
  CHECK(input_error(req) == "unknown kernel 'transpose_tiledd': allowed " + catalog::ids());
  req.kernel = "transpose_tiled";
  req.params = {{"pad", 2}};
  CHECK(input_error(req).find("allowed 0, 1") != std::string::npos);
  req.params = {};
  req.backend = "tpu";
  CHECK(input_error(req) == "unknown backend 'tpu': allowed auto, gpu, emulator");
  req.backend = "emulator";
  req.size = 32768;
  CHECK(input_error(req).find("too large for memory") != std::string::npos);
  req.size = 64;
  req.blocks = "99";
  CHECK(input_error(req).find("outside the grid") != std::string::npos);
  req.blocks = "";
  req.backend = "gpu";
  if (!session::gpu_backend_built())
    CHECK(input_error(req) == "no GPU backend: this build has no CUDA support (use --backend emulator)");
  else if (!session::bench_unavailable().empty())  // built for GPUs, none here
    CHECK(input_error(req) == "no GPU found: use --backend emulator");
}

TEST_CASE("the record cap drops and counts") {
  session::LaunchSpec req;
  req.kernel = "transpose_tiled";
  req.size = 64;
  req.backend = "emulator";
  req.max_records = 10;
  session::Capture r = record(req);
  CHECK(r.trace.records.size() == 10);
  CHECK(r.trace.launch().dropped_records > 0);
  CHECK(r.checked);  // every block still ran
}

TEST_CASE("resolve fills every default and names what is allowed") {
  session::LaunchSpec spec;
  spec.kernel = "transpose_tiled";
  session::ResolvedLaunch l = session::resolve(spec);
  CHECK(l.kernel == catalog::find("transpose_tiled"));
  CHECK(l.params.size() == l.kernel->teach_size);
  CHECK(l.params["pad"] == 0);
  CHECK(l.blocks.empty());
  CHECK(l.dram.preset == "textbook");
  spec.size = 0;  // typed by a user, 0 is a size out of range, not "the default"
  CHECK_THROWS_WITH_AS(session::resolve(spec), doctest::Contains("allowed 1.."), session::InputError);
  spec.size.reset();
  spec.kernel = "";
  CHECK_THROWS_AS(session::resolve(spec), session::InputError);
  spec.kernel = "transpose_tiled";
  spec.dram = "ddr9";
  CHECK_THROWS_WITH_AS(session::resolve(spec), doctest::Contains("allowed textbook, hbm"), session::InputError);
}

TEST_CASE("the few-blocks policy is the app's, named once") {
  session::LaunchSpec spec;
  spec.kernel = "matmul_naive";
  spec.size = 1024;  // 2·1024³ flops: past kFewBlocksWork
  spec.block_default = session::BlockDefault::FewWhenLarge;
  session::ResolvedLaunch l = session::resolve(spec);
  CHECK(l.few_blocks);
  CHECK(l.blocks == std::vector<uint32_t>{0, 1, 2, 3});
  CHECK(l.note.find("blocks 0-3") != std::string::npos);
  spec.blocks = "all";
  CHECK(session::resolve(spec).blocks.empty());
  spec.blocks = "";
  spec.block_default = session::BlockDefault::Every;  // the CLI's: the whole grid
  CHECK(session::resolve(spec).blocks.empty());
  spec.size = 64;
  spec.block_default = session::BlockDefault::FewWhenLarge;
  CHECK(!session::resolve(spec).few_blocks);
}

TEST_CASE("one spec from every front end: options, compact text, settings") {
  CLI::App app;
  cli::LaunchFlags args;
  cli::add_launch_options(app, args, cli::kWithDram | cli::kWithBlocks | cli::kWithBackend);
  std::vector<std::string> argv = {"--kernel", "transpose_tiled", "--size", "40", "--set", "pad=1",
                                   "--set", "dram=hbm", "--blocks", "0-1", "--backend", "emulator"};
  std::reverse(argv.begin(), argv.end());  // CLI11 takes a vector last first
  app.parse(argv);
  session::LaunchSpec a = cli::spec_of(args);
  CHECK(a.kernel == "transpose_tiled");
  CHECK(a.size == 40);
  CHECK(a.params == std::map<std::string, int64_t>{{"pad", 1}});
  CHECK(a.dram == "hbm");
  CHECK(a.blocks == "0-1");
  CHECK(a.backend == "emulator");

  session::LaunchSpec b = session::parse_compact("transpose_tiled:pad=1,size=40,dram=hbm");
  CHECK(b.kernel == a.kernel);
  CHECK(b.size == a.size);
  CHECK(b.params == a.params);
  CHECK(b.dram == a.dram);
  CHECK_THROWS_WITH_AS(session::parse_compact(":pad=1"), doctest::Contains("ID[:name=value"), session::InputError);
  CHECK_THROWS_WITH_AS(session::parse_compact("transpose_tiled:pad"), doctest::Contains("name=value"),
                       session::InputError);
  CHECK_THROWS_WITH_AS(session::parse_compact("transpose_tiled:pad=x"), doctest::Contains("whole number"),
                       session::InputError);
}

TEST_CASE("a Session holds the figures every view and report shows") {
  session::LaunchSpec spec;
  spec.kernel = "transpose_tiled";
  spec.size = 64;
  spec.backend = "emulator";
  auto s = session::record_session(spec);
  REQUIRE(s->size() > 0);
  CHECK(s->checked());
  CHECK(s->spec() == spec);
  // The tile store: 32 lanes, one bank, 32 words — a 32-way conflict, each lane its own word.
  uint64_t store = 0;
  while (!(s->trace().sites[s->trace().records[store].site].space == trace::Space::Shared &&
           s->trace().sites[s->trace().records[store].site].op == trace::Op::Store))
    ++store;
  session::RequestFigures r = s->request(store);
  REQUIRE(r.shared);
  CHECK(r.s.max_way == 32);
  CHECK(r.phases == 1);
  REQUIRE(r.banks.size() == 32);
  for (const auto& w : r.banks) {
    CHECK(w.bank == r.banks[0].bank);
    CHECK(w.way == 32);
    CHECK(std::popcount(w.lanes) == 1);
  }
  // The first load of `in`: 32 lanes read 128 consecutive bytes — 4 sectors, one line.
  session::RequestFigures g = s->request(0);
  REQUIRE(!g.shared);
  CHECK(g.g.sectors == 4);
  CHECK(g.sectors.size() == 4);
  CHECK(g.lines.size() == 1);
  for (size_t i = 0; i < g.sectors.size(); ++i)
    for (int b = 0; b < 32; ++b) CHECK(g.sectors[i].lane[b] == int(i * 8 + b / 4));
  CHECK(g.phases == 1);
  CHECK(r.broadcast == 0u);
  // DRAM (textbook: 4 channels × 2 banks, 8-byte bursts): the 128 bytes are 16 bursts on
  // every channel and bank; a shared request moves nothing.
  session::DramFigures d = session::dram_figures(*s, g, trace::kNoBuffer);
  CHECK(d.channels == 4);
  CHECK(d.banks == 2);
  CHECK(d.epoch == g.rec->epoch);
  CHECK(d.request_bursts == 16);
  CHECK(d.hit.size() == 8);
  CHECK(d.hit_channels == std::vector<uint32_t>{0, 1, 2, 3});
  CHECK(d.busy == 4);
  uint64_t sum = 0;
  for (uint64_t c : d.cells) sum += c;
  CHECK(sum == d.total);
  CHECK(session::dram_figures(*s, r, trace::kNoBuffer).hit.empty());
  CHECK(session::dram_figures(*s, g, r.rec->buffer).total == 0);  // the tile is not in DRAM
  // The gutter: the store line is 32-way, the coalesced load line 4 sectors a request.
  CHECK(s->main_source().stats.at(r.site->line).max_way == 32);
  CHECK(s->main_source().stats.at(g.site->line).sectors_per_request == 4.0);
  CHECK(session::source_lines_text(*s).find("tile 32-way") != std::string::npos);
  // pad=1 removes the conflict, and the totals say so.
  spec.params["pad"] = 1;
  auto p = session::record_session(spec);
  CHECK(s->totals().max_way == 32);
  CHECK(p->totals().max_way == 1);
  CHECK(p->totals().sectors == s->totals().sectors);
}

TEST_CASE("A/B step matching locks two variants to the same block, warp, line and occurrence") {
  session::LaunchSpec spec;
  spec.kernel = "transpose_tiled";
  spec.size = 64;
  spec.backend = "emulator";
  std::shared_ptr<const session::Session> a = session::record_session(spec);
  spec.params["pad"] = 1;
  std::shared_ptr<const session::Session> b = session::record_session(spec);
  REQUIRE(a->size() == b->size());
  session::StepMatch same(a, a);
  CHECK(same.built_for(a, a));
  CHECK(!same.built_for(a, b));
  session::StepMatch m(a, b);
  for (uint64_t i = 0; i < a->size(); i += 7) {
    CAPTURE(i);
    CHECK(same.match(i) == i);  // a trace matches itself step for step
    const trace::Record& ra = a->trace().records[i];
    const trace::Record& rb = b->trace().records[m.match(i)];
    CHECK(ra.block == rb.block);
    CHECK(ra.warp == rb.warp);
    CHECK(a->trace().sites[ra.site].line == b->trace().sites[rb.site].line);
  }
  CHECK(session::StepMatch{}.match(5) == 0);  // nothing indexed
}

TEST_CASE("a LaunchSpec names its source: a catalog kernel or a launch of a trace file") {
  session::LaunchSpec kernel;
  kernel.kernel = "transpose_tiled";
  kernel.size = 64;
  CHECK(kernel.origin() == session::Origin::Catalog);
  auto recorded = session::record_session(kernel);
  const std::string file = (std::filesystem::temp_directory_path() / "ws_spec_source.wstrace").string();
  session::save_session(*recorded, file);

  session::LaunchSpec saved;
  saved.trace = file;
  CHECK(saved.origin() == session::Origin::TraceFile);
  const session::ResolvedLaunch l = session::resolve(saved);
  CHECK(l.origin == session::Origin::TraceFile);
  CHECK(l.kernel == nullptr);
  auto opened = session::record_session(l, saved);
  CHECK(opened->origin() == "file");
  CHECK(opened->launch() == 0);
  CHECK(opened->trace().records == recorded->trace().records);
  CHECK(opened->report().sites.size() == recorded->report().sites.size());

  saved.launch = 1;  // the file has one launch
  CHECK_THROWS_WITH_AS(session::record_session(saved), doctest::Contains("launch 2 is out of range: allowed 1..1"),
                       session::InputError);
  saved.launch = 0;
  saved.kernel = "copy";  // both: refused
  CHECK_THROWS_WITH_AS(session::resolve(saved), doctest::Contains("not both"), session::InputError);
  saved.kernel.clear();
  saved.dram = "nosuch";
  CHECK_THROWS_AS(session::resolve(saved), session::InputError);
  std::filesystem::remove(file);
}

TEST_CASE("copy --set vec=4 against copy: a quarter of the requests, the same sectors per useful byte") {
  struct Fig {
    uint64_t requests = 0, sectors = 0, useful = 0;
  };
  auto figures = [](int64_t vec) {
    session::LaunchSpec spec;
    spec.kernel = "copy";
    spec.size = 4096;
    spec.params["vec"] = vec;
    spec.backend = "emulator";
    auto s = session::record_session(spec);
    CHECK(s->checked());
    CHECK(s->max_rel_error() == 0);  // every float copied
    Fig f;
    f.requests = s->totals().global_requests;
    f.sectors = s->totals().sectors;
    for (const trace::Record& r : s->trace().records)
      f.useful += uint64_t(std::popcount(r.active)) * s->trace().sites[r.site].bytes;
    CHECK(s->totals().global_bytes == f.useful);  // the A/B table's "per 128 B used" divides by it
    return f;
  };
  const Fig one = figures(1), two = figures(2), four = figures(4);
  CHECK(one.requests == 2 * 4096 / 32);  // a load and a store a warp
  CHECK(two.requests * 2 == one.requests);
  CHECK(four.requests * 4 == one.requests);
  CHECK(one.useful == 2 * 4096 * 4);
  CHECK(two.useful == one.useful);
  CHECK(four.useful == one.useful);
  CHECK(one.sectors * 32 == one.useful);  // every fetched byte used: one sector per 32 useful bytes
  CHECK(four.sectors == one.sectors);
  CHECK(two.sectors == one.sectors);
}

TEST_CASE("a report gives unrecorded launches alike one line, and one JSON entry") {
  auto t = std::make_shared<trace::Trace>();
  t->provenance.backend = "emulator";
  auto add = [&](const char* kernel, uint32_t gx, bool recorded, uint64_t lanes, double secs) {
    trace::Launch l;
    l.kernel = kernel;
    l.grid = {gx, 1, 1};
    l.block = {256, 1, 1};
    l.recorded = recorded;
    l.lane_accesses = lanes;
    l.seconds = secs;
    if (recorded) l.blocks = {0};
    t->launches.push_back(l);
  };
  add("warmup", 4, true, 10, 0.5);
  add("mm<32>", 8, true, 100, 0.25);
  add("mm<32>", 8, false, 100, 0.125);
  add("mm<32>", 8, false, 100, 0.125);
  add("mm<32>", 8, false, 100, 0.125);
  add("mm<32>", 16, false, 200, 0.25);  // another grid: not alike, no recorded twin
  const analysis::DramModel dram;
  std::vector<std::shared_ptr<const session::Session>> shown;
  for (uint32_t i = 0; i < t->launches.size(); ++i) shown.push_back(session::Session::from_trace(t, dram, i));
  const std::string text = session::report_text(shown, -1);
  MESSAGE(text);
  CHECK(text.find("launches  3–5: mm<32> ×3, as launch 2 (not recorded: 300 lane accesses in 0.375 s)\n") !=
        std::string::npos);
  CHECK(text.find("launch    6: mm<32> ×1, grid (16, 1, 1) × block (256, 1, 1) (not recorded: 200 lane accesses in 0.250 s)\n") !=
        std::string::npos);
  CHECK(text.find("kernel    mm<32>") != std::string::npos);  // launch 2 in full
  const auto j = nlohmann::json::parse(session::report_json(shown, -1));
  REQUIRE(j["launches"].size() == 4);
  const auto& run = j["launches"][2];
  CHECK(run["launches"] == nlohmann::json::array({3, 5}));
  CHECK(run["count"] == 3);
  CHECK(run["as_launch"] == 2);
  CHECK(run["recorded"] == false);
  CHECK(run["lane_accesses"] == 300);
  CHECK(j["launches"][3]["as_launch"].is_null());
  CHECK(j["launches"][3]["grid"] == nlohmann::json::array({16, 1, 1}));
}

TEST_CASE("counts mode on a GPU shows the GPU's counters beside the model, differences in brackets") {
  session::LaunchSpec req;
  req.kernel = "transpose_tiled";
  req.size = 64;
  req.backend = "emulator";
  const session::ResolvedLaunch launch = session::resolve(req);
  session::Capture c = session::capture(launch);
  // What capture() fills on a GPU (src/gpu's counters), given by hand: the model equal to the
  // counters except for one figure.
  c.hw.chip = "GH100";
  c.hw.passes = 4;
  c.hw.ms = 27.5;
  c.hw.rows = {{"global loads", "requests", 128, 128}, {"global loads", "sectors", 512, 512},
               {"shared stores", "conflicts", 3968, 4000}};
  auto s = session::Session::from_capture(std::move(c), launch, req);
  const std::string text = session::report_text({s}, -1);
  CHECK(text.find("GPU counters (GH100, CUPTI range profiler, 4 passes, 27.5 ms), whole grid; model in brackets where it "
                  "differs:\n  global loads   128 requests, 512 sectors\n  shared stores  3968 conflicts [4000]\n") !=
        std::string::npos);
  const auto j = nlohmann::json::parse(session::report_json({s}, -1));
  CHECK(j["gpu_counters"]["passes"] == 4);
  CHECK(j["gpu_counters"]["figures"][2] ==
        nlohmann::json({{"access", "shared stores"}, {"figure", "conflicts"}, {"counted", 3968}, {"model", 4000}}));

  // Counters that could not be read: one line saying why; the rest of the report stands.
  session::Capture d = session::capture(launch);
  d.hw.unavailable = "GPU counters: reading the GPU's counters needs the driver's permission";
  auto s2 = session::Session::from_capture(std::move(d), launch, req);
  CHECK(session::report_text({s2}, -1).find("GPU counters not read: reading the GPU's counters needs") !=
        std::string::npos);
  CHECK(nlohmann::json::parse(session::report_json({s2}, -1))["gpu_counters"]["unavailable"].is_string());
  // The emulator reads no counters: no block.
  CHECK(session::report_text({session::Session::from_capture(session::capture(launch), launch, req)}, -1)
            .find("GPU counters") == std::string::npos);
}
