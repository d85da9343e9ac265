// kernels/matmul.h — SGEMM, C = A·B, all N×N floats, row-major unless noted.
//
// The ladder:
//   matmul_naive_uncoalesced  one thread per C element, threadIdx.x walks the ROWS of C:
//                             each A load and each C store touches 32 sectors
//   matmul_naive              threadIdx.x walks the columns: B loads coalesce, A broadcasts
//   matmul_naive_colmajor     the same kernel with B stored column-major: B loads scatter again
//   matmul_tiled              TILE×TILE tiles of A and B staged in shared memory, each global
//                             element loaded once per block instead of once per thread
//   matmul_corner_turning     B column-major, loaded coalesced down its columns and turned
//                             in shared memory
//   matmul_coarse1d           the tiled kernel where each thread computes COARSE outputs,
//                             so each A tile loaded serves COARSE tiles of B
//   matmul_coarse2d           a block tile BM×BN in shared memory, an 8×8 register tile per
//                             thread (outer products of register vectors)
//   matmul_coarse2d_vec       the same with float4 (128-bit) global loads and stores and
//                             A stored transposed in shared memory
//
// The published kernels, reproduced access for access on the sizes their sources support
// (no bounds checks where the source has none), with the epilogue C = alpha·A·B + beta·C
// that reads C:
//   matmul_siboehm5           "How to optimize a CUDA matmul", kernel 5: 2-D blocktiling
//   matmul_siboehm6           kernel 6: As transposed, float4 global loads and stores
//   matmul_xgemm6             xGeMM step 6: 128×16 A tiles stored transposed, 16×128 B
//                             tiles, float4 loads, bounds checks, a scalar epilogue
#pragma once
#include <vector>
#include "contract.h"

namespace ws::kernels {

struct MatmulArgs {
  Buf<const float> A;  // N×N row-major
  Buf<const float> B;  // N×N row-major, or column-major for the kernels that say so
  Buf<float> C;        // N×N row-major
  int N;
  float alpha = 1.0f, beta = 0.0f;  // C = alpha·A·B + beta·C, for the kernels that read C
};

// The three matrices as the context hands them out: `auto [A, B, C] = matrices(ctx, a);`.
template <class In, class Out>
struct Matrices {
  In A, B;
  Out C;
};
template <class Ctx>
WS_KERNEL auto matrices(Ctx& ctx, const MatmulArgs& a) {
  return Matrices<decltype(ctx.global(a.A)), decltype(ctx.global(a.C))>{ctx.global(a.A), ctx.global(a.B),
                                                                         ctx.global(a.C)};
}

// One thread computes C[row][col]. With B_COL_MAJOR, element (k, col) of B is B[col * N + k].
template <bool B_COL_MAJOR, class Ctx>
WS_KERNEL void naive_dot(Ctx& ctx, const MatmulArgs& a, int row, int col) {
  auto [A, B, C] = matrices(ctx, a);
  int N = a.N;
  if (row < N && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k) {
      if (B_COL_MAJOR)
        sum += A[row * N + k] * B[col * N + k];
      else
        sum += A[row * N + k] * B[k * N + col];
    }
    C[row * N + col] = sum;
  }
}

struct MatmulNaiveUncoalesced {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const MatmulArgs& a) const {
    int row = blockIdx.x * blockDim.x + threadIdx.x;  // the 32 lanes of a warp: 32 rows
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    naive_dot<false>(ctx, a, row, col);
  }
};

struct MatmulNaive {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const MatmulArgs& a) const {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;  // the 32 lanes of a warp: 32 columns
    naive_dot<false>(ctx, a, row, col);
  }
};

struct MatmulNaiveColMajor {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const MatmulArgs& a) const {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;  // 32 columns of a column-major B
    naive_dot<true>(ctx, a, row, col);
  }
};

// The tiled kernels: TILE×TILE threads stage TILE×TILE tiles of A and B in shared memory;
// elements outside the matrix are loaded as 0, so any N works.
//   COARSE       outputs per thread, in COARSE neighbouring tiles of C along a row: the A
//                tile a block loads serves COARSE B tiles (1: the plain tiled kernel)
//   CORNER_TURN  B is column-major: its tile is read down the columns (coalesced) and
//                stored turned, so the inner product reads Bs[k][tx] as in the row-major case
template <int TILE, int COARSE, bool CORNER_TURN>
struct MatmulTiled {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const MatmulArgs& a) const {
    WS_SHARED(float, As, [TILE][TILE]);
    WS_SHARED(float, Bs, [TILE][TILE]);
    auto [A, B, C] = matrices(ctx, a);
    int N = a.N;
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    float sum[COARSE];
#pragma unroll
    for (int c = 0; c < COARSE; ++c) sum[c] = 0.0f;
    for (int ph = 0; ph < (N + TILE - 1) / TILE; ++ph) {
      As[ty][tx] = (row < N && ph * TILE + tx < N) ? A[row * N + ph * TILE + tx] : 0.0f;
#pragma unroll
      for (int c = 0; c < COARSE; ++c) {
        int col = (blockIdx.x * COARSE + c) * TILE + tx;
        if (!CORNER_TURN) {
          Bs[ty][tx] = (ph * TILE + ty < N && col < N) ? B[(ph * TILE + ty) * N + col] : 0.0f;
        } else {
          // Lanes (consecutive tx) read consecutive k down column bcol of B.
          int bcol = (blockIdx.x * COARSE + c) * TILE + ty;
          Bs[tx][ty] = (ph * TILE + tx < N && bcol < N) ? B[bcol * N + ph * TILE + tx] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE; ++k) sum[c] += As[ty][k] * Bs[k][tx];
        __syncthreads();
      }
    }
#pragma unroll
    for (int c = 0; c < COARSE; ++c) {
      int col = (blockIdx.x * COARSE + c) * TILE + tx;
      if (row < N && col < N) C[row * N + col] = sum[c];
    }
  }
};

constexpr int kCoarseTile = 32;  // tile edge of matmul_coarse1d

// 2-D register blocking: a block of (BM*BN)/(TM*TN) threads computes a BM×BN tile of C; each
// thread holds a TM×TN tile of it in registers and, for every k, multiplies a column of TM
// A values by a row of TN B values (an outer product): TM+TN shared loads for TM*TN FMAs.
template <int BM_>
struct RegisterTiling {
  static constexpr int BM = BM_, BN = BM_, BK = 8, TM = 8, TN = 8;
  static constexpr int THREADS = (BM * BN) / (TM * TN);

  WS_KERNEL static void outer_product(float* acc, const float* regM, const float* regN) {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i * TN + j] += regM[i] * regN[j];
  }
};

template <int BM_>
struct MatmulCoarse2D : RegisterTiling<BM_> {
  using T = RegisterTiling<BM_>;
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const MatmulArgs& a) const {
    constexpr int BM = T::BM, BN = T::BN, BK = T::BK, TM = T::TM, TN = T::TN, THREADS = T::THREADS;
    WS_SHARED(float, As, [BM][BK]);
    WS_SHARED(float, Bs, [BK][BN]);
    auto [A, B, C] = matrices(ctx, a);
    int N = a.N;
    int tid = threadIdx.x;
    int threadRow = tid / (BN / TN);  // this thread's TM rows of the block tile
    int threadCol = tid % (BN / TN);  // and its TN columns
    int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
    float acc[TM * TN] = {0.0f};
    float regM[TM], regN[TN];
    for (int k0 = 0; k0 < N; k0 += BK) {
      // Each pass, the block loads THREADS/BK rows of the A tile and THREADS/BN rows of the B tile.
      for (int r = tid / BK; r < BM; r += THREADS / BK) {
        int gr = rowBase + r, gk = k0 + tid % BK;
        As[r][tid % BK] = (gr < N && gk < N) ? A[gr * N + gk] : 0.0f;
      }
      for (int r = tid / BN; r < BK; r += THREADS / BN) {
        int gk = k0 + r, gc = colBase + tid % BN;
        Bs[r][tid % BN] = (gk < N && gc < N) ? B[gk * N + gc] : 0.0f;
      }
      __syncthreads();
      for (int k = 0; k < BK; ++k) {
#pragma unroll
        for (int i = 0; i < TM; ++i) regM[i] = As[threadRow * TM + i][k];
#pragma unroll
        for (int j = 0; j < TN; ++j) regN[j] = Bs[k][threadCol * TN + j];
        T::outer_product(acc, regM, regN);
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      int r = rowBase + threadRow * TM + i;
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        int c = colBase + threadCol * TN + j;
        if (r < N && c < N) C[r * N + c] = acc[i * TN + j];
      }
    }
  }
};

// As matmul_coarse2d, but every global access is one 16-byte float4 (N must be a multiple
// of 4), and column indices count float4s: N4 of them per row, colBase4 and threadCol4 the
// first float4 column of the block's and of this thread's part of C. The A tile is stored
// transposed, As[k][m], so the TM values a thread needs for one k lie side by side and are
// read as TM/4 float4s (As4, the same tile seen as float4).
template <int BM_>
struct MatmulCoarse2DVec : RegisterTiling<BM_> {
  using T = RegisterTiling<BM_>;
  static_assert(T::BK % 4 == 0 && T::TM % 4 == 0 && T::TN % 4 == 0,
                "float4 tiles need BK, TM and TN to be multiples of 4");
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const MatmulArgs& a) const {
    constexpr int BM = T::BM, BN = T::BN, BK = T::BK, TM = T::TM, TN = T::TN, THREADS = T::THREADS;
    WS_SHARED(float, As, [BK][BM]);       // transposed: As[k][m]
    WS_SHARED(float4, Bs, [BK][BN / 4]);  // one float4 = 4 neighbouring columns
    auto&& As4 = view_as<float4>(As);     // As4[k][j] = As[k][4j .. 4j+3]
    auto A = ctx.global(a.A.template as<const float4>());
    auto B = ctx.global(a.B.template as<const float4>());
    auto C = ctx.global(a.C.template as<float4>());
    int N = a.N, N4 = a.N / 4;
    int tid = threadIdx.x;
    int threadRow = tid / (BN / TN);
    int threadCol4 = (tid % (BN / TN)) * (TN / 4);
    int rowBase = blockIdx.y * BM, colBase4 = blockIdx.x * (BN / 4);
    float acc[TM * TN] = {0.0f};
    float regM[TM], regN[TN];
    for (int k0 = 0; k0 < N; k0 += BK) {
      for (int r = tid / (BK / 4); r < BM; r += THREADS / (BK / 4)) {
        int gr = rowBase + r, gk4 = k0 / 4 + tid % (BK / 4);
        float4 v = (gr < N && gk4 < N4) ? A[gr * N4 + gk4] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        int k = (tid % (BK / 4)) * 4;
        As[k + 0][r] = v.x;
        As[k + 1][r] = v.y;
        As[k + 2][r] = v.z;
        As[k + 3][r] = v.w;
      }
      for (int r = tid / (BN / 4); r < BK; r += THREADS / (BN / 4)) {
        int gk = k0 + r, gc4 = colBase4 + tid % (BN / 4);
        Bs[r][tid % (BN / 4)] = (gk < N && gc4 < N4) ? B[gk * N4 + gc4] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
      __syncthreads();
      for (int k = 0; k < BK; ++k) {
#pragma unroll
        for (int p = 0; p < TM / 4; ++p) {
          float4 m = As4[k][threadRow * (TM / 4) + p];
          regM[4 * p + 0] = m.x;
          regM[4 * p + 1] = m.y;
          regM[4 * p + 2] = m.z;
          regM[4 * p + 3] = m.w;
        }
#pragma unroll
        for (int q = 0; q < TN / 4; ++q) {
          float4 b = Bs[k][threadCol4 + q];
          regN[4 * q + 0] = b.x;
          regN[4 * q + 1] = b.y;
          regN[4 * q + 2] = b.z;
          regN[4 * q + 3] = b.w;
        }
        T::outer_product(acc, regM, regN);
      }
      __syncthreads();
    }
    // The TM×TN patch leaves as TM·TN/4 float4s: row i, float4 column q.
#pragma unroll
    for (int j = 0; j < TM * TN; j += 4) {
      int i = j / TN, q = (j % TN) / 4;
      int r = rowBase + threadRow * TM + i, c4 = colBase4 + threadCol4 + q;
      if (r < N && c4 < N4) C[r * N4 + c4] = make_float4(acc[j], acc[j + 1], acc[j + 2], acc[j + 3]);
    }
  }
};

// siboehm's kernel 5 (2-D blocktiling) as published: BM = BN = 128, BK = 8, TM = TN = 8,
// 256 threads, no bounds checks (N a multiple of 128). Each pass the block stages a BM×BK
// tile of A and a BK×BN tile of B; for every k a thread reads TM values down a column of As
// and TN values along a row of Bs into registers. The source reads Bs one float at a time;
// its compiler turns the TN neighbouring floats into two 128-bit loads (LDS.128), and so
// does this kernel, so that the trace shows the instructions that run. As stays 32-bit:
// the TM values lie BK floats apart.
template <int BM_>
struct MatmulSiboehm5 : RegisterTiling<BM_> {
  using T = RegisterTiling<BM_>;
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const MatmulArgs& a) const {
    constexpr int BM = T::BM, BN = T::BN, BK = T::BK, TM = T::TM, TN = T::TN, THREADS = T::THREADS;
    WS_SHARED(float, As, [BM][BK]);
    WS_SHARED(float, Bs, [BK][BN]);
    auto&& Bs4 = view_as<float4>(Bs);  // Bs4[k][j] = Bs[k][4j .. 4j+3]
    auto [A, B, C] = matrices(ctx, a);
    const unsigned N = a.N;  // unsigned index arithmetic, as the source's uint indices
    const unsigned cRow = blockIdx.y, cCol = blockIdx.x;
    const int threadCol = threadIdx.x % (BN / TN), threadRow = threadIdx.x / (BN / TN);
    const unsigned innerRowA = threadIdx.x / BK, innerColA = threadIdx.x % BK, strideA = THREADS / BK;
    const unsigned innerRowB = threadIdx.x / BN, innerColB = threadIdx.x % BN, strideB = THREADS / BN;
    // Move A, B and C to the block's first tiles.
    A += cRow * BM * N;
    B += cCol * BN;
    C += cRow * BM * N + cCol * BN;
    float acc[TM * TN] = {0.0f};
    float regM[TM], regN[TN];
    for (unsigned bkIdx = 0; bkIdx < N; bkIdx += BK) {
      for (unsigned off = 0; off < BM; off += strideA)
        As[innerRowA + off][innerColA] = A[(innerRowA + off) * N + innerColA];
      for (unsigned off = 0; off < BK; off += strideB)
        Bs[innerRowB + off][innerColB] = B[(innerRowB + off) * N + innerColB];
      __syncthreads();
      A += BK;      // BK columns to the right
      B += BK * N;  // BK rows down
      for (unsigned k = 0; k < BK; ++k) {
        for (unsigned i = 0; i < TM; ++i) regM[i] = As[threadRow * TM + i][k];
        for (unsigned q = 0; q < TN / 4; ++q) {
          float4 b = Bs4[k][threadCol * (TN / 4) + q];
          regN[4 * q + 0] = b.x;
          regN[4 * q + 1] = b.y;
          regN[4 * q + 2] = b.z;
          regN[4 * q + 3] = b.w;
        }
        T::outer_product(acc, regM, regN);
      }
      __syncthreads();
    }
    // C = alpha·acc + beta·C, one float at a time: each element of C is read, then written.
    for (unsigned i = 0; i < TM; ++i)
      for (unsigned j = 0; j < TN; ++j) {
        unsigned c = (threadRow * TM + i) * N + threadCol * TN + j;
        C[c] = a.alpha * acc[i * TN + j] + a.beta * C[c];
      }
  }
};

// siboehm's kernel 6 (vectorized) as published: kernel 5 with As stored transposed, so the
// TM values a thread reads for one k are neighbours (two LDS.128, as for Bs), and every
// global access 128 bits wide: one float4 of A and one of B per thread and pass (256
// threads cover the 128×8 and 8×128 tiles exactly), C read and written as float4s.
template <int BM_>
struct MatmulSiboehm6 : RegisterTiling<BM_> {
  using T = RegisterTiling<BM_>;
  static_assert(T::BM * T::BK / 4 == T::THREADS && T::BK * T::BN / 4 == T::THREADS,
                "one float4 of each tile per thread, as the source assumes");
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const MatmulArgs& a) const {
    constexpr int BM = T::BM, BN = T::BN, BK = T::BK, TM = T::TM, TN = T::TN;
    WS_SHARED(float, As, [BK][BM]);  // transposed: As[k][m]
    WS_SHARED(float, Bs, [BK][BN]);
    auto&& As4 = view_as<float4>(As);
    auto&& Bs4 = view_as<float4>(Bs);
    auto A = ctx.global(a.A.template as<const float4>());
    auto B = ctx.global(a.B.template as<const float4>());
    auto C = ctx.global(a.C.template as<float4>());
    const unsigned N = a.N, N4 = a.N / 4;  // unsigned, as the source's uint indices; N4 float4s a row
    const unsigned cRow = blockIdx.y, cCol = blockIdx.x;
    const int threadCol = threadIdx.x % (BN / TN), threadRow = threadIdx.x / (BN / TN);
    const unsigned innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
    const unsigned innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);
    // Where the block's tiles start, in float4s; the source moves its pointers instead.
    unsigned aStart = cRow * BM * N4, bStart = cCol * (BN / 4);
    const unsigned cStart = cRow * BM * N4 + cCol * (BN / 4);
    float acc[TM * TN] = {0.0f};
    float regM[TM], regN[TN];
    for (unsigned bkIdx = 0; bkIdx < N; bkIdx += BK) {
      float4 t = A[aStart + innerRowA * N4 + innerColA];
      As[innerColA * 4 + 0][innerRowA] = t.x;  // transposed while stored
      As[innerColA * 4 + 1][innerRowA] = t.y;
      As[innerColA * 4 + 2][innerRowA] = t.z;
      As[innerColA * 4 + 3][innerRowA] = t.w;
      Bs4[innerRowB][innerColB] = B[bStart + innerRowB * N4 + innerColB];
      __syncthreads();
      aStart += BK / 4;   // BK columns to the right
      bStart += BK * N4;  // BK rows down
      for (unsigned k = 0; k < BK; ++k) {
        for (unsigned p = 0; p < TM / 4; ++p) {
          float4 m = As4[k][threadRow * (TM / 4) + p];
          regM[4 * p + 0] = m.x;
          regM[4 * p + 1] = m.y;
          regM[4 * p + 2] = m.z;
          regM[4 * p + 3] = m.w;
        }
        for (unsigned q = 0; q < TN / 4; ++q) {
          float4 b = Bs4[k][threadCol * (TN / 4) + q];
          regN[4 * q + 0] = b.x;
          regN[4 * q + 1] = b.y;
          regN[4 * q + 2] = b.z;
          regN[4 * q + 3] = b.w;
        }
        T::outer_product(acc, regM, regN);
      }
      __syncthreads();
    }
    // C = alpha·acc + beta·C, a float4 at a time: read, update, write back.
    for (unsigned i = 0; i < TM; ++i)
      for (unsigned j = 0; j < TN; j += 4) {
        unsigned c4 = cStart + (threadRow * TM + i) * N4 + (threadCol * TN + j) / 4;
        float4 v = C[c4];
        v.x = a.alpha * acc[i * TN + j + 0] + a.beta * v.x;
        v.y = a.alpha * acc[i * TN + j + 1] + a.beta * v.y;
        v.z = a.alpha * acc[i * TN + j + 2] + a.beta * v.z;
        v.w = a.alpha * acc[i * TN + j + 3] + a.beta * v.w;
        C[c4] = v;
      }
  }
};

// xGeMM step 6 as published: a 128×16 tile of A stored transposed (sh_A[16][128]), a
// 16×128 tile of B, 8×8 outputs per thread, 256 threads, float4 global loads in two passes
// each, bounds checks that store zeros outside the matrix (N a multiple of 4), and a scalar
// epilogue that reads C: C = 1·acc + 0·C. The source stores each B float4 as four floats
// and reads its 8 register values one float at a time; its compiler merges both into
// 128-bit shared accesses (STS.128, LDS.128), which this kernel writes as float4s.
struct MatmulXgemm6 {
  static constexpr int BM = 128, BN = 128, BK = 16, TM = 8, TN = 8;
  static constexpr int THREADS = BM * BN / (TM * TN);
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const MatmulArgs& a) const {
    WS_SHARED(float, sh_A, [BK][BM]);  // transposed: sh_A[k][m]
    WS_SHARED(float, sh_B, [BK][BN]);
    auto&& sh_A4 = view_as<float4>(sh_A);
    auto&& sh_B4 = view_as<float4>(sh_B);
    auto A = ctx.global(a.A.template as<const float4>());
    auto B = ctx.global(a.B.template as<const float4>());
    auto C = ctx.global(a.C);
    const int N = a.N, N4 = a.N / 4;
    const int by = blockIdx.y, bx = blockIdx.x, tx = threadIdx.x;
    const int A_ty = tx / (BK / 4), A_tx = tx % (BK / 4), strideA = THREADS / (BK / 4);
    const int B_ty = tx / (BN / 4), B_tx = tx % (BN / 4), strideB = THREADS / (BN / 4);
    const int row = TM * (tx / (BN / TN)), col = TN * (tx % (BN / TN));
    float acc[TM * TN] = {0.0f};
    float regA[TM], regB[TN];
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int phase = 0; phase < (N + BK - 1) / BK; ++phase) {
      for (int off = 0; off < BM; off += strideA) {
        int r = by * BM + off + A_ty, k4 = phase * (BK / 4) + A_tx;
        if (r < N && k4 < N4) {
          float4 t = A[r * N4 + k4];
          sh_A[A_tx * 4 + 0][off + A_ty] = t.x;  // transposed while stored
          sh_A[A_tx * 4 + 1][off + A_ty] = t.y;
          sh_A[A_tx * 4 + 2][off + A_ty] = t.z;
          sh_A[A_tx * 4 + 3][off + A_ty] = t.w;
        } else {
          sh_A[A_tx * 4 + 0][off + A_ty] = 0.0f;
          sh_A[A_tx * 4 + 1][off + A_ty] = 0.0f;
          sh_A[A_tx * 4 + 2][off + A_ty] = 0.0f;
          sh_A[A_tx * 4 + 3][off + A_ty] = 0.0f;
        }
      }
      for (int off = 0; off < BK; off += strideB) {
        int k = phase * BK + B_ty + off, c4 = bx * (BN / 4) + B_tx;
        if (k < N && c4 < N4)
          sh_B4[B_ty + off][B_tx] = B[k * N4 + c4];
        else
          sh_B4[B_ty + off][B_tx] = zero;
      }
      __syncthreads();
      // This thread's 8 values of row k of each tile, two float4s each; the pointers move
      // down one row per k (the source indexes sh_A[k][row + i], sh_B[k][col + i]).
      auto a_k = sh_A4[0] + row / 4;
      auto b_k = sh_B4[0] + col / 4;
#pragma unroll 1  // a loop, as the source's compiles to
      for (int k = 0; k < BK; ++k) {
        for (int p = 0; p < TM / 4; ++p) {
          float4 m = a_k[p];
          regA[4 * p + 0] = m.x;
          regA[4 * p + 1] = m.y;
          regA[4 * p + 2] = m.z;
          regA[4 * p + 3] = m.w;
        }
        for (int q = 0; q < TN / 4; ++q) {
          float4 b = b_k[q];
          regB[4 * q + 0] = b.x;
          regB[4 * q + 1] = b.y;
          regB[4 * q + 2] = b.z;
          regB[4 * q + 3] = b.w;
        }
        RegisterTiling<BM>::outer_product(acc, regA, regB);
        a_k += BM / 4;
        b_k += BN / 4;
      }
      __syncthreads();
    }
    for (int cy = 0; cy < TM; ++cy)
      for (int cx = 0; cx < TN; ++cx) {
        int r = by * BM + row + cy, c = bx * BN + col + cx;
        if (r < N && c < N) C[r * N + c] = 1.0f * acc[cy * TN + cx] + 0.0f * C[r * N + c];
      }
  }
};

// CPU reference: C = A·B for N×N matrices, each row summed in double and rounded to float
// once, so it is at least as accurate as any kernel above. With B_COL_MAJOR, element
// (k, j) of B is B[j * N + k].
template <bool B_COL_MAJOR>
void matmul_reference(const float* A, const float* B, float* C, int64_t N) {
  std::vector<double> row;
  for (int64_t i = 0; i < N; ++i) {
    row.assign(size_t(N), 0.0);
    for (int64_t k = 0; k < N; ++k)
      for (int64_t j = 0; j < N; ++j)
        row[size_t(j)] += double(A[i * N + k]) * double(B_COL_MAJOR ? B[j * N + k] : B[k * N + j]);
    for (int64_t j = 0; j < N; ++j) C[i * N + j] = float(row[size_t(j)]);
  }
}

// CPU reference of the kernels that read C: C = alpha·(A·B) + beta·C, A·B as above.
inline void gemm_reference(const float* A, const float* B, float* C, int64_t N, float alpha, float beta) {
  std::vector<float> ab(size_t(N * N));
  matmul_reference<false>(A, B, ab.data(), N);
  for (int64_t i = 0; i < N * N; ++i) C[i] = alpha * ab[size_t(i)] + beta * C[i];
}

}  // namespace ws::kernels
