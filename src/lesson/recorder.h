// src/lesson/recorder.h — records a lesson step through capture (GPU, or the CPU emulator).
// Header only, so that the lesson library itself stays free of the capture layer: include
// it where ws_capture is linked (the CLI, the app, the tests).
#pragma once
#include <string>

#include "capture/capture.h"
#include "lesson/lesson.h"

namespace ws::lesson {

// The capture request for a step's launch.
inline capture::Request request(const Launch& l, const std::string& backend = "emulator") {
  capture::Request r;
  r.kernel = l.kernel;
  r.size = l.size;
  r.set = l.params;
  r.blocks = l.blocks;
  r.backend = backend;
  return r;
}

// A Recorder over capture::record ("emulator", "gpu" or "auto"); throws what capture throws.
inline Recorder capture_recorder(std::string backend = "emulator") {
  return [backend](const Launch& l) { return capture::record(request(l, backend)).trace; };
}

}  // namespace ws::lesson
