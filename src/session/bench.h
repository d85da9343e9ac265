// src/session/bench.h — timings of the catalog's plain kernels on this machine's GPU, as
// the app's timing panel and `warpscope bench` ask for them. The front ends reach the GPU
// backend only through here (and through capture()), so they build the same with or
// without CUDA.
#pragma once
#include <functional>
#include <string>

#include "trace/bench.h"

namespace ws::session {

// Whether this build has the GPU backend (built where nvcc was found); a GPU may still be
// missing at run time.
bool gpu_backend_built();

// "" when this machine can time kernels on a GPU; else why not, in one line ("this build
// has no GPU backend", "no GPU (no CUDA device found)").
std::string bench_unavailable();

// Times `opt` on the GPU: every result checked before its time counts. `progress` gets a
// line per step. Throws InputError for a request the catalog refuses, std::runtime_error
// when the GPU fails or there is none (bench_unavailable() says so first).
trace::BenchResult bench(const trace::BenchOptions& opt, const std::function<void(const std::string&)>& progress = {});

}  // namespace ws::session
