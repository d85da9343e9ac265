// shared_atomics.cu — one warp's atomicAdd to shared memory in four patterns, one kernel
// each, so that Nsight Compute can tell them apart (docs/validation.md, "Atomics"):
//   incSame      every lane adds 1 to one word it read at run time   ATOMS.POPC.INC
//   addSame      every lane adds its own value to that word          ATOMS.ADD, lanes take turns
//   addUniform   every lane adds its own value to counts[0]          ptxas: REDUX.SUM, one ATOMS
//   addSpread    lane i adds to word i                               ATOMS.ADD, no two lanes share
// Each block runs one warp REPS times, then writes its counts out for the check.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define WORDS 32
#define REPS 16

// `where` holds zeros: the compiler cannot know that every lane reads the same index.
__global__ void incSame(const int* where, unsigned* out) {
  __shared__ unsigned counts[WORDS];
  counts[threadIdx.x] = 0;
  __syncwarp();
  const int w = where[threadIdx.x];
#pragma unroll 1
  for (int r = 0; r < REPS; ++r) atomicAdd(&counts[w], 1u);
  __syncwarp();
  out[blockIdx.x * WORDS + threadIdx.x] = counts[threadIdx.x];
}

__global__ void addSame(const int* where, unsigned* out) {
  __shared__ unsigned counts[WORDS];
  counts[threadIdx.x] = 0;
  __syncwarp();
  const int w = where[threadIdx.x];
#pragma unroll 1
  for (int r = 0; r < REPS; ++r) atomicAdd(&counts[w], threadIdx.x);
  __syncwarp();
  out[blockIdx.x * WORDS + threadIdx.x] = counts[threadIdx.x];
}

__global__ void addUniform(const int*, unsigned* out) {
  __shared__ unsigned counts[WORDS];
  counts[threadIdx.x] = 0;
  __syncwarp();
#pragma unroll 1
  for (int r = 0; r < REPS; ++r) atomicAdd(&counts[0], threadIdx.x);
  __syncwarp();
  out[blockIdx.x * WORDS + threadIdx.x] = counts[threadIdx.x];
}

__global__ void addSpread(const int*, unsigned* out) {
  __shared__ unsigned counts[WORDS];
  counts[threadIdx.x] = 0;
  __syncwarp();
#pragma unroll 1
  for (int r = 0; r < REPS; ++r) atomicAdd(&counts[threadIdx.x], threadIdx.x);
  __syncwarp();
  out[blockIdx.x * WORDS + threadIdx.x] = counts[threadIdx.x];
}

int main() {
  const int blocks = 4;
  int* d_where;
  unsigned* d_out;
  cudaMalloc(&d_where, WORDS * sizeof(int));
  cudaMalloc(&d_out, blocks * WORDS * sizeof(unsigned));
  cudaMemset(d_where, 0, WORDS * sizeof(int));
  // What word 0 and word 1 of a block hold after each kernel (lanes 0..31 add 0..31 = 496).
  struct Case { void (*k)(const int*, unsigned*); const char* name; unsigned w0, w1; };
  const Case cases[] = {{incSame, "incSame", 32 * REPS, 0},
                        {addSame, "addSame", 496 * REPS, 0},
                        {addUniform, "addUniform", 496 * REPS, 0},
                        {addSpread, "addSpread", 0, REPS}};
  int bad = 0;
  std::vector<unsigned> h(blocks * WORDS);
  for (const Case& c : cases) {
    c.k<<<blocks, WORDS>>>(d_where, d_out);
    cudaMemcpy(h.data(), d_out, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) bad += h[b * WORDS] != c.w0 || h[b * WORDS + 1] != c.w1;
    printf("%s: word 0 = %u, word 1 = %u\n", c.name, h[0], h[1]);
  }
  printf("shared atomics: %s\n", bad ? "WRONG" : "correct");
  cudaFree(d_where);
  cudaFree(d_out);
  return bad ? 1 : 0;
}
