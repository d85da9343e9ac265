// bench/device/hgemm_variants.cu — how close hand-written tensor-core HGEMMs get to cuBLAS on an
// H100 (sm_90a): C = A·B, f16 A and B, f32 accumulation, f32 C, N×N×N, N = 4096 (and 8192 with
// "big"). Standalone: no project header, no framework context (unless built with
// -DWS_CATALOG, below).
//
// Layouts, as kernels/tensor.h (tc_mma_*) and the yardstick in src/gpu/cublas.cpp use them:
//   A  N×N half, row-major:                    (m, k) at A[m * N + k]
//   B  N×N half, column-major (N×K row-major): (k, n) at B[n * N + k]   (k contiguous, "K-major")
//   C  N×N float, row-major:                   (m, n) at C[m * N + n]
// cuBLAS is called as src/gpu/cublas.cpp calls it for these layouts (row-major C = column-major
// C^T = B^T·A^T): cublasGemmEx(OP_T, OP_N, N, N, N, 1, B, 16F, N, A, 16F, N, 0, C, 32F, N,
// CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), default math mode.
//
// The kernels:
//   mma.sync (CUTLASS sm80 style), one template, mma_sync_gemm<BM, BN, BK, WARPS_M, WARPS_N, STAGES>:
//     * every warp a 64×64 patch of C: 4×8 m16n8k16 tiles, 128 f32 accumulators a thread;
//     * cp.async.cg 16-byte copies, STAGES-deep ring in dynamic shared memory, one barrier per k tile;
//     * tiles stored k-contiguous (A rows m, B rows n), 16-byte chunk u of 128-byte line L at
//       u ^ (L % 8): the 8 rows of every ldmatrix 8×8 matrix hit 8 different bank groups;
//     * ldmatrix.x4 for A and for B (no .trans: B's tile rows are n with k contiguous, which is
//       already the mma's .col operand), fragments double-buffered across the k16 steps (the
//       next step's ldmatrix issued before this step's mmas; the next stage's first fragments
//       loaded before the last mmas of the current stage);
//     * blocks numbered down groups of 8 block rows (L2 reuse of the B tiles).
//   wgmma (sm_90a), wgmma_gemm<BN, STAGES>: 384 threads = 1 producer warpgroup + 2 consumer
//     warpgroups; block tile 128×BN×64; the producer's thread 0 loads A (128×64) and B (BN×64)
//     tiles by TMA (cp.async.bulk.tensor.2d, CUtensorMap with 128-byte swizzle) into a STAGES ring
//     guarded by full/empty mbarriers; each consumer warpgroup owns 64 rows of the C tile and runs
//     wgmma.mma_async m64nBNk16 (A and B both from shared memory through 128B-swizzle K-major
//     descriptors), keeping one wgmma group in flight (wait_group 1) before it frees a stage.
//   wgmma_gemm_mc<BN, STAGES, GROUP_M>: the same in 2×1 thread block clusters; the two CTAs of
//     a cluster compute vertically adjacent tiles, each asks the TMA for its A box and for half
//     of the shared B box, multicast to both (cp.async.bulk.tensor ... .multicast::cluster), and
//     a stage is refilled once the consumers of both CTAs have released it (remote arrivals).
//   wgmma_gemm_persistent<BN, STAGES, GROUP_M>: one block an SM walking the tiles in turn, its
//     ring and phases running on from tile to tile (the producer fills the next tile's stages
//     while the consumers store C).
//
// Check: inputs k/8, k in [-8, 8], so every product and partial sum is exact in f32 (|sum| ≤ N,
// a multiple of 1/64): every summation order gives cuBLAS's answer bit for bit. cuBLAS's C itself
// is spot-checked against a double-precision CPU sum (confirms the layout convention). C is set
// to NaN before each kernel's checked launch; a kernel whose max relative error exceeds 1e-3 is
// reported FAIL and not timed.
// Timing: 5 warm-up launches, then 25 launches each between two events; the median is reported.
//
// Build (no GPU needed to build):
//   nvcc -O3 -arch=sm_90a -std=c++17 -o /tmp/hv bench/device/hgemm_variants.cu -lcublas -lcuda -Xptxas -v
//   /tmp/hv            (N = 4096)
//   /tmp/hv big        (N = 4096 and 8192)
//   /tmp/hv 2048       (any N; kernels whose tile does not divide N are skipped)
//   HV_DATA=rand /tmp/hv   (inputs uniform in [-1, 1) instead of k/8; checked against |cuBLAS| + 1)
// With -std=c++20 -DWS_CATALOG -Isrc -Ikernels it also times the catalog's own tensor-core rungs
// (kernels/tensor.h), instantiated as warpscope's plain launches instantiate them, in the
// same rounds: a tuning loop of seconds instead of the whole GPU build.
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(WS_CATALOG)
#include "gpu/contexts.cuh"
#include "tensor.h"
#include "wgmma.h"
#undef __syncthreads  // the kernel bodies above read it as ctx.barrier(); the code below as itself
#endif

namespace hv {

// ---------------------------------------------------------------------------------------------
// Common device helpers
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Which C tile block `pid` computes (1-D grid): consecutive blocks walk down a group of
// GROUP_M block rows before moving one block column right, so the ~132 resident blocks share
// a few B column tiles and GROUP_M A row tiles in L2.
template <int BM, int BN, int GROUP_M>
__device__ __forceinline__ void tile_of(int pid, int N, int& m0, int& n0) {
  const int gm = N / BM, gn = N / BN;
  const int per_group = GROUP_M * gn, first = pid / per_group * GROUP_M;
  const int rows = min(gm - first, GROUP_M);
  const int in_group = pid % per_group;
  m0 = (first + in_group % rows) * BM;
  n0 = (in_group / rows) * BN;
}
// This block's, in groups of 8 block rows.
template <int BM, int BN>
__device__ __forceinline__ void tile_of_block(int N, int& m0, int& n0) {
  tile_of<BM, BN, 8>(int(blockIdx.x), N, m0, n0);
}

// ---------------------------------------------------------------------------------------------
// mma.sync kernels
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int PENDING>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");  // stays after the barrier that publishes the stage
}

__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Byte offset, in a tile whose rows hold CH 16-byte chunks (BK = 8·CH halves), of chunk c of row
// r: 128-byte lines of shared memory, chunk u of line L stored at u ^ (L % 8). For CH = 4 a line
// holds two rows; the 8 rows of an ldmatrix matrix (rows 8j..8j+7, one logical chunk) lie in 4
// lines whose L % 8 differ in the low two bits, their two rows differing in chunk bit 2: 8
// distinct bank groups. For CH = 8 a line is a row: c ^ (r % 8).
template <int CH>
__host__ __device__ __forceinline__ constexpr uint32_t swz(int r, int c) {
  return uint32_t((r * CH + c) / 8 * 128 + ((((r * CH + c) % 8) ^ (((r * CH + c) / 8) % 8)) * 16));
}

// C tile BM×BN, k BK at a time, WARPS_M×WARPS_N warps of 64×64, STAGES-deep cp.async ring.
// N must be a multiple of BM, BN and BK (the host checks; the kernel returns otherwise).
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int MINB>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, MINB)
    mma_sync_gemm(const half* __restrict__ A, const half* __restrict__ B, float* __restrict__ C, int N) {
  constexpr int THREADS = 32 * WARPS_M * WARPS_N;
  constexpr int WTM = BM / WARPS_M, WTN = BN / WARPS_N;  // 64×64
  constexpr int MT = WTM / 16, NT = WTN / 8, NP = NT / 2;
  constexpr int KK = BK / 16, CH = BK / 8;
  constexpr uint32_t A_STAGE = BM * BK * 2, B_STAGE = BN * BK * 2;  // bytes
  constexpr int ROWS_PER_PASS = THREADS / CH;                        // tile rows one pass of copies covers
  constexpr int A_CP = BM / ROWS_PER_PASS, B_CP = BN / ROWS_PER_PASS;
  constexpr uint32_t PASS_BYTES = ROWS_PER_PASS * BK * 2;
  constexpr uint32_t ROW16_BYTES = 16 * BK * 2;  // 16 tile rows
  static_assert(WTM == 64 && WTN == 64, "warp tile 64x64");
  static_assert(KK % 2 == 0, "fragment double buffering alternates buffers across k16 steps");
  static_assert(THREADS % 64 == 0, "a pass of copies must cover whole groups of 8 lines (swizzle period)");
  static_assert(BM % ROWS_PER_PASS == 0 && BN % ROWS_PER_PASS == 0, "copy passes");
  static_assert(STAGES >= 2, "pipeline");

  if (N % BM || N % BN || N % BK) return;
  extern __shared__ __align__(128) uint8_t smem_mma[];
  const uint32_t sA = smem_u32(smem_mma), sB = sA + STAGES * A_STAGE;
  const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  int m0, n0;
  tile_of_block<BM, BN>(N, m0, n0);
  const int wm = (warp / WARPS_N) * WTM, wn = (warp % WARPS_N) * WTN;
  const int KT = N / BK;

  // Copies: thread tid takes chunk tid % CH of rows tid / CH + i·ROWS_PER_PASS (A and B alike).
  const int cr = tid / CH, cc = tid % CH;
  const half* gA = A + size_t(m0 + cr) * N + cc * 8;
  const half* gB = B + size_t(n0 + cr) * N + cc * 8;
  const size_t pass_stride = size_t(ROWS_PER_PASS) * N;
  const uint32_t dA = sA + swz<CH>(cr, cc), dB = sB + swz<CH>(cr, cc);
  auto load_tile = [&](int stage, int kt) {
    const half* a = gA + kt * BK;
    const half* b = gB + kt * BK;
    const uint32_t da = dA + stage * A_STAGE, db = dB + stage * B_STAGE;
#pragma unroll
    for (int i = 0; i < A_CP; ++i) cp_async16(da + i * PASS_BYTES, a + i * pass_stride);
#pragma unroll
    for (int i = 0; i < B_CP; ++i) cp_async16(db + i * PASS_BYTES, b + i * pass_stride);
  };

  // ldmatrix addresses (stage 0, mt / np 0) for each k16 step. A: lanes 0-15 rows 0-15 chunk
  // 2kk, lanes 16-31 the same rows chunk 2kk+1 -> a0..a3. B: lanes 0-7 n 0-7 chunk 2kk, 8-15 n
  // 0-7 chunk 2kk+1, 16-23 n 8-15 chunk 2kk, 24-31 n 8-15 chunk 2kk+1 -> b0,b1 of two n8 tiles.
  // 16 rows further is 2·CH lines further (a multiple of 8): same swizzle, + ROW16_BYTES.
  uint32_t aoff[KK], boff[KK];
#pragma unroll
  for (int kk = 0; kk < KK; ++kk) {
    aoff[kk] = swz<CH>(wm + (lane & 15), kk * 2 + (lane >> 4));
    boff[kk] = swz<CH>(wn + ((lane & 7) | ((lane >> 4) << 3)), kk * 2 + ((lane >> 3) & 1));
  }

  float acc[MT][NT][4];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[mt][nt][i] = 0.0f;
  uint32_t af[2][MT][4], bf[2][NP][4];

  auto load_frags = [&](int buf, int stage, int kk) {
    const uint32_t a = sA + stage * A_STAGE + aoff[kk], b = sB + stage * B_STAGE + boff[kk];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) ldsm_x4(af[buf][mt], a + mt * ROW16_BYTES);
#pragma unroll
    for (int np = 0; np < NP; ++np) ldsm_x4(bf[buf][np], b + np * ROW16_BYTES);
  };

  // Prologue: tiles 0..STAGES-2 in flight, one commit group each (empty past the end).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) load_tile(s, s);
    cp_async_commit();
  }
  cp_async_wait<STAGES - 2>();  // tile 0 landed (this thread's copies)
  __syncthreads();              // everyone's
  int rs = 0, ws = STAGES - 1;  // stage read, stage written next
  load_frags(0, 0, 0);

  for (int kt = 0; kt < KT; ++kt) {
#pragma unroll
    for (int kk = 0; kk < KK; ++kk) {
      if (kk == KK - 1) {
        // Tile kt+1 must have landed: committed groups are tiles 0..kt+STAGES-1.
        cp_async_wait<STAGES - 2>();
        __syncthreads();  // everyone's copies visible; every warp done with tile kt-1's stage
        rs = (rs + 1 == STAGES) ? 0 : rs + 1;
      }
      // Next step's fragments (from the next stage after the last step; past the last tile they
      // are read from a stage nobody writes any more and never used).
      load_frags((kk + 1) % 2, rs, (kk + 1) % KK);
      if (kk == 0) {
        // Refill stage ws = (kt-1) % STAGES with tile kt+STAGES-1: its last reads (tile kt-1's
        // fragments) were before the barrier at kt-1's last step, which every thread has passed.
        if (kt + STAGES - 1 < KT) load_tile(ws, kt + STAGES - 1);
        cp_async_commit();
        ws = (ws + 1 == STAGES) ? 0 : ws + 1;
      }
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          // serpentine over n (as CUTLASS): neighbouring mmas share a B fragment
          const int n = (mt & 1) ? NT - 1 - nt : nt;
          mma16816(acc[mt][n], af[kk % 2][mt], bf[kk % 2][n / 2][(n % 2) * 2], bf[kk % 2][n / 2][(n % 2) * 2 + 1]);
        }
    }
  }
  cp_async_wait<0>();

  // Epilogue: c0,c1 at (g, 2t), c2,c3 at (g+8, 2t) of each m16n8 tile, as float2.
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    float* row0 = C + size_t(m0 + wm + mt * 16 + g) * N + n0 + wn + 2 * t;
    float* row1 = row0 + size_t(8) * N;
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      *reinterpret_cast<float2*>(row0 + nt * 8) = make_float2(acc[mt][nt][0], acc[mt][nt][1]);
      *reinterpret_cast<float2*>(row1 + nt * 8) = make_float2(acc[mt][nt][2], acc[mt][nt][3]);
    }
  }
}

template <int BM, int BN, int BK, int STAGES>
constexpr int mma_smem_bytes() {
  return STAGES * (BM + BN) * BK * 2;
}

// ---------------------------------------------------------------------------------------------
// wgmma kernel (sm_90a)
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
// Arrives on bar if `pred` (predicated, so the warp does not diverge before the next .aligned op).
__device__ __forceinline__ void mbar_arrive_if(uint32_t bar, bool pred) {
  asm volatile(
      "{\n.reg .b64 state;\n.reg .pred p;\n"
      "setp.ne.b32 p, %1, 0;\n"
      "@p mbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(bar),
      "r"(uint32_t(pred))
      : "memory");
}
// Waits until the phase of parity `parity` has completed. A wait that lasts over 2 s (a
// pipeline bug: lost arrival, wrong parity, TMA fault) traps instead of hanging the run.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  uint64_t t0 = 0;
  for (;;) {
    asm volatile(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
    if (done) return;
    uint64_t now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (t0 == 0)
      t0 = now;
    else if (now - t0 > 2000000000ull)
      __trap();
  }
}

// 2-D TMA tile load: box at (c0 = k element, c1 = row) into shared memory at dst, completion
// counted in bytes on mbarrier bar.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
          dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving accumulator reads/writes across the async wgmma boundary.
template <int R>
__device__ __forceinline__ void fence_acc(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Shared-memory matrix descriptor, K-major operand with 128-byte swizzle: start address >> 4
// (bits 0-13), leading byte offset 16 >> 4 = 1 (bits 16-29; unused for swizzled K-major), stride
// byte offset 1024 >> 4 = 64 (bits 32-45: the next 8 rows, one 8×128 B swizzle atom further),
// base offset 0 (bits 49-51: atoms 1024-byte aligned), layout 1 = 128B swizzle (bits 62-63).
// The k16 step j of a 64-wide k tile starts 32·j bytes into the row: start address + 2j.
__device__ __forceinline__ uint64_t sw128_desc(uint32_t addr) {
  return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

// D (64×N f32, per thread N/2 registers) += A (64×16, smem desc) · B (16×N, smem desc, K-major:
// imm-trans-b 0), scale-d 1 (accumulate), imm-scale-a/b 1, no transposes.
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b) {
  asm volatile(
      "{\n.reg .pred p;\n"
      "setp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
      "}, %128, %129, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(1));
}

__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b) {
  asm volatile(
      "{\n.reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(1));
}

template <int BN>
__device__ __forceinline__ void wgmma_tile(float (&d)[BN / 2], uint64_t da, uint64_t db);
template <>
__device__ __forceinline__ void wgmma_tile<256>(float (&d)[128], uint64_t da, uint64_t db) {
  wgmma_m64n256k16(d, da, db);
}
template <>
__device__ __forceinline__ void wgmma_tile<128>(float (&d)[64], uint64_t da, uint64_t db) {
  wgmma_m64n128k16(d, da, db);
}

template <int BN, int STAGES>
struct WgCfg {
  static constexpr int BM = 128, BK = 64, CONSUMERS = 2, THREADS = 128 * (1 + CONSUMERS);
  static constexpr uint32_t A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2, STAGE_BYTES = A_BYTES + B_BYTES;
  // + 1024: the ring is aligned up to 1024 bytes (the 128B swizzle atom) by hand
  static constexpr int SMEM = 1024 + STAGES * int(STAGE_BYTES) + 2 * STAGES * 8;
  static_assert(SMEM <= 227 * 1024, "shared memory");
  static_assert(BM == 64 * CONSUMERS, "each consumer warpgroup owns 64 rows");
};

// The ring in dynamic shared memory: STAGES tiles of A, then of B, then the full and empty
// mbarriers. Thread 0 initializes the barriers: full[s] takes 1 arrival (the producer's
// expect_tx) and the tile's bytes; empty[s] `empty_count` arrivals (lane 0 of each consumer
// warp that must be done with the stage).
template <int BN, int STAGES>
struct WgRing {
  using Cfg = WgCfg<BN, STAGES>;
  uint32_t sA, sB, bars;
  __device__ __forceinline__ explicit WgRing(const uint8_t* smem) {
    sA = (smem_u32(smem) + 1023u) & ~1023u;
    sB = sA + STAGES * Cfg::A_BYTES;
    bars = sB + STAGES * Cfg::B_BYTES;
  }
  __device__ __forceinline__ uint32_t full(int s) const { return bars + 8u * uint32_t(s); }
  __device__ __forceinline__ uint32_t empty(int s) const { return bars + 8u * uint32_t(STAGES + s); }
  __device__ __forceinline__ void init(uint32_t empty_count) const {
    if (threadIdx.x == 0) {
      for (int s = 0; s < STAGES; ++s) {
        mbar_init(full(s), 1);
        mbar_init(empty(s), empty_count);
      }
      asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
  }
};

// A consumer warpgroup's k loop over one tile (KT k tiles), from stage s at `phase`: for
// each stage, wait for its boxes, four wgmma m64nBNk16 by descriptor, commit, and once the
// stage before is done (wait_group 1) hand it back with release(stage). The last stage is
// left to the caller (wait_group 0, then release it if the ring goes on).
template <int BN, int STAGES, class Release>
__device__ __forceinline__ void wg_consume(float (&d)[BN / 2], const WgRing<BN, STAGES>& r, uint32_t a_rows, int KT,
                                           int& s, uint32_t& phase, int& prev, Release release) {
  using Cfg = WgCfg<BN, STAGES>;
  for (int kt = 0; kt < KT; ++kt) {
    mbar_wait(r.full(s), phase);
    const uint64_t da = sw128_desc(a_rows + s * Cfg::A_BYTES), db = sw128_desc(r.sB + s * Cfg::B_BYTES);
    fence_acc(d);
    wgmma_fence();
#pragma unroll
    for (int j = 0; j < Cfg::BK / 16; ++j) wgmma_tile<BN>(d, da + 2 * j, db + 2 * j);
    wgmma_commit();
    wgmma_wait<1>();  // tile kt-1's wgmmas are done: its stage can be refilled
    fence_acc(d);
    release(prev, kt > 0);
    prev = s;
    if (++s == STAGES) s = 0, phase ^= 1;
  }
  wgmma_wait<0>();
  fence_acc(d);
}

// Consumer warpgroup cw's accumulators into C rows m0 + 64cw .. +63. Layout (m64nNk16, f32):
// warp w of the warpgroup holds rows 16w..16w+15; lane (g = lane/4, t = lane%4) holds
// d[4j+0..1] at (16w+g, 8j+2t..+1), d[4j+2..3] at (16w+g+8, 8j+2t..+1).
template <int BN>
__device__ __forceinline__ void wg_store(const float (&d)[BN / 2], float* C, int N, int m0, int n0, int cw, int lane) {
  const int w = (int(threadIdx.x) / 32) % 4, g = lane >> 2, t = lane & 3;
  float* row0 = C + size_t(m0 + cw * 64 + w * 16 + g) * N + n0 + 2 * t;
  float* row1 = row0 + size_t(8) * N;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    *reinterpret_cast<float2*>(row0 + 8 * j) = make_float2(d[4 * j], d[4 * j + 1]);
    *reinterpret_cast<float2*>(row1 + 8 * j) = make_float2(d[4 * j + 2], d[4 * j + 3]);
  }
}

// The producer's pass over one tile's KT k tiles, from stage s at `phase` (the ring runs
// on from the caller's s and phase): wait until the stage is free, arm its full barrier with
// the stage's bytes, ask for A's box at row m0 and load_b(stage, kt) for B's.
template <int BN, int STAGES, class LoadB>
__device__ __forceinline__ void wg_produce(const WgRing<BN, STAGES>& r, const CUtensorMap* tmA, int m0, int KT, int& s,
                                           uint32_t& phase, LoadB load_b) {
  using Cfg = WgCfg<BN, STAGES>;
  for (int kt = 0; kt < KT; ++kt) {
    mbar_wait(r.empty(s), phase ^ 1);  // round 0: parity 1 passes at once (fresh barrier)
    mbar_expect_tx(r.full(s), Cfg::STAGE_BYTES);
    tma_load_2d(r.sA + s * Cfg::A_BYTES, tmA, r.full(s), kt * Cfg::BK, m0);
    load_b(s, kt);
    if (++s == STAGES) s = 0, phase ^= 1;
  }
}

template <int BN>
__device__ __forceinline__ void wg_zero(float (&d)[BN / 2]) {
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) d[i] = 0.0f;
}

// C tile 128×BN, k 64 at a time. Warpgroup 0: producer (one thread issues the TMA loads).
// Warpgroups 1, 2: consumers, rows 0-63 and 64-127 of the tile, wgmma m64nBNk16.
// empty[s]: one arrival from lane 0 of each of the 8 consumer warps once its wgmmas reading
// stage s have completed.
template <int BN, int STAGES>
__global__ void __launch_bounds__(384, 1)
    wgmma_gemm(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
               float* __restrict__ C, int N) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)  // the sm_90a pass (nvcc also emits compute_90 PTX, without wgmma)
  using Cfg = WgCfg<BN, STAGES>;
  constexpr int BM = Cfg::BM, BK = Cfg::BK;
  if (N % BM || N % BN || N % BK) return;
  extern __shared__ __align__(1024) uint8_t smem_wg[];
  const WgRing<BN, STAGES> r(smem_wg);
  const int wg = int(threadIdx.x) / 128, lane = int(threadIdx.x) % 32;
  r.init(4 * Cfg::CONSUMERS);
  __syncthreads();

  int m0, n0;
  tile_of_block<BM, BN>(N, m0, n0);
  const int KT = N / BK;

  if (wg == 0) {  // producer
    if (threadIdx.x == 0) {
      int s = 0;
      uint32_t phase = 0;
      wg_produce(r, &tmA, m0, KT, s, phase,
                 [&](int st, int kt) { tma_load_2d(r.sB + st * Cfg::B_BYTES, &tmB, r.full(st), kt * BK, n0); });
    }
    return;
  }

  const int cw = wg - 1;  // consumer warpgroup cw owns C rows m0 + 64cw .. +63
  float d[BN / 2];
  wg_zero<BN>(d);
  int s = 0, prev = 0;
  uint32_t phase = 0;
  wg_consume<BN, STAGES>(d, r, r.sA + uint32_t(cw) * 64 * 128, KT, s, phase, prev,  // 64 rows of 128 bytes further
                         [&](int stage, bool done) { mbar_arrive_if(r.empty(stage), done && lane == 0); });
  wg_store<BN>(d, C, N, m0, n0, cw, lane);
#else
  __trap();  // only the sm_90a cubin can run this kernel
#endif
}

// ---- 2×1 clusters: the two CTAs of a cluster compute vertically adjacent 128×BN tiles of C,
// which read the same BN×64 boxes of B. Each CTA asks the TMA for its own box of A and for
// half of the B box (BN/2 rows), multicast to both CTAs: each stage still receives all of its
// 48 KiB (A 16 KiB, B 2 × 16 KiB), but L2 sends each B row once per cluster instead of twice.
// A stage is refilled only when the consumers of both CTAs are done with it (a CTA's multicast
// writes into its peer too): empty[s] counts 16 arrivals, 8 consumer warps of each CTA, which
// arrive on both CTAs' barriers (mapa + mbarrier.arrive.release.cluster).
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
__device__ __forceinline__ uint32_t mapa(uint32_t addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
// Arrives on two barriers given by their cluster addresses, if `pred` (predicated, as mbar_arrive_if).
// The default semantics (release at CTA scope): what the arrive publishes is that this warp's
// wgmma reads of the stage are done (wgmma.wait_group), which needs no fence at cluster
// scope. With .release.cluster each arrive waited on a memory barrier: 44% of the consumers'
// stall cycles, 57% of cuBLAS (ncu, H200, 4096).
__device__ __forceinline__ void mbar_arrive_both_if(uint32_t bar0, uint32_t bar1, bool pred) {
  asm volatile(
      "{\n.reg .pred p;\n"
      "setp.ne.b32 p, %2, 0;\n"
      "@p mbarrier.arrive.shared::cluster.b64 _, [%0];\n"
      "@p mbarrier.arrive.shared::cluster.b64 _, [%1];\n}\n" ::"r"(bar0),
      "r"(bar1), "r"(uint32_t(pred))
      : "memory");
}
__device__ __forceinline__ void tma_load_2d_mc(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1,
                                               uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "h"(mask)
      : "memory");
}

template <int BN, int STAGES, int GROUP_M>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1)
    wgmma_gemm_mc(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                  float* __restrict__ C, int N) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Cfg = WgCfg<BN, STAGES>;
  constexpr int BM = Cfg::BM, BK = Cfg::BK;
  if (N % (2 * BM) || N % BN || N % BK) return;
  extern __shared__ __align__(1024) uint8_t smem_wg[];
  const WgRing<BN, STAGES> r(smem_wg);
  const int wg = int(threadIdx.x) / 128, lane = int(threadIdx.x) % 32;
  const uint32_t rank = cluster_rank();
  r.init(2 * 4 * Cfg::CONSUMERS);
  cluster_sync();  // both CTAs' barriers exist before either multicasts or arrives

  int m0, n0;
  tile_of<2 * BM, BN, GROUP_M>(int(blockIdx.x) / 2, N, m0, n0);
  m0 += int(rank) * BM;
  const int KT = N / BK;

  if (wg == 0) {
    if (threadIdx.x == 0) {
      int s = 0;
      uint32_t phase = 0;
      wg_produce(r, &tmA, m0, KT, s, phase, [&](int st, int kt) {  // this CTA's half of B, to both
        tma_load_2d_mc(r.sB + st * Cfg::B_BYTES + rank * (Cfg::B_BYTES / 2), &tmB, r.full(st), kt * BK,
                       n0 + int(rank) * (BN / 2), 0x3);
      });
    }
  } else {
    const int cw = wg - 1;
    float d[BN / 2];
    wg_zero<BN>(d);
    int s = 0, prev = 0;
    uint32_t phase = 0;
    wg_consume<BN, STAGES>(d, r, r.sA + uint32_t(cw) * 64 * 128, KT, s, phase, prev, [&](int stage, bool done) {
      mbar_arrive_both_if(mapa(r.empty(stage), 0), mapa(r.empty(stage), 1), done && lane == 0);
    });
    wg_store<BN>(d, C, N, m0, n0, cw, lane);
  }
  cluster_sync();  // neither CTA leaves while its peer may still arrive on its barriers
#else
  __trap();
#endif
}

// ---- persistent: a grid of one block an SM, each walking tiles pid, pid + gridDim.x, ...
// The ring and its phases run on across tiles: the producer fills the stages of the next
// tile while the consumers store the last one, so no block starts with an empty pipeline.
template <int BN, int STAGES, int GROUP_M>
__global__ void __launch_bounds__(384, 1)
    wgmma_gemm_persistent(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                          float* __restrict__ C, int N) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Cfg = WgCfg<BN, STAGES>;
  constexpr int BM = Cfg::BM, BK = Cfg::BK;
  if (N % BM || N % BN || N % BK) return;
  extern __shared__ __align__(1024) uint8_t smem_wg[];
  const WgRing<BN, STAGES> r(smem_wg);
  const int wg = int(threadIdx.x) / 128, lane = int(threadIdx.x) % 32;
  r.init(4 * Cfg::CONSUMERS);
  __syncthreads();
  const int KT = N / BK, tiles = (N / BM) * (N / BN);
  if (wg == 0) {
    if (threadIdx.x == 0) {
      int s = 0;
      uint32_t phase = 0;
      for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int m0, n0;
        tile_of<BM, BN, GROUP_M>(tile, N, m0, n0);
        wg_produce(r, &tmA, m0, KT, s, phase,
                   [&](int st, int kt) { tma_load_2d(r.sB + st * Cfg::B_BYTES, &tmB, r.full(st), kt * BK, n0); });
      }
    }
    return;
  }
  const int cw = wg - 1;
  int s = 0;
  uint32_t phase = 0;
  float d[BN / 2];
  auto release = [&](int stage, bool done) { mbar_arrive_if(r.empty(stage), done && lane == 0); };
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int m0, n0;
    tile_of<BM, BN, GROUP_M>(tile, N, m0, n0);
    wg_zero<BN>(d);
    int prev = 0;
    wg_consume<BN, STAGES>(d, r, r.sA + uint32_t(cw) * 64 * 128, KT, s, phase, prev, release);
    release(prev, true);  // the tile's last stage: the next tile may refill it
    wg_store<BN>(d, C, N, m0, n0, cw, lane);
  }
#else
  __trap();
#endif
}

}  // namespace hv

// ---------------------------------------------------------------------------------------------
// Host
// ---------------------------------------------------------------------------------------------

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

struct Bench {
  int N = 0;
  half *A = nullptr, *B = nullptr;
  float* C = nullptr;
  float cublas_ms = 0;
  double err_floor = 1e-3;  // the check's |want| + err_floor
  std::vector<float> want, got;
  cudaEvent_t e0, e1;
};

// Median of 25 event-timed launches after 5 warm-ups.
template <class Launch>
static float time_median(Bench& b, Launch&& launch) {
  for (int r = 0; r < 5; ++r) launch();
  std::vector<float> ms;
  for (int r = 0; r < 25; ++r) {
    CK(cudaEventRecord(b.e0));
    launch();
    CK(cudaEventRecord(b.e1));
    CK(cudaEventSynchronize(b.e1));
    float t;
    CK(cudaEventElapsedTime(&t, b.e0, b.e1));
    ms.push_back(t);
  }
  CK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

static double tflops(int N, float ms) { return 2.0 * double(N) * N * N / (double(ms) * 1e-3) / 1e12; }

// Max over C of |got - want| / (|want| + 1e-3); NaN (an unwritten element) gives NaN.
static double max_rel_err(Bench& b) {
  CK(cudaMemcpy(b.got.data(), b.C, b.got.size() * 4, cudaMemcpyDeviceToHost));
  double err = 0;
  for (size_t i = 0; i < b.got.size(); ++i) {
    double d = std::fabs(double(b.got[i]) - b.want[i]) / (std::fabs(double(b.want[i])) + b.err_floor);
    if (!(d <= err)) err = d;  // NaN sticks
  }
  return err;
}

// Checks one launch against cuBLAS (C preset to NaN), then times it if it passed.
template <class Launch>
static void run_kernel(Bench& b, const char* name, const void* fn, int threads, int smem, Launch&& launch) {
  if (smem > 48 * 1024 && cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess) {
    printf("%-46s cannot get %d bytes of shared memory: skipped\n", name, smem);
    cudaGetLastError();
    return;
  }
  CK(cudaMemset(b.C, 0xFF, size_t(b.N) * b.N * 4));  // NaN
  launch();
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    printf("%-46s FAIL: %s (%s)\n", name, cudaGetErrorName(e), cudaGetErrorString(e));
    if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
      printf("the CUDA context is lost: stopping\n");
      exit(1);
    }
    return;
  }
  cudaFuncAttributes at;
  CK(cudaFuncGetAttributes(&at, fn));
  int occ = 0;  // (-1: not known, as for a kernel launched in clusters)
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, fn, threads, smem) != cudaSuccess) occ = -1, cudaGetLastError();
  const double err = max_rel_err(b);
  if (!(err <= 1e-3)) {
    printf("%-46s FAIL: max rel err %.3e vs cuBLAS (not timed)  regs %d smem %zu\n", name, err, at.numRegs,
           at.sharedSizeBytes + size_t(smem));
    return;
  }
  const float ms = time_median(b, launch);
  printf("%-46s %8.3f ms %7.1f TFLOP/s %6.1f%% of cuBLAS  err %.1e  regs %3d  smem %6zu  blocks/SM %d\n", name, ms,
         tflops(b.N, ms), 100.0 * b.cublas_ms / ms, err, at.numRegs, at.sharedSizeBytes + size_t(smem), occ);
}

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int MINB>
static void run_mma(Bench& b, const char* name) {
  constexpr int THREADS = 32 * WARPS_M * WARPS_N, SMEM = hv::mma_smem_bytes<BM, BN, BK, STAGES>();
  const int N = b.N;
  if (N % BM || N % BN || N % BK) {
    printf("%-46s skipped: N=%d is not a multiple of the %dx%dx%d tile\n", name, N, BM, BN, BK);
    return;
  }
  auto k = hv::mma_sync_gemm<BM, BN, BK, WARPS_M, WARPS_N, STAGES, MINB>;
  const int blocks = (N / BM) * (N / BN);
  run_kernel(b, name, reinterpret_cast<const void*>(k), THREADS, SMEM,
             [&] { k<<<blocks, THREADS, SMEM>>>(b.A, b.B, b.C, N); });
}

// A 2-D tensor map over a rows×cols (cols contiguous) half matrix, boxes of 64 columns (128
// bytes, the 128B swizzle span) × box_rows rows, 128-byte swizzle.
static bool make_map(CUtensorMap* m, const half* p, int rows, int cols, int box_rows,
                     CUtensorMapL2promotion promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B) {
  cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  cuuint64_t strides[1] = {cuuint64_t(cols) * 2};
  cuuint32_t box[2] = {64u, cuuint32_t(box_rows)};
  cuuint32_t estr[2] = {1u, 1u};
  CUresult r = cuTensorMapEncodeTiled(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<half*>(p), dims, strides, box,
                                      estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                      promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorString(r, &s);
    printf("cuTensorMapEncodeTiled failed: %d %s\n", int(r), s ? s : "");
    return false;
  }
  return true;
}

template <int BN, int STAGES>
static void run_wgmma(Bench& b, const char* name) {
  using Cfg = hv::WgCfg<BN, STAGES>;
  const int N = b.N;
  if (N % Cfg::BM || N % BN || N % Cfg::BK) {
    printf("%-46s skipped: N=%d is not a multiple of the %dx%dx%d tile\n", name, N, Cfg::BM, BN, Cfg::BK);
    return;
  }
  CUtensorMap ma, mb;
  if (!make_map(&ma, b.A, N, N, Cfg::BM) || !make_map(&mb, b.B, N, N, BN)) {
    printf("%-46s skipped: no tensor map\n", name);
    return;
  }
  auto k = hv::wgmma_gemm<BN, STAGES>;
  const int blocks = (N / Cfg::BM) * (N / BN);
  run_kernel(b, name, reinterpret_cast<const void*>(k), Cfg::THREADS, Cfg::SMEM,
             [&] { k<<<blocks, Cfg::THREADS, Cfg::SMEM>>>(ma, mb, b.C, N); });
}

// The 2×1-cluster kernel: B's map moves boxes of BN/2 rows (each CTA asks for half).
template <int BN, int STAGES, int GROUP_M>
static void run_wgmma_mc(Bench& b, const char* name) {
  using Cfg = hv::WgCfg<BN, STAGES>;
  const int N = b.N;
  if (N % (2 * Cfg::BM) || N % BN || N % Cfg::BK) {
    printf("%-46s skipped: N=%d is not a multiple of the 256x%dx64 cluster tile\n", name, N, BN);
    return;
  }
  CUtensorMap ma, mb;
  if (!make_map(&ma, b.A, N, N, Cfg::BM) || !make_map(&mb, b.B, N, N, BN / 2)) {
    printf("%-46s skipped: no tensor map\n", name);
    return;
  }
  auto k = hv::wgmma_gemm_mc<BN, STAGES, GROUP_M>;
  const int blocks = (N / Cfg::BM) * (N / BN);
  static bool told = false;  // how many 2-CTA clusters of this block fit on the GPU at once
  if (!told) {
    told = true;
    CK(cudaFuncSetAttribute(reinterpret_cast<const void*>(k), cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM));
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(Cfg::THREADS);
    cfg.dynamicSmemBytes = Cfg::SMEM;
    int clusters = 0;
    const cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, reinterpret_cast<const void*>(k), &cfg);
    printf("   (2x1 clusters resident at once: %d, %s)\n", clusters, cudaGetErrorString(e));
    cudaGetLastError();
  }
  run_kernel(b, name, reinterpret_cast<const void*>(k), Cfg::THREADS, Cfg::SMEM,
             [&] { k<<<blocks, Cfg::THREADS, Cfg::SMEM>>>(ma, mb, b.C, N); });
}

// The persistent kernel on one block an SM (or `ctas` blocks).
template <int BN, int STAGES, int GROUP_M>
static void run_wgmma_persistent(Bench& b, const char* name, int ctas = 0) {
  using Cfg = hv::WgCfg<BN, STAGES>;
  const int N = b.N;
  if (N % Cfg::BM || N % BN || N % Cfg::BK) return;
  CUtensorMap ma, mb;
  if (!make_map(&ma, b.A, N, N, Cfg::BM) || !make_map(&mb, b.B, N, N, BN)) return;
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const int blocks = std::min(ctas ? ctas : p.multiProcessorCount, (N / Cfg::BM) * (N / BN));
  auto k = hv::wgmma_gemm_persistent<BN, STAGES, GROUP_M>;
  run_kernel(b, name, reinterpret_cast<const void*>(k), Cfg::THREADS, Cfg::SMEM,
             [&] { k<<<blocks, Cfg::THREADS, Cfg::SMEM>>>(ma, mb, b.C, N); });
}

#if defined(WS_CATALOG)
// A catalog rung K: the kernel warpscope's plain launch makes of it, on a grid of
// ceil(N / BN) × ceil(N / BM) blocks (any N a multiple of 8).
template <class K>
static void run_catalog(Bench& b, const char* name, int group) {
  auto k = &ws::gpu::device_kernel_plain<K, ws::kernels::TensorArgs, const half*, const half*, float*, int, int>;
  const dim3 grid(unsigned((b.N + K::BN - 1) / K::BN), unsigned((b.N + K::BM - 1) / K::BM));
  run_kernel(b, name, reinterpret_cast<const void*>(k), K::THREADS, K::SHARED_BYTES, [&] {
    k<<<grid, K::THREADS, K::SHARED_BYTES>>>(b.A, b.B, b.C, b.N, group);
  });
}
// The plain entry warpscope gives a kernel that names its block (src/gpu/launch.cuh): the
// body in the plain context, the fields as separate parameters, the functor's bound.
template <class K>
__global__ void __launch_bounds__(K::kThreadsBound, 1)
    catalog_wgmma_entry(ws::Tma2D<const half> A, ws::Tma2D<const half> B, float* C, int N, int group) {
  const ws::kernels::WgmmaArgs args{A, B, {C, 0}, N, group};
  ws::gpu::kernel_body<K, ws::gpu::PlainCtx>(args);
}

// The catalog's wgmma rungs (kernels/wgmma.h) as warpscope's plain launch makes them: the
// maps in global memory, with the L2 promotion given (the catalog's runtime asks for 256
// bytes). persistent: a row of at most 132 blocks (one an SM of an H200, as the entries
// launch it), else one block a tile. CLUSTER 2: tc_wgmma_cluster, launched in clusters of 2
// (cudaLaunchKernelEx), its grid a row in both cases.
template <int BN, int STAGES, int CLUSTER = 1>
static void run_catalog_wgmma(Bench& b, const char* name, int group, CUtensorMapL2promotion promotion,
                              bool persistent = true) {
  using K = ws::kernels::TcWgmma<BN, STAGES, CLUSTER>;
  using T = ws::Tma2D<const half>;
  if (b.N % BN || b.N % (CLUSTER * K::BM)) {
    printf("%-46s skipped: N=%d is not a multiple of the tile\n", name, b.N);
    return;
  }
  CUtensorMap host[2];
  if (!make_map(&host[0], b.A, b.N, b.N, K::BM, promotion) || !make_map(&host[1], b.B, b.N, b.N, BN, promotion)) return;
  CUtensorMap* dev = nullptr;
  CK(cudaMalloc(&dev, sizeof host));
  CK(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice));
  const T ma{&dev[0], {b.A, 0}, b.N, b.N, K::BM, 64, 128}, mb{&dev[1], {b.B, 0}, b.N, b.N, BN, 64, 128};
  auto k = &catalog_wgmma_entry<K>;
  const int tiles = (b.N / BN) * (b.N / K::BM);
  cudaLaunchAttribute cluster[1];
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = CLUSTER;
  cluster[0].val.clusterDim.y = 1;
  cluster[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = persistent ? dim3(unsigned(std::min(132, tiles)))
                : CLUSTER > 1 ? dim3(unsigned(tiles))
                              : dim3(unsigned(b.N / BN), unsigned(b.N / K::BM));
  cfg.blockDim = dim3(K::THREADS);
  cfg.dynamicSmemBytes = K::SHARED_BYTES;
  cfg.attrs = cluster;
  cfg.numAttrs = CLUSTER > 1 ? 1 : 0;
  run_kernel(b, name, reinterpret_cast<const void*>(k), K::THREADS, K::SHARED_BYTES,
             [&] { CK(cudaLaunchKernelEx(&cfg, k, ma, mb, b.C, b.N, group)); });
  cudaFree(dev);
}
static void run_catalog_rungs(Bench& b) {
  using namespace ws::kernels;
  run_catalog<TcMmaPipelined<3>>(b, "c1 catalog tc_mma_pipelined stages=3", 1);
  run_catalog<TcMmaTuned<3, 2, 2>>(b, "c2 catalog tc_mma_tuned (4w 3st g8)", 8);
  run_catalog<TcMmaTuned<3, 2, 2>>(b, "c3 catalog tc_mma_tuned group=1", 1);
  run_catalog<TcMmaTuned<4, 2, 2>>(b, "c4 catalog tc_mma_tuned stages=4", 8);
  run_catalog<TcMmaTuned<3, 2, 4>>(b, "c5 catalog tc_mma_tuned warps=8", 8);
  run_catalog<TcMmaTuned<4, 2, 4>>(b, "c6 catalog tc_mma_tuned warps=8 stages=4", 8);
}
#endif

static void bench(int N) {
  if (N <= 0 || N % 8) {  // the standalone kernels skip sizes their tiles do not divide
    printf("N=%d: the kernels need N a multiple of 8\n", N);
    return;
  }
  Bench b;
  b.N = N;
  const size_t n = size_t(N) * N;
  std::vector<float> ha(n), hb(n);
  std::vector<half> h16(n);
  uint64_t st = 0x9E3779B97F4A7C15ull;
  // HV_DATA=rand: halves with every mantissa bit in use (uniform in [-1, 1)), as warpscope's
  // arrays are, instead of k/8 (tensor-core throughput can depend on the data); the sums are
  // then rounded differently in every order, so the check is against |want| + 1.
  const bool random_data = std::getenv("HV_DATA") && !std::strcmp(std::getenv("HV_DATA"), "rand");
  b.err_floor = random_data ? 1.0 : 1e-3;
  auto next = [&] {  // k/8, k uniform in [-8, 8]
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    if (random_data) return float(double(st >> 11) / double(1ull << 53) * 2.0 - 1.0);
    return float(int((st >> 33) % 17) - 8) / 8.0f;
  };
  if (random_data) printf("inputs uniform in [-1, 1) (HV_DATA=rand); errors relative to |cuBLAS| + 1\n");
  for (auto& v : ha) v = __half2float(__float2half(next()));  // the values the GPU reads
  for (auto& v : hb) v = __half2float(__float2half(next()));
  CK(cudaMalloc(&b.A, n * 2));
  CK(cudaMalloc(&b.B, n * 2));
  CK(cudaMalloc(&b.C, n * 4));
  for (size_t i = 0; i < n; ++i) h16[i] = __float2half(ha[i]);
  CK(cudaMemcpy(b.A, h16.data(), n * 2, cudaMemcpyHostToDevice));
  for (size_t i = 0; i < n; ++i) h16[i] = __float2half(hb[i]);  // hb[n * N + k] = (k, n)
  CK(cudaMemcpy(b.B, h16.data(), n * 2, cudaMemcpyHostToDevice));
  b.want.resize(n);
  b.got.resize(n);
  CK(cudaEventCreate(&b.e0));
  CK(cudaEventCreate(&b.e1));

  // cuBLAS HGEMM, as src/gpu/cublas.cpp issues it for A row-major, B column-major, C row-major.
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    printf("cublasCreate failed\n");
    exit(1);
  }
  cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t cs = CUBLAS_STATUS_SUCCESS;
  auto cublas = [&] {
    cs = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, N, N, &one, b.B, CUDA_R_16F, N, b.A, CUDA_R_16F, N, &zero, b.C,
                      CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  CK(cudaMemset(b.C, 0xFF, n * 4));
  cublas();
  CK(cudaDeviceSynchronize());
  if (cs != CUBLAS_STATUS_SUCCESS) {
    printf("cublasGemmEx failed: %d\n", int(cs));
    exit(1);
  }
  CK(cudaMemcpy(b.want.data(), b.C, n * 4, cudaMemcpyDeviceToHost));
  // spot check of cuBLAS against a double sum on the CPU (C[i][j] = sum_k A[i][k] B[j][k])
  double cerr = 0;
  for (int s = 0; s < 256; ++s) {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    const int i = int((st >> 20) % uint64_t(N)), j = int((st >> 42) % uint64_t(N));
    double sum = 0;
    for (int k = 0; k < N; ++k) sum += double(ha[size_t(i) * N + k]) * hb[size_t(j) * N + k];
    const double d = std::fabs(sum - b.want[size_t(i) * N + j]) / (std::fabs(sum) + b.err_floor);
    if (!(d <= cerr)) cerr = d;
  }
  b.cublas_ms = time_median(b, cublas);
  printf("\nN=%d  cuBLAS HGEMM (cublasGemmEx f16 in, f32 out, COMPUTE_32F): %.3f ms, %.1f TFLOP/s; "
         "vs CPU on 256 entries: max rel err %.1e%s\n",
         N, b.cublas_ms, tflops(N, b.cublas_ms), cerr,
         cerr <= (random_data ? 1e-4 : 1e-6) ? "" : "  <-- cuBLAS result does not match the CPU!");
  cublasDestroy(h);

#if defined(WS_CATALOG)
  run_catalog_rungs(b);
#endif
  //       BM   BN  BK  WARPS_M WARPS_N STAGES MINB
  run_mma<128, 256, 32, 2, 4, 4, 1>(b, "1  mma.sync 128x256x32 8w(64x64) 4st");
  run_mma<256, 128, 32, 4, 2, 4, 1>(b, "1b mma.sync 256x128x32 8w(64x64) 4st");
  run_mma<128, 256, 64, 2, 4, 3, 1>(b, "1c mma.sync 128x256x64 8w(64x64) 3st");
  run_mma<128, 128, 32, 2, 2, 4, 2>(b, "2  mma.sync 128x128x32 4w(64x64) 4st");
  run_mma<128, 128, 64, 2, 2, 3, 2>(b, "2b mma.sync 128x128x64 4w(64x64) 3st");
  // wgmma last: a pipeline bug traps, and a trapped context ends the run
  run_wgmma<256, 4>(b, "3  wgmma 128x256x64 TMA 1p+2c WG m64n256 4st");
  run_wgmma<128, 6>(b, "3b wgmma 128x128x64 TMA 1p+2c WG m64n128 6st");
  run_wgmma_mc<256, 4, 8>(b, "4  wgmma 2x1 cluster, B multicast, 4st g8");
  run_wgmma_mc<256, 4, 4>(b, "4b wgmma 2x1 cluster, B multicast, 4st g4");
  run_wgmma_mc<256, 4, 16>(b, "4c wgmma 2x1 cluster, B multicast, 4st g16");
  run_wgmma_persistent<256, 4, 8>(b, "5  wgmma persistent (1 block an SM) 4st g8");
  run_wgmma_persistent<256, 4, 16>(b, "5b wgmma persistent 4st g16");
#if defined(WS_CATALOG)
  constexpr auto L2_256 = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;  // what warpscope's maps ask for
  run_catalog_wgmma<256, 4>(b, "c7 catalog tc_wgmma (bn 256, 4st, g8, pers.)", 8, L2_256);
  run_catalog_wgmma<256, 4>(b, "c8 catalog tc_wgmma persistent=0", 8, L2_256, false);
  run_catalog_wgmma<256, 4>(b, "c9 catalog tc_wgmma L2 promotion 128B", 8, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  run_catalog_wgmma<256, 4>(b, "c10 catalog tc_wgmma group=16", 16, L2_256);
  run_catalog_wgmma<256, 4>(b, "c11 catalog tc_wgmma group=1", 1, L2_256);
  run_catalog_wgmma<256, 3>(b, "c12 catalog tc_wgmma stages=3", 8, L2_256);
  run_catalog_wgmma<128, 4>(b, "c13 catalog tc_wgmma bn=128", 8, L2_256);
  run_catalog_wgmma<256, 4, 2>(b, "c14 catalog tc_wgmma_cluster (2x1, B mc)", 8, L2_256);
  run_catalog_wgmma<256, 4, 2>(b, "c15 catalog tc_wgmma_cluster grid=0", 8, L2_256, false);
  run_catalog_wgmma<256, 4, 2>(b, "c16 catalog tc_wgmma_cluster group=16", 16, L2_256);
#endif

  cudaEventDestroy(b.e0);
  cudaEventDestroy(b.e1);
  cudaFree(b.A);
  cudaFree(b.B);
  cudaFree(b.C);
}

int main(int argc, char** argv) {
  std::vector<int> sizes;
  bool big = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "big"))
      big = true;
    else
      sizes.push_back(atoi(argv[i]));
  }
  if (sizes.empty()) sizes.push_back(4096);
  if (big && std::find(sizes.begin(), sizes.end(), 8192) == sizes.end()) sizes.push_back(8192);
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("%s (sm_%d%d, %d SMs)\n", p.name, p.major, p.minor, p.multiProcessorCount);
  if (p.major != 9) {
    printf("needs an sm_90 GPU (H100/H200): wgmma and this build's sm_90a code\n");
    return 1;
  }
  for (int N : sizes) bench(N);
  return 0;
}
