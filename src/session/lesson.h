// src/session/lesson.h — a lesson step's launch as a LaunchSpec, and a lesson recorder
// over the capture, so lessons run through the same resolve and capture as every other
// front end.
#pragma once
#include <string>

#include "lesson/lesson.h"
#include "session/capture.h"
#include "session/launch.h"

namespace ws::session {

// The spec of a step's launch.
inline LaunchSpec spec_of(const lesson::StepLaunch& l, const std::string& backend = "emulator") {
  LaunchSpec s;
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
  return runs_as(spec_of(l), kernel, params);
}

// A lesson::Recorder over capture() ("emulator", "gpu" or "auto"); throws what capture throws.
inline lesson::Recorder lesson_recorder(std::string backend = "emulator") {
  return [backend](const lesson::StepLaunch& l) { return capture(resolve(spec_of(l, backend))).trace; };
}

}  // namespace ws::session
