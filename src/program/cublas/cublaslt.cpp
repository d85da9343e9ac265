// src/program/cublas/cublaslt.cpp — libcublasLt.so.13 for a program on the emulated
// device: descriptors of a matmul (transposes, the epilogue and its bias and aux
// matrices), of matrix layouts (with strided batches) and of preferences, one "algorithm"
// that the heuristic always offers, and cublasLtMatmul computed on the CPU by gemm.h.
#include <cublasLt.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "program/cublas/gemm.h"

namespace {

using ws::blas::Epilogue;
using ws::blas::Gemm;
using ws::blas::Matrix;

void say(const std::string& line) { std::fprintf(stderr, "warpscope: %s\n", line.c_str()); }

struct MatmulDesc {
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType scale = CUDA_R_32F;
  int32_t pointer_mode = CUBLASLT_POINTER_MODE_HOST;
  int32_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_N;
  uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void* bias = nullptr;
  int32_t bias_type = -1;  // -1: D's type, as cuBLASLt defaults it
  int64_t bias_stride = 0;
  const void* aux = nullptr;
  int64_t aux_ld = 0, aux_stride = 0;
  int32_t aux_type = -1;
};

struct Layout {
  cudaDataType type = CUDA_R_32F;
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int32_t batch = 1;
  int64_t stride = 0;
  int32_t order = CUBLASLT_ORDER_COL;
};

MatmulDesc* desc_of(cublasLtMatmulDesc_t d) { return reinterpret_cast<MatmulDesc*>(d); }
Layout* layout_of(cublasLtMatrixLayout_t l) { return reinterpret_cast<Layout*>(l); }

// Copies an attribute's value in; false when the size is not the attribute's.
template <typename T>
bool take(T& out, const void* buf, size_t size) {
  if (!buf || size != sizeof(T)) return false;
  std::memcpy(&out, buf, sizeof(T));
  return true;
}

cublasStatus_t set_desc(MatmulDesc& d, cublasLtMatmulDescAttributes_t attr, const void* buf, size_t size) {
  bool ok = false;
  switch (attr) {
    case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: ok = take(d.compute, buf, size); break;
    case CUBLASLT_MATMUL_DESC_SCALE_TYPE: ok = take(d.scale, buf, size); break;
    case CUBLASLT_MATMUL_DESC_POINTER_MODE: ok = take(d.pointer_mode, buf, size); break;
    case CUBLASLT_MATMUL_DESC_TRANSA: ok = take(d.ta, buf, size); break;
    case CUBLASLT_MATMUL_DESC_TRANSB: ok = take(d.tb, buf, size); break;
    case CUBLASLT_MATMUL_DESC_EPILOGUE: ok = take(d.epilogue, buf, size); break;
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: ok = take(d.bias, buf, size); break;
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: ok = take(d.bias_type, buf, size); break;
    case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE: ok = take(d.bias_stride, buf, size); break;
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER: ok = take(d.aux, buf, size); break;
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD: ok = take(d.aux_ld, buf, size); break;
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE: ok = take(d.aux_stride, buf, size); break;
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE: ok = take(d.aux_type, buf, size); break;
    default:
      say("cublasLtMatmulDescSetAttribute: attribute " + std::to_string(int(attr)) + " is not provided by the emulated cuBLASLt");
      return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

bool epilogue(uint32_t e, Epilogue& out) {
  switch (e) {
    case CUBLASLT_EPILOGUE_DEFAULT: out = Epilogue::None; return true;
    case CUBLASLT_EPILOGUE_BIAS: out = Epilogue::Bias; return true;
    case CUBLASLT_EPILOGUE_GELU: out = Epilogue::Gelu; return true;
    case CUBLASLT_EPILOGUE_GELU_BIAS: out = Epilogue::GeluBias; return true;
    case CUBLASLT_EPILOGUE_GELU_AUX: out = Epilogue::GeluAux; return true;
    case CUBLASLT_EPILOGUE_GELU_AUX_BIAS: out = Epilogue::GeluAuxBias; return true;
    default: return false;
  }
}

Matrix matrix(const void* p, const Layout& l) {
  Matrix m;
  m.data = p;
  m.type = l.type;
  m.rows = int64_t(l.rows);
  m.cols = int64_t(l.cols);
  m.ld = l.ld;
  m.stride = l.stride;
  return m;
}

// A scalar of the descriptor's scale type where its pointer mode says it is.
bool scalar(const MatmulDesc& d, const void* p, double& out) {
  unsigned char raw[8] = {};
  const size_t n = ws::blas::type_bytes(d.scale);
  if (!p || !n || (d.scale != CUDA_R_32F && d.scale != CUDA_R_64F)) return false;
  if (d.pointer_mode == CUBLASLT_POINTER_MODE_DEVICE) {
    if (ws_cudart_read(raw, p, n) != 0) return false;
  } else if (d.pointer_mode == CUBLASLT_POINTER_MODE_HOST) {
    std::memcpy(raw, p, n);
  } else {
    return false;
  }
  if (d.scale == CUDA_R_32F) {
    float f;
    std::memcpy(&f, raw, 4);
    out = f;
  } else {
    std::memcpy(&out, raw, 8);
  }
  return true;
}

// The matmul as gemm.h runs it; "" when it can, else why not.
std::string describe(Gemm& g, const MatmulDesc& d, const void* alpha, const void* beta, const void* A, const Layout& la,
                     const void* B, const Layout& lb, const void* C, const Layout& lc, const void* D, const Layout& ld) {
  if (la.order != CUBLASLT_ORDER_COL || lb.order != CUBLASLT_ORDER_COL || lc.order != CUBLASLT_ORDER_COL ||
      ld.order != CUBLASLT_ORDER_COL)
    return "only column-major layouts are provided";
  if (!epilogue(d.epilogue, g.epilogue)) return "epilogue " + std::to_string(d.epilogue) + " is not provided";
  if (!scalar(d, alpha, g.alpha) || !scalar(d, beta, g.beta)) return "alpha or beta cannot be read as the scale type";
  g.ta = d.ta != CUBLAS_OP_N;
  g.tb = d.tb != CUBLAS_OP_N;
  g.fp64 = d.compute == CUBLAS_COMPUTE_64F || d.compute == CUBLAS_COMPUTE_64F_PEDANTIC;
  g.m = int64_t(ld.rows);
  g.n = int64_t(ld.cols);
  g.k = int64_t(g.ta ? la.rows : la.cols);
  g.batch = ld.batch;
  if (la.batch != ld.batch || lb.batch != ld.batch || lc.batch != ld.batch) return "the layouts' batch counts differ";
  g.a = matrix(A, la);
  g.b = matrix(B, lb);
  g.c = matrix(C, lc);
  g.d = matrix(D, ld);
  g.bias = d.bias;
  g.bias_type = d.bias_type < 0 ? ld.type : cudaDataType(d.bias_type);
  if (d.bias_stride) return "a bias per batch is not provided";
  g.aux = matrix(d.aux, ld);
  g.aux.type = d.aux_type < 0 ? ld.type : cudaDataType(d.aux_type);
  g.aux.ld = d.aux_ld;
  g.aux.stride = d.aux_stride;
  return "";
}

}  // namespace

extern "C" {

cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  static char the_library;  // no state: one handle serves
  *handle = reinterpret_cast<cublasLtHandle_t>(&the_library);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  return handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }
size_t cublasLtGetCudartVersion(void) { return CUDART_VERSION; }

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute, cudaDataType_t scale) {
  if (!desc) return CUBLAS_STATUS_INVALID_VALUE;
  auto* d = new MatmulDesc;
  d->compute = compute;
  d->scale = scale;
  *desc = reinterpret_cast<cublasLtMatmulDesc_t>(d);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  delete desc_of(desc);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                                              const void* buf, size_t size) {
  if (!desc) return CUBLAS_STATUS_NOT_INITIALIZED;
  return set_desc(*desc_of(desc), attr, buf, size);
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld) {
  if (!layout) return CUBLAS_STATUS_INVALID_VALUE;
  auto* l = new Layout;
  l->type = type;
  l->rows = rows;
  l->cols = cols;
  l->ld = ld;
  *layout = reinterpret_cast<cublasLtMatrixLayout_t>(l);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutDestroy(const cublasLtMatrixLayout_t layout) {
  delete layout_of(layout);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr,
                                                const void* buf, size_t size) {
  if (!layout) return CUBLAS_STATUS_NOT_INITIALIZED;
  Layout& l = *layout_of(layout);
  bool ok = false;
  switch (attr) {
    case CUBLASLT_MATRIX_LAYOUT_TYPE: ok = take(l.type, buf, size); break;
    case CUBLASLT_MATRIX_LAYOUT_ORDER: ok = take(l.order, buf, size); break;
    case CUBLASLT_MATRIX_LAYOUT_ROWS: ok = take(l.rows, buf, size); break;
    case CUBLASLT_MATRIX_LAYOUT_COLS: ok = take(l.cols, buf, size); break;
    case CUBLASLT_MATRIX_LAYOUT_LD: ok = take(l.ld, buf, size); break;
    case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: ok = take(l.batch, buf, size); break;
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: ok = take(l.stride, buf, size); break;
    default:
      say("cublasLtMatrixLayoutSetAttribute: attribute " + std::to_string(int(attr)) + " is not provided by the emulated cuBLASLt");
      return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

// Preferences only narrow the search for a GPU algorithm: accepted, then unused.
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
  if (!pref) return CUBLAS_STATUS_INVALID_VALUE;
  *pref = reinterpret_cast<cublasLtMatmulPreference_t>(new cublasLtMatmulPreferenceOpaque_t{});
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  delete pref;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t,
                                                    const void* buf, size_t) {
  return pref && buf ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

// One algorithm, the CPU's, needing no workspace: offered whenever the matmul is one
// cublasLtMatmul computes.
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                              cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                              cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                              cublasLtMatmulPreference_t, int requested,
                                              cublasLtMatmulHeuristicResult_t results[], int* returned) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!desc || !a || !b || !c || !d || requested < 1 || !results || !returned) return CUBLAS_STATUS_INVALID_VALUE;
  Epilogue e;
  if (!epilogue(desc_of(desc)->epilogue, e)) {
    *returned = 0;
    say("cublasLtMatmulAlgoGetHeuristic: epilogue " + std::to_string(desc_of(desc)->epilogue) +
        " is not provided by the emulated cuBLASLt");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  std::memset(&results[0], 0, sizeof results[0]);
  results[0].state = CUBLAS_STATUS_SUCCESS;
  results[0].wavesCount = 1.0f;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha, const void* A,
                              cublasLtMatrixLayout_t la, const void* B, cublasLtMatrixLayout_t lb, const void* beta,
                              const void* C, cublasLtMatrixLayout_t lc, void* D, cublasLtMatrixLayout_t ld,
                              const cublasLtMatmulAlgo_t*, void*, size_t, cudaStream_t) {
  ws_cudart_library_call("cublasLtMatmul");
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!desc || !la || !lb || !lc || !ld) return CUBLAS_STATUS_INVALID_VALUE;
  Gemm g;
  std::string e = describe(g, *desc_of(desc), alpha, beta, A, *layout_of(la), B, *layout_of(lb), C, *layout_of(lc), D,
                           *layout_of(ld));
  if (e.empty()) e = ws::blas::run(g);
  if (e.empty()) return CUBLAS_STATUS_SUCCESS;
  say("cublasLtMatmul: " + e);
  return ws::blas::device_failure(e) ? CUBLAS_STATUS_EXECUTION_FAILED : CUBLAS_STATUS_NOT_SUPPORTED;
}

const char* cublasLtGetStatusName(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS"
         : s == CUBLAS_STATUS_NOT_SUPPORTED ? "CUBLAS_STATUS_NOT_SUPPORTED"
         : s == CUBLAS_STATUS_INVALID_VALUE ? "CUBLAS_STATUS_INVALID_VALUE"
                                            : "CUBLAS_STATUS_UNKNOWN";
}
const char* cublasLtGetStatusString(cublasStatus_t s) { return cublasLtGetStatusName(s); }

// The stubs (generated from the toolkit's header) end here.
int ws_cublaslt_unsupported(const char* name) {
  static std::mutex mu;
  static std::vector<std::string> told;
  std::lock_guard<std::mutex> lock(mu);
  if (std::find(told.begin(), told.end(), name) == told.end()) {
    told.push_back(name);
    say(std::string("the program called ") + name + ", which the emulated cuBLASLt does not provide; it returned an error");
  }
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

}  // extern "C"
