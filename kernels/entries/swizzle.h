// kernels/entries/swizzle.h — the catalog entries of kernels/swizzle.h: ids, arrays,
// lessons and launch shapes. Host code, kept apart from the kernels so that the source
// panel shows only what runs on the GPU.
#pragma once
#include <string>
#include <vector>

#include "../catalog.h"
#include "../swizzle.h"

namespace ws::kernels {

struct SwizzleFamily {
  static catalog::KernelInfo base(const char* id, const char* title, const char* lesson) {
    catalog::KernelInfo k;
    k.id = id;
    k.family = "swizzle";
    k.title = title;
    k.lesson = lesson;
    k.source_file = "swizzle.h";
    k.teach_size = 64;
    k.bench_size = 8192;
    k.size_min = 64;
    k.size_max = 1 << 14;
    k.check = [](const catalog::Params& p) -> std::string {
      if (p.size() % kSwizzleTile == 0) return "";
      return "the swizzle kernels read whole 64×64 tiles: size must be a multiple of 64, got " +
             std::to_string(p.size());
    };
    k.buffers = [](const catalog::Params& p) {
      const uint64_t n = uint64_t(p.size());
      return std::vector<catalog::BufferSpec>{{"in", n, n, false, catalog::Role::In, 2},
                                              {"out", n, n, false, catalog::Role::Out, 2}};
    };
    k.reference = [](const catalog::Params& p, catalog::HostArrays& a) {
      swizzle_reference(a[0].data(), a[1].data(), p.size());
    };
    k.flops = [](const catalog::Params&) { return 0.0; };
    k.bytes = [](const catalog::Params& p) { return 2.0 * 2.0 * double(p.size()) * double(p.size()); };
    return k;
  }
};

template <int LAYOUT>
struct SwizzleEntry : SwizzleFamily {
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    const unsigned tiles = unsigned(p.size() / kSwizzleTile);
    SwizzleArgs a{l.template buf<const half>(0), l.template buf<half>(1), int(p.size())};
    l.template launch<SwizzleRead<LAYOUT>>(dim3(tiles, tiles), dim3(128), 0, a);
  }
};

struct swizzle_plain : SwizzleEntry<0> {
  static catalog::KernelInfo info() {
    return base("swizzle_plain", "64×64 half tile read by ldmatrix, stored plainly", R"(
      Each row of the tile is 128 bytes, exactly the 32 banks, so row r starts in bank 0
      whatever r is. An ldmatrix.x4 reads four 8×8 matrices, each from 8 lanes naming 8
      rows at the same column: the 8 rows hit the same 4 banks in 8 different words. Each
      matrix costs 8 wavefronts instead of 1, 32 an instruction (an H100 measured 32), and
      a GEMM does this for every fragment it loads.)");
  }
};

struct swizzle_padded : SwizzleEntry<1> {
  static catalog::KernelInfo info() {
    return base("swizzle_padded", "the same tile with each row padded by 8 halves", R"(
      The textbook fix: 8 spare halves (16 bytes) after every row. Row r now starts 4r banks
      further on, so the 8 rows of a matrix fall in 8 different groups of 4 banks and each
      matrix is one wavefront: 4 an ldmatrix.x4, the minimum. The price is 1/8 more shared
      memory for the tile, and 16-byte chunks that are no longer 128-byte aligned rows, which
      TMA copies cannot write.)");
  }
};

struct swizzle_xor : SwizzleEntry<2> {
  static catalog::KernelInfo info() {
    return base("swizzle_xor", "the same tile with its 16-byte chunks XOR-swizzled by row", R"(
      What CUTLASS and the TMA's 128-byte swizzle mode do instead: chunk c of row r is stored
      at chunk c ^ (r & 7). The rows keep their 128 bytes, nothing is added, and the 8 rows of
      any matrix, which share a logical chunk, sit in 8 different physical chunks: 4
      wavefronts an ldmatrix.x4, as padded (an H100 measured 4). The kernel computes the
      swizzled chunk on both sides, in the fill and in the ldmatrix address.)");
  }
};

}  // namespace ws::kernels
