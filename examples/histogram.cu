// histogram.cu — a byte histogram: per-block bins in shared memory (shared atomics), then
// one global atomicAdd per bin and block; printf from one thread, assert on the input.
// Try: every value in one bin ((i * 7) % BINS -> 0): line 19's lanes all add 1 to one word, yet it
// stays 1 wavefront (an H100's ATOMS.POPC.INC counts the lanes and adds once). Then add values that
// differ, 1u -> (threadIdx.x % 2) * 2u (the same total): the lanes take turns, 32 wavefronts.
#include <cassert>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BINS 64

__global__ void histogram(const unsigned char* data, int n, unsigned int* bins) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    assert(data[i] < BINS);
    atomicAdd(&local[data[i]], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
  if (blockIdx.x == 0 && threadIdx.x == 0) printf("block 0 counted %u values in bin 0\n", local[0]);
}

int main() {
  const int n = 10000;
  std::vector<unsigned char> h(n);
  for (int i = 0; i < n; ++i) h[i] = (unsigned char)((i * 7) % BINS);
  unsigned char* d_data;
  unsigned int* d_bins;
  cudaMalloc(&d_data, n);
  cudaMalloc(&d_bins, BINS * sizeof(unsigned int));
  cudaMemcpy(d_data, h.data(), n, cudaMemcpyHostToDevice);
  cudaMemset(d_bins, 0, BINS * sizeof(unsigned int));
  histogram<<<8, 128>>>(d_data, n, d_bins);
  std::vector<unsigned int> bins(BINS);
  cudaMemcpy(bins.data(), d_bins, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost);
  unsigned int total = 0;
  for (int b = 0; b < BINS; ++b) total += bins[b];
  printf("histogram of %d bytes: %s\n", n, total == unsigned(n) ? "correct" : "WRONG");
  return total == unsigned(n) ? 0 : 1;
}
