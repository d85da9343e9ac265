// transpose.cu — a naive transpose and a shared-memory tiled one, with and without the
// padding column that removes the bank conflicts. Three launches: the Launch menu picks one.
//   build/warpscope examples/transpose.cu
// Try: in the naive kernel, swap the roles of x and y (write coalesced, read strided); in
// transposeTiled<0>, see line 27 conflict 32-way, then compare launch 3 (PAD = 1).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define TILE 32

__global__ void transposeNaive(float* out, const float* in, int n) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < n && y < n) out[x * n + y] = in[y * n + x];
}

template <int PAD>
__global__ void transposeTiled(float* out, const float* in, int n) {
  __shared__ float tile[TILE][TILE + PAD];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

int main() {
  const int n = 64;
  std::vector<float> h(n * n), r(n * n);
  for (int i = 0; i < n * n; ++i) h[i] = float(i);
  float *d_in, *d_out;
  cudaMalloc(&d_in, n * n * sizeof(float));   // warpscope: shape d_in = n x n
  cudaMalloc(&d_out, n * n * sizeof(float));  // warpscope: shape d_out = n x n
  cudaMemcpy(d_in, h.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(TILE, TILE), grid(n / TILE, n / TILE);
  int bad = 0;
  for (int v = 0; v < 3; ++v) {
    cudaMemset(d_out, 0, n * n * sizeof(float));
    if (v == 0) transposeNaive<<<grid, block>>>(d_out, d_in, n);
    if (v == 1) transposeTiled<0><<<grid, block>>>(d_out, d_in, n);
    if (v == 2) transposeTiled<1><<<grid, block>>>(d_out, d_in, n);
    cudaDeviceSynchronize();
    cudaMemcpy(r.data(), d_out, n * n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) bad += r[j * n + i] != h[i * n + j];
  }
  printf("3 transposes of %dx%d: %s\n", n, n, bad ? "WRONG" : "correct");
  cudaFree(d_in);
  cudaFree(d_out);
  return bad ? 1 : 0;
}
