// atomic_patterns.cu — how lanes that share some addresses take turns: one warp adds its lane
// number to word where[lane] of a shared array, then of a global one, for four patterns
// (docs/validation.md, "Atomics"). Launch k of each kernel runs pattern k:
//   0  lanes 0-15 on word 0, 16-31 on word 1     (one sector; banks 0 and 1)
//   1  lanes 0-15 on word 0, 16-31 on word 32    (two sectors; both in bank 0)
//   2  lane % 4: 4 words, 8 lanes on each        (one sector; banks 0-3)
//   3  lane % 2 * 8: words 0 and 8, 16 lanes on each (two sectors; banks 0 and 8)
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define WORDS 64
#define REPS 16

__global__ void sharedPattern(const int* where, unsigned* out) {
  __shared__ unsigned counts[WORDS];
  counts[threadIdx.x] = counts[threadIdx.x + 32] = 0;
  __syncwarp();
  const int w = where[threadIdx.x];
#pragma unroll 1
  for (int r = 0; r < REPS; ++r) atomicAdd(&counts[w], threadIdx.x);
  __syncwarp();
  out[threadIdx.x] = counts[threadIdx.x];
  out[threadIdx.x + 32] = counts[threadIdx.x + 32];
}

__global__ void globalPattern(const int* where, unsigned* out) {
  const int w = where[threadIdx.x];
#pragma unroll 1
  for (int r = 0; r < REPS; ++r) atomicAdd(&out[w], threadIdx.x);
}

int main() {
  int* d_where;
  unsigned* d_out;
  cudaMalloc(&d_where, 32 * sizeof(int));
  cudaMalloc(&d_out, WORDS * sizeof(unsigned));
  int bad = 0;
  for (int p = 0; p < 4; ++p) {
    std::vector<int> where(32);
    std::vector<unsigned> expect(WORDS, 0), got(WORDS);
    for (int l = 0; l < 32; ++l) {
      where[l] = p == 0 ? l / 16 : p == 1 ? l / 16 * 32 : p == 2 ? l % 4 : l % 2 * 8;
      expect[where[l]] += l * REPS;
    }
    cudaMemcpy(d_where, where.data(), 32 * sizeof(int), cudaMemcpyHostToDevice);
    for (int k = 0; k < 2; ++k) {
      cudaMemset(d_out, 0, WORDS * sizeof(unsigned));
      if (k == 0) sharedPattern<<<1, 32>>>(d_where, d_out);
      else globalPattern<<<1, 32>>>(d_where, d_out);
      cudaMemcpy(got.data(), d_out, WORDS * sizeof(unsigned), cudaMemcpyDeviceToHost);
      bad += got != expect;
    }
  }
  printf("atomic patterns: %s\n", bad ? "WRONG" : "correct");
  cudaFree(d_where);
  cudaFree(d_out);
  return bad ? 1 : 0;
}
