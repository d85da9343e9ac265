// async_copy.cu — a tile loop that double-buffers global memory into shared memory with
// cp.async (written as the PTX ISA spells it, so that each copy is a line of this file):
// while the warp computes on tile k, the copy of tile k+1 is in flight. Each tile is 64 floats of `a`, copied 16 bytes a lane by 16 lanes,
// and 32 floats of `b`, copied 4 bytes a lane by all 32; the sum of a·b over the tiles is
// checked against the CPU's.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

constexpr int kTiles = 8;  // tiles per block

// Copies n bytes (4, 8 or 16) from global to shared memory without waiting for them; .cg
// (16 bytes only) leaves L1 out. They land at the wait that covers their group.
#define COPY_ASYNC_CG(dst, src, n) \
  asm volatile("cp.async.cg.shared.global [%0], [%1], %2;" ::"r"(shared_address(dst)), "l"(src), "n"(n) : "memory")
#define COPY_ASYNC_CA(dst, src, n) \
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(shared_address(dst)), "l"(src), "n"(n) : "memory")
#define COMMIT_GROUP() asm volatile("cp.async.commit_group;" ::: "memory")
#define WAIT_GROUP(n) asm volatile("cp.async.wait_group %0;" ::"n"(n) : "memory")

__device__ unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__global__ void tiledAsync(const float* a, const float* b, float* out) {
  __shared__ __align__(16) float tileA[2][64];  // 16 lanes x 16 bytes
  __shared__ float tileB[2][32];                // 32 lanes x 4 bytes
  const int lane = threadIdx.x;
  const float* blockA = a + blockIdx.x * kTiles * 64;
  const float* blockB = b + blockIdx.x * kTiles * 32;
  // Tile k into buffer k % 2, as one group.
  auto issue = [&](int k) {
    if (lane < 16) COPY_ASYNC_CG(&tileA[k % 2][lane * 4], &blockA[k * 64 + lane * 4], 16);
    COPY_ASYNC_CA(&tileB[k % 2][lane], &blockB[k * 32 + lane], 4);
    COMMIT_GROUP();
  };
  issue(0);
  float acc = 0;
#pragma unroll 1
  for (int k = 0; k < kTiles; ++k) {
    if (k + 1 < kTiles) issue(k + 1);
    else COMMIT_GROUP();  // an empty group: one group a tile, so that the wait below counts alike
    WAIT_GROUP(1);        // tile k has landed; tile k+1 may still be in flight
    __syncthreads();
    const float* t = tileA[k % 2];
    acc += (t[2 * lane] + t[2 * lane + 1]) * tileB[k % 2][lane];
    __syncthreads();  // every lane is done with buffer k % 2 before tile k+2 is copied there
  }
  out[blockIdx.x * 32 + lane] = acc;
}

int main() {
  const int blocks = 4;
  std::vector<float> a(blocks * kTiles * 64), b(blocks * kTiles * 32), out(blocks * 32);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) - 3;
  for (size_t i = 0; i < b.size(); ++i) b[i] = float(i % 5) + 1;
  float *d_a, *d_b, *d_out;
  cudaMalloc(&d_a, a.size() * sizeof(float));
  cudaMalloc(&d_b, b.size() * sizeof(float));
  cudaMalloc(&d_out, out.size() * sizeof(float));
  cudaMemcpy(d_a, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
  tiledAsync<<<blocks, 32>>>(d_a, d_b, d_out);
  cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int blk = 0; blk < blocks; ++blk)
    for (int lane = 0; lane < 32; ++lane) {
      float want = 0;
    #pragma unroll 1
  for (int k = 0; k < kTiles; ++k) {
        const float* t = &a[(blk * kTiles + k) * 64];
        want += (t[2 * lane] + t[2 * lane + 1]) * b[(blk * kTiles + k) * 32 + lane];
      }
      wrong += out[blk * 32 + lane] != want;
    }
  printf("%s: %d of %d sums differ\n", wrong ? "FAILED" : "PASSED", wrong, blocks * 32);
  return wrong ? 1 : 0;
}
