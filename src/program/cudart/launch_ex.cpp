// src/program/cudart/launch_ex.cpp — the launches beside <<<…>>>: cudaLaunchKernelExC (a
// configuration with attributes) and cooperative launches, whose blocks the emulated device
// keeps resident at once (ptx/grid.cpp) so that a grid-wide barrier ends — up to as many
// blocks as the device holds by the occupancy it reports, as on a GPU.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "program/cudart/shim.h"

namespace {

// A cooperative launch: refused as a GPU refuses it (cudaErrorCooperativeLaunchTooLarge)
// when its grid is more than the device holds resident at once, with one line saying so.
cudaError_t cooperative_launch(const void* func, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t stream) {
  int per_sm = 0, sms = 0;
  const int threads = int(block.x * block.y * block.z);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, threads, shared);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const unsigned long long blocks = 1ull * grid.x * grid.y * grid.z, resident = 1ull * per_sm * sms;
  if (blocks > resident) {
    static bool told = false;
    if (!told)
      std::fprintf(stderr,
                   "warpscope: a cooperative launch of %llu blocks, more than the %llu (%d a multiprocessor of %d, "
                   "blocks of %d threads) the device holds at once: cudaErrorCooperativeLaunchTooLarge\n",
                   blocks, resident, per_sm, sms, threads);
    told = true;
    return ws::program::fail(cudaErrorCooperativeLaunchTooLarge);
  }
  return ws::program::launch_kernel(func, grid, block, args, shared, stream, true);
}

}  // namespace

extern "C" {

cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                                        cudaStream_t stream) {
  return cooperative_launch(func, grid, block, args, shared, stream);
}

namespace {

// A launch attribute's name, for the line that refuses it.
const char* attribute_name(int id) {
  switch (id) {
    case cudaLaunchAttributeProgrammaticEvent: return "cudaLaunchAttributeProgrammaticEvent";
    case cudaLaunchAttributePreferredClusterDimension: return "cudaLaunchAttributePreferredClusterDimension";
    case cudaLaunchAttributeLaunchCompletionEvent: return "cudaLaunchAttributeLaunchCompletionEvent";
    case cudaLaunchAttributeDeviceUpdatableKernelNode: return "cudaLaunchAttributeDeviceUpdatableKernelNode";
    default: return nullptr;
  }
}

}  // namespace

// Attributes that only tune a GPU's scheduling are accepted and ignored: among them
// programmatic dependent launch (cudaLaunchAttributeProgrammaticStreamSerialization, which
// CUB's and Thrust's sorts set), which only lets a kernel start before the one before it
// ends, and the emulated device runs kernels one after another anyway. A cooperative one
// makes the launch cooperative, a cluster dimension gives it thread block clusters (run
// as ptx/grid.cpp describes); any other one is named and refused.
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  if (!config) return ws::program::fail(cudaErrorInvalidValue);
  bool cooperative = false;
  dim3 cluster(1, 1, 1);
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute& a = config->attrs[i];
    switch (a.id) {
      case cudaLaunchAttributeCooperative:
        cooperative = a.val.cooperative != 0;
        break;
      case cudaLaunchAttributeIgnore:
      case cudaLaunchAttributeAccessPolicyWindow:
      case cudaLaunchAttributeSynchronizationPolicy:
      case cudaLaunchAttributePriority:
      case cudaLaunchAttributeProgrammaticStreamSerialization:
      case cudaLaunchAttributeClusterSchedulingPolicyPreference:
      case cudaLaunchAttributeMemSyncDomainMap:
      case cudaLaunchAttributeMemSyncDomain:
      case cudaLaunchAttributePreferredSharedMemoryCarveout:
        break;
      case cudaLaunchAttributeClusterDimension:
        cluster = dim3(a.val.clusterDim.x, a.val.clusterDim.y, a.val.clusterDim.z);
        break;
      default: {
        const char* name = attribute_name(int(a.id));
        const std::string what = std::string("cudaLaunchKernelExC with the launch attribute ") +
                                 (name ? std::string(name) : "number " + std::to_string(int(a.id)));
        return ws::program::unsupported(what.c_str());
      }
    }
  }
  if (cooperative && cluster.x * cluster.y * cluster.z > 1)
    return ws::program::unsupported("cudaLaunchKernelExC, cooperative and with thread block clusters");
  if (cooperative)
    return cooperative_launch(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream);
  return ws::program::launch_kernel(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                                    config->stream, false, cluster);
}

// How many clusters of the configuration's shape the device holds at once: its
// multiprocessors' resident blocks (by the occupancy it reports) in whole clusters.
cudaError_t cudaOccupancyMaxActiveClusters(int* numClusters, const void* func, const cudaLaunchConfig_t* config) {
  if (!numClusters || !config) return ws::program::fail(cudaErrorInvalidValue);
  dim3 cluster(1, 1, 1);
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == cudaLaunchAttributeClusterDimension)
      cluster = dim3(config->attrs[i].val.clusterDim.x, config->attrs[i].val.clusterDim.y, config->attrs[i].val.clusterDim.z);
  const unsigned size = cluster.x * cluster.y * cluster.z;
  if (size == 0 || size > 16) return ws::program::fail(cudaErrorInvalidClusterSize);
  int per_sm = 0, sms = 0;
  const dim3 b = config->blockDim;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, int(b.x * b.y * b.z), config->dynamicSmemBytes);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  *numClusters = int(1ll * per_sm * sms / size);
  return cudaSuccess;
}

}  // extern "C"
