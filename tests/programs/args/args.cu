// Echoes how it was built and called: FACTOR from args_factor.h (-I) or -D, the C++
// standard (-std), and every argument it was given, then runs one small kernel.
#include <cstdio>
#include <cuda_runtime.h>
#include "args_factor.h"

__global__ void times_factor(int* x) { x[threadIdx.x] = int(threadIdx.x) * FACTOR; }

int main(int argc, char** argv) {
  std::printf("FACTOR=%d cplusplus=%ld\n", FACTOR, long(__cplusplus));
  for (int i = 1; i < argc; ++i) std::printf("argv[%d]=%s\n", i, argv[i]);
  int* d_x;
  cudaMalloc(&d_x, 32 * sizeof(int));
  times_factor<<<1, 32>>>(d_x);
  int h[32];
  cudaMemcpy(h, d_x, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("x[31]=%d\n", h[31]);
  return 0;
}
