// kernels/transpose.h — matrix transpose, out = inᵀ, in is n×m (row-major), out is m×n.
//
// The ladder:
//   transpose_read_coalesced   a warp reads a row of `in` (coalesced) and writes a column
//                              of `out` (each lane a different row: 32 sectors a store)
//   transpose_write_coalesced  the mirror image: strided reads, coalesced writes
//   transpose_tiled            a TILE×TILE tile goes through shared memory so that both
//                              the read and the write are coalesced; the transposed store
//                              into the tile is a 32-way bank conflict unless each tile row
//                              is padded by one word (pad = 1). A block of TILE×ROWS threads
//                              moves TILE/ROWS elements a thread (ROWS = TILE: the blog's
//                              one element a thread)
//   transpose_tiled_dynamic    the same with the tile in dynamic shared memory, sized from
//                              the block
#pragma once
#include <cstdint>
#include "contract.h"

namespace ws::kernels {

struct TransposeArgs {
  Buf<const float> in;  // (n, m)
  Buf<float> out;       // (m, n)
  int n, m;
  int block_order = 0;  // transpose_tiled: 0 blockIdx.x walks along a row of in's tiles, 1 down a column
};

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

// TILE×ROWS threads move a TILE×TILE tile, TILE/ROWS elements a thread. The tile is column
// bx, row by of in's tiles; with block_order 1 consecutive blocks go down a column of in's
// tiles, so the blocks that run together write neighbouring tiles along a row of out.
template <int TILE, int ROWS, int PAD>
struct TransposeTiled {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const TransposeArgs& a) const {
    WS_SHARED(float, tile, [TILE][TILE + PAD]);
    auto in = ctx.global(a.in);
    auto out = ctx.global(a.out);
    int bx = a.block_order ? blockIdx.y : blockIdx.x;
    int by = a.block_order ? blockIdx.x : blockIdx.y;
    int j = bx * TILE + threadIdx.x;  // column of in
#pragma unroll
    for (int k = 0; k < TILE; k += ROWS) {
      int i = by * TILE + threadIdx.y + k;  // row of in
      if (i < a.n && j < a.m)
        tile[threadIdx.x][threadIdx.y + k] = in[i * a.m + j];
    }
    __syncthreads();
    int jo = by * TILE + threadIdx.x;  // column of out
#pragma unroll
    for (int k = 0; k < TILE; k += ROWS) {
      int io = bx * TILE + threadIdx.y + k;  // row of out
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

// CPU reference: out = inᵀ, in is n×m and out m×n, both row-major.
inline void transpose_reference(const float* in, float* out, int64_t n, int64_t m) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) out[j * n + i] = in[i * m + j];
}

}  // namespace ws::kernels
