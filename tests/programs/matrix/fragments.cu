// tests/programs/matrix/fragments.cu — which lane holds which element, as the PTX ISA's
// figures draw it: each warp-collective matrix instruction (ldmatrix .x1/.x2/.x4 and .trans,
// stmatrix, movmatrix, mma.sync of every shape and type implemented) run on matrices of
// distinct small integers, its registers filled and read back by the figures' formulas
// (g = lane / 4, t = lane % 4), and checked against the CPU exactly; and the conversion to
// tf32 on edge and random values. One line per form.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// ---- ldmatrix, stmatrix, movmatrix ------------------------------------------------------
// Four 8x8 matrices of 16-bit values m * 64 + r * 8 + c, rows 16 bytes apart; out: each
// lane's registers.
__global__ void ldmatrixAll(uint32_t* out) {
  __shared__ __align__(16) uint16_t s[4 * 64];
  const int l = threadIdx.x;
  for (int i = 0; i < 8; ++i) s[l * 8 + i] = uint16_t(l * 8 + i);
  __syncthreads();
  const uint32_t p = uint32_t(__cvta_generic_to_shared(&s[l * 8]));
  uint32_t r[4], x1, x2[2], t4[4];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(x1) : "r"(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(x2[0]), "=r"(x2[1]) : "r"(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(t4[0]), "=r"(t4[1]), "=r"(t4[2]), "=r"(t4[3]) : "r"(p));
  uint32_t mv;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(mv) : "r"(r[1]));
  __syncthreads();
  // stmatrix .trans of the four registers ldmatrix gave: the transposed matrices in memory.
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(p), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
  __syncthreads();
  uint32_t* o = out + l * 20;
  for (int i = 0; i < 4; ++i) o[i] = r[i];
  o[4] = x1;
  o[5] = x2[0], o[6] = x2[1];
  for (int i = 0; i < 4; ++i) o[7 + i] = t4[i];
  o[11] = mv;
  for (int i = 0; i < 8; ++i) reinterpret_cast<uint16_t*>(o + 12)[i] = s[l * 8 + i];
}

bool check_ldmatrix() {
  uint32_t* d;
  cudaMalloc(&d, 32 * 20 * 4);
  cudaMemset(d, 0, 32 * 20 * 4);  // each lane's row has 4 words the kernel leaves alone
  ldmatrixAll<<<1, 32>>>(d);
  uint32_t h[32 * 20];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  auto pair = [](uint32_t lo, uint32_t hi) { return lo | hi << 16; };
  int bad = 0;
  for (int l = 0; l < 32; ++l) {
    const uint32_t g = l / 4, t = l % 4, *o = h + l * 20;
    for (uint32_t m = 0; m < 4; ++m) {
      bad += o[m] != pair(m * 64 + g * 8 + 2 * t, m * 64 + g * 8 + 2 * t + 1);          // row g, columns 2t, 2t+1
      bad += o[7 + m] != pair(m * 64 + 2 * t * 8 + g, m * 64 + (2 * t + 1) * 8 + g);  // .trans: column g
    }
    bad += o[4] != o[0];
    bad += o[5] != o[0] || o[6] != o[1];
    bad += o[11] != pair(64 + 2 * t * 8 + g, 64 + (2 * t + 1) * 8 + g);  // movmatrix of matrix 1
    // stmatrix.trans wrote matrix m's element (r, c) at row c, column r.
    const uint16_t* row = reinterpret_cast<const uint16_t*>(o + 12);
    const uint32_t m = l / 8, rr = l % 8;
    for (uint32_t c = 0; c < 8; ++c) bad += row[c] != m * 64 + c * 8 + rr;
  }
  std::printf("ldmatrix x1 x2 x4 .trans, movmatrix, stmatrix.trans: %s\n", bad ? "WRONG" : "correct");
  return bad == 0;
}

// ---- mma.sync -----------------------------------------------------------------------------
enum Kind { F16, BF16, TF32, S8, U8, F64 };

// Where element i of lane l's A (m x k), B (k x n) and C (m x n) fragments lie.
struct Pos {
  int r, c;
};
__host__ __device__ Pos pos_a(int k, Kind ty, int l, int i) {
  const int g = l / 4, t = l % 4;
  if (ty == F64) return {g, t};
  if (ty == TF32) return {g + 8 * (i & 1), t + 4 * (i >> 1)};
  if (ty == S8 || ty == U8) {
    if (k == 16) return {g + 8 * (i >> 2), 4 * t + (i & 3)};
    return {g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)};
  }
  if (k == 8) return {g + 8 * (i >> 1), 2 * t + (i & 1)};
  return {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
}
__host__ __device__ Pos pos_b(int k, Kind ty, int l, int i) {
  const int g = l / 4, t = l % 4;
  if (ty == F64) return {t, g};
  if (ty == TF32) return {t + 4 * i, g};
  if (ty == S8 || ty == U8) {
    if (k == 16) return {4 * t + i, g};
    return {4 * t + (i & 3) + 16 * (i >> 2), g};
  }
  if (k == 8) return {2 * t + i, g};
  return {2 * t + (i & 1) + 8 * (i >> 1), g};
}
__host__ __device__ Pos pos_c(Kind ty, int l, int i) {
  const int g = l / 4, t = l % 4;
  if (ty == F64) return {g, 2 * t + i};
  return {g + 8 * (i >> 1), 2 * t + (i & 1)};
}

__device__ uint32_t bits_of(Kind ty, int v) {
  switch (ty) {
    case F16: return __half_as_ushort(__int2half_rn(v));
    case BF16: return __bfloat16_as_ushort(__int2bfloat16_rn(v));
    case TF32: return __float_as_uint(float(v));
    default: return uint32_t(v) & 0xff;
  }
}
__device__ int width_of(Kind ty) { return ty == F16 || ty == BF16 ? 16 : ty == TF32 ? 32 : 8; }

// One warp: A, B (ints), C (ints) into fragments by the figures, one mma, D out by them.
template <int M, int N, int K, Kind kT, bool kHalfAcc>
__global__ void mmaOne(const int* A, const int* B, const int* C, double* D) {
  const int l = threadIdx.x, w = kT == F64 ? 64 : width_of(kT);
  constexpr int na = M * K / 32, nb = K * N / 32, nc = M * N / 32;
  uint32_t a[8] = {}, b[8] = {};
  double a64 = 0, b64 = 0;
  for (int i = 0; i < na; ++i) {
    const Pos p = pos_a(K, kT, l, i);
    if (kT == F64) a64 = A[p.r * K + p.c];
    else a[i * w / 32] |= bits_of(kT, A[p.r * K + p.c]) << (i * w % 32);
  }
  for (int i = 0; i < nb; ++i) {
    const Pos p = pos_b(K, kT, l, i);
    if (kT == F64) b64 = B[p.r * N + p.c];
    else b[i * w / 32] |= bits_of(kT, B[p.r * N + p.c]) << (i * w % 32);
  }
  float cf[4], df[4];
  int ci[4], di[4];
  double cd[2], dd[2];
  uint32_t ch[2] = {}, dh[2];
  for (int i = 0; i < nc; ++i) {
    const Pos p = pos_c(kT, l, i);
    const int v = C[p.r * N + p.c];
    cf[i] = float(v), ci[i] = v;
    if (i < 2) cd[i] = v;
    ch[i / 2] |= uint32_t(__half_as_ushort(__int2half_rn(v))) << (16 * (i % 2));
  }
  if constexpr (kT == F16 && kHalfAcc) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(dh[0]), "=r"(dh[1]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(ch[0]), "r"(ch[1]));
    for (int i = 0; i < 4; ++i) df[i] = __half2float(__ushort_as_half(uint16_t(dh[i / 2] >> (16 * (i % 2)))));
  } else if constexpr (kT == F16 && K == 16) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(df[0]), "=f"(df[1]), "=f"(df[2]), "=f"(df[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(cf[0]), "f"(cf[1]), "f"(cf[2]), "f"(cf[3]));
  } else if constexpr (kT == F16) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(df[0]), "=f"(df[1]), "=f"(df[2]), "=f"(df[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]),
                   "f"(cf[0]), "f"(cf[1]), "f"(cf[2]), "f"(cf[3]));
  } else if constexpr (kT == BF16) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(df[0]), "=f"(df[1]), "=f"(df[2]), "=f"(df[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(cf[0]), "f"(cf[1]), "f"(cf[2]), "f"(cf[3]));
  } else if constexpr (kT == TF32) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(df[0]), "=f"(df[1]), "=f"(df[2]), "=f"(df[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(cf[0]), "f"(cf[1]), "f"(cf[2]), "f"(cf[3]));
  } else if constexpr (kT == S8 && K == 32) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(di[0]), "=r"(di[1]), "=r"(di[2]), "=r"(di[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "r"(ci[0]), "r"(ci[1]), "r"(ci[2]), "r"(ci[3]));
  } else if constexpr (kT == U8) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(di[0]), "=r"(di[1]), "=r"(di[2]), "=r"(di[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "r"(ci[0]), "r"(ci[1]), "r"(ci[2]), "r"(ci[3]));
  } else if constexpr (kT == S8) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=r"(di[0]), "=r"(di[1]), "=r"(di[2]), "=r"(di[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]),
                   "r"(ci[0]), "r"(ci[1]), "r"(ci[2]), "r"(ci[3]));
  } else {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(dd[0]), "=d"(dd[1]) : "d"(a64), "d"(b64), "d"(cd[0]), "d"(cd[1]));
  }
  for (int i = 0; i < nc; ++i) {
    const Pos p = pos_c(kT, l, i);
    D[p.r * N + p.c] = kT == F64 ? dd[i] : kT == S8 || kT == U8 ? double(di[i]) : double(df[i]);
  }
}

template <int M, int N, int K, Kind kT, bool kHalfAcc = false>
bool check_mma(const char* name) {
  int hA[M * K], hB[K * N], hC[M * N];
  // Distinct small values (exact in every type; u8's A unsigned).
  for (int i = 0; i < M * K; ++i) hA[i] = kT == U8 ? (i * 7) % 200 : (i * 7) % 11 - 5;
  for (int i = 0; i < K * N; ++i) hB[i] = (i * 5) % 9 - 4;
  for (int i = 0; i < M * N; ++i) hC[i] = (i * 3) % 7 - 3;
  int *A, *B, *C;
  double* D;
  cudaMalloc(&A, sizeof hA);
  cudaMalloc(&B, sizeof hB);
  cudaMalloc(&C, sizeof hC);
  cudaMalloc(&D, M * N * sizeof(double));
  cudaMemcpy(A, hA, sizeof hA, cudaMemcpyHostToDevice);
  cudaMemcpy(B, hB, sizeof hB, cudaMemcpyHostToDevice);
  cudaMemcpy(C, hC, sizeof hC, cudaMemcpyHostToDevice);
  mmaOne<M, N, K, kT, kHalfAcc><<<1, 32>>>(A, B, C, D);
  double hD[M * N];
  cudaMemcpy(hD, D, sizeof hD, cudaMemcpyDeviceToHost);
  cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(D);
  int bad = 0;
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n) {
      double s = hC[r * N + n];
      for (int k = 0; k < K; ++k) s += double(hA[r * K + k]) * hB[k * N + n];
      bad += hD[r * N + n] != s;
    }
  std::printf("mma %s: %s\n", name, bad ? "WRONG" : "correct");
  return bad == 0;
}

// ---- cvt.rna.tf32.f32 ---------------------------------------------------------------------
// An f32 rounded to tf32's 10 fraction bits, to nearest with ties away from zero, its low 13
// bits clear: ties both ways, carries into the exponent, subnormals, infinities and NaNs.
__global__ void tf32Round(const uint32_t* in, uint32_t* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t r;
  asm volatile("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(__uint_as_float(in[i])));
  out[i] = r;
}

static uint32_t tf32_expected(uint32_t u) {
  if ((u & 0x7fffffffu) > 0x7f800000u) return u & ~0x1fffu;  // a NaN is cut (an H100 makes 7f800001 infinite)
  return (u + 0x1000u) & ~0x1fffu;
}

static bool check_tf32() {
  const uint32_t edge[] = {0x3f800000u, 0x3f801000u, 0x3f800fffu, 0x3f803000u, 0xbf801000u, 0x3fffffffu, 0x7f7fffffu,
                           0x00001000u, 0x00000fffu, 0x807ff000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u,
                           0x7fbfffffu, 0xffc01234u, 0x00000000u, 0x80000000u};
  const int n = 1024;
  uint32_t h[n], got[n];
  uint32_t x = 12345u;
  for (int i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    h[i] = i < int(sizeof edge / sizeof edge[0]) ? edge[i] : x;
  }
  uint32_t *in, *out;
  cudaMalloc(&in, sizeof h), cudaMalloc(&out, sizeof got);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  tf32Round<<<n / 256, 256>>>(in, out, n);
  cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
  cudaFree(in), cudaFree(out);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (got[i] != tf32_expected(h[i])) {
      if (bad++ < 4) std::printf("  cvt.rna.tf32 of %08x: %08x, want %08x\n", h[i], got[i], tf32_expected(h[i]));
    }
  std::printf("cvt.rna.tf32.f32: %s\n", bad ? "WRONG" : "correct");
  return bad == 0;
}

int main() {
  bool ok = check_ldmatrix();
  ok &= check_tf32();
  ok &= check_mma<16, 8, 16, F16>("m16n8k16 f16 -> f32");
  ok &= check_mma<16, 8, 16, F16, true>("m16n8k16 f16 -> f16");
  ok &= check_mma<16, 8, 8, F16>("m16n8k8 f16 -> f32");
  ok &= check_mma<16, 8, 16, BF16>("m16n8k16 bf16 -> f32");
  ok &= check_mma<16, 8, 8, TF32>("m16n8k8 tf32 -> f32");
  ok &= check_mma<16, 8, 32, S8>("m16n8k32 s8 -> s32");
  ok &= check_mma<16, 8, 32, U8>("m16n8k32 u8 x s8 -> s32");
  ok &= check_mma<16, 8, 16, S8>("m16n8k16 s8 -> s32 satfinite");
  ok &= check_mma<8, 8, 4, F64>("m8n8k4 f64");
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
