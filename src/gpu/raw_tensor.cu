// src/gpu/raw_tensor.cu — the tensor-core HGEMM rungs tc_mma_tuned (TcMmaTuned in
// kernels/tensor.h) and tc_wgmma (TcWgmma in kernels/wgmma.h), written out by hand as plain
// CUDA with raw pointers and the instructions' own wrappers (warp_calls.cuh), statement for
// statement: their zero-cost twins.
// scripts/zero_cost_ptx.py requires each pair to be the same PTX; bench times them side by
// side. Deliberately not the kernel contract: plain CUDA, __syncthreads() and all.
#include <array>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "gpu/internal.h"
#include "gpu/warp_calls.cuh"

namespace ws::gpu::detail {
namespace {

// C = A·B: A N×N halves row-major, B N×N halves column-major, C N×N floats; every warp a
// 64×64 patch of C, k 64 a tile, STAGES tiles in flight, fragments a k16 step ahead, blocks
// in bands of `group` block rows.
template <int STAGES, int WARPS_M, int WARPS_N>
__global__ void raw_tc_mma_tuned(const half* A, const half* B, float* C, int N, int group) {
  constexpr int WTM = 64, WTN = 64, BM = WARPS_M * WTM, BN = WARPS_N * WTN, BK = 64;
  constexpr int THREADS = 32 * WARPS_M * WARPS_N, MT = WTM / 16, NT = WTN / 8, KK = BK / 16;
  constexpr int CHUNKS = BK / 8, PASS = THREADS / CHUNKS;
  constexpr int A_STAGE = BM * BK, B_STAGE = BN * BK, B_START = STAGES * A_STAGE;
  extern __shared__ half tiles[];
  float2* C2 = reinterpret_cast<float2*>(C);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  int by = blockIdx.y, bx = blockIdx.x;
  if (group > 1) {
    const int gx = int(gridDim.x), gy = int(gridDim.y), g = group;
    int id = by * gx + bx, band = g * gx, first = id / band * g;
    int rows = gy - first < g ? gy - first : g;
    by = first + id % band % rows;
    bx = id % band / rows;
  }
  const int rowBase = by * BM, colBase = bx * BN;
  const int wm = (warp / WARPS_N) * WTM, wn = (warp % WARPS_N) * WTN;
  const int KT = (N + BK - 1) / BK;
  const bool inside = rowBase + BM <= N && colBase + BN <= N && N % BK == 0;
  auto at = [](int r, int c) { return r * BK + ((c ^ (r % 8)) * 8); };

  const int cr = tid / CHUNKS, cc = tid % CHUNKS, to = at(cr, cc);
  auto copy_tile = [&](int s, int kt) {
    const int k = kt * BK + cc * 8, ea = s * A_STAGE + to, eb = B_START + s * B_STAGE + to;
    if (inside) {
#pragma unroll
      for (int i = 0; i < BM / PASS; ++i) ptx_op::cp_async<16>(&tiles[ea + i * PASS * BK], &A[(rowBase + cr + i * PASS) * N + k]);
#pragma unroll
      for (int i = 0; i < BN / PASS; ++i) ptx_op::cp_async<16>(&tiles[eb + i * PASS * BK], &B[(colBase + cr + i * PASS) * N + k]);
      return;
    }
    for (int i = 0; i < BM / PASS; ++i) {
      const int m = rowBase + cr + i * PASS, e = ea + i * PASS * BK;
      if (m < N && k < N)
        ptx_op::cp_async<16>(&tiles[e], &A[m * N + k]);
      else
        for (int j = 0; j < 8; ++j) tiles[e + j] = half(0.0f);
    }
    for (int i = 0; i < BN / PASS; ++i) {
      const int n = colBase + cr + i * PASS, e = eb + i * PASS * BK;
      if (n < N && k < N)
        ptx_op::cp_async<16>(&tiles[e], &B[n * N + k]);
      else
        for (int j = 0; j < 8; ++j) tiles[e + j] = half(0.0f);
    }
  };

  int fa[KK], fb[KK];
#pragma unroll
  for (int kk = 0; kk < KK; ++kk) {
    fa[kk] = at(wm + (lane & 15), kk * 2 + (lane >> 4));
    fb[kk] = B_START + at(wn + ((lane & 7) | ((lane >> 4) << 3)), kk * 2 + ((lane >> 3) & 1));
  }
  uint32_t af[2][MT][4], bf[2][NT / 2][4];
  auto load_fragments = [&](int buf, int s, int kk) {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) ptx_op::ldmatrix<4, false>(af[buf][mt], &tiles[fa[kk] + s * A_STAGE + mt * 16 * BK]);
#pragma unroll
    for (int np = 0; np < NT / 2; ++np) ptx_op::ldmatrix<4, false>(bf[buf][np], &tiles[fb[kk] + s * B_STAGE + np * 16 * BK]);
  };
  float acc[MT][NT][4];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[mt][nt][i] = 0.0f;

  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) copy_tile(s, s);
    ptx_op::cp_async_commit();
  }
  ptx_op::cp_async_wait<STAGES - 2>();
  __syncthreads();
  load_fragments(0, 0, 0);
  int rs = 0, ws = STAGES - 1;
  for (int kt = 0; kt < KT; ++kt) {
#pragma unroll
    for (int kk = 0; kk < KK; ++kk) {
      if (kk == KK - 1) {
        ptx_op::cp_async_wait<STAGES - 2>();
        __syncthreads();
        rs = rs + 1 == STAGES ? 0 : rs + 1;
      }
      if (kk < KK - 1 || kt + 1 < KT) load_fragments((kk + 1) % 2, rs, (kk + 1) % KK);
      if (kk == 0) {
        if (kt + STAGES - 1 < KT) copy_tile(ws, kt + STAGES - 1);
        ptx_op::cp_async_commit();
        ws = ws + 1 == STAGES ? 0 : ws + 1;
      }
      const int b = kk % 2;
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int i = 0; i < NT; ++i) {
          const int nt = mt % 2 ? NT - 1 - i : i;
          const uint32_t bb[2] = {bf[b][nt / 2][(nt % 2) * 2], bf[b][nt / 2][(nt % 2) * 2 + 1]};
          ptx_op::mma_m16n8k16(acc[mt][nt], af[b][mt], bb);
        }
    }
  }
  ptx_op::cp_async_wait<0>();
  const int g = lane / 4, t = lane % 4, row0 = rowBase + wm, col0 = colBase + wn;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        int r = row0 + mt * 16 + g + 8 * h, c = col0 + nt * 8 + 2 * t;
        if (r < N && c < N) C2[(r * N + c) / 2] = float2{acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1]};
      }
}

// A TMA map as the catalog's kernels receive it (contract.h's Tma2D<const half>, laid out
// alike): the driver's map in global memory, the array, its shape, the box and the swizzle.
struct RawArray {
  const half* ptr;
  uint32_t id;
};
struct RawMap {
  const void* map;
  RawArray array;
  int rows, cols, box_rows, box_cols, swizzle;
};

// The Hopper rung, tc_wgmma (TcWgmma in kernels/wgmma.h), by hand: a producer warp feeding a
// ring of STAGES tiles of A (128 x 64) and B (BN x 64) by TMA, two consumer warpgroups
// running wgmma from shared memory.
template <int BN, int STAGES>
__global__ void __launch_bounds__(384, 1) raw_tc_wgmma(RawMap A, RawMap B, float* C, int N, int group) {
  constexpr int BM = 128, BK = 64, A_TILE = BM * BK, B_TILE = BN * BK;
  constexpr uint32_t STAGE_BYTES = (A_TILE + B_TILE) * 2;
  extern __shared__ __align__(1024) half ring_storage[];
  half* ring = ring_storage;
  __shared__ __align__(16) uint64_t full[STAGES];
  __shared__ __align__(16) uint64_t empty[STAGES];
  const int gx = N / BN, gy = N / BM, tiles = gx * gy, kt = N / BK;
  const int first = int(blockIdx.y * gridDim.x + blockIdx.x), step = int(gridDim.x * gridDim.y);
  const int t = threadIdx.x, wg = t / 128;
  const ptx_op::PlainTma tma;  // the warp's TMA and mbarrier calls, acting in lane 0
  if (t < 32)
    for (int s = 0; s < STAGES; ++s) {
      tma.mbarrier_init(full[s], 1);
      tma.mbarrier_init(empty[s], 8);
    }
  __syncthreads();
  // Tile `tile` of C when tiles go in bands of `group` tile rows.
  auto band = [&](int tile, int& by, int& bx) {
    int span = group * gx, top = tile / span * group;
    int rows = gy - top < group ? gy - top : group;
    by = top + tile % span % rows;
    bx = tile % span / rows;
  };
  if (wg == 0) {
    if (t < 32)
      for (int tile = first, k = 0; tile < tiles; tile += step) {
        int by = tile / gx, bx = tile % gx;
        if (group > 1) band(tile, by, bx);
        const int m0 = by * BM, n0 = bx * BN;
        for (int kk = 0; kk < kt; ++kk, ++k) {
          const int s = k % STAGES;
          tma.mbarrier_wait(empty[s], ((k / STAGES) & 1) ^ 1);
          tma.mbarrier_arrive_expect_tx(full[s], STAGE_BYTES);
          tma.tma_load(ring[s * A_TILE], A, kk * BK, m0, full[s]);
          tma.tma_load(ring[STAGES * A_TILE + s * B_TILE], B, kk * BK, n0, full[s]);
        }
      }
    return;
  }
  const int rows = (wg - 1) * 64;
  const int w = t / 32 % 4, l = t % 32, g = l / 4, q = l % 4;
  float2* C2 = reinterpret_cast<float2*>(C);
  for (int tile = first, k = 0; tile < tiles; tile += step) {
    int by = tile / gx, bx = tile % gx;
    if (group > 1) band(tile, by, bx);
    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) d[i] = 0.0f;
    for (int kk = 0; kk < kt; ++kk, ++k) {
      const int s = k % STAGES;
      tma.mbarrier_wait(full[s], (k / STAGES) & 1);
      const uint64_t da = ptx_op::wgmma_desc(&ring[s * A_TILE + rows * BK]);
      const uint64_t db = ptx_op::wgmma_desc(&ring[STAGES * A_TILE + s * B_TILE]);
      ptx_op::wgmma_hold(d);
      ptx_op::wgmma_fence();
#pragma unroll
      for (int j = 0; j < BK / 16; ++j) {
        if constexpr (BN == 128)
          ptx_op::wgmma_m64n128k16(d, da + 2 * j, db + 2 * j);
        else
          ptx_op::wgmma_m64n256k16(d, da + 2 * j, db + 2 * j);
      }
      ptx_op::wgmma_commit();
      ptx_op::wgmma_wait<1>();
      ptx_op::wgmma_hold(d);
      if (kk > 0) tma.mbarrier_arrive(empty[(k - 1) % STAGES]);
    }
    ptx_op::wgmma_wait<0>();
    ptx_op::wgmma_hold(d);
    tma.mbarrier_arrive(empty[(k - 1) % STAGES]);
    const int r0 = by * BM + rows + 16 * w + g, c0 = bx * BN;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int c = c0 + 8 * j + 2 * q;
      C2[(r0 * N + c) / 2] = float2{d[4 * j], d[4 * j + 1]};
      C2[((r0 + 8) * N + c) / 2] = float2{d[4 * j + 2], d[4 * j + 3]};
    }
  }
}

using RawTensor = void (*)(const half*, const half*, float*, int, int);

class RawTensorRunner : public Runner {
 public:
  RawTensorRunner(RawTensor f, dim3 grid, int threads, uint32_t shared, DeviceArrays& a, int n, int group)
      : f_(f), grid_(grid), threads_(threads), shared_(shared), a_(a.ptr(0)), b_(a.ptr(1)), c_(a.ptr(2)), n_(n),
        group_(group) {
    check(cudaFuncSetAttribute(reinterpret_cast<const void*>(f_), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(shared_)),
          "asking for the shared memory of the raw tensor-core HGEMM");
  }
  void launch() override {
    f_<<<grid_, threads_, shared_, cudaStream_t(stream())>>>(static_cast<const half*>(a_), static_cast<const half*>(b_),
                                                             static_cast<float*>(c_), n_, group_);
    check(cudaGetLastError(), "launching the raw tensor-core HGEMM");
  }

 private:
  RawTensor f_;
  dim3 grid_;
  int threads_;
  uint32_t shared_;
  void *a_, *b_, *c_;
  int n_, group_;
};

using RawWgmma = void (*)(RawMap, RawMap, float*, int, int);

class RawWgmmaRunner : public Runner {
 public:
  RawWgmmaRunner(RawWgmma f, std::array<uint32_t, 3> grid, int bn, int stages, DeviceArrays& a, int n, int group)
      : f_(f), grid_(grid[0], grid[1], grid[2]), shared_(uint32_t(stages * (128 + bn) * 64 * 2)),
        c_(static_cast<float*>(a.ptr(2))), n_(n), group_(group) {
    // The maps the catalog's launcher makes for the rung (entries/wgmma.h), the same ones.
    a_ = RawMap{a.tma_map(0, 2, n, n, 128, 64, 128), {static_cast<const half*>(a.ptr(0)), 0}, n, n, 128, 64, 128};
    b_ = RawMap{a.tma_map(1, 2, n, n, bn, 64, 128), {static_cast<const half*>(a.ptr(1)), 1}, n, n, bn, 64, 128};
    check(cudaFuncSetAttribute(reinterpret_cast<const void*>(f_), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(shared_)),
          "asking for the shared memory of the raw wgmma HGEMM");
  }
  void launch() override {
    f_<<<grid_, 384, shared_, cudaStream_t(stream())>>>(a_, b_, c_, n_, group_);
    check(cudaGetLastError(), "launching the raw wgmma HGEMM");
  }

 private:
  RawWgmma f_;
  dim3 grid_;
  uint32_t shared_;
  RawMap a_{}, b_{};
  float* c_;
  int n_, group_;
};

}  // namespace

std::unique_ptr<Runner> raw_tensor_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a) {
  if (k.id == "tc_wgmma") {
#if defined(WS_SM90A)
    const int N = int(p.size()), bn = int(p["bn"]), stages = int(p["stages"]), group = int(p["group"]);
    const RawWgmma f = bn == 256 ? (stages == 4 ? raw_tc_wgmma<256, 4> : raw_tc_wgmma<256, 3>)
                                 : (stages == 4 ? raw_tc_wgmma<128, 4> : raw_tc_wgmma<128, 3>);
    // The grid the catalog's launch has (one block a tile, or the persistent one).
    return std::make_unique<RawWgmmaRunner>(f, catalog::launch_grid(k, p), bn, stages, a, N, group);
#else
    return nullptr;  // the rung itself is refused without sm_90a
#endif
  }
  if (k.id != "tc_mma_tuned") return nullptr;
  const int N = int(p.size()), group = int(p["group"]), stages = int(p["stages"]), warps = int(p["warps"]);
  auto make = [&](RawTensor f, int wn) {
    const int bm = 128, bn = 64 * wn, threads = 32 * 2 * wn;
    const uint32_t shared = uint32_t(stages * (bm + bn) * 64 * 2);
    return std::make_unique<RawTensorRunner>(f, dim3((N + bn - 1) / bn, (N + bm - 1) / bm), threads, shared, a, N,
                                             group);
  };
  if (warps == 4) return make(stages == 3 ? raw_tc_mma_tuned<3, 2, 2> : raw_tc_mma_tuned<4, 2, 2>, 2);
  if (warps == 8) return make(stages == 3 ? raw_tc_mma_tuned<3, 2, 4> : raw_tc_mma_tuned<4, 2, 4>, 4);
  return nullptr;
}

}  // namespace ws::gpu::detail
