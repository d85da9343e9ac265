// bench/device/sgemm_shapes.cu — tile shapes and launch bounds for the warp-tiled SGEMM, tried
// before they go into the catalog: the hand-written twin of kernels/warptile.h (src/gpu/raw_matmul.cu)
// at other block and warp tiles, each checked against cuBLAS and timed beside it. Built alone:
//   nvcc -O3 -arch=sm_90 -std=c++17 -Isrc -o sgemm_shapes bench/device/sgemm_shapes.cu -lcublas
//   ./sgemm_shapes [N]
#include <cublas_v2.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>
#include <algorithm>

#include "gpu/raw_warptile.cuh"

// The twin with launch bounds: MINB blocks of its threads resident on an SM.
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN), MINB)
    raw_matmul_warptile(const float4* A, const float4* B, float4* C, int N, float alpha, float beta, int group) {
  ws::gpu::detail::warptile_body<BM, BN, BK, WM, WN, STAGES>(A, B, C, N, alpha, beta, group);
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
float run(const float* A, const float* B, float* C, int N, int group, const char* name, float cublas_ms,
          const std::vector<float>& want) {
  constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
  dim3 grid((N + BN - 1) / BN, (N + BM - 1) / BM);
  auto k = raw_matmul_warptile<BM, BN, BK, WM, WN, STAGES, MINB>;
  cudaMemset(C, 0, size_t(N) * N * 4);
  k<<<grid, THREADS>>>((const float4*)A, (const float4*)B, (float4*)C, N, 1.0f, 0.0f, group);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("%-36s launch failed: %s\n", name, cudaGetErrorString(e)); return 0; }
  std::vector<float> got(size_t(N) * N);
  cudaMemcpy(got.data(), C, got.size() * 4, cudaMemcpyDeviceToHost);
  double err = 0;
  for (size_t i = 0; i < got.size(); i += 997) err = std::max(err, std::fabs(double(got[i]) - want[i]) / (std::fabs(double(want[i])) + 1e-3));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ms;
  for (int r = 0; r < 30; ++r) {
    cudaEventRecord(a);
    k<<<grid, THREADS>>>((const float4*)A, (const float4*)B, (float4*)C, N, 1.0f, 0.0f, group);
    cudaEventRecord(b); cudaEventSynchronize(b);
    float t; cudaEventElapsedTime(&t, a, b); if (r >= 5) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  float med = ms[ms.size() / 2];
  cudaFuncAttributes at; cudaFuncGetAttributes(&at, k);
  printf("%-36s %7.3f ms  %5.1f%% of cuBLAS  regs %3d  smem %6zu  err %.1e\n", name, med, 100 * cublas_ms / med, at.numRegs, at.sharedSizeBytes, err);
  return med;
}
int main(int argc, char** argv) {
  int N = argc > 1 ? atoi(argv[1]) : 4096;
  size_t n = size_t(N) * N;
  std::vector<float> h(n);
  srand(3); for (auto& x : h) x = float(rand() % 17 - 8) / 8.0f;
  float *A, *B, *C, *D; cudaMalloc(&A, n * 4); cudaMalloc(&B, n * 4); cudaMalloc(&C, n * 4); cudaMalloc(&D, n * 4);
  cudaMemcpy(A, h.data(), n * 4, cudaMemcpyHostToDevice); cudaMemcpy(B, h.data(), n * 4, cudaMemcpyHostToDevice);
  cublasHandle_t hd; cublasCreate(&hd);
  float one = 1, zero = 0;
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ms;
  for (int r = 0; r < 30; ++r) {
    cudaEventRecord(a);
    cublasSgemm(hd, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, B, N, A, N, &zero, D, N);  // row-major C = A B
    cudaEventRecord(b); cudaEventSynchronize(b);
    float t; cudaEventElapsedTime(&t, a, b); if (r >= 5) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  float cb = ms[ms.size() / 2];
  std::vector<float> want(n); cudaMemcpy(want.data(), D, n * 4, cudaMemcpyDeviceToHost);
  printf("N=%d cuBLAS SGEMM %.3f ms (%.0f GFLOP/s)\n", N, cb, 2.0 * N * N * N / cb / 1e6);
  run<128, 128, 8, 64, 32, 2, 1>(A, B, C, N, 16, "128x128 bk8 w64x32 (tuned)", cb, want);
  run<128, 128, 8, 64, 32, 2, 2>(A, B, C, N, 16, "128x128 bk8 w64x32 lb(256,2)", cb, want);
  run<128, 128, 8, 32, 64, 2, 1>(A, B, C, N, 16, "128x128 bk8 w32x64", cb, want);
  run<128, 256, 8, 64, 64, 2, 1>(A, B, C, N, 16, "128x256 bk8 w64x64", cb, want);
  run<256, 128, 8, 64, 64, 2, 1>(A, B, C, N, 8, "256x128 bk8 w64x64 group8", cb, want);
  run<256, 128, 8, 64, 64, 2, 1>(A, B, C, N, 16, "256x128 bk8 w64x64", cb, want);
  run<128, 256, 8, 64, 64, 2, 1>(A, B, C, N, 8, "128x256 bk8 w64x64 group8", cb, want);
  run<128, 128, 8, 64, 32, 2, 1>(A, B, C, N, 16, "128x128 bk8 w64x32 (again)", cb, want);
  return 0;
}
