// kernels/swizzle.h — a 64×64 half tile in shared memory, read the way a tensor-core GEMM
// reads its A operand: `ldmatrix.x4`, each lane naming one 16-byte row of an 8×8 matrix.
// Three layouts of the same tile, the same instructions:
//
//   swizzle_plain    row r at r × 128 bytes: the 8 rows of one matrix start in the same
//                    bank, so each matrix costs 8 wavefronts, 32 an ldmatrix.x4
//   swizzle_padded   rows 64 + 8 halves apart (144 bytes): each row starts 4 banks after
//                    the last, the 8 rows cover all 32 banks, 4 wavefronts; 1/8 more memory
//   swizzle_xor      16-byte chunk c of row r stored at chunk c ^ (r & 7): the 8 rows of a
//                    matrix land in 8 different chunks, 4 wavefronts, no memory added
//
// Each block copies one tile of `in` into shared memory (16 bytes a thread, through a
// float4: eight halves moved untouched), then every warp reads a 16-row strip with four
// ldmatrix.x4, as the A fragments of four m16n8k16 mma steps, and writes each fragment
// register back to `out` where its two halves came from: out equals in.
#pragma once
#include <cstdint>
#include "contract.h"

namespace ws::kernels {

struct SwizzleArgs {
  Buf<const half> in;  // (n, n), n a multiple of 64
  Buf<half> out;       // (n, n)
  int n;
};

constexpr int kSwizzleTile = 64;  // the tile edge, in halves
constexpr int kSwizzleChunks = 8;  // 16-byte chunks in a row of the tile

// Where logical chunk c of tile row r is stored, in 16-byte chunks of its stored row.
template <int LAYOUT>  // 0 plain, 1 padded, 2 XOR-swizzled
WS_HD int swizzle_chunk(int r, int c) {
  return LAYOUT == 2 ? c ^ (r & 7) : c;
}

// 128 threads: 4 warps, each a 16-row strip of the tile.
template <int LAYOUT>
struct SwizzleRead {
  static constexpr int kPitch = kSwizzleTile + (LAYOUT == 1 ? 8 : 0);  // halves per stored row
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const SwizzleArgs& a) const {
    WS_SHARED(half, tile, [kSwizzleTile][kPitch]);
    auto tile16 = view_as<float4>(tile);  // the same rows as 16-byte chunks
    auto in = ctx.global(a.in.template as<const float4>());
    auto out = ctx.global(a.out.template as<uint32_t>());  // two halves a word
    const int row0 = blockIdx.y * kSwizzleTile, col0 = blockIdx.x * kSwizzleTile;
    const int t = threadIdx.x;
    // Fill: 512 chunks, 4 a thread; 8 consecutive threads copy one row.
    for (int k = 0; k < 4; ++k) {
      int id = k * 128 + t, r = id / kSwizzleChunks, c = id % kSwizzleChunks;
      tile16[r][swizzle_chunk<LAYOUT>(r, c)] = in[((row0 + r) * a.n + col0) / 8 + c];
    }
    __syncthreads();
    // Read: lane l names row l % 16 of the strip, logical chunk l / 16 of the k-step, so
    // lanes 0-7, 8-15, 16-23, 24-31 give matrices a0 (rows 0-7, k 0-7), a1 (rows 8-15),
    // a2 (rows 0-7, k 8-15), a3 (rows 8-15, k 8-15).
    const int warp = t / 32, lane = t % 32;
    const int r = warp * 16 + lane % 16;
    for (int ks = 0; ks < 4; ++ks) {
      uint32_t frag[4];
      int c = ks * 2 + lane / 16;
      ctx.ldmatrix_x4(frag, tile[r][swizzle_chunk<LAYOUT>(r, c) * 8]);
      // Register i of lane l: row l/4 of matrix i, columns 2(l%4) and 2(l%4)+1.
      for (int i = 0; i < 4; ++i) {
        int fr = warp * 16 + (i % 2) * 8 + lane / 4, fc = ks * 16 + (i / 2) * 8 + 2 * (lane % 4);
        out[((row0 + fr) * a.n + col0 + fc) / 2] = frag[i];
      }
    }
  }
};

// CPU reference: the fragments go back where they came from, so out = in.
inline void swizzle_reference(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n * n; ++i) out[i] = in[i];
}

}  // namespace ws::kernels
