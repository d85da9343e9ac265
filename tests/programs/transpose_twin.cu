// transpose_twin.cu — the catalog's transpose_tiled written as a plain CUDA program: TILE×ROWS
// threads, each moving TILE/ROWS elements, the tile written column-wise and read row-wise,
// with and without the padding column. Its launches must equal the catalog kernel's,
// request for request (tests/program/test_program.cpp).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

template <int TILE, int ROWS, int PAD>
__global__ void transposeTiled(const float* in, float* out, int n, int m) {
  __shared__ float tile[TILE][TILE + PAD];
  int j = blockIdx.x * TILE + threadIdx.x;  // column of in
#pragma unroll
  for (int k = 0; k < TILE; k += ROWS) {
    int i = blockIdx.y * TILE + threadIdx.y + k;  // row of in
    if (i < n && j < m) tile[threadIdx.x][threadIdx.y + k] = in[i * m + j];
  }
  __syncthreads();
  int jo = blockIdx.y * TILE + threadIdx.x;  // column of out
#pragma unroll
  for (int k = 0; k < TILE; k += ROWS) {
    int io = blockIdx.x * TILE + threadIdx.y + k;  // row of out
    if (io < m && jo < n) out[io * n + jo] = tile[threadIdx.y + k][threadIdx.x];
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 64;  // a multiple of 32
  std::vector<float> h(n * n), r(n * n);
  for (int i = 0; i < n * n; ++i) h[i] = float(i);
  float *in, *out;
  cudaMalloc(&in, n * n * sizeof(float));
  cudaMalloc(&out, n * n * sizeof(float));
  cudaMemcpy(in, h.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(32, 8), grid(n / 32, n / 32);
  int bad = 0;
  for (int pad = 0; pad <= 1; ++pad) {
    cudaMemset(out, 0, n * n * sizeof(float));
    if (pad == 0) transposeTiled<32, 8, 0><<<grid, block>>>(in, out, n, n);
    else transposeTiled<32, 8, 1><<<grid, block>>>(in, out, n, n);
    cudaMemcpy(r.data(), out, n * n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) bad += r[j * n + i] != h[i * n + j];
  }
  printf("transpose twin %dx%d: %s\n", n, n, bad ? "WRONG" : "correct");
  return bad ? 1 : 0;
}
