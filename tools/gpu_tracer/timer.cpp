// The GPU tracer's other mode: every launch of the program timed plainly, nothing patched.
// At the entry of each kernel launch (the driver's cuLaunchKernel / cuLaunchKernelEx, which
// the runtime's <<<...>>> reaches) the timer waits for the device, saves every buffer the
// launch's arguments point into (and the modules' __device__ variables), then launches the
// same kernel with the same arguments again and again — warm-up runs first — restoring
// the buffers before each run and timing the run alone with events. It restores them once
// more and lets the program's own launch go, so the program computes what it would have
// without the timer (in-place kernels and atomics included).
//
// One line per launch goes to $WARPSCOPE_GPU_TIMES (tab-separated; program/timing.h reads it):
//   launch  INDEX  GX GY GZ  BX BY BZ  SHARED  RUNS  MEDIAN_NS MIN_NS MAX_NS  SAVED_BYTES
//           RESTORED(1|0)  PARAMS(size:hex,...)  NAME
// RUNS 0: not timed (past the per-kernel limit), the other figures 0.
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
  std::map<std::string, std::vector<std::pair<size_t, size_t>>> layouts;
  uint64_t launches = 0;
  double spent = 0;  // seconds of timing so far
  bool debug = false;

  CUresult launch(const LaunchCall& c) const {
    if (c.config) return cuLaunchKernelEx(c.config, c.f, c.params, c.extra);
    return cuLaunchKernel(c.f, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2], c.shared, c.stream,
                          c.params, c.extra);
  }

  // The argument bytes, each parameter as the kernel declares it (cuFuncGetParamInfo):
  // from kernelParams (one pointer per parameter) or, as the runtime passes them, from
  // one packed buffer in `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER, at the offsets).
  std::string param_text(const LaunchCall& c, const std::string& kernel, std::vector<uint64_t>& words) const {
    const unsigned char* packed = nullptr;
    size_t packed_size = 0;
    for (void** e = c.extra; e && e[0] != CU_LAUNCH_PARAM_END; e += 2) {
      if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) packed = static_cast<const unsigned char*>(e[1]);
      else if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE && e[1]) packed_size = *static_cast<const size_t*>(e[1]);
    }
    if (!c.params && !packed) return "-";
    // The layout: the driver's, else the PTX's (offsets by each parameter's alignment).
    std::vector<std::pair<size_t, size_t>> layout;  // (offset, size)
    for (size_t i = 0;; ++i) {
      size_t offset = 0, size = 0;
      if (cuFuncGetParamInfo(c.f, i, &offset, &size) != CUDA_SUCCESS) break;
      layout.push_back({offset, size});
    }
    if (layout.empty()) {
      auto it = layouts.find(kernel);
      if (it == layouts.end()) return "-";
      size_t at = 0;
      for (const auto& [size, align] : it->second) {
        at = align ? (at + align - 1) / align * align : at;
        layout.push_back({at, size});
        at += size;
      }
    }
    std::string s;
    for (size_t i = 0; i < layout.size(); ++i) {
      const auto [offset, size] = layout[i];
      if (!c.params && offset + size > packed_size) break;
      const auto* p = c.params ? static_cast<const unsigned char*>(c.params[i]) : packed + offset;
      if (!s.empty()) s += ",";
      s += std::to_string(size) + ":";
      static const char hex[] = "0123456789abcdef";
      for (size_t b = 0; b < size; ++b) s += hex[p[b] >> 4], s += hex[p[b] & 15];
      // Every aligned 8-byte word may be a pointer (a struct of pointers too).
      for (size_t b = 0; b + 8 <= size; b += 8) {
        uint64_t w;
        std::memcpy(&w, p + b, 8);
        words.push_back(w);
      }
    }
    return s.empty() ? "-" : s;
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
    std::vector<uint64_t> words;
    const std::string params = param_text(c, kernel, words);
    const uint64_t index = launches++;
    uint32_t runs = 0;
    std::vector<double> ms;
    uint64_t saved = 0;
    bool restored = true;
    if (per_kernel[kernel]++ < kPerKernel && spent < kProgramSeconds && cuCtxSynchronize() == CUDA_SUCCESS) {
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<Backup> backups = reachable(words, params != "-");
      for (Backup& b : backups) {
        if (cuMemAlloc(&b.copy, b.size) != CUDA_SUCCESS || cuMemcpyDtoD(b.copy, b.address, b.size) != CUDA_SUCCESS) {
          restored = false;  // out of device memory for a copy: timed as it is, said so
          if (b.copy) cuMemFree(b.copy);
          b.copy = 0;
          continue;
        }
        saved += b.size;
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
    runs = uint32_t(ms.size());
    double median = 0, lo = 0, hi = 0;
    if (!ms.empty()) {
      std::sort(ms.begin(), ms.end());
      median = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
      lo = ms.front();
      hi = ms.back();
    }
    auto ns = [](double m) { return (unsigned long long)(m * 1e6 + 0.5); };
    unsigned grid[3], block[3], shared = c.shared;
    std::copy(c.grid, c.grid + 3, grid);
    std::copy(c.block, c.block + 3, block);
    std::fprintf(out, "launch\t%llu\t%u %u %u\t%u %u %u\t%u\t%u\t%llu %llu %llu\t%llu\t%d\t%s\t%s\n",
                 (unsigned long long)index, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, runs,
                 ns(median), ns(lo), ns(hi), (unsigned long long)saved, restored ? 1 : 0, params.c_str(), kernel.c_str());
    std::fflush(out);
    if (debug) std::fprintf(stderr, "warpscope timer: %s %u runs, median %.4f ms\n", kernel.c_str(), runs, median);
  }
};

Timer* start_timer(const char* path, bool debug) {
  FILE* f = std::fopen(path, "w");
  if (!f) {
    std::fprintf(stderr, "warpscope timer: cannot write %s\n", path);
    return nullptr;
  }
  std::fprintf(f, "warpscope-gpu-times 1\n");
  auto* t = new Timer();
  t->out = f;
  t->debug = debug;
  // "entry=8:8,4:4;entry2=..."
  if (const char* env = std::getenv("WARPSCOPE_KERNEL_PARAMS")) {
    std::string all = env;
    for (size_t at = 0; at < all.size();) {
      size_t end = all.find(';', at);
      if (end == std::string::npos) end = all.size();
      const std::string item = all.substr(at, end - at);
      at = end + 1;
      const size_t eq = item.find('=');
      if (eq == std::string::npos) continue;
      auto& layout = t->layouts[item.substr(0, eq)];
      const char* p = item.c_str() + eq + 1;
      unsigned long size = 0, align = 0;
      int used = 0;
      while (std::sscanf(p, "%lu:%lu%n", &size, &align, &used) == 2) {
        layout.push_back({size, align});
        p += used;
        if (*p == ',') ++p;
      }
    }
  }
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
  if (domain == SANITIZER_CB_DOMAIN_RUNTIME_API) {
    const auto* api = static_cast<const Sanitizer_CallbackData*>(cbdata);
    if (!api->functionName || !api->functionParams || std::strncmp(api->functionName, "cudaLaunchKernel", 16) != 0) return;
    void** args = std::strstr(api->functionName, "ExC")
                      ? static_cast<const cudaLaunchKernelExC_v11060_params*>(api->functionParams)->args
                      : static_cast<const cudaLaunchKernel_v7000_params*>(api->functionParams)->args;
    t_runtime_args = api->callbackSite == SANITIZER_API_ENTER ? args : nullptr;
    return;
  }
  if (domain != SANITIZER_CB_DOMAIN_DRIVER_API) return;
  const auto* api = static_cast<const Sanitizer_CallbackData*>(cbdata);
  if (api->callbackSite != SANITIZER_API_ENTER || !api->functionName || !api->functionParams) return;
  const std::string fn = api->functionName;
  LaunchCall c;
  if (fn == "cuLaunchKernel" || fn == "cuLaunchKernel_ptsz") {
    const auto* p = static_cast<const cuLaunchKernel_params*>(api->functionParams);
    c.f = p->f;
    c.grid[0] = p->gridDimX, c.grid[1] = p->gridDimY, c.grid[2] = p->gridDimZ;
    c.block[0] = p->blockDimX, c.block[1] = p->blockDimY, c.block[2] = p->blockDimZ;
    c.shared = p->sharedMemBytes;
    c.stream = p->hStream;
    c.params = p->kernelParams;
    c.extra = p->extra;
  } else if (fn == "cuLaunchKernelEx" || fn == "cuLaunchKernelEx_ptsz") {
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
    std::fprintf(stderr, "warpscope timer: %s kernelParams %p extra %p (first key %p), runtime args %p\n", fn.c_str(),
                 (void*)c.params, (void*)c.extra, c.extra ? c.extra[0] : nullptr, (void*)t_runtime_args);
  bool packed = false;
  for (void** e = c.extra; e && e[0] != CU_LAUNCH_PARAM_END; e += 2) packed = packed || e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER;
  if (!c.params && !packed) c.params = t_runtime_args;
  t_inside = true;
  t->time(c, api->symbolName);
  t_inside = false;
}

}  // namespace ws::tracer
