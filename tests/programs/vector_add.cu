// vector_add.cu — c = a + b, one thread per element, n not a multiple of the block.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void vectorAdd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  std::vector<float> ha(n), hb(n), hc(n);
  for (int i = 0; i < n; ++i) { ha[i] = float(i); hb[i] = 2.0f * i; }
  float *d_a, *d_b, *d_c;
  cudaMalloc(&d_a, n * sizeof(float));
  cudaMalloc(&d_b, n * sizeof(float));
  cudaMalloc(&d_c, n * sizeof(float));
  cudaMemcpy(d_a, ha.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, hb.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  int threads = 256, blocks = (n + threads - 1) / threads;
  vectorAdd<<<blocks, threads>>>(d_a, d_b, d_c, n);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) { printf("launch failed: %s\n", cudaGetErrorString(err)); return 1; }
  cudaMemcpy(hc.data(), d_c, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += hc[i] != 3.0f * i;
  printf("vectorAdd of %d elements: %s\n", n, bad ? "WRONG" : "correct");
  cudaFree(d_a); cudaFree(d_b); cudaFree(d_c);
  return bad ? 1 : 0;
}
