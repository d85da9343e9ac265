// Lessons in the app, played as a student would: each step opens its kernel and request,
// the figures that would answer a question stay veiled until the student predicts, a wrong
// prediction is refused and a right one accepted — checked against the figures the app's
// own session computes for the request on screen — and the progress survives a restart.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <optional>

#include "lesson/lesson.h"
#include "ui/theme.h"
#include "ui_test.h"

using namespace ws;
using test::quiet_env;
using test::settle;
namespace fs = std::filesystem;

namespace {

// The request figure a question asks about, as the warp inspector shows it (not through
// the lesson code): -1 when the metric has no single-request figure.
double shown_figure(lesson::Metric m, const session::RequestFigures& rv) {
  using M = lesson::Metric;
  switch (m) {
    case M::Sectors: return rv.g.sectors;
    case M::Lines: return rv.g.lines;
    case M::IdealSectors: return rv.g.ideal_sectors;
    case M::Efficiency: return rv.g.efficiency * 100;
    case M::Wavefronts: return rv.s.wavefronts;
    case M::Way: return rv.s.max_way;
    case M::Conflicts: return rv.s.conflicts;
    default: return -1;
  }
}

bool drawn(const ui::Ui& u, ui::Panel p) {
  for (const auto& d : u.drawn())
    if (d.panel == p) return true;
  return false;
}

struct Played {
  size_t questions = 0, right = 0, later = 0;  // right on the first try; right after a wrong one
};

// Plays every step of the lesson open in `u`: the right answer, or (every other question)
// a wrong answer first, then the right one.
Played play(ui::HeadlessContext& ctx, ui::Ui& u) {
  Played out;
  const lesson::Lesson& l = *u.lessons.lesson;
  for (size_t i = 0; i < l.steps.size(); ++i) {
    CAPTURE(l.id);
    CAPTURE(i);
    u.goto_lesson_step(i);
    settle(ctx, u);
    ctx.frame(u);
    const ui::LessonRun& L = u.lessons;
    INFO(L.error);
    REQUIRE(L.error.empty());
    REQUIRE(L.resolved);
    // The step's launch is on screen, at its request.
    const auto& launch = u.pane.model->trace().launch();
    CHECK(launch.kernel == l.steps[i].launch.kernel);
    if (L.resolved->record != lesson::Resolved::kNone) CHECK(u.pane.step == L.resolved->record);
    CHECK(drawn(u, ui::Panel::Lesson));
    // The gutter shows no figures a later question asks for.
    CHECK(u.lesson_gutter_site() == -2);
    if (!L.resolved->question) continue;
    ++out.questions;
    const lesson::Resolved r = *L.resolved;
    CHECK(u.lesson_veiled());
    // The answer matches what the inspector shows for this request.
    const double fig = shown_figure(r.question->ask, u.pane.request());
    if (fig >= 0) CHECK(std::abs(fig - r.answer.value) < 0.51);
    // Every other question: a wrong answer first. It is told where to look, not the answer;
    // the views stay veiled; the right answer then counts as right later, not right.
    const bool wrong_first = out.questions % 2 == 0;
    if (wrong_first) {
      u.check_lesson_answer(lesson::wrong_answer(r));
      REQUIRE(L.verdict);
      CHECK(!L.verdict->correct);
      const size_t look = L.verdict->explanation.find("Look again");
      CHECK(look != std::string::npos);
      CHECK(L.verdict->explanation.find(r.answer.text, look) == std::string::npos);
      CHECK(!L.open());
      CHECK(u.lesson_veiled());
      ctx.frame(u);
    }
    u.check_lesson_answer(r.answer.text);
    CHECK(L.verdict->correct);
    out.later += wrong_first;
    CHECK(!u.lesson_veiled());
    CHECK(ui::lesson_points_at(u, u.lesson_answer_panel()));
    CHECK(u.lesson_gutter_site() == r.site);  // the answered line's figures, no other
    ctx.frame(u);
    if (L.verdict->correct && !wrong_first) ++out.right;
  }
  return out;
}

// Opens the transpose lesson in `u` on its first step with a question (of `metric`, when
// given), recorded and settled; returns that step.
size_t open_on_question(ui::HeadlessContext& ctx, ui::Ui& u, std::optional<lesson::Metric> metric = std::nullopt) {
  REQUIRE(u.open_lesson("transpose"));
  settle(ctx, u);
  const auto& steps = u.lessons.lesson->steps;
  size_t q = 0;
  while (q < steps.size() && !(steps[q].question && (!metric || steps[q].question->ask == *metric))) ++q;
  REQUIRE(q < steps.size());
  u.goto_lesson_step(q);
  settle(ctx, u);
  return q;
}

struct TempDir {
  fs::path dir = fs::temp_directory_path() / ("ws_lessons_gui_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(dir); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

}  // namespace

TEST_CASE("the transpose lesson is completed in the app, every prediction checked against the trace") {
  TempDir tmp;
  ui::Environment env = quiet_env();
  env.settings_path = (tmp.dir / "settings.json").string();
  ui::HeadlessContext ctx(1280, 720);
  {
    ui::Ui u(env);
    REQUIRE(u.open_lesson("transpose"));
    settle(ctx, u);
    const Played p = play(ctx, u);
    CHECK(p.questions >= 8);
    CHECK(p.right + p.later == p.questions);
    CHECK(p.later > 0);
    const lesson::Tally t = u.lessons.progress.tally(*u.lessons.lesson);
    CHECK(t.done == t.steps);
    CHECK(t.right == p.right);  // scored on the first answer
    CHECK(t.later == p.later);
    u.save_settings();
  }
  // A restart: the lesson reopens where the student was, with their answer shown.
  {
    ui::Ui u(env);
    CHECK(u.state.lesson == "transpose");
    REQUIRE(u.open_lesson(u.state.lesson));
    settle(ctx, u);
    ctx.frame(u);
    CHECK(u.lessons.step == u.lessons.lesson->steps.size() - 1);
    CHECK(u.lessons.progress.tally(*u.lessons.lesson).right >= 4);
    if (u.lessons.resolved && u.lessons.resolved->question) CHECK(u.lessons.open());
    CHECK(!u.lesson_veiled());
  }
}

TEST_CASE("the textbook's coalescing quiz is played in the app, in presentation mode") {
  ui::HeadlessContext ctx(1920, 1080);
  ui::Ui u(quiet_env());
  u.state.present = true;
  REQUIRE(u.open_lesson("pmpp_quiz"));
  settle(ctx, u);
  const Played p = play(ctx, u);
  CHECK(p.questions >= 12);
  CHECK(p.right + p.later == p.questions);
  // Presentation: the inspector keeps the left, the lesson replaces the source panel.
  CHECK(drawn(u, ui::Panel::Warp));
  CHECK(!drawn(u, ui::Panel::Source));
}

TEST_CASE("a step's answer can be revealed, and an answer that is not one is explained, not judged") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  const size_t q = open_on_question(ctx, u);
  REQUIRE(u.lessons.resolved);
  u.check_lesson_answer("lots");
  CHECK(!u.lessons.verdict);
  CHECK(!u.lessons.unclear.empty());
  CHECK(u.lesson_veiled());
  u.reveal_lesson_answer();
  CHECK(!u.lesson_veiled());
  CHECK(u.lessons.progress.done(*u.lessons.lesson, q));
  ctx.frame(u);
  // Going elsewhere in the catalog, then back to the step.
  u.state.kernel = "copy";
  u.record();
  settle(ctx, u);
  ctx.frame(u);
  CHECK(!u.lesson_veiled());
  u.goto_lesson_step(q);
  settle(ctx, u);
  CHECK(u.pane.model->trace().launch().kernel == u.lessons.lesson->steps[q].launch.kernel);
  CHECK(u.pane.step == u.lessons.resolved->record);
}

TEST_CASE("two wrong answers show the answer; the number the screen then shows does not score as right") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  const size_t q = open_on_question(ctx, u);
  REQUIRE(u.lessons.resolved);
  const lesson::Resolved r = *u.lessons.resolved;
  u.check_lesson_answer(lesson::wrong_answer(r));
  CHECK(!u.lessons.open());
  CHECK(u.lesson_veiled());
  u.check_lesson_answer(lesson::wrong_answer(r));
  CHECK(u.lessons.open());  // shown after the second wrong try
  CHECK(!u.lesson_veiled());
  ctx.frame(u);
  u.check_lesson_answer(r.answer.text);  // typed back from the screen
  const lesson::Tally t = u.lessons.progress.tally(*u.lessons.lesson);
  CHECK(t.right == 0);
  CHECK(t.later == 0);
  CHECK(t.revealed == 1);
  CHECK(u.lessons.progress.done(*u.lessons.lesson, q));
}

TEST_CASE("a lesson that is not there is one line on the status bar, and the app goes on") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  CHECK(!u.open_lesson("no_such_lesson"));
  CHECK(u.status.error);
  CHECK(u.status.text.find("no_such_lesson") != std::string::npos);
  CHECK(u.status.text.find('\n') == std::string::npos);
  CHECK(!u.lesson_active());
  u.record();
  settle(ctx, u);
  CHECK(drawn(u, ui::Panel::Catalog));
}

TEST_CASE("the lesson panel has room in every layout, and the lane diagram comes back with the answer") {
  struct Size {
    float w, h, diagram_w, diagram_h;
  };
  for (const Size sz : {Size{1280, 720, 200, 120}, Size{1920, 1080, 320, 180}})
    for (bool present : {false, true}) {
      CAPTURE(sz.w);
      CAPTURE(present);
      ui::HeadlessContext ctx(sz.w, sz.h);
      ui::Ui u(quiet_env());
      u.state.present = present;
      open_on_question(ctx, u, lesson::Metric::Way);  // the tile store's bank conflict
      ctx.frame(u);
      auto panel = [&](ui::Panel p) -> const ui::DrawnPanel* {
        for (const auto& d : u.drawn())
          if (d.panel == p) return &d;
        return nullptr;
      };
      const ui::DrawnPanel* lp = panel(ui::Panel::Lesson);
      REQUIRE(lp);
      CHECK(lp->max.x - lp->min.x >= 300);
      CHECK(lp->max.y - lp->min.y >= 250);
      // Veiled: the inspector draws the question, not the lanes.
      const ui::DrawnPanel* wp = panel(ui::Panel::Warp);
      REQUIRE(wp);
      CHECK(wp->diagram_max.x - wp->diagram_min.x == 0);
      // Nothing drawn in the conflict colour: the memory view's rims wait for the answer too.
      auto conflict_marks = [&] {
        int n = 0;
        for (const auto& c : test::frame_scenes(ctx, u))
          for (const auto& i : c.scene.items) n += i.color == ui::theme().bad && i.kind == ui::Scene::Kind::Rect;
        return n;
      };
      CHECK(conflict_marks() == 0);
      u.check_lesson_answer(u.lessons.resolved->answer.text);
      CHECK(conflict_marks() > 0);
      ctx.frame(u);
      wp = panel(ui::Panel::Warp);
      REQUIRE(wp);
      CHECK(wp->diagram_max.x - wp->diagram_min.x >= sz.diagram_w);
      CHECK(wp->diagram_max.y - wp->diagram_min.y >= sz.diagram_h);
      CHECK(panel(ui::Panel::Memory));
    }
}

TEST_CASE("an A/B view opened during a question shows its figures: there is no lesson panel to answer in") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  open_on_question(ctx, u);
  CHECK(u.lesson_veiled());
  std::string err;
  REQUIRE(u.set_compare("transpose_tiled:pad=1", err));
  settle(ctx, u);
  ctx.frame(u);
  CHECK(!u.lesson_veiled());
  CHECK(!drawn(u, ui::Panel::Lesson));
  REQUIRE(u.set_compare("", err));
  settle(ctx, u);
  ctx.frame(u);
  CHECK(u.lesson_veiled());
  CHECK(drawn(u, ui::Panel::Lesson));
}

TEST_CASE("an answer the student asked for is still shown after a restart") {
  TempDir tmp;
  ui::Environment env = quiet_env();
  env.settings_path = (tmp.dir / "settings.json").string();
  ui::HeadlessContext ctx(1280, 720);
  size_t q = 0;
  {
    ui::Ui u(env);
    q = open_on_question(ctx, u);
    u.reveal_lesson_answer();
    CHECK(!u.lesson_veiled());
    u.save_settings();
  }
  ui::Ui u(env);
  REQUIRE(u.open_lesson(u.state.lesson));
  settle(ctx, u);
  ctx.frame(u);
  CHECK(u.lessons.step == q);
  CHECK(u.lessons.open());
  CHECK(!u.lesson_veiled());
  CHECK(!ui::lesson_points_at(u, ui::Panel::Warp));  // shown as it was left, not pointed at again
}
