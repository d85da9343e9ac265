// src/session/lesson.h — a lesson step's launch as a LaunchSpec, and a lesson recorder
// over the capture, so lessons run through the same resolve and capture as every other
// front end.
#pragma once
#include <string>

#include "lesson/lesson.h"
#include "session/capture.h"
#include "session/launch.h"
#include "trace/assets.h"

namespace ws::session {

// The spec of a step's launch: a catalog kernel's, or an example program's on the emulated
// device (its file found beside the assets; an empty source where none is: the caller says
// the example is missing).
inline LaunchSpec spec_of(const lesson::StepLaunch& l, const std::string& backend = "emulator") {
  LaunchSpec s;
  if (l.is_program()) {
    s.program.source = trace::find_example(l.program);
    s.program.args = l.args;
    s.program.echo = false;
    s.launch = l.launch;
    s.backend = "emulator";
    return s;
  }
  s.kernel = l.kernel;
  if (l.size) s.size = l.size;
  s.params = l.params;
  for (uint32_t b : l.blocks) s.blocks += (s.blocks.empty() ? "" : ",") + std::to_string(b);
  s.backend = backend;
  return s;
}

// Whether a trace of `kernel` run with `params` (every value, "size" included, as a
// recorded trace holds them) is the launch of a lesson step: the same kernel and the same
// values once the step's defaults are filled in.
inline bool shows_launch(const lesson::StepLaunch& l, const std::string& kernel, const std::map<std::string, int64_t>& params) {
  return !l.is_program() && runs_as(spec_of(l), kernel, params);
}
// Whether `open` runs the program a program step's spec (`want`, spec_of) asks for: the same
// file with the same arguments.
inline bool same_program(const LaunchSpec& want, const program::Options& open) {
  return !want.program.source.empty() && open.source == want.program.source && open.args == want.program.args;
}
// The line a step's example program that is not there gives.
inline std::string missing_example(const lesson::StepLaunch& l) {
  return "the example program " + l.program + " is not in this installation's examples folder";
}

// A lesson::Recorder over capture() ("emulator", "gpu" or "auto"); throws what capture throws.
inline lesson::Recorder lesson_recorder(std::string backend = "emulator") {
  return [backend](const lesson::StepLaunch& l) {
    if (!l.is_program()) return capture(resolve(spec_of(l, backend))).trace;
    const LaunchSpec spec = spec_of(l, backend);
    if (spec.program.source.empty()) throw InputError(missing_example(l));
    trace::Trace whole = capture(resolve(spec)).trace;
    if (l.launch >= whole.launches.size())
      throw InputError(l.program + " made " + std::to_string(whole.launches.size()) + " launch" +
                       (whole.launches.size() == 1 ? "" : "es") + "; the step shows launch " + std::to_string(l.launch + 1));
    return trace::launch_trace(whole, l.launch);
  };
}

}  // namespace ws::session
