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
// device (its file found beside the assets; a program not found keeps its bare name, and
// running it says it is missing).
inline LaunchSpec spec_of(const lesson::StepLaunch& l, const std::string& backend = "emulator") {
  LaunchSpec s;
  if (l.is_program()) {
    const std::string path = trace::find_example(l.program);
    s.program.source = path.empty() ? l.program : path;
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
// Whether a program's launch `launch` (from 0), run as `program` asks, is a program step's.
inline bool shows_program_launch(const lesson::StepLaunch& l, const program::Options& program, uint32_t launch) {
  if (!l.is_program()) return false;
  const LaunchSpec want = spec_of(l);
  return program.source == want.program.source && program.args == want.program.args && launch == l.launch;
}

// A lesson::Recorder over capture() ("emulator", "gpu" or "auto"); throws what capture throws.
inline lesson::Recorder lesson_recorder(std::string backend = "emulator") {
  return [backend](const lesson::StepLaunch& l) {
    if (!l.is_program()) return capture(resolve(spec_of(l, backend))).trace;
    const LaunchSpec spec = spec_of(l, backend);
    if (trace::find_example(l.program).empty())
      throw InputError("the example program " + l.program + " is not in this installation's examples folder");
    trace::Trace whole = capture(resolve(spec)).trace;
    if (l.launch >= whole.launches.size())
      throw InputError(l.program + " made " + std::to_string(whole.launches.size()) + " launch" +
                       (whole.launches.size() == 1 ? "" : "es") + "; the step shows launch " + std::to_string(l.launch + 1));
    return trace::launch_trace(whole, l.launch);
  };
}

}  // namespace ws::session
