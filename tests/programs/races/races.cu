// races.cu — shared-memory races on purpose, and their race-free twins: each kernel runs one
// block of two warps (64 threads). The emulated device reports a race where two warps reach
// one shared word between the same two barriers, one of them writing, not both atomically;
// tests/ptx/fixtures/races.ptx is this file's PTX (nvcc -ptx -lineinfo -O3 -arch=sm_90).
//   build/warpscope run tests/programs/races/races.cu
#include <cstdio>

// Each thread writes its word, then reads the other warp's with no barrier between: a race
// (on the emulated device warp 0 reads before warp 1 writes; a GPU may run either first).
__global__ void raceNoBarrier(int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = t;                   // RACE-WRITE
  out[t] = s[63 - t];         // RACE-READ
}

// The same with the barrier: no race.
__global__ void barrierBetween(int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  out[t] = s[63 - t];
}

// Every thread adds to one word atomically: no race; the total read after a barrier.
__global__ void atomicsOnOneWord(int* out) {
  __shared__ int n;
  if (threadIdx.x == 0) n = 0;
  __syncthreads();
  atomicAdd(&n, 1);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = n;
}

// An atomic add and a plain read of the same word with no barrier between: a race.
__global__ void atomicThenRead(int* out) {
  __shared__ int n;
  if (threadIdx.x == 0) n = 0;
  __syncthreads();
  atomicAdd(&n, int(threadIdx.x));  // ATOMIC-ADD
  out[threadIdx.x] = n;             // ATOMIC-READ
}

// Threads of one warp only: its lanes run in lock step here, so nothing is reported (on a GPU
// a __syncwarp() belongs between the write and the read).
__global__ void oneWarpOnly(int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  if (t < 32) {
    s[t] = t;
    out[t] = s[31 - t];
  }
}

// Bytes: the warps write neighbouring bytes of one word (32..33 and 34..35), never the same
// byte: no race.
__global__ void neighbouringBytes(int* out) {
  __shared__ char c[80];
  const int t = threadIdx.x;
  c[t + 2] = char(t);
  __syncthreads();
  out[t] = c[t + 2];
}

// Twelve write lines and twelve read lines racing: more pairs of lines than a launch keeps.
__global__ void manyRaces(int* out) {
  __shared__ volatile int s[64];
  const int t = threadIdx.x, o = t ^ 32;
  int v = 0;
  s[t] = 1; v += s[o];
  s[t] = 2; v += s[o];
  s[t] = 3; v += s[o];
  s[t] = 4; v += s[o];
  s[t] = 5; v += s[o];
  s[t] = 6; v += s[o];
  s[t] = 7; v += s[o];
  s[t] = 8; v += s[o];
  s[t] = 9; v += s[o];
  s[t] = 10; v += s[o];
  s[t] = 11; v += s[o];
  s[t] = 12; v += s[o];
  out[t] = v;
}

int main() {
  int* d_out;
  cudaMalloc(&d_out, 64 * sizeof(int));
  raceNoBarrier<<<1, 64>>>(d_out);
  barrierBetween<<<1, 64>>>(d_out);
  atomicsOnOneWord<<<1, 64>>>(d_out);
  int n = 0;
  cudaMemcpy(&n, d_out, sizeof(int), cudaMemcpyDeviceToHost);
  atomicThenRead<<<1, 64>>>(d_out);
  oneWarpOnly<<<1, 64>>>(d_out);
  neighbouringBytes<<<1, 64>>>(d_out);
  manyRaces<<<1, 64>>>(d_out);
  cudaDeviceSynchronize();
  cudaFree(d_out);
  printf("%d threads added one each: %d (%s)\n", 64, n, n == 64 ? "correct" : "WRONG");
  return n == 64 ? 0 : 1;
}
