// src/gpu/cublas.cpp — the yardstick: cuBLAS SGEMM in plain FP32 (no TF32), on the
// layouts of a catalog SGEMM kernel's A and B.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "gpu/internal.h"

namespace ws::gpu::detail {
namespace {

void check_blas(cublasStatus_t s, const std::string& what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error("cuBLAS " + what + " failed: status " + std::to_string(int(s)));
}

class CublasRunner : public Runner {
 public:
  CublasRunner(const catalog::KernelInfo& k, DeviceArrays& a, void* out) {
    const auto& s = a.specs();
    if (k.yardstick != catalog::Yardstick::Cublas || s.size() < 3) throw Error("cuBLAS reference asked for a non-SGEMM kernel " + k.id);
    m_ = int(s[0].rows), k_ = int(s[0].cols), n_ = int(s[1].cols);
    alpha_ = k.alpha, beta_ = k.beta;
    a_col_ = s[0].col_major, b_col_ = s[1].col_major, c_col_ = s[2].col_major;
    A_ = static_cast<const float*>(a.ptr(0));
    B_ = static_cast<const float*>(a.ptr(1));
    C_ = static_cast<float*>(out);
    check_blas(cublasCreate(&h_), "initialisation");
    check_blas(cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH), "setting FP32 math (no TF32)");
    check_blas(cublasSetStream(h_, cudaStream_t(stream())), "setting the stream");
  }
  ~CublasRunner() override { cublasDestroy(h_); }

  void launch() override {
    // cuBLAS is column-major. A row-major matrix is its transpose seen column-major.
    if (!c_col_) {  // C^T (n×m) = B^T · A^T
      check_blas(cublasSgemm(h_, b_col_ ? CUBLAS_OP_T : CUBLAS_OP_N, a_col_ ? CUBLAS_OP_T : CUBLAS_OP_N, n_, m_, k_, &alpha_,
                             B_, b_col_ ? k_ : n_, A_, a_col_ ? m_ : k_, &beta_, C_, n_),
                 "SGEMM");
    } else {  // C (m×n) = A · B
      check_blas(cublasSgemm(h_, a_col_ ? CUBLAS_OP_N : CUBLAS_OP_T, b_col_ ? CUBLAS_OP_N : CUBLAS_OP_T, m_, n_, k_, &alpha_,
                             A_, a_col_ ? m_ : k_, B_, b_col_ ? k_ : n_, &beta_, C_, m_),
                 "SGEMM");
    }
  }

 private:
  cublasHandle_t h_ = nullptr;
  int m_ = 0, n_ = 0, k_ = 0;
  bool a_col_ = false, b_col_ = false, c_col_ = false;
  float alpha_ = 1.0f, beta_ = 0.0f;
  const float *A_ = nullptr, *B_ = nullptr;
  float* C_ = nullptr;
};

}  // namespace

std::unique_ptr<Runner> cublas_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a,
                                      void* out) {
  (void)p;  // the shapes come from the arrays
  return std::make_unique<CublasRunner>(k, a, out);
}

}  // namespace ws::gpu::detail
