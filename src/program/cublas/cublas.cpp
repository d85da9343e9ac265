// src/program/cublas/cublas.cpp — libcublas.so.13 for a program on the emulated device:
// the handle and its settings, and the matrix products (S/D gemm, GemmEx, their strided
// batches, S/D gemv; half: Hgemm, its strided batches and 16F compute; the pointer-array
// batches) computed on the CPU by gemm.h. What it lacks answers with weak stubs
// generated from the toolkit's header (cmake/cublas_stubs.cmake), which name themselves.
#include <cublas_v2.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "program/cublas/gemm.h"

struct cublasContext {
  cudaStream_t stream = nullptr;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  cublasAtomicsMode_t atomics = CUBLAS_ATOMICS_NOT_ALLOWED;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

namespace {

using ws::blas::Gemm;
using ws::blas::Matrix;

void say(const std::string& line) { std::fprintf(stderr, "warpscope: %s\n", line.c_str()); }

// A scalar (alpha, beta) of `type` where the handle's pointer mode says it is.
bool scalar(const cublasContext* h, const void* p, cudaDataType type, double& out) {
  if (!p) return false;
  unsigned char raw[8] = {};
  const size_t n = ws::blas::type_bytes(type);
  if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) {
    if (ws_cudart_read(raw, p, n) != 0) return false;
  } else {
    std::memcpy(raw, p, n);
  }
  switch (type) {
    case CUDA_R_32F: { float f; std::memcpy(&f, raw, 4); out = f; return true; }
    case CUDA_R_64F: std::memcpy(&out, raw, 8); return true;
    case CUDA_R_16F: { _Float16 f; std::memcpy(&f, raw, 2); out = float(f); return true; }
    default: return false;
  }
}

// Which scalar type and precision a compute type gives; false for one not provided.
bool compute(cublasComputeType_t c, cudaDataType& scale, bool& fp64) {
  switch (int(c)) {
    case CUDA_R_32F:  // the pre-11 form: a data type where the compute type now goes
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_TF32:  // computed in full FP32: TF32's rounding is not reproduced
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF: scale = CUDA_R_32F; fp64 = false; return true;
    case CUDA_R_64F:
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC: scale = CUDA_R_64F; fp64 = true; return true;
    // Half: the products summed in FP32 and rounded to half once, where a GPU may round its
    // partial sums to half on the way (results can differ in their last bits).
    case CUDA_R_16F:
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC: scale = CUDA_R_16F; fp64 = false; return true;
    default: return false;
  }
}

Matrix matrix(const void* p, cudaDataType t, bool trans, int64_t rows, int64_t cols, int64_t ld, int64_t stride) {
  Matrix m;
  m.data = p;
  m.type = t;
  m.rows = trans ? cols : rows;
  m.cols = trans ? rows : cols;
  m.ld = ld;
  m.stride = stride;
  return m;
}

bool op(cublasOperation_t o, bool& trans) {
  if (o == CUBLAS_OP_N) trans = false;
  else if (o == CUBLAS_OP_T || o == CUBLAS_OP_C) trans = true;  // real types: conjugation changes nothing
  else return false;
  return true;
}

// The one path of every gemm entry point: checks, then gemm.h.
struct Call {
  const char* name;
  cublasContext* h;
  cublasOperation_t ta, tb;
  int64_t m, n, k;
  const void *alpha, *beta;
  const void* A; cudaDataType at; int64_t lda, sa;
  const void* B; cudaDataType bt; int64_t ldb, sb;
  void* C; cudaDataType ct; int64_t ldc, sc;
  int64_t batch;
  cublasComputeType_t compute;
};

cublasStatus_t gemm(const Call& c) {
  ws_cudart_library_call(c.name);
  if (!c.h) return CUBLAS_STATUS_NOT_INITIALIZED;
  Gemm g;
  cudaDataType scale;
  if (!compute(c.compute, scale, g.fp64)) {
    say(std::string(c.name) + ": compute type " + std::to_string(int(c.compute)) + " is not provided by the emulated cuBLAS");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (!op(c.ta, g.ta) || !op(c.tb, g.tb) || c.m < 0 || c.n < 0 || c.k < 0 || c.batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (!scalar(c.h, c.alpha, scale, g.alpha) || !scalar(c.h, c.beta, scale, g.beta)) return CUBLAS_STATUS_INVALID_VALUE;
  g.m = c.m, g.n = c.n, g.k = c.k, g.batch = c.batch;
  g.a = matrix(c.A, c.at, g.ta, c.m, c.k, c.lda, c.sa);
  g.b = matrix(c.B, c.bt, g.tb, c.k, c.n, c.ldb, c.sb);
  g.c = g.d = matrix(c.C, c.ct, false, c.m, c.n, c.ldc, c.sc);
  if (c.lda < std::max<int64_t>(1, g.a.rows) || c.ldb < std::max<int64_t>(1, g.b.rows) || c.ldc < std::max<int64_t>(1, c.m))
    return CUBLAS_STATUS_INVALID_VALUE;  // as cuBLAS checks its leading dimensions
  const std::string e = ws::blas::run(g);
  if (e.empty()) return CUBLAS_STATUS_SUCCESS;
  say(std::string(c.name) + ": " + e);
  return ws::blas::device_failure(e) ? CUBLAS_STATUS_EXECUTION_FAILED : CUBLAS_STATUS_NOT_SUPPORTED;
}

// The pointer-array batches (cublas?gemmBatched, cublasGemmBatchedEx): `A`, `B` and `C` are
// device arrays of `batch` device pointers, each product run as one gemm.
cublasStatus_t gemm_batched(Call c, const void* const* A, const void* const* B, void* const* C) {
  if (c.batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
  const size_t n = size_t(c.batch);
  std::vector<const void*> a(n), b(n);
  std::vector<void*> d(n);
  if (n && (ws_cudart_read(a.data(), A, n * sizeof(void*)) != 0 || ws_cudart_read(b.data(), B, n * sizeof(void*)) != 0 ||
            ws_cudart_read(d.data(), C, n * sizeof(void*)) != 0)) {
    ws_cudart_library_call(c.name);
    say(std::string(c.name) + ": its arrays of matrix pointers are not in the device's memory");
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  c.batch = 1;
  for (size_t i = 0; i < n; ++i) {
    c.A = a[i], c.B = b[i], c.C = d[i];
    if (const cublasStatus_t st = gemm(c); st != CUBLAS_STATUS_SUCCESS) return st;
  }
  if (!n) return gemm(c);  // the checks alone
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetVersion(cublasHandle_t, int* version) {
  if (!version) return CUBLAS_STATUS_INVALID_VALUE;
  *version = CUBLAS_VERSION;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CUBLAS_STATUS_INVALID_VALUE;
  switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; break;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; break;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; break;
    default: return CUBLAS_STATUS_INVALID_VALUE;
  }
  return CUBLAS_STATUS_SUCCESS;
}
size_t cublasGetCudartVersion(void) { return CUDART_VERSION; }
cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->stream = s;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetStream(cublasHandle_t h, cudaStream_t* s) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!s) return CUBLAS_STATUS_INVALID_VALUE;
  *s = h->stream;
  return CUBLAS_STATUS_SUCCESS;
}
// The products need no scratch memory on the CPU: the workspace is kept, never used.
cublasStatus_t cublasSetWorkspace(cublasHandle_t h, void* workspace, size_t bytes) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->workspace = workspace;
  h->workspace_bytes = bytes;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->math = mode;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t* mode) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h->math;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetPointerMode(cublasHandle_t h, cublasPointerMode_t mode) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
  h->pointer_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetPointerMode(cublasHandle_t h, cublasPointerMode_t* mode) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h->pointer_mode;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetAtomicsMode(cublasHandle_t h, cublasAtomicsMode_t mode) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->atomics = mode;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetAtomicsMode(cublasHandle_t h, cublasAtomicsMode_t* mode) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h->atomics;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const float* alpha, const float* A, int lda, const float* B, int ldb, const float* beta,
                           float* C, int ldc) {
  return gemm({"cublasSgemm", h, ta, tb, m, n, k, alpha, beta, A, CUDA_R_32F, lda, 0, B, CUDA_R_32F, ldb, 0, C,
               CUDA_R_32F, ldc, 0, 1, CUBLAS_COMPUTE_32F});
}

cublasStatus_t cublasDgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const double* alpha, const double* A, int lda, const double* B, int ldb, const double* beta,
                           double* C, int ldc) {
  return gemm({"cublasDgemm", h, ta, tb, m, n, k, alpha, beta, A, CUDA_R_64F, lda, 0, B, CUDA_R_64F, ldb, 0, C,
               CUDA_R_64F, ldc, 0, 1, CUBLAS_COMPUTE_64F});
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const void* alpha, const void* A, cudaDataType at, int lda, const void* B, cudaDataType bt,
                            int ldb, const void* beta, void* C, cudaDataType ct, int ldc, cublasComputeType_t compute,
                            cublasGemmAlgo_t) {
  return gemm({"cublasGemmEx", h, ta, tb, m, n, k, alpha, beta, A, at, lda, 0, B, bt, ldb, 0, C, ct, ldc, 0, 1, compute});
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const float* alpha, const float* A, int lda, long long sa,
                                         const float* B, int ldb, long long sb, const float* beta, float* C, int ldc,
                                         long long sc, int batch) {
  return gemm({"cublasSgemmStridedBatched", h, ta, tb, m, n, k, alpha, beta, A, CUDA_R_32F, lda, sa, B, CUDA_R_32F, ldb,
               sb, C, CUDA_R_32F, ldc, sc, batch, CUBLAS_COMPUTE_32F});
}

cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const double* alpha, const double* A, int lda, long long sa,
                                         const double* B, int ldb, long long sb, const double* beta, double* C, int ldc,
                                         long long sc, int batch) {
  return gemm({"cublasDgemmStridedBatched", h, ta, tb, m, n, k, alpha, beta, A, CUDA_R_64F, lda, sa, B, CUDA_R_64F, ldb,
               sb, C, CUDA_R_64F, ldc, sc, batch, CUBLAS_COMPUTE_64F});
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                          int k, const void* alpha, const void* A, cudaDataType at, int lda,
                                          long long sa, const void* B, cudaDataType bt, int ldb, long long sb,
                                          const void* beta, void* C, cudaDataType ct, int ldc, long long sc, int batch,
                                          cublasComputeType_t compute, cublasGemmAlgo_t) {
  return gemm({"cublasGemmStridedBatchedEx", h, ta, tb, m, n, k, alpha, beta, A, at, lda, sa, B, bt, ldb, sb, C, ct, ldc,
               sc, batch, compute});
}

cublasStatus_t cublasHgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const __half* alpha, const __half* A, int lda, const __half* B, int ldb, const __half* beta,
                           __half* C, int ldc) {
  return gemm({"cublasHgemm", h, ta, tb, m, n, k, alpha, beta, A, CUDA_R_16F, lda, 0, B, CUDA_R_16F, ldb, 0, C,
               CUDA_R_16F, ldc, 0, 1, CUBLAS_COMPUTE_16F});
}

cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const __half* alpha, const __half* A, int lda, long long sa,
                                         const __half* B, int ldb, long long sb, const __half* beta, __half* C, int ldc,
                                         long long sc, int batch) {
  return gemm({"cublasHgemmStridedBatched", h, ta, tb, m, n, k, alpha, beta, A, CUDA_R_16F, lda, sa, B, CUDA_R_16F, ldb,
               sb, C, CUDA_R_16F, ldc, sc, batch, CUBLAS_COMPUTE_16F});
}

cublasStatus_t cublasSgemmBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                  const float* alpha, const float* const A[], int lda, const float* const B[], int ldb,
                                  const float* beta, float* const C[], int ldc, int batch) {
  return gemm_batched({"cublasSgemmBatched", h, ta, tb, m, n, k, alpha, beta, nullptr, CUDA_R_32F, lda, 0, nullptr,
                       CUDA_R_32F, ldb, 0, nullptr, CUDA_R_32F, ldc, 0, batch, CUBLAS_COMPUTE_32F},
                      reinterpret_cast<const void* const*>(A), reinterpret_cast<const void* const*>(B),
                      reinterpret_cast<void* const*>(C));
}

cublasStatus_t cublasDgemmBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                  const double* alpha, const double* const A[], int lda, const double* const B[], int ldb,
                                  const double* beta, double* const C[], int ldc, int batch) {
  return gemm_batched({"cublasDgemmBatched", h, ta, tb, m, n, k, alpha, beta, nullptr, CUDA_R_64F, lda, 0, nullptr,
                       CUDA_R_64F, ldb, 0, nullptr, CUDA_R_64F, ldc, 0, batch, CUBLAS_COMPUTE_64F},
                      reinterpret_cast<const void* const*>(A), reinterpret_cast<const void* const*>(B),
                      reinterpret_cast<void* const*>(C));
}

cublasStatus_t cublasHgemmBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                  const __half* alpha, const __half* const A[], int lda, const __half* const B[], int ldb,
                                  const __half* beta, __half* const C[], int ldc, int batch) {
  return gemm_batched({"cublasHgemmBatched", h, ta, tb, m, n, k, alpha, beta, nullptr, CUDA_R_16F, lda, 0, nullptr,
                       CUDA_R_16F, ldb, 0, nullptr, CUDA_R_16F, ldc, 0, batch, CUBLAS_COMPUTE_16F},
                      reinterpret_cast<const void* const*>(A), reinterpret_cast<const void* const*>(B),
                      reinterpret_cast<void* const*>(C));
}

cublasStatus_t cublasGemmBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                   const void* alpha, const void* const A[], cudaDataType at, int lda,
                                   const void* const B[], cudaDataType bt, int ldb, const void* beta, void* const C[],
                                   cudaDataType ct, int ldc, int batch, cublasComputeType_t compute, cublasGemmAlgo_t) {
  return gemm_batched({"cublasGemmBatchedEx", h, ta, tb, m, n, k, alpha, beta, nullptr, at, lda, 0, nullptr, bt, ldb, 0,
                       nullptr, ct, ldc, 0, batch, compute},
                      A, B, C);
}

// y = alpha · op(A) · x + beta · y, as the product yᵀ (1 × M) = xᵀ (1 × K) · op(A)ᵀ: a
// vector with a stride is a one-row matrix whose leading dimension is the stride.
static cublasStatus_t gemv(const char* name, cublasHandle_t h, cublasOperation_t trans, int m, int n, const void* alpha,
                           const void* A, int lda, const void* x, int incx, const void* beta, void* y, int incy,
                           cudaDataType type, cublasComputeType_t compute) {
  if (incx <= 0 || incy <= 0) {
    ws_cudart_library_call(name);
    say(std::string(name) + ": a negative or zero increment is not provided by the emulated cuBLAS");
    return incx && incy ? CUBLAS_STATUS_NOT_SUPPORTED : CUBLAS_STATUS_INVALID_VALUE;
  }
  const bool t = trans != CUBLAS_OP_N;
  const int rows = t ? n : m, inner = t ? m : n;  // op(A) is rows × inner
  return gemm({name, h, CUBLAS_OP_N, t ? CUBLAS_OP_N : CUBLAS_OP_T, 1, rows, inner, alpha, beta, x, type, incx, 0, A, type,
               lda, 0, y, type, incy, 0, 1, compute});
}

cublasStatus_t cublasSgemv(cublasHandle_t h, cublasOperation_t trans, int m, int n, const float* alpha, const float* A,
                           int lda, const float* x, int incx, const float* beta, float* y, int incy) {
  return gemv("cublasSgemv", h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy, CUDA_R_32F, CUBLAS_COMPUTE_32F);
}

cublasStatus_t cublasDgemv(cublasHandle_t h, cublasOperation_t trans, int m, int n, const double* alpha, const double* A,
                           int lda, const double* x, int incx, const double* beta, double* y, int incy) {
  return gemv("cublasDgemv", h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy, CUDA_R_64F, CUBLAS_COMPUTE_64F);
}

const char* cublasGetStatusName(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_UNKNOWN";
  }
}
const char* cublasGetStatusString(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported (by warpscope's emulated cuBLAS)";
    default: return "unknown error";
  }
}

// The stubs (generated from the toolkit's header) end here.
int ws_cublas_unsupported(const char* name) {
  static std::mutex mu;
  static std::vector<std::string> told;
  std::lock_guard<std::mutex> lock(mu);
  if (std::find(told.begin(), told.end(), name) == told.end()) {
    told.push_back(name);
    say(std::string("the program called ") + name + ", which the emulated cuBLAS does not provide; it returned an error");
  }
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

}  // extern "C"
