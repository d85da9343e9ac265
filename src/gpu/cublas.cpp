// src/gpu/cublas.cpp — the yardstick: cuBLAS of the same types and layouts as a catalog
// GEMM kernel's A and B: SGEMM in plain FP32 (no TF32) for float arrays, HGEMM (cublasGemmEx,
// f16 A and B, f32 C, FP32 compute, tensor cores allowed) for half arrays.
// cuBLAS is opened at run time, so that a binary with the GPU backend starts, and runs
// everything else, on a machine whose CUDA toolkit is missing (cudart is linked in).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "gpu/internal.h"

namespace ws::gpu::detail {
namespace {

// The entry points this file calls, named once.
#define WS_CUBLAS_FUNCTIONS(X) \
  X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasSetMathMode) X(cublasSetStream_v2) X(cublasSgemm_v2)

struct Blas {
#define WS_DECLARE(f) decltype(&::f) f = nullptr;
  WS_CUBLAS_FUNCTIONS(WS_DECLARE)
#undef WS_DECLARE
  // The C entry point (C++ also declares an overload that takes a cudaDataType compute type).
  cublasStatus_t (*cublasGemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                 const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                 cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  std::string missing;
};

const Blas& blas() {
  static const Blas b = [] {
    Blas r;
    void* h = open_library({"libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.13",
                            "/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13"});
    if (!h) return r.missing = "cuBLAS (libcublas.so.13, part of the CUDA toolkit) was not found: the SGEMM and HGEMM yardsticks need it", r;
#define WS_FIND(f) \
  if (!find_symbol(h, #f, r.f)) return r.missing = "this cuBLAS has no " #f, r;
    WS_CUBLAS_FUNCTIONS(WS_FIND)
    WS_FIND(cublasGemmEx)
#undef WS_FIND
    return r;
  }();
  if (!b.missing.empty()) throw Error(b.missing);
  return b;
}

void check_blas(cublasStatus_t s, const std::string& what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error("cuBLAS " + what + " failed: status " + std::to_string(int(s)));
}

class CublasRunner : public Runner {
 public:
  CublasRunner(const catalog::KernelInfo& k, DeviceArrays& a, void* out) {
    const auto& s = a.specs();
    if (k.yardstick != catalog::Yardstick::Cublas || s.size() < 3) throw Error("cuBLAS reference asked for a non-GEMM kernel " + k.id);
    half_ = s[0].elem_bytes == 2;
    if (half_ != (s[1].elem_bytes == 2) || (!half_ && s[0].elem_bytes != 4) || s[2].elem_bytes != 4)
      throw Error("cuBLAS has no GEMM for " + k.id + "'s element sizes (A " + std::to_string(s[0].elem_bytes) + ", B " +
                  std::to_string(s[1].elem_bytes) + ", C " + std::to_string(s[2].elem_bytes) + " bytes)");
    m_ = int(s[0].rows), k_ = int(s[0].cols), n_ = int(s[1].cols);
    alpha_ = k.alpha, beta_ = k.beta;
    a_col_ = s[0].col_major, b_col_ = s[1].col_major, c_col_ = s[2].col_major;
    A_ = a.ptr(0);
    B_ = a.ptr(1);
    C_ = static_cast<float*>(out);
    check_blas(blas().cublasCreate_v2(&h_), "initialisation");
    check_blas(blas().cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH), "setting FP32 math (no TF32)");
    check_blas(blas().cublasSetStream_v2(h_, cudaStream_t(stream())), "setting the stream");
  }
  ~CublasRunner() override {
    if (h_) blas().cublasDestroy_v2(h_);
  }

  void launch() override {
    // cuBLAS is column-major. A row-major matrix is its transpose seen column-major.
    if (!c_col_)  // C^T (n×m) = B^T · A^T
      gemm(b_col_ ? CUBLAS_OP_T : CUBLAS_OP_N, a_col_ ? CUBLAS_OP_T : CUBLAS_OP_N, n_, m_, B_, b_col_ ? k_ : n_, A_,
           a_col_ ? m_ : k_, n_);
    else  // C (m×n) = A · B
      gemm(a_col_ ? CUBLAS_OP_N : CUBLAS_OP_T, b_col_ ? CUBLAS_OP_N : CUBLAS_OP_T, m_, n_, A_, a_col_ ? m_ : k_, B_,
           b_col_ ? k_ : n_, m_);
  }

 private:
  // C (rows × cols, column-major, leading dimension ldc) = op(X) · op(Y), k_ deep.
  void gemm(cublasOperation_t opx, cublasOperation_t opy, int rows, int cols, const void* X, int ldx, const void* Y,
            int ldy, int ldc) {
    if (!half_) {
      check_blas(blas().cublasSgemm_v2(h_, opx, opy, rows, cols, k_, &alpha_, static_cast<const float*>(X), ldx,
                             static_cast<const float*>(Y), ldy, &beta_, C_, ldc),
                 "SGEMM");
      return;
    }
    check_blas(blas().cublasGemmEx(h_, opx, opy, rows, cols, k_, &alpha_, X, CUDA_R_16F, ldx, Y, CUDA_R_16F, ldy, &beta_, C_,
                            CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "HGEMM (cublasGemmEx, f16 in, f32 accumulate)");
  }

  cublasHandle_t h_ = nullptr;
  bool half_ = false;  // f16 A and B: HGEMM
  int m_ = 0, n_ = 0, k_ = 0;
  bool a_col_ = false, b_col_ = false, c_col_ = false;
  float alpha_ = 1.0f, beta_ = 0.0f;
  const void *A_ = nullptr, *B_ = nullptr;
  float* C_ = nullptr;
};

}  // namespace

std::unique_ptr<Runner> cublas_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a,
                                      void* out) {
  (void)p;  // the shapes come from the arrays
  return std::make_unique<CublasRunner>(k, a, out);
}

}  // namespace ws::gpu::detail
