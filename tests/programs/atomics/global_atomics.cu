// global_atomics.cu — one warp's atomicAdd to global memory in four patterns, one kernel
// each, so that Nsight Compute can tell them apart (docs/validation.md, "Atomics"):
//   incSame      every lane adds 1 to one word it read at run time   RED.E.ADD, lanes take turns
//   addSame      every lane adds its own value to that word          RED.E.ADD, lanes take turns
//   addUniform   every lane adds its own value to sums[blockIdx.x]   ptxas: REDUX.SUM, one RED
//   addSpread    lane i adds to word i of its block's row            RED.E.ADD, 32 consecutive ints
// Each block runs one warp REPS times; the host checks the sums.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define WORDS 32
#define REPS 16

// `where` holds each block's row start: the compiler cannot know every lane reads the same one.
__global__ void incSame(const int* where, unsigned* sums) {
  const int w = where[blockIdx.x * WORDS + threadIdx.x];
#pragma unroll 1
  for (int r = 0; r < REPS; ++r) atomicAdd(&sums[w], 1u);
}

__global__ void addSame(const int* where, unsigned* sums) {
  const int w = where[blockIdx.x * WORDS + threadIdx.x];
#pragma unroll 1
  for (int r = 0; r < REPS; ++r) atomicAdd(&sums[w], threadIdx.x);
}

__global__ void addUniform(const int*, unsigned* sums) {
#pragma unroll 1
  for (int r = 0; r < REPS; ++r) atomicAdd(&sums[blockIdx.x * WORDS], threadIdx.x);
}

__global__ void addSpread(const int*, unsigned* sums) {
#pragma unroll 1
  for (int r = 0; r < REPS; ++r) atomicAdd(&sums[blockIdx.x * WORDS + threadIdx.x], threadIdx.x);
}

int main() {
  const int blocks = 4;
  std::vector<int> where(blocks * WORDS);
  for (int i = 0; i < blocks * WORDS; ++i) where[i] = i / WORDS * WORDS;
  int* d_where;
  unsigned* d_sums;
  cudaMalloc(&d_where, where.size() * sizeof(int));
  cudaMalloc(&d_sums, blocks * WORDS * sizeof(unsigned));
  cudaMemcpy(d_where, where.data(), where.size() * sizeof(int), cudaMemcpyHostToDevice);
  // What word 0 and word 1 of a block's row hold after each kernel (lanes add 0..31 = 496).
  struct Case { void (*k)(const int*, unsigned*); const char* name; unsigned w0, w1; };
  const Case cases[] = {{incSame, "incSame", 32 * REPS, 0},
                        {addSame, "addSame", 496 * REPS, 0},
                        {addUniform, "addUniform", 496 * REPS, 0},
                        {addSpread, "addSpread", 0, REPS}};
  int bad = 0;
  std::vector<unsigned> h(blocks * WORDS);
  for (const Case& c : cases) {
    cudaMemset(d_sums, 0, h.size() * sizeof(unsigned));
    c.k<<<blocks, WORDS>>>(d_where, d_sums);
    cudaMemcpy(h.data(), d_sums, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) bad += h[b * WORDS] != c.w0 || h[b * WORDS + 1] != c.w1;
    printf("%s: word 0 = %u, word 1 = %u\n", c.name, h[0], h[1]);
  }
  printf("global atomics: %s\n", bad ? "WRONG" : "correct");
  cudaFree(d_where);
  cudaFree(d_sums);
  return bad ? 1 : 0;
}
