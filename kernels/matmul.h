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
#pragma once
#include "catalog.h"
#include "contract.h"

namespace ws::kernels {

struct MatmulArgs {
  Buf<const float> A;  // N×N row-major
  Buf<const float> B;  // N×N row-major, or column-major for the kernels that say so
  Buf<float> C;        // N×N row-major
  int N;
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

// ---------------------------------------------------------------------------------------
// Catalog entries (host code).

struct MatmulFamily {
  static int64_t n(const catalog::Params& p) { return p.size(); }
  static catalog::KernelInfo base(const char* id, const char* title, const char* lesson, bool b_col_major);
  template <class L>
  static MatmulArgs args(L& l, const catalog::Params& p) {
    return {l.template buf<const float>(0), l.template buf<const float>(1), l.template buf<float>(2),
            int(n(p))};
  }
  // Grid covering C with blocks of tile_rows × tile_cols outputs.
  static dim3 grid(const catalog::Params& p, int64_t tile_rows, int64_t tile_cols) {
    return dim3(unsigned((n(p) + tile_cols - 1) / tile_cols), unsigned((n(p) + tile_rows - 1) / tile_rows));
  }
  template <bool B_COL_MAJOR>
  static std::vector<catalog::BufferSpec> buffers(const catalog::Params& p) {
    uint64_t N = uint64_t(n(p));
    return {{"A", N, N, false, catalog::Role::In},
            {"B", N, N, B_COL_MAJOR, catalog::Role::In},
            {"C", N, N, false, catalog::Role::Out}};
  }
  template <bool B_COL_MAJOR>
  static void reference(const catalog::Params& p, catalog::HostArrays& arr);
};

template <bool B_COL_MAJOR>
void MatmulFamily::reference(const catalog::Params& p, catalog::HostArrays& arr) {
  const int64_t N = n(p);
  const auto &A = arr[0], &B = arr[1];
  auto& C = arr[2];
  std::vector<double> row;
  for (int64_t i = 0; i < N; ++i) {
    row.assign(size_t(N), 0.0);
    for (int64_t k = 0; k < N; ++k)
      for (int64_t j = 0; j < N; ++j)
        row[size_t(j)] += double(A[i * N + k]) * double(B_COL_MAJOR ? B[j * N + k] : B[k * N + j]);
    for (int64_t j = 0; j < N; ++j) C[i * N + j] = float(row[size_t(j)]);
  }
}

inline catalog::KernelInfo MatmulFamily::base(const char* id, const char* title, const char* lesson,
                                              bool b_col_major) {
  catalog::KernelInfo k{.id = id, .family = "sgemm", .title = title, .lesson = lesson,
                        .source_file = "matmul.h", .teach_size = 64, .bench_size = 4096,
                        .size_max = 1 << 14, .params = {}};
  k.buffers = b_col_major ? &buffers<true> : &buffers<false>;
  k.reference = b_col_major ? &reference<true> : &reference<false>;
  k.flops = [](const catalog::Params& p) { return 2.0 * double(n(p)) * double(n(p)) * double(n(p)); };
  k.bytes = [](const catalog::Params& p) { return 3.0 * 4.0 * double(n(p)) * double(n(p)); };
  return k;
}

// One thread per element of C, 32×32 threads a block.
template <class Kernel, bool B_COL_MAJOR>
struct NaiveEntry : MatmulFamily {
  static catalog::KernelInfo naive_info(const char* id, const char* title, const char* lesson) {
    return base(id, title, lesson, B_COL_MAJOR);
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    l.template launch<Kernel>(grid(p, 32, 32), dim3(32, 32), 0, args(l, p));
  }
};

struct matmul_naive_uncoalesced : NaiveEntry<MatmulNaiveUncoalesced, false> {
  static catalog::KernelInfo info() {
    return naive_info("matmul_naive_uncoalesced", "naive SGEMM, threads along rows (uncoalesced)", R"(
      One thread per element of C, but threadIdx.x picks the ROW. The 32 lanes of a warp read
      A[row * N + k] from 32 different rows, N floats apart: 32 sectors for 128 useful bytes,
      and the C store is just as scattered. All lanes share one column of B, so
      B[k * N + col] is a broadcast. Compare with matmul_naive: the same arithmetic, only the
      mapping from threads to elements differs.)");
  }
};

struct matmul_naive : NaiveEntry<MatmulNaive, false> {
  static catalog::KernelInfo info() {
    return naive_info("matmul_naive", "naive SGEMM, threads along columns", R"(
      threadIdx.x now picks the column: a warp reads B[k * N + col] across 32 neighbouring
      columns (4 sectors a request, fully used) and writes C the same way, while
      A[row * N + k] is one word for the whole warp (a broadcast). Every access is coalesced,
      yet each thread still reads 2N floats from global memory for 2N flops: the kernel is
      bound by memory traffic, which tiling attacks next.)");
  }
};

struct matmul_naive_colmajor : NaiveEntry<MatmulNaiveColMajor, true> {
  static catalog::KernelInfo info() {
    return naive_info("matmul_naive_colmajor", "naive SGEMM, B stored column-major", R"(
      The kernel of matmul_naive, but B is stored column by column: element (k, col) is
      B[col * N + k]. Neighbouring lanes read neighbouring columns, which are now N floats
      apart in memory: 32 sectors per B load. The data layout decides whether a mapping
      coalesces; matmul_corner_turning fixes it without changing the layout.)");
  }
};

// TILE×TILE threads a block, one element of C each; `tile` picks the compiled TILE.
template <bool CORNER_TURN>
struct TiledEntry : MatmulFamily {
  static catalog::KernelInfo tiled_info(const char* id, const char* title, const char* lesson) {
    auto k = base(id, title, lesson, CORNER_TURN);
    k.params.push_back({"tile", 16, {2, 4, 8, 16, 32}, 2, 32, "tile edge = block edge"});
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    catalog::with_constant<2, 4, 8, 16, 32>(p["tile"], [&](auto tile) {
      constexpr int T = decltype(tile)::value;
      l.template launch<MatmulTiled<T, 1, CORNER_TURN>>(grid(p, T, T), dim3(T, T), 0, args(l, p));
    });
  }
};

struct matmul_tiled : TiledEntry<false> {
  static catalog::KernelInfo info() {
    return tiled_info("matmul_tiled", "tiled SGEMM through shared memory", R"(
      Each block stages a TILE×TILE tile of A and one of B in shared memory (As, Bs), waits at
      __syncthreads(), and computes TILE partial products from shared memory. Every global
      element is now loaded once per block instead of once per thread: global traffic drops
      by a factor TILE. Both tile loads are coalesced rows; As[ty][k] is a broadcast and
      Bs[k][tx] walks the banks, so the shared reads are conflict-free. Out-of-range elements
      are loaded as 0, so any N works.)");
  }
};

struct matmul_corner_turning : TiledEntry<true> {
  static catalog::KernelInfo info() {
    return tiled_info("matmul_corner_turning", "tiled SGEMM, column-major B turned in shared memory", R"(
      B is column-major, so reading a row of the B tile would be strided. Instead consecutive
      threads read consecutive k down one column of B (coalesced), and each element is stored
      turned, Bs[k][column], so the inner product reads Bs exactly as matmul_tiled does. The
      cost moves to shared memory: the turned store Bs[tx][ty] sends lanes TILE words apart
      into a few banks (8-way at tile 16, 32-way at tile 32), the conflict that the transpose
      lessons remove by padding.)");
  }
};

struct matmul_coarse1d : MatmulFamily {
  static catalog::KernelInfo info() {
    auto k = base("matmul_coarse1d", "tiled SGEMM with thread coarsening", R"(
      The kernel of matmul_tiled (32×32 tiles) with COARSE = `coarse`: each block computes
      `coarse` neighbouring tiles of C along a row. The A tile is loaded once and used against
      `coarse` B tiles, and each thread keeps `coarse` running sums in registers (sum[c]).
      Fewer blocks load the same A tile: A traffic drops by the coarsening factor, at the
      price of fewer, longer-running threads.)",
                  false);
    k.teach_size = 128;
    k.params.push_back({"coarse", 4, {1, 2, 4, 8}, 1, 8, "output tiles per block along a row"});
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    catalog::with_constant<1, 2, 4, 8>(p["coarse"], [&](auto coarse) {
      constexpr int C = decltype(coarse)::value, T = kCoarseTile;
      l.template launch<MatmulTiled<T, C, false>>(grid(p, T, T * C), dim3(T, T), 0, args(l, p));
    });
  }
};

// (BM·BN)/(TM·TN) threads a block, a BM×BN tile of C; `bm` picks the compiled BM.
template <template <int> class Kernel>
struct RegisterTiledEntry : MatmulFamily {
  static catalog::KernelInfo register_tiled_info(const char* id, const char* title, const char* lesson) {
    auto k = base(id, title, lesson, false);
    k.teach_size = 128;
    k.params.push_back({"bm", 128, {64, 128}, 64, 128, "block tile edge BM = BN (BK = 8, TM = TN = 8)"});
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    catalog::with_constant<64, 128>(p["bm"], [&](auto bm) {
      using K = Kernel<decltype(bm)::value>;
      l.template launch<K>(grid(p, K::BM, K::BN), dim3(K::THREADS), 0, args(l, p));
    });
  }
};

struct matmul_coarse2d : RegisterTiledEntry<MatmulCoarse2D> {
  static catalog::KernelInfo info() {
    return register_tiled_info("matmul_coarse2d", "SGEMM with 2-D register blocking", R"(
      A block of (BM·BN)/64 threads computes a BM×BN tile of C, 8 k at a time; each thread
      owns an 8×8 patch of it in registers (acc). For every k it loads 8 values of A (regM)
      and 8 of B (regN) from shared memory and does 64 multiply-adds: 16 shared loads for 64
      FMAs, where the tiled kernel needed 2 per FMA. The shared reads are not free: the rows
      of As a warp reads are 64 words apart, in one bank, and the lanes reading
      Bs[k][threadCol * TN + j] are 8 words apart, so both loads take several wavefronts. The
      C store has lanes 8 words apart too: 32 sectors a request.)");
  }
};

struct matmul_coarse2d_vec : RegisterTiledEntry<MatmulCoarse2DVec> {
  static catalog::KernelInfo info() {
    auto k = register_tiled_info("matmul_coarse2d_vec", "SGEMM, register blocking and float4 accesses", R"(
      The register-blocked kernel with 128-bit accesses: each lane loads a float4 of A and of
      B and stores a float4 of C, so one warp request moves 512 bytes (16 sectors), a quarter
      of the instructions. The A tile is stored transposed (As[k][m]): its four scalar stores
      cost a 2-way conflict, but the TM values a thread reads for one k become neighbours and
      the regM loads are conflict-free. Bs is written and read as float4, in 4 phases of 8
      lanes; the reads, 8 words apart a lane, still take 2 wavefronts a phase. N must be a
      multiple of 4 so that every row starts on a 16-byte boundary.)");
    k.size_min = 4;
    k.check = [](const catalog::Params& p) -> std::string {
      if (p.size() % 4 == 0) return "";
      return "matmul_coarse2d_vec needs a size that is a multiple of 4 (rows are read as float4): got " +
             std::to_string(p.size());
    };
    return k;
  }
};

}  // namespace ws::kernels
