// src/program/cudart/library.cpp — what the emulated libraries beside this runtime
// (libcublas.so.13, libcublasLt.so.13: src/program/cublas) use of it: the device's memory
// read and written by address, under the runtime's lock, and a note that a library call
// ran on the CPU outside the trace. Plain C names, exported beside the runtime's own.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "program/cudart/graphs.h"
#include "program/cudart/shim.h"
#include "ptx/machine.h"

extern "C" {

// Copies `bytes` of device memory at `src` to the host; cudaErrorInvalidValue when the
// range is not inside one allocation, the sticky error after a kernel fault.
int ws_cudart_read(void* dst, const void* src, size_t bytes) {
  WS_API_LOCK;
  ws::program::run_held();  // a library call reads after the work issued before it
  if (ws::program::sticky_error() != cudaSuccess) return ws::program::sticky_error();
  return ws::program::device().to_host(dst, reinterpret_cast<uintptr_t>(src), bytes) ? cudaSuccess : cudaErrorInvalidValue;
}

// Copies `bytes` from the host into device memory at `dst`; as ws_cudart_read.
int ws_cudart_write(void* dst, const void* src, size_t bytes) {
  WS_API_LOCK;
  ws::program::run_held();
  if (ws::program::sticky_error() != cudaSuccess) return ws::program::sticky_error();
  return ws::program::device().to_device(reinterpret_cast<uintptr_t>(dst), src, bytes) ? cudaSuccess : cudaErrorInvalidValue;
}

// Says once per function that a library call ran on the CPU and is not in the trace: the
// trace holds kernels' accesses, and the library's work is not a kernel the program wrote.
void ws_cudart_library_call(const char* name) {
  WS_API_LOCK;
  static std::vector<std::string> told;
  if (std::find(told.begin(), told.end(), name) != told.end()) return;
  told.push_back(name);
  std::fprintf(stderr, "warpscope: %s computed on the CPU; its accesses are not in the trace\n", name);
}

}  // extern "C"
