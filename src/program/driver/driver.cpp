// src/program/driver/driver.cpp — libcuda.so.1 for a program on the emulated device: the CUDA
// driver API that programs linked with -lcuda call beside the runtime. Hopper programs do
// so for cuTensorMapEncodeTiled (a TMA copy's tensor map), which encodes here as the
// emulated runtime's cudaGetDriverEntryPoint hands it out (src/program/cudart/tensor_map.cpp);
// cuGetErrorString/Name, cuInit, cuDriverGetVersion and cuMemsetD8/16/32 (and their Async
// forms) answer. Every other function of
// cuda.h says once, in one line, that the emulated device does not provide it and answers
// CUDA_ERROR_NOT_SUPPORTED — where, without a GPU, the program would not even start (no
// libcuda.so.1) or NVIDIA's driver would answer a bare error. The functions are weak stubs
// generated from the toolkit's cuda.h (cmake/cublas_stubs.cmake, FAMILY cuda).
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "program/say_once.h"

namespace {

struct Named {
  CUresult code;
  const char* name;
  const char* text;
};
// The driver's own names and words for the errors a program on the emulated device can meet.
constexpr Named kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const Named* named(CUresult e) {
  for (const Named& n : kErrors)
    if (n.code == e) return &n;
  return nullptr;
}

// Memsets of 8-, 16- and 32-bit values (CUTLASS clears and fills its workspaces with
// them): through the runtime, which checks the range as cudaMemset does. The emulated
// runtime runs a stream's work as it is issued, so the asynchronous forms are the same.
template <class T>
CUresult fill(CUdeviceptr dst, T value, size_t n) {
  if (sizeof(T) == 1)
    return cudaMemset(reinterpret_cast<void*>(dst), int(value), n) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  constexpr size_t kChunk = size_t(1) << 14;  // elements a copy
  static thread_local T pattern[kChunk];
  for (size_t i = 0; i < std::min(n, kChunk); ++i) pattern[i] = value;
  for (size_t done = 0; done < n; done += kChunk) {
    const size_t k = std::min(kChunk, n - done);
    if (cudaMemcpy(reinterpret_cast<void*>(dst + done * sizeof(T)), pattern, k * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }

CUresult cuDriverGetVersion(int* version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  const Named* n = named(error);
  if (!text) return CUDA_ERROR_INVALID_VALUE;
  *text = n ? n->text : nullptr;
  return n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
  const Named* n = named(error);
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  *name = n ? n->name : nullptr;
  return n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// The runtime's encoder: the one tensor map format the emulated TMA copies read.
CUresult cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* global,
                                const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                                const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                                CUtensorMapSwizzle swizzle, CUtensorMapL2promotion promotion,
                                CUtensorMapFloatOOBfill fill) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess || !fn)
    return CUDA_ERROR_NOT_SUPPORTED;
  return reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(fn)(map, type, rank, global, dims, strides, box,
                                                                 element_strides, interleave, swizzle, promotion, fill);
}

CUresult cuMemsetD8(CUdeviceptr dst, unsigned char v, size_t n) { return fill<uint8_t>(dst, v, n); }
CUresult cuMemsetD16(CUdeviceptr dst, unsigned short v, size_t n) { return fill<uint16_t>(dst, v, n); }
CUresult cuMemsetD32(CUdeviceptr dst, unsigned int v, size_t n) { return fill<uint32_t>(dst, v, n); }
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream) { return fill<uint8_t>(dst, v, n); }
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, CUstream) { return fill<uint16_t>(dst, v, n); }
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream) { return fill<uint32_t>(dst, v, n); }

int ws_cuda_unsupported(const char* name) {
  if (ws::program::first_time(name)) {
    std::fprintf(stderr,
                 "warpscope: the program called %s, which the emulated device does not provide (the CUDA driver API: "
                 "cuTensorMapEncodeTiled, the memsets and the error names answer); it returned CUDA_ERROR_NOT_SUPPORTED\n",
                 name);
  }
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // extern "C"
