#include "lesson/progress.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ws::lesson {

namespace {

using json = nlohmann::json;
constexpr const char* kFormat = "warpscope lesson progress";
constexpr int kVersion = 1;

StepProgress& slot(Progress& p, const Lesson& l, size_t i) {
  StepProgress& s = p.of(l.id).steps[i];
  const std::string& title = l.steps.at(i).title;
  if (s.title != title) s = StepProgress{title};  // a step of an older version of the file
  return s;
}

// The whole number at `key` of object `j` (`fallback` when absent). A number that is not
// whole, or past int64, is refused: the JSON library would convert it anyway (undefined
// behaviour past the range).
int64_t whole(const json& j, const char* key, int64_t fallback, const std::string& name) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (it->is_number_integer()) {
    if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(INT64_MAX))
      throw LessonError(name + ": \"" + key + "\" is too large");
    return it->get<int64_t>();
  }
  if (it->is_number_float()) {
    const double d = it->get<double>();
    if (d == std::floor(d) && d >= -9.2e18 && d <= 9.2e18) return int64_t(d);
    throw LessonError(name + ": \"" + key + "\" is not a whole number");
  }
  throw LessonError(name + ": \"" + key + "\" is not a number");
}
}  // namespace

const StepProgress* Progress::step(const Lesson& l, size_t i) const {
  auto lp = lessons.find(l.id);
  if (lp == lessons.end() || i >= l.steps.size()) return nullptr;
  auto s = lp->second.steps.find(i);
  if (s == lp->second.steps.end() || s->second.title != l.steps[i].title) return nullptr;
  return &s->second;
}

void Progress::seen(const Lesson& l, size_t i) {
  slot(*this, l, i).seen = true;
  last = l.id;
  of(l.id).current = i;
}

void Progress::answered(const Lesson& l, size_t i, const std::string& answer, bool correct) {
  StepProgress& s = slot(*this, l, i);
  s.seen = true;
  s.answer = answer;
  if (!s.revealed) s.correct = correct;  // an answer typed back once shown scores as shown
  if (s.tries == 0 && !s.revealed) s.first_correct = correct;  // the first answer scores
  ++s.tries;
}

void Progress::revealed(const Lesson& l, size_t i) {
  StepProgress& s = slot(*this, l, i);
  s.seen = true;
  s.revealed = true;
}

bool Progress::done(const Lesson& l, size_t i) const {
  const StepProgress* s = step(l, i);
  if (!s) return false;
  return l.steps[i].question ? (s->correct || s->revealed) : s->seen;
}

Tally Progress::tally(const Lesson& l) const {
  Tally t;
  t.steps = l.steps.size();
  for (size_t i = 0; i < l.steps.size(); ++i) {
    if (done(l, i)) ++t.done;
    if (!l.steps[i].question) continue;
    ++t.questions;
    if (const StepProgress* s = step(l, i)) {
      if (s->first_correct) ++t.right;
      else if (s->correct) ++t.later;
      else if (s->revealed) ++t.revealed;
    }
  }
  return t;
}

std::string progress_json(const Progress& p) {
  json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["last"] = p.last;
  j["lessons"] = json::object();
  for (const auto& [id, lp] : p.lessons) {
    json steps = json::array();
    for (const auto& [i, s] : lp.steps)
      steps.push_back({{"step", i + 1}, {"title", s.title}, {"seen", s.seen}, {"answer", s.answer},
                       {"tries", s.tries}, {"correct", s.correct}, {"first_correct", s.first_correct},
                       {"revealed", s.revealed}});
    j["lessons"][id] = {{"current", lp.current + 1}, {"steps", steps}};
  }
  return j.dump(2) + "\n";
}

Progress parse_progress(const std::string& text, const std::string& name) {
  Progress p;
  try {
    const json j = json::parse(text);
    if (!j.is_object() || j.value("format", "") != kFormat)
      throw LessonError(name + " is not a lesson progress file");
    if (whole(j, "version", 0, name) > kVersion) throw LessonError(name + " was written by a newer warpscope");
    p.last = j.value("last", "");
    for (const auto& [id, lj] : j.at("lessons").items()) {
      LessonProgress& lp = p.lessons[id];
      const int64_t current = whole(lj, "current", 1, name);
      lp.current = current > 0 ? size_t(current - 1) : 0;
      for (const json& sj : lj.at("steps")) {
        const int64_t k = whole(sj, "step", 0, name);
        if (k < 1) throw LessonError(name + ": lesson " + id + " has a step numbered " + std::to_string(k));
        StepProgress& s = lp.steps[size_t(k - 1)];
        s.title = sj.value("title", "");
        s.seen = sj.value("seen", false);
        s.answer = sj.value("answer", "");
        s.tries = int(std::clamp<int64_t>(whole(sj, "tries", 0, name), 0, 1 << 30));
        s.correct = sj.value("correct", false);
        s.revealed = sj.value("revealed", false);
        // Files from before first-answer scoring: right on the only try counts as first.
        s.first_correct = sj.value("first_correct", s.correct && s.tries == 1);
      }
    }
  } catch (const json::exception& e) {
    std::string what = e.what();
    if (auto close = what.find("] "); close != std::string::npos) what = what.substr(close + 2);
    throw LessonError(name + " is damaged (" + what + ")");
  }
  return p;
}

Progress load_progress(const std::string& path, std::string& message) {
  message.clear();
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return parse_progress(ss.str(), path);
  } catch (const LessonError& e) {
    message = std::string(e.what()) + ": lesson progress starts afresh";
    return {};
  }
}

bool save_progress(const Progress& p, const std::string& path, std::string& error) {
  // Written beside and renamed over, so a crash mid-write never loses the old progress.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << progress_json(p);
    if (!out) {
      error = "cannot write lesson progress to " + tmp;
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    error = "cannot write lesson progress to " + path + ": " + ec.message();
    return false;
  }
  return true;
}

}  // namespace ws::lesson
