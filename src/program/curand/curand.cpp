// src/program/curand/curand.cpp — libcurand.so.10 for a program on the emulated device.
// cuRAND's host API (curandCreateGenerator, curandGenerateUniform, ...) runs generators whose
// sequences the emulated device does not reproduce: each of its functions says so once, in
// one line, and answers CURAND_STATUS_ARCH_MISMATCH, where NVIDIA's library, loaded without
// a GPU, would fail with a bare status 203. Only the version queries answer. The device API
// (curand_kernel.h) is not this library's: it is compiled into the program's own kernels
// and runs on the emulated device. The functions are weak stubs generated from the
// toolkit's curand.h (cmake/cublas_stubs.cmake, FAMILY curand).
#include <curand.h>

#include <cstdio>

#include "program/say_once.h"

extern "C" {

curandStatus_t curandGetVersion(int* version) {
  if (!version) return CURAND_STATUS_OUT_OF_RANGE;
  *version = CURAND_VERSION;
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CURAND_STATUS_OUT_OF_RANGE;
  switch (type) {
    case MAJOR_VERSION: *value = CURAND_VER_MAJOR; break;
    case MINOR_VERSION: *value = CURAND_VER_MINOR; break;
    case PATCH_LEVEL: *value = CURAND_VER_PATCH; break;
    default: return CURAND_STATUS_OUT_OF_RANGE;
  }
  return CURAND_STATUS_SUCCESS;
}

int ws_curand_unsupported(const char* name) {
  if (ws::program::first_time(name)) {
    std::fprintf(stderr,
                 "warpscope: the program called %s, which the emulated device does not provide (cuRAND's host API; "
                 "its device API, curand_kernel.h, runs); it returned CURAND_STATUS_ARCH_MISMATCH\n",
                 name);
  }
  return CURAND_STATUS_ARCH_MISMATCH;
}

}  // extern "C"
