// tests/programs/matrix/wmma.cu — nvcuda::wmma as programs use it: every shape and type the
// emulated device runs (f16 16x16x16, 32x8x16, 8x32x16 with f32 and f16 accumulators, bf16,
// tf32 16x16x8, s8 and u8, f64 8x8x4), A and B row- and column-major, C loaded and D stored
// row- and column-major, from global and from shared memory, and an elementwise step on the
// accumulator (acc.x[i] = 2 * acc.x[i] - c.x[i]). D = 2 (A x B + C) - C = 2 A x B + C,
// checked exactly against the CPU (small integers). One line per form.
#include <cstdio>
#include <mma.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

using namespace nvcuda;

template <class T> __host__ __device__ T from_int(int v);
template <> __host__ __device__ half from_int<half>(int v) { return __int2half_rn(v); }
template <> __host__ __device__ __nv_bfloat16 from_int<__nv_bfloat16>(int v) { return __int2bfloat16_rn(v); }
template <> __host__ __device__ float from_int<float>(int v) { return float(v); }
template <> __host__ __device__ double from_int<double>(int v) { return double(v); }
template <> __host__ __device__ signed char from_int<signed char>(int v) { return (signed char)v; }
template <> __host__ __device__ unsigned char from_int<unsigned char>(int v) { return (unsigned char)v; }
template <> __host__ __device__ int from_int<int>(int v) { return v; }

// tf32's fragments hold float; the element type names the precision.
template <class T> struct Store { using type = T; };
template <> struct Store<wmma::precision::tf32> { using type = float; };

template <int M, int N, int K, class TI, class TC, class LA, class LB, bool kColC, bool kShared>
__global__ void wmmaOne(const typename Store<TI>::type* A, const typename Store<TI>::type* B, const TC* C, TC* D) {
  using S = typename Store<TI>::type;
  __shared__ S sA[M * K], sB[K * N];
  __shared__ TC sC[M * N];
  const S* a = A;
  const S* b = B;
  const TC* c = C;
  if (kShared) {
    for (int i = threadIdx.x; i < M * K; i += 32) sA[i] = A[i];
    for (int i = threadIdx.x; i < K * N; i += 32) sB[i] = B[i];
    for (int i = threadIdx.x; i < M * N; i += 32) sC[i] = C[i];
    __syncwarp();
    a = sA, b = sB, c = sC;
  }
  constexpr bool a_row = std::is_same<LA, wmma::row_major>::value, b_row = std::is_same<LB, wmma::row_major>::value;
  wmma::fragment<wmma::matrix_a, M, N, K, TI, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, TI, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TC> fc, acc;
  wmma::load_matrix_sync(fa, a, a_row ? K : M);
  wmma::load_matrix_sync(fb, b, b_row ? N : K);
  wmma::load_matrix_sync(fc, c, kColC ? M : N, kColC ? wmma::mem_col_major : wmma::mem_row_major);
  wmma::mma_sync(acc, fa, fb, fc);
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = TC(2) * acc.x[i] - fc.x[i];
  wmma::store_matrix_sync(D, acc, kColC ? M : N, kColC ? wmma::mem_col_major : wmma::mem_row_major);
}

template <int M, int N, int K, class TI, class TC, class LA, class LB, bool kColC, bool kShared>
bool check(const char* name) {
  using S = typename Store<TI>::type;
  constexpr bool a_row = std::is_same<LA, wmma::row_major>::value, b_row = std::is_same<LB, wmma::row_major>::value;
  static S hA[M * K], hB[K * N];
  static TC hC[M * N], hD[M * N];
  static int iA[M * K], iB[K * N], iC[M * N];
  const bool unsigned_in = std::is_same<TI, unsigned char>::value;
  for (int r = 0; r < M; ++r)
    for (int k = 0; k < K; ++k) {
      iA[r * K + k] = unsigned_in ? (r * 5 + k * 3) % 13 : (r * 5 + k * 3) % 9 - 4;
      hA[a_row ? r * K + k : k * M + r] = from_int<S>(iA[r * K + k]);
    }
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) {
      iB[k * N + n] = unsigned_in ? (k * 7 + n) % 11 : (k * 7 + n) % 7 - 3;
      hB[b_row ? k * N + n : n * K + k] = from_int<S>(iB[k * N + n]);
    }
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n) {
      iC[r * N + n] = (r + 2 * n) % 5 - 2;
      hC[kColC ? n * M + r : r * N + n] = from_int<TC>(iC[r * N + n]);
    }
  S *A, *B;
  TC *C, *D;
  cudaMalloc(&A, sizeof hA);
  cudaMalloc(&B, sizeof hB);
  cudaMalloc(&C, sizeof hC);
  cudaMalloc(&D, sizeof hD);
  cudaMemcpy(A, hA, sizeof hA, cudaMemcpyHostToDevice);
  cudaMemcpy(B, hB, sizeof hB, cudaMemcpyHostToDevice);
  cudaMemcpy(C, hC, sizeof hC, cudaMemcpyHostToDevice);
  wmmaOne<M, N, K, TI, TC, LA, LB, kColC, kShared><<<1, 32>>>(A, B, C, D);
  cudaMemcpy(hD, D, sizeof hD, cudaMemcpyDeviceToHost);
  cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(D);
  int bad = 0;
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(iA[r * K + k]) * iB[k * N + n];
      const double want = 2 * s + iC[r * N + n];
      bad += double(hD[kColC ? n * M + r : r * N + n]) != want;
    }
  std::printf("wmma %s: %s\n", name, bad ? "WRONG" : "correct");
  return bad == 0;
}

using R = wmma::row_major;
using Cm = wmma::col_major;

int main() {
  bool ok = true;
  ok &= check<16, 16, 16, half, float, R, Cm, false, false>("16x16x16 f16 -> f32, A row, B col, global");
  ok &= check<16, 16, 16, half, float, Cm, R, true, true>("16x16x16 f16 -> f32, A col, B row, C col, shared");
  ok &= check<16, 16, 16, half, half, R, R, false, true>("16x16x16 f16 -> f16, shared");
  ok &= check<32, 8, 16, half, float, R, Cm, false, false>("32x8x16 f16 -> f32");
  ok &= check<8, 32, 16, half, float, Cm, Cm, true, false>("8x32x16 f16 -> f32, C col");
  ok &= check<16, 16, 16, __nv_bfloat16, float, R, Cm, false, true>("16x16x16 bf16 -> f32");
  ok &= check<32, 8, 16, __nv_bfloat16, float, R, R, false, false>("32x8x16 bf16 -> f32");
  ok &= check<16, 16, 8, wmma::precision::tf32, float, R, Cm, false, true>("16x16x8 tf32 -> f32");
  ok &= check<16, 16, 16, signed char, int, R, Cm, false, false>("16x16x16 s8 -> s32");
  ok &= check<16, 16, 16, unsigned char, int, R, Cm, true, false>("16x16x16 u8 -> s32, C col");
  ok &= check<8, 32, 16, signed char, int, R, R, false, false>("8x32x16 s8 -> s32");
  ok &= check<8, 8, 4, double, double, R, Cm, false, true>("8x8x4 f64");
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
