// bench/device/sgemm_variants.cu — SGEMM kernel variants tried against the warp-tiled body of
// src/gpu/raw_warptile.cuh (row 1, the reference), each checked against cuBLAS and timed beside
// it on C = alpha·A·B + beta·C with alpha 0.5, beta 3 (C is read). Row-major, N a multiple of 128.
// The variants share one templated body (sv::body) that differs from the reference in:
//   * REGDB: register double buffering of the shared fragments (k+1's fa/fb loaded while k's
//     FMAs run; the next stage is published — stored or waited for — and its first fragments
//     loaded before the last k's FMAs), one barrier per BK step;
//   * PAIRED: lanes in CUTLASS's RowMajorInterleaved<2> order (lane bit 0 = row), so lanes n, n^1
//     share their B float4 and n, n^2 their A float4. Reasoning: shared memory returns 128 B a
//     clock, so an LDS.128 takes 4 passes unless paired lanes read the same address (then 2; the
//     documented sm_7x rule). 8×8 per lane is 64 FFMA (16 SM clocks a warp) per 4 LDS.128: with
//     4 passes each the shared pipe would be as busy as the FMA pipe. The reference's row-major
//     lanes pair up only on A (12 of 16 clocks); paired lanes pair up on both (8 of 16);
//   * the lane grid: 8×4 lanes on a 64×32 warp tile (as the reference) or 4×8 lanes on a 32×64
//     warp tile (CUTLASS's SIMT policy); 8×8 per lane as 2×2 patches of 4×4 either way;
//   * ASYNC: the global→shared path by cp.async with 3–4 shared stages instead of register
//     staging with 2: B by 16-byte cp.async.cg, A by 4-byte cp.async.ca that land it transposed
//     (k-major, padded by 4; 8 lanes along k × 4 rows, conflict-free) so fragment loads stay
//     LDS.128; no staging registers;
//   * launch bounds (256, 2) where the natural count is over 128 registers (the register-staged
//     REGDB kernels: 141): two blocks per SM, as the reference gets by itself (127 registers).
// Built alone (no GPU needed to build):
//   nvcc -O3 -arch=sm_90 -std=c++17 -Isrc -Xptxas -v -o sgemm_variants bench/device/sgemm_variants.cu -lcublas
//   ./sgemm_variants [N] [big]      (N defaults to 4096; "big" also runs N = 8192)
#include "sgemm_variants.cuh"

template <int BM, int BN, int BK, int WM, int WN, int LROWS, int STAGES, bool ASYNC, bool REGDB, bool PAIRED, int MINB>
static void variant(Ctx& x, const char* name, int group) {
  constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
  run(x, name, sv::sgemm_variant<BM, BN, BK, WM, WN, LROWS, STAGES, ASYNC, REGDB, PAIRED, MINB>, BM, BN, BK, THREADS,
      sv::smem_bytes<BM, BN, BK, STAGES>(), group);
}

static void bench(int N) {
  Ctx x;
  if (!prepare(x, N, "variants")) return;

  run(x, "ref 128x128 bk8 w64x32 (raw_warptile)", sv::reference, 128, 128, 8, 256, 0, 16);
  //     BM   BN   BK  WM  WN LROWS STAGES ASYNC  REGDB PAIRED MINB
  variant<128, 128, 8, 64, 32, 8, 2, false, true, false, 2>(x, "1 regdb bk8 w64x32 lb2", 16);
  variant<128, 128, 8, 64, 32, 8, 2, false, false, true, 1>(x, "2 paired lanes bk8 w64x32", 16);
  variant<128, 128, 8, 64, 32, 8, 2, false, true, true, 2>(x, "3 regdb+paired bk8 w64x32 lb2", 16);
  variant<128, 128, 8, 32, 64, 4, 2, false, true, true, 2>(x, "4 cutlass 4x8 il2 bk8 w32x64 regdb lb2", 16);
  variant<128, 128, 8, 64, 32, 8, 3, true, true, true, 1>(x, "5 cp.async s3 bk8 w64x32 regdb+paired", 16);
  variant<128, 128, 16, 64, 32, 8, 3, true, true, true, 1>(x, "6 cp.async s3 bk16 w64x32 regdb+paired", 16);
  variant<128, 128, 16, 32, 64, 4, 4, true, true, true, 1>(x, "7 cp.async s4 bk16 cutlass w32x64", 16);
  run(x, "ref (again)", sv::reference, 128, 128, 8, 256, 0, 16);

  release(x);
}

int main(int argc, char** argv) {
  int N = argc > 1 ? atoi(argv[1]) : 4096;
  bench(N);
  if (argc > 2 && strcmp(argv[2], "big") == 0 && N != 8192) bench(8192);
  return 0;
}
