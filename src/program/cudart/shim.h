// src/program/cudart/shim.h — what the runtime's parts share: the trace written when the
// program ends, and the answer of a function the emulated device does not provide.
#pragma once
#include <cuda_runtime_api.h>

namespace ws::program {
void write_trace_now();
// Says once that the program called `name`, which the emulated device lacks; returns the
// error the call gives.
cudaError_t unsupported(const char* name);
}  // namespace ws::program
