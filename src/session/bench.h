// src/session/bench.h — timings of the catalog's plain kernels on this machine's GPU, as
// the app's timing panel and `warpscope bench` ask for them, and one plain run of a kernel
// (for its SASS trace). The front ends reach the GPU
// backend only through here (and through capture()), so they build the same with or
// without CUDA.
#pragma once
#include <functional>
#include <string>

#include "session/launch.h"
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

// Runs catalog launch `l`'s plain instantiation (the one bench() times) once on the GPU:
// what `warpscope sass` traces. Throws InputError for a launch that is not the catalog's,
// std::runtime_error without a GPU.
void run_plain_once(const ResolvedLaunch& l);

// A user program's launches timed on the GPU (the bench rows program::run put in its
// trace's timings): cuBLAS SGEMM and a device copy of the same work measured now, each
// row's % of them. Returns the JSON again; unchanged without a GPU (a replay pack's
// timings keep their own yardsticks).
std::string with_yardsticks(const std::string& timings_json, const std::function<void(const std::string&)>& progress = {});

}  // namespace ws::session
