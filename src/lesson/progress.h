// src/lesson/progress.h — what a student has done in the lessons, kept between runs: per
// lesson, the step they were on and, per step, whether they saw it, what they answered,
// whether it was right, and whether they asked for the answer instead. The app saves it
// beside its settings (a small JSON file); the answers themselves are never stored, only
// the student's.
//
//   Progress p = load_progress(path, msg);        // missing file: empty; damaged: empty + msg
//   p.answered(lesson, 3, "32", true);
//   p.of(lesson.id).current = 4;
//   save_progress(p, path, err);
// Pure C++.
#pragma once
#include <cstddef>
#include <map>
#include <string>

#include "lesson/lesson.h"

namespace ws::lesson {

struct StepProgress {
  std::string title;       // the step's title when saved: a lesson edited since is not misread
  bool seen = false;       // the step was shown
  std::string answer;      // the student's last understood answer ("" : none)
  int tries = 0;           // understood answers given
  bool correct = false;    // the last answer was right
  bool first_correct = false;  // the first understood answer was right: what the step scores
  bool revealed = false;   // the student asked for the answer
  bool operator==(const StepProgress&) const = default;
};

struct LessonProgress {
  size_t current = 0;                      // the step to reopen on
  std::map<size_t, StepProgress> steps;    // by step index (from 0)
  bool operator==(const LessonProgress&) const = default;
};

// A step counts as done once it was seen (no question), answered right, or revealed. A
// question is scored on the first understood answer: right then, right later (after a
// wrong one), or shown.
struct Tally {
  size_t steps = 0, done = 0;
  size_t questions = 0, right = 0, later = 0, revealed = 0;
};

struct Progress {
  std::string last;                                 // the lesson open last (its id)
  std::map<std::string, LessonProgress> lessons;    // by lesson id
  bool operator==(const Progress&) const = default;

  LessonProgress& of(const std::string& id) { return lessons[id]; }
  // The progress of step `i` of `l`, or null when there is none or the lesson's step has
  // another title now (the file changed since).
  const StepProgress* step(const Lesson& l, size_t i) const;
  void seen(const Lesson& l, size_t i);
  // An understood answer and its verdict.
  void answered(const Lesson& l, size_t i, const std::string& answer, bool correct);
  void revealed(const Lesson& l, size_t i);
  bool done(const Lesson& l, size_t i) const;
  Tally tally(const Lesson& l) const;
  // Forgets a lesson's progress (start again).
  void reset(const std::string& id) { lessons.erase(id); }
};

std::string progress_json(const Progress& p);
// Throws LessonError naming `name` for text that is not a progress file.
Progress parse_progress(const std::string& text, const std::string& name);
// A missing file is no progress yet; a damaged one is no progress and a one-line `message`.
Progress load_progress(const std::string& path, std::string& message);
// False and `error` (one line) when the file cannot be written.
bool save_progress(const Progress& p, const std::string& path, std::string& error);

}  // namespace ws::lesson
