// bench/device/sgemm_ablation.cu — why sgemm_variants.cu's row 2 ("2 paired lanes bk8 w64x32",
// sv::body<128,128,8,64,32,8,2,false,false,true>, 90.4% of cuBLAS on the H100) beats the reference
// body it was written against (ws::gpu::detail::warptile_body<128,128,8,64,32,2> of
// src/gpu/raw_warptile.cuh, 77.6% in the same run) when pairing the lanes alone did not (the
// catalog's kernel: 82.4% paired, 82.0% not). Same harness as sgemm_variants.cu: C = alpha·A·B +
// beta·C with alpha 0.5, beta 3, C restored before each run outside the timing, checked bit for bit
// (inputs k/8) against cuBLAS on the same C, median of 25 runs after 5 warm-ups.
//
// The rows walk from warptile_body<...,2,true> (paired lanes) to sv::body itself, one
// difference at a time, cumulatively, so the row where the time jumps names the cause. Every
// difference between the two bodies (non-ASYNC, non-REGDB path), and the flag of ab::flex that
// carries it:
//   NOGUARD  = NOLOADGUARD | NOSTOREGUARD: no bounds guards on the global loads of A and B
//            (branches around each LDG, zero fill; KT = ceil(N / BK) instead of N / BK), and none on
//            the epilogue's C accesses;
//   RESTRICT A, B, C as float* __restrict__ (the body's parameters): the A and B loads become
//            ld.global.nc (the read-only path) instead of ld.global;
//   DYNSMEM  extern __shared__ memory (the same layout: A stages, padded by 4, then B stages)
//            instead of two static __shared__ arrays;
//   FRAGPTR  fragment reads through per-lane pointers Ar = As4 + wm/4 + lr, Br = Bs4 + wn/4 + lc plus
//            stage, k and mi/ni offsets, instead of As4[s·BK + k][(wm + mi·SUB_M)/4 + lr]: the
//            reference's signed divisions (wm + 32)/4, (wn + 16)/4 are not folded, so its four
//            LDS.128 a k-step use four base registers where sv's use two with immediate offsets;
//   GPTR     global loads and shared stores through pointers set up once (Ag, Bg in 64-bit
//            arithmetic, size_t offsets; Aw, Bw) instead of int indices recomputed each step
//            ((rowBase + r)·N4 + gk4 in 32 bits, widened);
//   REST     the rest of sv::body: the loop (a bool `more`, the store and the barrier only when
//            there is a next step, so no barrier after the last one; the stage as rd ^= 1 instead
//            of kt % 2), fmaf instead of +=, the accumulators zeroed by loops, the epilogue through
//            a size_t-indexed float* (the same lanes and float4s as the reference's).
// Unchanged everywhere: tile shapes, lane order (paired), the load/store mapping of threads to
// elements, the order of the FMAs, launch bounds (256, 1), group 16. With no flag ab::flex gives
// warptile_body<...,2,true>'s PTX exactly (row 0 launches the header's body itself); with all, the
// copy of sv::body's PTX but for register numbering and the order of a few set-up instructions
// (row 6; its SASS loop has the same instructions as row 7's, not the same bytes). Row 7 is
// sgemm_variants.cu's row 2 (the same kernel, from sgemm_variants.cuh). The s rows add one
// difference to row 0 alone.
//
// What the SASS shows without a GPU (CUDA 13.0 ptxas, sm_90, read from the cubin): the inner loops
// are alike (512 FFMA, 32 LDS.128, 5 STS, 2 LDG a BK step; 83 other instructions in row 0, 61 in
// row 7), but with the load guards ptxas sinks both LDGs of the next stage to the end of the loop,
// after the last FFMA and right before the STS that waits for them (rows 0, s1, s2), so each BK
// step waits out a global load with nothing to cover it; without them the LDGs issue 250-500
// FFMAs before that STS (rows 1-7, s3).
// Built alone (no GPU needed to build):
//   nvcc -O3 -arch=sm_90 -std=c++17 -Isrc -Xptxas -v -o sgemm_ablation bench/device/sgemm_ablation.cu -lcublas
//   ./sgemm_ablation [N] [big]      (N defaults to 4096; "big" also runs N = 8192)
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "gpu/raw_warptile.cuh"
#include "sgemm_variants.cuh"

namespace ab {

constexpr int NOLOADGUARD = 1, RESTRICT = 2, DYNSMEM = 4, FRAGPTR = 8, GPTR = 16, REST = 32, NOSTOREGUARD = 64;
constexpr int NOGUARD = NOLOADGUARD | NOSTOREGUARD;

// RESTRICT: the body's pointer parameters __restrict__-qualified, as sv::body's
typedef const float* __restrict__ rcptr;
typedef float* __restrict__ rptr;
template <int F>
using In = std::conditional_t<(F & RESTRICT) != 0, rcptr, const float*>;
template <int F>
using Out = std::conditional_t<(F & RESTRICT) != 0, rptr, float*>;

// warptile_body<128,128,8,64,32,2,true> statement for statement, each flag F swapping one of its
// parts for sv::body's (see the list above). GPTR and REST need NOGUARD (sv::body has no guards).
template <int F>
__device__ __forceinline__ void flex_impl(In<F> Af, In<F> Bf, Out<F> Cf, int N, float alpha, float beta,
                                          int group) {
  constexpr int BM = 128, BN = 128, BK = 8, WM = 64, WN = 32, STAGES = 2;
  constexpr bool PAIRED = true, GUARD = !(F & NOLOADGUARD), CGUARD = !(F & NOSTOREGUARD);
  static_assert(!(F & (GPTR | REST)) || (F & NOGUARD) == NOGUARD, "GPTR and REST come without guards");
  constexpr int LANE_ROWS = 8, LANE_COLS = 4, SUB_M = LANE_ROWS * 4, SUB_N = LANE_COLS * 4;
  constexpr int MI = WM / SUB_M, NI = WN / SUB_N, WARPS_N = BN / WN, THREADS = 32 * (BM / WM) * WARPS_N;
  constexpr int APAD = 4, A_LOADS = BM * BK / 4 / THREADS, B_LOADS = BK * BN / 4 / THREADS;
  constexpr int AST = BM + APAD, A_STAGE = BK * AST, B_STAGE = BK * BN;  // floats
  const float4* A = reinterpret_cast<const float4*>(Af);
  const float4* B = reinterpret_cast<const float4*>(Bf);
  float4* C = reinterpret_cast<float4*>(Cf);
  float (*As)[BM + APAD];
  float (*Bs)[BN];
  if constexpr ((F & DYNSMEM) != 0) {
    extern __shared__ float4 ab_smem4[];
    As = reinterpret_cast<float (*)[BM + APAD]>(ab_smem4);
    Bs = reinterpret_cast<float (*)[BN]>(reinterpret_cast<float*>(ab_smem4) + STAGES * A_STAGE);
  } else {
    __shared__ __align__(16) float As_[STAGES * BK][BM + APAD];
    __shared__ __align__(16) float Bs_[STAGES * BK][BN];
    As = As_;
    Bs = Bs_;
  }
  float4 (*As4)[(BM + APAD) / 4] = reinterpret_cast<float4 (*)[(BM + APAD) / 4]>(As);
  float4 (*Bs4)[BN / 4] = reinterpret_cast<float4 (*)[BN / 4]>(Bs);
  const int N4 = N / 4;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  int by = blockIdx.y, bx = blockIdx.x;
  if (group > 1) {
    const int gx = int(gridDim.x), gy = int(gridDim.y), g = group;
    int id = by * gx + bx, band = g * gx, first = id / band * g;
    int rows = gy - first < g ? gy - first : g;
    by = first + id % band % rows;
    bx = id % band / rows;
  }
  const int rowBase = by * BM, colBase4 = bx * (BN / 4);
  const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
  const int lr = PAIRED ? (lane & 1) | (lane / (2 * LANE_COLS)) << 1 : lane / LANE_COLS;
  const int lc = PAIRED ? (lane >> 1) % LANE_COLS : lane % LANE_COLS;
  float acc[4 * MI][4 * NI] = {};
  float4 ra[A_LOADS], rb[B_LOADS];
  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

  // FRAGPTR: sv::body's fragment read pointers (float4 units)
  const float4* Ar = reinterpret_cast<const float4*>(&As[0][0]) + (wm / 4 + lr);
  const float4* Br = reinterpret_cast<const float4*>(&Bs[0][0]) + (wn / 4 + lc);
  // GPTR: sv::body's global read and shared write pointers
  constexpr int KQ = BK / 4, BPR = BN / 4;
  const float4* Ag = A + size_t(rowBase + tid / KQ) * N4 + tid % KQ;
  const float4* Bg = B + size_t(tid / BPR) * N4 + colBase4 + tid % BPR;
  float* Aw = &As[0][0] + (tid % KQ) * 4 * AST + tid / KQ;
  float4* Bw = reinterpret_cast<float4*>(&Bs[0][0]) + (tid / BPR) * BPR + tid % BPR;

  auto load = [&](int kt) {
    if constexpr ((F & GPTR) != 0) {
#pragma unroll
      for (int i = 0; i < A_LOADS; ++i) ra[i] = Ag[size_t(i * (THREADS / KQ)) * N4 + kt * KQ];
#pragma unroll
      for (int i = 0; i < B_LOADS; ++i) rb[i] = Bg[(size_t(kt) * BK + i * (THREADS / BPR)) * N4];
    } else {
      const int k0 = kt * BK;
#pragma unroll
      for (int i = 0; i < A_LOADS; ++i) {
        int e = tid + i * THREADS, r = e / (BK / 4), gk4 = k0 / 4 + e % (BK / 4);
        if constexpr (GUARD)
          ra[i] = (rowBase + r < N && gk4 < N4) ? A[(rowBase + r) * N4 + gk4] : zero;
        else
          ra[i] = A[(rowBase + r) * N4 + gk4];
      }
#pragma unroll
      for (int i = 0; i < B_LOADS; ++i) {
        int e = tid + i * THREADS, gk = k0 + e / (BN / 4), gc4 = colBase4 + e % (BN / 4);
        if constexpr (GUARD)
          rb[i] = (gk < N && gc4 < N4) ? B[gk * N4 + gc4] : zero;
        else
          rb[i] = B[gk * N4 + gc4];
      }
    }
  };
  auto store = [&](int s) {
    if constexpr ((F & GPTR) != 0) {
#pragma unroll
      for (int i = 0; i < A_LOADS; ++i) {
        float* a = Aw + s * A_STAGE + i * (THREADS / KQ);
        a[0 * AST] = ra[i].x;
        a[1 * AST] = ra[i].y;
        a[2 * AST] = ra[i].z;
        a[3 * AST] = ra[i].w;
      }
#pragma unroll
      for (int i = 0; i < B_LOADS; ++i) Bw[s * (B_STAGE / 4) + i * (THREADS / BPR) * BPR] = rb[i];
    } else {
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
    }
  };
  auto multiply = [&](int s) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float fa[4 * MI], fb[4 * NI];
      if constexpr ((F & FRAGPTR) != 0) {
        const float4* a = Ar + s * (A_STAGE / 4) + k * (AST / 4);
        const float4* b = Br + s * (B_STAGE / 4) + k * (BN / 4);
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
          float4 v = a[mi * (SUB_M / 4)];
          fa[4 * mi + 0] = v.x;
          fa[4 * mi + 1] = v.y;
          fa[4 * mi + 2] = v.z;
          fa[4 * mi + 3] = v.w;
        }
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
          float4 v = b[ni * (SUB_N / 4)];
          fb[4 * ni + 0] = v.x;
          fb[4 * ni + 1] = v.y;
          fb[4 * ni + 2] = v.z;
          fb[4 * ni + 3] = v.w;
        }
      } else {
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
      }
#pragma unroll
      for (int i = 0; i < 4 * MI; ++i)
#pragma unroll
        for (int j = 0; j < 4 * NI; ++j) {
          if constexpr ((F & REST) != 0)
            acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
          else
            acc[i][j] += fa[i] * fb[j];
        }
    }
  };

  if constexpr ((F & REST) != 0) {  // sv::body's loop: barrier only before a next step, rd ^= 1
    const int KT = N / BK;
    load(0);
    store(0);
    __syncthreads();
    int rd = 0;
    for (int kt = 0; kt < KT; ++kt) {
      const bool more = kt + 1 < KT;
      if (more) load(kt + 1);
      multiply(rd);
      if (more) {
        store(rd ^ 1);
        __syncthreads();
      }
      rd ^= 1;
    }
    const int colBase = colBase4 * 4;  // sv::body's epilogue
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ii = 0; ii < 4; ++ii) {
        const int r = rowBase + wm + mi * SUB_M + lr * 4 + ii;
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
          const int c = colBase + wn + ni * SUB_N + lc * 4;
          float4* p = reinterpret_cast<float4*>(Cf + size_t(r) * N + c);
          float4 v = *p;
          const float* q = acc[4 * mi + ii] + 4 * ni;
          v.x = alpha * q[0] + beta * v.x;
          v.y = alpha * q[1] + beta * v.y;
          v.z = alpha * q[2] + beta * v.z;
          v.w = alpha * q[3] + beta * v.w;
          *p = v;
        }
      }
  } else {  // warptile_body's loop and epilogue
    const int KT = GUARD ? (N + BK - 1) / BK : N / BK;
    load(0);
    store(0);
    __syncthreads();
    for (int kt = 0; kt < KT; ++kt) {
      if (kt + 1 < KT) load(kt + 1);
      multiply(kt % 2);
      if (kt + 1 < KT) store((kt + 1) % 2);
      __syncthreads();
    }
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ii = 0; ii < 4; ++ii) {
        int r = rowBase + wm + mi * SUB_M + lr * 4 + ii;
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
          int c4 = colBase4 + (wn + ni * SUB_N) / 4 + lc;
          if (!CGUARD || (r < N && c4 < N4)) {
            float4 v = C[r * N4 + c4];
            const float* p = acc[4 * mi + ii] + 4 * ni;
            v.x = alpha * p[0] + beta * v.x;
            v.y = alpha * p[1] + beta * v.y;
            v.z = alpha * p[2] + beta * v.z;
            v.w = alpha * p[3] + beta * v.w;
            C[r * N4 + c4] = v;
          }
        }
      }
  }
}

template <int F>
__device__ __forceinline__ void flex(const float* A, const float* B, float* C, int N, float alpha, float beta,
                                     int group) {
  flex_impl<F>(A, B, C, N, alpha, beta, group);
}

template <int F>
__global__ void __launch_bounds__(256, 1)
    flex_kernel(const float* A, const float* B, float* C, int N, float alpha, float beta, int group) {
  flex<F>(A, B, C, N, alpha, beta, group);
}

template <bool PAIRED>
__global__ void __launch_bounds__(256, 1)
    warptile(const float* A, const float* B, float* C, int N, float alpha, float beta, int group) {
  ws::gpu::detail::warptile_body<128, 128, 8, 64, 32, 2, PAIRED>(reinterpret_cast<const float4*>(A),
                                                                 reinterpret_cast<const float4*>(B),
                                                                 reinterpret_cast<float4*>(C), N, alpha, beta, group);
}

}  // namespace ab

// A row of ab::flex with the differences F switched on.
template <int F>
static void flexrow(Ctx& x, const char* name) {
  run(x, name, ab::flex_kernel<F>, 128, 128, 8, 256, (F & ab::DYNSMEM) ? sv::smem_bytes<128, 128, 8, 2>() : 0, 16);
}

static void bench(int N) {
  Ctx x;
  if (!prepare(x, N, "rows")) return;

  using namespace ab;
  constexpr int C1 = NOGUARD, C2 = C1 | RESTRICT, C3 = C2 | DYNSMEM, C4 = C3 | FRAGPTR, C5 = C4 | GPTR, C6 = C5 | REST;
  run(x, "ref warptile_body (row-major lanes)", ab::warptile<false>, 128, 128, 8, 256, 0, 16);
  run(x, "0 warptile_body paired", ab::warptile<true>, 128, 128, 8, 256, 0, 16);
  // cumulative: each row adds one of sv::body's differences to the row above
  flexrow<C1>(x, "1 +no bounds guards");
  flexrow<C2>(x, "2 +__restrict__ (ld.global.nc)");
  flexrow<C3>(x, "3 +dynamic shared memory");
  flexrow<C4>(x, "4 +fragment pointers Ar/Br");
  flexrow<C5>(x, "5 +global/store pointers Ag/Bg/Aw/Bw");
  flexrow<C6>(x, "6 +sv loop, rd^=1, fmaf, epilogue");
  run(x, "7 sv::body copy (variants row 2)", sv::sgemm_variant<128, 128, 8, 64, 32, 8, 2, false, false, true, 1>, 128, 128, 8, 256, sv::smem_bytes<128, 128, 8, 2>(), 16);
  // single: row 0 with one difference only
  flexrow<RESTRICT>(x, "s1 0 + __restrict__ only");
  flexrow<FRAGPTR>(x, "s2 0 + fragment pointers only");
  flexrow<NOLOADGUARD>(x, "s3 0 + unguarded global loads only");
  run(x, "0 (again)", ab::warptile<true>, 128, 128, 8, 256, 0, 16);
  run(x, "7 (again)", sv::sgemm_variant<128, 128, 8, 64, 32, 8, 2, false, false, true, 1>, 128, 128, 8, 256, sv::smem_bytes<128, 128, 8, 2>(), 16);

  release(x);
}

int main(int argc, char** argv) {
  int N = argc > 1 ? atoi(argv[1]) : 4096;
  bench(N);
  if (argc > 2 && strcmp(argv[2], "big") == 0 && N != 8192) bench(8192);
  return 0;
}
