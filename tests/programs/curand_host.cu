// tests/programs/curand_host.cu — cuRAND's host API, as a Monte Carlo estimate of pi starts:
// a generator fills an array with uniform numbers on the device, a kernel counts the points
// inside the quarter circle. Exits 1 with the status when a cuRAND call fails.
#include <cstdio>
#include <cuda_runtime.h>
#include <curand.h>

__global__ void inside(const float* xy, int n, unsigned* hits) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && xy[2 * i] * xy[2 * i] + xy[2 * i + 1] * xy[2 * i + 1] <= 1.0f) atomicAdd(hits, 1u);
}

int main() {
  const int n = 1 << 12;
  float* xy;
  unsigned* hits;
  cudaMalloc(&xy, 2 * n * sizeof(float));
  cudaMalloc(&hits, sizeof(unsigned));
  cudaMemset(hits, 0, sizeof(unsigned));
  int version = 0;
  curandGetVersion(&version);
  std::printf("cuRAND %d\n", version);
  curandGenerator_t g;
  curandStatus_t s = curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);
  if (s == CURAND_STATUS_SUCCESS) s = curandSetPseudoRandomGeneratorSeed(g, 1234ull);
  if (s == CURAND_STATUS_SUCCESS) s = curandGenerateUniform(g, xy, 2 * n);
  if (s != CURAND_STATUS_SUCCESS) {
    std::printf("cuRAND failed: status %d\n", int(s));
    return 1;
  }
  inside<<<(n + 255) / 256, 256>>>(xy, n, hits);
  unsigned h = 0;
  cudaMemcpy(&h, hits, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("pi is about %.3f\n", 4.0 * h / n);
  curandDestroyGenerator(g);
  return 0;
}
