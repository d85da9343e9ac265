// tests/gui/test_layout.cpp — The layout rules of the app (docs/architecture.md, "The app"), checked on the scenes the app and the figure export
// draw: in every layout (normal, presentation, A/B, both; every panel enlarged) at
// 1280×720 and 1920×1080, the current request's lane diagram keeps its room, no text is
// smaller than 11 px, no two texts overlap, and no text runs out of its panel. The scenes
// measure text once (text_size), and the figure files place glyphs by the same
// measurement, so these checks cover the screen and the export alike.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <cstdio>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "program/program.h"
#include "session/capture.h"
#include "session/worker.h"
#include "session/launch.h"
#include "session/session.h"
#include "ui/figure/figure.h"
#include "ui/figure/headless.h"
#include "ui/figure/scene.h"
#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"
#include "drawn_text.h"
#include "text_rules.h"
#include "ui_test.h"
#include "../support.h"

using namespace ws;

namespace {

// `u` with `program` opened and recorded (no replay pack: the times are the test's own).
void open_program_settled(ui::HeadlessContext& ctx, ui::Ui& u, const std::string& program) {
  session::LaunchSpec spec;
  spec.program.source = program;
  spec.program.echo = false;
  u.open_program(spec);
  for (int i = 0; i < 4000 && !u.settled(); ++i) {
    ctx.frame(u);
    if (u.recorder.busy()) u.recorder.wait_idle();
  }
}


using test::frame_scenes;
using test::quiet_env;
using test::settle;
using test::TextBox;
using test::inside;
using test::text_problems;
using test::texts_of;
using test::where;


struct Size {
  float w, h, diagram_w, diagram_h;  // the least lane diagram at this size
};
constexpr Size kSizes[] = {{1280, 720, 200, 120}, {1920, 1080, 320, 180}};

struct Mode {
  const char* name;
  bool present, compare;
};
constexpr Mode kModes[] = {{"normal", false, false}, {"presentation", true, false}, {"compare", false, true},
                           {"presentation + compare", true, true}};

// The request to show: a shared store with a 32-way conflict, a float4 global load, or
// the first request on `array`.
struct Case {
  const char* kernel;
  std::map<std::string, int64_t> params;
  const char* compare;
  bool shared;
  const char* array = nullptr;
  uint32_t bytes = 0;  // with `array`: its first access of this many bytes a lane (0: any)
};

uint64_t first_step(const session::Session& m, bool shared, uint32_t bytes, const char* array = nullptr) {
  const auto& t = m.trace();
  for (uint64_t i = 0; i < m.size(); ++i) {
    const auto& s = t.sites[t.records[i].site];
    if (array) {
      if (t.buffers[s.buffer].name == array && (bytes == 0 || s.bytes == bytes)) return i;
      continue;
    }
    if ((s.space == trace::Space::Shared) == shared && (bytes == 0 || s.bytes == bytes)) return i;
  }
  return 0;
}

// The memory views' current request as drawn in [min, max]: the largest grid cell, and
// how many lanes show a colour patch at least `px` square (within its clip).
struct MemoryLegibility {
  float cell = 0;
  int lanes = 0;
};
MemoryLegibility memory_legibility(const std::vector<ui::SceneChunk>& chunks, ImVec2 min, ImVec2 max, float px) {
  MemoryLegibility out;
  std::map<ImU32, int> lane_of;
  for (int l = 0; l < 32; ++l) lane_of[ui::lane_color(l)] = l;
  std::set<int> seen;
  for (const auto& c : chunks) {
    if (!inside(c.clip_min, min, max) || !inside(c.clip_max, min, max)) continue;
    for (const auto& g : c.scene.grids) out.cell = std::max(out.cell, g.cell);
    for (const auto& i : c.scene.items) {
      auto it = lane_of.find(i.color);
      if (i.kind != ui::Scene::Kind::Fill || it == lane_of.end()) continue;
      const float w = std::min(i.b.x, c.clip_max.x) - std::max(i.a.x, c.clip_min.x);
      const float h = std::min(i.b.y, c.clip_max.y) - std::max(i.a.y, c.clip_min.y);
      if (w >= px && h >= px) seen.insert(it->second);
    }
  }
  out.lanes = int(seen.size());
  return out;
}

void check_layouts(const Case& c) {
  for (const Size& sz : kSizes) {
    ui::HeadlessContext ctx(sz.w, sz.h);
    ui::Ui u(quiet_env());
    u.state.kernel = c.kernel;
    u.state.params = c.params;
    u.record();
    settle(ctx, u);
    REQUIRE(u.has_model());
    const uint64_t step = c.array    ? first_step(*u.pane.model, c.shared, c.bytes, c.array)
                          : c.shared ? first_step(*u.pane.model, true, 4)
                                     : first_step(*u.pane.model, false, 16);
    u.set_step(step);
    for (const Mode& mode : kModes) {
      for (int enlarged : {-1, int(ui::Panel::Memory), int(ui::Panel::Warp), int(ui::Panel::Dram), int(ui::Panel::Source)}) {
        if (mode.compare && enlarged >= 0) continue;
        CAPTURE(c.kernel);
        CAPTURE(sz.w);
        INFO("mode " << std::string(mode.name) << ", " << std::string(c.kernel) << (c.array ? std::string(" array ") + c.array : std::string()));
        CAPTURE(enlarged);
        u.state.present = mode.present;
        u.state.enlarged = enlarged;
        std::string err;
        REQUIRE(u.set_compare(mode.compare ? c.compare : "", err));
        settle(ctx, u);
        u.set_step(step);
        settle(ctx, u);
        ctx.frame(u);
        const auto chunks = frame_scenes(ctx, u);
        // The diagram of every warp inspector on screen (both sides of an A/B view).
        int diagrams = 0;
        ImVec2 src_min, src_max;
        for (const auto& p : u.drawn()) {
          if (p.panel == ui::Panel::Source) src_min = p.min, src_max = p.max;
          if (p.panel != ui::Panel::Warp) continue;
          ++diagrams;
          const float w = p.diagram_max.x - p.diagram_min.x, h = p.diagram_max.y - p.diagram_min.y;
          INFO("lane diagram " << w << "×" << h << (p.b_side ? " (B)" : " (A)"));
          CHECK(w >= sz.diagram_w);
          CHECK(h >= sz.diagram_h);
        }
        const bool warp_shown = enlarged < 0 || enlarged == int(ui::Panel::Warp);
        CHECK(diagrams == (warp_shown ? (mode.compare ? 2 : 1) : 0));
        // The memory of the request: each side's memory view is on screen.
        if (enlarged < 0) {
          int memories = 0;
          for (const auto& p : u.drawn())
            if (p.panel == ui::Panel::Memory && p.max.y - p.min.y >= 100 && p.max.x - p.min.x >= 200) ++memories;
          CHECK(memories == (mode.compare ? 2 : 1));
        }
        // ... and its cells are legible with no zoom by hand: the request's lane colours
        // as patches of 5 px and more on cells of 6 px and more (follow's least).
        if (enlarged < 0 || enlarged == int(ui::Panel::Memory))
          for (const auto& p : u.drawn()) {
            if (p.panel != ui::Panel::Memory) continue;
            const MemoryLegibility m = memory_legibility(chunks, p.min, p.max, 5);
            INFO("memory view" << (p.b_side ? " (B)" : " (A)") << ": cells of " << m.cell << " px, " << m.lanes
                               << " lanes legible");
            CHECK(m.cell >= 6);
            // Presentation + A/B at 1280×720 leaves the grid a band of some 5 rows of
            // legible cells: a column of 32 lanes shows its first few.
            CHECK(m.lanes >= (mode.present && mode.compare && sz.w < 1500 ? 4 : 8));
          }
        for (const auto& problem : text_problems(texts_of(chunks), src_min, src_max)) FAIL_CHECK(problem);
      }
    }
    std::string err;
    u.set_compare("", err);
  }
}

}  // namespace

TEST_CASE("layouts keep the lane diagram legible: the 32-way tile store of transpose_tiled") {
  check_layouts({"transpose_tiled", {{"pad", 0}}, "transpose_tiled:pad=1", true});
}

TEST_CASE("layouts keep the lane diagram legible: the float4 load of matmul_coarse2d_vec") {
  check_layouts({"matmul_coarse2d_vec", {}, "matmul_coarse2d", false});
}

TEST_CASE("layouts keep the memory of the request legible: pmpp_exercise's thin c and e, wide b") {
  check_layouts({"pmpp_exercise", {}, "pmpp_exercise", false, "c"});
  check_layouts({"pmpp_exercise", {}, "pmpp_exercise", false, "e"});
  check_layouts({"pmpp_exercise", {}, "pmpp_exercise", false, "b"});
}

TEST_CASE("layouts keep the memory of the request legible: the 8×128 As tile of matmul_coarse2d_vec") {
  check_layouts({"matmul_coarse2d_vec", {}, "matmul_coarse2d", true, "As"});
}

TEST_CASE("layouts keep the lane diagram legible: the float4 shared load of matmul_coarse2d_vec, in four phases") {
  check_layouts({"matmul_coarse2d_vec", {}, "matmul_coarse2d", true, "As", 16});
}

TEST_CASE("figures: every view at both sizes keeps its text legible, apart and inside") {
  auto spec = session::LaunchSpec{};
  spec.kernel = "transpose_tiled";
  spec.params["pad"] = 0;
  auto model = session::record_session(session::resolve(spec), spec);
  REQUIRE(model->size() > 0);
  const uint64_t shared = first_step(*model, true, 4), global = first_step(*model, false, 0);
  for (const Size& sz : kSizes) {
    ui::HeadlessContext ctx(sz.w, sz.h);
    for (ui::FigureView v : {ui::FigureView::Memory, ui::FigureView::Warp, ui::FigureView::Banks, ui::FigureView::Dram,
                             ui::FigureView::Source})
      for (uint64_t step : {shared, global}) {
        if (v == ui::FigureView::Banks && step != shared) continue;
        CAPTURE(sz.w);
        CAPTURE(int(v));
        CAPTURE(step);
        ui::Figure f = ui::render_figure(model, step, v, int(sz.w), int(sz.h), "transpose_tiled · pad=0 · step " +
                                                                               std::to_string(step));
        const auto t = texts_of(f.chunks);
        CHECK(t.size() >= 3);
        for (const auto& problem : text_problems(t)) FAIL_CHECK(problem);
        if (v == ui::FigureView::Memory) {
          const MemoryLegibility m = memory_legibility(f.chunks, ImVec2(0, 0), ImVec2(sz.w, sz.h), 5);
          CHECK(m.cell >= 6);
          CHECK(m.lanes >= 8);
        }
      }
  }
}

TEST_CASE("memory figures show pmpp_exercise's thin c and e at legible cells, as the app does") {
  auto spec = session::LaunchSpec{};
  spec.kernel = "pmpp_exercise";
  auto model = session::record_session(session::resolve(spec), spec);
  REQUIRE(model->size() > 0);
  for (const Size& sz : kSizes) {
    ui::HeadlessContext ctx(sz.w, sz.h);
    for (const char* array : {"c", "e"}) {
      CAPTURE(sz.w);
      CAPTURE(array);
      const uint64_t step = first_step(*model, false, 0, array);
      ui::Figure f = ui::render_figure(model, step, ui::FigureView::Memory, int(sz.w), int(sz.h), "pmpp_exercise");
      const MemoryLegibility m = memory_legibility(f.chunks, ImVec2(0, 0), ImVec2(sz.w, sz.h), 7);
      CHECK(m.cell >= 8);
      CHECK(m.lanes == 32);  // every lane of the request, on its own cell
      for (const auto& problem : text_problems(texts_of(f.chunks))) FAIL_CHECK(problem);
    }
  }
}

TEST_CASE("File → Export figure writes the view at the step on screen") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  u.state.kernel = "transpose_tiled";
  u.record();
  settle(ctx, u);
  u.set_step(1);
  settle(ctx, u);
  u.open_export_dialog();
  ctx.frame(u);
  CHECK(u.dialogs.figure_view == 1);  // the warp inspector when no panel is enlarged
  CHECK(u.dialogs.figure_caption.find("transpose_tiled") == 0);
  CHECK(u.dialogs.figure_caption.find("request 2 of") != std::string::npos);  // record 1, as the timeline counts
  const auto dir = std::filesystem::temp_directory_path() / ("warpscope-test-export-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const char* name : {"fig.png", "fig.svg"}) {
    u.dialogs.figure_path = (dir / name).string();
    std::string err;
    CHECK(ui::export_figure(u, err));
    CHECK(err == "");
    CHECK(std::filesystem::file_size(dir / name) > 1000);
  }
  // Bad input: a folder that is not there, a file type nobody reads, banks at a global step.
  std::string err;
  u.dialogs.figure_path = (dir / "no-such-dir" / "x.png").string();
  CHECK_FALSE(ui::export_figure(u, err));
  CHECK(err.find("cannot write") != std::string::npos);
  u.dialogs.figure_path = (dir / "x.bmp").string();
  CHECK_FALSE(ui::export_figure(u, err));
  CHECK(err.find("unknown figure type") != std::string::npos);
  u.set_step(0);  // a global load
  settle(ctx, u);
  u.dialogs.figure_view = 2;
  u.dialogs.figure_path = (dir / "b.png").string();
  CHECK_FALSE(ui::export_figure(u, err));
  CHECK(err.find("banks view needs") != std::string::npos);
  std::filesystem::remove_all(dir);
}

namespace {

std::string where(const test::DrawnText& d) {
  char s[200];
  std::snprintf(s, sizeof s, "'%s' at (%.0f,%.0f)-(%.0f,%.0f)", d.text.substr(0, 60).c_str(), d.pos.x, d.pos.y,
                d.pos.x + d.size.x, d.pos.y + d.size.y);
  return s;
}

// The widgets' texts (and the scenes', caught the same way) of one frame: a text cut at
// the side of what clips it, or two texts over each other. `scrolls`: rectangles whose
// texts scroll (a list, the code), where a text cut at the top or bottom edge is a row
// scrolled half out of view, not a fault.
std::vector<std::string> widget_text_problems(const std::vector<test::DrawnText>& texts,
                                              const std::vector<ImVec4>& scrolls) {
  std::vector<std::string> bad;
  const float tol = 1.5f;
  auto visible = [](const test::DrawnText& d) {
    return d.pos.x + d.size.x > d.clip.x && d.pos.x < d.clip.z && d.pos.y + d.size.y > d.clip.y && d.pos.y < d.clip.w;
  };
  auto in_scroll = [&](const test::DrawnText& d) {
    for (const ImVec4& r : scrolls)
      if (d.pos.x >= r.x - 1 && d.pos.y >= r.y - d.size.y && d.pos.x <= r.z && d.pos.y <= r.w) return true;
    return false;
  };
  std::vector<const test::DrawnText*> shown;
  for (const auto& d : texts) {
    if (d.text.find_first_not_of(" \t\n") == std::string::npos || !visible(d)) continue;
    shown.push_back(&d);
    const bool cut_x = d.pos.x < d.clip.x - tol || d.pos.x + d.size.x > d.clip.z + tol;
    const bool cut_y = d.pos.y < d.clip.y - tol || d.pos.y + d.size.y > d.clip.w + tol;
    if (cut_x && !in_scroll(d)) bad.push_back("cut at the side: " + where(d));
    if (cut_y && !in_scroll(d)) bad.push_back("cut at the top or bottom: " + where(d));
  }
  for (size_t i = 0; i < shown.size(); ++i)
    for (size_t j = i + 1; j < shown.size(); ++j) {
      const auto &a = *shown[i], &b = *shown[j];
      if (a.text == b.text && std::abs(a.pos.x - b.pos.x) < 0.5f && std::abs(a.pos.y - b.pos.y) < 0.5f) continue;
      const float w = std::min({a.pos.x + a.size.x, a.clip.z, b.pos.x + b.size.x, b.clip.z}) -
                      std::max({a.pos.x, a.clip.x, b.pos.x, b.clip.x});
      const float h = std::min({a.pos.y + a.size.y, a.clip.w, b.pos.y + b.size.y, b.clip.w}) -
                      std::max({a.pos.y, a.clip.y, b.pos.y, b.clip.y});
      if (w > tol && h > tol) bad.push_back("texts overlap: " + where(a) + " and " + where(b));
    }
  return bad;
}

}  // namespace

TEST_CASE("the app at both sizes, normal and presentation: every panel and a lesson step name what they show, no widget text cut or overlapping") {
  struct Scene {
    const char* name;
    int enlarged;  // -1: the layout as is
    const char* lesson;
    bool answered;
    const char* kernel = "matmul_tiled";
    uint64_t step = 2;
    int lesson_step = -1;  // -1: two steps past the lesson's first question
  };
  const Scene scenes[] = {
      {"default", -1, nullptr, false},
      {"catalog", int(ui::Panel::Catalog), nullptr, false},
      {"memory", int(ui::Panel::Memory), nullptr, false},
      {"warp", int(ui::Panel::Warp), nullptr, false},
      {"dram", int(ui::Panel::Dram), nullptr, false},
      {"source", int(ui::Panel::Source), nullptr, false},
      {"timing", int(ui::Panel::Timing), nullptr, false},
      {"lesson waiting", -1, "basics", false},
      {"lesson answered", -1, "basics", true},
      {"long status", -1, nullptr, false},
      // A tile copied from global memory beside a lesson: the memory view's toolbar has one
      // toggle more (colour by source column) in a narrower panel.
      {"swizzle lesson", -1, "swizzle", false, "", 0, 0},
  };
  for (const Size& sz : kSizes)
    for (bool present : {false, true})
      for (const Scene& sc : scenes) {
        CAPTURE(sz.w);
        CAPTURE(present);
        INFO("scene " << sc.name);
        ui::HeadlessContext ctx(sz.w, sz.h);
        ui::Environment env;  // the bundled replay pack: the timing panel has its ladder
        ui::Ui u(env);
        u.state.present = present;
        if (sc.lesson) {
          REQUIRE(u.lessons.open(sc.lesson));
          settle(ctx, u);
          size_t q = 0;
          while (!u.lessons.run.lesson->steps[q].question) ++q;
          u.lessons.go_to(sc.lesson_step >= 0 ? size_t(sc.lesson_step) : q + 2);  // basics: the efficiency step, "12.5%"
          settle(ctx, u);
          if (sc.answered) u.lessons.check(u.lessons.run.resolved->answer.text);
        } else {
          u.state.kernel = sc.kernel;
          u.record();
          settle(ctx, u);
          u.set_step(sc.step);
          u.state.enlarged = sc.enlarged;
        }
        // A message as long as a saved program's fault makes: the figures at the status bar's
        // right give way to it rather than run off the window.
        if (std::string(sc.name) == "long status")
          u.status.text = "the saved program stops in launch 2: shown where; before vs after comes back once it runs clean";
        settle(ctx, u);
        ctx.frame(u);
        ctx.frame(u);
        test::start_catching();
        const auto texts = test::stop_catching(ctx.frame(u));
        // The title and the backend are named at the top.
        bool title = false, backend = false;
        for (const auto& d : texts)
          if (d.pos.y < 40) {
            title |= d.text.find(u.pane.model->trace().launch().kernel.substr(0, 8)) == 0;
            backend |= d.text.find("EMULATED") != std::string::npos;
          }
        CHECK(title);
        CHECK(backend);
        // A lesson's step title stays whole at the panel's top, however far its text has
        // scrolled (to the question, on a short panel).
        if (sc.lesson) {
          const std::string head = std::to_string(u.lessons.run.step + 1) + "/" +
                                   std::to_string(u.lessons.run.lesson->steps.size()) + " · ";
          bool whole = false;
          for (const auto& d : texts) whole |= d.text.rfind(head, 0) == 0 && d.whole_in_clip();
          CHECK_MESSAGE(whole, "no whole step title '" << head << "…'");
        }
        std::vector<ImVec4> scrolls;
        for (const auto& p : u.drawn())
          if (p.panel == ui::Panel::Catalog || p.panel == ui::Panel::Source || p.panel == ui::Panel::Lesson ||
              p.panel == ui::Panel::Timing)
            scrolls.push_back(ImVec4(p.min.x, p.min.y, p.max.x, p.max.y));
        for (const auto& problem : widget_text_problems(texts, scrolls)) FAIL_CHECK(problem);
      }
}

TEST_CASE("a light figure of the memory view: axis titles over its grid, its key right under it") {
  auto spec = session::LaunchSpec{};
  spec.kernel = "matmul_tiled";
  auto model = session::record_session(session::resolve(spec), spec);
  REQUIRE(model->size() > 2);
  for (const Size& sz : kSizes) {
    CAPTURE(sz.w);
    ui::HeadlessContext ctx(sz.w, sz.h);
    const ui::ThemeScope light(ui::kThemePresentation);
    const ui::Figure f = ui::render_figure(model, 2, ui::FigureView::Memory, int(sz.w), int(sz.h), "");
    const ImU32 bg = f.background;
    CHECK(int(bg & 255) + int((bg >> 8) & 255) + int((bg >> 16) & 255) > 600);  // a light background
    const auto t = texts_of(f.chunks);
    auto find = [&](const std::string& s) -> const TextBox* {
      for (const auto& b : t)
        if (b.text == s) return &b;
      return nullptr;
    };
    CHECK(find("row ↓"));
    CHECK(find("column →"));
    // (numbers promised only where the cells carry them: test_export checks which)
    const TextBox* key = find("lane 0 … 31 (number in the cell)");
    if (!key) key = find("lane 0 … 31");
    REQUIRE(key);
    CHECK(find("32-byte sector fetched"));
    // The key sits right under the lowest row number of the grid it explains.
    float grid_bottom = 0;
    for (const auto& b : t)
      if (b.min.x < 60 && b.max.y < key->min.y) grid_bottom = std::max(grid_bottom, b.max.y);
    CHECK(key->min.y - grid_bottom < 40);
  }
}

TEST_CASE("a program's timing panel: its launches as the replay pack's GPU timed them, whole lines, nothing cut") {
  if (!ws::test::have_nvcc("skipped")) return;
  for (bool present : {false, true}) {
    CAPTURE(present);
    ui::HeadlessContext ctx(1280, 720);
    ui::Ui u(quiet_env());
    open_program_settled(ctx, u, "tests/programs/matmul_tiled.cu");
    REQUIRE(u.pane.model);
    REQUIRE(u.pane.model->hardware());  // assets/replay/sass/matmul_tiled.wstrace, with its times
    u.state.present = present;
    u.state.enlarged = int(ui::Panel::Timing);
    ctx.frame(u);
    test::start_catching();
    const auto texts = test::stop_catching(ctx.frame(u));
    std::string all;
    for (const auto& d : texts) all += d.text + "\n";
    CHECK(all.find("replay pack, 20") != std::string::npos);
    CHECK(all.find("launch 1  matmulTiled<<<(4,4), (16,16)>>>") != std::string::npos);
    CHECK(all.find("% of cuBLAS") != std::string::npos);
    CHECK(all.find("cuBLAS SGEMM 64^3 (the same flops), same run") != std::string::npos);
    for (const auto& d : texts) {
      CAPTURE(d.text);
      CHECK(d.pos.x + d.size.x <= d.clip.z + 1);  // wrapped inside the panel, not cut
    }
  }
}

namespace {

// The line numbers the source panel draws whole inside its clip, in one more frame.
std::set<int> source_lines_drawn(ui::HeadlessContext& ctx, ui::Ui& u) {
  ImVec2 lo, hi;
  for (const auto& d : u.drawn())
    if (d.panel == ui::Panel::Source) lo = d.min, hi = d.max;
  REQUIRE(hi.y > lo.y);
  std::vector<ui::SceneChunk> chunks;
  ui::set_scene_sink(&chunks);
  ctx.frame(u);
  ui::set_scene_sink(nullptr);
  std::set<int> lines;
  for (const auto& c : chunks)
    for (const auto& it : c.scene.items) {
      const size_t d = it.text.find_first_not_of(' ');  // "%4u": right-aligned numbers
      if (it.kind != ui::Scene::Kind::Text || d == std::string::npos || !std::isdigit(static_cast<unsigned char>(it.text[d])) ||
          it.font != ui::FontRole::Mono || it.text.find_first_not_of("0123456789 ") != std::string::npos)
        continue;
      const float top = std::max(c.clip_min.y, lo.y), bottom = std::min(c.clip_max.y, hi.y);
      const float h = ui::text_size(it.font, it.text).y;
      if (it.a.x < lo.x || it.a.x > hi.x || it.a.y < top || it.a.y + h > bottom + 1) continue;
      lines.insert(std::atoi(it.text.c_str()));
    }
  return lines;
}

}  // namespace

TEST_CASE("a program at 1280x720, normal layout: the source panel shows at least 8 lines of code whole") {
  if (!ws::test::have_nvcc("skipped")) return;
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  open_program_settled(ctx, u, "examples/transpose.cu");
  REQUIRE(u.pane.model);
  for (int step : {0, 200}) {
    CAPTURE(step);
    u.set_step(uint64_t(step));
    for (int i = 0; i < 3; ++i) ctx.frame(u);
    CHECK(source_lines_drawn(ctx, u).size() >= 8);
  }
}

TEST_CASE("presentation at 1280x720: the current line is in the source panel though the line above wraps into many rows") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  u.state.kernel = "tc_mma_plain";
  u.record();
  settle(ctx, u);
  REQUIRE(u.has_model());
  u.state.present = true;
  u.set_step(64);  // request 65: the ldmatrix of line 159, under line 158's five rows
  settle(ctx, u);
  for (int i = 0; i < 3; ++i) ctx.frame(u);
  const trace::Site* site = u.pane.request().site;
  REQUIRE(site);
  CHECK(source_lines_drawn(ctx, u).count(int(site->line)) == 1);  // the current line's number, whole
}

TEST_CASE("at 1280x720 the ladder scrolls to the row on screen under a header that stays: the GPU and the date") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Environment env = test::quiet_env();
  env.replay_dir = ui::bundled_replay_dir();
  ui::Ui u(env);
  u.state.kernel = "matmul_tuned";  // the SGEMM ladder's last rows
  u.record();
  test::settle(ctx, u);
  ctx.frame(u);
  const nlohmann::json d = nlohmann::json::parse(u.describe_json());
  REQUIRE(d.contains("timing"));
  const std::string device = d["timing"]["device"], date = d["timing"]["date"].get<std::string>().substr(0, 10);
  ImVec2 lo, hi;
  for (const auto& p : u.drawn())
    if (p.panel == ui::Panel::Timing) lo = p.min, hi = p.max;
  REQUIRE(hi.y > lo.y);
  test::start_catching();
  const auto texts = test::stop_catching(ctx.frame(u));
  bool header = false, here = false, scale = false;
  float scale_y = 0, first_row_y = 1e9f;
  for (const auto& t : texts) {
    const bool inside = t.pos.x >= lo.x && t.pos.y >= lo.y && t.pos.y + t.size.y <= hi.y && t.pos.y >= t.clip.y &&
                        t.pos.y + t.size.y <= t.clip.w + 1;
    header |= inside && t.text.find(device) != std::string::npos && t.text.find(date) != std::string::npos;
    here |= inside && t.text.find("tuned") != std::string::npos;
    if (inside && t.text.rfind("100%", 0) == 0 && t.text.find("=") == std::string::npos)
      scale = true, scale_y = t.pos.y;
    if (inside && t.text.find("tuned") != std::string::npos) first_row_y = std::min(first_row_y, t.pos.y);
  }
  CHECK(header);  // the ladder scrolled to its last rows, the header still on screen
  CHECK(here);
  // The scale stays above the rows as they scroll (it went with the first rows).
  CHECK(scale);
  CHECK(scale_y < first_row_y);
}

TEST_CASE("at 1280x720, normal and on a projector, a program that wrote out of bounds shows its cells large: the whole banner, the lane past the edge") {
  if (!ws::test::have_nvcc("skipped")) return;
  for (const bool present : {true, false}) {
    CAPTURE(present);
    const std::filesystem::path prog = test::faulting_transpose("fault-present");
    ui::HeadlessContext ctx(1280, 720);
    ui::Ui u(test::quiet_env());
    u.state.present = present;
    open_program_settled(ctx, u, prog.string());
    REQUIRE(u.pane.model);
    REQUIRE(u.status.problem.kind == "out_of_bounds");
    REQUIRE(u.problem_step_on(u.pane) >= 0);
    ctx.frame(u);
    test::start_catching();
    const std::vector<test::DrawnText> texts = test::stop_catching(ctx.frame(u));
    // The memory view is the large panel on the left (the warp inspector's place otherwise).
    const ui::DrawnPanel* mem = nullptr;
    for (const auto& d : u.drawn())
      if (d.panel == ui::Panel::Memory && !d.b_side) mem = &d;
    REQUIRE(mem);
    CHECK(mem->min.x < 20);
    CHECK(mem->max.x - mem->min.x > 1280 * 0.5f);
    auto drawn = [&](const std::string& what) {
      for (const auto& t : texts)
        if (t.text.find(what) != std::string::npos) return true;
      return false;
    };
    CHECK(drawn("went past its edge"));   // the banner's last words: not cut
    CHECK(drawn("past the end of d_out"));  // the strip of the lane past the array
    CHECK(mem->max.y - mem->min.y > 720 * 0.6f);  // rows of cells, not one (the normal layout's middle column left one)
    std::filesystem::remove_all(prog.parent_path());
  }
}

TEST_CASE("the A/B table: a cost per request, which it does not judge, says where it is judged instead of a bare dash") {
  ui::HeadlessContext ctx(1920, 1080);
  ui::Ui u(quiet_env());
  u.state.kernel = "transpose_tiled";
  u.record();
  settle(ctx, u);
  std::string err;
  REQUIRE(u.set_compare("transpose_tiled:pad=1", err));
  settle(ctx, u);
  ctx.frame(u);
  test::start_catching();
  const std::vector<test::DrawnText> texts = test::stop_catching(ctx.frame(u));
  bool per_request = false, judged = false, dash = false;
  for (const auto& t : texts) {
    per_request |= t.text == "wavefronts / request";
    judged |= t.text == "judged per 128 B used";
    dash |= t.text == "—";
  }
  CHECK(per_request);  // pad=0 and pad=1 differ there (16.50 and 1.00)
  CHECK(judged);
  CHECK_FALSE(dash);
  // The request on screen (the first global load, 4 sectors on both) is not a row of
  // figures that differ: it is named under the table with the others both share.
  bool request_row = false, named_same = false;
  for (const auto& t : texts) {
    request_row |= t.text == "this request";
    named_same |= t.text.find("the same on both:") != std::string::npos && t.text.find("this request") != std::string::npos;
  }
  CHECK_FALSE(request_row);
  CHECK(named_same);
}

namespace {

// The first request of `m` in shared memory (`shared`), or in any other space.
uint64_t first_step(const session::Session& m, bool shared) {
  for (uint64_t i = 0; i < m.size(); ++i)
    if ((m.trace().sites[m.trace().records[i].site].space == trace::Space::Shared) == shared) return i;
  return 0;
}

// transpose_tiled recorded, in presentation mode or not, and beside its pad=1 twin (`ab`).
void pad_compare(ui::HeadlessContext& ctx, ui::Ui& u, bool present, bool ab) {
  u.state.kernel = "transpose_tiled";
  u.state.present = present;
  u.record();
  settle(ctx, u);
  std::string err;
  if (ab) REQUIRE(u.set_compare("transpose_tiled:pad=1", err));
  settle(ctx, u);
}

}  // namespace

TEST_CASE("a shared tile's even / odd bank shading has its key wherever it is drawn: key row or the grid's title") {
  for (const bool present : {false, true})
    for (const bool ab : {false, true}) {
      CAPTURE(present);
      CAPTURE(ab);
      ui::HeadlessContext ctx(1280, 720);
      ui::Ui u(quiet_env());
      pad_compare(ctx, u, present, ab);
      // The tile store on screen (a shared request) and a global load before it: both keyed.
      for (const bool shared : {true, false}) {
        CAPTURE(shared);
        u.set_step(first_step(*u.pane.model, shared));
        settle(ctx, u);
        ctx.frame(u);
        test::start_catching();
        const std::vector<test::DrawnText> texts = test::stop_catching(ctx.frame(u));
        int keys = 0;
        for (const auto& t : texts) keys += t.text.find("even / odd bank") != std::string::npos;
        CHECK(keys >= (ab ? 2 : 1));
      }
    }
}

TEST_CASE("the one-line A/B verdict leads with the launch's figures, not one request's conflict") {
  // pad=0 vs pad=1 on a projector: the tile store's request goes 32-way -> 1-way (32x fewer
  // wavefronts for that request), the launch 16.50 -> 1.00 wavefronts per 128 B used.
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  pad_compare(ctx, u, true, true);
  u.set_step(first_step(*u.pane.model, true));
  settle(ctx, u);
  ctx.frame(u);
  test::start_catching();
  const std::vector<test::DrawnText> texts = test::stop_catching(ctx.frame(u));
  std::string line;
  for (const auto& t : texts) line += t.text + "|";
  INFO(line);
  const size_t launch = line.find("wavefronts / 128 B used"), request = line.find("this request");
  REQUIRE(launch != std::string::npos);
  CHECK((request == std::string::npos || launch < request));
  CHECK(line.find("16× better") != std::string::npos);
  CHECK(line.find("worst n-way") == std::string::npos);  // named in the table, never judged
}

TEST_CASE("the catalog panel's list of launches marks the one where the program stopped, as the Launch menu does") {
  if (!ws::test::have_nvcc("skipped")) return;
  const std::filesystem::path prog = test::faulting_transpose("launch-list");  // launch 1 faults
  ui::HeadlessContext ctx(1920, 1080);
  ui::Ui u(quiet_env());
  session::LaunchSpec spec;
  spec.program.source = prog.string();
  spec.program.echo = false;
  u.open_program(spec);
  settle(ctx, u);
  REQUIRE(u.status.problem.kind == "out_of_bounds");
  ctx.frame(u);
  test::start_catching();
  const std::vector<test::DrawnText> texts = test::stop_catching(ctx.frame(u));
  int marks = 0;
  for (const auto& t : texts) marks += t.text == "· stopped here";
  CHECK(marks == 1);
  std::filesystem::remove_all(prog.parent_path());
}

TEST_CASE("two launches that race, side by side at 1280x720: both races named, no verdict cut in half under them") {
  if (!ws::test::have_nvcc("skipped")) return;
  const std::filesystem::path dir = test::temp_dir("race-ab", true);
  std::string text = test::slurp("examples/transpose.cu");
  const std::string sync = "  __syncthreads();\n";
  REQUIRE(text.find(sync) != std::string::npos);
  text.erase(text.find(sync), sync.size());
  std::ofstream(dir / "race.cu") << text;
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  std::string err;
  REQUIRE(u.set_compare("launch 3", err));
  session::LaunchSpec spec;
  spec.program.source = (dir / "race.cu").string();
  spec.program.echo = false;
  spec.launch = 1;
  spec.launch_named = true;
  u.open_program(spec);
  settle(ctx, u);
  ctx.frame(u);
  test::start_catching();
  const std::vector<test::DrawnText> texts = test::stop_catching(ctx.frame(u));
  bool a = false, b = false;
  for (const auto& t : texts) {
    a |= t.text.find("A races:") != std::string::npos;
    b |= t.text.find("B races:") != std::string::npos;
    if (t.text.find("better") != std::string::npos || t.text.find("B vs A") != std::string::npos) {
      CAPTURE(t.text);
      CHECK(t.whole_in_clip());
    }
  }
  CHECK(a);
  CHECK(b);
  std::filesystem::remove_all(dir);
}

TEST_CASE("the status line counts a program's own lines apart from the emulated device's notes") {
  if (!ws::test::have_nvcc("skipped")) return;
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  session::LaunchSpec spec;
  spec.program.source = "examples/tma_multicast.cu";
  spec.program.args = {"128", "1"};  // its multicast: one note that its tiles are not coloured by column
  spec.program.echo = false;
  u.open_program(spec);
  settle(ctx, u);
  REQUIRE(u.pane.model);
  CHECK(u.status.text == "the program printed 1 line, and warpscope 1 note (File → Program output)");
}
