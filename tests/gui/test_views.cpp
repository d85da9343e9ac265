// tests/gui/test_views.cpp — The views with no window: every panel draws many frames on real emulated traces, the
// figures on screen are the analysis' figures, and settings / files / timings behave.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <unistd.h>

#include "session/report.h"
#include "session/deck.h"
#include "ui/figure/figure.h"
#include "ui/figure/headless.h"
#include "ui/settings.h"
#include "ui/timing.h"
#include "ui/ui.h"
#include "ui/controls.h"
#include "ui_test.h"
#include "../tensor_traces.h"
#include "../support.h"

using namespace ws;
using json = nlohmann::json;

namespace {

std::filesystem::path temp_dir(const char* name) { return ws::test::temp_dir(std::string("gui-") + name, true); }

using test::quiet_env;
using test::settle;

// Records `kernel` with `set`, goes to `step`, and returns the request's figures.
json show(ui::HeadlessContext& ctx, ui::Ui& u, const std::string& kernel, std::map<std::string, int64_t> set,
          uint64_t step) {
  u.state.kernel = kernel;
  u.state.size = 0;
  u.state.params = std::move(set);
  u.record();
  settle(ctx, u);
  u.set_step(step);
  settle(ctx, u);
  ctx.frame(u);
  return json::parse(u.describe_json());
}

}  // namespace

TEST_CASE("every view draws for many frames on an emulated trace") {
  ui::HeadlessContext ctx(1600, 1000);
  ui::Ui u(quiet_env());
  json d = show(ctx, u, "transpose_tiled", {{"pad", 0}}, 0);
  REQUIRE(u.has_model());
  CHECK(u.pane.model->trace().provenance.backend == "emulator");
  CHECK(u.pane.model->provenance() == "emulated on CPU");
  // Every panel of the main window is on screen.
  std::set<std::string> keys;
  for (const auto& p : d["panels"]) keys.insert(p["key"].get<std::string>());
  for (const char* k : {"catalog", "memory", "warp", "dram", "source", "timeline", "timing"}) CHECK(keys.count(k) == 1);

  // Play through the whole trace, stepping by request, warp and epoch, both ways.
  const uint64_t n = u.pane.model->size();
  REQUIRE(n > 100);
  u.state.playing = true;
  u.state.timeline.speed = 2000;
  for (int i = 0; i < 300; ++i) {
    ImDrawData* dd = ctx.frame(u);
    REQUIRE(dd);
    CHECK(dd->TotalVtxCount > 0);
  }
  u.state.playing = false;
  const ImGuiKey keys_to_press[] = {ImGuiKey_RightArrow, ImGuiKey_LeftArrow, ImGuiKey_DownArrow, ImGuiKey_UpArrow,
                                    ImGuiKey_PageDown,   ImGuiKey_PageUp,    ImGuiKey_End,       ImGuiKey_Home};
  for (int round = 0; round < 20; ++round)
    for (ImGuiKey k : keys_to_press) {
      ctx.press(ui::HeadlessContext::key(k));
      ctx.frame(u);
      ctx.frame(u);
      CHECK(u.pane.step < n);
    }
  // Each panel enlarged, with the help overlay over it.
  for (int p = 0; p < int(ui::Panel::Count); ++p) {
    u.state.enlarged = p;
    u.state.show_help = p % 2 == 0;
    for (int i = 0; i < 10; ++i) ctx.frame(u);
  }
  u.state.enlarged = -1;
  u.state.show_help = false;
  // The open and save dialogs draw, and Escape closes them.
  for (bool* flag : {&u.dialogs.open, &u.dialogs.save}) {
    test::check_dialog_escape(ctx, u, flag, "some/dir/trace.wstrace");
  }
  // Another DRAM model re-analyses in the background; the step and the trace stay.
  const uint64_t before_step = u.pane.step;
  auto before_trace = u.pane.model->shared_trace();
  u.state.dram.preset = "hbm";
  u.request_reanalyze();
  settle(ctx, u);
  CHECK(u.pane.model->report().dram.preset == "hbm");
  CHECK(u.pane.model->shared_trace() == before_trace);
  CHECK(u.pane.step == before_step);
  // Space toggles playback.
  ctx.press(ui::HeadlessContext::key(ImGuiKey_Space));
  ctx.frame(u);
  CHECK(u.state.playing);
  ctx.frame(u);  // the key goes up
  ctx.press(ui::HeadlessContext::key(ImGuiKey_Space));
  ctx.frame(u);
  CHECK(!u.state.playing);
}

TEST_CASE("the warp inspector shows the 32-way conflict of transpose_tiled and pad=1 removes it") {
  ui::HeadlessContext ctx(1600, 1000);
  ui::Ui u(quiet_env());
  // Request 1 of block 0, warp 0 is the transposed store into the tile.
  json a = show(ctx, u, "transpose_tiled", {{"pad", 0}}, 1);
  REQUIRE(a.contains("request"));
  CHECK(a["request"]["space"] == "shared");
  CHECK(a["request"]["op"] == "store");
  CHECK(a["request"]["max_way"] == 32);
  CHECK(a["request"]["wavefronts"] == 32);
  // Toggling pad re-records and keeps the step: the same store, now conflict free.
  u.state.params["pad"] = 1;
  u.request_record();
  settle(ctx, u);
  ctx.frame(u);
  json b = json::parse(u.describe_json());
  CHECK(b["step"] == 2);  // record 1 is request 2, as the timeline and --step count
  CHECK(b["request"]["space"] == "shared");
  CHECK(b["request"]["max_way"] == 1);
  CHECK(b["request"]["wavefronts"] == 1);
  CHECK(u.pane.model->trace().buffers.back().cols == 33);  // the padded tile, drawn with its extra column
}

TEST_CASE("the warp inspector's two rows of 32 sectors: no number drawn over a sector, however little height") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  // The naive transpose's store: 32 lanes 256 bytes apart, 32 sectors in two rows of 16.
  const json a = show(ctx, u, "transpose_read_coalesced", {}, 1);  // request 2
  REQUIRE(a.contains("request"));
  REQUIRE(a["request"]["sectors"] == 32);
  const session::RequestFigures rv = u.pane.model->request(u.pane.step);
  // The sizes the inspector gets in the normal layout at 1280x720 and 1920x1080, and roomier.
  for (const ImVec2 size : {ImVec2(410, 150), ImVec2(410, 170), ImVec2(410, 190), ImVec2(600, 300), ImVec2(800, 500)}) {
    CAPTURE(size.y);
    ui::Scene sc;
    ui::warp_scene(sc, rv, size);
    std::vector<std::pair<ImVec2, ImVec2>> boxes;  // the sectors' outlines
    for (const auto& i : sc.items)
      if (i.kind == ui::Scene::Kind::Rect && i.color == ui::theme().sector) boxes.push_back({i.a, i.b});
    REQUIRE(boxes.size() == 32);
    int numbers = 0;
    for (const auto& i : sc.items) {
      if (i.kind != ui::Scene::Kind::Text || (i.text.rfind("sector", 0) != 0 && i.text.rfind("#", 0) != 0)) continue;
      ++numbers;
      ImVec2 lo, hi;
      ui::text_box(i, lo, hi);
      for (const auto& [ba, bb] : boxes) {
        INFO("'" << i.text << "' at " << lo.x << "," << lo.y << " over a sector at " << ba.x << "," << ba.y);
        CHECK_FALSE((lo.x < bb.x && hi.x > ba.x && lo.y < bb.y && hi.y > ba.y));
      }
    }
    CHECK(numbers >= 4);  // the numbers are there, under one row at least
    // The row's first numbers both drawn: the axis word gives way rather than push '#1'
    // (the second sector's number) out, and the key then names what '#n' is.
    const std::string second = "#" + std::to_string(rv.sectors[1].sector);
    bool has_second = false, titled = false, keyed = false;
    for (const auto& i : sc.items) {
      has_second |= i.kind == ui::Scene::Kind::Text && i.text == second;
      titled |= i.kind == ui::Scene::Kind::Text && i.text.rfind("sector #", 0) == 0;
      keyed |= i.kind == ui::Scene::Kind::Text && i.text == "#n: sector n";
    }
    if (size.y >= 190) CHECK(has_second);
    CHECK((titled || keyed || size.x < 500));
  }
}

TEST_CASE("the memory view follows the request; the wheel takes the view over, a double-click gives it back") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  show(ctx, u, "pmpp_exercise", {}, 0);
  const auto& m = *u.pane.model;
  const auto& t = m.trace();
  // The exercise's c[i*4 + j]: four requests of warp 0, one element apart.
  std::vector<uint64_t> on_c;
  size_t c = 0;
  for (uint64_t i = 0; i < m.size() && on_c.size() < 4; ++i)
    if (t.buffers[t.sites[t.records[i].site].buffer].name == "c") {
      on_c.push_back(i);
      c = t.sites[t.records[i].site].buffer;
    }
  REQUIRE(on_c.size() == 4);
  u.set_step(on_c[0]);
  settle(ctx, u);
  ctx.frame(u);
  REQUIRE(u.state.memory.follow);
  const ui::GridView first = u.pane.grids[c];
  CHECK(first.shown_followed);
  CHECK(first.shown_cell >= 8);  // legible, where the whole 1024×4 array fits in 1–2 px cells
  CHECK(first.shown_zoom > 3);
  // The next requests of the warp leave the view where it is.
  for (size_t k = 1; k < on_c.size(); ++k) {
    u.set_step(on_c[k]);
    settle(ctx, u);
    ctx.frame(u);
    CHECK(u.pane.grids[c].shown_cell == first.shown_cell);
    CHECK(u.pane.grids[c].shown_center.x == first.shown_center.x);
    CHECK(u.pane.grids[c].shown_center.y == first.shown_center.y);
  }
  // The wheel over the focus grid: the user's view from there on, follow off.
  ImVec2 at;
  for (const auto& p : u.drawn())
    if (p.panel == ui::Panel::Memory) at = ImVec2(p.min.x + (p.max.x - p.min.x) * 0.3f, p.min.y + (p.max.y - p.min.y) * 0.6f);
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = at;
  ctx.frame(u);
  io.MousePos = at;
  io.MouseWheel = -1;
  ctx.frame(u);
  CHECK_FALSE(u.state.memory.follow);
  CHECK_FALSE(u.pane.grids[c].shown_followed);
  CHECK(u.pane.grids[c].zoom == doctest::Approx(first.shown_zoom / 1.25f).epsilon(0.02));
  // Stepping on keeps the user's view.
  const float held = u.pane.grids[c].shown_cell;
  u.set_step(on_c[0]);
  settle(ctx, u);
  ctx.frame(u);
  CHECK(u.pane.grids[c].shown_cell == doctest::Approx(held));
  // A double-click follows again.
  for (bool down : {true, false, true, false}) {
    io.MousePos = at;
    io.MouseDown[0] = down;
    ctx.frame(u);
  }
  CHECK(u.state.memory.follow);
  CHECK(u.pane.grids[c].shown_cell == first.shown_cell);
  io.MousePos = ImVec2(-1, -1);
}

TEST_CASE("naive SGEMM: threads along columns read B in 4 sectors, along rows 32") {
  if (!catalog::find("matmul_naive") || !catalog::find("matmul_naive_uncoalesced")) return;
  ui::HeadlessContext ctx(1600, 1000);
  ui::Ui u(quiet_env());
  auto per_request = [&](const char* id, const char* array) {
    show(ctx, u, id, {}, 0);
    const auto& m = *u.pane.model;
    for (const auto& st : m.report().sites) {
      const auto& site = m.trace().sites[st.site];
      if (m.trace().buffers[site.buffer].name == array && site.op == trace::Op::Load) return st.sectors_per_request;
    }
    return -1.0;
  };
  CHECK(per_request("matmul_naive", "B") == doctest::Approx(4));
  CHECK(per_request("matmul_naive_uncoalesced", "A") == doctest::Approx(32));
}

TEST_CASE("every catalog kernel opens in the app at its teaching size") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  for (const auto& k : catalog::all()) {
    CAPTURE(k.id);
    show(ctx, u, k.id, {}, 3);
    CHECK(u.status.record_error == "");
    REQUIRE(u.has_model());
    CHECK(u.pane.model->trace().launch().kernel == k.id);
    for (int i = 0; i < 5; ++i) ctx.frame(u);
  }
}

TEST_CASE("the heat layer moved back and forth equals the heat built from scratch") {
  ui::HeadlessContext ctx(800, 600);
  ui::Ui u(quiet_env());
  show(ctx, u, "transpose_tiled", {{"pad", 1}}, 0);
  auto model = u.pane.model;
  session::HeatMap moved;
  moved.reset(model);
  for (uint64_t target : {uint64_t(200), uint64_t(37), uint64_t(500), uint64_t(499), uint64_t(120)})
    while (!moved.update(target, 0.001)) {
    }
  session::HeatMap fresh;
  fresh.reset(model);
  CHECK(fresh.update(120, 0));
  for (size_t b = 0; b < model->trace().buffers.size(); ++b) {
    CHECK(moved.layer(b)->cells == fresh.layer(b)->cells);
    CHECK(moved.layer(b)->max == fresh.layer(b)->max);
  }
  // Every lane access of the covered records lands in exactly one cell.
  double total = 0;
  for (size_t b = 0; b < model->trace().buffers.size(); ++b)
    for (float c : fresh.layer(b)->cells) total += c;
  uint64_t lanes = 0;
  for (uint64_t i = 0; i < 120; ++i) lanes += uint64_t(__builtin_popcount(model->trace().records[i].active));
  CHECK(total == double(lanes));
}

TEST_CASE("stepping by warp and by epoch lands on run boundaries") {
  ui::HeadlessContext ctx(800, 600);
  ui::Ui u(quiet_env());
  show(ctx, u, "transpose_tiled", {{"pad", 0}}, 0);
  const auto& m = *u.pane.model;
  const auto& r = m.trace().records;
  uint64_t s = 0;
  for (int i = 0; i < 10; ++i) {
    uint64_t n = m.next(s, session::StepUnit::Warp, +1);
    REQUIRE(n > s);
    CHECK((r[n].warp != r[n - 1].warp || r[n].epoch != r[n - 1].epoch || r[n].block != r[n - 1].block));
    CHECK(m.next(n, session::StepUnit::Warp, -1) == s);  // back one warp: the start of the previous run
    s = n;
  }
  uint64_t e = m.next(0, session::StepUnit::Epoch, +1);
  CHECK(r[e].epoch != r[e - 1].epoch);
  CHECK(m.next(e, session::StepUnit::Epoch, -1) == 0);
  CHECK(m.next(m.size() - 1, session::StepUnit::Request, +1) == m.size() - 1);
  CHECK(m.next(0, session::StepUnit::Request, -1) == 0);
}

TEST_CASE("settings: a round trip keeps the choices; a corrupt file is ignored with a message") {
  auto dir = temp_dir("settings");
  std::string path = (dir / "settings.json").string();
  ui::UiState s;
  s.kernel = "transpose_tiled";
  s.params["pad"] = 1;
  s.timeline.speed = 32;
  s.left_frac = 0.3f;
  s.enlarged = int(ui::Panel::Memory);
  s.memory.hidden_buffers["out"] = true;
  std::string err;
  REQUIRE(ui::save_settings(path, s, err));
  ui::UiState back;
  std::string msg;
  CHECK(ui::load_settings(path, back, msg));
  CHECK(msg == "");
  CHECK(back.kernel == "transpose_tiled");
  CHECK(back.params["pad"] == 1);
  CHECK(back.timeline.speed == 32);
  CHECK(back.left_frac == doctest::Approx(0.3f));
  CHECK(back.enlarged == int(ui::Panel::Memory));
  CHECK(back.memory.hidden_buffers["out"]);
  // The file's schema: a section per panel, the app's own sections for the launch and the
  // window.
  {
    std::ifstream in(path);
    const auto j = nlohmann::json::parse(in);
    CHECK(j["version"] == 2);
    CHECK(j["launch"]["kernel"] == "transpose_tiled");
    CHECK(j["timeline"]["speed"] == 32);
    CHECK(j["memory"]["hidden_buffers"]["out"] == true);
    CHECK(j["window"]["enlarged"] == int(ui::Panel::Memory));
    CHECK(j["dram"]["array"] == "follow");
    CHECK(!j.contains("kernel"));
  }
  // A version 1 file (every field at the top level) still loads.
  std::ofstream(path, std::ios::trunc)
      << R"({"version": 1, "kernel": "copy", "speed": 4, "heat": false, "dram_preset": "hbm", "center_split": 0.5})";
  {
    ui::UiState v1;
    CHECK(ui::load_settings(path, v1, msg));
    CHECK(v1.kernel == "copy");
    CHECK(v1.timeline.speed == 4);
    CHECK(!v1.memory.heat);
    CHECK(v1.dram.preset == "hbm");
    CHECK(v1.center_split == doctest::Approx(0.5f));
  }

  for (const char* junk : {"{ not json", "[1,2,3]", "{\"version\": 99}", "\x01\x02\xff garbage"}) {
    CAPTURE(junk);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << junk;
    ui::UiState d;
    CHECK(!ui::load_settings(path, d, msg));
    CHECK(msg.find("ignored") != std::string::npos);
    CHECK(d.kernel == ui::UiState{}.kernel);
  }
  // Wrong types and wild values: each field falls back on its own.
  std::ofstream(path, std::ios::trunc) << R"({"version": 1, "kernel": 12, "speed": "fast", "left_frac": 7, "enlarged": 99})";
  ui::UiState d;
  CHECK(ui::load_settings(path, d, msg));
  CHECK(d.kernel == ui::UiState{}.kernel);
  CHECK(d.timeline.speed == ui::UiState{}.timeline.speed);
  CHECK(d.left_frac <= 0.45f);
  CHECK(d.enlarged == -1);

  // The Ui saves what the user chose and the next one starts from it.
  {
    ui::Environment env = quiet_env();
    env.settings_path = path;
    std::filesystem::remove(path);
    ui::HeadlessContext ctx(800, 600);
    {
      ui::Ui u(env);
      u.state.kernel = "transpose_write_coalesced";
      u.state.memory.heat = false;
      u.state.center_split = 0.5f;
      u.save_settings();
    }
    ui::Ui again(env);
    CHECK(again.state.kernel == "transpose_write_coalesced");
    CHECK(!again.state.memory.heat);
    CHECK(again.state.center_split == doctest::Approx(0.5f));
    CHECK(!again.status.error);
  }
  // The Ui itself starts with defaults and says why.
  std::ofstream(path, std::ios::trunc) << "{ corrupt";
  ui::Environment env = quiet_env();
  env.settings_path = path;
  ui::HeadlessContext ctx(800, 600);
  ui::Ui u(env);
  CHECK(u.status.error);
  CHECK(u.status.text.find("corrupt") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a trace saved from the app opens again with the same records") {
  auto dir = temp_dir("files");
  std::string path = (dir / "tiled.wstrace").string();
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  show(ctx, u, "transpose_tiled", {{"pad", 0}}, 0);
  auto before = u.pane.model;
  u.save_file(path);
  settle(ctx, u);
  ctx.frame(u);
  CHECK(std::filesystem::exists(path));
  u.open_file(path);
  settle(ctx, u);
  ctx.frame(u);
  REQUIRE(u.pane.model != before);
  CHECK(u.pane.model->origin() == "file");
  CHECK(u.pane.model->trace().records == before->trace().records);
  CHECK(u.pane.model->provenance() == "emulated on CPU · from file");
  // A file that is not a trace: an error message, and the trace on screen stays.
  std::ofstream(dir / "bad.wstrace") << "not a trace";
  auto kept = u.pane.model;
  u.open_file((dir / "bad.wstrace").string());
  settle(ctx, u);
  ctx.frame(u);
  CHECK(u.pane.model == kept);
  CHECK(u.status.error);
  std::filesystem::remove_all(dir);
}

TEST_CASE("slides outlive recordings, flag their own launch on the timeline, and N / P switch launch") {
  // The deck's views are the figure views the export draws.
  CHECK(session::slide_views_text() == ui::figure_view_keys());
  auto dir = temp_dir("slides");
  ui::HeadlessContext ctx(1600, 1000);
  ui::Ui u(quiet_env());
  show(ctx, u, "transpose_tiled", {{"pad", 0}}, 1);
  u.slides.add("32 lanes, one bank");
  u.set_step(5);
  settle(ctx, u);
  u.slides.add("pad 0, step 5");
  show(ctx, u, "transpose_tiled", {{"pad", 1}}, 1);  // a parameter change re-records
  u.state.enlarged = int(ui::Panel::Memory);
  u.slides.add("one extra column");
  REQUIRE(u.slides.deck.slides.size() == 3);
  CHECK(u.slides.deck.slides[0].params.at("pad") == 0);
  CHECK(u.slides.deck.slides[2].params.at("pad") == 1);
  CHECK(u.slides.deck.slides[0].view == "warp");
  CHECK(u.slides.deck.slides[2].view == "memory");
  // B again on a slide's step renames it instead of adding one.
  u.slides.add("padding removes the conflict");
  CHECK(u.slides.deck.slides.size() == 3);
  CHECK(u.slides.deck.slides[2].caption == "padding removes the conflict");
  u.state.enlarged = -1;
  ctx.frame(u);
  CHECK(u.slides.state.marked == std::vector<int>{2});  // only the pad=1 slide is this launch's

  // Another kernel: every slide stays, none is flagged.
  show(ctx, u, "transpose_read_coalesced", {}, 0);
  CHECK(u.slides.deck.slides.size() == 3);
  ctx.frame(u);
  CHECK(u.slides.state.marked.empty());
  // Back to pad 0: its two slides are flagged again.
  show(ctx, u, "transpose_tiled", {{"pad", 0}}, 0);
  ctx.frame(u);
  CHECK(u.slides.state.marked == std::vector<int>{0, 1});

  // Saving the trace writes its launch's slides as its bookmarks; opening it in a fresh
  // app brings them back as slides.
  const std::string path = (dir / "tiled.wstrace").string();
  u.save_file(path);
  settle(ctx, u);
  {
    ui::Ui v(quiet_env());
    v.open_file(path);
    settle(ctx, v);
    ctx.frame(v);
    REQUIRE(v.slides.deck.slides.size() == 2);
    CHECK(v.slides.deck.slides[0].caption == "32 lanes, one bank");
    CHECK(v.slides.deck.slides[1].step == 5);
    CHECK(v.slides.state.marked == std::vector<int>{0, 1});
  }

  // N from slide 2 (pad 0, step 5) goes to slide 3: pad=1 is recorded, then its step shown
  // in its view.
  u.set_step(5);
  settle(ctx, u);
  ctx.type('n');
  ctx.frame(u);
  CHECK(u.slides.pending());
  settle(ctx, u);
  ctx.frame(u);
  CHECK(u.pane.model->trace().launch().params.at("pad") == 1);
  CHECK(u.pane.step == 1);
  CHECK(u.state.enlarged == int(ui::Panel::Memory));
  json d = json::parse(u.describe_json());
  CHECK(d["slide_here"] == 2);
  // N at the last slide stays; P twice goes back to slide 1 on pad 0.
  ctx.type('n');
  ctx.frame(u);
  CHECK(!u.slides.pending());
  CHECK(u.slides.state.current == 2);
  ctx.frame(u);
  ctx.type('p');
  ctx.frame(u);
  settle(ctx, u);
  CHECK(u.slides.at(u.pane) == 1);
  ctx.frame(u);
  ctx.type('p');
  ctx.frame(u);
  settle(ctx, u);
  CHECK(u.slides.at(u.pane) == 0);
  CHECK(u.pane.model->trace().launch().params.at("pad") == 0);
  CHECK(u.pane.step == 1);

  // A deck file round trip from the app; a bad one is a message and leaves the deck.
  const std::string deck_path = (dir / "d.wsdeck").string();
  REQUIRE(u.slides.save(deck_path));
  const session::Deck kept = u.slides.deck;
  u.slides.deck.slides.clear();
  REQUIRE(u.slides.load(deck_path));
  CHECK(u.slides.deck == kept);
  std::ofstream(dir / "bad.wsdeck") << "{\"version\": 1, \"slides\": [{\"kernel\": \"nope\", \"step\": 0}]}";
  CHECK(!u.slides.load((dir / "bad.wsdeck").string()));
  CHECK(u.status.error);
  CHECK(u.status.text.find("slide 1: unknown kernel 'nope'") != std::string::npos);
  CHECK(u.slides.deck == kept);
  // The Slides menu's dialogs draw and close.
  for (bool* flag : {&u.slides.state.open, &u.slides.state.save}) {
    test::check_dialog_escape(ctx, u, flag, deck_path);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("timings: bench JSON and replay packs are read tolerantly; none is said plainly") {
  ui::TimingTable t;
  std::string err;
  CHECK(ui::parse_bench_json(R"({"device": {"name": "NVIDIA H200"}, "date": "2026-11-20T10:00:00Z",
    "results": [{"kernel": "transpose_tiled", "params": {"pad": 1}, "size": 8192, "ms": 0.41, "gbps": 1310.2,
                 "pct_of_copy": 78.5, "history": [0.43, 0.42]},
                {"kernel": "matmul_naive", "time_ms": 12.5, "gflops": 1100, "pct_of_cublas": 2.2}]})",
                            t, err));
  CHECK(t.device == "NVIDIA H200");
  REQUIRE(t.samples.size() == 2);
  CHECK(t.samples[0].params.at("size") == 8192);
  CHECK(t.samples[0].ref == "device copy");
  CHECK(t.samples[0].history.size() == 2);
  CHECK(t.samples[1].ms == 12.5);
  CHECK(t.samples[1].ref == "cuBLAS");
  CHECK(!ui::parse_bench_json("{ nope", t, err));
  CHECK(!ui::parse_bench_json(R"({"results": []})", t, err));

  auto dir = temp_dir("replay");
  std::ofstream(dir / "h200.json") << R"({"device": "NVIDIA H200", "date": "2026-11-20",
      "results": [{"kernel": "transpose_tiled", "params": {"pad": 0}, "ms": 0.9, "gbps": 600},
                  {"kernel": "transpose_tiled", "params": {"pad": 1}, "ms": 0.4, "gbps": 1300}]})";
  std::ofstream(dir / "broken.json") << "{";
  std::string msg;
  auto tables = ui::load_replay_pack(dir.string(), msg);
  REQUIRE(tables.size() == 1);
  CHECK(msg.find("broken.json") != std::string::npos);
  ui::TimingStore store;
  store.replay = tables;
  const ui::TimingTable* from = nullptr;
  const ui::TimingSample* s = store.find("transpose_tiled", {{"pad", 1}}, &from);
  REQUIRE(s);
  CHECK(s->gbs == 1300);
  CHECK(from->origin == "replay");
  CHECK(store.find("transpose_tiled", {{"pad", 0}}, nullptr)->gbs == 600);
  CHECK(store.find("copy", {}, nullptr) == nullptr);

  // The replay pack in the repository, as `warpscope bench --format json` writes it.
  if (std::filesystem::exists("assets/replay/bench.json")) {
    std::string m2;
    auto pack = ui::load_replay_pack("assets/replay", m2);
    REQUIRE(!pack.empty());
    CHECK(!pack[0].device.empty());
    ui::TimingStore real;
    real.replay = pack;
    const ui::TimingSample* p0 = real.find("transpose_tiled", {{"pad", 0}, {"m", 0}}, nullptr);
    const ui::TimingSample* p1 = real.find("transpose_tiled", {{"pad", 1}, {"m", 0}}, nullptr);
    REQUIRE(p0);
    REQUIRE(p1);
    CHECK(p0->params.at("pad") == 0);
    CHECK(p1->params.at("pad") == 1);
    CHECK(p1->ref == "device copy");
    if (const ui::TimingSample* mm = real.find("matmul_naive", {}, nullptr)) CHECK(mm->ref == "cuBLAS");
  }
  // The panel draws with a pack and without one.
  ui::HeadlessContext ctx(1280, 720);
  ui::Environment env = quiet_env();
  env.replay_dir = dir.string();
  ui::Ui with(env);
  show(ctx, with, "transpose_tiled", {{"pad", 1}}, 0);
  for (int i = 0; i < 5; ++i) ctx.frame(with);
  CHECK(with.timing.store().replay.size() == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("live timings arrive from a background source and build a history") {
  int calls = 0;
  ui::Environment env = quiet_env();
  env.live = [&calls](const std::vector<std::string>& ids, const std::map<std::string, int64_t>&) {
    ++calls;
    json j;
    j["device"] = "test GPU";
    j["results"] = json::array();
    for (const auto& id : ids) j["results"].push_back({{"kernel", id}, {"ms", 1.0 + calls}, {"gbps", 100.0}});
    return j.dump();
  };
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(env);
  show(ctx, u, "transpose_tiled", {{"pad", 0}}, 0);
  // The timer runs on its own thread: give it real time, not a number of frames.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!u.timing.store().live && std::chrono::steady_clock::now() < until) {
    ctx.frame(u);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  REQUIRE(u.timing.store().live);
  CHECK(u.timing.store().live->origin == "live");
  CHECK(u.timing.store().live->device == "test GPU");
  CHECK(u.timing.store().live_history.count("transpose_tiled") == 1);
}

TEST_CASE("the source panel wraps what the GPU ran as it wraps code: matmul_tiled's line 128 at the projector's width") {
  session::LaunchSpec spec;
  spec.kernel = "matmul_tiled";
  spec.backend = "emulator";
  const session::ResolvedLaunch l = session::resolve(spec);
  const auto m = session::Session::from_capture(session::capture(l), l, spec);
  REQUIRE(m->hardware());  // the replay pack's SASS trace of the catalog kernel
  const session::SourceText& f = m->sources().at(0);
  REQUIRE(f.stats.count(128));
  const std::string h = session::hardware_text(f.stats.at(128).hardware.at(0));
  const int wrap = 60;
  const auto rows = ui::source_rows(f, [](uint32_t line) { return line == 128; }, wrap);
  std::string joined;
  int pieces = 0;
  for (const ui::SourceRow& r : rows) {
    if (r.hardware != 0) continue;
    ++pieces;
    CHECK(r.more == (pieces > 1));
    const std::string piece = h.substr(r.from, r.to - r.from);
    CHECK(int(piece.size() + r.col + (r.more ? 4 : 2)) <= wrap + 4);
    joined += (joined.empty() || joined.back() == ' ' ? "" : " ") + piece;
  }
  CHECK(pieces >= 2);
  CHECK(joined == h);
  // Unwrapped (the normal font): one row.
  int one = 0;
  for (const ui::SourceRow& r : ui::source_rows(f, [](uint32_t line) { return line == 128; })) one += r.hardware == 0;
  CHECK(one == 1);
}

TEST_CASE("the warp inspector's phases in little height: a phase's n-way never drawn over its title or its lanes") {
  ui::HeadlessContext ctx(1280, 720);
  // One warp's 16-byte shared load, lane i of phase p at row i % 8 of a 128-byte-row tile,
  // chunk p: the 8 lanes of a phase 128 bytes apart, all in one bank group, 8-way.
  trace::Trace t;
  t.files.push_back({"k.cu", "// k.cu\nv = tile[lane % 8][4 * (lane / 8)];\n"});
  t.buffers.push_back(trace::shared_buffer("tile", 4, 8, 32, 8 * 128));
  trace::Launch l;
  l.kernel = "k";
  l.block = {32, 1, 1};
  l.blocks = {0};
  t.launches.push_back(l);
  t.sites.push_back(test::site16(t.files[0].text.c_str(), 2, trace::Space::Shared, trace::Op::Load, trace::Form::Plain,
                                 "ld.shared.v4.f32", 0));
  trace::Record r;
  r.active = ~0u;
  for (uint32_t lane = 0; lane < 32; ++lane) r.offset[lane] = (lane % 8) * 128 + (lane / 8) * 16;
  t.records.push_back(r);
  analysis::DramModel dram;
  auto m = session::Session::from_trace(std::make_shared<const trace::Trace>(std::move(t)), dram);
  const session::RequestFigures rv = m->request(0);
  REQUIRE(rv.phases == 4);
  REQUIRE(rv.s.max_way == 8);
  // The inspector's sizes at 1280x720 (a lesson beside it), then roomier ones.
  for (const ImVec2 size : {ImVec2(390, 150), ImVec2(390, 190), ImVec2(390, 260), ImVec2(600, 420)}) {
    CAPTURE(size.y);
    ui::Scene sc;
    ui::warp_scene(sc, rv, size);
    std::vector<std::pair<ImVec2, ImVec2>> others;
    std::vector<std::pair<ImVec2, ImVec2>> labels;
    for (const auto& i : sc.items) {
      if (i.kind != ui::Scene::Kind::Text) continue;
      ImVec2 lo, hi;
      ui::text_box(i, lo, hi);
      (i.text == "8-way" ? labels : others).push_back({lo, hi});
    }
    CHECK(labels.size() >= 1);
    for (const auto& [a, b] : labels)
      for (const auto& [c, d] : others) {
        INFO("8-way at " << a.x << "," << a.y << " and a text at " << c.x << "," << c.y);
        CHECK_FALSE((a.x < d.x - 0.5f && b.x > c.x + 0.5f && a.y < d.y - 0.5f && b.y > c.y + 0.5f));
      }
  }
}

TEST_CASE("a shared tile's odd banks stand apart from its even ones in both themes, on a projector too") {
  // The stripes (a 32-column tile) and the checkerboard (33 columns) are the bank tint:
  // at least 20 levels of grey apart (it was 10 in the dark theme, 22 in the light one,
  // and vanished on a projector).
  auto luma = [](ImU32 c) { return 0.299 * double(c & 0xff) + 0.587 * double((c >> 8) & 0xff) + 0.114 * double((c >> 16) & 0xff); };
  const ui::Theme dark{};
  const ui::Theme light = ui::presentation_theme();
  CHECK(std::abs(luma(dark.cell_tinted) - luma(dark.cell_empty)) >= 20);
  CHECK(std::abs(luma(light.cell_tinted) - luma(light.cell_empty)) >= 30);
}

TEST_CASE("the timeline's key names the waits' marks where the launch has them, and gives its words way first") {
  ui::HeadlessContext ctx(1280, 720);
  auto words = [](const ui::Scene& s) {
    std::string all;
    for (const auto& i : s.items)
      if (i.kind == ui::Scene::Kind::Text) all += i.text + "|";
    return all;
  };
  ui::Scene plain, waits;
  const float wp = ui::timeline_legend(plain, 600, 20, false, false);
  const float ww = ui::timeline_legend(waits, 600, 20, false, true);
  CHECK(words(plain).find("wait") == std::string::npos);
  CHECK(words(waits).find("wait|") != std::string::npos);
  CHECK(ww > wp);
  ui::Scene narrow;  // too little room for the words: the swatches stay
  CHECK(ui::timeline_legend(narrow, ww - 20, 20, false, true) > 0);
  CHECK(words(narrow).find("bars: cost") == std::string::npos);
}
