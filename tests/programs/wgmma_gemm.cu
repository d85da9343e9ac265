// wgmma_gemm.cu — Hopper's GEMM path at a teaching size: C (N x N, f32) = A (N x N, f16,
// row-major) x Bᵀ (B: N x N, f16, row-major, so each of its rows is a column of the product).
// Each block computes a 64 x 64 tile of C with two warpgroups: the producer's first thread
// brings 64 x 64 boxes of A and B by TMA (cp.async.bulk.tensor.2d under the 128-byte
// swizzle) into a 2-stage ring of shared memory, counted on "full" mbarriers; the consumer
// warpgroup waits for a stage, runs four wgmma.mma_async m64n64k16 from 128-byte-swizzle
// K-major descriptors (the k16 step j starting 32·j bytes into each row), waits for them,
// and frees the stage on its "empty" mbarrier. Checks C against the host's product (a
// tolerance: the tensor core truncates its sums) and prints "correct" or "WRONG";
// `wgmma_gemm N dump FILE` also writes C's bits to FILE. Build for sm_90a.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr int BM = 64, BN = 64, BK = 64, STAGES = 2;
constexpr uint32_t A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2;

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void bar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void bar_expect(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void bar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done)
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
}
__device__ __forceinline__ void tma_box(uint32_t dst, const CUtensorMap* map, uint32_t bar, int k, int row) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(k), "r"(row)
      : "memory");
}
// A K-major operand under the 128-byte swizzle: rows of 128 bytes, 8 rows (1024 bytes) an atom.
__device__ __forceinline__ uint64_t sw128(uint32_t addr) {
  return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

__device__ __forceinline__ void wgmma64(float (&d)[32], uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "
      "%14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(1));
}

__global__ void __launch_bounds__(256) wgmmaGemm(const __grid_constant__ CUtensorMap mapA,
                                                 const __grid_constant__ CUtensorMap mapB, float* C, int N) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)  // the sm_90a pass (nvcc also writes compute_90 PTX, which has no wgmma)
  __shared__ alignas(1024) uint8_t tiles[STAGES * (A_BYTES + B_BYTES)];
  __shared__ alignas(8) uint64_t bars[2 * STAGES];
  const uint32_t sA = smem_u32(tiles), sB = sA + STAGES * A_BYTES;
  auto full = [&](int s) { return smem_u32(&bars[s]); };
  auto empty = [&](int s) { return smem_u32(&bars[STAGES + s]); };
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      bar_init(full(s), 1);
      bar_init(empty(s), 128);  // every consumer thread frees the stage
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, tiles_k = N / BK;
  if (threadIdx.x < 128) {  // the producer warpgroup: one thread issues the copies
    if (threadIdx.x == 0)
      for (int kt = 0; kt < tiles_k; ++kt) {
        const int s = kt % STAGES;
        bar_wait(empty(s), ((kt / STAGES) & 1) ^ 1);  // the first round passes at once
        bar_expect(full(s), A_BYTES + B_BYTES);
        tma_box(sA + s * A_BYTES, &mapA, full(s), kt * BK, m0);
        tma_box(sB + s * B_BYTES, &mapB, full(s), kt * BK, n0);
      }
    return;
  }
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  for (int kt = 0; kt < tiles_k; ++kt) {
    const int s = kt % STAGES;
    bar_wait(full(s), (kt / STAGES) & 1);
    const uint64_t da = sw128(sA + s * A_BYTES), db = sw128(sB + s * B_BYTES);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int j = 0; j < BK / 16; ++j) wgmma64(d, da + 2 * j, db + 2 * j);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    bar_arrive(empty(s));
  }
  // Warp w of the consumer warpgroup holds rows 16w..16w+15: lane (g, t) has d[4j..4j+1] at
  // row g, columns 8j+2t..+1, and d[4j+2..4j+3] eight rows below.
  const int w = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  for (int j = 0; j < BN / 8; ++j) {
    float* row = C + size_t(m0 + 16 * w + g) * N + n0 + 8 * j + 2 * t;
    row[0] = d[4 * j];
    row[1] = d[4 * j + 1];
    row[8 * N] = d[4 * j + 2];
    row[8 * N + 1] = d[4 * j + 3];
  }
#else
  __trap();
#endif
}

int main(int argc, char** argv) {
  const int N = argc > 1 ? atoi(argv[1]) : 128;
  if (N <= 0 || N % 64) {
    printf("N must be a multiple of 64\n");
    return 2;
  }
  std::vector<__half> hA(size_t(N) * N), hB(size_t(N) * N);
  std::vector<float> fA(hA.size()), fB(hB.size()), hC(size_t(N) * N);
  uint32_t seed = 7;
  auto rnd = [&] {
    seed = seed * 1664525u + 1013904223u;
    return float(int(seed >> 9) % 4096 - 2048) / 1024.0f;
  };
  for (size_t i = 0; i < hA.size(); ++i) hA[i] = __float2half(rnd()), fA[i] = __half2float(hA[i]);
  for (size_t i = 0; i < hB.size(); ++i) hB[i] = __float2half(rnd()), fB[i] = __half2float(hB[i]);
  __half *dA, *dB;
  float* dC;
  cudaMalloc(&dA, hA.size() * 2);
  cudaMalloc(&dB, hB.size() * 2);
  cudaMalloc(&dC, hC.size() * 4);
  cudaMemcpy(dA, hA.data(), hA.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, hB.data(), hB.size() * 2, cudaMemcpyHostToDevice);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess || !fn) {
    printf("no cuTensorMapEncodeTiled\n");
    return 1;
  }
  auto encode = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(fn);
  CUtensorMap maps[2];
  const __half* srcs[2] = {dA, dB};
  for (int i = 0; i < 2; ++i) {
    const cuuint64_t dims[2] = {cuuint64_t(N), cuuint64_t(N)}, strides[1] = {cuuint64_t(N) * 2};
    const cuuint32_t box[2] = {BK, 64}, elem[2] = {1, 1};
    if (encode(&maps[i], CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<__half*>(srcs[i]), dims, strides, box, elem,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
      printf("the tensor map was refused\n");
      return 1;
    }
  }
  wgmmaGemm<<<dim3(N / BN, N / BM), 256>>>(maps[0], maps[1], dC, N);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    printf("wgmmaGemm failed: %s\n", cudaGetErrorString(e));
    return 1;
  }
  cudaMemcpy(hC.data(), dC, hC.size() * 4, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int r = 0; r < N; ++r)
    for (int c = 0; c < N; ++c) {
      double want = 0;
      for (int k = 0; k < N; ++k) want += double(fA[size_t(r) * N + k]) * fB[size_t(c) * N + k];
      bad += std::fabs(hC[size_t(r) * N + c] - want) > 1e-3 * (1 + std::fabs(want));
    }
  if (argc == 4 && std::strcmp(argv[2], "dump") == 0) {
    FILE* f = std::fopen(argv[3], "wb");
    std::fwrite(hC.data(), 4, hC.size(), f);
    std::fclose(f);
  }
  printf("wgmmaGemm %dx%d: %s\n", N, N, bad ? "WRONG" : "correct");
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  return bad ? 1 : 0;
}
