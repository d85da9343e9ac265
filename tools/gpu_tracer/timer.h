// tools/gpu_tracer/timer.h — the GPU tracer's timing mode (timer.cpp): the program runs unpatched and each of its
// launches is timed plainly, its buffers saved and restored around the timed runs.
#pragma once
#include <cuda.h>
#include <sanitizer.h>

namespace ws::tracer {

struct Timer;

// A timer writing to `path` (nullptr, said on stderr, when it cannot be written).
Timer* start_timer(const char* path, bool debug);
void stop_timer(Timer* t);

// The Sanitizer API callback of timing mode: the driver's launch calls and the device
// allocations (which buffers a launch's arguments point into).
void timer_callback(Timer* t, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* cbdata);

}  // namespace ws::tracer
