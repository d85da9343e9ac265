// src/program/cublas/gemm.h — the one matrix product behind the emulated cuBLAS and
// cuBLASLt, computed on the CPU: D = alpha · op(A) · op(B) + beta · C, column-major as
// cuBLAS defines it, batched by strides, with cuBLASLt's bias and GELU epilogues. The
// matrices live in the emulated device's memory and are reached through the emulated
// runtime's exports (ws_cudart_read / ws_cudart_write).
#pragma once
#include <library_types.h>

#include <cstdint>
#include <string>

extern "C" {
// Exported by the emulated libcudart.so.13 (src/program/cudart/library.cpp).
int ws_cudart_read(void* dst, const void* src, size_t bytes);
int ws_cudart_write(void* dst, const void* src, size_t bytes);
void ws_cudart_library_call(const char* name);
}

namespace ws::blas {

// A matrix as stored: `rows` × `cols` column-major, columns `ld` elements apart; batch b
// at `stride` elements from batch 0.
struct Matrix {
  const void* data = nullptr;  // a device address
  cudaDataType type = CUDA_R_32F;
  int64_t rows = 0, cols = 0, ld = 0;
  int64_t stride = 0;
};

enum class Epilogue { None, Bias, Gelu, GeluBias, GeluAux, GeluAuxBias };

struct Gemm {
  bool ta = false, tb = false;  // op(A) = Aᵀ, op(B) = Bᵀ
  int64_t m = 0, n = 0, k = 0;  // op(A) m × k, op(B) k × n, C and D m × n
  double alpha = 1, beta = 0;
  Matrix a, b, c, d;            // d: where the result goes (cuBLAS: the same as c)
  int64_t batch = 1;
  bool fp64 = false;            // products and sums in double (Dgemm, 64F compute)
  Epilogue epilogue = Epilogue::None;
  const void* bias = nullptr;   // m values, added to every column (a device address)
  cudaDataType bias_type = CUDA_R_32F;
  Matrix aux;                   // GELU's input kept (GELU_AUX): m × n, type and ld given
};

// Whether cuBLAS gives this type of matrix element here (32F, 64F, 16F, 16BF).
bool known_type(cudaDataType t);
// Bytes of one element of `t` (0 for an unknown type).
size_t type_bytes(cudaDataType t);

// Runs `g`; "" on success, else why not in one line (a matrix outside device memory, a
// type not provided, a leading dimension smaller than its rows).
std::string run(const Gemm& g);
// Whether run()'s answer is a failure on the device (memory outside every allocation, an
// earlier kernel's fault: CUBLAS_STATUS_EXECUTION_FAILED) rather than a request the
// emulated library does not provide.
bool device_failure(const std::string& why);

}  // namespace ws::blas
