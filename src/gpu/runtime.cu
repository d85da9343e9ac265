// src/gpu/runtime.cu — finding the device, device memory, error checking and timing.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "contract.h"
#include "gpu/internal.h"

namespace ws::gpu {

namespace {

// A kernel that does nothing: whether the runtime can load it tells whether this build
// has code the device can run.
__global__ void probe_kernel() {}

struct Availability {
  bool ok = false;
  std::string why;
  std::string name;
};

const Availability& availability() {
  static const Availability a = [] {
    Availability r;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver) {
      int drv = 0, rt = 0;
      cudaDriverGetVersion(&drv);
      cudaRuntimeGetVersion(&rt);
      if (drv == 0) {
        r.why = "no NVIDIA driver found (no GPU on this machine)";
        return r;
      }
      r.why = "the NVIDIA driver is too old for this build (driver supports CUDA " + DeviceInfo::version_text(drv) +
              ", this build needs " + DeviceInfo::version_text(rt) + "): update the driver";
      return r;
    }
    if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
      r.why = "no CUDA device found";
      return r;
    }
    if (e != cudaSuccess) {
      r.why = std::string("no usable CUDA device: ") + cudaGetErrorString(e);
      return r;
    }
    cudaDeviceProp prop{};
    if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess || (e = cudaSetDevice(0)) != cudaSuccess) {
      r.why = std::string("no usable CUDA device: ") + cudaGetErrorString(e);
      return r;
    }
    cudaFuncAttributes attr{};
    e = cudaFuncGetAttributes(&attr, probe_kernel);
    if (e != cudaSuccess) {
      cudaGetLastError();
      r.why = std::string(prop.name) + " (compute capability " + std::to_string(prop.major) + "." +
              std::to_string(prop.minor) + ") cannot run this build's GPU code (built for sm_90): " +
              cudaGetErrorString(e);
      return r;
    }
    r.ok = true;
    r.name = prop.name;
    return r;
  }();
  return a;
}

// Current clocks through NVML, when the driver's library is there.
void read_clocks(int& sm, int& mem) {
  sm = mem = 0;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return;
  using Init = int (*)();
  using Handle = int (*)(unsigned, void**);
  using Clock = int (*)(void*, int, unsigned*);
  auto init = reinterpret_cast<Init>(dlsym(lib, "nvmlInit_v2"));
  auto handle = reinterpret_cast<Handle>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
  auto clock = reinterpret_cast<Clock>(dlsym(lib, "nvmlDeviceGetClockInfo"));
  auto shutdown = reinterpret_cast<Init>(dlsym(lib, "nvmlShutdown"));
  void* dev = nullptr;
  unsigned v = 0;
  if (init && handle && clock && init() == 0) {
    if (handle(0, &dev) == 0) {
      if (clock(dev, 1 /* NVML_CLOCK_SM */, &v) == 0) sm = int(v);
      if (clock(dev, 2 /* NVML_CLOCK_MEM */, &v) == 0) mem = int(v);
    }
    if (shutdown) shutdown();
  }
  dlclose(lib);
}

}  // namespace

bool available(std::string* why) {
  const Availability& a = availability();
  if (why) *why = a.why;
  return a.ok;
}

std::string device_name() { return availability().ok ? availability().name : std::string(); }

DeviceInfo device_info() {
  detail::require_device();
  cudaDeviceProp prop{};
  detail::check(cudaGetDeviceProperties(&prop, 0), "reading the device properties");
  DeviceInfo d;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sms = prop.multiProcessorCount;
  d.memory_bytes = prop.totalGlobalMem;
  d.l2_bytes = uint64_t(prop.l2CacheSize);
  d.memory_bus_bits = prop.memoryBusWidth;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) == cudaSuccess) d.max_sm_clock_mhz = khz / 1000;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess) d.max_mem_clock_mhz = khz / 1000;
  cudaGetLastError();
  cudaDriverGetVersion(&d.driver_version);
  cudaRuntimeGetVersion(&d.runtime_version);
  read_clocks(d.sm_clock_mhz, d.mem_clock_mhz);
  return d;
}

namespace detail {

void check(int status, const std::string& what) {
  if (status == cudaSuccess) return;
  auto e = cudaError_t(status);
  if (e == cudaErrorMemoryAllocation) {
    size_t free_b = 0, total = 0;
    cudaGetLastError();
    cudaMemGetInfo(&free_b, &total);
    throw Error("out of device memory while " + what + " (" + size_text(double(free_b)) + " free of " +
                size_text(double(total)) + ")");
  }
  throw Error(what + " failed: " + cudaGetErrorString(e));
}

void require_device() {
  std::string why;
  if (!available(&why)) throw Error(why);
}

std::string size_text(double bytes) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) bytes /= 1024, ++u;
  char s[32];
  std::snprintf(s, sizeof s, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
  return s;
}

DeviceMemory::DeviceMemory(uint64_t bytes, const std::string& what) : bytes_(bytes) {
  if (!bytes) return;
  cudaError_t e = cudaMalloc(&p_, bytes);
  if (e != cudaSuccess) {
    p_ = nullptr;
    cudaGetLastError();
    if (e == cudaErrorMemoryAllocation) {
      size_t free_b = 0, total = 0;
      cudaMemGetInfo(&free_b, &total);
      throw Error("out of device memory: " + what + " needs " + size_text(double(bytes)) + ", " +
                  size_text(double(free_b)) + " free of " + size_text(double(total)));
    }
    check(e, "allocating " + what);
  }
}

DeviceMemory::~DeviceMemory() {
  if (p_) cudaFree(p_);
}

DeviceArrays::DeviceArrays(const catalog::KernelInfo& k, const catalog::Params& p) : specs_(k.buffers(p)) {
  require_device();
  double total = 0;
  for (const auto& s : specs_) total += double(s.elements()) * s.elem_bytes;
  size_t free_b = 0, all = 0;
  check(cudaMemGetInfo(&free_b, &all), "reading free device memory");
  if (total > double(free_b))
    throw Error("out of device memory: " + k.id + " at size " + std::to_string(p.size()) + " needs " +
                size_text(total) + " for its arrays, " + size_text(double(free_b)) + " free of " +
                size_text(double(all)));
  try {
    for (const auto& s : specs_) {
      uint64_t b = s.elements() * s.elem_bytes;
      void* d = nullptr;
      check(cudaMalloc(&d, std::max<uint64_t>(b, 16)), "allocating array '" + s.name + "' of " + k.id);
      ptrs_.push_back(d);
      bytes_.push_back(b);
    }
  } catch (...) {
    for (void* d : ptrs_) cudaFree(d);
    throw;
  }
}

DeviceArrays::~DeviceArrays() {
  for (void* d : ptrs_) cudaFree(d);
  for (auto& m : maps_) cudaFree(m.second);
}

const void* DeviceArrays::tma_map(size_t i, uint32_t elem, int rows, int cols, int box_rows, int box_cols, int swizzle) {
  const std::string key = std::to_string(i) + ":" + std::to_string(elem) + ":" + std::to_string(rows) + ":" +
                          std::to_string(cols) + ":" + std::to_string(box_rows) + ":" + std::to_string(box_cols) + ":" +
                          std::to_string(swizzle);
  for (const auto& m : maps_)
    if (m.first == key) return m.second;
  // The driver's encoder, reached through the runtime (no link to libcuda).
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      fn = nullptr;
    cudaGetLastError();
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  if (!encode) throw Error("this driver has no TMA (cuTensorMapEncodeTiled): a TMA kernel needs an H100 or newer");
  const CUtensorMapDataType type = elem == 2 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)}, strides[1] = {cuuint64_t(cols) * elem};
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)}, step[2] = {1, 1};
  const CUtensorMapSwizzle sw = swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                : swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                : swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                : CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMap map{};
  // L2 promotion of 256 bytes: the transpose's boxes ran 2.4 points faster than with 128
  // (bench/device/tma_transpose.cu, H200), the wgmma rung's the same.
  const CUresult r = encode(&map, type, 2, ptrs_.at(i), dims, strides, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw Error("the driver refused a TMA map of '" + specs_.at(i).name + "' (" + std::to_string(rows) + " x " +
                std::to_string(cols) + ", box " + std::to_string(box_rows) + " x " + std::to_string(box_cols) +
                ", swizzle " + std::to_string(swizzle) + "): error " + std::to_string(int(r)));
  void* d = nullptr;
  check(cudaMalloc(&d, sizeof map), "allocating a TMA map");
  maps_.push_back({key, d});
  check(cudaMemcpy(d, &map, sizeof map, cudaMemcpyHostToDevice), "copying a TMA map to the device");
  return d;
}

void DeviceArrays::upload(const catalog::HostArrays& a) {
  for (size_t i = 0; i < ptrs_.size(); ++i) {
    const std::vector<float>& v = a.at(i);
    if (specs_[i].elem_bytes == 2) {  // half arrays: the host's floats rounded to 16 bits
      std::vector<uint16_t> h(v.size());
      for (size_t j = 0; j < v.size(); ++j) h[j] = half_bits(v[j]);
      uint64_t b = std::min<uint64_t>(bytes_[i], h.size() * 2);
      check(cudaMemcpy(ptrs_[i], h.data(), b, cudaMemcpyHostToDevice), "copying '" + specs_[i].name + "' to the device");
      continue;
    }
    uint64_t b = std::min<uint64_t>(bytes_[i], v.size() * sizeof(float));
    check(cudaMemcpy(ptrs_[i], v.data(), b, cudaMemcpyHostToDevice), "copying '" + specs_[i].name + "' to the device");
  }
}

void DeviceArrays::download_outputs(catalog::HostArrays& a) const {
  for (size_t i = 0; i < ptrs_.size(); ++i) {
    if (!catalog::is_output(specs_[i].role)) continue;
    std::vector<float>& v = a.at(i);
    if (specs_[i].elem_bytes == 2) {
      std::vector<uint16_t> h(v.size());
      uint64_t b = std::min<uint64_t>(bytes_[i], h.size() * 2);
      check(cudaMemcpy(h.data(), ptrs_[i], b, cudaMemcpyDeviceToHost), "copying '" + specs_[i].name + "' back");
      for (size_t j = 0; j < b / 2; ++j) v[j] = half_value(h[j]);
      continue;
    }
    uint64_t b = std::min<uint64_t>(bytes_[i], v.size() * sizeof(float));
    check(cudaMemcpy(v.data(), ptrs_[i], b, cudaMemcpyDeviceToHost), "copying '" + specs_[i].name + "' back");
  }
}

void copy_to_host(void* dst, const void* src, uint64_t bytes) {
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "copying a result back");
}

void copy_to_device(void* dst, const void* src, uint64_t bytes) {
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "copying an array to the device");
}

void sync(const std::string& what) {
  check(cudaGetLastError(), "launching " + what);
  check(cudaDeviceSynchronize(), "running " + what);
}

namespace {

class MemcpyRunner : public Runner {
 public:
  explicit MemcpyRunner(uint64_t bytes)
      : src_(bytes, "the reference copy's source"), dst_(bytes, "the reference copy's destination") {
    check(cudaMemset(src_.get(), 0x3f, bytes), "filling the reference copy's source");
  }
  void launch() override {
    check(cudaMemcpyAsync(dst_.get(), src_.get(), src_.bytes(), cudaMemcpyDeviceToDevice, cudaStream_t(stream())),
          "cudaMemcpy device to device");
  }

 private:
  DeviceMemory src_, dst_;
};

}  // namespace

std::unique_ptr<Runner> memcpy_runner(uint64_t bytes) { return std::make_unique<MemcpyRunner>(bytes); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<std::vector<double>> time_runners(const std::vector<Runner*>& runners, int warmup, int min_runs,
                                              int max_runs, double seconds) {
  std::vector<std::vector<double>> ms(runners.size());
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "creating a timing event");
  check(cudaEventCreate(&stop), "creating a timing event");
  struct Events {
    cudaEvent_t a, b;
    ~Events() {
      cudaEventDestroy(a);
      cudaEventDestroy(b);
    }
  } guard{start, stop};
  auto t0 = std::chrono::steady_clock::now();
  for (int round = 0;; ++round) {
    for (size_t i = 0; i < runners.size(); ++i) {
      check(cudaEventRecord(start, cudaStream_t(stream())), "recording a timing event");
      runners[i]->launch();
      check(cudaEventRecord(stop, cudaStream_t(stream())), "recording a timing event");
      check(cudaEventSynchronize(stop), "timing a launch");
      check(cudaGetLastError(), "timing a launch");
      float t = 0;
      check(cudaEventElapsedTime(&t, start, stop), "reading a timing event");
      if (round >= warmup) ms[i].push_back(double(t));
    }
    int kept = round + 1 - warmup;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (kept >= max_runs || (kept >= min_runs && elapsed >= seconds)) break;
  }
  return ms;
}

}  // namespace detail
}  // namespace ws::gpu
