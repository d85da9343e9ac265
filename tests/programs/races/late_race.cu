// late_race.cu — 64 blocks of two warps alike but one: each thread stores its word of
// shared memory, waits, reads a word and stores its own again. Block 37 reads the word 32
// threads on (the other warp's), which that warp then writes with no barrier between: a
// race in that block alone, found past a small record cap (the engines' test).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void lateRace(int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  const int k = blockIdx.x == 37 ? (t + 32) % 64 : t;
  const int v = s[k];  // LATE-READ
  s[t] = v + 1;        // LATE-WRITE
  out[blockIdx.x * 64 + t] = v;
}

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 64 * 64 * sizeof(int));
  lateRace<<<64, 64>>>(d);
  int h[64 * 64];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int b = 0; b < 64; ++b)
    for (int t = 0; t < 64; ++t) bad += h[b * 64 + t] != (b == 37 ? (t + 32) % 64 : t) && b != 37;
  printf("lateRace: %s\n", bad ? "WRONG" : "done");
  cudaFree(d);
  return bad != 0;
}
