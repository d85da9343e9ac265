// The other kernel of the program: c = a + b, with its own printf format.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("add: %d elements\n", n);
  if (i < n) c[i] = a[i] + b[i];
}

void launch_add(const float* a, const float* b, float* c, int n) { add<<<(n + 127) / 128, 128>>>(a, b, c, n); }
