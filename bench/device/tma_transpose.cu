// bench/device/tma_transpose.cu — how close a transpose moved by the tensor memory
// accelerator gets to the device's own copy on an H100/H200 (sm_90a): out = inᵀ, N×N floats,
// N = 8192 (and 4096). Standalone: no project header.
//
// The kernels:
//   tiled<TILE_ROWS>   the catalog's best classic rung: 32×32 tiles through shared memory
//                      padded to TILE+1, blockDim 32×TILE_ROWS, each thread 32/TILE_ROWS
//                      elements (the textbook's transposeCoalesced);
//   tma<TILES, WARPS>  a 32×32 box (128-byte rows) brought by cp.async.bulk.tensor under the
//                      128-byte swizzle onto an mbarrier, transposed inside shared memory by
//                      the block's threads (reading a column of the swizzled box: 16-byte
//                      chunk (c/4) ^ (r%8) of row r, no conflicts within a quarter warp),
//                      written back by a TMA store of the transposed box under the same
//                      swizzle (cp.async.bulk.tensor ... global.shared::cta.bulk_group);
//                      TILES boxes a block, all loads issued at once on their own mbarriers,
//                      each box stored as soon as it is transposed; the block waits only for
//                      the stores' reads of shared memory (wait_group.read 0) before it ends.
//   ring<STAGES, WARPS>  persistent blocks walking the boxes with a ring of STAGES loaded
//                      boxes on their own mbarriers and two transposed ones;
//   grid2<BX, BY, WARPS, YMAJOR, COPY>  BX × BY boxes a block; YMAJOR: blockIdx.x walks down
//                      the columns of boxes (the catalog's order=1); COPY: the box stored back
//                      untransposed (what the TMA alone reaches);
//   catalog_like<GLOBAL_MAP>  the catalog rung's order of events (mbarrier set up, block
//                      barrier, then the box asked for), its map read from global memory
//                      or from a __grid_constant__ parameter, under either L2 promotion.
// docs/validation.md section 18 has the H200's figures.
//   The yardstick: cudaMemcpyAsync device to device of the same N×N floats, and a plain copy
//   kernel (float4 loads and stores).
//
// Check: every element of each kernel's output against inᵀ (out preset to NaN).
// Timing: 3 warm-up launches, then 20 launches each between two events; the median.
//
// Build and run (no GPU needed to build):
//   nvcc -O3 -arch=sm_90a -std=c++17 -o /tmp/tt bench/device/tma_transpose.cu -lcuda && /tmp/tt [N]
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

constexpr int kTile = 32;

#define CHECK_CUDA(x)                                                                  \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

template <int ROWS>
__global__ void tiled(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[size_t(y + j) * n + x];
  __syncthreads();
  const int tx = blockIdx.y * kTile + threadIdx.x, ty = blockIdx.x * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += ROWS) out[size_t(ty + j) * n + tx] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void copy4(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x) out[i] = in[i];
}

// Byte offset of element (r, c) of a 32×32 float box under the 128-byte swizzle.
__device__ __forceinline__ uint32_t swz(int r, int c) {
  return uint32_t(r * 128 + ((((c >> 2) ^ (r & 7)) << 4) | ((c & 3) << 2)));
}

// Box `at` transposed into `bt` by the block's `threads` threads (row r of bt is column r of
// at, both under the 128-byte swizzle), then made visible to the TMA's store.
__device__ __forceinline__ void transpose_box(const unsigned char* at, unsigned char* bt, int threads) {
#pragma unroll
  for (int i = threadIdx.x; i < kTile * kTile; i += threads) {
    const int r = i >> 5, c = i & 31;
    *reinterpret_cast<float*>(bt + swz(r, c)) = *reinterpret_cast<const float*>(at + swz(c, r));
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// The PTX each TMA kernel below issues: an mbarrier set up for one arrival, a box asked for
// onto it (with its 4096 bytes expected), the wait for a phase, and a box stored from shared
// memory in a bulk group.
__device__ __forceinline__ void bar_init(uint32_t bar) { asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(bar)); }
__device__ __forceinline__ void box_load(uint32_t dst, const void* map, int x, int y, uint32_t bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" ::"r"(bar) : "memory");
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      ::"r"(dst), "l"(map), "r"(x), "r"(y), "r"(bar) : "memory");
}
__device__ __forceinline__ void bar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n @!done bra WAIT;\n}"
      ::"r"(bar), "r"(parity) : "memory");
}
__device__ __forceinline__ void box_store(const void* map, int x, int y, uint32_t src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
               ::"l"(map), "r"(x), "r"(y), "r"(src) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
__device__ __forceinline__ uint32_t smem_at(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// TILES boxes a block along x (one row of tiles), WARPS warps.
template <int TILES, int WARPS>
__global__ void __launch_bounds__(WARPS * 32) tma(const __grid_constant__ CUtensorMap inMap,
                                                  const __grid_constant__ CUtensorMap outMap) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char* a = smem;                           // TILES boxes as loaded
  unsigned char* b = smem + TILES * 4096;            // TILES boxes transposed
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem + 2 * TILES * 4096);
  const int x0 = blockIdx.x * TILES * kTile, y0 = blockIdx.y * kTile;
  if (threadIdx.x == 0) {
    for (int t = 0; t < TILES; ++t) {
      const uint32_t barAt = smem_at((bar + t));
      bar_init(barAt);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    for (int t = 0; t < TILES; ++t) {
      const uint32_t barAt = smem_at((bar + t));
      const uint32_t aAt = smem_at((a + t * 4096));
      box_load(aAt, &inMap, x0 + t * kTile, y0, barAt);
    }
  }
  __syncthreads();
  for (int t = 0; t < TILES; ++t) {
    const uint32_t barAt = smem_at((bar + t));
    bar_wait(barAt, 0);
    const unsigned char* at = a + t * 4096;
    unsigned char* bt = b + t * 4096;
    // Row r of the transposed box is column r of the loaded one.
    transpose_box(at, bt, WARPS * 32);
    __syncthreads();
    if (threadIdx.x == 0) {
      const uint32_t bAt = smem_at((bt));
      box_store(&outMap, y0, x0 + t * kTile, bAt);
    }
  }
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}


// A persistent ring: gridDim.x blocks walk the tiles (tile k of a block is blockIdx.x + k ·
// gridDim.x, row-major over the tile grid); STAGES loaded boxes in flight on their own
// mbarriers (the phase of slot s flips each time it is refilled), two transposed boxes so that
// a store may still be reading one while the threads fill the other.
template <int STAGES, int WARPS>
__global__ void __launch_bounds__(WARPS * 32) ring(const __grid_constant__ CUtensorMap inMap,
                                                   const __grid_constant__ CUtensorMap outMap, int n) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char* a = smem;                   // STAGES boxes as loaded
  unsigned char* b = smem + STAGES * 4096;   // 2 boxes transposed
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem + (STAGES + 2) * 4096);
  const int tx = n / kTile, total = tx * tx;
  const int count = blockIdx.x < total ? (total - 1 - int(blockIdx.x)) / int(gridDim.x) + 1 : 0;
  auto issue = [&](int k) {
    const int tile = int(blockIdx.x) + k * int(gridDim.x), s = k % STAGES;
    const uint32_t barAt = smem_at((bar + s));
    const uint32_t aAt = smem_at((a + s * 4096));
    box_load(aAt, &inMap, (tile % tx) * kTile, (tile / tx) * kTile, barAt);
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      const uint32_t barAt = smem_at((bar + s));
      bar_init(barAt);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (int k = 0; k < STAGES && k < count; ++k) issue(k);
  }
  __syncthreads();
  for (int k = 0; k < count; ++k) {
    const int s = k % STAGES, tile = int(blockIdx.x) + k * int(gridDim.x);
    const uint32_t barAt = smem_at((bar + s));
    const uint32_t parity = uint32_t(k / STAGES) & 1u;
    bar_wait(barAt, parity);
    const unsigned char* at = a + s * 4096;
    unsigned char* bt = b + (k & 1) * 4096;
    transpose_box(at, bt, WARPS * 32);
    __syncthreads();  // slot s read by all, bt written by all
    if (threadIdx.x == 0) {
      const uint32_t bAt = smem_at((bt));
      box_store(&outMap, (tile / tx) * kTile, (tile % tx) * kTile, bAt);
      if (k + STAGES < count) issue(k + STAGES);
      asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");  // the store of k-1 has read its box
    }
    __syncthreads();  // nobody fills b[(k+1)&1] before the store that read it is done
  }
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

// BX × BY boxes a block (a (32·BY) × (32·BX) region of in); YMAJOR: blockIdx.x walks down the
// columns of tiles (consecutive blocks write neighbouring boxes of a row of out); COPY: the
// box goes back where it came from untransposed (the TMA's own ceiling, no shared transpose).
template <int BX, int BY, int WARPS, bool YMAJOR, bool COPY>
__global__ void __launch_bounds__(WARPS * 32) grid2(const __grid_constant__ CUtensorMap inMap,
                                                    const __grid_constant__ CUtensorMap outMap) {
  constexpr int T = BX * BY;
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char* a = smem;
  unsigned char* b = smem + T * 4096;
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem + 2 * T * 4096);
  const int gx = YMAJOR ? blockIdx.y : blockIdx.x, gy = YMAJOR ? blockIdx.x : blockIdx.y;
  const int x0 = gx * BX * kTile, y0 = gy * BY * kTile;
  if (threadIdx.x == 0) {
    for (int t = 0; t < T; ++t) {
      const uint32_t barAt = smem_at((bar + t));
      bar_init(barAt);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (int t = 0; t < T; ++t) {
      const uint32_t barAt = smem_at((bar + t));
      const uint32_t aAt = smem_at((a + t * 4096));
      box_load(aAt, &inMap, x0 + (t % BX) * kTile, y0 + (t / BX) * kTile, barAt);
    }
  }
  __syncthreads();
  for (int t = 0; t < T; ++t) {
    const uint32_t barAt = smem_at((bar + t));
    bar_wait(barAt, 0);
    const int bx = x0 + (t % BX) * kTile, by = y0 + (t / BX) * kTile;
    if (COPY) {
      if (threadIdx.x == 0) {
        const uint32_t aAt = smem_at((a + t * 4096));
        box_store(&outMap, bx, by, aAt);
      }
      continue;
    }
    const unsigned char* at = a + t * 4096;
    unsigned char* bt = b + t * 4096;
    transpose_box(at, bt, WARPS * 32);
    __syncthreads();
    if (threadIdx.x == 0) {
      const uint32_t bAt = smem_at((bt));
      box_store(&outMap, by, bx, bAt);
    }
  }
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

__global__ void copy4_once(const float4* __restrict__ in, float4* __restrict__ out) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  out[i] = in[i];
}

// As grid2<1, 1, 4, true, false>, in the catalog's order of events: the mbarrier set up, the
// block's barrier, then the box asked for; GLOBAL_MAP: the maps read from global memory (a
// pointer), not from the kernel's parameters.
template <bool GLOBAL_MAP>
__global__ void __launch_bounds__(128) catalog_like(const __grid_constant__ CUtensorMap inP, const __grid_constant__ CUtensorMap outP,
                                                    const CUtensorMap* inG, const CUtensorMap* outG) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ uint64_t bar;
  const void* inMap = GLOBAL_MAP ? static_cast<const void*>(inG) : static_cast<const void*>(&inP);
  const void* outMap = GLOBAL_MAP ? static_cast<const void*>(outG) : static_cast<const void*>(&outP);
  unsigned char* a = smem;
  unsigned char* b = smem + 4096;
  const int x0 = blockIdx.y * kTile, y0 = blockIdx.x * kTile;
  const uint32_t barAt = smem_at((&bar));
  if (threadIdx.x == 0) {
    bar_init(barAt);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t aAt = smem_at((a));
    box_load(aAt, inMap, x0, y0, barAt);
  }
  bar_wait(barAt, 0);
  transpose_box(a, b, 128);
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t bAt = smem_at((b));
    box_store(outMap, y0, x0, bAt);
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

using Encode = decltype(&cuTensorMapEncodeTiled);

CUtensorMap map_of(Encode encode, float* p, int n, CUtensorMapL2promotion promo = CU_TENSOR_MAP_L2_PROMOTION_L2_256B) {
  CUtensorMap m;
  const cuuint64_t dims[2] = {cuuint64_t(n), cuuint64_t(n)}, strides[1] = {cuuint64_t(n) * sizeof(float)};
  const cuuint32_t box[2] = {kTile, kTile}, elem[2] = {1, 1};
  if (encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, p, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, promo, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::printf("cuTensorMapEncodeTiled refused the map\n");
    std::exit(1);
  }
  return m;
}

template <class F>
double median_ms(F&& launch) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int i = 0; i < 3; ++i) launch();
  std::vector<float> ms;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(e0);
    launch();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float t = 0;
    cudaEventElapsedTime(&t, e0, e1);
    ms.push_back(t);
  }
  CHECK_CUDA(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8192;
  const size_t count = size_t(n) * n, bytes = count * sizeof(float);
  std::vector<float> h(count), got(count);
  for (size_t i = 0; i < count; ++i) h[i] = float(i % 1000003);
  float *in, *out;
  CHECK_CUDA(cudaMalloc(&in, bytes));
  CHECK_CUDA(cudaMalloc(&out, bytes));
  CHECK_CUDA(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  const Encode encode = reinterpret_cast<Encode>(fn);
  const CUtensorMap inMap = map_of(encode, in, n), outMap = map_of(encode, out, n);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s, N = %d, %.0f MiB each way\n", prop.name, n, bytes / 1048576.0);

  const double memcpy_ms = median_ms([&] { cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice); });
  const double copy_ms = median_ms([&] {
    copy4<<<prop.multiProcessorCount * 8, 256>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), count / 4);
  });
  std::printf("%-26s %8.3f ms  %7.1f GB/s\n", "cudaMemcpy D2D", memcpy_ms, 2 * bytes / memcpy_ms / 1e6);
  std::printf("%-26s %8.3f ms  %7.1f GB/s  %6.1f%% of cudaMemcpy\n", "copy kernel (float4)", copy_ms,
              2 * bytes / copy_ms / 1e6, 100 * memcpy_ms / copy_ms);

  auto check = [&](const char* name, auto&& launch) {
    CHECK_CUDA(cudaMemset(out, 0xff, bytes));
    launch();
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) wrong += got[size_t(r) * n + c] != h[size_t(c) * n + r];
    if (wrong) {
      std::printf("%-26s FAIL: %zu elements wrong\n", name, wrong);
      return;
    }
    const double ms = median_ms(launch);
    std::printf("%-26s %8.3f ms  %7.1f GB/s  %6.1f%% of cudaMemcpy  %6.1f%% of the copy kernel\n", name, ms,
                2 * bytes / ms / 1e6, 100 * memcpy_ms / ms, 100 * copy_ms / ms);
  };
  const dim3 tiles(n / kTile, n / kTile);
  check("tiled 32x8 (TILE+1)", [&] { tiled<8><<<tiles, dim3(32, 8)>>>(in, out, n); });
  check("tiled 32x4 (TILE+1)", [&] { tiled<4><<<tiles, dim3(32, 4)>>>(in, out, n); });
  auto tma_run = [&](auto kernel, int boxes, int warps) {
    const int smem = 2 * boxes * 4096 + 1024 + 64;
    CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return [=, &inMap, &outMap] { kernel<<<dim3(n / kTile / boxes, n / kTile), warps * 32, smem>>>(inMap, outMap); };
  };
  check("tma 1 box, 4 warps", tma_run(tma<1, 4>, 1, 4));
  check("tma 2 boxes, 4 warps", tma_run(tma<2, 4>, 2, 4));
  check("tma 4 boxes, 4 warps", tma_run(tma<4, 4>, 4, 4));
  check("tma 4 boxes, 8 warps", tma_run(tma<4, 8>, 4, 8));
  check("tma 8 boxes, 8 warps", tma_run(tma<8, 8>, 8, 8));
  auto ring_run = [&](auto kernel, int stages, int warps, int per_sm) {
    const int smem = (stages + 2) * 4096 + 1024 + 64;
    CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return [=, &inMap, &outMap] { kernel<<<prop.multiProcessorCount * per_sm, warps * 32, smem>>>(inMap, outMap, n); };
  };
  auto g2_run = [&](auto kernel, int bx, int by, int warps, bool ymajor) {
    const int smem = 2 * bx * by * 4096 + 1024 + 64;
    CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const dim3 g = ymajor ? dim3(n / kTile / by, n / kTile / bx) : dim3(n / kTile / bx, n / kTile / by);
    return [=, &inMap, &outMap] { kernel<<<g, warps * 32, smem>>>(inMap, outMap); };
  };
  {
    const CUtensorMap i1 = map_of(encode, in, n, CU_TENSOR_MAP_L2_PROMOTION_L2_128B), o1 = map_of(encode, out, n, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
    CUtensorMap* maps;
    CHECK_CUDA(cudaMalloc(&maps, 4 * sizeof(CUtensorMap)));
    const CUtensorMap host[4] = {inMap, outMap, i1, o1};
    CHECK_CUDA(cudaMemcpy(maps, host, sizeof(host), cudaMemcpyHostToDevice));
    const int sm = 2 * 4096 + 1088;
    CHECK_CUDA(cudaFuncSetAttribute(catalog_like<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, sm));
    CHECK_CUDA(cudaFuncSetAttribute(catalog_like<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, sm));
    const dim3 g(n / kTile, n / kTile);
    check("catalog-like param 256B", [&] { catalog_like<false><<<g, 128, sm>>>(inMap, outMap, maps, maps + 1); });
    check("catalog-like global 256B", [&] { catalog_like<true><<<g, 128, sm>>>(inMap, outMap, maps, maps + 1); });
    check("catalog-like param 128B", [&] { catalog_like<false><<<g, 128, sm>>>(i1, o1, maps + 2, maps + 3); });
    check("catalog-like global 128B", [&] { catalog_like<true><<<g, 128, sm>>>(inMap, outMap, maps + 2, maps + 3); });
  }
  check("g2 1x1 2w ymajor", g2_run(grid2<1, 1, 2, true, false>, 1, 1, 2, true));
  check("g2 1x2 4w ymajor", g2_run(grid2<1, 2, 4, true, false>, 1, 2, 4, true));
  check("g2 1x4 4w ymajor", g2_run(grid2<1, 4, 4, true, false>, 1, 4, 4, true));
  check("g2 1x4 8w ymajor", g2_run(grid2<1, 4, 8, true, false>, 1, 4, 8, true));
  check("g2 2x1 4w ymajor", g2_run(grid2<2, 1, 4, true, false>, 2, 1, 4, true));
  {
    const CUtensorMap i0 = map_of(encode, in, n, CU_TENSOR_MAP_L2_PROMOTION_NONE), o0 = map_of(encode, out, n, CU_TENSOR_MAP_L2_PROMOTION_NONE);
    const CUtensorMap i1 = map_of(encode, in, n, CU_TENSOR_MAP_L2_PROMOTION_L2_128B), o1 = map_of(encode, out, n, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
    auto k = grid2<1, 1, 4, true, false>;
    CHECK_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * 4096 + 1088));
    const dim3 g(n / kTile, n / kTile);
    check("g2 1x1 4w ymajor promo0", [&] { k<<<g, 128, 2 * 4096 + 1088>>>(i0, o0); });
    check("g2 1x1 4w ymajor promo128", [&] { k<<<g, 128, 2 * 4096 + 1088>>>(i1, o1); });
  }
  check("g2 1x1 4w ymajor", g2_run(grid2<1, 1, 4, true, false>, 1, 1, 4, true));
  check("g2 1x1 2w", g2_run(grid2<1, 1, 2, false, false>, 1, 1, 2, false));
  check("g2 1x1 8w", g2_run(grid2<1, 1, 8, false, false>, 1, 1, 8, false));
  check("g2 2x2 4w", g2_run(grid2<2, 2, 4, false, false>, 2, 2, 4, false));
  check("g2 2x2 8w", g2_run(grid2<2, 2, 8, false, false>, 2, 2, 8, false));
  check("g2 1x2 4w", g2_run(grid2<1, 2, 4, false, false>, 1, 2, 4, false));
  check("g2 1x4 4w", g2_run(grid2<1, 4, 4, false, false>, 1, 4, 4, false));
  check("g2 2x2 4w ymajor", g2_run(grid2<2, 2, 4, true, false>, 2, 2, 4, true));
  {
    const double ms1 = median_ms([&] {
      copy4_once<<<unsigned(count / 4 / 256), 256>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out));
    });
    std::printf("%-26s %8.3f ms  %6.1f%% of cudaMemcpy\n", "copy4 one-shot", ms1, 100 * memcpy_ms / ms1);
    auto c1 = g2_run(grid2<1, 1, 1, false, true>, 1, 1, 1, false);
    const double ms2 = median_ms(c1);
    std::printf("%-26s %8.3f ms  %6.1f%% of cudaMemcpy\n", "tma copy 1 box (no T)", ms2, 100 * memcpy_ms / ms2);
    auto c2 = g2_run(grid2<2, 2, 1, false, true>, 2, 2, 1, false);
    const double ms3 = median_ms(c2);
    std::printf("%-26s %8.3f ms  %6.1f%% of cudaMemcpy\n", "tma copy 2x2 (no T)", ms3, 100 * memcpy_ms / ms3);
    const double ms4 = median_ms([&] { cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice); });
    std::printf("%-26s %8.3f ms\n", "cudaMemcpy again", ms4);
  }
  check("ring 4 stages, 4w, 4/SM", ring_run(ring<4, 4>, 4, 4, 4));
  check("ring 4 stages, 4w, 8/SM", ring_run(ring<4, 4>, 4, 4, 8));
  check("ring 8 stages, 4w, 4/SM", ring_run(ring<8, 4>, 8, 4, 4));
  check("ring 8 stages, 8w, 2/SM", ring_run(ring<8, 8>, 8, 8, 2));
  check("ring 8 stages, 8w, 4/SM", ring_run(ring<8, 8>, 8, 8, 4));
  check("ring 16 stages, 8w, 2/SM", ring_run(ring<16, 8>, 16, 8, 2));
  check("ring 2 stages, 4w, 12/SM", ring_run(ring<2, 4>, 2, 4, 12));
  return 0;
}
