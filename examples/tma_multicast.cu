// tma_multicast.cu — thread block clusters sharing one load: C = A·B in 32 x 32 tiles, the
// two CTAs of a cluster side by side along a row of C, so both need the same tiles of A.
//   build/warpscope examples/tma_multicast.cu --arg 128 --arg 0   (each CTA brings its own A tile)
//   build/warpscope examples/tma_multicast.cu --arg 128 --arg 1   (rank 0 multicasts A to both)
// Every k-step, thread 0 of each CTA expects an A box and a B box (4 KiB each) on its
// mbarrier; then, with multicast, only rank 0 asks the TMA for the A box, and the box lands
// in the shared memory of both CTAs (mask 0b11), counted on each one's mbarrier. Each CTA
// still brings its own B box. The cluster view (key 9) draws the fan-out.
// Try: compare the two runs' dA reads: with multicast the pair issues each A box once.
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

constexpr int TILE = 32;  // a box: 32 x 32 floats, 4 KiB
constexpr unsigned BOX_BYTES = TILE * TILE * sizeof(float);
constexpr int N_DEFAULT = 128;  // the matrices' edge when no argument gives one
// warpscope: shape dA = N_DEFAULT x N_DEFAULT
// warpscope: shape dB = N_DEFAULT x N_DEFAULT
// warpscope: shape dC = N_DEFAULT x N_DEFAULT

__device__ unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ void box_load(float* dst, const CUtensorMap* map, int x, int y, unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      ::"r"(shared_address(dst)), "l"(map), "r"(x), "r"(y), "r"(bar) : "memory");
}

// The same box into `dst` of every CTA of the cluster whose bit is set in `ctas`, each
// counting the bytes on its own mbarrier at `bar`'s offset.
__device__ void box_multicast(float* dst, const CUtensorMap* map, int x, int y, unsigned bar, unsigned short ctas) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;"
      ::"r"(shared_address(dst)), "l"(map), "r"(x), "r"(y), "r"(bar), "h"(ctas) : "memory");
}

__global__ void __cluster_dims__(2, 1, 1)
    clusterGemm(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB, float* C, int n,
                int multicast) {
  __shared__ alignas(128) float As[TILE * TILE], Bs[TILE * TILE];
  __shared__ alignas(8) uint64_t full;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;  // 256 threads: 8 rows of 32
  const int m0 = blockIdx.y * TILE, n0 = blockIdx.x * TILE;
  const unsigned bar = shared_address(&full);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  float acc[4] = {0, 0, 0, 0};
  for (int kt = 0; kt < n / TILE; ++kt) {
    if (threadIdx.x == 0)
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(2 * BOX_BYTES) : "memory");
    cluster.sync();  // both CTAs expect this step's bytes and are done with the last step's tiles
    if (threadIdx.x == 0) {
      if (!multicast) box_load(As, &mapA, kt * TILE, m0, bar);
      else if (rank == 0) box_multicast(As, &mapA, kt * TILE, m0, bar, 0x3);
      box_load(Bs, &mapB, n0, kt * TILE, bar);
    }
    asm volatile(
        "{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n @!done bra WAIT;\n}"
        ::"r"(bar), "r"(kt % 2) : "memory");
    for (int k = 0; k < TILE; ++k)
      for (int i = 0; i < 4; ++i) acc[i] += As[(ty + 8 * i) * TILE + k] * Bs[k * TILE + tx];
  }
  cluster.sync();  // no CTA leaves while its partner's copy may still land in it
  for (int i = 0; i < 4; ++i) C[size_t(m0 + ty + 8 * i) * n + n0 + tx] = acc[i];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : N_DEFAULT;
  const int multicast = argc > 2 ? atoi(argv[2]) : 1;
  if (n <= 0 || n % (2 * TILE) || (multicast != 0 && multicast != 1)) {
    printf("usage: tma_multicast [N, a multiple of 64] [multicast: 0 or 1]\n");
    return 2;
  }
  const size_t count = size_t(n) * n;
  std::vector<float> a(count), b(count), c(count);
  for (size_t i = 0; i < count; ++i) a[i] = float(int(i % 13) - 6) / 4, b[i] = float(int(i % 7) - 3) / 2;
  float *dA, *dB, *dC;
  cudaMalloc(&dA, count * sizeof(float));
  cudaMalloc(&dB, count * sizeof(float));
  cudaMalloc(&dC, count * sizeof(float));
  cudaMemcpy(dA, a.data(), count * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dB, b.data(), count * sizeof(float), cudaMemcpyHostToDevice);

  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess || !fn) {
    printf("no cuTensorMapEncodeTiled\n");
    return 1;
  }
  auto encode = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(fn);
  CUtensorMap mapA, mapB;
  const cuuint64_t dims[2] = {cuuint64_t(n), cuuint64_t(n)}, pitch[1] = {cuuint64_t(n) * sizeof(float)};
  const cuuint32_t box[2] = {TILE, TILE}, step[2] = {1, 1};
  for (auto [map, base] : {std::pair{&mapA, dA}, std::pair{&mapB, dB}})
    if (encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, pitch, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
      printf("cuTensorMapEncodeTiled refused a map\n");
      return 1;
    }
  clusterGemm<<<dim3(n / TILE, n / TILE), 256>>>(mapA, mapB, dC, n, multicast);
  if (cudaMemcpy(c.data(), dC, count * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("clusterGemm failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  int wrong = 0;
  for (int r = 0; r < n; ++r)
    for (int col = 0; col < n; ++col) {
      float want = 0;
      for (int k = 0; k < n; ++k) want += a[size_t(r) * n + k] * b[size_t(k) * n + col];
      wrong += std::fabs(c[size_t(r) * n + col] - want) > 1e-3f * (1 + std::fabs(want));
    }
  printf("clusterGemm %dx%d, multicast %d: %s\n", n, n, multicast, wrong ? "WRONG" : "correct");
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  return wrong ? 1 : 0;
}
