// `warpscope lesson [NAME|FILE] [--answers ask|auto|hide] [--backend B] [--width N]`: a
// guided lesson as a text walkthrough, usable in class without the GUI.
//   no NAME        lists the bundled lessons
//   --answers ask  (default on a terminal) asks each question, checks the answer, explains
//   --answers auto (default otherwise) prints every question with the answer computed from
//                  the trace, and verifies that each check accepts it and rejects a wrong one
//   --answers hide prints a worksheet: the steps and questions, no answers
// Exit codes: 0 done, 1 a step failed (recording, or an answer the engine could not check),
// 2 bad input (unknown lesson, malformed lesson file, bad option).
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/cli.h"
#include "lesson/lesson.h"
#include "session/lesson.h"

namespace ws::cli {

struct LessonOptions {
  std::string name;                // lesson name or .json path; empty: list the lessons
  std::string answers;             // ask | auto | hide; empty: ask on a terminal, else auto
  std::string backend = "emulator";
  int width = 80;
};

void add_lesson_options(CLI::App& cmd, LessonOptions& o) {
  cmd.add_option("lesson", o.name, "lesson name (see `warpscope lesson`) or path to a lesson .json file");
  cmd.add_option("--answers", o.answers,
                 "ask: quiz me (default on a terminal); auto: show every answer (default otherwise); "
                 "hide: print a worksheet");
  cmd.add_option("--backend", o.backend, "auto | gpu | emulator (default emulator)");
  cmd.add_option("--width", o.width, "text width in columns (default 80)");
}

int run_lesson(const LessonOptions& o, std::istream& in, std::ostream& out) {
  try {
    if (o.width < 20 || o.width > 1000) throw UsageError("--width must be 20..1000: got " + std::to_string(o.width));
    std::string mode = o.answers.empty() ? (::isatty(0) ? "ask" : "auto") : o.answers;
    if (mode != "ask" && mode != "auto" && mode != "hide")
      throw UsageError("unknown --answers '" + o.answers + "': allowed ask, auto, hide");
    if (o.backend != "auto" && o.backend != "gpu" && o.backend != "emulator")
      throw UsageError("unknown backend '" + o.backend + "': allowed auto, gpu, emulator");

    if (o.name.empty()) {
      const std::string dir = lesson::lessons_dir();
      auto entries = lesson::list(dir);
      if (entries.empty()) {
        out << "no lessons in " << dir << "\n";
        return 0;
      }
      size_t w = 0;
      for (const auto& e : entries) w = std::max(w, e.id.size());
      for (const auto& e : entries) {
        out << "  " << e.id << std::string(w + 2 - e.id.size(), ' ');
        if (e.error.empty()) out << e.title << "  (" << e.steps << " steps)\n";
        else out << "cannot be used: " << e.error << "\n";
      }
      out << "\nrun one with: warpscope lesson NAME   (lessons from " << dir << ")\n";
      return 0;
    }

    const lesson::Lesson l = lesson::load(lesson::find(o.name));
    // The first launch is recorded up front, so that a backend this machine lacks is one
    // error line (exit 2) rather than an error on every step.
    const lesson::Recorder capture = session::lesson_recorder(o.backend);
    auto first = std::make_shared<std::pair<lesson::StepLaunch, trace::Trace>>();
    first->first = l.steps.front().launch;
    first->second = capture(first->first);
    const lesson::Recorder rec = [capture, first](const lesson::StepLaunch& launch) {
      return launch == first->first ? first->second : capture(launch);
    };
    if (mode == "ask") {
      auto res = lesson::teach(l, rec, in, out, o.width);
      return res.errors ? kExitFailure : 0;
    }
    auto rep = lesson::run(l, rec);
    out << lesson::walkthrough(l, rep, mode == "auto", o.width);
    return rep.ok ? 0 : kExitFailure;
  } catch (const lesson::LessonError& e) {
    throw UsageError(e.what());
  }
}

Command add_lesson(CLI::App& app) {
  auto opts = std::make_shared<LessonOptions>();
  CLI::App* cmd = app.add_subcommand("lesson", "a guided lesson: predict, then see the answer from the trace");
  add_lesson_options(*cmd, *opts);
  return {cmd, [opts] { return run_lesson(*opts, std::cin, std::cout); }};
}

}  // namespace ws::cli
