// tests/ptx/diff/gpu_run.cpp — the PTX differential test's GPU side: loads the generated
// module (scripts/ptx_diff_cases.py) with the CUDA driver, runs every case's kernel with its
// threads' inputs, and writes the fixture the CPU test holds the interpreter to:
//
//   ptx_diff_gpu PTX CASES FIXTURE
//
// The driver library is opened at run time, so the program starts (and says in one line
// why it cannot run) on a machine without a GPU or driver. Exit codes: 0 written, 1 no GPU
// or a failure on it, 2 bad arguments or files. A case that faults on the GPU is named and left
// out of the fixture (the context is reset and the module loaded again for the cases after
// it); the fixture holds the others, and the exit code is 1.
#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "diff_cases.h"

using namespace ws::ptxdiff;

namespace {

// The driver's entry points, by the names libcuda exports (the _v2 ones for 64-bit sizes).
struct Driver {
  decltype(&cuInit) init;
  decltype(&cuDeviceGetCount) device_count;
  decltype(&cuDeviceGet) device_get;
  decltype(&cuDeviceGetName) device_name;
  decltype(&cuDeviceGetAttribute) attribute;
  decltype(&cuDriverGetVersion) driver_version;
  decltype(&cuDevicePrimaryCtxRetain) retain;
  decltype(&cuDevicePrimaryCtxReset_v2) reset;
  decltype(&cuCtxSetCurrent) set_current;
  decltype(&cuModuleLoadDataEx) load;
  decltype(&cuModuleGetFunction) function;
  decltype(&cuMemAlloc_v2) alloc;
  decltype(&cuMemFree_v2) free;
  decltype(&cuMemcpyHtoD_v2) to_device;
  decltype(&cuMemcpyDtoH_v2) to_host;
  decltype(&cuMemsetD8_v2) memset;
  decltype(&cuLaunchKernel) launch;
  decltype(&cuCtxSynchronize) sync;
  decltype(&cuGetErrorString) error_string;
};

// Opens libcuda; "" when every entry point was found, else why not.
std::string open_driver(Driver& d) {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h) h = dlopen("libcuda.so", RTLD_NOW);
  if (!h) return "no CUDA driver on this machine (libcuda.so.1 not found)";
  bool ok = true;
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
    ok = ok && fn != nullptr;
  };
  sym(d.init, "cuInit");
  sym(d.device_count, "cuDeviceGetCount");
  sym(d.device_get, "cuDeviceGet");
  sym(d.device_name, "cuDeviceGetName");
  sym(d.attribute, "cuDeviceGetAttribute");
  sym(d.driver_version, "cuDriverGetVersion");
  sym(d.retain, "cuDevicePrimaryCtxRetain");
  sym(d.reset, "cuDevicePrimaryCtxReset_v2");
  sym(d.set_current, "cuCtxSetCurrent");
  sym(d.load, "cuModuleLoadDataEx");
  sym(d.function, "cuModuleGetFunction");
  sym(d.alloc, "cuMemAlloc_v2");
  sym(d.free, "cuMemFree_v2");
  sym(d.to_device, "cuMemcpyHtoD_v2");
  sym(d.to_host, "cuMemcpyDtoH_v2");
  sym(d.memset, "cuMemsetD8_v2");
  sym(d.launch, "cuLaunchKernel");
  sym(d.sync, "cuCtxSynchronize");
  sym(d.error_string, "cuGetErrorString");
  return ok ? "" : "the CUDA driver lacks an entry point this program needs";
}

struct Failure {
  std::string what;
};

void check(const Driver& d, CUresult r, const std::string& what) {
  if (r == CUDA_SUCCESS) return;
  const char* s = nullptr;
  if (d.error_string) d.error_string(r, &s);
  throw Failure{what + ": " + (s ? s : "error " + std::to_string(int(r)))};
}

// "gpu | NVIDIA H100 80GB HBM3 | sm_90 | driver 13.0"
std::string describe(const Driver& d, CUdevice dev) {
  char name[256] = {};
  d.device_name(name, sizeof name, dev);
  int major = 0, minor = 0, version = 0;
  d.attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  d.attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  d.driver_version(&version);
  return std::string("gpu | ") + name + " | sm_" + std::to_string(major) + std::to_string(minor) + " | driver " +
         std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// One case on the GPU: its threads in one block, in and out buffers of 64-bit slots.
void run_case(const Driver& d, CUmodule mod, Case& c) {
  CUfunction fn;
  check(d, d.function(&fn, mod, c.kernel.c_str()), "case '" + c.name + "': kernel " + c.kernel);
  const size_t nin = std::max<size_t>(1, c.ins.size()), nout = c.outs.size();
  std::vector<uint64_t> in(c.threads * nin, 0), out(c.threads * nout, 0);
  for (uint32_t t = 0; t < c.threads; ++t)
    for (size_t i = 0; i < c.ins.size(); ++i) in[t * nin + i] = c.inputs[t][i];
  CUdeviceptr din = 0, dout = 0;
  check(d, d.alloc(&din, in.size() * 8), "cuMemAlloc");
  check(d, d.alloc(&dout, out.size() * 8), "cuMemAlloc");
  check(d, d.to_device(din, in.data(), in.size() * 8), "cuMemcpyHtoD");
  check(d, d.memset(dout, 0, out.size() * 8), "cuMemsetD8");
  void* args[] = {&din, &dout};
  check(d, d.launch(fn, 1, 1, 1, c.threads, 1, 1, 0, nullptr, args, nullptr), "case '" + c.name + "': launch");
  check(d, d.sync(), "case '" + c.name + "': running it");
  check(d, d.to_host(out.data(), dout, out.size() * 8), "cuMemcpyDtoH");
  d.free(din);
  d.free(dout);
  c.outputs.assign(c.threads, std::vector<uint64_t>(nout));
  for (uint32_t t = 0; t < c.threads; ++t)
    for (size_t i = 0; i < nout; ++i) {
      const uint32_t bytes = type_bytes(c.outs[i]);
      const uint64_t v = out[t * nout + i];
      c.outputs[t][i] = bytes >= 8 ? v : v & ((1ull << (8 * bytes)) - 1);
    }
}

// The primary context made current and the generated module loaded into it; the JIT's log
// names the PTX line of anything it refuses.
CUmodule load_module(const Driver& d, CUdevice dev, const std::string& ptx) {
  CUcontext ctx;
  check(d, d.retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(d, d.set_current(ctx), "cuCtxSetCurrent");
  std::vector<char> log(1 << 16, 0);
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {log.data(), reinterpret_cast<void*>(uintptr_t(log.size()))};
  CUmodule mod;
  const CUresult r = d.load(&mod, ptx.c_str(), 2, opts, vals);
  if (r != CUDA_SUCCESS) check(d, r, std::string("loading the PTX: ") + log.data());
  return mod;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: ptx_diff_gpu PTX CASES FIXTURE\n");
    return 2;
  }
  std::string ptx, cases_text;
  if (!read_file(argv[1], ptx) || !read_file(argv[2], cases_text)) {
    std::fprintf(stderr, "ptx_diff_gpu: cannot read %s or %s\n", argv[1], argv[2]);
    return 2;
  }
  std::vector<Case> cases;
  try {
    cases = read_cases(cases_text, argv[2]);
  } catch (const FormatError& e) {
    std::fprintf(stderr, "ptx_diff_gpu: %s\n", e.what());
    return 2;
  }
  Driver d{};
  const std::string why = open_driver(d);
  if (!why.empty()) {
    std::fprintf(stderr, "ptx_diff_gpu: %s\n", why.c_str());
    return 1;
  }
  int count = 0;
  if (d.init(0) != CUDA_SUCCESS || d.device_count(&count) != CUDA_SUCCESS || count == 0) {
    std::fprintf(stderr, "ptx_diff_gpu: no CUDA device found\n");
    return 1;
  }
  try {
    CUdevice dev;
    check(d, d.device_get(&dev, 0), "cuDeviceGet");
    CUmodule mod = load_module(d, dev, ptx);
    std::vector<Case> done;
    size_t faulted = 0;
    for (Case& c : cases) {
      try {
        run_case(d, mod, c);
        done.push_back(std::move(c));
      } catch (const Failure& e) {  // a fault poisons the context: start a fresh one
        std::fprintf(stderr, "ptx_diff_gpu: %s; left out of the fixture\n", e.what.c_str());
        ++faulted;
        d.reset(dev);
        mod = load_module(d, dev, ptx);
      }
    }
    const std::string device = describe(d, dev);
    std::ofstream f(argv[3], std::ios::binary);
    f << write_fixture(device, done);
    if (!f.flush()) throw Failure{std::string("cannot write ") + argv[3]};
    std::printf("ptx_diff_gpu: %zu cases on %s -> %s (%zu faulted)\n", done.size(), device.c_str(), argv[3], faulted);
    return faulted ? 1 : 0;
  } catch (const Failure& e) {
    std::fprintf(stderr, "ptx_diff_gpu: %s\n", e.what.c_str());
    return 1;
  }
  return 0;
}
