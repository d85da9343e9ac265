// kernels/transpose.h — matrix transpose, out = inᵀ, in is n×m (row-major), out is m×n.
//
// The ladder:
//   transpose_read_coalesced   a warp reads a row of `in` (coalesced) and writes a column
//                              of `out` (each lane a different row: 32 sectors a store)
//   transpose_write_coalesced  the mirror image: strided reads, coalesced writes
//   transpose_tiled            a TILE×TILE block goes through shared memory so that both
//                              the read and the write are coalesced; the transposed store
//                              into the tile is a 32-way bank conflict unless each tile row
//                              is padded by one word (pad = 1)
//   transpose_tiled_dynamic    the same with the tile in dynamic shared memory, sized from
//                              the block
#pragma once
#include "catalog.h"
#include "contract.h"

namespace ws::kernels {

struct TransposeArgs {
  Buf<const float> in;  // (n, m)
  Buf<float> out;       // (m, n)
  int n, m;
};

constexpr int kTransposeTile = 32;  // tile edge of transpose_tiled
constexpr int kTransposeRows = 8;   // block is TILE×ROWS threads; each does TILE/ROWS elements

// The naive transposes, one element per thread: the consecutive lanes of a warp (threadIdx.x)
// walk along a row of `in` (COALESCED_READS) or along a row of `out`, i.e. down a column
// of `in`. The accesses are the same; only the mapping of threads to elements differs.
template <bool COALESCED_READS>
struct TransposeNaive {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const TransposeArgs& a) const {
    auto in = ctx.global(a.in);
    auto out = ctx.global(a.out);
    int x = blockIdx.x * blockDim.x + threadIdx.x;  // consecutive lanes
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int row = COALESCED_READS ? y : x;  // row and column of in
    int col = COALESCED_READS ? x : y;
    if (row < a.n && col < a.m) {
      float v = in[row * a.m + col];
      out[col * a.n + row] = v;
    }
  }
};

template <int PAD>
struct TransposeTiled {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const TransposeArgs& a) const {
    constexpr int TILE = kTransposeTile, ROWS = kTransposeRows;
    WS_SHARED(float, tile, [TILE][TILE + PAD]);
    auto in = ctx.global(a.in);
    auto out = ctx.global(a.out);
    int j = blockIdx.x * TILE + threadIdx.x;  // column of in
    for (int k = 0; k < TILE; k += ROWS) {
      int i = blockIdx.y * TILE + threadIdx.y + k;  // row of in
      if (i < a.n && j < a.m)
        tile[threadIdx.x][threadIdx.y + k] = in[i * a.m + j];
    }
    __syncthreads();
    int jo = blockIdx.y * TILE + threadIdx.x;  // column of out
    for (int k = 0; k < TILE; k += ROWS) {
      int io = blockIdx.x * TILE + threadIdx.y + k;  // row of out
      if (io < a.m && jo < a.n)
        out[io * a.n + jo] = tile[threadIdx.y + k][threadIdx.x];
    }
  }
};

// One element per thread; the tile edge is the block edge (blockDim.x == blockDim.y).
template <int PAD>
struct TransposeTiledDynamic {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const TransposeArgs& a) const {
    WS_DYNAMIC_SHARED(float, tile);  // (T, T + PAD)
    int T = blockDim.x;
    int j = blockIdx.x * T + threadIdx.x;
    int i = blockIdx.y * T + threadIdx.y;
    auto in = ctx.global(a.in);
    auto out = ctx.global(a.out);
    if (i < a.n && j < a.m)
      tile[threadIdx.x * (T + PAD) + threadIdx.y] = in[i * a.m + j];
    __syncthreads();
    int jo = blockIdx.y * T + threadIdx.x;
    int io = blockIdx.x * T + threadIdx.y;
    if (io < a.m && jo < a.n)
      out[io * a.n + jo] = tile[threadIdx.y * (T + PAD) + threadIdx.x];
  }
};

// ---------------------------------------------------------------------------------------
// Catalog entries (host code).

struct TransposeFamily {
  static int64_t rows(const catalog::Params& p) { return p.size(); }
  static int64_t cols(const catalog::Params& p) { return p["m"] > 0 ? p["m"] : p.size(); }
  static catalog::KernelInfo base(const char* id, const char* title, const char* lesson);
  template <class L>
  static TransposeArgs args(L& l, const catalog::Params& p) {
    return {l.template buf<const float>(0), l.template buf<float>(1), int(rows(p)), int(cols(p))};
  }
};

inline catalog::KernelInfo TransposeFamily::base(const char* id, const char* title,
                                                 const char* lesson) {
  catalog::KernelInfo k;
  k.id = id;
  k.family = "transpose";
  k.title = title;
  k.lesson = lesson;
  k.source_file = "transpose.h";
  k.teach_size = 64;
  k.bench_size = 8192;
  k.size_max = 1 << 15;
  k.params.push_back({"m", 0, {}, 0, 1 << 15, "columns of in (0: same as size, a square matrix)"});
  k.buffers = [](const catalog::Params& p) {
    return std::vector<catalog::BufferSpec>{
        {"in", uint64_t(rows(p)), uint64_t(cols(p)), false, catalog::Role::In},
        {"out", uint64_t(cols(p)), uint64_t(rows(p)), false, catalog::Role::Out}};
  };
  k.reference = [](const catalog::Params& p, catalog::HostArrays& a) {
    int64_t n = rows(p), m = cols(p);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) a[1][j * n + i] = a[0][i * m + j];
  };
  k.flops = [](const catalog::Params&) { return 0.0; };
  k.bytes = [](const catalog::Params& p) { return 2.0 * 4.0 * double(rows(p)) * double(cols(p)); };
  return k;
}

// The two naive transposes: 32×8 threads a block, one element each; threadIdx.x walks a
// row of `in` (COALESCED_READS) or a row of `out`.
template <bool COALESCED_READS>
struct NaiveTransposeEntry : TransposeFamily {
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    int64_t x = COALESCED_READS ? cols(p) : rows(p), y = COALESCED_READS ? rows(p) : cols(p);
    dim3 grid(unsigned((x + 31) / 32), unsigned((y + 7) / 8));
    l.template launch<TransposeNaive<COALESCED_READS>>(grid, dim3(32, 8), 0, args(l, p));
  }
};

struct transpose_read_coalesced : NaiveTransposeEntry<true> {
  static catalog::KernelInfo info() {
    return base("transpose_read_coalesced", "naive transpose, coalesced reads", R"(
      Each warp reads 32 neighbouring elements of a row of `in`: 4 sectors, perfect. It
      writes them down a column of `out`: every lane lands in a different row, so each store
      touches 32 sectors to write 128 useful bytes.)");
  }
};

struct transpose_write_coalesced : NaiveTransposeEntry<false> {
  static catalog::KernelInfo info() {
    return base("transpose_write_coalesced", "naive transpose, coalesced writes", R"(
      The mirror image: consecutive lanes write consecutive elements of `out` (4 sectors a
      store) but read down a column of `in` (32 sectors a load). Swapping which side is
      strided does not remove the waste.)");
  }
};

struct transpose_tiled : TransposeFamily {
  static catalog::KernelInfo info() {
    auto k = base("transpose_tiled", "tiled transpose through shared memory", R"(
      A 32×32 tile is read from `in` row by row (coalesced), stored transposed into shared
      memory, and written to `out` row by row (coalesced). The transposed store
      `tile[threadIdx.x][...]` puts all 32 lanes of a warp in the same bank: a 32-way
      conflict. Padding each row by one word (pad=1) shifts every row by one bank and the
      conflict disappears.)");
    k.params.push_back({"pad", 0, {0, 1}, 0, 1, "extra words per tile row"});
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    constexpr int T = kTransposeTile;
    dim3 block(T, kTransposeRows);
    dim3 grid((cols(p) + T - 1) / T, (rows(p) + T - 1) / T);
    if (p["pad"])
      l.template launch<TransposeTiled<1>>(grid, block, 0, args(l, p));
    else
      l.template launch<TransposeTiled<0>>(grid, block, 0, args(l, p));
  }
};

struct transpose_tiled_dynamic : TransposeFamily {
  static catalog::KernelInfo info() {
    auto k = base("transpose_tiled_dynamic", "tiled transpose, tile in dynamic shared memory", R"(
      The tile edge is the block edge, chosen at launch, so the tile lives in dynamic shared
      memory (`extern __shared__`) and is indexed by hand. The same padding trick applies:
      with pad=1 a column of the tile spreads over all banks.)");
    k.params.push_back({"tile", 32, {8, 16, 32}, 8, 32, "tile edge = block edge"});
    k.params.push_back({"pad", 0, {0, 1}, 0, 1, "extra words per tile row"});
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    unsigned T = unsigned(p["tile"]);
    dim3 block(T, T);
    dim3 grid(unsigned((cols(p) + T - 1) / T), unsigned((rows(p) + T - 1) / T));
    uint32_t bytes = uint32_t(T * (T + p["pad"]) * sizeof(float));
    if (p["pad"])
      l.template launch<TransposeTiledDynamic<1>>(grid, block, bytes, args(l, p));
    else
      l.template launch<TransposeTiledDynamic<0>>(grid, block, bytes, args(l, p));
  }
};

}  // namespace ws::kernels
