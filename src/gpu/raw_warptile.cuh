// src/gpu/raw_warptile.cuh — the warp-tiled SGEMM of kernels/warptile.h written out by hand
// as plain CUDA with raw pointers, statement for statement: the body of the zero-cost twin
// (src/gpu/raw_matmul.cu launches it as raw_matmul_warptile) and of the tile-shape
// experiments (bench/device/sgemm_shapes.cu), which give it other shapes and launch bounds.
// Warps own WM×WN parts of the block tile, lanes 4×4 patches in sub-tiles of 8 × 4 lanes;
// STAGES 2: two shared buffers; PAIRED: lanes 2i, 2i+1 in one column. C = alpha·A·B + beta·C,
// float4s, blocks in bands of `group`; a tile wholly inside the matrices loaded untested.
#pragma once
#include <cuda_runtime.h>

namespace ws::gpu::detail {

template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool PAIRED = false>
__device__ __forceinline__ void warptile_body(const float4* A, const float4* B, float4* C, int N, float alpha,
                                              float beta, int group) {
  constexpr int LANE_ROWS = 8, LANE_COLS = 4, SUB_M = LANE_ROWS * 4, SUB_N = LANE_COLS * 4;
  constexpr int MI = WM / SUB_M, NI = WN / SUB_N, WARPS_N = BN / WN, THREADS = 32 * (BM / WM) * WARPS_N;
  constexpr int APAD = 4, A_LOADS = BM * BK / 4 / THREADS, B_LOADS = BK * BN / 4 / THREADS;
  __shared__ __align__(16) float As[STAGES * BK][BM + APAD];
  __shared__ __align__(16) float Bs[STAGES * BK][BN];
  float4 (&As4)[STAGES * BK][(BM + APAD) / 4] = reinterpret_cast<float4 (&)[STAGES * BK][(BM + APAD) / 4]>(As);
  float4 (&Bs4)[STAGES * BK][BN / 4] = reinterpret_cast<float4 (&)[STAGES * BK][BN / 4]>(Bs);
  const int N4 = N / 4, tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  int by = blockIdx.y, bx = blockIdx.x;
  if (group > 1) {
    const int gx = int(gridDim.x), gy = int(gridDim.y), g = group;
    int id = by * gx + bx, band = g * gx, first = id / band * g, rows = gy - first < g ? gy - first : g;
    by = first + id % band % rows, bx = id % band / rows;
  }
  const int rowBase = by * BM, colBase4 = bx * (BN / 4);
  const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
  const int lr = PAIRED ? (lane & 1) | (lane / (2 * LANE_COLS)) << 1 : lane / LANE_COLS;
  const int lc = PAIRED ? (lane >> 1) % LANE_COLS : lane % LANE_COLS;
  float acc[4 * MI][4 * NI] = {};
  float4 ra[A_LOADS], rb[B_LOADS];
  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

  auto load = [&](int k0) {
    if (rowBase + BM <= N && k0 + BK <= N && colBase4 + BN / 4 <= N4) {
#pragma unroll
      for (int i = 0; i < A_LOADS; ++i) {
        int e = tid + i * THREADS, r = e / (BK / 4), gk4 = k0 / 4 + e % (BK / 4);
        ra[i] = A[(rowBase + r) * N4 + gk4];
      }
#pragma unroll
      for (int i = 0; i < B_LOADS; ++i) {
        int e = tid + i * THREADS, gk = k0 + e / (BN / 4), gc4 = colBase4 + e % (BN / 4);
        rb[i] = B[gk * N4 + gc4];
      }
      return;
    }
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      int e = tid + i * THREADS, r = e / (BK / 4), gk4 = k0 / 4 + e % (BK / 4);
      ra[i] = (rowBase + r < N && gk4 < N4) ? A[(rowBase + r) * N4 + gk4] : zero;
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      int e = tid + i * THREADS, gk = k0 + e / (BN / 4), gc4 = colBase4 + e % (BN / 4);
      rb[i] = (gk < N && gc4 < N4) ? B[gk * N4 + gc4] : zero;
    }
  };
  auto store = [&](int s) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      int e = tid + i * THREADS, r = e / (BK / 4), k = s * BK + e % (BK / 4) * 4;
      As[k + 0][r] = ra[i].x, As[k + 1][r] = ra[i].y, As[k + 2][r] = ra[i].z, As[k + 3][r] = ra[i].w;
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      int e = tid + i * THREADS;
      Bs4[s * BK + e / (BN / 4)][e % (BN / 4)] = rb[i];
    }
  };
  auto multiply = [&](int s) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float fa[4 * MI], fb[4 * NI];
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
        float4 v = As4[s * BK + k][(wm + mi * SUB_M) / 4 + lr];
        fa[4 * mi + 0] = v.x, fa[4 * mi + 1] = v.y, fa[4 * mi + 2] = v.z, fa[4 * mi + 3] = v.w;
      }
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) {
        float4 v = Bs4[s * BK + k][(wn + ni * SUB_N) / 4 + lc];
        fb[4 * ni + 0] = v.x, fb[4 * ni + 1] = v.y, fb[4 * ni + 2] = v.z, fb[4 * ni + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < 4 * MI; ++i)
#pragma unroll
        for (int j = 0; j < 4 * NI; ++j) acc[i][j] += fa[i] * fb[j];
    }
  };

  const int KT = (N + BK - 1) / BK;
  load(0);
  store(0);
  __syncthreads();
  for (int kt = 0; kt < KT; ++kt) {
    if (STAGES == 2) {
      if (kt + 1 < KT) load((kt + 1) * BK);
      multiply(kt % 2);
      if (kt + 1 < KT) store((kt + 1) % 2);
      __syncthreads();
    } else {
      multiply(0);
      __syncthreads();
      if (kt + 1 < KT) {
        load((kt + 1) * BK);
        store(0);
      }
      __syncthreads();
    }
  }
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ii = 0; ii < 4; ++ii) {
      int r = rowBase + wm + mi * SUB_M + lr * 4 + ii;
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) {
        int c4 = colBase4 + (wn + ni * SUB_N) / 4 + lc;
        if (r < N && c4 < N4) {
          float4 v = C[r * N4 + c4];
          const float* p = acc[4 * mi + ii] + 4 * ni;
          v.x = alpha * p[0] + beta * v.x, v.y = alpha * p[1] + beta * v.y;
          v.z = alpha * p[2] + beta * v.z, v.w = alpha * p[3] + beta * v.w;
          C[r * N4 + c4] = v;
        }
      }
    }
}

}  // namespace ws::gpu::detail
