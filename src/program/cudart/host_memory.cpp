// src/program/cudart/host_memory.cpp — page-locked and mapped host memory (cudaMallocHost,
// cudaHostAlloc, cudaHostRegister): host memory the kernels read and write in place, as a
// GPU's zero-copy does. The emulated device adopts it at its own address, so the pointer
// the host holds is also the device's; its array is named by the line that allocated it,
// with "(host memory)" after the name, the trace having no other place to say where it lives.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "program/cudart/graphs.h"
#include "program/cudart/shim.h"
#include "program/program.h"
#include "ptx/machine.h"

namespace {

using namespace ws;

// The host buffer's name as the call's line writes it, with where it lives after it;
// "cudaMallocHost #k" when the host code carries no line for the call.
std::string host_name(const char* what, const void* caller) {
  static size_t k = 0;
  ++k;
  const std::string name = ws::program::name_of_call(caller);
  return (name.empty() ? std::string(what) + " #" + std::to_string(k) : name) + " (host memory)";
}

cudaError_t adopt(void* p, size_t size, const char* what, const void* caller) {
  ws::program::device().adopt(p, size, host_name(what, caller));
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  WS_API_LOCK;
  if (!ptr) return program::fail(cudaErrorInvalidValue);
  *ptr = std::calloc(1, std::max<size_t>(size, 1));
  if (!*ptr) return program::fail(cudaErrorMemoryAllocation);
  return adopt(*ptr, size, "cudaMallocHost", __builtin_return_address(0));
}

// Every flag gives the same memory here: portable, mapped and write-combined host memory is
// all one address space with the emulated device.
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags) {
  WS_API_LOCK;
  if (!ptr || (flags & ~unsigned(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined)))
    return program::fail(cudaErrorInvalidValue);
  *ptr = std::calloc(1, std::max<size_t>(size, 1));
  if (!*ptr) return program::fail(cudaErrorMemoryAllocation);
  return adopt(*ptr, size, "cudaHostAlloc", __builtin_return_address(0));
}

cudaError_t cudaFreeHost(void* ptr) {
  WS_API_LOCK;
  program::run_held();
  if (!ptr) return cudaSuccess;
  if (!program::device().free(reinterpret_cast<uintptr_t>(ptr))) return program::fail(cudaErrorInvalidValue);
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int) {
  WS_API_LOCK;
  if (!ptr || !size) return program::fail(cudaErrorInvalidValue);
  if (!program::device().owner(reinterpret_cast<uintptr_t>(ptr)).empty())
    return program::fail(cudaErrorHostMemoryAlreadyRegistered);
  return adopt(ptr, size, "cudaHostRegister", __builtin_return_address(0));
}

// The memory stays the program's: only the device's view of it ends.
cudaError_t cudaHostUnregister(void* ptr) {
  WS_API_LOCK;
  program::run_held();
  return program::device().free(reinterpret_cast<uintptr_t>(ptr)) ? cudaSuccess
                                                                   : program::fail(cudaErrorHostMemoryNotRegistered);
}

// The device sees host memory at the host's own address.
cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  WS_API_LOCK;
  if (!pDevice || flags || program::device().owner(reinterpret_cast<uintptr_t>(pHost)).empty())
    return program::fail(cudaErrorInvalidValue);
  *pDevice = pHost;
  return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int* flags, void* pHost) {
  WS_API_LOCK;
  if (!flags || program::device().owner(reinterpret_cast<uintptr_t>(pHost)).empty())
    return program::fail(cudaErrorInvalidValue);
  *flags = cudaHostAllocMapped;
  return cudaSuccess;
}

}  // extern "C"
