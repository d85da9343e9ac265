// tests/programs/tc_twin.cu — an HGEMM on the tensor cores as a user writes it, with inline
// ldmatrix and mma.sync: the catalog's tc_mma_plain and tc_mma_swizzled, request for
// request. 128 threads a 64x64 tile of C (four warps of 32x32, each 2x4 m16n8k16 mmas), k 64
// at a time; A row-major, B column-major (element (k, n) at B[n * N + k]) so that both shared
// tiles hold k along their rows; chunk c of tile row r stored at c (plain: the 8 rows of an
// 8x8 matrix share their banks) or at c ^ (r & 7) (swizzled: 8 different bank groups).
// C = A x B checked against the CPU, exactly (small integers).
#include <cstdint>
#include <cstdio>
#include <cuda_fp16.h>

constexpr int BM = 64, BN = 64, BK = 64, CHUNKS = BK / 8, THREADS = 128;

template <bool kSwizzle>
__device__ int chunk_at(int r, int c) { return kSwizzle ? c ^ (r & 7) : c; }

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

template <bool kSwizzle>
__global__ void hgemm(const half* A, const half* B, float* C, int N) {
  __shared__ __align__(128) half As[BM][BK];
  __shared__ __align__(128) half Bs[BN][BK];
  const float4* A4 = reinterpret_cast<const float4*>(A);
  const float4* B4 = reinterpret_cast<const float4*>(B);
  float2* C2 = reinterpret_cast<float2*>(C);
  const int N8 = N / 8;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float acc[2][4][4] = {};
  uint32_t a[2][4], b[2][4];
  for (int k0 = 0; k0 < N; k0 += BK) {
    for (int i = tid; i < BM * CHUNKS; i += THREADS) {
      const int r = i / CHUNKS, c = i % CHUNKS, gk8 = k0 / 8 + c;
      const int gm = rowBase + r, gn = colBase + r;
      *reinterpret_cast<float4*>(&As[r][chunk_at<kSwizzle>(r, c) * 8]) = (gm < N && gk8 < N8) ? A4[gm * N8 + gk8] : zero;
      *reinterpret_cast<float4*>(&Bs[r][chunk_at<kSwizzle>(r, c) * 8]) = (gn < N && gk8 < N8) ? B4[gn * N8 + gk8] : zero;
    }
    __syncthreads();
    for (int kk = 0; kk < BK / 16; ++kk) {
      // A: lanes 0-15 name rows 0-15 of the left 8 k, lanes 16-31 of the right 8.
      for (int mt = 0; mt < 2; ++mt) {
        const int r = wm + mt * 16 + (lane & 15), c = kk * 2 + (lane >> 4);
        ldmatrix_x4(a[mt], &As[r][chunk_at<kSwizzle>(r, c) * 8]);
      }
      // B: two n8 tiles at once, (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15).
      for (int np = 0; np < 2; ++np) {
        const int r = wn + np * 16 + ((lane & 7) | ((lane >> 4) << 3)), c = kk * 2 + ((lane >> 3) & 1);
        ldmatrix_x4(b[np], &Bs[r][chunk_at<kSwizzle>(r, c) * 8]);
      }
      for (int mt = 0; mt < 2; ++mt)
        for (int nt = 0; nt < 4; ++nt) mma_16816(acc[mt][nt], a[mt], b[nt / 2][(nt % 2) * 2], b[nt / 2][(nt % 2) * 2 + 1]);
    }
    __syncthreads();
  }
  const int g = lane / 4, t = lane % 4;
  for (int mt = 0; mt < 2; ++mt)
    for (int nt = 0; nt < 4; ++nt)
      for (int h = 0; h < 2; ++h) {
        const int r = rowBase + wm + mt * 16 + g + 8 * h, c = colBase + wn + nt * 8 + 2 * t;
        if (r < N && c < N) C2[(r * N + c) / 2] = make_float2(acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1]);
      }
}

int main() {
  const int N = 128;
  static half hA[N * N], hB[N * N];
  static float want[N * N], got[N * N];
  static float fA[N * N], fB[N * N];
  for (int i = 0; i < N * N; ++i) {
    fA[i] = float((i * 7) % 5 - 2), fB[i] = float((i * 3) % 7 - 3);
    hA[i] = __float2half(fA[i]), hB[i] = __float2half(fB[i]);
  }
  for (int m = 0; m < N; ++m)
    for (int n = 0; n < N; ++n) {
      float s = 0;
      for (int k = 0; k < N; ++k) s += fA[m * N + k] * fB[n * N + k];
      want[m * N + n] = s;
    }
  half *A, *B;
  float* C;
  cudaMalloc(&A, sizeof hA), cudaMalloc(&B, sizeof hB), cudaMalloc(&C, sizeof got);
  cudaMemcpy(A, hA, sizeof hA, cudaMemcpyHostToDevice);
  cudaMemcpy(B, hB, sizeof hB, cudaMemcpyHostToDevice);
  const dim3 grid(N / BN, N / BM);
  bool ok = true;
  for (int swizzled = 0; swizzled < 2; ++swizzled) {
    cudaMemset(C, 0, sizeof got);
    if (swizzled) hgemm<true><<<grid, THREADS>>>(A, B, C, N);
    else hgemm<false><<<grid, THREADS>>>(A, B, C, N);
    cudaMemcpy(got, C, sizeof got, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < N * N; ++i) bad += got[i] != want[i];
    std::printf("%s tiles: %s\n", swizzled ? "swizzled" : "plain", bad ? "WRONG" : "correct");
    ok &= bad == 0;
  }
  cudaFree(A), cudaFree(B), cudaFree(C);
  return ok ? 0 : 1;
}
