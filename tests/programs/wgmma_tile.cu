// wgmma_tile.cu — Hopper's warpgroup product, one warpgroup, one tile: D (64 x N) = A (64 x K)
// x B (K x N), A and B laid out in shared memory by this program under each of the four
// layouts a wgmma descriptor names (no swizzle: 8 x 16-byte core matrices; the 32-, 64- and
// 128-byte swizzles: rows of that width whose 16-byte chunks are XORed with the row's index),
// A also from registers, bf16 inputs, f16 accumulators, a negated A (imm-scale-a -1), and
// with the 128-byte swizzle a K of 32 as two wgmmas, the second starting 32 bytes into each
// row; and operands copied by cp.async with each thread waiting only for its own copies (the
// warpgroup's wgmma is what orders the four warps' copies before it). The inputs are small
// integers, so every sum is exact and the GPU's result is known bit for bit. Prints a line
// per case and exits 1 when one differs. Build for sm_90a.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <vector>

constexpr int kMaxN = 64, kMaxK = 32;

// Byte offset in the tile of byte `b` along K of row `r`, for a descriptor's layout `mode`
// (0 none, 1 128B, 2 64B, 3 32B): the PTX ISA's canonical K-major layouts.
__device__ uint32_t tile_byte(int mode, uint32_t r, uint32_t b) {
  if (mode == 0) return (r / 8) * 256 + (b / 16) * 128 + (r % 8) * 16 + b % 16;  // LBO 128, SBO 256
  const uint32_t s = mode == 1 ? 3 : mode == 2 ? 2 : 1, width = 16u << s;
  const uint32_t a = (r / 8) * 8 * width + (r % 8) * width + b;  // SBO: 8 rows of `width`
  return a ^ (((a >> 7) & ((1u << s) - 1)) << 4);
}

__device__ uint64_t descriptor(uint32_t addr, int mode) {
  const uint32_t lbo = mode == 0 ? 128 : 16, sbo = mode == 0 ? 256 : 8u * (16u << (mode == 1 ? 3 : mode == 2 ? 2 : 1));
  return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t(lbo >> 4) << 16) | (uint64_t(sbo >> 4) << 32) | (uint64_t(mode) << 62);
}

#define R8() "%0, %1, %2, %3, %4, %5, %6, %7"

enum Variant { kDesc16, kDesc64, kRegs16, kBf16, kF16Acc, kNegA, kCopies };

// One tile: mode, variant, N, K (16, or 32 as two wgmmas). d: 64 x N floats, row-major.
__global__ void tile(int mode, int variant, int n, int k, const uint16_t* a, const uint16_t* b, float* d) {
  __shared__ alignas(1024) uint8_t smem[2 * 64 * 128];
  uint8_t* sa = smem;
  uint8_t* sb = smem + 64 * 128;
  const int tid = threadIdx.x;
  if (variant == kCopies) {
    // Each thread copies pairs of elements with cp.async and waits for its own copies alone:
    // no barrier, as CuTe's Hopper tutorial does; the wgmma starts once its warpgroup's four
    // warps reach it, which is what orders their copies before it.
    for (int i = tid; i < 64 * k / 2; i += 128)
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(static_cast<uint32_t>(__cvta_generic_to_shared(
                       sa + tile_byte(mode, 2 * i / k, 2 * (2 * i % k))))), "l"(a + 2 * i) : "memory");
    for (int i = tid; i < n * k / 2; i += 128)
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(static_cast<uint32_t>(__cvta_generic_to_shared(
                       sb + tile_byte(mode, 2 * i / k, 2 * (2 * i % k))))), "l"(b + 2 * i) : "memory");
    asm volatile("cp.async.wait_all;\n" ::: "memory");
  } else {
    for (int i = tid; i < 64 * k; i += 128) *reinterpret_cast<uint16_t*>(sa + tile_byte(mode, i / k, 2 * (i % k))) = a[i];
    for (int i = tid; i < n * k; i += 128) *reinterpret_cast<uint16_t*>(sb + tile_byte(mode, i / k, 2 * (i % k))) = b[i];
    __syncthreads();
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  const uint32_t a_at = static_cast<uint32_t>(__cvta_generic_to_shared(sa));
  const uint32_t b_at = static_cast<uint32_t>(__cvta_generic_to_shared(sb));
  const int w = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  float acc[32];
  for (int i = 0; i < 32; ++i) acc[i] = 0.0f;
  uint32_t h[4] = {0, 0, 0, 0};  // f16 accumulators, two a register
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  for (int s = 0; s < k / 16; ++s) {
    const uint64_t da = descriptor(a_at, mode) + 2 * s, db = descriptor(b_at, mode) + 2 * s;
    const int keep = s > 0;
    if (variant == kDesc16 || variant == kCopies) {
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                   "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {" R8() "}, %8, %9, p, 1, 1, 0, 0;\n}\n"
                   : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]), "+f"(acc[6]), "+f"(acc[7])
                   : "l"(da), "l"(db), "r"(keep));
    } else if (variant == kNegA) {
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                   "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {" R8() "}, %8, %9, p, -1, 1, 0, 0;\n}\n"
                   : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]), "+f"(acc[6]), "+f"(acc[7])
                   : "l"(da), "l"(db), "r"(keep));
    } else if (variant == kBf16) {
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                   "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {" R8() "}, %8, %9, p, 1, 1, 0, 0;\n}\n"
                   : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]), "+f"(acc[6]), "+f"(acc[7])
                   : "l"(da), "l"(db), "r"(keep));
    } else if (variant == kF16Acc) {
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
                   "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
                   : "+r"(h[0]), "+r"(h[1]), "+r"(h[2]), "+r"(h[3])
                   : "l"(da), "l"(db), "r"(keep));
    } else if (variant == kRegs16) {
      // A from registers, as mma.sync's m16n8k16 A fragment of the warp's 16 rows.
      uint32_t ar[4];
      for (int j = 0; j < 4; ++j) {
        const int row = 16 * w + g + 8 * (j & 1), col = 16 * s + 2 * t + 8 * (j >> 1);
        ar[j] = uint32_t(a[row * k + col]) | (uint32_t(a[row * k + col + 1]) << 16);
      }
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
                   "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {" R8() "}, {%8, %9, %10, %11}, %12, p, 1, 1, 0;\n}\n"
                   : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]), "+f"(acc[6]), "+f"(acc[7])
                   : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(keep));
    } else {  // kDesc64
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                   "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "
                   "%14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
                   : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]), "+f"(acc[6]), "+f"(acc[7]),
                     "+f"(acc[8]), "+f"(acc[9]), "+f"(acc[10]), "+f"(acc[11]), "+f"(acc[12]), "+f"(acc[13]), "+f"(acc[14]), "+f"(acc[15]),
                     "+f"(acc[16]), "+f"(acc[17]), "+f"(acc[18]), "+f"(acc[19]), "+f"(acc[20]), "+f"(acc[21]), "+f"(acc[22]), "+f"(acc[23]),
                     "+f"(acc[24]), "+f"(acc[25]), "+f"(acc[26]), "+f"(acc[27]), "+f"(acc[28]), "+f"(acc[29]), "+f"(acc[30]), "+f"(acc[31])
                   : "l"(da), "l"(db), "r"(keep));
    }
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#endif
  // Accumulator e of the lane: n8 block e / 4, row g (+8 from e % 4 = 2), column 2t + e % 2.
  for (int e = 0; e < n / 2; ++e) {
    const int row = 16 * w + g + 8 * ((e % 4) / 2), col = 8 * (e / 4) + 2 * t + e % 2;
    float v = acc[e];
    if (variant == kF16Acc) v = __half2float(__ushort_as_half(uint16_t(h[e / 2] >> (16 * (e % 2)))));
    d[row * n + col] = v;
  }
}

int main(int argc, char** argv) {
  // `dump FILE`: random inputs with full mantissas instead (sums no longer exact), every
  // case's D written to FILE as raw floats, for a comparison of two runs bit for bit.
  // `dumpwide FILE`: the same with exponents from 2^-8 to 2^7, so that the products' low bits
  // fall below what the tensor core keeps of them.
  const bool wide = argc == 3 && std::strcmp(argv[1], "dumpwide") == 0;
  const bool dump = wide || (argc == 3 && std::strcmp(argv[1], "dump") == 0);
  FILE* out_file = dump ? std::fopen(argv[2], "wb") : nullptr;
  uint32_t seed = 12345;
  auto rnd = [&] {
    seed = seed * 1664525u + 1013904223u;
    if (wide) return float((seed >> 31) ? -1 : 1) * (1.0f + float((seed >> 8) % 1024) / 1024.0f) * std::ldexp(1.0f, int((seed >> 18) % 16) - 8);
    return float(int(seed >> 8) % 2048 - 1024) / 1024.0f * float(1 + (seed >> 3) % 4);
  };
  struct Case {
    const char* name;
    int mode, variant, n, k;
  };
  const Case cases[] = {
      {"no swizzle, A and B from descriptors, m64n16k16", 0, kDesc16, 16, 16},
      {"32-byte swizzle", 3, kDesc16, 16, 16},
      {"64-byte swizzle", 2, kDesc16, 16, 16},
      {"128-byte swizzle", 1, kDesc16, 16, 16},
      {"128-byte swizzle, K 32: the second wgmma 32 bytes into each row", 1, kDesc16, 16, 32},
      {"128-byte swizzle, m64n64k16", 1, kDesc64, 64, 16},
      {"no swizzle, m64n64k16", 0, kDesc64, 64, 16},
      {"A from registers, 128-byte swizzled B, K 32", 1, kRegs16, 16, 32},
      {"bf16 inputs, 64-byte swizzle", 2, kBf16, 16, 16},
      {"f16 accumulators, 128-byte swizzle", 1, kF16Acc, 16, 16},
      {"imm-scale-a -1, 32-byte swizzle", 3, kNegA, 16, 16},
      {"copied by cp.async, each thread waiting for its own copies, no barrier", 1, kCopies, 16, 16},
  };
  uint16_t *da, *db;
  float* dd;
  cudaMalloc(&da, 64 * kMaxK * 2);
  cudaMalloc(&db, kMaxN * kMaxK * 2);
  cudaMalloc(&dd, 64 * kMaxN * 4);
  int failures = 0;
  for (const Case& c : cases) {
    if (dump && c.variant == kCopies) continue;  // the dumps hold the cases the H200's were made with
    const bool bf = c.variant == kBf16;
    std::vector<float> fa(64 * c.k), fb(c.n * c.k);
    std::vector<uint16_t> ha(fa.size()), hb(fb.size());
    for (size_t i = 0; i < fa.size(); ++i) fa[i] = dump ? rnd() : float(int((i * 7 + c.mode) % 5) - 2);
    for (size_t i = 0; i < fb.size(); ++i) fb[i] = dump ? rnd() : float(int((i * 3 + c.variant) % 7) - 3);
    auto bits = [&](float f) {
      uint16_t u;
      if (bf) {
        const __nv_bfloat16 x = __float2bfloat16(f);
        std::memcpy(&u, &x, 2);
      } else {
        const __half x = __float2half(f);
        std::memcpy(&u, &x, 2);
      }
      return u;
    };
    for (size_t i = 0; i < fa.size(); ++i) ha[i] = bits(fa[i]);
    for (size_t i = 0; i < fb.size(); ++i) hb[i] = bits(fb[i]);
    cudaMemcpy(da, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice);
    cudaMemset(dd, 0xff, 64 * kMaxN * 4);
    tile<<<1, 128>>>(c.mode, c.variant, c.n, c.k, da, db, dd);
    const cudaError_t e = cudaDeviceSynchronize();
    std::vector<float> out(64 * c.n);
    cudaMemcpy(out.data(), dd, out.size() * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int m = 0; m < 64; ++m)
      for (int j = 0; j < c.n; ++j) {
        float want = 0;
        for (int q = 0; q < c.k; ++q) want += fa[m * c.k + q] * fb[j * c.k + q];
        if (c.variant == kNegA) want = -want;
        bad += out[m * c.n + j] != want;
      }
    if (e != cudaSuccess) bad = -1;
    if (dump) {
      std::fwrite(out.data(), 4, out.size(), out_file);
      continue;
    }
    std::printf("%s  %s%s\n", bad ? "FAIL" : "ok  ", c.name, e != cudaSuccess ? cudaGetErrorString(e) : "");
    failures += bad != 0;
  }
  if (dump) {
    std::fclose(out_file);
    std::printf("dumped\n");
    return 0;
  }
  std::printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
