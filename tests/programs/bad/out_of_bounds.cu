// Reads past the end of its arrays: the emulated device stops the kernel and the program
// sees cudaErrorIllegalAddress, as on a GPU.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void copyTooFar(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
int main() {
  float *d_in, *d_out;
  cudaMalloc(&d_in, 64 * sizeof(float));
  cudaMalloc(&d_out, 64 * sizeof(float));
  copyTooFar<<<1, 128>>>(d_in, d_out, 100);
  cudaError_t e = cudaDeviceSynchronize();
  printf("after the launch: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
