// kernels/entries/matmul.h — the catalog entries of kernels/matmul.h: ids, parameters,
// arrays, lessons and launch shapes. Host code, kept apart from the kernels so that the
// source panel shows only what runs on the GPU.
#pragma once
#include <string>
#include <vector>

#include "../catalog.h"
#include "../matmul.h"
#include "../warptile.h"

namespace ws::kernels {

struct MatmulFamily {
  static int64_t n(const catalog::Params& p) { return p.size(); }
  static catalog::KernelInfo base(const char* id, const char* title, const char* lesson, bool b_col_major);
  template <class L>
  static MatmulArgs args(L& l, const catalog::Params& p) {
    return {l.template buf<const float>(0), l.template buf<const float>(1), l.template buf<float>(2),
            int(n(p))};
  }
  // Grid covering C with blocks of tile_rows × tile_cols outputs.
  static dim3 grid(const catalog::Params& p, int64_t tile_rows, int64_t tile_cols) {
    return dim3(unsigned((n(p) + tile_cols - 1) / tile_cols), unsigned((n(p) + tile_rows - 1) / tile_rows));
  }
  template <bool B_COL_MAJOR>
  static std::vector<catalog::BufferSpec> buffers(const catalog::Params& p) {
    uint64_t N = uint64_t(n(p));
    return {{"A", N, N, false, catalog::Role::In},
            {"B", N, N, B_COL_MAJOR, catalog::Role::In},
            {"C", N, N, false, catalog::Role::Out}};
  }
  template <bool B_COL_MAJOR>
  static void reference(const catalog::Params& p, catalog::HostArrays& a) {
    matmul_reference<B_COL_MAJOR>(a[0].data(), a[1].data(), a[2].data(), n(p));
  }
};

inline catalog::KernelInfo MatmulFamily::base(const char* id, const char* title, const char* lesson,
                                              bool b_col_major) {
  catalog::KernelInfo k{.id = id, .family = "sgemm", .yardstick = catalog::Yardstick::Cublas, .title = title,
                        .lesson = lesson,
                        .source_file = "matmul.h", .teach_size = 64, .bench_size = 4096,
                        .size_max = 1 << 14, .params = {}};
  k.buffers = b_col_major ? &buffers<true> : &buffers<false>;
  k.reference = b_col_major ? &reference<true> : &reference<false>;
  k.flops = [](const catalog::Params& p) { return 2.0 * double(n(p)) * double(n(p)) * double(n(p)); };
  k.bytes = [](const catalog::Params& p) { return 3.0 * 4.0 * double(n(p)) * double(n(p)); };
  return k;
}

// One thread per element of C, 32×32 threads a block.
template <class Kernel, bool B_COL_MAJOR>
struct NaiveEntry : MatmulFamily {
  static catalog::KernelInfo naive_info(const char* id, const char* title, const char* lesson) {
    return base(id, title, lesson, B_COL_MAJOR);
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    l.template launch<Kernel>(grid(p, 32, 32), dim3(32, 32), 0, args(l, p));
  }
};

struct matmul_naive_uncoalesced : NaiveEntry<MatmulNaiveUncoalesced, false> {
  static catalog::KernelInfo info() {
    return naive_info("matmul_naive_uncoalesced", "naive SGEMM, threads along rows (uncoalesced)", R"(
      One thread per element of C, but threadIdx.x picks the ROW. The 32 lanes of a warp read
      A[row * N + k] from 32 different rows, N floats apart: 32 sectors for 128 useful bytes,
      and the C store is just as scattered. All lanes share one column of B, so
      B[k * N + col] is a broadcast. Compare with matmul_naive: the same arithmetic, only the
      mapping from threads to elements differs.)");
  }
};

struct matmul_naive : NaiveEntry<MatmulNaive, false> {
  static catalog::KernelInfo info() {
    auto k = naive_info("matmul_naive", "naive SGEMM, threads along columns", R"(
      threadIdx.x now picks the column: a warp reads B[k * N + col] across 32 neighbouring
      columns (4 sectors a request, fully used) and writes C the same way, while
      A[row * N + k] is one word for the whole warp (a broadcast). Every access is coalesced,
      yet each thread still reads 2N floats from global memory for 2N flops: the kernel is
      bound by memory traffic, which tiling attacks next.)");
    k.sources.push_back({"PMPP 4th ed., ch. 6.1: the untiled kernel, M row-major (coalesced: k·Width + col)", "", "",
                         "the accesses to M are coalesced; 0.25 OP/B (2 FLOPs for every 8 bytes loaded)", "PMPP ch. 6, row-major M"});
    return k;
  }
};

struct matmul_naive_colmajor : NaiveEntry<MatmulNaiveColMajor, true> {
  static catalog::KernelInfo info() {
    auto k = naive_info("matmul_naive_colmajor", "naive SGEMM, B stored column-major", R"(
      The kernel of matmul_naive, but B is stored column by column: element (k, col) is
      B[col * N + k]. Neighbouring lanes read neighbouring columns, which are now N floats
      apart in memory: 32 sectors per B load. The data layout decides whether a mapping
      coalesces; matmul_corner_turning fixes it without changing the layout.)");
    k.sources.push_back({"PMPP 4th ed., ch. 6.1: the untiled kernel, M column-major (col·Width + k)", "", "",
                         "consecutive threads read Width floats apart: the accesses are no longer coalesced", "PMPP ch. 6, column-major M"});
    return k;
  }
};

// TILE×TILE threads a block, one element of C each; `tile` picks the compiled TILE.
template <bool CORNER_TURN>
struct TiledEntry : MatmulFamily {
  static catalog::KernelInfo tiled_info(const char* id, const char* title, const char* lesson) {
    auto k = base(id, title, lesson, CORNER_TURN);
    k.params.push_back({"tile", 16, {2, 4, 8, 16, 32}, 2, 32, "tile edge = block edge"});
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    catalog::with_constant<2, 4, 8, 16, 32>(p["tile"], [&](auto tile) {
      constexpr int T = decltype(tile)::value;
      l.template launch<MatmulTiled<T, 1, CORNER_TURN>>(grid(p, T, T), dim3(T, T), 0, args(l, p));
    });
  }
};

struct matmul_tiled : TiledEntry<false> {
  static catalog::KernelInfo info() {
    auto k = tiled_info("matmul_tiled", "tiled SGEMM through shared memory", R"(
      Each block stages a TILE×TILE tile of A and one of B in shared memory (As, Bs), waits at
      __syncthreads(), and computes TILE partial products from shared memory. Every global
      element is now loaded once per block instead of once per thread: global traffic drops
      by a factor TILE. Both tile loads are coalesced rows; As[ty][k] is a broadcast and
      Bs[k][tx] walks the banks, so the shared reads are conflict-free. Out-of-range elements
      are loaded as 0, so any N works. At tile=16 and N = 1024 this is the classic "Matrix
      Multiplication 3" kernel with BLOCK_SIZE 16; at tile=2 and N = 4 it is the book's
      DRAM example: with the textbook DRAM model (4 channels × 2 banks, 2 floats a burst) the
      first phase's A tiles land in channels 0 and 2 only.)");
    k.sources.push_back({"\"Matrix Multiplication 3 (CUDA)\" blog, matrixMul with BLOCK_SIZE 16 (1024×1024)", "--set tile=16",
                         "multiples of 16 (the source has no bounds checks)",
                         "48× the CPU at 1024², 370× at 2048² (the untiled kernel: 44× and 255×)", "the BLOCK_SIZE 16 blog kernel"});
    k.sources.push_back({"PMPP 4th ed., ch. 6.2: the DRAM channel/bank example (4×4 matrices, tile width 2)",
                         "--set tile=2 --size 4", "",
                         "phase 0 uses both banks of channels 0 and 2 only: half of the channels", "PMPP's DRAM example"});
    return k;
  }
};

struct matmul_corner_turning : TiledEntry<true> {
  static catalog::KernelInfo info() {
    auto k = tiled_info("matmul_corner_turning", "tiled SGEMM, column-major B turned in shared memory", R"(
      B is column-major, so reading a row of the B tile would be strided. Instead consecutive
      threads read consecutive k down one column of B (coalesced), and each element is stored
      turned, Bs[k][column], so the inner product reads Bs exactly as matmul_tiled does. The
      cost moves to shared memory: the turned store Bs[tx][ty] sends lanes TILE words apart
      into a few banks (8-way at tile 16, 32-way at tile 32), the conflict that the transpose
      lessons remove by padding.)");
    k.sources.push_back({"PMPP 4th ed., ch. 6.1, Fig. 6.4 and exercise 1: corner turning, TILE_WIDTH 16", "--set tile=16",
                         "multiples of 16 (the source has no bounds checks)",
                         "the column-major N is read coalesced into shared memory and used from there", "PMPP's corner turning (Fig. 6.4)"});
    return k;
  }
};

struct matmul_coarse1d : MatmulFamily {
  static catalog::KernelInfo info() {
    auto k = base("matmul_coarse1d", "tiled SGEMM with thread coarsening", R"(
      The kernel of matmul_tiled (32×32 tiles) with COARSE = `coarse`: each block computes
      `coarse` neighbouring tiles of C along a row. The A tile is loaded once and used against
      `coarse` B tiles, and each thread keeps `coarse` running sums in registers (sum[c]).
      Fewer blocks load the same A tile: A traffic drops by the coarsening factor, at the
      price of fewer, longer-running threads.)",
                  false);
    k.teach_size = 128;
    k.params.push_back({"coarse", 4, {1, 2, 4, 8}, 1, 8, "output tiles per block along a row"});
    k.sources.push_back({"PMPP 4th ed., ch. 6.3: thread coarsening, TILE_WIDTH 32, COARSE_FACTOR 4", "--set coarse=4",
                         "multiples of 128 (the source has no bounds checks)",
                         "12.8 OP/B where the tiled kernel (tile 32) has 8", "PMPP's thread coarsening"});
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    catalog::with_constant<1, 2, 4, 8>(p["coarse"], [&](auto coarse) {
      constexpr int C = decltype(coarse)::value, T = kCoarseTile;
      l.template launch<MatmulTiled<T, C, false>>(grid(p, T, T * C), dim3(T, T), 0, args(l, p));
    });
  }
};

// (BM·BN)/(TM·TN) threads a block, a BM×BN tile of C; `bm` picks the compiled BM.
template <template <int> class Kernel>
struct RegisterTiledEntry : MatmulFamily {
  static catalog::KernelInfo register_tiled_info(const char* id, const char* title, const char* lesson) {
    auto k = base(id, title, lesson, false);
    k.teach_size = 128;
    k.params.push_back({"bm", 128, {64, 128}, 64, 128, "block tile edge BM = BN (BK = 8, TM = TN = 8)"});
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    catalog::with_constant<64, 128>(p["bm"], [&](auto bm) {
      using K = Kernel<decltype(bm)::value>;
      l.template launch<K>(grid(p, K::BM, K::BN), dim3(K::THREADS), 0, args(l, p));
    });
  }
};

struct matmul_coarse2d : RegisterTiledEntry<MatmulCoarse2D> {
  static catalog::KernelInfo info() {
    return register_tiled_info("matmul_coarse2d", "SGEMM with 2-D register blocking", R"(
      A block of (BM·BN)/64 threads computes a BM×BN tile of C, 8 k at a time; each thread
      owns an 8×8 patch of it in registers (acc). For every k it loads 8 values of A (regM)
      and 8 of B (regN) from shared memory and does 64 multiply-adds: 16 shared loads for 64
      FMAs, where the tiled kernel needed 2 per FMA. The shared reads are not free: the rows
      of As a warp reads are 64 words apart, in one bank, and the lanes reading
      Bs[k][threadCol * TN + j] are 8 words apart, so both loads take several wavefronts. The
      C store has lanes 8 words apart too: 32 sectors a request.)");
  }
};

struct matmul_coarse2d_vec : RegisterTiledEntry<MatmulCoarse2DVec> {
  static catalog::KernelInfo info() {
    auto k = register_tiled_info("matmul_coarse2d_vec", "SGEMM, register blocking and float4 accesses", R"(
      The register-blocked kernel with 128-bit accesses: each lane loads a float4 of A and of
      B and stores a float4 of C, so one warp request moves 512 bytes (16 sectors), a quarter
      of the instructions. The A tile is stored transposed (As[k][m]): its four scalar stores
      cost a 2-way conflict, but the TM values a thread reads for one k become neighbours and
      the regM loads are conflict-free. Bs is written and read as float4, in 4 phases of 8
      lanes; the reads, 8 words apart a lane, still take 2 wavefronts a phase. N must be a
      multiple of 4 so that every row starts on a 16-byte boundary.)");
    k.size_min = 4;
    k.check = [](const catalog::Params& p) -> std::string {
      if (p.size() % 4 == 0) return "";
      return "matmul_coarse2d_vec needs a size that is a multiple of 4 (rows are read as float4): got " +
             std::to_string(p.size());
    };
    return k;
  }
};

// The published register-tiled kernels: a BM×BN tile of C a block, C read and written
// (C = alpha·A·B + beta·C with the scalars of the source's own benchmark).
template <class Kernel, class Entry>
struct PublishedSgemmEntry : MatmulFamily {
  static catalog::KernelInfo published_info(const char* id, const char* title, const char* lesson) {
    auto k = base(id, title, lesson, false);
    k.teach_size = 128;
    k.alpha = Entry::kAlpha;
    k.beta = Entry::kBeta;
    k.buffers = [](const catalog::Params& p) {
      auto b = MatmulFamily::buffers<false>(p);
      b[2].role = catalog::Role::InOut;
      return b;
    };
    k.reference = [](const catalog::Params& p, catalog::HostArrays& a) {
      gemm_reference(a[0].data(), a[1].data(), a[2].data(), n(p), Entry::kAlpha, Entry::kBeta);
    };
    k.bytes = [](const catalog::Params& p) { return 4.0 * 4.0 * double(n(p)) * double(n(p)); };
    k.check = Entry::check;
    return k;
  }
  // "" when N is a multiple of `m`, else the line naming the sizes the source supports.
  static std::string multiple_of(const catalog::Params& p, int64_t m, const char* id, const char* why) {
    if (p.size() % m == 0) return "";
    return std::string(id) + " needs a size that is a multiple of " + std::to_string(m) + " (" + why + "): got " +
           std::to_string(p.size()) + "; try " + std::to_string(std::max<int64_t>(m, p.size() / m * m));
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    MatmulArgs args = MatmulFamily::args(l, p);
    args.alpha = Entry::kAlpha;
    args.beta = Entry::kBeta;
    l.template launch<Kernel>(grid(p, Kernel::BM, Kernel::BN), dim3(Kernel::THREADS), 0, args);
  }
};

struct matmul_siboehm5 : PublishedSgemmEntry<MatmulSiboehm5<128>, matmul_siboehm5> {
  static constexpr float kAlpha = 0.5f, kBeta = 3.0f;  // as the source's benchmark
  static std::string check(const catalog::Params& p) {
    return multiple_of(p, 128, "matmul_siboehm5", "the published kernel has no bounds checks");
  }
  static catalog::KernelInfo info() {
    auto k = published_info("matmul_siboehm5", "SGEMM kernel 5 of siboehm's blog: 2-D blocktiling", R"(
      The 2-D blocktiling kernel exactly as published: 256 threads compute a 128×128 tile of C,
      8 values of k a pass; each thread keeps an 8×8 patch of C in registers. Watch the shared
      loads of one k: the 8 values of As a thread needs lie 8 floats apart (32-bit loads,
      lanes 64 floats apart: 16 threads share one bank), while the 8 values of Bs are
      neighbours and leave as two 128-bit loads. The epilogue reads every element of C before
      it writes it (C = 0.5·A·B + 3·C, as the source's benchmark), lanes 8 floats apart: 32
      sectors a request. The source reports 16 TFLOP/s on the author's GPU, twice kernel 4.)");
    k.sources.push_back({"siboehm, \"How to optimize a CUDA matmul kernel\", kernel 5 (2-D blocktiling), "
                         "SGEMM_CUDA sgemm2DBlocktiling<128, 128, 8, 8, 8>",
                         "", "multiples of 128 (no bounds checks)",
                         "16 TFLOP/s on the author's GPU, 2× kernel 4; 64 results a thread", "siboehm's kernel 5"});
    return k;
  }
};

struct matmul_siboehm6 : PublishedSgemmEntry<MatmulSiboehm6<128>, matmul_siboehm6> {
  static constexpr float kAlpha = 0.5f, kBeta = 3.0f;
  static std::string check(const catalog::Params& p) {
    return multiple_of(p, 128, "matmul_siboehm6", "the published kernel has no bounds checks");
  }
  static catalog::KernelInfo info() {
    auto k = published_info("matmul_siboehm6", "SGEMM kernel 6 of siboehm's blog: vectorized", R"(
      Kernel 5 with two changes, as published. As is stored transposed (As[k][m]): the four
      scalar stores of each float4 of A cost a bank conflict, but the 8 values a thread reads
      for one k become neighbours and leave as two 128-bit loads (LDS.128), like Bs. And every
      global access is a float4: one of A and one of B per thread and pass, and C is read,
      updated and written back 16 bytes a lane. The source reports about 3% (500 GFLOP/s) from
      the transpose alone; compare the timeline with matmul_siboehm5.)");
    k.sources.push_back({"siboehm, \"How to optimize a CUDA matmul kernel\", kernel 6 (vectorize SMEM and GMEM "
                         "accesses), SGEMM_CUDA sgemmVectorize<128, 128, 8, 8, 8>",
                         "", "multiples of 128 (no bounds checks)",
                         "As transposed: LDS.128 instead of 32-bit loads, +500 GFLOP/s (~3%); "
                         "LDG.E.128 / STG.E.128 for the global accesses", "siboehm's kernel 6"});
    return k;
  }
};

struct matmul_xgemm6 : PublishedSgemmEntry<MatmulXgemm6, matmul_xgemm6> {
  static constexpr float kAlpha = 1.0f, kBeta = 0.0f;  // the source writes 1·value + 0·C
  static std::string check(const catalog::Params& p) {
    return multiple_of(p, 4, "matmul_xgemm6", "the published kernel reads rows as float4 and asserts it");
  }
  static catalog::KernelInfo info() {
    auto k = published_info("matmul_xgemm6", "xGeMM step 6: 2-D coarsening with float4 loads", R"(
      The last step of the xGeMM series, as published: 256 threads, a 128×128 tile of C, but
      k advances 16 at a time (a 128×16 tile of A, stored transposed, and a 16×128 tile of
      B), so each thread loads two float4s of each tile a pass and the block meets at the
      barrier half as often as kernel 6. Loads outside the matrix store zeros, so any multiple
      of 4 works. The epilogue is scalar and reads C (1·value + 0·C): lanes 8 floats apart, 32
      sectors a request for 4 useful ones, read and then written. The source reports about
      70% of cuBLAS on an RTX 3090.)");
    k.sources.push_back({"xGeMM (tgautam03), step 6: vectorized memory accesses, "
                         "coarse_2d_vec_mat_mul_kernel (tiles 128×16 and 16×128, 8×8 a thread)",
                         "", "multiples of 4 (asserted)", "about 70% of cuBLAS on an RTX 3090", "xGeMM step 6"});
    return k;
  }
};

// The rungs past the published ladders (MatmulWarpTile): a 128-row block tile, warps of
// 64 rows, 4×4 patches a lane; C = alpha·A·B + beta·C with the scalars of SGEMM_CUDA's
// benchmark, so that its kernels 10 and 11 can be timed beside them on the same arrays.
struct WarpTileFamily : MatmulFamily {
  static constexpr float kAlpha = 0.5f, kBeta = 3.0f;
  static catalog::KernelInfo warptile_info(const char* id, const char* title, const char* lesson) {
    auto k = base(id, title, lesson, false);
    k.source_file = "warptile.h";
    k.teach_size = 128;
    k.size_min = 4;
    k.alpha = kAlpha;
    k.beta = kBeta;
    k.buffers = [](const catalog::Params& p) {
      auto b = MatmulFamily::buffers<false>(p);
      b[2].role = catalog::Role::InOut;
      return b;
    };
    k.reference = [](const catalog::Params& p, catalog::HostArrays& a) {
      warptile_reference(a[0].data(), a[1].data(), a[2].data(), n(p), kAlpha, kBeta);
    };
    k.bytes = [](const catalog::Params& p) { return 4.0 * 4.0 * double(n(p)) * double(n(p)); };
    k.check = [](const catalog::Params& p) -> std::string {
      if (p.size() % 4 == 0) return "";
      return "the warp-tiled kernels need a size that is a multiple of 4 (rows are read as float4): got " +
             std::to_string(p.size()) + "; try " + std::to_string((p.size() + 3) / 4 * 4);
    };
    return k;
  }
  template <class K, class L>
  static void launch(L& l, const catalog::Params& p, int group) {
    WarpTileArgs args{l.template buf<const float>(0), l.template buf<const float>(1), l.template buf<float>(2),
                      int(n(p)), kAlpha, kBeta, group};
    l.template launch<K>(grid(p, K::BM, K::BN), dim3(K::THREADS), 0, args);
  }
};

struct matmul_warptile : WarpTileFamily {
  static catalog::KernelInfo info() {
    return warptile_info("matmul_warptile", "SGEMM with warp tiling", R"(
      The 8×8 register patch of matmul_coarse2d_vec, placed by warps: each of the 8 warps
      owns a 64×32 part of the 128×128 block tile, cut into four 32×16 sub-tiles, and in
      each sub-tile the lanes stand 8 rows by 4 columns, a 4×4 patch each. For one k a warp
      reads 8 neighbouring float4s of As and 4 of Bs, each shared by several lanes: 4
      wavefronts a request, the least a 16-byte load can take, where matmul_coarse2d_vec's Bs
      reads (lanes 8 floats apart) took twice that. A lane still does 64 FMAs for 4 shared
      loads. The A tile is stored transposed into rows padded by 4 floats, so its scalar
      stores do not conflict either, and the epilogue reads and writes C in float4s, 8 rows
      of 64 bytes a request: every sector full. Loads outside the matrix are zeros, so any
      multiple of 4 works.)");
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    launch<MatmulWarpTile<128, 128, 8, 64, 32, 1>>(l, p, 1);
  }
};

struct matmul_double_buffer : WarpTileFamily {
  static catalog::KernelInfo info() {
    return warptile_info("matmul_double_buffer", "SGEMM, warp tiling and double-buffered shared tiles", R"(
      matmul_warptile with two shared buffers. While the warps multiply the tile in one
      buffer, each thread has already issued the global loads of the next tile into
      registers (ra, rb); after its FMAs it stores them into the other buffer, and one
      barrier a tile is enough, where matmul_warptile waits twice (before overwriting the
      tile, and before reading it). The loads are the same requests and sectors; what
      changes is when they are waited for: a load issued before 512 FMAs has arrived by the
      time its register is stored. Step the timeline: the next tile's reads sit in the same
      epoch as this tile's arithmetic.)");
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    launch<MatmulWarpTile<128, 128, 8, 64, 32, 2>>(l, p, 1);
  }
};

struct matmul_tuned : WarpTileFamily {
  static catalog::KernelInfo info() {
    auto k = warptile_info("matmul_tuned", "SGEMM, the double-buffered kernel tuned on the GPU", R"(
      The double-buffered warp-tiled kernel at the setting a search on an H100 picked from
      20 (docs/validation.md lists them all): k-slices of 8, warps of 64×32, blocks walking
      C in bands of 16 block rows, and lanes in pairs. Four knobs change the access pattern.
      group: in bands, the blocks running together read the same tiles of A and B and find
      them in L2; row by row (group=1), a wave of blocks spans whole rows of C and reads
      every column of B. wn=64 gives each lane an 8×16 patch (128 FMAs for 6 shared loads,
      against 64 for 4) but only 4 warps a block. bk=16 halves the barriers, but its
      transposed A stores conflict 2-way (the report shows it). lanes=1 orders a sub-tile's
      32 lanes in pairs (lanes 2i and 2i+1 one above the other in a column): each float4 of
      Bs is read by two neighbouring lanes, each float4 of As by two pairs. The addresses a
      warp reads are the same, only which lane reads which, and warpscope's model (8 lanes a
      wavefront for 16-byte loads) counts the same 4 wavefronts; but the H100 serves
      neighbouring lanes that share a 16-byte address in one pass: its counters measured
      2.25 wavefronts a shared load against 3.25, and the rung ran at 90.7% of cuBLAS
      against 85.4% with lanes=0 (4096, one run). Like the rungs before it, it loads a tile
      that lies wholly inside the matrices without a test per float4: with the tests,
      ptxas sinks the loads to the stores that wait on them and the double buffering is
      lost (78% against 88%; docs/validation.md, section 14).)");
    k.params.push_back({"bk", 8, {8, 16}, 8, 16, "k-slice of a shared tile (16: half the barriers, twice the loads in flight)"});
    k.params.push_back({"wn", 32, {32, 64}, 32, 64, "warp tile columns (warps of 64 rows; 64: 4 warps, 8×16 a lane)"});
    k.params.push_back({"group", 16, {1, 2, 4, 8, 16}, 1, 16, "block rows a band of the block order"});
    k.params.push_back({"lanes", 1, {0, 1}, 0, 1, "lane order in a sub-tile: 0 row by row (lane/4, lane%4), 1 paired"});
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    catalog::with_constant<8, 16>(p["bk"], [&](auto bk) {
      catalog::with_constant<32, 64>(p["wn"], [&](auto wn) {
        constexpr int BK = decltype(bk)::value, WN = decltype(wn)::value;
        if (p["lanes"] == 1)
          launch<MatmulWarpTile<128, 128, BK, 64, WN, 2, true>>(l, p, int(p["group"]));
        else
          launch<MatmulWarpTile<128, 128, BK, 64, WN, 2>>(l, p, int(p["group"]));
      });
    });
  }
};

}  // namespace ws::kernels
