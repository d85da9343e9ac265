// kernels/entries/wgmma.h — the catalog entry of kernels/wgmma.h: the HGEMM ladder's
// Hopper rung, its parameters, its TMA maps and its launch shape. Arrays and the yardstick
// are the tensor-core family's (entries/tensor.h): cuBLAS HGEMM, f16 in, f32 accumulate.
#pragma once
#include <algorithm>
#include <string>

#include "../wgmma.h"
#include "tensor.h"

namespace ws::kernels {

struct tc_wgmma : TensorFamily {
  static catalog::KernelInfo info() {
    auto k = base("tc_wgmma", "HGEMM on Hopper: TMA ring, a producer warp, wgmma from shared memory (sm_90a)", R"(
      The tensor-core ladder on Hopper's own path. A block of three warpgroups computes a
      128×bn tile of C. Warp 0 is the producer: for each k tile of 64 it waits until a stage
      of the ring is free (its `empty` mbarrier), arms the stage's `full` mbarrier with the
      bytes to come, and asks the TMA for a 128×64 box of A and a bn×64 box of B. Both land
      under the 128-byte swizzle, so no thread copies and no row of a tile shares banks with
      the next seven. The other two warpgroups are the consumers, 64 rows each: they wait for
      the stage's phase, hand the two tiles to the tensor cores by descriptor (a 64-bit word:
      the tile's address, 1024 bytes from one group of 8 rows to the next, the swizzle), and
      run four wgmma.mma_async m64n256k16, 64×256×16 products over the whole warpgroup. No
      ldmatrix, no fragment in registers but the accumulators. A consumer gives a stage
      back only once the product that read it is done (wgmma.wait_group 1), so one product
      is always in flight. The grid is persistent: one block an SM (grid=132), each taking
      tile after tile of C, its ring and phases running on, so that the producer already
      fills the next tile's stages while the consumers store this one (grid=0: one block a
      tile, each starting with an empty ring). In the timeline, see the producer's boxes land and the consumers'
      products, commits and waits; compare the time with tc_mma_tuned and cuBLAS.)");
    k.source_file = "wgmma.h";
    k.teach_size = 512;  // 8 k tiles: the ring of 4 stages is filled twice
    k.size_min = 128;
    k.params.push_back({"bn", 256, {128, 256}, 128, 256, "columns of C a block: the wgmma's N (m64n128k16 or m64n256k16)"});
    k.params.push_back({"stages", 4, {3, 4}, 3, 4, "k tiles of A and B in the ring (4 with bn=256: 192 KiB of shared memory)"});
    k.params.push_back({"group", 8, {1, 2, 4, 8, 16}, 1, 16, "tile rows a band of the tile order (1: row by row)"});
    k.params.push_back({"grid", kOneAnSm, {0, 1, 2, 4, 8, kOneAnSm}, 0, 1024,
                        "blocks in the grid, each taking tile after tile of C with its ring running on "
                        "(132: one an SM of an H100 SXM or an H200, the persistent kernel); 0: one block a tile"});
    k.check = [](const catalog::Params& p) { return whole_tiles(p, 1); };
    return k;
  }
  // "" when the size is whole 128 × bn tiles of C (in clusters of 2: whole pairs of them,
  // one above the other), else why not, and the next size that is.
  static std::string whole_tiles(const catalog::Params& p, int cluster) {
    const int64_t tile = std::max<int64_t>(128 * cluster, p["bn"]);
    if (p.size() % tile == 0) return "";
    return std::string(cluster > 1 ? "tc_wgmma_cluster computes whole pairs of 128 × " : "tc_wgmma computes whole 128 × ") +
           std::to_string(p["bn"]) + " tiles of C: the size must be a multiple of " + std::to_string(tile) + ", got " +
           std::to_string(p.size()) + "; try " + std::to_string((p.size() + tile - 1) / tile * tile);
  }
  // The SMs of an H100 SXM or an H200: the persistent grid's blocks, one an SM.
  static constexpr int64_t kOneAnSm = 132;
  // The grid: p["grid"] blocks in a row (fewer where C has fewer tiles), each taking tile
  // after tile; grid 0, one block a tile of C (bn columns, 128 rows).
  static dim3 blocks(const catalog::Params& p) {
    const dim3 tiles = grid(p, 128, p["bn"]);
    if (!p["grid"]) return tiles;
    return dim3(unsigned(std::min<int64_t>(p["grid"], int64_t(tiles.x) * tiles.y)));
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    launch_rung<1>(l, p, blocks(p));
  }
  // The rung's launch, alone (CLUSTER 1) or in clusters: the maps of A (boxes of 128 rows)
  // and B (bn rows), both 64 k deep, and the functor of its bn and stages.
  template <int CLUSTER, class L>
  static void launch_rung(L& l, const catalog::Params& p, dim3 grid) {
    const int N = int(n(p)), bn = int(p["bn"]);
    const WgmmaArgs a{l.template tma<const half>(0, N, N, 128, 64, 128), l.template tma<const half>(1, N, N, bn, 64, 128),
                      l.template buf<float>(2), N, int(p["group"])};
    catalog::with_constant<128, 256>(bn, [&](auto cols) {
      catalog::with_constant<3, 4>(p["stages"], [&](auto stages) {
        using K = TcWgmma<decltype(cols)::value, decltype(stages)::value, CLUSTER>;
        l.template launch<K>(grid, dim3(K::THREADS), uint32_t(K::SHARED_BYTES), a);
      });
    });
  }
};

struct tc_wgmma_cluster : tc_wgmma {
  static catalog::KernelInfo info() {
    auto k = tc_wgmma::info();
    k.id = "tc_wgmma_cluster";
    k.title = "HGEMM on Hopper in clusters of 2: one multicast of B for two tiles of C (sm_90a)";
    k.lesson = R"(
      tc_wgmma in thread block clusters of two CTAs, which run at the same time on
      neighbouring SMs and may write to each other's shared memory. The two compute tiles
      of C one above the other, so they need the same bn×64 boxes of B. Rank 0's producer
      asks the TMA for each B box once, with the multicast mask 0b11: the box lands in the
      same stage of both CTAs, and each counts its bytes on its own `full` mbarrier. Each
      producer still asks for its own A box. L2 sends B once a cluster instead of twice:
      a quarter of the bytes a pair of tiles reads. The price is coordination: rank 0 may
      refill a stage only when the consumers of both CTAs are done with it, so its
      `empty` mbarriers count 16 arrivals, and rank 1's consumers arrive on both CTAs'
      barriers (an arrive through a shared::cluster address). A cluster barrier follows
      the set-up, so that both CTAs' mbarriers exist before either multicasts, and
      another ends the kernel, so that neither leaves while the other may still write to
      it. The warpgroups also trade registers: the producer keeps 40 a thread of the 168 a
      block of 384 starts with (setmaxnreg.dec) and the consumers take 232 (.inc). In the
      cluster view, see the B box fan out from rank 0 to rank 1; compare the time with
      tc_wgmma and cuBLAS.)";
    k.teach_size = 512;
    k.size_min = 256;
    for (auto& q : k.params)
      if (q.name == "grid") {
        q.allowed = {0, 2, 4, 8, kOneAnSm};
        q.min = 0;
        q.help = "blocks in the grid, in clusters of 2, each cluster taking pair after pair of tiles of C "
                 "(132: one block an SM of an H100 SXM or an H200); 0: one block a tile";
      }
    k.check = [](const catalog::Params& p) { return whole_tiles(p, 2); };  // (every allowed grid is even)
    return k;
  }
  // A row of p["grid"] blocks (even, no more than C has tiles), or one a tile (grid 0).
  static dim3 blocks(const catalog::Params& p) {
    const dim3 g = grid(p, 128, p["bn"]);
    const int64_t tiles = int64_t(g.x) * g.y;
    return dim3(unsigned(p["grid"] ? std::min<int64_t>(p["grid"], tiles) : tiles));
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    launch_rung<2>(l, p, blocks(p));
  }
};

}  // namespace ws::kernels
