// tests/gui/test_lessons.cpp — Lessons in the app, played as a student would: each step opens its kernel and request,
// the figures that would answer a question stay veiled until the student predicts, a wrong
// prediction is refused and a right one accepted — checked against the figures the app's
// own session computes for the request on screen — and the progress survives a restart.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "../support.h"
#include "drawn_text.h"
#include "lesson/lesson.h"
#include "ui/figure/figure.h"
#include "ui/figure/theme.h"
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
  const lesson::Lesson& l = *u.lessons.run.lesson;
  for (size_t i = 0; i < l.steps.size(); ++i) {
    CAPTURE(l.id);
    CAPTURE(i);
    u.lessons.go_to(i);
    settle(ctx, u);
    ctx.frame(u);
    const ui::LessonRun& L = u.lessons.run;
    INFO(L.error);
    REQUIRE(L.error.empty());
    REQUIRE(L.resolved);
    // The step's launch is on screen, at its request.
    const auto& launch = u.pane.model->trace().launch();
    CHECK(launch.kernel == l.steps[i].launch.kernel);
    if (L.resolved->record != lesson::Resolved::kNone) CHECK(u.pane.step == L.resolved->record);
    CHECK(drawn(u, ui::Panel::Lesson));
    // The gutter shows no figures a later question asks for.
    CHECK(u.lessons.gutter_site() == -2);
    if (!L.resolved->question) continue;
    ++out.questions;
    const lesson::Resolved r = *L.resolved;
    CHECK(u.lessons.veiled());
    // The answer matches what the inspector shows for this request.
    const double fig = shown_figure(r.question->ask, u.pane.request());
    if (fig >= 0) CHECK(std::abs(fig - r.answer.value) < 0.51);
    // Every other question: a wrong answer first. It is told where to look, not the answer;
    // the views stay veiled; the right answer then counts as right later, not right.
    const bool wrong_first = out.questions % 2 == 0;
    if (wrong_first) {
      u.lessons.check(lesson::wrong_answer(r));
      REQUIRE(L.verdict);
      CHECK(!L.verdict->correct);
      const size_t look = L.verdict->explanation.find("Look again");
      CHECK(look != std::string::npos);
      CHECK(L.verdict->explanation.find(r.answer.text, look) == std::string::npos);
      CHECK(!L.open());
      CHECK(u.lessons.veiled());
      ctx.frame(u);
    }
    u.lessons.check(r.answer.text);
    CHECK(L.verdict->correct);
    out.later += wrong_first;
    CHECK(!u.lessons.veiled());
    CHECK(ui::lesson_points_at(u, u.lessons.answer_panel()));
    CHECK(u.lessons.gutter_site() == r.site);  // the answered line's figures, no other
    ctx.frame(u);
    if (L.verdict->correct && !wrong_first) ++out.right;
  }
  return out;
}

// Opens the transpose lesson in `u` on its first step with a question (of `metric`, when
// given), recorded and settled; returns that step.
size_t open_on_question(ui::HeadlessContext& ctx, ui::Ui& u, std::optional<lesson::Metric> metric = std::nullopt) {
  REQUIRE(u.lessons.open("transpose"));
  settle(ctx, u);
  const auto& steps = u.lessons.run.lesson->steps;
  size_t q = 0;
  while (q < steps.size() && !(steps[q].question && (!metric || steps[q].question->ask == *metric))) ++q;
  REQUIRE(q < steps.size());
  u.lessons.go_to(q);
  settle(ctx, u);
  return q;
}

// ---- the answer on screen ---------------------------------------------------------------

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The ways a number can be written on screen: "4", "4.0", "4.00", "12.5".
std::vector<std::string> number_forms(double v) {
  std::vector<std::string> out;
  char b[32];
  for (const char* f : {"%.0f", "%.1f", "%.2f", "%g"}) {
    std::snprintf(b, sizeof b, f, v);
    if (std::abs(std::atof(b) - v) < 1e-6 && std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  }
  return out;
}

// The words a figure of the metric is written with ("4 sectors", "32-way", "100%"), and
// whether the number comes before the word (or after: "ideal 4").
struct Unit {
  const char* word;
  bool before;
};
std::vector<Unit> units_of(lesson::Metric m) {
  using M = lesson::Metric;
  switch (m) {
    case M::Sectors:
    case M::SiteSectors: return {{"sector", true}};
    case M::IdealSectors: return {{"sector", true}, {"ideal", false}};
    case M::Lines: return {{"line", true}};
    case M::Efficiency:
    case M::SiteEfficiency: return {{"%", true}, {"efficien", true}};
    case M::Wavefronts:
    case M::SiteWavefronts: return {{"wavefront", true}};
    case M::Way:
    case M::SiteWay: return {{"-way", true}, {"way", true}};
    case M::Conflicts:
    case M::SiteConflicts: return {{"conflict", true}, {"bank conflict", true}};
    case M::Requests: return {{"request", true}};
    case M::CopyBytes:
    case M::MulticastBytes: return {{"byte", true}, {"b ", true}};
    case M::StagesFit: return {{"cop", true}, {"stage", true}, {"slot", true}};
    case M::RegistersGiven: return {{"register", true}};
    default: return {};
  }
}

// Where `n` stands as a whole number in `t` (not inside "64" or "0.4"), each place.
std::vector<size_t> number_at(const std::string& t, const std::string& n) {
  std::vector<size_t> at;
  for (size_t p = t.find(n); p != std::string::npos; p = t.find(n, p + 1)) {
    const bool left = p == 0 || !(std::isdigit(static_cast<unsigned char>(t[p - 1])) || t[p - 1] == '.');
    const size_t e = p + n.size();
    const bool right = e == t.size() || !(std::isdigit(static_cast<unsigned char>(t[e])) ||
                                          (t[e] == '.' && e + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[e + 1]))));
    if (left && right) at.push_back(p);
  }
  return at;
}

// Whether `texts` state the step's answer: the number next to the metric's word in one
// text ("4 sectors", "(ideal 4)", "32-way", "B 4" on the gutter's line), a big card's
// number over its caption, or a choice's words outside the lesson panel (which lists the
// choices with its question). Returns the offending text, "" when none.
std::string answer_shown(const std::vector<test::DrawnText>& texts, const lesson::Resolved& r,
                         const std::vector<std::string>& arrays, const ImVec4* lesson_panel) {
  const lesson::Question& q = *r.question;
  // In the lesson panel: placed there, or drawn under its clip (a line scrolled above its
  // top is the panel's, and not on screen).
  auto in_lesson = [&](const test::DrawnText& d) {
    if (!lesson_panel) return false;
    const bool placed = d.pos.x >= lesson_panel->x && d.pos.y >= lesson_panel->y && d.pos.x <= lesson_panel->z &&
                        d.pos.y <= lesson_panel->w;
    const bool clipped = d.clip.x >= lesson_panel->x - 1 && d.clip.y >= lesson_panel->y - 1 &&
                         d.clip.z <= lesson_panel->z + 1 && d.clip.w <= lesson_panel->w + 1;
    return placed || clipped;
  };
  if (q.is_choice()) {
    // The choice as a word of its own ("coalesced", not "uncoalesced" or the kernel
    // transpose_write_coalesced); a question lists every choice: it is not an answer.
    auto word_in = [](const std::string& t, const std::string& w) {
      auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
      for (size_t p = t.find(w); p != std::string::npos; p = t.find(w, p + 1))
        if ((p == 0 || !part(t[p - 1])) && (p + w.size() == t.size() || !part(t[p + w.size()]))) return true;
      return false;
    };
    // A line of the question itself (the veiled inspector repeats it, wrapped) neither.
    const std::string word = lower(q.choices.at(size_t(r.answer.value))), prompt = lower(q.prompt);
    for (const auto& d : texts) {
      const std::string t = lower(d.text);
      size_t listed = 0;
      for (const auto& c : q.choices) listed += word_in(t, lower(c));
      if (!in_lesson(d) && listed == 1 && word_in(t, word) && prompt.find(t) == std::string::npos) return d.text;
    }
    return "";
  }
  const std::vector<Unit> units = units_of(q.ask);
  // A copy's bytes are also written in KiB ("4.0 KiB" on the pipeline view's boxes).
  if (q.ask == lesson::Metric::CopyBytes || q.ask == lesson::Metric::MulticastBytes)
    for (const std::string& n : number_forms(r.answer.value / 1024))
      for (const auto& d : texts) {
        const std::string t = lower(d.text);
        for (size_t p : number_at(t, n))
          if (t.compare(p + n.size(), 4, " kib") == 0) return d.text;
      }
  for (const std::string& n : number_forms(r.answer.value))
    for (const auto& d : texts) {
      const std::string t = lower(d.text);
      for (size_t p : number_at(t, n)) {
        const std::string after = t.substr(p + n.size(), 16), before = t.substr(p >= 12 ? p - 12 : 0, std::min<size_t>(p, 12));
        for (const Unit& u : units) {
          if (u.before) {
            const size_t k = after.find(u.word);
            // "4 sectors", "4-way", "100%", "4.00 sectors/request"; not "4 of 32 lanes … sectors"
            if (k != std::string::npos && k <= 2) return d.text;
          } else if (before.size() >= std::strlen(u.word) + 1 &&
                     before.rfind(u.word) == before.size() - std::strlen(u.word) - 1) {
            return d.text;  // "ideal 4"
          }
        }
        // The gutter's badge: an array's name, then its figure ("B 4", "tile 32-way").
        for (const std::string& a : arrays)
          if (p >= a.size() + 1 && t.compare(p - a.size() - 1, a.size() + 1, lower(a) + " ") == 0 &&
              (p == a.size() + 1 || t[p - a.size() - 2] == ' '))
            return d.text;
      }
      // A card: the number alone, its caption starting with the metric's word just under it
      // (a view's; the lesson's own prose, wrapped, can put a number over such a word).
      if (d.text == n && !in_lesson(d))
        for (const auto& c : texts)
          if (c.pos.y > d.pos.y && c.pos.y < d.pos.y + 80 && std::abs(c.pos.x - d.pos.x) < 4)
            for (const Unit& u : units)
              if (lower(c.text).rfind(u.word, 0) == 0) return d.text + " / " + c.text;
    }
  return "";
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
    REQUIRE(u.lessons.open("transpose"));
    settle(ctx, u);
    const Played p = play(ctx, u);
    CHECK(p.questions >= 8);
    CHECK(p.right + p.later == p.questions);
    CHECK(p.later > 0);
    const lesson::Tally t = u.lessons.run.progress.tally(*u.lessons.run.lesson);
    CHECK(t.done == t.steps);
    CHECK(t.right == p.right);  // scored on the first answer
    CHECK(t.later == p.later);
    u.save_settings();
  }
  // A restart: the lesson reopens where the student was, with their answer shown.
  {
    ui::Ui u(env);
    CHECK(u.state.lesson == "transpose");
    REQUIRE(u.lessons.open(u.state.lesson));
    settle(ctx, u);
    ctx.frame(u);
    CHECK(u.lessons.run.step == u.lessons.run.lesson->steps.size() - 1);
    CHECK(u.lessons.run.progress.tally(*u.lessons.run.lesson).right >= 4);
    if (u.lessons.run.resolved && u.lessons.run.resolved->question) CHECK(u.lessons.run.open());
    CHECK(!u.lessons.veiled());
  }
}

TEST_CASE("the textbook's coalescing quiz is played in the app, in presentation mode") {
  ui::HeadlessContext ctx(1920, 1080);
  ui::Ui u(quiet_env());
  u.state.present = true;
  REQUIRE(u.lessons.open("pmpp_quiz"));
  settle(ctx, u);
  const Played p = play(ctx, u);
  CHECK(p.questions >= 12);
  CHECK(p.right + p.later == p.questions);
  // Presentation: the inspector keeps the left, the lesson replaces the source panel.
  CHECK(drawn(u, ui::Panel::Warp));
  CHECK(!drawn(u, ui::Panel::Source));
}

TEST_CASE("while a question waits, digits typed with the answer box unfocused go to the box, not to the panels") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  open_on_question(ctx, u);
  REQUIRE(u.lessons.run.waiting());
  REQUIRE(!u.lessons.run.resolved->question->is_choice());
  const int enlarged = u.state.enlarged;
  for (ImWchar c : {ImWchar('4'), ImWchar('2')}) {
    ctx.type(c);
    ctx.frame(u);
  }
  CHECK(u.state.enlarged == enlarged);  // 4 would have enlarged panel 4 before
  CHECK(u.lessons.run.input == "42");
  CHECK(u.lessons.veiled());
  // Enter checks it (42 is no question's answer here: judged wrong, the question still open).
  ctx.press(ui::HeadlessContext::key(ImGuiKey_Enter));
  ctx.frame(u);
  REQUIRE(u.lessons.run.verdict);
  CHECK(!u.lessons.run.verdict->correct);
}

TEST_CASE("the end of a lesson is said once its last question is answered, not while it waits") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  REQUIRE(u.lessons.open("swizzle"));  // its last step asks
  settle(ctx, u);
  const size_t last = u.lessons.run.lesson->steps.size() - 1;
  u.lessons.go_to(last);
  settle(ctx, u);
  auto says_end = [&] {
    ctx.frame(u);
    test::start_catching();
    for (const test::DrawnText& d : test::stop_catching(ctx.frame(u)))
      if (d.text.find("End of the lesson") != std::string::npos) return true;
    return false;
  };
  REQUIRE(u.lessons.run.waiting());
  CHECK_FALSE(says_end());
  u.lessons.check(u.lessons.run.resolved->answer.text);
  CHECK(says_end());
}

TEST_CASE("at 1280x720 a waiting question's box and buttons are in the lesson panel's view, without scrolling") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  open_on_question(ctx, u);
  REQUIRE(u.lessons.run.waiting());
  ctx.frame(u);
  test::start_catching();
  const std::vector<test::DrawnText> texts = test::stop_catching(ctx.frame(u));
  auto whole = [&](const std::string& what) {
    for (const test::DrawnText& d : texts)
      if (d.text.find(what) != std::string::npos)
        return d.whole_in_clip();
    return false;
  };
  CHECK(whole("I don't know: show me"));
  CHECK(whole("Check"));
  CHECK(whole("Predict: "));
  // A wrong answer: its hint and the buttons stay in view.
  u.lessons.check("1000");
  ctx.frame(u);
  test::start_catching();
  const std::vector<test::DrawnText> after = test::stop_catching(ctx.frame(u));
  bool shown = false;
  for (const test::DrawnText& d : after)
    if (d.text.find("Show me the answer") != std::string::npos)
      shown = d.whole_in_clip();
  CHECK(shown);
}

TEST_CASE("while a question waits, stepping to the requests beside it stays veiled; the answer brings the view back") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  open_on_question(ctx, u);
  REQUIRE(u.lessons.veiled());
  const uint64_t at = u.pane.step;
  const auto& t = u.pane.model->trace();
  const trace::Site& asked = t.sites[t.records[at].site];
  // Every request of the step's line and the lines beside it is veiled, whichever site.
  for (uint64_t i = 0; i < t.records.size(); ++i) {
    const trace::Site& s = t.sites[t.records[i].site];
    if (s.file != asked.file || s.line + 1 < asked.line || s.line > asked.line + 1) continue;
    u.set_step(i);
    CHECK_MESSAGE(u.lessons.veiled(), "request " << i << " at line " << s.line);
  }
  // Anywhere else too, the timeline's cost bars stay grey: they show every request's cost
  // at once, the step's own line among them.
  u.set_step(t.records.size() - 1);
  CHECK(u.lessons.question_waits(u.pane));
  u.set_step(at + 1 < t.records.size() ? at + 1 : 0);
  u.lessons.reveal();
  CHECK(u.pane.step == at);
  CHECK_FALSE(u.lessons.question_waits(u.pane));
}

TEST_CASE("at 1280x720 every question of the swizzle lesson opens with its choices and 'I don't know' in view") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  REQUIRE(u.lessons.open("swizzle"));
  settle(ctx, u);
  const auto& steps = u.lessons.run.lesson->steps;
  for (size_t q = 0; q < steps.size(); ++q) {
    if (!steps[q].question) continue;
    INFO("step " << q + 1);
    u.lessons.go_to(q);
    settle(ctx, u);
    REQUIRE(u.lessons.run.waiting());
    ctx.frame(u);
    test::start_catching();
    bool whole = false;
    for (const test::DrawnText& d : test::stop_catching(ctx.frame(u)))
      if (d.text.find("I don't know: show me") != std::string::npos)
        whole = d.whole_in_clip();
    CHECK(whole);
  }
}

TEST_CASE("a step's answer can be revealed, and an answer that is not one is explained, not judged") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  const size_t q = open_on_question(ctx, u);
  REQUIRE(u.lessons.run.resolved);
  u.lessons.check("lots");
  CHECK(!u.lessons.run.verdict);
  CHECK(!u.lessons.run.unclear.empty());
  CHECK(u.lessons.veiled());
  u.lessons.reveal();
  CHECK(!u.lessons.veiled());
  CHECK(u.lessons.run.progress.done(*u.lessons.run.lesson, q));
  ctx.frame(u);
  // Going elsewhere in the catalog, then back to the step.
  u.state.kernel = "copy";
  u.record();
  settle(ctx, u);
  ctx.frame(u);
  CHECK(!u.lessons.veiled());
  u.lessons.go_to(q);
  settle(ctx, u);
  CHECK(u.pane.model->trace().launch().kernel == u.lessons.run.lesson->steps[q].launch.kernel);
  CHECK(u.pane.step == u.lessons.run.resolved->record);
}

TEST_CASE("two wrong answers show the answer; the number the screen then shows does not score as right") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  const size_t q = open_on_question(ctx, u);
  REQUIRE(u.lessons.run.resolved);
  const lesson::Resolved r = *u.lessons.run.resolved;
  u.lessons.check(lesson::wrong_answer(r));
  CHECK(!u.lessons.run.open());
  CHECK(u.lessons.veiled());
  u.lessons.check(lesson::wrong_answer(r));
  CHECK(u.lessons.run.open());  // shown after the second wrong try
  CHECK(!u.lessons.veiled());
  ctx.frame(u);
  u.lessons.check(r.answer.text);  // typed back from the screen
  const lesson::Tally t = u.lessons.run.progress.tally(*u.lessons.run.lesson);
  CHECK(t.right == 0);
  CHECK(t.later == 0);
  CHECK(t.revealed == 1);
  CHECK(u.lessons.run.progress.done(*u.lessons.run.lesson, q));
}

TEST_CASE("a lesson that is not there is one line on the status bar, and the app goes on") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  CHECK(!u.lessons.open("no_such_lesson"));
  CHECK(u.status.error);
  CHECK(u.status.text.find("no_such_lesson") != std::string::npos);
  CHECK(u.status.text.find('\n') == std::string::npos);
  CHECK(!u.lessons.active());
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
      // Veiled: the inspector draws the question, not the lanes; on a projector it gives
      // its place to the lesson while the question waits (the lesson kept four lines of text).
      const ui::DrawnPanel* wp = panel(ui::Panel::Warp);
      if (present) {
        CHECK_FALSE(wp);
        CHECK(lp->max.y - lp->min.y >= sz.h * 0.6f);
      } else {
        REQUIRE(wp);
        CHECK(wp->diagram_max.x - wp->diagram_min.x == 0);
      }
      // Nothing drawn in the conflict colour: the memory view's rims wait for the answer too.
      auto conflict_marks = [&] {
        int n = 0;
        for (const auto& c : test::frame_scenes(ctx, u))
          for (const auto& i : c.scene.items) n += i.color == ui::theme().bad && i.kind == ui::Scene::Kind::Rect;
        return n;
      };
      CHECK(conflict_marks() == 0);
      u.lessons.check(u.lessons.run.resolved->answer.text);
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
  CHECK(u.lessons.veiled());
  std::string err;
  REQUIRE(u.set_compare("transpose_tiled:pad=1", err));
  settle(ctx, u);
  ctx.frame(u);
  CHECK(!u.lessons.veiled());
  CHECK(!drawn(u, ui::Panel::Lesson));
  REQUIRE(u.set_compare("", err));
  settle(ctx, u);
  ctx.frame(u);
  CHECK(u.lessons.veiled());
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
    u.lessons.reveal();
    CHECK(!u.lessons.veiled());
    u.save_settings();
  }
  ui::Ui u(env);
  REQUIRE(u.lessons.open(u.state.lesson));
  settle(ctx, u);
  ctx.frame(u);
  CHECK(u.lessons.run.step == q);
  CHECK(u.lessons.run.open());
  CHECK(!u.lessons.veiled());
  CHECK(!ui::lesson_points_at(u, ui::Panel::Warp));  // shown as it was left, not pointed at again
}

TEST_CASE("a question left after one wrong try reopens with that try's verdict and hint, still waiting") {
  TempDir tmp;
  ui::Environment env = quiet_env();
  env.settings_path = (tmp.dir / "settings.json").string();
  ui::HeadlessContext ctx(1280, 720);
  size_t q = 0;
  std::string wrong, hint;
  {
    ui::Ui u(env);
    q = open_on_question(ctx, u);
    REQUIRE(u.lessons.run.resolved);
    wrong = lesson::wrong_answer(*u.lessons.run.resolved);
    u.lessons.check(wrong);
    REQUIRE(u.lessons.run.verdict);
    hint = u.lessons.run.verdict->explanation;
    CHECK(!u.lessons.run.open());
    u.save_settings();
  }
  ui::Ui u(env);
  REQUIRE(u.lessons.open(u.state.lesson));
  settle(ctx, u);
  ctx.frame(u);
  CHECK(u.lessons.run.step == q);
  REQUIRE(u.lessons.run.verdict);  // the try is on screen again, with its hint
  CHECK(!u.lessons.run.verdict->correct);
  CHECK(u.lessons.run.verdict->explanation == hint);
  CHECK(!u.lessons.run.open());
  CHECK(u.lessons.veiled());
  // The second wrong try shows the answer, as it would have without the restart.
  u.lessons.check(wrong);
  CHECK(u.lessons.run.open());
}

TEST_CASE("while 'how many bytes does this copy bring' waits, the memory view lights no piece of the box") {
  if (!ws::test::have_nvcc("skipped")) return;
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  REQUIRE(u.lessons.open("hopper"));
  settle(ctx, u);
  const lesson::Lesson& l = *u.lessons.run.lesson;
  size_t q = l.steps.size();
  for (size_t i = 0; i < l.steps.size(); ++i)
    if (l.steps[i].question && l.steps[i].question->ask == lesson::Metric::CopyBytes) q = std::min(q, i);
  REQUIRE(q < l.steps.size());
  u.lessons.go_to(q);
  settle(ctx, u);
  REQUIRE(u.lessons.run.waiting());
  // Lane 0 issues the copy: its colour on the memory view's cells would be one 512-byte
  // record of the 4096-byte box.
  auto lit = [&] {
    ctx.frame(u);
    const std::vector<ui::SceneChunk> chunks = test::frame_scenes(ctx, u);
    std::optional<ImVec4> mem;
    for (const auto& d : u.drawn())
      if (d.panel == ui::Panel::Memory) mem = ImVec4(d.min.x, d.min.y, d.max.x, d.max.y);
    REQUIRE(mem);
    int n = 0;
    for (const auto& c : chunks)
      for (const auto& i : c.scene.items)
        n += i.kind == ui::Scene::Kind::Fill && i.color == ui::lane_color(0) && i.a.x >= mem->x && i.a.y >= mem->y &&
             i.b.x <= mem->z && i.b.y <= mem->w;
    return n;
  };
  CHECK(lit() == 0);
  u.lessons.check(u.lessons.run.resolved->answer.text);
  REQUIRE(u.lessons.run.open());
  CHECK(lit() > 0);  // answered: the record's cells come back
}

TEST_CASE("every step of every lesson: nothing drawn states the answer before the student commits") {
  // Each bundled lesson, in the normal layout and on a projector, at 1280×720: every text
  // the frame draws (widgets and scenes) is searched for the step's answer while the
  // question waits; once answered, the same search must find it (so it can fail).
  size_t steps = 0;
  for (const auto& entry : lesson::list())
    for (bool present : {false, true}) {
      CAPTURE(entry.id);
      CAPTURE(present);
      ui::HeadlessContext ctx(1280, 720);
      ui::Ui u(quiet_env());
      u.state.present = present;
      REQUIRE(u.lessons.open(entry.id));
      settle(ctx, u);
      const lesson::Lesson& l = *u.lessons.run.lesson;
      // The last question's answered frame: it must not state this step's answer either
      // (unless as its own answer: "4 sectors" twice).
      std::vector<test::DrawnText> before;
      std::optional<lesson::Resolved> before_r;
      const trace::Trace* before_trace = nullptr;
      std::vector<std::string> arrays;
      for (size_t i = 0; i < l.steps.size(); ++i) {
        CAPTURE(i);
        u.lessons.go_to(i);
        settle(ctx, u);
        ctx.frame(u);
        const ui::LessonRun& L = u.lessons.run;
        REQUIRE(L.resolved);
        if (!L.resolved->question) {
          before_r.reset();
          continue;
        }
        ++steps;
        const lesson::Resolved r = *L.resolved;
        INFO("answer: " << r.answer.text);
        // The same launch and access as the question just answered: revealing that one must
        // not have shown this one's answer (a step on another launch builds on the last).
        if (before_r && before_trace == &u.pane.model->trace() && before_r->site == r.site) {
          const std::string shown = answer_shown(before, r, arrays, nullptr);
          const bool own = !shown.empty() && answer_shown({test::DrawnText{shown, {}, {}}}, *before_r, arrays, nullptr) != "";
          INFO("the step before answered " << before_r->answer.text);
          CHECK((shown.empty() || own));
          if (!shown.empty() && !own) MESSAGE("shown: " << shown);
        }
        arrays.clear();
        for (const auto& b : u.pane.model->trace().buffers) arrays.push_back(b.name);
        auto frame_texts = [&] {
          ctx.frame(u);
          test::start_catching();
          return test::stop_catching(ctx.frame(u));
        };
        auto lesson_rect = [&]() -> std::optional<ImVec4> {
          for (const auto& d : u.drawn())
            if (d.panel == ui::Panel::Lesson) return ImVec4(d.min.x, d.min.y, d.max.x, d.max.y);
          return std::nullopt;
        };
        const auto waiting = frame_texts();
        CHECK(!waiting.empty());
        auto lr = lesson_rect();
        CHECK(answer_shown(waiting, r, arrays, lr ? &*lr : nullptr) == "");
        // A wrong answer first: its feedback and the frame after it still keep the answer.
        u.lessons.check(lesson::wrong_answer(r));
        const auto after_wrong = frame_texts();
        lr = lesson_rect();
        CHECK(answer_shown(after_wrong, r, arrays, lr ? &*lr : nullptr) == "");
        u.lessons.check(r.answer.text);
        REQUIRE(L.verdict);
        CHECK(L.verdict->correct);
        const auto answered = frame_texts();
        CHECK(answer_shown(answered, r, arrays, nullptr) != "");
        before = answered;
        before_r = r;
        before_trace = &u.pane.model->trace();
      }
    }
  CHECK(steps >= 30);
}

TEST_CASE("a figure exported while a question waits keeps the answer veiled, as the screen does") {
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(quiet_env());
  open_on_question(ctx, u, lesson::Metric::Way);  // the tile store's 32-way conflict
  REQUIRE(u.lessons.veiled());
  const lesson::Resolved r = *u.lessons.run.resolved;
  std::vector<std::string> arrays;
  for (const auto& b : u.pane.model->trace().buffers) arrays.push_back(b.name);
  auto texts = [](const ui::Figure& f) {
    std::vector<test::DrawnText> out;
    for (const auto& c : f.chunks)
      for (const auto& i : c.scene.items)
        if (i.kind == ui::Scene::Kind::Text) out.push_back({i.text, i.a, ImVec4(c.clip_min.x, c.clip_min.y, c.clip_max.x, c.clip_max.y)});
    return out;
  };
  auto rims = [](const ui::Figure& f) {
    int n = 0;
    for (const auto& c : f.chunks)
      for (const auto& i : c.scene.items) n += i.kind == ui::Scene::Kind::Rect && i.color == ui::theme().bad;
    return n;
  };
  const std::string& prompt = r.question->prompt;
  for (ui::FigureView v : {ui::FigureView::Warp, ui::FigureView::Banks, ui::FigureView::Source}) {
    CAPTURE(int(v));
    const ui::Figure veiled = ui::render_figure(u.pane.model, u.pane.step, v, 1280, 720, "", nullptr,
                                                session::DramChoice::follow(), &prompt);
    const ui::Figure open = ui::render_figure(u.pane.model, u.pane.step, v, 1280, 720, "");
    CHECK(answer_shown(texts(veiled), r, arrays, nullptr) == "");
    CHECK(answer_shown(texts(open), r, arrays, nullptr) != "");
  }
  const ui::Figure mem_veiled = ui::render_figure(u.pane.model, u.pane.step, ui::FigureView::Memory, 1280, 720, "",
                                                  nullptr, session::DramChoice::follow(), &prompt);
  const ui::Figure mem_open = ui::render_figure(u.pane.model, u.pane.step, ui::FigureView::Memory, 1280, 720, "");
  CHECK(rims(mem_veiled) == 0);
  CHECK(rims(mem_open) > 0);
}
