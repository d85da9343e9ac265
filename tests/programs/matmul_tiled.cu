// matmul_tiled.cu — the textbook tiled SGEMM (C = A·B, N×N, TILE×TILE tiles in shared memory)
// warpscope: flops = 2*N*N*N; bytes = 3*4*N*N
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define TILE 16

__global__ void matmulTiled(const float* A, const float* B, float* C, int N) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int ph = 0; ph < (N + TILE - 1) / TILE; ++ph) {
    As[ty][tx] = (row < N && ph * TILE + tx < N) ? A[row * N + ph * TILE + tx] : 0.0f;
    Bs[ty][tx] = (ph * TILE + ty < N && col < N) ? B[(ph * TILE + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < N && col < N) C[row * N + col] = sum;
}

int main(int argc, char** argv) {
  int N = argc > 1 ? atoi(argv[1]) : 64;
  size_t bytes = size_t(N) * N * sizeof(float);
  std::vector<float> hA(N * N), hB(N * N), hC(N * N);
  for (int i = 0; i < N * N; ++i) { hA[i] = float(i % 7) - 3; hB[i] = float(i % 5) - 2; }
  float *dA, *dB, *dC;
  cudaMalloc(&dA, bytes);
  cudaMalloc(&dB, bytes);
  cudaMalloc(&dC, bytes);
  cudaMemcpy(dA, hA.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, hB.data(), bytes, cudaMemcpyHostToDevice);
  dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (N + TILE - 1) / TILE);
  matmulTiled<<<grid, block>>>(dA, dB, dC, N);
  cudaMemcpy(hC.data(), dC, bytes, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int r = 0; r < N; ++r)
    for (int c = 0; c < N; ++c) {
      float want = 0;
      for (int k = 0; k < N; ++k) want += hA[r * N + k] * hB[k * N + c];
      bad += std::fabs(hC[r * N + c] - want) > 1e-3f;
    }
  printf("matmulTiled %dx%d: %s\n", N, N, bad ? "WRONG" : "correct");
  cudaFree(dA); cudaFree(dB); cudaFree(dC);
  return bad ? 1 : 0;
}
