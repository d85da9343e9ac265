// tests/programs/ldmatrix_swizzle.cu — a 64x64 half tile read with ldmatrix.x4 into
// mma.sync m16n8k16 fragments, twice: stored plainly (128 bytes a row, so the 8 row
// addresses of each 8x8 matrix fall in the same banks: 8 wavefronts a matrix, 32 an
// instruction) and XOR-swizzled (16-byte chunk c of row r stored at chunk c ^ (r & 7): the
// 8 rows in 8 different chunks, one wavefront a matrix, 4 an instruction). Same data, same
// instructions; C = A x B checked against the CPU, exactly (small integers over 4).
#include <cstdio>
#include <cstdint>
#include <cuda_fp16.h>

constexpr int T = 64;  // the tile: T x T halves, 8 chunks of 16 bytes a row

// Where 16-byte chunk c of row r lies in the shared tile.
__device__ int chunk_at(int r, int c, bool swizzle) { return swizzle ? (c ^ (r & 7)) : c; }

__device__ void ldmatrix_x4(uint32_t (&d)[4], const half* p) {
  const uint32_t a = uint32_t(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(a));
}

__device__ void mma_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// C (T x T) = A (T x T, row-major) x B, B given transposed (Bt[n][k]) as mma's .col wants it.
// Four warps, each 16 rows of C.
template <bool kSwizzle>
__global__ void tileProduct(const half* A, const half* Bt, float* C) {
  __shared__ __align__(128) half sA[T * T];
  __shared__ __align__(128) half sB[T * T];
  for (int i = threadIdx.x; i < T * T / 8; i += blockDim.x) {
    const int r = i / 8, c = i % 8;
    const int at = r * T + chunk_at(r, c, kSwizzle) * 8;
    *reinterpret_cast<uint4*>(&sA[at]) = *reinterpret_cast<const uint4*>(&A[r * T + c * 8]);
    *reinterpret_cast<uint4*>(&sB[at]) = *reinterpret_cast<const uint4*>(&Bt[r * T + c * 8]);
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float acc[T / 8][4] = {};
  for (int k0 = 0; k0 < T; k0 += 16) {
    // A's 16x16 block: lanes 0-15 give rows 0-15 of its left half, 16-31 of its right.
    uint32_t a[4];
    const int ra = 16 * warp + lane % 16, ca = k0 / 8 + lane / 16;
    ldmatrix_x4(a, &sA[ra * T + chunk_at(ra, ca, kSwizzle) * 8]);
    for (int n0 = 0; n0 < T; n0 += 16) {
      // Two 8-column blocks of B at once: lanes 0-15 the first, 16-31 the second.
      uint32_t b[4];
      const int rb = n0 + lane % 8 + 8 * (lane / 16), cb = k0 / 8 + (lane / 8) % 2;
      ldmatrix_x4(b, &sB[rb * T + chunk_at(rb, cb, kSwizzle) * 8]);
      mma_16816(acc[n0 / 8], a, b[0], b[1]);
      mma_16816(acc[n0 / 8 + 1], a, b[2], b[3]);
    }
  }
  const int g = lane / 4, t = lane % 4;
  for (int j = 0; j < T / 8; ++j)
    for (int i = 0; i < 4; ++i) C[(16 * warp + g + 8 * (i / 2)) * T + 8 * j + 2 * t + i % 2] = acc[j][i];
}

int main() {
  static half hA[T * T], hBt[T * T];
  static float ref[T * T], out[T * T];
  for (int r = 0; r < T; ++r)
    for (int c = 0; c < T; ++c) {
      hA[r * T + c] = __float2half(float((r * 3 + c * 5) % 17 - 8) / 4);
      hBt[r * T + c] = __float2half(float((r * 7 + c * 2) % 13 - 6) / 4);
    }
  for (int r = 0; r < T; ++r)
    for (int n = 0; n < T; ++n) {
      float s = 0;
      for (int k = 0; k < T; ++k) s += __half2float(hA[r * T + k]) * __half2float(hBt[n * T + k]);
      ref[r * T + n] = s;
    }
  half *A, *Bt;
  float* C;
  cudaMalloc(&A, sizeof hA);
  cudaMalloc(&Bt, sizeof hBt);
  cudaMalloc(&C, sizeof out);
  cudaMemcpy(A, hA, sizeof hA, cudaMemcpyHostToDevice);
  cudaMemcpy(Bt, hBt, sizeof hBt, cudaMemcpyHostToDevice);
  bool ok = true;
  for (int swizzle = 0; swizzle < 2; ++swizzle) {
    cudaMemset(C, 0, sizeof out);
    if (swizzle) tileProduct<true><<<1, 128>>>(A, Bt, C);
    else tileProduct<false><<<1, 128>>>(A, Bt, C);
    cudaMemcpy(out, C, sizeof out, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < T * T; ++i) bad += out[i] != ref[i];
    std::printf("%s tile: %s (%d of %d wrong)\n", swizzle ? "swizzled" : "plain", bad ? "WRONG" : "correct", bad, T * T);
    ok = ok && bad == 0;
  }
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
