// Allocations made away from main: a helper that allocates before main's own call, and a
// loop that allocates an array of buffers.
#include <cuda_runtime.h>

float* make_scratch(size_t bytes) {
  float* d_scratch = nullptr;
  cudaMalloc(&d_scratch, bytes);
  return d_scratch;
}

void make_buffers(float** bufs, int count, size_t bytes) {
  for (int i = 0; i < count; ++i)
    cudaMalloc((void**)&bufs[i], bytes);
}
