// kernels/entries/tensor.h — the catalog entries of kernels/tensor.h: the tensor-core
// HGEMM ladder's ids, parameters, arrays (halves in, floats out), lessons and launch shapes.
// Host code, kept apart from the kernels so that the source panel shows only what runs on
// the GPU. Their yardstick is cuBLAS with the arrays' own types: HGEMM, f16 in, f32
// accumulate (src/gpu/cublas.cpp picks it from the half A and B).
#pragma once
#include <string>
#include <vector>

#include "../catalog.h"
#include "../tensor.h"

namespace ws::kernels {

struct TensorFamily {
  static int64_t n(const catalog::Params& p) { return p.size(); }
  static catalog::KernelInfo base(const char* id, const char* title, const char* lesson);
  template <class L>
  static TensorArgs args(L& l, const catalog::Params& p) {
    return {l.template buf<const half>(0), l.template buf<const half>(1), l.template buf<float>(2), int(n(p))};
  }
  // Grid covering C with tiles of bm × bn outputs.
  static dim3 grid(const catalog::Params& p, int64_t bm, int64_t bn) {
    return dim3(unsigned((n(p) + bn - 1) / bn), unsigned((n(p) + bm - 1) / bm));
  }
  static std::vector<catalog::BufferSpec> buffers(const catalog::Params& p) {
    uint64_t N = uint64_t(n(p));
    return {{"A", N, N, false, catalog::Role::In, 2},
            {"B", N, N, true, catalog::Role::In, 2},  // column-major: B's columns are the tile's rows
            {"C", N, N, false, catalog::Role::Out, 4}};
  }
  static std::string check(const catalog::Params& p) {
    if (p.size() % 8 == 0) return "";
    return "the tensor-core kernels need a size that is a multiple of 8 (rows are copied 16 bytes, 8 halves, at "
           "a time): got " + std::to_string(p.size()) + "; try " + std::to_string((p.size() + 7) / 8 * 8);
  }
};

inline catalog::KernelInfo TensorFamily::base(const char* id, const char* title, const char* lesson) {
  catalog::KernelInfo k{.id = id, .family = "hgemm", .yardstick = catalog::Yardstick::Cublas, .title = title,
                        .lesson = lesson, .source_file = "tensor.h", .teach_size = 64, .bench_size = 4096,
                        .size_min = 8, .size_max = 1 << 14, .params = {}};
  k.check = &check;
  k.buffers = &buffers;
  k.reference = [](const catalog::Params& p, catalog::HostArrays& a) {
    hgemm_reference(a[0].data(), a[1].data(), a[2].data(), n(p));
  };
  k.flops = [](const catalog::Params& p) { return 2.0 * double(n(p)) * double(n(p)) * double(n(p)); };
  k.bytes = [](const catalog::Params& p) { return (2.0 + 2.0 + 4.0) * double(n(p)) * double(n(p)); };
  return k;
}

template <bool SWIZZLE>
struct StagedTensorEntry : TensorFamily {
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    using K = TcMmaStaged<SWIZZLE>;
    l.template launch<K>(grid(p, K::BM, K::BN), dim3(K::THREADS), 0, args(l, p));
  }
};

struct tc_mma_plain : StagedTensorEntry<false> {
  static catalog::KernelInfo info() {
    return base("tc_mma_plain", "HGEMM on tensor cores: mma.sync, fragments by ldmatrix from plain tiles", R"(
      Four warps compute a 64×64 tile of C, each a 32×32 patch of m16n8k16 mmas (f16 in, f32
      accumulated). The block copies a 64×64 half tile of A and of B (B column-major, so both
      tiles hold k along their rows) into plain shared arrays, 16 bytes a lane; then every
      warp loads its fragments with ldmatrix.x4: each lane names one 16-byte row, eight lanes
      one 8×8 matrix. A tile row is 128 bytes, so the 8 rows of a matrix start in the same
      bank: 8-way, 32 wavefronts an ldmatrix instead of 4. The mma itself moves no memory;
      the trace marks it as an event.)");
  }
};

struct tc_mma_swizzled : StagedTensorEntry<true> {
  static catalog::KernelInfo info() {
    return base("tc_mma_swizzled", "HGEMM on tensor cores: XOR-swizzled shared tiles", R"(
      The kernel of tc_mma_plain with one change in where a 16-byte chunk goes: chunk c of
      tile row r is stored at chunk c ^ (r & 7), and read back from there. The copy into
      shared memory stays conflict-free (each row's chunks are only permuted), and the 8 rows
      of every ldmatrix matrix now start in 8 different bank groups: 4 wavefronts an
      instruction, the minimum, with no padding and no extra memory. Same data, same
      instructions: compare the ldmatrix rows' banks with tc_mma_plain.)");
  }
};

struct tc_mma_pipelined : TensorFamily {
  static catalog::KernelInfo info() {
    auto k = base("tc_mma_pipelined", "HGEMM on tensor cores: cp.async multi-stage pipeline", R"(
      Four warps compute a 128×64 tile of C, each a 64×32 patch (16 mmas a k16 step). The
      tiles come in with cp.async: 16 bytes a lane from global straight into shared memory,
      no register in between, one commit group per k tile. Before computing on tile k a
      thread waits until all but the newest stages-2 groups have landed, so the copies of the
      next tiles are in flight while the tensor cores work. The tiles are 32 halves wide
      (64 bytes a row), so a 128-byte line holds two rows and the swizzle XORs the line's 8
      chunks: the landed writes and every ldmatrix stay conflict-free. In the timeline, see
      each copy issued at one commit and land at a later wait.)");
    k.teach_size = 128;
    k.params.push_back({"stages", 3, {2, 3}, 2, 3, "tiles of A and B in flight (3: 36 KiB of shared memory)"});
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    catalog::with_constant<2, 3>(p["stages"], [&](auto stages) {
      using K = TcMmaPipelined<decltype(stages)::value>;
      l.template launch<K>(grid(p, K::BM, K::BN), dim3(K::THREADS), uint32_t(K::SHARED_BYTES), args(l, p));
    });
  }
};

struct tc_mma_tuned : TensorFamily {
  static catalog::KernelInfo info() {
    auto k = base("tc_mma_tuned", "HGEMM on tensor cores: k 64, fragments double-buffered, banded blocks", R"(
      The pipeline rebuilt so that the tensor cores never wait. Every warp now owns a 64×64
      patch of C: 32 mmas a k16 step for 4 ldmatrix of A and 4 of B. The tiles are 64 halves
      deep, one 128-byte line a row, so a block waits and meets at a barrier half as often per
      mma. Each step's fragments are loaded while the step before computes: ldmatrix for step
      k+1, then the mmas of step k, so shared memory's latency hides behind tensor-core work
      (the last step of a tile fetches the next tile's first fragments). A thread copies the
      same chunk of every 16th row (every 32nd with 8 warps), so its addresses are worked out
      once, and a block whose tile lies inside the matrices copies without testing each chunk.
      The blocks walk C in bands of 8 block rows, so the ones running at once share tiles of
      A and B in L2. The accesses per mma are what tc_mma_pipelined's are; what changed is
      how little else the warps do between mmas: compare their times against cuBLAS.)");
    k.teach_size = 128;
    k.params.push_back({"warps", 4, {4, 8}, 4, 8, "warps a block, each 64×64 of C: 4 make a 128×128 tile, 8 a 128×256"});
    k.params.push_back({"stages", 3, {3, 4}, 3, 4, "k tiles of A and B in flight (3: 96 KiB of shared memory with 4 warps, 144 KiB with 8)"});
    k.params.push_back({"group", 8, {1, 2, 4, 8, 16}, 1, 16, "block rows a band of the block order (1: row by row)"});
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    TensorArgs a = args(l, p);
    a.group = int(p["group"]);
    catalog::with_constant<3, 4>(p["stages"], [&](auto stages) {
      constexpr int S = decltype(stages)::value;
      auto go = [&](auto k) {
        using K = decltype(k);
        l.template launch<K>(grid(p, K::BM, K::BN), dim3(K::THREADS), uint32_t(K::SHARED_BYTES), a);
      };
      if (p["warps"] == 4)
        go(TcMmaTuned<S, 2, 2>{});
      else
        go(TcMmaTuned<S, 2, 4>{});
    });
  }
};

}  // namespace ws::kernels
