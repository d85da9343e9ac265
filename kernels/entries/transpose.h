// kernels/entries/transpose.h — the catalog entries of kernels/transpose.h: ids,
// parameters, arrays, lessons and launch shapes. Host code, kept apart from the kernels so
// that the source panel shows only what runs on the GPU.
#pragma once
#include <string>
#include <vector>

#include "../catalog.h"
#include "../transpose.h"

namespace ws::kernels {

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
    transpose_reference(a[0].data(), a[1].data(), rows(p), cols(p));
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
    auto k = base("transpose_read_coalesced", "naive transpose, coalesced reads", R"(
      Each warp reads 32 neighbouring elements of a row of `in`: 4 sectors, perfect. It
      writes them down a column of `out`: every lane lands in a different row, so each store
      touches 32 sectors to write 128 useful bytes.)");
    k.sources.push_back({"\"Memory coalescing in CUDA (2): matrix transpose\", transpose_read_coalesce", "", "",
                         "latency 0.0476 on an RTX 3080, the tiled kernel 0.0478: within 1%", "the transpose blog's read-coalesced kernel"});
    return k;
  }
};

struct transpose_write_coalesced : NaiveTransposeEntry<false> {
  static catalog::KernelInfo info() {
    auto k = base("transpose_write_coalesced", "naive transpose, coalesced writes", R"(
      The mirror image: consecutive lanes write consecutive elements of `out` (4 sectors a
      store) but read down a column of `in` (32 sectors a load). Swapping which side is
      strided does not remove the waste.)");
    k.sources.push_back({"\"Memory coalescing in CUDA (2): matrix transpose\", transpose_write_coalesce", "", "",
                         "latency 0.0474 on an RTX 3080, the tiled kernel 0.0478: within 1%", "the transpose blog's write-coalesced kernel"});
    return k;
  }
};

struct transpose_tiled : TransposeFamily {
  static catalog::KernelInfo info() {
    auto k = base("transpose_tiled", "tiled transpose through shared memory", R"(
      A 32×32 tile is read from `in` row by row (coalesced), stored transposed into shared
      memory, and written to `out` row by row (coalesced). The transposed store
      `tile[threadIdx.x][...]` puts all 32 lanes of a warp in the same bank: a 32-way
      conflict. Padding each row by one word (pad=1) shifts every row by one bank and the
      conflict disappears. The block shape decides the speed once the conflict is gone: the
      blog's one element a thread (tile=32 rows=32, 1024 threads) keeps few loads in flight
      per thread and reaches about half the copy's bandwidth on an H100; 32×8 threads moving 4
      elements each come close to the copy, and 64×4 threads moving 16 elements each, with
      blocks ordered down the columns of `in` (order=1) so that the blocks running together
      write neighbouring tiles of `out`, match it. The blog measured its three kernels within
      1% of each other on an RTX 3080.)");
    k.params.push_back({"pad", 0, {0, 1}, 0, 1, "extra words per tile row"});
    k.params.push_back({"tile", 32, {32, 64}, 32, 64, "tile edge TILE (a block is TILE×ROWS threads)"});
    k.params.push_back({"rows", 8, {4, 8, 32}, 4, 32, "block rows ROWS: each thread moves TILE/ROWS elements"});
    k.params.push_back({"order", 0, {0, 1}, 0, 1, "0: blockIdx.x walks along a row of in's tiles; 1: down a column"});
    k.check = [](const catalog::Params& p) -> std::string {
      if (p["rows"] <= p["tile"] && p["tile"] * p["rows"] <= 1024) return "";
      return "transpose_tiled with tile=" + std::to_string(p["tile"]) +
             " needs rows=4 or 8 (a block holds at most 1024 threads): got rows=" + std::to_string(p["rows"]);
    };
    k.sources.push_back({"\"Memory coalescing in CUDA (2): matrix transpose\", transpose_tiled_coalesce0 "
                         "(static tile[TILE][TILE + 1], TILE×TILE threads, one element a thread)",
                         "--set pad=1 --set tile=32 --set rows=32", "",
                         "read-coalesced, write-coalesced and tiled within 1% of each other on an RTX 3080", "the transpose blog's static tiled kernel"});
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    const bool pad = p["pad"] != 0;
    catalog::with_constant<32, 64>(p["tile"], [&](auto tile) {
      catalog::with_constant<4, 8, 32>(p["rows"], [&](auto block_rows) {
        constexpr int T = decltype(tile)::value, R = decltype(block_rows)::value;
        if constexpr (R <= T && T * R <= 1024) {
          TransposeArgs a = args(l, p);
          a.block_order = int(p["order"]);
          unsigned tiles_x = unsigned((cols(p) + T - 1) / T), tiles_y = unsigned((rows(p) + T - 1) / T);
          dim3 grid = a.block_order ? dim3(tiles_y, tiles_x) : dim3(tiles_x, tiles_y);
          if (pad)
            l.template launch<TransposeTiled<T, R, 1>>(grid, dim3(T, R), 0, a);
          else
            l.template launch<TransposeTiled<T, R, 0>>(grid, dim3(T, R), 0, a);
        }
      });
    });
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
    k.sources.push_back({"\"Memory coalescing in CUDA (2): matrix transpose\", transpose_tiled_coalesce1 "
                         "(extern __shared__ tile, TILE = blockDim.x, padded by one)",
                         "--set pad=1", "", "as fast as the static tiled kernel on an RTX 3080", "the transpose blog's dynamic tiled kernel"});
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
