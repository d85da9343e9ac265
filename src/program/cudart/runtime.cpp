// src/program/cudart/runtime.cpp — libcudart.so.13 as a program built with `nvcc -cudart
// shared` meets it, backed by the emulated device (ptx/machine.h) instead of a GPU. The
// program's host code runs natively in its own process; nvcc's registration code hands
// this library the kernels' names, and every <<<…>>> arrives here as a launch with its
// arguments. Kernels run on the PTX that `warpscope run` compiled beside the program
// (WARPSCOPE_PTX); every launch is recorded, and the trace is written when the program
// ends (WARPSCOPE_TRACE), with the shared-memory races the launches met (WARPSCOPE_RACES);
// program/environment.h declares what the parent sets. Functions
// the emulated device does not provide exist too (weak stubs generated from the toolkit's
// list by cmake/cudart_stubs.cmake) and return an error that names them.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "program/cudart/graphs.h"
#include "program/cudart/shim.h"
#include "env/environment.h"
#include "program/problem.h"
#include "program/program.h"
#include "program/races.h"
#include "ptx/machine.h"
#include "trace/builder.h"
#include "trace/wstrace.h"

namespace {

using namespace ws;

struct Config {
  dim3 grid, block;
  size_t shared = 0;
  void* stream = nullptr;
};

struct State {
  std::mutex mu;
  bool loaded = false;
  std::string load_error;
  ptx::Device dev;
  trace::Trace trace;
  std::unique_ptr<trace::Builder> builder;
  std::map<const void*, std::string> kernels;  // host stub -> mangled name
  struct Var {
    std::string name;
    size_t size = 0;
    bool constant = false;
  };
  std::map<const void*, Var> vars;             // host shadow -> device variable
  cudaError_t last = cudaSuccess;
  cudaError_t sticky = cudaSuccess;            // a kernel fault, as the GPU's is: every later call fails
  uint64_t allocations = 0;
  uint64_t lane_accesses = 0;
  bool written = false;
  std::string out;
  std::vector<std::string> names;             // the program's allocations, as its text names them
  bool names_read = false;
  bool problem_written = false;
  ws::program::Races races;                   // the device's races, in the program's words
  size_t races_taken = 0;                     // of the device's list
  // cudaMallocPitch's allocations: their rows are the array's shape, which the trace keeps.
  struct Pitched {
    std::string name;
    size_t width = 0, height = 0, pitch = 0;  // bytes, rows, bytes
  };
  std::vector<Pitched> pitched;
};

State& st() {
  static State* s = new State;  // never destroyed: the program's own exit handlers may still call in
  return *s;
}

// When the program started (this library is loaded with it): its time limit counts from here.
const std::chrono::steady_clock::time_point program_start = std::chrono::steady_clock::now();

// The exit status of a program stopped at its time limit (as timeout(1) and `warpscope run`).
constexpr int kTimedOut = 124;

void start_watchdog();

using ws::program::say;

// The module is read on first use, so that a program that only queries the device works
// without one.
bool ensure_loaded() {
  State& s = st();
  if (s.loaded) return s.load_error.empty();
  s.loaded = true;
  if (!env::is_set(env::Var::ptx)) {
    s.load_error = std::string(env::name(env::Var::ptx)) + " is not set: run the program through `warpscope run`";
    say(s.load_error);
    return false;
  }
  const std::string ptx = env::get_string(env::Var::ptx);
  try {
    std::ifstream f(ptx, std::ios::binary);
    std::stringstream text;
    text << f.rdbuf();
    if (!f.good() && text.str().empty()) throw std::runtime_error(std::string("cannot read ") + ptx);
    s.dev.load(ptx::parse(text.str(), ptx));
  } catch (const std::exception& e) {
    s.load_error = e.what();
    say(s.load_error);
    return false;
  }
  s.builder = std::make_unique<trace::Builder>(s.trace, env::get_int(env::Var::max_records));
  s.dev.record_local(!env::get_flag(env::Var::hide_local));
  ptx::Engine engine = ptx::Engine::Compiled;
  if (!ptx::parse_engine(env::get_string(env::Var::engine), engine)) {
    s.load_error = std::string(env::name(env::Var::engine)) + " is '" + env::get_string(env::Var::engine) +
                   "': the engines are compiled and interpreter";
    say(s.load_error);
    return false;
  }
  ptx::EngineOptions eo;
  eo.cache_dir = env::get_string(env::Var::engine_cache);
  eo.compiler = env::get_string(env::Var::engine_cxx);
  eo.after_seconds = std::strtod(env::get_string(env::Var::engine_after).c_str(), nullptr);
  eo.wait = !(eo.after_seconds > 0);
  s.dev.engine(engine, eo);
  s.out = env::get_string(env::Var::trace);
  start_watchdog();
  return true;
}

// What stopped the run, for the parent: the file WARPSCOPE_PROBLEM names, where it names one.
void put_problem(const program::Problem& p) {
  if (env::is_set(env::Var::problem)) std::ofstream(env::get_string(env::Var::problem), std::ios::binary) << program::problem_json(p);
}

// The first fault of a kernel, with where it happened, for the parent (WARPSCOPE_PROBLEM):
// the launch it stopped and its request's record counted within that launch.
void write_problem(const ptx::Fault& f, size_t first_record) {
  State& s = st();
  if (!env::is_set(env::Var::problem) || s.problem_written) return;
  s.problem_written = true;
  program::Problem p;
  p.kind = f.kind.empty() ? "fault" : f.kind;
  p.message = f.what();
  p.launch = uint32_t(s.trace.launches.size());
  if (f.record >= 0) p.record = f.record - int64_t(first_record);
  program::Place at;
  at.file = f.file_name;
  if (at.file.empty())
    if (auto it = s.dev.module().files.find(f.file); it != s.dev.module().files.end()) at.file = it->second;
  at.line = f.line;
  at.placed = f.placed;
  for (int i = 0; i < 3; ++i) at.thread[i] = f.thread[i], at.block[i] = f.block[i];
  at.warp = f.warp;
  if (at.line || at.placed) p.at.push_back(at);
  p.array = f.array;
  p.offset = f.offset;
  p.size = f.size;
  p.lanes = f.lanes;
  for (size_t l = 0; l < 32; ++l) p.lane_offset[l] = f.lane_offset[l];
  put_problem(p);
}

// The races the launch `la` just found (ended or faulted), in the program's words.
void take_races(State& s, const ptx::KernelLaunch& la) {
  const std::vector<ptx::Race>& found = s.dev.races();
  for (; s.races_taken < found.size(); ++s.races_taken)
    s.races.races.push_back(ws::program::race_of(found[s.races_taken], s.dev.module(), la));
  s.races.left_out = s.dev.races_left_out();
}

cudaError_t ret(cudaError_t e) {
  if (e != cudaSuccess) st().last = e;
  return e;
}

}  // namespace

namespace ws::program {

void say(const std::string& line) { std::fprintf(stderr, "warpscope: %s\n", line.c_str()); }

// The program's end (a background compile left to finish on its own: the device is never
// destroyed).
void write_trace_now() {
  State& s = st();
  s.dev.engine_leave();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.written || s.out.empty()) return;
  s.written = true;
  s.trace.provenance.backend = "emulator";
  s.trace.provenance.device = "CPU emulator (PTX)";
  s.trace.provenance.date = trace::utc_now();
  s.trace.provenance.version = WS_VERSION;
  // Pitched arrays as the program allocated them, in 4-byte elements (the session sizes
  // them again once the instructions say what an element is).
  for (const State::Pitched& p : s.pitched)
    for (trace::Buffer& b : s.trace.buffers)
      if (b.space == trace::Space::Global && b.name == p.name && b.size_bytes == p.pitch * p.height &&
          p.width % 4 == 0 && p.pitch % 4 == 0) {
        b.rows = p.height;
        b.cols = p.width / 4;
        b.pitch = p.pitch / 4;
      }
  try {
    trace::write_trace(s.trace, s.out);
  } catch (const std::exception& e) {
    // No trace, and the run says why, in place of "nothing was traced".
    std::error_code ec;
    std::filesystem::remove(s.out, ec);
    program::Problem p;
    p.kind = "trace";
    p.message = "the trace of " + std::to_string(s.trace.records.size()) + " records could not be written (" + e.what() +
                "): a smaller size will do";
    say(p.message);
    put_problem(p);
  }
  if (env::is_set(env::Var::races) && !(std::ofstream(env::get_string(env::Var::races), std::ios::binary)
                                        << ws::program::races_file_text(s.races)))
    say("could not write the list of races to " + env::get_string(env::Var::races));
}

void stop_at_time_limit(const ptx::Fault* f, size_t first_record) {
  State& s = st();
  const std::string limit = env::get_string(env::Var::timeout) + " s";
  if (f) {
    write_problem(*f, first_record);
  } else if (env::is_set(env::Var::problem) && !s.problem_written) {
    s.problem_written = true;
    program::Problem p;
    p.kind = "timeout";
    p.message = "the program was stopped at its time limit (" + limit + ") in its own code, after launch " +
                std::to_string(s.trace.launches.size());
    put_problem(p);
  }
  say(f ? std::string(f->what()) + " (" + limit + ")" : "the program was stopped at its time limit (" + limit + ")");
  write_trace_now();
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(kTimedOut);
}

cudaError_t unsupported(const char* name) {
  static std::mutex mu;
  static std::vector<std::string> told;
  std::lock_guard<std::mutex> lock(mu);
  if (std::find(told.begin(), told.end(), name) == told.end()) {
    told.push_back(name);
    say(std::string("the program called ") + name + ", which the emulated device does not provide; it returned an error");
  }
  st().last = cudaErrorNotSupported;
  return cudaErrorNotSupported;
}

}  // namespace ws::program

namespace {

// The program's time limit (WARPSCOPE_TIMEOUT): the device is stopped, and once the launch
// running has thrown its "timeout" fault (its handler writes the trace and exits) or none
// was running, the trace of the launches that ended is written here and the program exits.
void start_watchdog() {
  const double limit = std::strtod(env::get_string(env::Var::timeout).c_str(), nullptr);
  if (!(limit > 0)) return;
  std::thread([limit] {
    std::this_thread::sleep_until(program_start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                      std::chrono::duration<double>(limit)));
    st().dev.stop();
    WS_API_LOCK;  // the launch running now ends (its handler exits), or the host code is stopped here
    ws::program::stop_at_time_limit(nullptr, 0);
  }).detach();
}

struct Flush {
  ~Flush() {
    ws::program::run_held();
    ws::program::write_trace_now();
  }
} flush_at_exit;
}  // namespace

extern "C" {

// ---- what nvcc's registration code calls ----------------------------------------------

void** __cudaRegisterFatBinary(void* fatCubin) {
  static void* handle = nullptr;
  (void)fatCubin;
  return &handle;
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {
  ws::program::run_held();  // work the program never waited for runs at its end
  ws::program::write_trace_now();
}
char __cudaInitModule(void**) { return 1; }

void __cudaRegisterFunction(void**, const char* hostFun, char*, const char* deviceName, int, uint3*, uint3*, dim3*,
                            dim3*, int*) {
  st().kernels[hostFun] = deviceName;
}

void __cudaRegisterVar(void**, char* hostVar, char*, const char* deviceName, int, size_t size, int constant, int) {
  st().vars[hostVar] = {deviceName, size, constant != 0};
}

void __cudaRegisterManagedVar(void**, void** hostVarPtrAddress, char*, const char* deviceName, int, size_t size,
                              int constant, int) {
  st().vars[hostVarPtrAddress] = {deviceName, size, constant != 0};
}

// A <<<…>>>'s configuration travels from push to pop on one host thread: each has its own.
static thread_local std::vector<Config> configs;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st* stream) {
  configs.push_back({gridDim, blockDim, sharedMem, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream) {
  if (configs.empty()) return cudaErrorInvalidConfiguration;
  const Config c = configs.back();
  configs.pop_back();
  *gridDim = c.grid;
  *blockDim = c.block;
  *sharedMem = c.shared;
  if (stream) *static_cast<void**>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* fun) {
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(fun));
  return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                             cudaStream_t stream) {
  return ws::program::launch_kernel(func, gridDim, blockDim, args, sharedMem, stream, false);
}

}  // extern "C"

cudaError_t ws::program::launch_kernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                       cudaStream_t stream, bool cooperative, dim3 cluster) {
  WS_API_LOCK;
  if (ws::program::capturing(stream)) {
    if (cooperative) return unsupported("a cooperative launch captured into a graph");
    if (cluster.x * cluster.y * cluster.z > 1) return unsupported("a launch with thread block clusters captured into a graph");
    return ws::program::capture_launch(func, gridDim, blockDim, args, sharedMem, stream);
  }
  State& s = st();
  if (s.sticky != cudaSuccess) return ret(s.sticky);
  auto it = s.kernels.find(func);
  if (it == s.kernels.end()) return ret(cudaErrorInvalidDeviceFunction);
  if (!ensure_loaded()) return ret(cudaErrorInvalidPtx);
  const ptx::Kernel* k = s.dev.module().kernel(it->second);
  if (!k) {
    say("no PTX for kernel " + it->second);
    return ret(cudaErrorInvalidDeviceFunction);
  }
  if (uint64_t(blockDim.x) * blockDim.y * blockDim.z > 1024 || !blockDim.x || !blockDim.y || !blockDim.z)
    return ret(cudaErrorInvalidConfiguration);
  if (!gridDim.x || !gridDim.y || !gridDim.z) return ret(cudaErrorInvalidConfiguration);
  if (cudaError_t e; !cooperative && cluster.x * cluster.y * cluster.z <= 1 &&
                     ws::program::held_launch(*k, func, gridDim, blockDim, args, sharedMem, e))
    return e;
  ws::program::run_held();  // work that cannot join the held work runs after it
  if (sharedMem > ptx::kMaxSharedPerBlock - std::min(k->static_shared, ptx::kMaxSharedPerBlock)) {
    say("a launch of " + ptx::kernel_name(k->name) + " asks for " + std::to_string(sharedMem) +
        " bytes of dynamic shared memory: with its " + std::to_string(k->static_shared) +
        " static bytes the block may have " + std::to_string(ptx::kMaxSharedPerBlock));
    return ret(cudaErrorInvalidValue);
  }
  ptx::KernelLaunch la;
  la.kernel = k->name;
  la.grid = {gridDim.x, gridDim.y, gridDim.z};
  la.block = {blockDim.x, blockDim.y, blockDim.z};
  la.dynamic_shared = uint32_t(sharedMem);
  la.cooperative = cooperative;
  la.cluster = {cluster.x, cluster.y, cluster.z};
  la.cluster = ptx::launch_cluster(*k, la);
  if (const std::string why = ptx::cluster_problem(la); !why.empty()) {
    say("a launch of " + ptx::kernel_name(k->name) + " " + why);
    return ret(cudaErrorInvalidClusterSize);
  }
  la.params.assign(k->param_bytes, 0);
  for (size_t i = 0; i < k->params.size(); ++i) std::memcpy(la.params.data() + k->params[i].offset, args[i], k->params[i].bytes);
  // Each kernel's first launches are recorded; the rest of a timing loop only runs.
  static const uint64_t recorded_launches = env::get_int(env::Var::record_launches);
  s.dev.record_launches(recorded_launches);
  const size_t first_record = s.trace.records.size();
  try {
    static const uint64_t block_budget = std::max<uint64_t>(1, env::get_int(env::Var::block_budget));
    s.lane_accesses += s.dev.launch(la, *s.builder, block_budget);
    take_races(s, la);
    for (const std::string& n : s.dev.take_notes()) say(n);
    static bool engine_said = false;  // a module the compiler refused: said once
    if (!engine_said && !s.dev.engine_note().empty()) {
      engine_said = true;
      say(s.dev.engine_note());
    }
  } catch (const ptx::Refused& r) {  // nothing ran: this launch fails, the others still run
    static std::set<std::string> told;  // a loop of launches says it once
    if (told.insert(r.what()).second) say(r.what());
    return ret(cudaErrorNotSupported);
  } catch (const ptx::Fault& f) {
    take_races(s, la);
    if (f.kind == "timeout") ws::program::stop_at_time_limit(&f, first_record);
    if (f.assertion) std::fprintf(stderr, "%s\n", f.what());
    else say(f.what());
    write_problem(f, first_record);
    s.sticky = f.assertion ? cudaErrorAssert : cudaErrorIllegalAddress;
    s.last = s.sticky;
    return cudaSuccess;  // as on the GPU: the launch is accepted, the fault shows at the next sync
  }
  return cudaSuccess;
}

extern "C" {

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                               cudaStream_t stream) {
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), gridDim, blockDim, args, sharedMem, stream);
}
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                    cudaStream_t stream) {
  return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, stream);
}

// ---- memory --------------------------------------------------------------------------


// Where cudaMallocPitch was called from, while it allocates through cudaMalloc.
static thread_local const void* outer_caller = nullptr;

// The name of the allocation made by the call returning to `caller`: the name its line of
// the program writes (`cudaMalloc(&d_A`, in any file), else that line ("main.cpp:59"),
// resolved once per call site. Where no line is known (the host code has no debug lines):
// the k-th `cudaMalloc(&name` of the program's text, else "cudaMalloc #k".
static std::string allocation_name(const char* what, const void* caller) {
  State& s = st();
  const uint64_t k = ++s.allocations;
  if (outer_caller) caller = outer_caller;
  if (std::string name = ws::program::name_of_call(caller); !name.empty()) return name;
  if (!s.names_read) {
    s.names_read = true;
    if (env::is_set(env::Var::source)) {
      std::ifstream f(env::get_string(env::Var::source), std::ios::binary);
      std::stringstream text;
      text << f.rdbuf();
      s.names = ws::program::allocation_names(text.str());
    }
  }
  return k <= s.names.size() ? s.names[k - 1] : std::string(what) + " #" + std::to_string(k);
}

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  WS_API_LOCK;
  State& s = st();
  if (!devPtr) return ret(cudaErrorInvalidValue);
  ensure_loaded();
  // The emulated device's memory is this machine's: a request past what it could hold fails
  // as the GPU's does, with cudaErrorMemoryAllocation.
  if (size > (size_t(64) << 30)) {
    say("cudaMalloc of " + std::to_string(size >> 20) + " MiB is more than the emulated device holds (64 GiB)");
    return ret(cudaErrorMemoryAllocation);
  }
  try {
    *devPtr = reinterpret_cast<void*>(s.dev.malloc(size, allocation_name("cudaMalloc", __builtin_return_address(0))));
  } catch (const std::bad_alloc&) {
    say("cudaMalloc of " + std::to_string(size >> 20) + " MiB: this machine has not that much memory free");
    return ret(cudaErrorMemoryAllocation);
  }
  return cudaSuccess;
}

// Rows padded to 512 bytes, the pitch the GPU's texture alignment gives.
cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  if (!pitch) return ret(cudaErrorInvalidValue);
  *pitch = (width + 511) / 512 * 512;
  outer_caller = __builtin_return_address(0);
  const cudaError_t e = cudaMalloc(devPtr, *pitch * height);
  outer_caller = nullptr;
  if (e == cudaSuccess) {
    WS_API_LOCK;
    State& s = st();
    s.pitched.push_back({s.dev.owner(reinterpret_cast<uint64_t>(*devPtr)), width, height, *pitch});
  }
  return e;
}
cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int) {
  WS_API_LOCK;
  State& s = st();
  if (!devPtr) return ret(cudaErrorInvalidValue);
  ensure_loaded();
  void* p = std::calloc(1, std::max<size_t>(size, 1));
  if (!p) return ret(cudaErrorMemoryAllocation);
  s.dev.adopt(p, size, allocation_name("cudaMallocManaged", __builtin_return_address(0)));
  *devPtr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* devPtr) {
  WS_API_LOCK;
  ws::program::run_held();
  State& s = st();
  if (!devPtr) return cudaSuccess;
  const uint64_t a = reinterpret_cast<uintptr_t>(devPtr);
  if (a < ptx::kGlobalBase) {  // managed: the host memory is ours to release
    if (!s.dev.free(a)) return ret(cudaErrorInvalidValue);
    std::free(devPtr);
    return cudaSuccess;
  }
  return s.dev.free(a) ? cudaSuccess : ret(cudaErrorInvalidValue);
}

static bool on_device(const void* p) {
  const uint64_t a = reinterpret_cast<uintptr_t>(p);
  return (a >= ptx::kGlobalBase && a < ptx::kSharedWindow) || !st().dev.owner(a).empty();
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  WS_API_LOCK;
  ws::program::run_held();
  State& s = st();
  if (s.sticky != cudaSuccess) return ret(s.sticky);
  if (!count) return cudaSuccess;
  const uint64_t d = reinterpret_cast<uintptr_t>(dst), sr = reinterpret_cast<uintptr_t>(src);
  const bool dd = on_device(dst), sd = on_device(src);
  if (kind == cudaMemcpyDefault) kind = dd ? (sd ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                                           : (sd ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  bool ok = true;
  switch (kind) {
    case cudaMemcpyHostToDevice: ok = s.dev.to_device(d, src, count); break;
    case cudaMemcpyDeviceToHost: ok = s.dev.to_host(dst, sr, count); break;
    case cudaMemcpyDeviceToDevice: ok = s.dev.device_to_device(d, sr, count); break;
    case cudaMemcpyHostToHost: std::memmove(dst, src, count); break;
    default: ok = false;
  }
  if (!ok) {
    say("cudaMemcpy of " + std::to_string(count) + " bytes outside the arrays the program allocated");
    return ret(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}
// Rows of `width` bytes, `height` of them, each at its own pitch: one copy per row.
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind) {
  if (width > dpitch || width > spitch) return ret(cudaErrorInvalidPitchValue);
  for (size_t r = 0; r < height; ++r) {
    const cudaError_t e = cudaMemcpy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch,
                                     width, kind);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  WS_API_LOCK;
  ws::program::run_held();
  if (!st().dev.memset(reinterpret_cast<uintptr_t>(devPtr), value, count)) return ret(cudaErrorInvalidValue);
  return cudaSuccess;
}

static uint64_t symbol_address(const void* symbol, size_t* size) {
  State& s = st();
  auto it = s.vars.find(symbol);
  if (it == s.vars.end() || !ensure_loaded()) return 0;
  if (size) *size = it->second.size;
  return s.dev.symbol(it->second.name);
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset, enum cudaMemcpyKind kind) {
  WS_API_LOCK;
  ws::program::run_held();
  size_t size = 0;
  const uint64_t a = symbol_address(symbol, &size);
  if (!a || offset + count > size) return ret(cudaErrorInvalidSymbol);
  if (kind == cudaMemcpyDeviceToDevice || (kind == cudaMemcpyDefault && on_device(src)))
    return st().dev.device_to_device(a + offset, reinterpret_cast<uintptr_t>(src), count) ? cudaSuccess : ret(cudaErrorInvalidValue);
  return st().dev.to_device(a + offset, src, count) ? cudaSuccess : ret(cudaErrorInvalidSymbol);
}
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset, enum cudaMemcpyKind kind) {
  WS_API_LOCK;
  ws::program::run_held();
  size_t size = 0;
  const uint64_t a = symbol_address(symbol, &size);
  if (!a || offset + count > size) return ret(cudaErrorInvalidSymbol);
  if (kind == cudaMemcpyDeviceToDevice || (kind == cudaMemcpyDefault && on_device(dst)))
    return st().dev.device_to_device(reinterpret_cast<uintptr_t>(dst), a + offset, count) ? cudaSuccess : ret(cudaErrorInvalidValue);
  return st().dev.to_host(dst, a + offset, count) ? cudaSuccess : ret(cudaErrorInvalidSymbol);
}
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  WS_API_LOCK;
  const uint64_t a = symbol_address(symbol, nullptr);
  if (!a) return ret(cudaErrorInvalidSymbol);
  *devPtr = reinterpret_cast<void*>(a);
  return cudaSuccess;
}
cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  WS_API_LOCK;
  return symbol_address(symbol, size) ? cudaSuccess : ret(cudaErrorInvalidSymbol);
}
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  *free_bytes = size_t(70) << 30;
  *total = size_t(80) << 30;
  return cudaSuccess;
}
cudaError_t cudaMemPrefetchAsync(const void*, size_t, struct cudaMemLocation, unsigned int, cudaStream_t) {
  return cudaSuccess;
}

// ---- errors and synchronisation --------------------------------------------------------

cudaError_t cudaGetLastError(void) {
  WS_API_LOCK;
  State& s = st();
  const cudaError_t e = s.last;
  s.last = s.sticky;
  return e;
}
cudaError_t cudaPeekAtLastError(void) {
  WS_API_LOCK;
  return st().last;
}

const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case cudaErrorInvalidSymbol: return "cudaErrorInvalidSymbol";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    case cudaErrorInvalidPtx: return "cudaErrorInvalidPtx";
    case cudaErrorAssert: return "cudaErrorAssert";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorHostMemoryAlreadyRegistered: return "cudaErrorHostMemoryAlreadyRegistered";
    case cudaErrorHostMemoryNotRegistered: return "cudaErrorHostMemoryNotRegistered";
    case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorStreamCaptureUnmatched: return "cudaErrorStreamCaptureUnmatched";
    case cudaErrorIllegalState: return "cudaErrorIllegalState";
    case cudaErrorCooperativeLaunchTooLarge: return "cudaErrorCooperativeLaunchTooLarge";
    default: return "cudaErrorUnknown";
  }
}
const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorNotSupported: return "operation not supported (by warpscope's emulated device)";
    case cudaErrorInvalidPtx: return "a PTX JIT compilation failed";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorHostMemoryAlreadyRegistered: return "part or all of the requested memory range is already mapped";
    case cudaErrorHostMemoryNotRegistered: return "pointer does not correspond to a registered memory region";
    case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureUnmatched: return "capture was not initiated in this stream";
    case cudaErrorIllegalState: return "the operation is not permitted in the current state";
    case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    default: return "unknown error";
  }
}

// ---- the device ------------------------------------------------------------------------

cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : ret(cudaErrorInvalidDevice); }
cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig) { return cudaSuccess; }
// Banks of four bytes, as every GPU since Maxwell has them (and the analysis counts them).
cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig* config) {
  if (!config) return ret(cudaErrorInvalidValue);
  *config = cudaSharedMemBankSizeFourByte;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}

// An H100-like device: what course programs ask before they size a launch.
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* p, int device) {
  if (device != 0) return ret(cudaErrorInvalidDevice);
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "warpscope emulated device (CPU)");
  p->totalGlobalMem = size_t(80) << 30;
  p->sharedMemPerBlock = 48 << 10;
  p->sharedMemPerBlockOptin = 227 << 10;
  p->sharedMemPerMultiprocessor = 228 << 10;
  p->regsPerBlock = 65536;
  p->regsPerMultiprocessor = 65536;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 0x7fffffff;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->totalConstMem = 64 << 10;
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = 132;
  p->maxThreadsPerMultiProcessor = 2048;
  p->maxBlocksPerMultiProcessor = 32;
  p->memoryBusWidth = 5120;
  p->l2CacheSize = 50 << 20;
  p->managedMemory = 1;
  p->concurrentManagedAccess = 1;
  p->unifiedAddressing = 1;
  p->canMapHostMemory = 1;  // host memory is the device's: host_memory.cpp
  p->canUseHostPointerForRegisteredMem = 1;
  p->cooperativeLaunch = 1;  // launch_ex.cpp
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) return ret(cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrManagedMemory: *value = 1; break;
    case cudaDevAttrCanMapHostMemory: *value = 1; break;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
    default: *value = 0;
  }
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void*, enum cudaFuncAttribute, int) { return cudaSuccess; }
cudaError_t cudaFuncSetCacheConfig(const void*, enum cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func) {
  WS_API_LOCK;
  State& s = st();
  std::memset(attr, 0, sizeof *attr);
  auto it = s.kernels.find(func);
  if (it == s.kernels.end() || !ensure_loaded()) return ret(cudaErrorInvalidDeviceFunction);
  const ptx::Kernel* k = s.dev.module().kernel(it->second);
  if (!k) return ret(cudaErrorInvalidDeviceFunction);
  attr->sharedSizeBytes = k->static_shared;
  attr->localSizeBytes = k->local_bytes;
  attr->maxThreadsPerBlock = 1024;
  attr->numRegs = int(std::min<uint32_t>(k->registers, 255));
  attr->ptxVersion = 90;
  attr->binaryVersion = 90;
  attr->maxDynamicSharedSizeBytes = 48 << 10;
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void*, int blockSize, size_t) {
  *numBlocks = blockSize > 0 ? std::max(1, 2048 / blockSize) : 0;
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func, int blockSize,
                                                                  size_t shared, unsigned int) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize, shared);
}

// The profiler's range markers: nothing to start on an emulated device, and no error.
cudaError_t cudaProfilerStart() { return cudaSuccess; }
cudaError_t cudaProfilerStop() { return cudaSuccess; }

cudaError_t cudaDeviceGetLimit(size_t* value, enum cudaLimit limit) {
  switch (limit) {
    case cudaLimitStackSize: *value = 1024; return cudaSuccess;
    case cudaLimitPrintfFifoSize: *value = 1 << 20; return cudaSuccess;
    case cudaLimitMallocHeapSize: *value = 8 << 20; return cudaSuccess;
    default: *value = 0; return cudaSuccess;
  }
}
cudaError_t cudaDeviceSetLimit(enum cudaLimit, size_t) { return cudaSuccess; }
cudaError_t cudaChooseDevice(int* device, const struct cudaDeviceProp*) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int* can, int, int) {
  *can = 0;  // one device
  return cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = 0;
  return cudaSuccess;
}

}  // extern "C"

// The stubs (generated from the toolkit's list of runtime functions) end here.
extern "C" int ws_cudart_unsupported(const char* name) { return int(ws::program::unsupported(name)); }

namespace ws::program {

std::recursive_mutex& api_mutex() {
  static std::recursive_mutex* mu = new std::recursive_mutex;  // outlives the program's exit handlers
  return *mu;
}
ptx::Device& device() {
  ensure_loaded();
  return st().dev;
}
cudaError_t fail(cudaError_t e) { return ret(e); }
cudaError_t sticky_error() { return st().sticky; }
bool kernel_param_sizes(const void* func, std::vector<size_t>& sizes) {
  State& s = st();
  auto it = s.kernels.find(func);
  if (it == s.kernels.end() || !ensure_loaded()) return false;
  const ptx::Kernel* k = s.dev.module().kernel(it->second);
  if (!k) return false;
  sizes.clear();
  for (const auto& p : k->params) sizes.push_back(p.bytes);
  return true;
}

}  // namespace ws::program
