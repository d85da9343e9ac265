// tiled_reduce.cu — a sum with cooperative groups: each warp reduces with a 32-thread
// tiled_partition's shuffles, warp totals meet in shared memory; two launches (a partial
// sum per block, then the partials).
#include <cstdio>
#include <vector>
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void blockSum(const float* in, float* out, int n) {
  __shared__ float warpSums[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int off = warp.size() / 2; off > 0; off /= 2) v += warp.shfl_down(v, off);
  if (warp.thread_rank() == 0) warpSums[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    v = warp.thread_rank() < warp.meta_group_size() ? warpSums[warp.thread_rank()] : 0.0f;
    for (int off = 16; off > 0; off /= 2) v += warp.shfl_down(v, off);
    if (warp.thread_rank() == 0) out[blockIdx.x] = v;
  }
}

int main() {
  const int n = 4096, threads = 256, blocks = n / threads;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = float(i % 10);
  float *d_in, *d_partial, *d_total;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_partial, blocks * sizeof(float));
  cudaMalloc(&d_total, sizeof(float));
  cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  blockSum<<<blocks, threads>>>(d_in, d_partial, n);
  blockSum<<<1, 32>>>(d_partial, d_total, blocks);
  float total = 0;
  cudaMemcpy(&total, d_total, sizeof(float), cudaMemcpyDeviceToHost);
  double want = 0;
  for (float x : h) want += x;
  printf("sum of %d: %.0f (%s)\n", n, total, total == want ? "correct" : "WRONG");
  return total == want ? 0 : 1;
}
