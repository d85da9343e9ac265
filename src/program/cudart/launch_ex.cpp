// src/program/cudart/launch_ex.cpp — the launches beside <<<…>>>: cudaLaunchKernelExC (a
// configuration with attributes) and cooperative launches. The emulated device runs a
// grid's blocks one after another, so a grid-wide barrier would wait forever: a
// cooperative launch is refused in one line instead of hanging.
#include <cuda_runtime_api.h>

#include "program/cudart/shim.h"

extern "C" {

cudaError_t cudaLaunchCooperativeKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t) {
  return ws::program::unsupported("cudaLaunchCooperativeKernel (grid-wide synchronisation)");
}

// Attributes that only tune a GPU's scheduling are accepted and ignored; a cooperative one
// is refused as cudaLaunchCooperativeKernel is, and any other one named.
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  if (!config) return ws::program::fail(cudaErrorInvalidValue);
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute& a = config->attrs[i];
    switch (a.id) {
      case cudaLaunchAttributeCooperative:
        if (a.val.cooperative) return ws::program::unsupported("cudaLaunchKernelExC with cudaLaunchAttributeCooperative (grid-wide synchronisation)");
        break;
      case cudaLaunchAttributeIgnore:
      case cudaLaunchAttributeAccessPolicyWindow:
      case cudaLaunchAttributeSynchronizationPolicy:
      case cudaLaunchAttributePriority:
        break;
      case cudaLaunchAttributeClusterDimension:
        if (a.val.clusterDim.x * a.val.clusterDim.y * a.val.clusterDim.z <= 1) break;
        return ws::program::unsupported("cudaLaunchKernelExC with thread block clusters");
      default:
        return ws::program::unsupported("cudaLaunchKernelExC with a launch attribute other than priority, cache or cooperative");
    }
  }
  return cudaLaunchKernel(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream);
}

}  // extern "C"
