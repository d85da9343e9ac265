// stencil.cuh — the device helpers of stencil.cu, in a header of their own.
#pragma once
__constant__ float kWeights[3];

__device__ inline float weighted(const float* s, int i) {
  return kWeights[0] * s[i - 1] + kWeights[1] * s[i] + kWeights[2] * s[i + 1];
}
