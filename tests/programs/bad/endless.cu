// Never finishes: warpscope stops it after its timeout.
#include <cuda_runtime.h>
__global__ void spin(volatile int* flag) { while (*flag == 0) {} }
int main() {
  int* d_flag;
  cudaMalloc(&d_flag, sizeof(int));
  cudaMemset(d_flag, 0, sizeof(int));
  spin<<<1, 32>>>(d_flag);
  cudaDeviceSynchronize();
  return 0;
}
