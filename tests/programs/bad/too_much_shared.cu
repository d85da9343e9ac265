// Asks for more shared memory than a block can have (300 KiB of dynamic shared memory; an
// H100 block may have 227 KiB): the launch is refused with cudaErrorInvalidValue and nothing
// runs, as on a GPU; the same kernel with 128 bytes runs. Exits 0 when the refusal came back
// and the second launch worked.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void fill(float* out) {
  extern __shared__ float s[];
  s[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
int main() {
  float* d_out;
  cudaMalloc(&d_out, 32 * sizeof(float));
  fill<<<1, 32, 300 * 1024>>>(d_out);
  const cudaError_t e = cudaGetLastError();
  printf("300 KiB: %s\n", cudaGetErrorString(e));
  fill<<<1, 32, 32 * sizeof(float)>>>(d_out);
  const cudaError_t ok = cudaDeviceSynchronize();
  printf("128 bytes: %s\n", cudaGetErrorString(ok));
  return e != cudaSuccess && ok == cudaSuccess ? 0 : 1;
}
