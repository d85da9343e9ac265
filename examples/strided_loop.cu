// strided_loop.cu — one copy, two ways of giving elements to threads: each thread a block of
// consecutive elements (a "CPU-style" loop), or a grid-stride loop. Same work, same result.
//   build/warpscope examples/strided_loop.cu
//   build/warpscope run examples/strided_loop.cu -- 64      (elements per thread)
// Try: predict the sectors per request of each copy's load before you look.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

// Thread t copies elements [t * per, (t + 1) * per): neighbouring lanes are `per` apart.
__global__ void copyChunked(const float* in, float* out, int n, int per) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < per; ++k) {
    int i = t * per + k;
    if (i < n) out[i] = in[i];
  }
}

// Thread t copies t, t + stride, t + 2 * stride, ...: neighbouring lanes are neighbours.
__global__ void copyGridStride(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = in[i];
}

int main(int argc, char** argv) {
  const int per = argc > 1 ? atoi(argv[1]) : 8;
  const int threads = 128, blocks = 4, n = threads * blocks * per;
  std::vector<float> h(n), r(n);
  for (int i = 0; i < n; ++i) h[i] = float(i);
  float *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  int bad = 0;
  for (int way = 0; way < 2; ++way) {
    cudaMemset(d_out, 0, n * sizeof(float));
    if (way == 0) copyChunked<<<blocks, threads>>>(d_in, d_out, n, per);
    else copyGridStride<<<blocks, threads>>>(d_in, d_out, n);
    cudaMemcpy(r.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) bad += r[i] != h[i];
  }
  printf("two copies of %d floats: %s\n", n, bad ? "WRONG" : "correct");
  return bad ? 1 : 0;
}
