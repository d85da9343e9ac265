// tma_ring.cu — Hopper's way to fill shared memory: the tensor memory accelerator (TMA)
// copies whole 32 x 32 boxes of a matrix into a ring of shared buffers while one warp
// transposes the boxes that have already landed.
//   build/warpscope examples/tma_ring.cu --arg 256 --arg 0     (boxes land as they are in memory)
//   build/warpscope examples/tma_ring.cu --arg 256 --arg 128   (under the 128-byte swizzle)
// Warp 0 is the producer: its lane 0 asks the TMA for a box (one instruction moves 4 KiB)
// and counts the bytes on the stage's "full" mbarrier. Warp 1 is the consumer: it waits for
// the stage's phase, reads the box column by column (lane i reads row i), writes each column
// out as a row of the transpose, and frees the stage on its "empty" mbarrier.
// Try: run it with the swizzle argument 0, then 128, and compare the ring's loads: a column
// of a 128-byte-row box (nvcc reads it as 16-byte float4s, four columns at once) is 8-way
// without the swizzle and conflict-free with it.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>

constexpr int TILE = 32;             // a box: 32 rows of 32 floats, 128 bytes a row
constexpr int STAGES = 3;            // boxes that can be in flight at once
constexpr int TILES_PER_BLOCK = 4;   // boxes one block walks through, along a row of tiles
constexpr unsigned BOX_BYTES = TILE * TILE * sizeof(float);
constexpr int N_DEFAULT = 256;       // the matrix's edge when no argument gives one
// warpscope: shape d_in = N_DEFAULT x N_DEFAULT
// warpscope: shape d_out = N_DEFAULT x N_DEFAULT

__device__ unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ void wait_phase(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n @!done bra WAIT;\n}"
      ::"r"(bar), "r"(parity) : "memory");
}

// Where element (row, col) of a box lies in its buffer: under the 128-byte swizzle the
// 16-byte chunk col / 4 of row `row` is stored at chunk (col / 4) ^ (row % 8).
__device__ int box_index(int row, int col, int swizzle) {
  const int chunk = swizzle == 128 ? (col / 4) ^ (row % 8) : col / 4;
  return row * TILE + chunk * 4 + col % 4;
}

__global__ void transposeTma(const __grid_constant__ CUtensorMap map, float* out, int n, int swizzle) {
  __shared__ alignas(1024) float ring[STAGES][TILE * TILE];
  __shared__ alignas(8) uint64_t full[STAGES], empty[STAGES];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int tilesX = n / TILE, first = blockIdx.x * TILES_PER_BLOCK, y0 = blockIdx.y * TILE;
  const int tiles = min(TILES_PER_BLOCK, tilesX - first);
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&full[s])));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" ::"r"(shared_address(&empty[s])));
    }
    asm volatile("fence.proxy.async.shared::cta;");
  }
  __syncthreads();
  if (warp == 0) {  // the producer
    if (lane == 0)
      for (int t = 0; t < tiles; ++t) {
        const int s = t % STAGES;
        if (t >= STAGES) wait_phase(shared_address(&empty[s]), (t / STAGES - 1) % 2);  // the consumer is done with it
        const unsigned bar = shared_address(&full[s]);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(BOX_BYTES) : "memory");
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
            ::"r"(shared_address(ring[s])), "l"(&map), "r"((first + t) * TILE), "r"(y0), "r"(bar) : "memory");
      }
    return;
  }
  for (int t = 0; t < tiles; ++t) {  // the consumer
    const int s = t % STAGES;
    wait_phase(shared_address(&full[s]), (t / STAGES) % 2);
    const int x0 = (first + t) * TILE;
    for (int col = 0; col < TILE; ++col) {
      const float v = ring[s][box_index(lane, col, swizzle)];  // column `col`: lane i reads row i
      out[size_t(x0 + col) * n + y0 + lane] = v;               // row x0 + col of the transpose
    }
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(&empty[s])) : "memory");
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : N_DEFAULT;
  const int swizzle = argc > 2 ? atoi(argv[2]) : 128;
  if (n <= 0 || n % TILE || (swizzle != 0 && swizzle != 128)) {
    printf("usage: tma_ring [N, a multiple of 32] [swizzle: 0 or 128]\n");
    return 2;
  }
  std::vector<float> in(size_t(n) * n), got(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i % 1000) - 500.0f;
  float *d_in, *d_out;
  cudaMalloc(&d_in, in.size() * sizeof(float));
  cudaMalloc(&d_out, in.size() * sizeof(float));
  cudaMemcpy(d_in, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice);

  // The tensor map: the matrix's shape and row pitch, the box, and the swizzle the box lands under.
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess || !fn) {
    printf("no cuTensorMapEncodeTiled\n");
    return 1;
  }
  auto encode = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(fn);
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(n), cuuint64_t(n)}, pitch[1] = {cuuint64_t(n) * sizeof(float)};
  const cuuint32_t box[2] = {TILE, TILE}, step[2] = {1, 1};
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d_in, dims, pitch, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
             swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    printf("cuTensorMapEncodeTiled refused the map\n");
    return 1;
  }
  const int tilesX = n / TILE;
  const dim3 grid((tilesX + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK, tilesX);
  transposeTma<<<grid, 64>>>(map, d_out, n, swizzle);
  cudaMemcpy(got.data(), d_out, got.size() * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) wrong += got[size_t(c) * n + r] != in[size_t(r) * n + c];
  printf("transposeTma %dx%d, swizzle %d: %s\n", n, n, swizzle, wrong ? "WRONG" : "correct");
  cudaFree(d_in);
  cudaFree(d_out);
  return wrong ? 1 : 0;
}
