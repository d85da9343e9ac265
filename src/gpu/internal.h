// src/gpu/internal.h — what the pieces of the GPU backend share: device copies of a
// launch's arrays, error checking, and runners that launch one catalog kernel in one mode
// so that the timing code can treat them alike. Internal to src/gpu; no CUDA types.
#pragma once
#include <dlfcn.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "gpu/gpu.h"

namespace ws::gpu::detail {

// The first of `names` that dlopen opens (a library's soname, then where toolkits put it),
// or null: the NVIDIA libraries the backend opens at run time (cuBLAS, CUPTI, the driver).
inline void* open_library(std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (void* h = ::dlopen(n, RTLD_NOW | RTLD_LOCAL)) return h;
  return nullptr;
}
// Sets `f` to `lib`'s symbol `name`; false when there is none.
template <class F>
bool find_symbol(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(::dlsym(lib, name));
  return f != nullptr;
}

// Throws Error("<what>: <CUDA's message>") when `status` (a cudaError_t) is not success.
void check(int status, const std::string& what);

// Throws Error when available() is false; selects the device.
void require_device();

// The stream every launch of the backend goes to (the legacy default stream).
inline void* stream() { return nullptr; }

// Device copies of a launch's arrays, in KernelInfo::buffers order.
class DeviceArrays {
 public:
  DeviceArrays(const catalog::KernelInfo& k, const catalog::Params& p);
  ~DeviceArrays();
  DeviceArrays(const DeviceArrays&) = delete;
  DeviceArrays& operator=(const DeviceArrays&) = delete;

  void upload(const catalog::HostArrays& a);           // every array
  void download_outputs(catalog::HostArrays& a) const;  // Out and InOut arrays
  void* ptr(size_t i) const { return ptrs_.at(i); }
  uint64_t bytes(size_t i) const { return bytes_.at(i); }
  size_t size() const { return ptrs_.size(); }
  const std::vector<catalog::BufferSpec>& specs() const { return specs_; }
  // A TMA tensor map of array i (contract.h's Tma2D: rows × cols elements of `elem` bytes,
  // boxes of box_rows × box_cols, a swizzle of 0/32/64/128 bytes), encoded by the driver and
  // kept in device memory as long as the arrays; the same map is made once.
  const void* tma_map(size_t i, uint32_t elem, int rows, int cols, int box_rows, int box_cols, int swizzle);

 private:
  std::vector<catalog::BufferSpec> specs_;
  std::vector<void*> ptrs_;
  std::vector<uint64_t> bytes_;
  std::vector<std::pair<std::string, void*>> maps_;  // each map's shape, and its device copy
};

// Device memory owned by the backend (freed on destruction).
class DeviceMemory {
 public:
  explicit DeviceMemory(uint64_t bytes, const std::string& what);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* get() const { return p_; }
  uint64_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  uint64_t bytes_ = 0;
};

// Device copies of a launch's InOut arrays: under user replay the profiler puts them back
// before every pass after the first, so that each pass reads what the first one read and the
// arrays end as one launch leaves them. Out arrays are written only, so every pass leaves
// them alike and they need no copy.
class OutputBackup {
 public:
  explicit OutputBackup(const DeviceArrays& a);
  void save();     // the InOut arrays as they are now (device to device, waited for)
  void restore();  // the InOut arrays as save() found them (device to device, waited for)

 private:
  const DeviceArrays& a_;
  std::vector<size_t> index_;  // the InOut arrays' places in a_
  std::vector<std::unique_ptr<DeviceMemory>> copies_;
};

// cudaMemcpy device to host and host to device; throw Error.
void copy_to_host(void* dst, const void* src, uint64_t bytes);
void copy_to_device(void* dst, const void* src, uint64_t bytes);

// "1.5 GiB"
std::string size_text(double bytes);

// One catalog kernel (or a reference operation) ready to be launched again and again.
struct Runner {
  virtual ~Runner() = default;
  virtual void launch() = 0;  // asynchronous, on stream()
};

std::unique_ptr<Runner> plain_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a);
// The hand-written raw-pointer twin of a kernel, or null when there is none.
std::unique_ptr<Runner> raw_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a);
std::unique_ptr<Runner> raw_transpose_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a);
std::unique_ptr<Runner> raw_matmul_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a);
std::unique_ptr<Runner> raw_tensor_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a);
std::unique_ptr<Runner> record_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a,
                                      const CaptureOptions& opt);
std::unique_ptr<Runner> counts_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a,
                                      const analysis::DramModel& dram);
// C = alpha·A·B + beta·C (the kernel's scalars) by cuBLAS SGEMM (pure FP32), or HGEMM (f16
// A and B, f32 accumulate) where the kernel's A and B are halves, into `out` (rows × cols
// of C, row-major, floats), with the layouts of the kernel's A and B. With beta ≠ 0, `out`
// must hold the C the kernel starts from.
std::unique_ptr<Runner> cublas_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a,
                                      void* out);
// The published kernel that entry k reproduces, as its code names it: "" when this build
// was not given the sources' code (cmake -DWARPSCOPE_PUBLISHED_DIR) or k reproduces none.
std::string published_kernel(const catalog::KernelInfo& k);
// That kernel, launched as the source's benchmark launches it on the entry's A and B,
// writing into `c` (which must hold the C the entry starts from); null when there is none.
std::unique_ptr<Runner> published_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a,
                                         void* c);
// cudaMemcpy device to device of `bytes`.
std::unique_ptr<Runner> memcpy_runner(uint64_t bytes);

// Milliseconds of each launch of each runner, interleaved run by run (r0, r1, r0, r1, ...)
// so that clock and temperature drift touch all alike. The first `warmup` rounds are not
// kept; then rounds go on until `seconds` have passed (at least min_runs, at most max_runs).
std::vector<std::vector<double>> time_runners(const std::vector<Runner*>& runners, int warmup, int min_runs,
                                              int max_runs, double seconds);

double median(std::vector<double> v);

// Fills the launch fields and global arrays of `out` as the emulator does (backend "gpu").
void start_trace(const catalog::KernelInfo& k, const catalog::Params& p, trace::Trace& out);

// Waits for the device and turns a launch failure into Error naming `what`.
void sync(const std::string& what);

// Who runs a profiled launch once per pass. Kernel: CUPTI replays each kernel inside the
// launch, saving and restoring the device memory it may touch. User: the profiler runs the
// whole launch once per pass and puts only its InOut arrays back between (OutputBackup).
enum class Replay { Kernel, User };

// Where one profile() call's wall time went, in milliseconds, each summed over the passes
// the profiler ran: the data and configuration set again (when full or after a replay
// cycle), the outputs saved and put back, CUPTI's start and stop, the launch call, the wait
// for the device, the decoding, and reading and evaluating the ranges.
struct ProfilePhases {
  double configure = 0, backup = 0, start = 0, launch = 0, sync = 0, stop = 0, decode = 0, evaluate = 0, total = 0;
  int launches = 0;                // launch() calls: 1 under kernel replay, passes() under user replay
  std::vector<size_t> pass_index;  // what each cuptiRangeProfilerStop returned as its passIndex
};

// CUPTI's range profiler on this process's context, set up once for counter_specs():
// profile() runs `launch` (its kernels replayed for every pass) and sums each metric over
// the launches it made, which it counts in `kernels`.
class Profiler {
 public:
  Profiler();  // counter_specs()' metrics
  // Any metrics CUPTI knows, in this order in profile()'s result. One profiler a process:
  // CUPTI enables one range profiler a context.
  explicit Profiler(const std::vector<std::string>& metrics);
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;
  // Under Replay::User with more than one pass, `outputs` must hold the launch's arrays:
  // profile() saves them before the first pass and puts them back before each other one.
  std::vector<uint64_t> profile(const std::function<void()>& launch, int& kernels, OutputBackup* outputs = nullptr);
  // What a profiled launch costs: one profile() to settle, then the median wall time of
  // three (replays and decoding included); the last one's values and launches.
  double profiled_ms(const std::function<void()>& launch, std::vector<uint64_t>& values, int& kernels,
                     OutputBackup* outputs = nullptr);
  void set_replay(Replay r);  // Replay::Kernel until set
  Replay replay() const;
  const ProfilePhases& phases() const;  // the last profile() call's
  int passes() const;
  const std::string& chip() const;

 private:
  void configure();
  struct State;
  std::unique_ptr<State> s_;
};
// The process's profiler, made at the first call (throws Error where it cannot be).
Profiler& profiler();

}  // namespace ws::gpu::detail
