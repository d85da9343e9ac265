// src/gpu/published/kernels.h — launchers of the published kernels, compiled from their
// sources' own code (see src/gpu/published.cpp). No CUDA types.
#pragma once
#include <vector>

namespace ws::gpu::published {

// C = alpha·A·B + beta·C for N×N row-major matrices, on the legacy default stream, with the
// launch shape of the source's own benchmark.
using Launcher = void (*)(int N, float alpha, const float* A, const float* B, float beta, float* C);

struct Kernel {
  const char* entry;  // the catalog entry that reproduces it (or, where the name ends in
                      // "beside", the entry it is timed beside for comparison)
  const char* name;   // the source's kernel, as its code names it
  Launcher launch;
};

const std::vector<Kernel>& all();

}  // namespace ws::gpu::published
