// Its host code dereferences a null pointer after a launch: the run ends with one line
// naming the signal, and the program's last lines of output.
#include <cstdio>

__global__ void fill(float* p) { p[threadIdx.x] = float(threadIdx.x); }

int main() {
  float* d = nullptr;
  cudaMalloc(&d, 32 * sizeof(float));
  fill<<<1, 32>>>(d);
  cudaDeviceSynchronize();
  std::printf("launched; now the host reads through a null pointer\n");
  volatile int* nowhere = nullptr;
  return *nowhere;
}
