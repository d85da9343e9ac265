// src/session/bench.cpp — the GPU backend's timings and plain runs, behind a header that names no CUDA type.
#include "session/bench.h"

#include <stdexcept>

#include "catalog.h"
#include "session/launch.h"  // InputError
#if defined(WS_HAVE_CUDA)
#include "gpu/gpu.h"
#endif

namespace ws::session {

bool gpu_backend_built() {
#if defined(WS_HAVE_CUDA)
  return true;
#else
  return false;
#endif
}

std::string bench_unavailable() {
#if defined(WS_HAVE_CUDA)
  std::string why;
  return gpu::available(&why) ? std::string() : "no GPU (" + why + ")";
#else
  return "this build has no GPU backend";
#endif
}

trace::BenchResult bench(const trace::BenchOptions& opt, const std::function<void(const std::string&)>& progress) {
#if defined(WS_HAVE_CUDA)
  try {
    return gpu::bench(opt, progress);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
#else
  (void)opt;
  (void)progress;
  throw std::runtime_error(bench_unavailable());
#endif
}

std::string with_yardsticks(const std::string& timings_json, const std::function<void(const std::string&)>& progress) {
#if defined(WS_HAVE_CUDA)
  trace::BenchResult r;
  std::string error;
  if (timings_json.empty() || !trace::read_bench(timings_json, r, error) || !gpu::available()) return timings_json;
  try {
    gpu::yardsticks(r, progress);
  } catch (const std::exception&) {
    return timings_json;  // the kernel's own times still show, without the comparison
  }
  return trace::bench_json(r);
#else
  (void)progress;
  return timings_json;
#endif
}

void run_plain_once(const ResolvedLaunch& l) {
  if (l.origin != Origin::Catalog || !l.kernel) throw InputError("plain-launch needs a catalog kernel");
#if defined(WS_HAVE_CUDA)
  catalog::HostArrays arrays = catalog::make_arrays(*l.kernel, l.params, 3);
  try {
    gpu::run_plain(*l.kernel, l.params, arrays);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
#else
  throw std::runtime_error(bench_unavailable());
#endif
}

}  // namespace ws::session
