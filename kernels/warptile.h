// kernels/warptile.h — SGEMM past the textbook and the published ladders: warp tiles,
// double-buffered shared tiles, and a block order that keeps tiles in L2.
//
//   matmul_warptile           warps own 64×32 parts of the block tile, lanes 4×4 patches in
//                             8×4 formation: every shared read one wavefront
//   matmul_double_buffer      two shared buffers, the next tile's loads in flight during
//                             the arithmetic, one barrier a tile
//   matmul_tuned              the double-buffered kernel at the tile shape and block order
//                             a search on the GPU picked
#pragma once
#include <vector>
#include "contract.h"

namespace ws::kernels {

// C = alpha·A·B + beta·C, all N×N floats, row-major.
struct WarpTileArgs {
  Buf<const float> A, B;
  Buf<float> C;
  int N;
  float alpha, beta;
  int group;  // block order: bands of `group` block rows (1: row by row)
};

// The ladder past the textbook: warp tiles, double buffering, a tuned block order.
//
// A block computes a BM×BN tile of C with (BM/WM)·(BN/WN) warps; each warp owns a WM×WN
// part of it, cut into MI×NI sub-tiles of 32×16, and in each sub-tile the 32 lanes stand as
// 8 rows × 4 columns, each lane holding a 4×4 patch. For one k a lane reads MI float4s of
// As (A stored transposed, As[k][m]) and NI float4s of Bs: in one warp request, 8 distinct
// float4s of As (128 contiguous bytes, each read by 4 lanes) and 4 of Bs: one wavefront
// each, where the textbook's 8×8 thread patches read 8 words apart and conflict. A thread
// does (4·MI)·(4·NI) FMAs for MI + NI shared loads.
//   STAGES 1  load a tile, barrier, compute, barrier (two barriers a tile)
//   STAGES 2  two shared buffers: the next tile's global loads are issued into registers
//             before this tile's arithmetic and stored into the other buffer after it,
//             so the loads' latency hides behind the FMAs; one barrier a tile
//   group     (an argument) blocks walk C in bands of `group` block rows, column by column
//             inside a band, so the blocks running at once share their tiles of A and B in
//             L2; 1: row by row
//   PAIRED    the same 8×4 lanes of a sub-tile in another order: lanes 2i and 2i+1 stand in
//             one column on two rows, so each pair of neighbouring lanes reads one float4 of
//             Bs (and lanes 4i..4i+3, two of As): the GPU serves a 16-byte shared load in
//             fewer passes when neighbouring lanes share an address (docs/validation.md).
//             The per-phase model counts 4 wavefronts either way.
// Global loads are float4s (N a multiple of 4); outside the matrix they store zeros, so any
// such N works. C = alpha·A·B + beta·C, read and written as float4s.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, bool PAIRED_ = false>
struct MatmulWarpTile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_;
  static constexpr bool PAIRED = PAIRED_;
  static constexpr int LANE_ROWS = 8, LANE_COLS = 4;                  // a sub-tile's lanes
  static constexpr int SUB_M = LANE_ROWS * 4, SUB_N = LANE_COLS * 4;  // 32 × 16
  static constexpr int MI = WM / SUB_M, NI = WN / SUB_N;              // sub-tiles of a warp
  static constexpr int WARPS_N = BN / WN, THREADS = 32 * (BM / WM) * WARPS_N;
  static constexpr int APAD = 4;  // As rows padded by a float4: its transposed stores do not conflict
  static constexpr int A_LOADS = BM * BK / 4 / THREADS, B_LOADS = BK * BN / 4 / THREADS;  // float4s a thread
  static_assert(WM % SUB_M == 0 && WN % SUB_N == 0 && BM % WM == 0 && BN % WN == 0, "tile shape");
  static_assert(A_LOADS * THREADS * 4 == BM * BK && B_LOADS * THREADS * 4 == BK * BN, "loads cover the tiles");
  static_assert(STAGES == 1 || STAGES == 2, "one buffer or two");

  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const WarpTileArgs& a) const {
    WS_SHARED(float, As, [STAGES * BK][BM + APAD]);  // stage s, k: row s * BK + k; transposed
    WS_SHARED(float, Bs, [STAGES * BK][BN]);
    auto&& As4 = view_as<float4>(As);
    auto&& Bs4 = view_as<float4>(Bs);
    auto A = ctx.global(a.A.template as<const float4>());
    auto B = ctx.global(a.B.template as<const float4>());
    auto C = ctx.global(a.C.template as<float4>());
    const int N = a.N, N4 = a.N / 4;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    int by, bx;  // this block's tile of C: row by row, or in bands of `group` block rows
    band_order(a.group, by, bx);
    const int rowBase = by * BM, colBase4 = bx * (BN / 4);
    const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
    // The lane's row and column in the 8×4 formation: row-major, or paired (bit 0 the row).
    const int lr = PAIRED ? (lane & 1) | (lane / (2 * LANE_COLS)) << 1 : lane / LANE_COLS;
    const int lc = PAIRED ? (lane >> 1) % LANE_COLS : lane % LANE_COLS;
    float acc[4 * MI][4 * NI] = {};
    float4 ra[A_LOADS], rb[B_LOADS];  // the next tile, on its way from global to shared
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

    // A tile wholly inside both matrices is loaded without a test per float4: with one,
    // ptxas sinks the loads below the FMAs to the stores that wait on them, and every tile
    // waits out a global load (docs/validation.md section 14). The same accesses either way.
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
        As[k + 0][r] = ra[i].x;
        As[k + 1][r] = ra[i].y;
        As[k + 2][r] = ra[i].z;
        As[k + 3][r] = ra[i].w;
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
          fa[4 * mi + 0] = v.x;
          fa[4 * mi + 1] = v.y;
          fa[4 * mi + 2] = v.z;
          fa[4 * mi + 3] = v.w;
        }
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
          float4 v = Bs4[s * BK + k][(wn + ni * SUB_N) / 4 + lc];
          fb[4 * ni + 0] = v.x;
          fb[4 * ni + 1] = v.y;
          fb[4 * ni + 2] = v.z;
          fb[4 * ni + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < 4 * MI; ++i)
#pragma unroll
          for (int j = 0; j < 4 * NI; ++j) acc[i][j] += fa[i] * fb[j];
      }
    };

    const int KT = (N + BK - 1) / BK;  // tiles along k
    load(0);
    store(0);
    __syncthreads();
    for (int kt = 0; kt < KT; ++kt) {
      if (STAGES == 2) {
        if (kt + 1 < KT) load((kt + 1) * BK);  // in flight during the FMAs below
        multiply(kt % 2);
        if (kt + 1 < KT) store((kt + 1) % 2);  // the buffer everyone finished reading last tile
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
    // A lane's 4×4 patch of each sub-tile leaves as 4 float4s (rows 4·lr .. 4·lr+3).
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
            v.x = a.alpha * p[0] + a.beta * v.x;
            v.y = a.alpha * p[1] + a.beta * v.y;
            v.z = a.alpha * p[2] + a.beta * v.z;
            v.w = a.alpha * p[3] + a.beta * v.w;
            C[r * N4 + c4] = v;
          }
        }
      }
  }
};

// CPU reference: C = alpha·(A·B) + beta·C, each row of A·B summed in double and rounded to
// float once, as the other SGEMM kernels' reference.
inline void warptile_reference(const float* A, const float* B, float* C, int64_t N, float alpha, float beta) {
  std::vector<double> row;
  for (int64_t i = 0; i < N; ++i) {
    row.assign(size_t(N), 0.0);
    for (int64_t k = 0; k < N; ++k)
      for (int64_t j = 0; j < N; ++j) row[size_t(j)] += double(A[i * N + k]) * double(B[k * N + j]);
    for (int64_t j = 0; j < N; ++j) C[i * N + j] = alpha * float(row[size_t(j)]) + beta * C[i * N + j];
  }
}

}  // namespace ws::kernels
