// One kernel of a program in several files: scales an array in place.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("scale: %d elements\n", n);
  if (i < n) x[i] *= s;
}

void launch_scale(float* x, float s, int n) { scale<<<(n + 127) / 128, 128>>>(x, s, n); }
