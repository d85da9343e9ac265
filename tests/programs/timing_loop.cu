// timing_loop.cu — a kernel launched many times, as a program that times it does: each
// launch adds i to x[i] and counts its blocks with an atomic, so the results show that
// every launch ran, recorded or not.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void accumulate(float* x, unsigned* blocks_run, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += float(i);
  if (threadIdx.x == 0) atomicAdd(blocks_run, 1u);
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? atoi(argv[1]) : 6;
  const int n = 5000, threads = 128, blocks = (n + threads - 1) / threads;
  float* d_x;
  unsigned* d_count;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_count, sizeof(unsigned));
  cudaMemset(d_x, 0, n * sizeof(float));
  cudaMemset(d_count, 0, sizeof(unsigned));
  for (int k = 0; k < launches; ++k) accumulate<<<blocks, threads>>>(d_x, d_count, n);
  std::vector<float> x(n);
  unsigned count = 0;
  cudaMemcpy(x.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(&count, d_count, sizeof(unsigned), cudaMemcpyDeviceToHost);
  int bad = count != unsigned(blocks * launches);
  for (int i = 0; i < n; ++i) bad += x[i] != float(i) * launches;
  printf("%d launches of accumulate: %s\n", launches, bad ? "WRONG" : "correct");
  return bad ? 1 : 0;
}
