// src/program/cudart/shim.h — what the runtime's parts share: the trace written when the
// program ends, the answer of a function the emulated device does not provide, the one
// lock every entry point takes, and the emulated device the parts beside runtime.cpp
// (host memory, streams and graphs, the exports libcublas uses) reach.
#pragma once
#include <cuda_runtime_api.h>

#include <mutex>
#include <string>
#include <vector>

namespace ws::ptx {
class Device;
struct Fault;
}

namespace ws::program {
void write_trace_now();
// One line to the program's stderr, "warpscope: " before it.
void say(const std::string& line);
// The program's time limit reached: the fault of the launch it stopped (null: the program
// was in its own code), said and written as the problem, the trace of the launches that
// ended written, and the program ended with status 124. `first_record`: the stopped
// launch's first record in the trace.
[[noreturn]] void stop_at_time_limit(const ptx::Fault* f, size_t first_record);
// Says once that the program called `name`, which the emulated device lacks; returns the
// error the call gives.
cudaError_t unsupported(const char* name);

// Held by every entry point that reads or changes the device: the program's host threads
// reach one emulated device, whose state is not safe to touch from two at once. Recursive:
// entry points call each other, and a stream's host function may call the runtime.
std::recursive_mutex& api_mutex();
// The emulated device (its module read on first use; memory works without one).
ptx::Device& device();
// A kernel launch (cudaLaunchKernel's work); `cooperative`: every block resident at once,
// for a grid-wide barrier (cudaLaunchCooperativeKernel); `cluster`: the thread block
// clusters cudaLaunchKernelEx asks for (1x1x1: the kernel's own __cluster_dims__, if any).
cudaError_t launch_kernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t stream,
                          bool cooperative, dim3 cluster = dim3(1, 1, 1));
// Records a call's error as cudaGetLastError will answer it; returns `e`.
cudaError_t fail(cudaError_t e);
// The error a fault of an earlier kernel left (cudaSuccess when none): every later call
// answers it, as on a GPU.
cudaError_t sticky_error();
// The bytes of each parameter of the kernel whose host stub is `func`; false when the
// kernel is unknown or its PTX missing.
bool kernel_param_sizes(const void* func, std::vector<size_t>& sizes);
}  // namespace ws::program

// Serialises an entry point: the program's host threads take turns at the device.
#define WS_API_LOCK std::lock_guard<std::recursive_mutex> ws_api_lock_(ws::program::api_mutex())
