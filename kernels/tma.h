// kernels/tma.h — Hopper's tensor memory accelerator (TMA): one thread names a box of a
// matrix, and the whole box lands in shared memory while the warps do something else; an
// mbarrier counts its bytes in, and whoever needs the box waits on the barrier's phase.
//
//   tma_copy   out = in for an n × n matrix of floats, a box of box_rows × box_cols a block:
//              warp 0 sets the block's mbarrier up to expect the box's bytes and asks the TMA
//              for the box (the map brings it in as whole 16-byte pieces, a 512-byte record
//              for each 32 of them), every thread waits for the phase to complete, then the
//              block writes the box out row by row, reading each element where the map's
//              swizzle put its 16-byte chunk; with store=1 warp 0 hands the tile back to the
//              TMA instead, which writes the box to out through a map of the same swizzle
//
// The swizzle (32, 64 or 128 bytes) moves chunk q of each 128-byte line of the tile to
// chunk q XOR (line mod span/16): a row is still read without conflicts, and so is a column
// of a 128-byte-wide tile, whose 32 elements a plain layout keeps in one bank.
#pragma once
#include <cstdint>
#include "contract.h"

namespace ws::kernels {

struct TmaCopyArgs {
  Tma2D<const float> in;  // the n × n input, as a map of boxes
  Buf<float> out;         // n × n floats
  Tma2D<float> out_map;   // the same output, as a map of the same boxes
  int n;
  int store;              // 1: the box goes back out by a TMA store
};

constexpr int kTmaThreads = 128;

// The float of element (r, c) in a tile of `cols` floats a row as a TMA box lands in shared
// memory: its byte in a plain tile, with its 16-byte chunk moved within its 128-byte line
// by the swizzle of `span` bytes (0: none).
WS_HD int tma_tile_index(int r, int c, int cols, int span) {
  int o = r * cols * 4 + 4 * c;
  if (span) o ^= ((o >> 7) & (span / 16 - 1)) << 4;
  return o / 4;
}

// One box a block; block (bx, by) copies the box at column bx · box_cols, row by · box_rows.
struct TmaCopy {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const TmaCopyArgs& a) const {
    WS_DYNAMIC_SHARED_TMA(float, tile);  // box_rows × box_cols floats, as the swizzle lays them
    WS_SHARED(uint64_t, full, [1]);      // the mbarrier the box's bytes arrive on
    auto out = ctx.global(a.out);
    const int rows = a.in.box_rows, cols = a.in.box_cols, span = a.in.swizzle;
    const int x0 = blockIdx.x * cols, y0 = blockIdx.y * rows;
    const int t = threadIdx.x;
    if (t < 32) ctx.mbarrier_init(full[0], 1);  // one arrival a phase: warp 0's
    __syncthreads();                              // the mbarrier is set up before anyone waits on it
    if (t < 32) {
      ctx.mbarrier_arrive_expect_tx(full[0], uint32_t(rows * cols * 4));
      ctx.tma_load(tile[0], a.in, x0, y0, full[0]);
    }
    ctx.mbarrier_wait(full[0], 0);  // phase 0 completes when every byte of the box is in
    if (a.store) {
      if (t < 32) {
        ctx.fence_proxy_async();  // what the threads wrote to the tile is seen by the TMA (none here)
        ctx.tma_store(a.out_map, x0, y0, tile[0]);
        ctx.tma_store_commit();
        ctx.template tma_store_wait<0>();  // the store has read the tile: the block may end
      }
      return;
    }
    for (int i = t; i < rows * cols; i += blockDim.x) {
      const int r = i / cols, c = i % cols;
      out[(y0 + r) * a.n + x0 + c] = tile[tma_tile_index(r, c, cols, span)];
    }
  }
};

struct TmaTransposeArgs {
  Tma2D<const float> in;  // rows × cols, as 32 × 32 boxes
  Tma2D<float> out;       // cols × rows, as the same boxes
  int order;              // 1: blockIdx.x walks down a column of in's boxes
};

constexpr int kTmaBox = 32;  // the transpose's box edge: 32 floats, one 128-byte line a row

// Block (bx, by) moves the box at column bx · 32, row by · 32 of in to column by · 32, row
// bx · 32 of out; with order=1 blockIdx.x counts by, so that the blocks running together
// store neighbouring boxes of the same rows of out. SWIZZLE is the maps' swizzle span in
// bytes; STAIRCASE (lanes=1) the warp's pattern in the box. Both are compile-time, as is the
// loop (4 warps, 8 steps each): the index arithmetic folds away, and the kernel keeps pace
// with the copy.
template <int SWIZZLE, bool STAIRCASE>
struct TmaTranspose {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const TmaTransposeArgs& a) const {
    WS_DYNAMIC_SHARED_TMA(float, tile);  // two 32 × 32 tiles: the box as it landed, then its transpose
    WS_SHARED(uint64_t, full, [1]);      // the mbarrier the box's bytes arrive on
    constexpr int B = kTmaBox;
    const int bx = a.order ? blockIdx.y : blockIdx.x, by = a.order ? blockIdx.x : blockIdx.y;
    const int t = threadIdx.x;
    if (t < 32) ctx.mbarrier_init(full[0], 1);
    __syncthreads();
    if (t < 32) {
      ctx.mbarrier_arrive_expect_tx(full[0], uint32_t(B * B * 4));
      ctx.tma_load(tile[0], a.in, bx * B, by * B, full[0]);
    }
    ctx.mbarrier_wait(full[0], 0);
    const int l = t % 32, w = t / 32;  // lane l of warp w: it reads row l of the box
#pragma unroll
    for (int k = 0; k < B * B / kTmaThreads; ++k) {  // the 4 warps' steps: 8 columns' worth each
      // Warp w's step k reads column w + 4k of the box (a column); with STAIRCASE, column
      // 4k + ((l/8) XOR w): a staircase of 8 rows in each of 4 columns.
      const int r = l, c = STAIRCASE ? 4 * k + ((l / 8) ^ w) : w + 4 * k;
      tile[B * B + tma_tile_index(c, r, B, SWIZZLE)] = tile[tma_tile_index(r, c, B, SWIZZLE)];
    }
    ctx.fence_proxy_async();  // every thread's writes to the second tile, seen by the TMA
    __syncthreads();
    if (t < 32) {
      ctx.tma_store(a.out, by * B, bx * B, tile[B * B]);
      ctx.tma_store_commit();
      ctx.template tma_store_wait<0>();  // the store has read the tile: the block may end
    }
  }
};

// CPU reference: out = in.
inline void tma_copy_reference(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n * n; ++i) out[i] = in[i];
}

}  // namespace ws::kernels
