// tma_store_race.cu — a bulk store issued before the block's barrier: every thread writes
// its word of a shared buffer, and thread 0 hands the buffer to the copy engine
// (cp.async.bulk.global.shared::cta.bulk_group) without waiting for the other warps. The
// copy reads words the other warps may not have written yet: a race between their stores
// and the bulk copy's read, which warpscope names (the line of each end).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void storeTooSoon(unsigned* out) {
  __shared__ alignas(128) unsigned buf[128];
  const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(buf));
  buf[threadIdx.x] = threadIdx.x;  // RACE-WRITE
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  // missing: __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 512;" ::"l"(out), "r"(at) : "memory");  // RACE-READ
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

int main() {
  unsigned* d = nullptr;
  cudaMalloc(&d, 128 * sizeof(unsigned));
  storeTooSoon<<<1, 128>>>(d);
  unsigned h[128];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("storeTooSoon: done\n");
  cudaFree(d);
  return 0;
}
