// tests/programs/grid_sync.cu — a grid-wide barrier (cooperative groups' this_grid().sync())
// in a cooperative launch: a sum of n values in two phases, each block's partial sum written
// before the barrier and every block's read after it, twice over (the barrier reused), by
// cudaLaunchCooperativeKernel and by cudaLaunchKernelExC with the cooperative attribute; a
// cooperative grid larger than the device holds at once is refused. With the argument
// `plain`, the kernel is launched with <<<…>>> instead: its grid.sync() traps (exit 2).
// Exits 1 on a wrong value.
#include <cooperative_groups.h>

#include <cstdio>

namespace cg = cooperative_groups;

__global__ void two_phase_sum(const int* in, int* partial, int* out, int n) {
  cg::grid_group grid = cg::this_grid();
  for (int round = 0; round < 2; ++round) {
    // Phase 1: block b sums in[b], in[b + blocks], ... with its threads' strided loads.
    __shared__ int s[128];
    int mine = 0;
    for (int i = int(grid.thread_rank()); i < n; i += int(grid.size())) mine += in[i] * (round + 1);
    s[threadIdx.x] = mine;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
      if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
      __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
    grid.sync();
    // Phase 2: every block reads every block's partial sum.
    if (threadIdx.x == 0) {
      int total = 0;
      for (int b = 0; b < int(gridDim.x); ++b) total += partial[b];
      out[round * gridDim.x + blockIdx.x] = total;
    }
    grid.sync();
  }
}

int main(int argc, char** argv) {
  const int n = 10000, blocks = 12, threads = 128;
  int h_in[n];
  long long want = 0;
  for (int i = 0; i < n; ++i) {
    h_in[i] = i % 7 - 2;
    want += h_in[i];
  }
  int *d_in, *d_partial, *d_out;
  cudaMalloc(&d_in, sizeof h_in);
  cudaMalloc(&d_partial, blocks * sizeof(int));
  cudaMalloc(&d_out, 2 * blocks * sizeof(int));
  cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  int n_arg = n;
  void* args[] = {&d_in, &d_partial, &d_out, &n_arg};
  int bad = 0;
  if (argc > 1 && argv[1][0] == 'p') {
    two_phase_sum<<<blocks, threads>>>(d_in, d_partial, d_out, n);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("plain launch: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 2;
  }
  int coop = 0;
  cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0);
  for (int way = 0; way < 2; ++way) {
    cudaMemset(d_out, 0, 2 * blocks * sizeof(int));
    cudaError_t e;
    if (way == 0) {
      e = cudaLaunchCooperativeKernel((void*)two_phase_sum, dim3(blocks), dim3(threads), args, 0, 0);
    } else {
      cudaLaunchConfig_t config = {};
      cudaLaunchAttribute attr;
      attr.id = cudaLaunchAttributeCooperative;
      attr.val.cooperative = 1;
      config.gridDim = dim3(blocks);
      config.blockDim = dim3(threads);
      config.attrs = &attr;
      config.numAttrs = 1;
      e = cudaLaunchKernelExC(&config, (void*)two_phase_sum, args);
    }
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    int h_out[2 * blocks];
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 2 * blocks; ++i) bad += e != cudaSuccess || h_out[i] != want * (i / blocks + 1);
    std::printf("%s: %s, sums %d and %d (want %lld and %lld)\n", way ? "cudaLaunchKernelExC" : "cudaLaunchCooperativeKernel",
                cudaGetErrorString(e), h_out[0], h_out[blocks], want, 2 * want);
  }
  // One block more than the device holds at once: refused before anything runs.
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, two_phase_sum, threads, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const cudaError_t big = cudaLaunchCooperativeKernel((void*)two_phase_sum, dim3(per_sm * sms + 1), dim3(threads), args, 0, 0);
  std::printf("cooperative launch attribute %d; %d blocks: %s\n", coop, per_sm * sms + 1, cudaGetErrorName(big));
  bad += coop != 1 || big != cudaErrorCooperativeLaunchTooLarge;
  // How many clusters of 2 the device holds at once (CUTLASS asks before a cluster launch):
  // at most half its resident blocks.
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 2, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
  config.gridDim = dim3(2);
  config.blockDim = dim3(threads);
  config.attrs = &attr;
  config.numAttrs = 1;
  int clusters = 0;
  const cudaError_t ce = cudaOccupancyMaxActiveClusters(&clusters, (void*)two_phase_sum, &config);
  const bool fits = clusters > 0 && clusters <= per_sm * sms / 2;
  std::printf("cudaOccupancyMaxActiveClusters: %s, %s\n", cudaGetErrorString(ce), fits ? "within the resident blocks" : "wrong");
  bad += ce != cudaSuccess || !fits;
  std::printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
