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
      const uint32_t barAt = uint32_t(__cvta_generic_to_shared(bar + t));
      asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(barAt));
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    for (int t = 0; t < TILES; ++t) {
      const uint32_t barAt = uint32_t(__cvta_generic_to_shared(bar + t));
      const uint32_t aAt = uint32_t(__cvta_generic_to_shared(a + t * 4096));
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" ::"r"(barAt) : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
          ::"r"(aAt), "l"(&inMap), "r"(x0 + t * kTile), "r"(y0), "r"(barAt) : "memory");
    }
  }
  __syncthreads();
  for (int t = 0; t < TILES; ++t) {
    const uint32_t barAt = uint32_t(__cvta_generic_to_shared(bar + t));
    asm volatile(
        "{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n @!done bra WAIT;\n}"
        ::"r"(barAt) : "memory");
    const unsigned char* at = a + t * 4096;
    unsigned char* bt = b + t * 4096;
    // Row r of the transposed box is column r of the loaded one.
#pragma unroll
    for (int i = threadIdx.x; i < kTile * kTile; i += WARPS * 32) {
      const int r = i >> 5, c = i & 31;
      *reinterpret_cast<float*>(bt + swz(r, c)) = *reinterpret_cast<const float*>(at + swz(c, r));
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      const uint32_t bAt = uint32_t(__cvta_generic_to_shared(bt));
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                   ::"l"(&outMap), "r"(y0), "r"(x0 + t * kTile), "r"(bAt) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
  }
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

using Encode = decltype(&cuTensorMapEncodeTiled);

CUtensorMap map_of(Encode encode, float* p, int n) {
  CUtensorMap m;
  const cuuint64_t dims[2] = {cuuint64_t(n), cuuint64_t(n)}, strides[1] = {cuuint64_t(n) * sizeof(float)};
  const cuuint32_t box[2] = {kTile, kTile}, elem[2] = {1, 1};
  if (encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, p, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
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
  return 0;
}
