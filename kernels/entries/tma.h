// kernels/entries/tma.h — the catalog entries of kernels/tma.h: ids, arrays, lessons and
// launch shapes. Host code, kept apart from the kernels so that the source panel shows only
// what runs on the GPU.
#pragma once
#include <string>
#include <vector>

#include "../catalog.h"
#include "../tma.h"
#include "transpose.h"

namespace ws::kernels {

struct tma_copy {
  static catalog::KernelInfo info() {
    catalog::KernelInfo k;
    k.id = "tma_copy";
    k.family = "tma";
    k.title = "a matrix copied a box at a time by the TMA (Hopper)";
    k.lesson = R"(
      One lane of warp 0 hands the tensor memory accelerator a box of the matrix (32 × 32
      floats by default, 4 KiB) and an mbarrier that expects its bytes; the box is read as
      whole 16-byte pieces, 512 bytes a record, with no thread's load instruction, and lands
      in shared memory when the barrier's phase completes. With swizzle 128 each 128-byte row
      of the tile has its 16-byte chunks moved by the row's index: look at the tile in the
      copy view, coloured by the global column each chunk came from. Set box_rows, box_cols
      and swizzle to see other boxes land, and store=1 to have the TMA write the box back
      from the tile as it landed: its reads of the swizzled tile, its writes to out at the
      bulk wait.)";
    k.source_file = "tma.h";
    k.teach_size = 128;
    k.bench_size = 8192;
    k.size_min = 4;
    k.size_max = 32768;
    k.params = {{"box_rows", 32, {8, 16, 32, 64, 128, 256}, 0, 0, "rows of a box"},
                {"box_cols", 32, {4, 8, 16, 32, 64}, 0, 0, "floats in a row of a box (16 to 256 bytes)"},
                {"swizzle", 128, {0, 32, 64, 128}, 0, 0, "bytes of the swizzle span (0: none)"},
                {"store", 0, {0, 1}, 0, 0, "1: the box written back by a TMA store, not by the threads"}};
    k.check = [](const catalog::Params& p) -> std::string {
      const int64_t n = p.size(), br = p["box_rows"], bc = p["box_cols"], sw = p["swizzle"];
      if (n % br || n % bc)
        return "tma_copy moves whole boxes: size must be a multiple of box_rows (" + std::to_string(br) +
               ") and box_cols (" + std::to_string(bc) + "), got " + std::to_string(n);
      if (sw && 4 * bc > sw)
        return "a box row of " + std::to_string(4 * bc) + " bytes is wider than the swizzle span of " +
               std::to_string(sw) + " bytes: take swizzle 0 or a wider span";
      return "";
    };
    k.buffers = [](const catalog::Params& p) {
      const uint64_t n = uint64_t(p.size());
      return std::vector<catalog::BufferSpec>{{"in", n, n, false, catalog::Role::In},
                                              {"out", n, n, false, catalog::Role::Out}};
    };
    k.reference = [](const catalog::Params& p, catalog::HostArrays& a) {
      tma_copy_reference(a[0].data(), a[1].data(), p.size());
    };
    k.flops = [](const catalog::Params&) { return 0.0; };
    k.bytes = [](const catalog::Params& p) { return 2.0 * 4.0 * double(p.size()) * double(p.size()); };
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    const int n = int(p.size()), br = int(p["box_rows"]), bc = int(p["box_cols"]), sw = int(p["swizzle"]);
    TmaCopyArgs a{l.template tma<const float>(0, n, n, br, bc, sw), l.template buf<float>(1),
                  l.template tma<float>(1, n, n, br, bc, sw), n, int(p["store"])};
    l.template launch<TmaCopy>(dim3(unsigned(n / bc), unsigned(n / br)), dim3(kTmaThreads), uint32_t(br * bc * 4), a);
  }
};

struct tma_transpose : TransposeFamily {
  static catalog::KernelInfo info() {
    auto k = base("tma_transpose", "transpose whose boxes come in and go out by the TMA (Hopper)", R"(
      The transpose ladder's last rung. Warp 0 asks the TMA for a 32 × 32 box of `in`; when
      the box's mbarrier phase completes, the block writes its transpose into a second tile,
      and warp 0 hands that tile to the TMA, which stores it as the box of `out` at the
      mirrored place: no thread loads from or stores to global memory. The one access left
      to the threads is the shared-memory transpose, and the box lands dense, so the
      classic TILE+1 padding cannot be used: a warp reading a column of a tile whose rows
      are 128 bytes puts all 32 lanes in one bank (swizzle=0 lanes=0, a 32-way conflict).
      The 128-byte swizzle moves each row's 16-byte chunks by the row's index mod 8, so the
      column spreads over 8 banks (lanes=0, 4-way), and both TMA copies undo the swizzle on
      their way. Reading a staircase instead, 8 rows in each of 4 columns (lanes=1), puts
      the 32 lanes in 32 banks for the read and for the write. With order=1 the blocks walk
      down the columns of `in`, so the blocks running together store neighbouring boxes of
      the same rows of `out`.)");
    k.source_file = "tma.h";
    k.params.push_back({"swizzle", 128, {0, 128}, 0, 0, "bytes of the swizzle span of both maps (0: none)"});
    k.params.push_back({"order", 1, {0, 1}, 0, 1, "0: blockIdx.x walks along a row of in's boxes; 1: down a column"});
    k.params.push_back({"lanes", 1, {0, 1}, 0, 1, "0: a warp reads a column of the box; 1: a staircase of 8 rows in 4 columns"});
    k.check = [](const catalog::Params& p) -> std::string {
      if (rows(p) % kTmaBox == 0 && cols(p) % kTmaBox == 0) return "";
      return "tma_transpose moves whole 32 × 32 boxes: size and m must be multiples of 32, got " +
             std::to_string(rows(p)) + " × " + std::to_string(cols(p));
    };
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    const int r = int(rows(p)), c = int(cols(p)), sw = int(p["swizzle"]), order = int(p["order"]);
    const TmaTransposeArgs a{l.template tma<const float>(0, r, c, kTmaBox, kTmaBox, sw),
                             l.template tma<float>(1, c, r, kTmaBox, kTmaBox, sw), order};
    const unsigned bx = unsigned(c / kTmaBox), by = unsigned(r / kTmaBox);
    const dim3 grid = order ? dim3(by, bx) : dim3(bx, by);
    constexpr uint32_t bytes = 2 * kTmaBox * kTmaBox * 4;
    catalog::with_constant<0, 128>(sw, [&](auto span) {
      if (p["lanes"])
        l.template launch<TmaTranspose<decltype(span)::value, true>>(grid, dim3(kTmaThreads), bytes, a);
      else
        l.template launch<TmaTranspose<decltype(span)::value, false>>(grid, dim3(kTmaThreads), bytes, a);
    });
  }
};

}  // namespace ws::kernels
