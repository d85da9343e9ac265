// reduction.cu — a sum: a tree in shared memory down to one warp, then warp shuffles, then
// one atomicAdd per block.   build/warpscope examples/reduction.cu
// Try: interleaved addressing. Lines 19-20: for (int s = 1; s < blockDim.x / 32; s *= 2) { and
// if (2 * s * t < blockDim.x) partial[2 * s * t] += partial[2 * s * t + s]; line 24: v = partial[t * (blockDim.x / 32)];
// still right, but line 20's lanes are 2 words apart (2-way), then 4 (4-way), and half the warps or more idle.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void reduceSum(const int* in, int* total, int n) {
  extern __shared__ int partial[];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x * 2 + t;
  int v = 0;
  if (i < n) v = in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  partial[t] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s >= 32; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t < 32) {
    v = partial[t];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
    if (t == 0) atomicAdd(total, v);
  }
}

int main() {
  const int n = 5000, threads = 128;
  std::vector<int> h(n);
  long long want = 0;
  for (int i = 0; i < n; ++i) { h[i] = i % 7 - 3; want += h[i]; }
  int *d_in, *d_total;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_total, sizeof(int));
  cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_total, 0, sizeof(int));
  int blocks = (n + threads * 2 - 1) / (threads * 2);
  reduceSum<<<blocks, threads, threads * sizeof(int)>>>(d_in, d_total, n);
  int got = 0;
  cudaMemcpy(&got, d_total, sizeof(int), cudaMemcpyDeviceToHost);
  printf("sum of %d ints: %d (%s)\n", n, got, got == want ? "correct" : "WRONG");
  cudaFree(d_in);
  cudaFree(d_total);
  return got == want ? 0 : 1;
}
