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
