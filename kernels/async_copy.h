// kernels/async_copy.h — a tile loop that overlaps copying with computing: cp.async moves
// tile k+1 from global into one shared buffer while the warp works on tile k in the
// other (double buffering), the pattern every fast GEMM and attention kernel uses.
//
//   async_copy_tiles   out = scale · in, 64 floats (256 bytes) a tile, 8 tiles a block of
//                      one warp: lanes 0-15 each copy 16 bytes of the next tile with
//                      cp.async (8 sectors read, 2 wavefronts written), then every lane
//                      scales two floats of the current tile
//
// A copy has two halves in time: its global read when issued, its shared write when a
// wait lands it. commit closes the copies issued so far into a group; wait<1> returns when
// every group but the newest has landed, so the tile just issued stays in flight while
// the one before it is read.
#pragma once
#include <cstdint>
#include "contract.h"

namespace ws::kernels {

struct AsyncCopyArgs {
  Buf<const float> in;  // n floats, n a multiple of 64
  Buf<float> out;       // n floats
  int n;
  float scale;
};

constexpr int kAsyncTile = 64;          // floats a tile: 16 lanes × 16 bytes
constexpr int kAsyncTilesPerBlock = 8;  // tiles one block walks through

// One warp a block.
struct AsyncCopyTiles {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const AsyncCopyArgs& a) const {
    WS_SHARED(float, tile, [2][kAsyncTile]);  // tile k in buffer k % 2
    auto in = ctx.global(a.in);
    auto out = ctx.global(a.out);
    const int lane = threadIdx.x;
    const int first = blockIdx.x * kAsyncTilesPerBlock;
    const int left = a.n / kAsyncTile - first;
    const int tiles = left < kAsyncTilesPerBlock ? left : kAsyncTilesPerBlock;
    if (lane < 16) ctx.cp_async16(tile[0][4 * lane], in[first * kAsyncTile + 4 * lane]);
    ctx.cp_async_commit();
    for (int k = 0; k < tiles; ++k) {
      if (k + 1 < tiles && lane < 16)
        ctx.cp_async16(tile[(k + 1) % 2][4 * lane], in[(first + k + 1) * kAsyncTile + 4 * lane]);
      ctx.cp_async_commit();            // an empty group after the last tile: wait<1> still means tile k
      ctx.template cp_async_wait<1>();  // tile k has landed; tile k+1 may still be in flight
      __syncthreads();                  // the other lanes' copies of tile k have landed too
      const int base = (first + k) * kAsyncTile;
      out[base + lane] = a.scale * tile[k % 2][lane];
      out[base + lane + 32] = a.scale * tile[k % 2][lane + 32];
      __syncthreads();  // buffer k % 2 is read by all before tile k+2 is copied into it
    }
  }
};

// CPU reference: out = scale · in.
inline void async_copy_reference(const float* in, float* out, int64_t n, float scale) {
  for (int64_t i = 0; i < n; ++i) out[i] = scale * in[i];
}

}  // namespace ws::kernels
