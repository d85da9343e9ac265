// src/program/cudart/host_memory.cpp — page-locked and mapped host memory (cudaMallocHost,
// cudaHostAlloc, cudaHostRegister): host memory the kernels read and write in place, as a
// GPU's zero-copy does. The emulated device adopts it at its own address, so the pointer
// the host holds is also the device's; its array is named from the program's text with
// "(host memory)" after the name, the trace having no other place to say where it lives.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "program/cudart/shim.h"
#include "program/environment.h"
#include "ptx/machine.h"

namespace {

using namespace ws;

// The program's text's names for its host buffers, in the order it makes them: the `&name`
// of cudaMallocHost / cudaHostAlloc, the first argument of cudaHostRegister.
std::vector<std::string> host_names() {
  std::vector<std::string> names;
  if (!env::is_set(env::Var::source)) return names;
  std::ifstream f(env::get_string(env::Var::source), std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  const std::string t = text.str();
  static const std::regex re(
      R"(cuda(?:MallocHost|HostAlloc)\s*\(([^;,]*?)&\s*([A-Za-z_][A-Za-z0-9_.>\-\[\]]*)|cudaHostRegister\s*\(\s*(?:\([^)]*\))?\s*([A-Za-z_][A-Za-z0-9_.>\-\[\]]*))");
  for (auto it = std::sregex_iterator(t.begin(), t.end(), re); it != std::sregex_iterator(); ++it)
    names.push_back((*it)[2].matched ? (*it)[2].str() : (*it)[3].str());
  return names;
}

std::string host_name(const char* what) {
  static const std::vector<std::string> names = host_names();
  static size_t k = 0;
  ++k;
  return (k <= names.size() ? names[k - 1] : std::string(what) + " #" + std::to_string(k)) + " (host memory)";
}

cudaError_t adopt(void* p, size_t size, const char* what) {
  ws::program::device().adopt(p, size, host_name(what));
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  WS_API_LOCK;
  if (!ptr) return program::fail(cudaErrorInvalidValue);
  *ptr = std::calloc(1, std::max<size_t>(size, 1));
  if (!*ptr) return program::fail(cudaErrorMemoryAllocation);
  return adopt(*ptr, size, "cudaMallocHost");
}

// Every flag gives the same memory here: portable, mapped and write-combined host memory is
// all one address space with the emulated device.
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags) {
  WS_API_LOCK;
  if (!ptr || (flags & ~unsigned(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined)))
    return program::fail(cudaErrorInvalidValue);
  *ptr = std::calloc(1, std::max<size_t>(size, 1));
  if (!*ptr) return program::fail(cudaErrorMemoryAllocation);
  return adopt(*ptr, size, "cudaHostAlloc");
}

cudaError_t cudaFreeHost(void* ptr) {
  WS_API_LOCK;
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
  return adopt(ptr, size, "cudaHostRegister");
}

// The memory stays the program's: only the device's view of it ends.
cudaError_t cudaHostUnregister(void* ptr) {
  WS_API_LOCK;
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
