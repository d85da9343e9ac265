// tools/gpu_tracer/timer.cpp — the GPU tracer's other mode: every launch of the program
// timed plainly, nothing patched.
// At the entry of each kernel launch (the driver's cuLaunchKernel / cuLaunchKernelEx, which
// the runtime's <<<...>>> reaches) the timer waits for the device, saves every buffer the
// launch's arguments point into (and the modules' __device__ variables), then launches the
// same kernel with the same arguments again and again — warm-up runs first — restoring
// the buffers before each run and timing the run alone with events. It restores them once
// more and lets the program's own launch go, so the program computes what it would have
// without the timer (in-place kernels and atomics included).
//
// One line per launch goes to $WARPSCOPE_GPU_TIMES, as program/gpu_times.h lays it out.
#include "timer.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <generated_cuda_meta.h>  // the driver calls' parameter structs (the Sanitizer API's)
#include <generated_cuda_runtime_api_meta.h>  // and the runtime's

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "env/environment.h"
#include "program/gpu_times.h"

namespace ws::tracer {
namespace {

thread_local bool t_inside = false;  // the timer's own driver calls are not the program's
// The arguments of the runtime launch under way on this thread (cudaLaunchKernel's args):
// the driver call it makes may carry them in neither kernelParams nor `extra`.
thread_local void** t_runtime_args = nullptr;

constexpr int kWarmup = 2;
constexpr int kMinRuns = 10, kMaxRuns = 100;
constexpr double kRunSeconds = 0.25;       // timed runs stop past this, once kMinRuns are in
constexpr uint32_t kPerKernel = 16;        // launches of one kernel timed; the rest counted
constexpr double kProgramSeconds = 60;     // timing stops for the whole program past this

struct Allocation {
  uint64_t size = 0;
  bool module = false;  // a module's __device__ variables
};

struct Backup {
  CUdeviceptr address = 0, copy = 0;
  uint64_t size = 0;
};

struct LaunchCall {
  CUfunction f = nullptr;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned shared = 0;
  CUstream stream = nullptr;
  void** params = nullptr;
  void** extra = nullptr;
  const CUlaunchConfig* config = nullptr;  // cuLaunchKernelEx
};

}  // namespace

struct Timer {
  std::mutex mu;
  FILE* out = nullptr;
  std::map<uint64_t, Allocation> allocations;  // by address, the program's and the runtime's
  std::map<std::string, uint32_t> per_kernel;
  // Each kernel's parameters (bytes, alignment) from $WARPSCOPE_KERNEL_PARAMS (its PTX, as
  // warpscope read it): where the driver does not say.
  gpu_times::ParamLayout layouts;
  uint64_t launches = 0;
  double spent = 0;  // seconds of timing so far
  bool debug = false;

  CUresult launch(const LaunchCall& c) const {
    if (c.config) return cuLaunchKernelEx(c.config, c.f, c.params, c.extra);
    return cuLaunchKernel(c.f, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2], c.shared, c.stream,
                          c.params, c.extra);
  }

  // The argument bytes into `params`, each parameter as the kernel declares it
  // (cuFuncGetParamInfo): from kernelParams (one pointer per parameter) or, as the runtime
  // passes them, from one packed buffer in `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER, at the
  // offsets). None when they are not known.
  void arguments(const LaunchCall& c, const std::string& kernel, std::vector<std::vector<uint8_t>>& params,
                 std::vector<uint64_t>& words) const {
    const unsigned char* packed = nullptr;
    size_t packed_size = 0;
    for (void** e = c.extra; e && e[0] != CU_LAUNCH_PARAM_END; e += 2) {
      if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) packed = static_cast<const unsigned char*>(e[1]);
      else if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE && e[1]) packed_size = *static_cast<const size_t*>(e[1]);
    }
    if (!c.params && !packed) return;
    // The layout: the driver's, else the PTX's (offsets by each parameter's alignment).
    std::vector<std::pair<size_t, size_t>> layout;  // (offset, size)
    for (size_t i = 0;; ++i) {
      size_t offset = 0, size = 0;
      if (cuFuncGetParamInfo(c.f, i, &offset, &size) != CUDA_SUCCESS) break;
      layout.push_back({offset, size});
    }
    if (layout.empty()) {
      auto it = layouts.find(kernel);
      if (it == layouts.end()) return;
      size_t at = 0;
      for (const auto& [size, align] : it->second) {
        at = align ? (at + align - 1) / align * align : at;
        layout.push_back({at, size});
        at += size;
      }
    }
    for (size_t i = 0; i < layout.size(); ++i) {
      const auto [offset, size] = layout[i];
      if (!c.params && offset + size > packed_size) break;
      const auto* p = c.params ? static_cast<const unsigned char*>(c.params[i]) : packed + offset;
      params.emplace_back(p, p + size);
      // Every aligned 8-byte word may be a pointer (a struct of pointers too).
      for (size_t b = 0; b + 8 <= size; b += 8) {
        uint64_t w;
        std::memcpy(&w, p + b, 8);
        words.push_back(w);
      }
    }
  }

  // The allocations the launch can reach through its arguments, and the modules' variables;
  // every allocation when its arguments are not known.
  std::vector<Backup> reachable(const std::vector<uint64_t>& words, bool known) const {
    std::vector<Backup> v;
    for (const auto& [address, a] : allocations) {
      bool hit = a.module || !known;
      for (uint64_t w : words) hit = hit || (w >= address && w < address + a.size);
      if (hit) v.push_back({CUdeviceptr(address), 0, a.size});
    }
    return v;
  }

  void time(const LaunchCall& c, const char* symbol) {
    std::lock_guard<std::mutex> lock(mu);
    if (!out) return;
    const char* name = symbol;
    if (!name || !*name) cuFuncGetName(&name, c.f);
    const std::string kernel = name ? name : "?";
    gpu_times::Line line;
    line.kernel = kernel;
    std::vector<uint64_t> words;
    arguments(c, kernel, line.params, words);
    line.index = launches++;
    std::vector<double> ms;
    if (per_kernel[kernel]++ < kPerKernel && spent < kProgramSeconds && cuCtxSynchronize() == CUDA_SUCCESS) {
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<Backup> backups = reachable(words, !line.params.empty());
      for (Backup& b : backups) {
        if (cuMemAlloc(&b.copy, b.size) != CUDA_SUCCESS || cuMemcpyDtoD(b.copy, b.address, b.size) != CUDA_SUCCESS) {
          line.restored = false;  // out of device memory for a copy: timed as it is, said so
          if (b.copy) cuMemFree(b.copy);
          b.copy = 0;
          continue;
        }
        line.saved_bytes += b.size;
      }
      auto restore = [&] {
        for (const Backup& b : backups)
          if (b.copy) cuMemcpyDtoDAsync(b.address, b.copy, b.size, c.stream);
      };
      CUevent e0 = nullptr, e1 = nullptr;
      cuEventCreate(&e0, CU_EVENT_DEFAULT);
      cuEventCreate(&e1, CU_EVENT_DEFAULT);
      bool ok = true;
      double total = 0;
      for (int i = 0; ok && i < kWarmup + kMaxRuns; ++i) {
        restore();
        cuEventRecord(e0, c.stream);
        ok = launch(c) == CUDA_SUCCESS;
        cuEventRecord(e1, c.stream);
        ok = ok && cuEventSynchronize(e1) == CUDA_SUCCESS;
        float t = 0;
        ok = ok && cuEventElapsedTime(&t, e0, e1) == CUDA_SUCCESS;
        if (!ok || i < kWarmup) continue;
        ms.push_back(t);
        total += t * 1e-3;
        if (ms.size() >= kMinRuns && total > kRunSeconds) break;
        if (t > 100 && ms.size() >= 3) break;  // a long kernel: three runs tell its time
      }
      restore();
      cuCtxSynchronize();
      cuEventDestroy(e0);
      cuEventDestroy(e1);
      for (const Backup& b : backups)
        if (b.copy) cuMemFree(b.copy);
      if (!ok) ms.clear();  // the kernel failed: the program's own launch will say so
      spent += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    double median = 0, lo = 0, hi = 0;
    if (!ms.empty()) {
      std::sort(ms.begin(), ms.end());
      median = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
      lo = ms.front();
      hi = ms.back();
    }
    auto ns = [](double m) { return uint64_t(m * 1e6 + 0.5); };
    line.runs = uint32_t(ms.size());
    line.median_ns = ns(median), line.min_ns = ns(lo), line.max_ns = ns(hi);
    std::copy(c.grid, c.grid + 3, line.grid);
    std::copy(c.block, c.block + 3, line.block);
    line.shared = c.shared;
    std::fputs(gpu_times::format(line).c_str(), out);
    std::fflush(out);
    if (debug) std::fprintf(stderr, "warpscope timer: %s %u runs, median %.4f ms\n", kernel.c_str(), line.runs, median);
  }
};

Timer* start_timer(const char* path, bool debug) {
  FILE* f = std::fopen(path, "w");
  if (!f) {
    std::fprintf(stderr, "warpscope timer: cannot write %s\n", path);
    return nullptr;
  }
  std::fprintf(f, "%s\n", gpu_times::kHeader);
  auto* t = new Timer();
  t->out = f;
  t->debug = debug;
  t->layouts = gpu_times::parse_layouts(env::get_string(env::Var::kernel_params));
  return t;
}

void stop_timer(Timer* t) {
  if (!t) return;
  std::lock_guard<std::mutex> lock(t->mu);
  if (t->out) std::fclose(t->out);
  t->out = nullptr;
}

void timer_callback(Timer* t, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* cbdata) {
  if (t_inside) return;
  if (domain == SANITIZER_CB_DOMAIN_RESOURCE) {
    if (cbid != SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC && cbid != SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE) return;
    const auto* m = static_cast<const Sanitizer_ResourceMemoryData*>(cbdata);
    const uint32_t host = SANITIZER_MEMORY_FLAG_HOST_MAPPED | SANITIZER_MEMORY_FLAG_HOST_PINNED;
    std::lock_guard<std::mutex> lock(t->mu);
    if (cbid == SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE) t->allocations.erase(m->address);
    else if (!(m->flags & host) && m->size) t->allocations[m->address] = {m->size, (m->flags & SANITIZER_MEMORY_FLAG_MODULE) != 0};
    return;
  }
  // The runtime's launches and the driver's, by their ids in the API domains
  // (sanitizer_runtime_cbid.h, sanitizer_driver_cbid.h).
  if (domain == SANITIZER_CB_DOMAIN_RUNTIME_API) {
    const auto* api = static_cast<const Sanitizer_CallbackData*>(cbdata);
    if (!api->functionParams) return;
    void** args = nullptr;
    if (cbid == SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel || cbid == SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel_ptsz)
      args = static_cast<const cudaLaunchKernel_v7000_params*>(api->functionParams)->args;
    else if (cbid == SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC ||
             cbid == SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC_ptsz)
      args = static_cast<const cudaLaunchKernelExC_v11060_params*>(api->functionParams)->args;
    else
      return;
    t_runtime_args = api->callbackSite == SANITIZER_API_ENTER ? args : nullptr;
    return;
  }
  if (domain != SANITIZER_CB_DOMAIN_DRIVER_API) return;
  const auto* api = static_cast<const Sanitizer_CallbackData*>(cbdata);
  if (api->callbackSite != SANITIZER_API_ENTER || !api->functionParams) return;
  LaunchCall c;
  if (cbid == SANITIZER_CBID_DRIVER_API_cuLaunchKernel || cbid == SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz) {
    const auto* p = static_cast<const cuLaunchKernel_params*>(api->functionParams);
    c.f = p->f;
    c.grid[0] = p->gridDimX, c.grid[1] = p->gridDimY, c.grid[2] = p->gridDimZ;
    c.block[0] = p->blockDimX, c.block[1] = p->blockDimY, c.block[2] = p->blockDimZ;
    c.shared = p->sharedMemBytes;
    c.stream = p->hStream;
    c.params = p->kernelParams;
    c.extra = p->extra;
  } else if (cbid == SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx || cbid == SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz) {
    const auto* p = static_cast<const cuLaunchKernelEx_params*>(api->functionParams);
    if (!p->config) return;
    c.f = p->f;
    c.config = p->config;
    c.grid[0] = p->config->gridDimX, c.grid[1] = p->config->gridDimY, c.grid[2] = p->config->gridDimZ;
    c.block[0] = p->config->blockDimX, c.block[1] = p->config->blockDimY, c.block[2] = p->config->blockDimZ;
    c.shared = p->config->sharedMemBytes;
    c.stream = p->config->hStream;
    c.params = p->kernelParams;
    c.extra = p->extra;
  } else {
    return;
  }
  if (t->debug)
    std::fprintf(stderr, "warpscope timer: %s kernelParams %p extra %p (first key %p), runtime args %p\n",
                 api->functionName ? api->functionName : "?",
                 (void*)c.params, (void*)c.extra, c.extra ? c.extra[0] : nullptr, (void*)t_runtime_args);
  bool packed = false;
  for (void** e = c.extra; e && e[0] != CU_LAUNCH_PARAM_END; e += 2) packed = packed || e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER;
  if (!c.params && !packed) c.params = t_runtime_args;
  t_inside = true;
  t->time(c, api->symbolName);
  t_inside = false;
}

}  // namespace ws::tracer
