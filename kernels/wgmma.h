// kernels/wgmma.h — HGEMM on Hopper's own path, C = A·B (A, B N×N halves, C N×N floats;
// A row-major, B column-major as in tensor.h, so both tiles hold k along their rows).
//
//   tc_wgmma   a 128×BN tile of C a block of three warpgroups (384 threads). Warp 0 is the
//              producer: for each k tile of 64 it waits until a stage of the ring is free,
//              arms the stage's `full` mbarrier with the bytes to come and asks the TMA for
//              the 128×64 box of A and the BN×64 box of B, which land under the 128-byte
//              swizzle. Warpgroups 1 and 2 are the consumers, rows 0-63 and 64-127 of the
//              tile: each waits for the stage's phase, hands the two tiles to the tensor
//              cores by descriptor (wgmma.mma_async m64nBNk16, four k16 steps), and, once
//              the product before it is done (wait_group 1), gives the stage of the tile
//              before back on its `empty` mbarrier. No thread loads A or B into registers,
//              and no thread but warp 0 asks for a copy. A block takes tile after tile of C
//              (its number, then a grid further): on a persistent grid, one block an SM,
//              the ring and its phases run on from tile to tile, and the producer fills the
//              next tile's stages while the consumers store the last one.
//
//   tc_wgmma_cluster  the same in clusters of 2 CTAs (kCluster), which compute vertically
//              adjacent tiles of C and so read the same boxes of B: rank 0's producer asks
//              the TMA for the B box once, multicast to both CTAs (each counts its bytes on
//              its own `full` mbarrier), and each asks for its own A box. L2 sends each row
//              of B once a cluster instead of twice. Rank 0 may refill a stage only when
//              the consumers of both CTAs are done with it: its `empty` mbarriers count 16
//              arrivals, its own 8 consumer warps' and rank 1's, which arrive on both
//              CTAs' barriers. A cluster barrier after the set-up (both CTAs' mbarriers
//              exist before either multicasts or arrives) and at the end (neither CTA
//              leaves while the other may still write to it). Its warpgroups also trade
//              registers (setmaxnreg): a block starts with 168 a thread (65,536 / 384, in
//              eights); the producer keeps 40 and the consumers take 232, as CUTLASS's
//              warp-specialized kernels do.
//
// A descriptor names a K-major tile under the 128-byte swizzle (the layout the TMA writes):
// its start address, and 1024 bytes from one group of 8 rows to the next. Each row of a
// 64-deep tile is one 128-byte line, so the k16 step j starts 32·j bytes into the row: the
// descriptor + 2 (its address field counts 16 bytes).
//
// The accumulators (m64nNk16, f32): warp w of a warpgroup holds rows 16w .. 16w+15 of its
// 64; lane l (g = l / 4, t = l % 4) holds d[4j], d[4j+1] at row g, columns 8j + 2t, +1 and
// d[4j+2], d[4j+3] at row g + 8: the same places as mma.sync's C fragment, N/8 of them.
#pragma once
#include <cstdint>
#include "contract.h"
#include "tensor.h"  // the CPU reference: the tensor ladder's, hgemm_reference(A, B, C, N)

namespace ws::kernels {

struct WgmmaArgs {
  Tma2D<const half> A;  // N×N row-major, as boxes of 128 rows × 64 k
  Tma2D<const half> B;  // N×N column-major: N rows (n) of N k, as boxes of BN rows × 64 k
  Buf<float> C;         // N×N row-major
  int N;
  int group;            // block order: bands of `group` block rows
};

template <int BN_, int STAGES, int CLUSTER = 1>
struct TcWgmma {
  static constexpr int BM = 128, BN = BN_, BK = 64, THREADS = 384, kCluster = CLUSTER;
  static constexpr int kThreadsBound = THREADS;  // one block an SM: 168 registers a thread
  static constexpr int A_TILE = BM * BK, B_TILE = BN * BK;  // halves of one stage's tiles
  static constexpr uint32_t STAGE_BYTES = (A_TILE + B_TILE) * 2;
  static constexpr int SHARED_BYTES = STAGES * int(STAGE_BYTES);
  static_assert(BN == 128 || BN == 256, "m64n128k16 or m64n256k16");
  static_assert(CLUSTER == 1 || CLUSTER == 2, "alone, or in clusters of 2 sharing B");

  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const WgmmaArgs& a) const {
    WS_DYNAMIC_SHARED_TMA(half, ring);  // STAGES tiles of A, then STAGES tiles of B
    WS_SHARED(uint64_t, full, [STAGES]);   // a stage's boxes have landed
    WS_SHARED(uint64_t, empty, [STAGES]);  // the consumers are done with a stage
    // The tiles of C this block computes: its own number, then one grid further each time
    // (a grid of one block a tile computes one; a persistent grid, one block an SM, several).
    // In clusters, the number is the cluster's, of a tile CLUSTER tiles high, and the block
    // takes the rows of its rank.
    const int gx = a.N / BN, gy = a.N / (BM * CLUSTER), tiles = gx * gy, kt = a.N / BK;
    const int first = int(blockIdx.y * gridDim.x + blockIdx.x) / CLUSTER, step = int(gridDim.x * gridDim.y) / CLUSTER;
    const int t = threadIdx.x, wg = t / 128;
    int rank = 0;
    if constexpr (CLUSTER > 1) rank = int(ctx.cluster_rank());
    if (t < 32)
      for (int s = 0; s < STAGES; ++s) {
        ctx.mbarrier_init(full[s], 1);   // the producer's arrival, and then the bytes
        ctx.mbarrier_init(empty[s], rank == 0 ? 8 * CLUSTER : 8);  // one arrival from each consumer warp it feeds
      }
    if constexpr (CLUSTER > 1)
      ctx.cluster_sync();
    else
      __syncthreads();

    // k counts the k tiles through the ring from the block's first tile on: a stage and its
    // phase run on from one tile of C to the next, so the producer fills the next tile's
    // stages while the consumers store the last one.
    if (wg == 0) {  // the producer warpgroup: warp 0 feeds the ring, warps 1-3 have nothing to do
      // In clusters, the rung also moves registers between its warpgroups: the producer
      // needs few, and gives all but 40 a thread back for the consumers to take.
      if constexpr (CLUSTER > 1) ctx.template setmaxnreg_dec<40>();
      if (t < 32)
        for (int tile = first, k = 0; tile < tiles; tile += step) {
          int by = tile / gx, bx = tile % gx;
          if (a.group > 1) band_tile(a.group, tile, gx, gy, by, bx);
          const int m0 = (by * CLUSTER + rank) * BM, n0 = bx * BN;
          for (int kk = 0; kk < kt; ++kk, ++k) {
            const int s = k % STAGES;
            ctx.mbarrier_wait(empty[s], ((k / STAGES) & 1) ^ 1);  // the first round finds it free
            ctx.mbarrier_arrive_expect_tx(full[s], STAGE_BYTES);
            ctx.tma_load(ring[s * A_TILE], a.A, kk * BK, m0, full[s]);
            if constexpr (CLUSTER == 1)
              ctx.tma_load(ring[STAGES * A_TILE + s * B_TILE], a.B, kk * BK, n0, full[s]);
            else if (rank == 0)  // one request for B, landing in both CTAs
              ctx.tma_load_multicast(ring[STAGES * A_TILE + s * B_TILE], a.B, kk * BK, n0, full[s], 0b11);
          }
        }
      if constexpr (CLUSTER > 1) ctx.cluster_sync();
      return;
    }

    const int rows = (wg - 1) * 64;  // this consumer warpgroup's rows of the tile
    if constexpr (CLUSTER > 1) ctx.template setmaxnreg_inc<232>();  // 40·128 + 232·256 ≤ 65,536
    // A stage is given back to this CTA's producer, and in a cluster to rank 0's, which
    // multicast into it.
    auto release = [&](int s) {
      ctx.mbarrier_arrive(empty[s]);
      if constexpr (CLUSTER > 1)
        if (rank != 0) ctx.mbarrier_arrive_cluster(empty[s], 0);
    };
    const int w = t / 32 % 4, l = t % 32, g = l / 4, q = l % 4;
    auto C2 = ctx.global(a.C.template as<float2>());
    for (int tile = first, k = 0; tile < tiles; tile += step) {
      int by = tile / gx, bx = tile % gx;
      if (a.group > 1) band_tile(a.group, tile, gx, gy, by, bx);
      float d[BN / 2];
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) d[i] = 0.0f;
      for (int kk = 0; kk < kt; ++kk, ++k) {
        const int s = k % STAGES;
        ctx.mbarrier_wait(full[s], (k / STAGES) & 1);
        const uint64_t da = ctx.wgmma_desc(ring[s * A_TILE + rows * BK]);
        const uint64_t db = ctx.wgmma_desc(ring[STAGES * A_TILE + s * B_TILE]);
        ctx.wgmma_fence(d);
#pragma unroll
        for (int j = 0; j < BK / 16; ++j) ctx.wgmma(d, da + 2 * j, db + 2 * j);
        ctx.wgmma_commit();
        ctx.template wgmma_wait<1>(d);  // the k tile before this one is done with its stage
        if (kk > 0) release((k - 1) % STAGES);
      }
      ctx.template wgmma_wait<0>(d);
      release((k - 1) % STAGES);  // the tile's last stage, for the next tile

      const int r0 = (by * CLUSTER + rank) * BM + rows + 16 * w + g, c0 = bx * BN;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int c = c0 + 8 * j + 2 * q;
        C2[(r0 * a.N + c) / 2] = float2{d[4 * j], d[4 * j + 1]};
        C2[((r0 + 8) * a.N + c) / 2] = float2{d[4 * j + 2], d[4 * j + 3]};
      }
    }
    if constexpr (CLUSTER > 1) ctx.cluster_sync();
  }
};

}  // namespace ws::kernels
