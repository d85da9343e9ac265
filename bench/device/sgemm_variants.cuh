// bench/device/sgemm_variants.cuh — the SGEMM variants of bench/device/sgemm_variants.cu (one
// templated body, sv::body, and the reference) and the harness that checks each against
// cuBLAS and times it; bench/device/sgemm_ablation.cu times its rows with the same harness.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu/raw_warptile.cuh"

namespace sv {

__device__ __forceinline__ void cp_async4(float* smem, const float* gmem) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async16(float* smem, const float* gmem) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int PENDING>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

template <int BM, int BN, int BK, int STAGES>
constexpr int smem_bytes() {
  return STAGES * (BK * (BM + 4) + BK * BN) * 4;
}

// BM×BN block tile, BK deep; WM×WN warp tiles; LROWS×(32/LROWS) lanes, each 2×2 patches of 4×4
// (MI = WM / (4·LROWS) and NI = WN / (4·32/LROWS) patches, 8×8 for the shapes used here).
// ASYNC false: register staging, STAGES must be 2. ASYNC true: cp.async, STAGES ≥ 2.
// N must be a multiple of BM, BN and BK (checked by the host).
template <int BM, int BN, int BK, int WM, int WN, int LROWS, int STAGES, bool ASYNC, bool REGDB, bool PAIRED>
__device__ __forceinline__ void body(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                     int N, float alpha, float beta, int group) {
  constexpr int LCOLS = 32 / LROWS, SUB_M = LROWS * 4, SUB_N = LCOLS * 4, MI = WM / SUB_M, NI = WN / SUB_N;
  constexpr int WARPS_N = BN / WN, THREADS = 32 * (BM / WM) * WARPS_N;
  constexpr int AST = BM + 4;                            // A row (one k) stride in shared, floats
  constexpr int A_STAGE = BK * AST, B_STAGE = BK * BN;  // floats
  static_assert(ASYNC || STAGES == 2, "register staging uses two shared stages");
  static_assert(BK % 8 == 0 && MI * SUB_M == WM && NI * SUB_N == WN, "shape");
  extern __shared__ float4 smem4[];
  float* As = reinterpret_cast<float*>(smem4);
  float* Bs = As + STAGES * A_STAGE;

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  int by = blockIdx.y, bx = blockIdx.x;
  if (group > 1) {  // bands of `group` block rows, as the reference
    const int gx = int(gridDim.x), gy = int(gridDim.y), g = group;
    int id = by * gx + bx, band = g * gx, first = id / band * g;
    int rows = gy - first < g ? gy - first : g;
    by = first + id % band % rows;
    bx = id % band / rows;
  }
  const int rowBase = by * BM, colBase = bx * BN;
  const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
  // PAIRED: CUTLASS's RowMajorInterleaved<2> lane order: lane bit 0 picks the row, bits 1.. the
  // column, so lanes n and n^1 read the same B float4 and lanes n and n^2 the same A float4 (on
  // sm_7x, LDS.128 then returns in 2 passes of 128 bytes instead of 4; otherwise only A pairs up)
  const int lr = PAIRED ? (lane & 1) | (lane / (2 * LCOLS)) << 1 : lane / LCOLS;
  const int lc = PAIRED ? (lane >> 1) % LCOLS : lane % LCOLS;

  // fragment read pointers (float4 units): + stage·A_STAGE/4 + k·AST/4 + mi·SUB_M/4
  const float4* Ar = reinterpret_cast<const float4*>(As) + (wm / 4 + lr);
  const float4* Br = reinterpret_cast<const float4*>(Bs) + (wn / 4 + lc);

  float acc[4 * MI][4 * NI];
#pragma unroll
  for (int i = 0; i < 4 * MI; ++i)
#pragma unroll
    for (int j = 0; j < 4 * NI; ++j) acc[i][j] = 0.0f;
  float fa[2][4 * MI], fb[2][4 * NI];

  auto ldfrag = [&](int buf, int stage, int k) {
    const float4* a = Ar + stage * (A_STAGE / 4) + k * (AST / 4);
    const float4* b = Br + stage * (B_STAGE / 4) + k * (BN / 4);
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      float4 v = a[mi * (SUB_M / 4)];
      fa[buf][4 * mi + 0] = v.x;
      fa[buf][4 * mi + 1] = v.y;
      fa[buf][4 * mi + 2] = v.z;
      fa[buf][4 * mi + 3] = v.w;
    }
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) {
      float4 v = b[ni * (SUB_N / 4)];
      fb[buf][4 * ni + 0] = v.x;
      fb[buf][4 * ni + 1] = v.y;
      fb[buf][4 * ni + 2] = v.z;
      fb[buf][4 * ni + 3] = v.w;
    }
  };
  auto fma = [&](int buf) {
#pragma unroll
    for (int i = 0; i < 4 * MI; ++i)
#pragma unroll
      for (int j = 0; j < 4 * NI; ++j) acc[i][j] = fmaf(fa[buf][i], fb[buf][j], acc[i][j]);
  };

  // one BK step on stage rd; publish() makes the next stage (nx) visible: with REGDB it runs
  // before the last k's FMAs, whose fragments are already in registers, and the next stage's
  // first fragments are loaded right after it; without, it runs after all the FMAs
  auto compute = [&](int rd, int nx, bool more, auto&& publish) {
    if constexpr (REGDB) {
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        if (k == BK - 1 && more) publish();
        if (k < BK - 1)
          ldfrag((k + 1) & 1, rd, k + 1);
        else if (more)
          ldfrag((k + 1) & 1, nx, 0);
        fma(k & 1);
      }
    } else {
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        ldfrag(0, rd, k);
        fma(0);
      }
      if (more) publish();
    }
  };

  const int KT = N / BK;
  if constexpr (ASYNC) {
    // A: BM·BK 4-byte copies, 8 lanes along k (32 contiguous bytes of a row) × 4 rows a warp;
    // lands transposed: As[k][m], bank (4k + m) % 32, conflict-free. B: 16-byte copies, rows of BN.
    constexpr int A_CP = BM * BK / THREADS, RPI = THREADS / 8, IPK = BM / RPI;
    constexpr int B_CP = BK * BN / 4 / THREADS, BPR = BN / 4, KPI = THREADS / BPR;
    static_assert(A_CP * THREADS == BM * BK && IPK * RPI == BM && A_CP % IPK == 0, "A copy map");
    static_assert(B_CP * THREADS * 4 == BK * BN && KPI * BPR == THREADS, "B copy map");
    const float* Ag = A + size_t(rowBase + tid / 8) * N + tid % 8;
    const float* Bg = B + size_t(tid / BPR) * N + colBase + tid % BPR * 4;
    float* Aw = As + (tid % 8) * AST + tid / 8;
    float* Bw = Bs + (tid / BPR) * BN + tid % BPR * 4;
    auto issue = [&](int stage, int kt) {
      const float* ag = Ag + kt * BK;
      const float* bg = Bg + size_t(kt) * BK * N;
#pragma unroll
      for (int i = 0; i < A_CP; ++i)
        cp_async4(Aw + stage * A_STAGE + (i / IPK) * 8 * AST + (i % IPK) * RPI,
                  ag + size_t((i % IPK) * RPI) * N + (i / IPK) * 8);
#pragma unroll
      for (int i = 0; i < B_CP; ++i) cp_async16(Bw + stage * B_STAGE + i * KPI * BN, bg + size_t(i * KPI) * N);
    };
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < KT) issue(s, s);
      cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    if (REGDB) ldfrag(0, 0, 0);
    int rd = 0, wr = STAGES - 1;
    for (int kt = 0; kt < KT; ++kt) {
      const bool more = kt + 1 < KT;
      const int nx = rd + 1 == STAGES ? 0 : rd + 1;
      if (kt + STAGES - 1 < KT) issue(wr, kt + STAGES - 1);  // into the stage read at kt - 1
      cp_async_commit();                                     // one group per step, empty or not
      compute(rd, nx, more, [&] {
        cp_async_wait<STAGES - 2>();  // step kt + 1 has landed (this thread's copies)
        __syncthreads();              // ... everyone's; and all reads of stage rd are done
      });
      rd = nx;
      wr = wr + 1 == STAGES ? 0 : wr + 1;
    }
  } else {
    // register staging as the reference: one float4 of A (4 k of a row) and of B per lane and load
    constexpr int KQ = BK / 4, A_LD = BM * BK / 4 / THREADS, B_LD = BK * BN / 4 / THREADS, BPR = BN / 4;
    static_assert(A_LD * THREADS * 4 == BM * BK && B_LD * THREADS * 4 == BK * BN && THREADS % BPR == 0, "load map");
    const int N4 = N / 4;
    const float4* Ag = reinterpret_cast<const float4*>(A) + size_t(rowBase + tid / KQ) * N4 + tid % KQ;
    const float4* Bg = reinterpret_cast<const float4*>(B) + size_t(tid / BPR) * N4 + colBase / 4 + tid % BPR;
    float* Aw = As + (tid % KQ) * 4 * AST + tid / KQ;
    float4* Bw = reinterpret_cast<float4*>(Bs) + (tid / BPR) * BPR + tid % BPR;
    float4 ra[A_LD], rb[B_LD];
    auto gload = [&](int kt) {
#pragma unroll
      for (int i = 0; i < A_LD; ++i) ra[i] = Ag[size_t(i * (THREADS / KQ)) * N4 + kt * KQ];
#pragma unroll
      for (int i = 0; i < B_LD; ++i) rb[i] = Bg[(size_t(kt) * BK + i * (THREADS / BPR)) * N4];
    };
    auto sstore = [&](int stage) {
#pragma unroll
      for (int i = 0; i < A_LD; ++i) {
        float* a = Aw + stage * A_STAGE + i * (THREADS / KQ);
        a[0 * AST] = ra[i].x;
        a[1 * AST] = ra[i].y;
        a[2 * AST] = ra[i].z;
        a[3 * AST] = ra[i].w;
      }
#pragma unroll
      for (int i = 0; i < B_LD; ++i) Bw[stage * (B_STAGE / 4) + i * (THREADS / BPR) * BPR] = rb[i];
    };
    gload(0);
    sstore(0);
    __syncthreads();
    if (REGDB) ldfrag(0, 0, 0);
    int rd = 0;
    for (int kt = 0; kt < KT; ++kt) {
      const bool more = kt + 1 < KT;
      if (more) gload(kt + 1);
      compute(rd, rd ^ 1, more, [&] {
        sstore(rd ^ 1);  // stage rd ^ 1 was last read before the previous step's barrier
        __syncthreads();
      });
      rd ^= 1;
    }
  }

  // epilogue: C = alpha·acc + beta·C, float4 per lane and patch row
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ii = 0; ii < 4; ++ii) {
      const int r = rowBase + wm + mi * SUB_M + lr * 4 + ii;
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) {
        const int c = colBase + wn + ni * SUB_N + lc * 4;
        float4* p = reinterpret_cast<float4*>(C + size_t(r) * N + c);
        float4 v = *p;
        const float* s = acc[4 * mi + ii] + 4 * ni;
        v.x = alpha * s[0] + beta * v.x;
        v.y = alpha * s[1] + beta * v.y;
        v.z = alpha * s[2] + beta * v.z;
        v.w = alpha * s[3] + beta * v.w;
        *p = v;
      }
    }
}

template <int BM, int BN, int BK, int WM, int WN, int LROWS, int STAGES, bool ASYNC, bool REGDB, bool PAIRED, int MINB>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN), MINB)
    sgemm_variant(const float* A, const float* B, float* C, int N, float alpha, float beta, int group) {
  body<BM, BN, BK, WM, WN, LROWS, STAGES, ASYNC, REGDB, PAIRED>(A, B, C, N, alpha, beta, group);
}

// Row 1: the reference, exactly as bench/device/sgemm_shapes.cu's "(tuned)" row launches it.
__global__ void __launch_bounds__(256, 1)
    reference(const float* A, const float* B, float* C, int N, float alpha, float beta, int group) {
  ws::gpu::detail::warptile_body<128, 128, 8, 64, 32, 2>(reinterpret_cast<const float4*>(A),
                                                         reinterpret_cast<const float4*>(B),
                                                         reinterpret_cast<float4*>(C), N, alpha, beta, group);
}

}  // namespace sv

using Kernel = void (*)(const float*, const float*, float*, int, float, float, int);

struct Ctx {
  int N;
  float *A, *B, *C, *C0;  // C0: the initial C, copied into C before every run (outside the timing)
  float alpha, beta;
  float cublas_ms;
  std::vector<float> want, got;
};

static float median_tail(std::vector<float> ms) {  // median of the last 25 of 30
  ms.erase(ms.begin(), ms.begin() + 5);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

static void run(Ctx& x, const char* name, Kernel k, int BM, int BN, int BK, int threads, int smem, int group) {
  const int N = x.N;
  if (N % BM || N % BN || N % BK) {
    printf("%-40s skipped: N=%d is not a multiple of the %dx%dx%d tile\n", name, N, BM, BN, BK);
    return;
  }
  if (smem > 0 && cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess) {
    printf("%-40s cannot get %d bytes of shared memory\n", name, smem);
    cudaGetLastError();
    return;
  }
  const size_t bytes = size_t(N) * N * 4;
  dim3 grid(N / BN, N / BM);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ms;
  for (int r = 0; r < 30; ++r) {
    cudaMemcpy(x.C, x.C0, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(a);
    k<<<grid, threads, smem>>>(x.A, x.B, x.C, N, x.alpha, x.beta, group);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
      printf("%-40s launch failed: %s\n", name, cudaGetErrorString(e));
      exit(1);
    }
    float t;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  float med = median_tail(ms);
  // the last run started from C0 too: check it against cuBLAS on the same C0
  cudaMemcpy(x.got.data(), x.C, bytes, cudaMemcpyDeviceToHost);
  double err = 0;
  for (size_t i = 0; i < x.got.size(); ++i) {
    double d = std::fabs(double(x.got[i]) - x.want[i]) / (std::fabs(double(x.want[i])) + 1e-3);
    if (!(d <= err)) err = d;  // NaN propagates
  }
  cudaFuncAttributes at;
  cudaFuncGetAttributes(&at, k);
  int occ = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, threads, smem);
  printf("%-40s %7.3f ms  %5.1f%% of cuBLAS  regs %3d  smem %6zu  blocks/SM %d  err %.1e\n", name, med,
         100 * x.cublas_ms / med, at.numRegs, at.sharedSizeBytes + size_t(smem), occ, err);
}

// x's matrices at size N (inputs k/8: exact sums, results equal to cuBLAS's bit for bit) and
// cuBLAS timed on them, printed; false, said in a line, when N is not a multiple of 128.
static bool prepare(Ctx& x, int N, const char* what) {
  if (N <= 0 || N % 128) {
    printf("N=%d: the %s need N a multiple of 128\n", N, what);
    return false;
  }
  x.N = N;
  x.alpha = 0.5f;
  x.beta = 3.0f;
  const size_t n = size_t(N) * N, bytes = n * 4;
  std::vector<float> h(n);
  cudaMalloc(&x.A, bytes);
  cudaMalloc(&x.B, bytes);
  cudaMalloc(&x.C, bytes);
  cudaMalloc(&x.C0, bytes);
  // values k/8, k in [-8, 8]: every product and partial sum is exact in FP32 up to N = 8192,
  // so any summation order gives cuBLAS's result bit for bit, and nothing is denormal or inf
  srand(3);
  for (auto& v : h) v = float(rand() % 17 - 8) / 8.0f;
  cudaMemcpy(x.A, h.data(), bytes, cudaMemcpyHostToDevice);
  for (auto& v : h) v = float(rand() % 17 - 8) / 8.0f;
  cudaMemcpy(x.B, h.data(), bytes, cudaMemcpyHostToDevice);
  for (auto& v : h) v = float(rand() % 17 - 8) / 8.0f;
  cudaMemcpy(x.C0, h.data(), bytes, cudaMemcpyHostToDevice);
  x.want.resize(n);
  x.got.resize(n);

  cublasHandle_t hd;
  cublasCreate(&hd);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ms;
  for (int r = 0; r < 30; ++r) {
    cudaMemcpy(x.C, x.C0, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(a);
    // row-major C = alpha A B + beta C, as column-major C^T = alpha B^T A^T + beta C^T
    cublasSgemm(hd, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &x.alpha, x.B, N, x.A, N, &x.beta, x.C, N);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  x.cublas_ms = median_tail(ms);
  cudaMemcpy(x.want.data(), x.C, bytes, cudaMemcpyDeviceToHost);
  cublasDestroy(hd);
  printf("N=%d cuBLAS SGEMM %.3f ms (%.0f GFLOP/s), alpha %.1f beta %.1f\n", N, x.cublas_ms,
         2.0 * N * N * N / x.cublas_ms / 1e6, x.alpha, x.beta);
  return true;
}

static void release(Ctx& x) {
  cudaFree(x.A);
  cudaFree(x.B);
  cudaFree(x.C);
  cudaFree(x.C0);
}
