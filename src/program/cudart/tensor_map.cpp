// src/program/cudart/tensor_map.cpp — the driver entry point a program asks the runtime for
// to build a TMA descriptor: cudaGetDriverEntryPoint(ByVersion) hands out
// cuTensorMapEncodeTiled, which checks its arguments as the driver does and writes the
// emulated device's own layout (ptx/tensor_map.h) into the 128 opaque bytes that
// cp.async.bulk.tensor reads back. Every other driver function is reported not found.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "program/cudart/shim.h"
#include "ptx/tensor_map.h"

namespace {

uint8_t element_bytes(CUtensorMapDataType t) {
  switch (t) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16: case CU_TENSOR_MAP_DATA_TYPE_FLOAT16: case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
      return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32: case CU_TENSOR_MAP_DATA_TYPE_INT32: case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ: case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32: case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ:
      return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64: case CU_TENSOR_MAP_DATA_TYPE_INT64: case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return 8;
    default: return 0;  // the packed 4- and 6-bit types
  }
}

// Says why an encoding is refused, once per reason, as the driver's error code alone would not.
CUresult refuse(const std::string& why) {
  std::fprintf(stderr, "warpscope: cuTensorMapEncodeTiled: %s\n", why.c_str());
  return CUDA_ERROR_INVALID_VALUE;
}

// cuTensorMapEncodeTiled for the tensors the emulated TMA copies: rank 1 to 5, no
// interleave, element strides of 1, no swizzle or the 32/64/128-byte ones.
CUresult encode_tiled(CUtensorMap* out, CUtensorMapDataType type, cuuint32_t rank, void* global, const cuuint64_t* dims,
                      const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* element_strides,
                      CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion,
                      CUtensorMapFloatOOBfill) {
  if (!out || !global || !dims || !box || !element_strides || (rank > 1 && !strides)) return CUDA_ERROR_INVALID_VALUE;
  ws::ptx::TensorMap m;
  m.elem_bytes = element_bytes(type);
  m.dtype = uint8_t(type);
  if (!m.elem_bytes) return refuse("a packed element type is not emulated");
  if (rank < 1 || rank > ws::ptx::TensorMap::kMaxRank)
    return refuse("a tensor of rank " + std::to_string(rank) + " (ranks 1 to 5 are emulated)");
  if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE) return refuse("interleaved layouts are not emulated");
  static const uint8_t spans[] = {0, 32, 64, 128};
  if (unsigned(swizzle) > 3) return refuse("this swizzle mode is not emulated (none, 32B, 64B and 128B are)");
  m.swizzle = spans[swizzle];
  m.rank = uint8_t(rank);
  m.global = reinterpret_cast<uintptr_t>(global);
  for (cuuint32_t i = 0; i < rank; ++i) {
    if (element_strides[i] != 1) return refuse("element strides other than 1 are not emulated");
    if (dims[i] == 0 || dims[i] > (1ull << 32)) return CUDA_ERROR_INVALID_VALUE;
    m.dim[i] = dims[i];
    m.box[i] = box[i];
  }
  for (cuuint32_t i = rank; i < ws::ptx::TensorMap::kMaxRank; ++i) m.box[i] = m.dim[i] = 1;
  m.stride[0] = m.elem_bytes;
  for (cuuint32_t i = 1; i < rank; ++i) m.stride[i] = strides[i - 1];  // the driver's strides: dimensions 1 and up
  if (const std::string why = ws::ptx::tensor_map_problem(m); !why.empty()) return refuse(why);
  std::memset(out, 0, sizeof *out);
  std::memcpy(out, &m, sizeof m);
  return CUDA_SUCCESS;
}

cudaError_t entry_point(const char* symbol, void** fn, cudaDriverEntryPointQueryResult* status) {
  if (!symbol || !fn) return ws::program::fail(cudaErrorInvalidValue);
  const bool known = std::strcmp(symbol, "cuTensorMapEncodeTiled") == 0;
  *fn = known ? reinterpret_cast<void*>(&encode_tiled) : nullptr;
  if (status) *status = known ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}

}  // namespace

extern "C" {

// The driver function `symbol` (cuTensorMapEncodeTiled alone here), or null with
// cudaDriverEntryPointSymbolNotFound, as the runtime answers for a symbol the driver lacks.
cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** funcPtr, unsigned long long,
                                    cudaDriverEntryPointQueryResult* driverStatus) {
  return entry_point(symbol, funcPtr, driverStatus);
}

cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr, unsigned int, unsigned long long,
                                             cudaDriverEntryPointQueryResult* driverStatus) {
  return entry_point(symbol, funcPtr, driverStatus);
}

}  // extern "C"
