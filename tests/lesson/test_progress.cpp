// Lesson progress: what a student did survives a restart, a damaged or edited file never
// misreads, and the tally counts what a student would count.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lesson/progress.h"

using namespace ws;
namespace fs = std::filesystem;

namespace {

lesson::Lesson three_steps() {
  // Step 1 only reads, steps 2 and 3 ask.
  return lesson::parse(R"({"title": "t", "steps": [
      {"title": "intro", "kernel": "copy", "text": "x"},
      {"title": "ask one", "focus": {"array": "in"}, "text": "x", "question": {"ask": "sectors", "prompt": "?"}},
      {"title": "ask two", "focus": {"array": "out"}, "text": "x", "question": {"ask": "sectors", "prompt": "?"}}]})",
                       "three.json");
}

}  // namespace

TEST_CASE("progress counts steps seen, answered right and revealed") {
  const lesson::Lesson l = three_steps();
  lesson::Progress p;
  CHECK(p.tally(l).done == 0);
  p.seen(l, 0);
  CHECK(p.done(l, 0));    // no question: seeing it is doing it
  p.seen(l, 1);
  CHECK(!p.done(l, 1));   // a question seen is not yet answered
  p.answered(l, 1, "8", false);
  CHECK(!p.done(l, 1));
  p.answered(l, 1, "4", true);
  CHECK(p.done(l, 1));
  CHECK(p.step(l, 1)->tries == 2);
  CHECK(p.step(l, 1)->answer == "4");
  p.revealed(l, 2);
  const lesson::Tally t = p.tally(l);
  CHECK(t.steps == 3);
  CHECK(t.done == 3);
  CHECK(t.questions == 2);
  CHECK(t.right == 0);     // step 1 was answered wrong first: right later, not right
  CHECK(t.later == 1);
  CHECK(t.revealed == 1);
  CHECK_FALSE(p.step(l, 1)->first_correct);
  CHECK(p.last == "three");
  CHECK(p.of("three").current == 1);  // seen() moves the place; answers do not
  p.reset(l.id);
  p.answered(l, 1, "4", true);
  p.answered(l, 1, "8", false);  // a later answer does not change the score
  CHECK(p.tally(l).right == 1);
  p.revealed(l, 2);
  p.answered(l, 2, "4", true);   // shown first, then typed back: scored as shown
  CHECK(p.tally(l).right == 1);
  CHECK(p.tally(l).later == 0);
  CHECK(p.tally(l).revealed == 1);
}

TEST_CASE("progress survives a save and a load, and a damaged file starts afresh") {
  const lesson::Lesson l = three_steps();
  lesson::Progress p;
  p.seen(l, 0);
  p.answered(l, 1, "4", true);
  p.revealed(l, 2);
  p.of(l.id).current = 2;
  const fs::path file = fs::temp_directory_path() / ("ws_progress_" + std::to_string(::getpid()) + ".json");
  std::string err, msg;
  REQUIRE(lesson::save_progress(p, file.string(), err));
  CHECK(lesson::load_progress(file.string(), msg) == p);
  CHECK(msg.empty());
  // Steps are numbered from 1 in the file, as everywhere a student reads them.
  CHECK(lesson::progress_json(p).find("\"current\": 3") != std::string::npos);

  std::ofstream(file) << "{ not json";
  const lesson::Progress back = lesson::load_progress(file.string(), msg);
  CHECK(back.lessons.empty());
  CHECK(msg.find("is damaged") != std::string::npos);
  CHECK(msg.find('\n') == std::string::npos);
  std::ofstream(file) << R"({"format": "something else"})";
  lesson::load_progress(file.string(), msg);
  CHECK(msg.find("not a lesson progress file") != std::string::npos);
  fs::remove(file);
  CHECK(lesson::load_progress(file.string(), msg).lessons.empty());  // missing: no progress, no complaint
  CHECK(msg.empty());
  CHECK(!lesson::save_progress(p, "/nonexistent-dir/x.json", err));
  CHECK(err.find("cannot write") == 0);
}

TEST_CASE("progress of a step whose title changed is not misread") {
  const lesson::Lesson l = three_steps();
  lesson::Progress p;
  p.answered(l, 1, "4", true);
  lesson::Lesson edited = l;
  edited.steps[1].title = "a new question here";
  CHECK(p.step(edited, 1) == nullptr);
  CHECK(!p.done(edited, 1));
  p.answered(edited, 1, "7", false);  // the old record is replaced, not added to
  CHECK(p.step(edited, 1)->tries == 1);
}
