// tests/programs/cublas_gemm.cu — cuBLAS and cuBLASLt products checked against host loops:
// cublasSgemm with every pair of transposes and leading dimensions larger than the rows
// (the padding must survive), alpha and beta; cublasGemmEx on BF16 inputs; cublasHgemm; a strided
// batch and a pointer-array batch;
// cublasSgemv with a strided vector; cublasLtMatmul with a bias and GELU keeping its input
// (GELU_AUX_BIAS). Prints one line per check and exits 1 when one fails. One tiny kernel,
// so that the program has PTX.
#include <cuda_fp16.h>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void touch(float* p) { p[0] += 0.0f; }

static int failures = 0;
static void expect(bool ok, const char* what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  failures += !ok;
}

// Column-major element (r, c) of a matrix with leading dimension ld.
static float at(const std::vector<float>& m, int ld, int r, int c) { return m[size_t(c) * ld + r]; }

static void check_sgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, const char* what) {
  const int m = 5, n = 3, k = 4, lda = 7, ldb = 6, ldc = 8;
  const int arows = ta == CUBLAS_OP_N ? m : k, acols = ta == CUBLAS_OP_N ? k : m;
  const int brows = tb == CUBLAS_OP_N ? k : n, bcols = tb == CUBLAS_OP_N ? n : k;
  std::vector<float> A(size_t(lda) * acols), B(size_t(ldb) * bcols), C(size_t(ldc) * n);
  for (size_t i = 0; i < A.size(); ++i) A[i] = float(int(i % 7) - 3);
  for (size_t i = 0; i < B.size(); ++i) B[i] = float(int(i % 5) - 2) * 0.5f;
  for (size_t i = 0; i < C.size(); ++i) C[i] = float(i);  // padding rows included: they must stay
  float *dA, *dB, *dC;
  cudaMalloc(&dA, A.size() * 4);
  cudaMalloc(&dB, B.size() * 4);
  cudaMalloc(&dC, C.size() * 4);
  cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice);
  const float alpha = 2.0f, beta = -1.0f;
  const cublasStatus_t s = cublasSgemm(h, ta, tb, m, n, k, &alpha, dA, lda, dB, ldb, &beta, dC, ldc);
  std::vector<float> out(C.size());
  cudaMemcpy(out.data(), dC, out.size() * 4, cudaMemcpyDeviceToHost);
  bool ok = s == CUBLAS_STATUS_SUCCESS && arows <= lda && brows <= ldb;
  for (int c = 0; c < n; ++c)
    for (int r = 0; r < ldc; ++r) {
      float want = at(C, ldc, r, c);
      if (r < m) {
        float sum = 0;
        for (int p = 0; p < k; ++p)
          sum += (ta == CUBLAS_OP_N ? at(A, lda, r, p) : at(A, lda, p, r)) * (tb == CUBLAS_OP_N ? at(B, ldb, p, c) : at(B, ldb, c, p));
        want = alpha * sum + beta * want;
      }
      ok &= std::fabs(out[size_t(c) * ldc + r] - want) < 1e-4f;
    }
  expect(ok, what);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
}

int main() {
  float* scratch;
  cudaMalloc(&scratch, 4);
  cudaMemset(scratch, 0, 4);
  touch<<<1, 1>>>(scratch);
  cublasHandle_t h;
  expect(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  check_sgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, "cublasSgemm N N, lda 7 ldb 6 ldc 8");
  check_sgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, "cublasSgemm T N");
  check_sgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, "cublasSgemm N T");
  check_sgemm(h, CUBLAS_OP_T, CUBLAS_OP_T, "cublasSgemm T T");

  // BF16 inputs, FP32 output and compute: [1 2; 3 4] (column-major 1 3 2 4) squared.
  std::vector<__nv_bfloat16> a = {__float2bfloat16(1), __float2bfloat16(3), __float2bfloat16(2), __float2bfloat16(4)};
  __nv_bfloat16* dA;
  float* dC;
  cudaMalloc(&dA, 8);
  cudaMalloc(&dC, 16);
  cudaMemcpy(dA, a.data(), 8, cudaMemcpyHostToDevice);
  const float one = 1, zero = 0;
  cublasStatus_t s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, dA, CUDA_R_16BF, 2, dA, CUDA_R_16BF, 2, &zero,
                                  dC, CUDA_R_32F, 2, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
  float c[4];
  cudaMemcpy(c, dC, 16, cudaMemcpyDeviceToHost);
  expect(s == CUBLAS_STATUS_SUCCESS && c[0] == 7 && c[1] == 15 && c[2] == 10 && c[3] == 22, "cublasGemmEx BF16 x BF16 -> FP32");

  // Two batches of 1x1x2: batch b's A = (b+1, b+2), B = (1, 1)ᵀ.
  float hA[4] = {1, 2, 2, 3}, hB[4] = {1, 1, 1, 1};
  float *bA, *bB, *bC;
  cudaMalloc(&bA, 16);
  cudaMalloc(&bB, 16);
  cudaMalloc(&bC, 8);
  cudaMemcpy(bA, hA, 16, cudaMemcpyHostToDevice);
  cudaMemcpy(bB, hB, 16, cudaMemcpyHostToDevice);
  s = cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 2, &one, bA, 1, 2, bB, 2, 2, &zero, bC, 1, 1, 2);
  cudaMemcpy(c, bC, 8, cudaMemcpyDeviceToHost);
  expect(s == CUBLAS_STATUS_SUCCESS && c[0] == 3 && c[1] == 5, "cublasSgemmStridedBatched, 2 batches");

  // Half: [1 2; 3 4] squared by cublasHgemm (small integers: exact in half on any GPU).
  std::vector<__half> h16 = {__float2half(1), __float2half(3), __float2half(2), __float2half(4)};
  __half *hdA, *hdC;
  cudaMalloc(&hdA, 8);
  cudaMalloc(&hdC, 8);
  cudaMemcpy(hdA, h16.data(), 8, cudaMemcpyHostToDevice);
  const __half hone = __float2half(1), hzero = __float2half(0);
  s = cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &hone, hdA, 2, hdA, 2, &hzero, hdC, 2);
  __half hc[4];
  cudaMemcpy(hc, hdC, 8, cudaMemcpyDeviceToHost);
  expect(s == CUBLAS_STATUS_SUCCESS && __half2float(hc[0]) == 7 && __half2float(hc[1]) == 15 && __half2float(hc[2]) == 10 &&
             __half2float(hc[3]) == 22,
         "cublasHgemm");

  // A pointer-array batch: the two batches above, their matrices named by device arrays of pointers.
  const float* pa[2] = {bA, bA + 2};
  const float* pb[2] = {bB, bB + 2};
  float* pc[2] = {bC + 1, bC};  // swapped: batch 0 lands in bC[1]
  const float** dpa;
  const float** dpb;
  float** dpc;
  cudaMalloc(&dpa, sizeof pa);
  cudaMalloc(&dpb, sizeof pb);
  cudaMalloc(&dpc, sizeof pc);
  cudaMemcpy(dpa, pa, sizeof pa, cudaMemcpyHostToDevice);
  cudaMemcpy(dpb, pb, sizeof pb, cudaMemcpyHostToDevice);
  cudaMemcpy(dpc, pc, sizeof pc, cudaMemcpyHostToDevice);
  s = cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 2, &one, dpa, 1, dpb, 2, &zero, dpc, 1, 2);
  cudaMemcpy(c, bC, 8, cudaMemcpyDeviceToHost);
  expect(s == CUBLAS_STATUS_SUCCESS && c[0] == 5 && c[1] == 3, "cublasSgemmBatched, 2 batches by pointer arrays");

  // cuBLASLt: D (2x1) = A (2x2) * x (2x1) + bias, GELU, its input kept in aux.
  cublasLtHandle_t lt;
  cublasLtCreate(&lt);
  float hx[2] = {1, -1}, hbias[2] = {0.5f, -4};
  float *dx, *dbias, *dD, *dAux;
  cudaMalloc(&dx, 8);
  cudaMalloc(&dbias, 8);
  cudaMalloc(&dD, 8);
  cudaMalloc(&dAux, 8);
  float ha[4] = {1, 3, 2, 4};  // [1 2; 3 4]
  float* dM;
  cudaMalloc(&dM, 16);
  cudaMemcpy(dM, ha, 16, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, hx, 8, cudaMemcpyHostToDevice);
  cudaMemcpy(dbias, hbias, 8, cudaMemcpyHostToDevice);
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  int64_t ld = 2;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof dbias);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &dAux, sizeof dAux);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof ld);
  cublasLtMatrixLayout_t lA, lx, lD;
  cublasLtMatrixLayoutCreate(&lA, CUDA_R_32F, 2, 2, 2);
  cublasLtMatrixLayoutCreate(&lx, CUDA_R_32F, 2, 1, 2);
  cublasLtMatrixLayoutCreate(&lD, CUDA_R_32F, 2, 1, 2);
  cublasLtMatmulPreference_t pref;
  cublasLtMatmulPreferenceCreate(&pref);
  cublasLtMatmulHeuristicResult_t heur;
  int found = 0;
  cublasLtMatmulAlgoGetHeuristic(lt, op, lA, lx, lD, lD, pref, 1, &heur, &found);
  s = cublasLtMatmul(lt, op, &one, dM, lA, dx, lx, &zero, dD, lD, dD, lD, &heur.algo, nullptr, 0, 0);
  float d[2], aux[2];
  cudaMemcpy(d, dD, 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(aux, dAux, 8, cudaMemcpyDeviceToHost);
  // Pre-activation: (1-2+0.5, 3-4-4) = (-0.5, -5); GELU(tanh form) of -0.5 = -0.154286.
  expect(s == CUBLAS_STATUS_SUCCESS && found == 1 && aux[0] == -0.5f && aux[1] == -5 && std::fabs(d[0] + 0.154286f) < 1e-5f &&
             std::fabs(d[1]) < 1e-5f,
         "cublasLtMatmul GELU_AUX_BIAS");

  // gemv with a strided x: Aᵀ · (1, -1) = (1 - 3, 2 - 4), x's elements 2 apart.
  float hxs[3] = {1, 99, -1}, hy[2] = {5, 5};
  float *dxs, *dy;
  cudaMalloc(&dxs, sizeof hxs);
  cudaMalloc(&dy, sizeof hy);
  cudaMemcpy(dxs, hxs, sizeof hxs, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice);
  s = cublasSgemv(h, CUBLAS_OP_T, 2, 2, &one, dM, 2, dxs, 2, &zero, dy, 1);
  cudaMemcpy(hy, dy, sizeof hy, cudaMemcpyDeviceToHost);
  expect(s == CUBLAS_STATUS_SUCCESS && hy[0] == -2 && hy[1] == -2, "cublasSgemv T, incx 2");

  // The emulated library's refusals (WARPSCOPE_PTX: the program runs on the emulated device).
  // On a GPU, NVIDIA's cuBLAS has cublasIsamax, and a bad pointer faults the context.
  if (std::getenv("WARPSCOPE_PTX")) {
    // A pointer the program never allocated: an error, not a crash.
    s = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, (float*)0x10, 2, bB, 2, &zero, bC, 2);
    expect(s == CUBLAS_STATUS_EXECUTION_FAILED, "cublasSgemm on an address outside device memory fails");
    // A function the emulated library lacks names itself.
    int idx = 0;
    expect(cublasIsamax(h, 2, bA, 1, &idx) == CUBLAS_STATUS_NOT_SUPPORTED, "cublasIsamax is not provided");
  }
  cublasDestroy(h);
  cublasLtDestroy(lt);
  std::printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
