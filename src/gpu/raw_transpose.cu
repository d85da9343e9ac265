// src/gpu/raw_transpose.cu — the transpose ladder written out by hand as plain CUDA with
// raw pointers, as a course would print it. Used only to show that the single-source
// kernels instantiated with PlainCtx cost nothing: same speed, same memory instructions
// (bench and SASS).
// Deliberately not the kernel contract: these are plain CUDA, __syncthreads() and all.
#include <cuda_runtime.h>

#include "gpu/internal.h"

namespace ws::gpu::detail {
namespace {

__global__ void raw_transpose_read_coalesced(const float* in, float* out, int n, int m, int) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < m) out[col * n + row] = in[row * m + col];
}

__global__ void raw_transpose_write_coalesced(const float* in, float* out, int n, int m, int) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < n && row < m) out[row * n + col] = in[col * m + row];
}

template <int TILE, int ROWS, int PAD>
__global__ void raw_transpose_tiled(const float* in, float* out, int n, int m, int block_order) {
  __shared__ __align__(16) float tile[TILE][TILE + PAD];
  int bx = block_order ? blockIdx.y : blockIdx.x;
  int by = block_order ? blockIdx.x : blockIdx.y;
  int j = bx * TILE + threadIdx.x;
#pragma unroll
  for (int k = 0; k < TILE; k += ROWS) {
    int i = by * TILE + threadIdx.y + k;
    if (i < n && j < m) tile[threadIdx.x][threadIdx.y + k] = in[i * m + j];
  }
  __syncthreads();
  int jo = by * TILE + threadIdx.x;
#pragma unroll
  for (int k = 0; k < TILE; k += ROWS) {
    int io = bx * TILE + threadIdx.y + k;
    if (io < m && jo < n) out[io * n + jo] = tile[threadIdx.y + k][threadIdx.x];
  }
}

template <int PAD>
__global__ void raw_transpose_tiled_dynamic(const float* in, float* out, int n, int m, int) {
  extern __shared__ float tile[];
  int T = blockDim.x;
  int j = blockIdx.x * T + threadIdx.x;
  int i = blockIdx.y * T + threadIdx.y;
  if (i < n && j < m) tile[threadIdx.x * (T + PAD) + threadIdx.y] = in[i * m + j];
  __syncthreads();
  int jo = blockIdx.y * T + threadIdx.x;
  int io = blockIdx.x * T + threadIdx.y;
  if (io < m && jo < n) out[io * n + jo] = tile[threadIdx.y * (T + PAD) + threadIdx.x];
}

// in, out, n, m, block_order (used by the tiled kernel only)
using RawKernel = void (*)(const float*, float*, int, int, int);

class RawTransposeRunner : public Runner {
 public:
  RawTransposeRunner(RawKernel kernel, dim3 grid, dim3 block, uint32_t dyn, DeviceArrays& a, int n, int m, int order)
      : kernel_(kernel), grid_(grid), block_(block), dyn_(dyn), in_(static_cast<const float*>(a.ptr(0))),
        out_(static_cast<float*>(a.ptr(1))), n_(n), m_(m), order_(order) {}
  void launch() override {
    kernel_<<<grid_, block_, dyn_, cudaStream_t(stream())>>>(in_, out_, n_, m_, order_);
    check(cudaGetLastError(), "launching a raw transpose");
  }

 private:
  RawKernel kernel_;
  dim3 grid_, block_;
  uint32_t dyn_;
  const float* in_;
  float* out_;
  int n_, m_, order_;
};

}  // namespace

std::unique_ptr<Runner> raw_transpose_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a) {
  const int n = int(p.size()), m = p["m"] > 0 ? int(p["m"]) : n;
  const bool pad = p["pad"] != 0;
  const int order = int(p["order"]);
  auto make = [&](RawKernel f, dim3 grid, dim3 block, uint32_t dyn) {
    return std::make_unique<RawTransposeRunner>(f, grid, block, dyn, a, n, m, order);
  };
  if (k.id == "transpose_read_coalesced")
    return make(raw_transpose_read_coalesced, dim3((m + 31) / 32, (n + 7) / 8), dim3(32, 8), 0);
  if (k.id == "transpose_write_coalesced")
    return make(raw_transpose_write_coalesced, dim3((n + 31) / 32, (m + 7) / 8), dim3(32, 8), 0);
  if (k.id == "transpose_tiled") {
    const int T = int(p["tile"]), R = int(p["rows"]);
    RawKernel f = nullptr;
    if (T == 32 && R == 8) f = pad ? raw_transpose_tiled<32, 8, 1> : raw_transpose_tiled<32, 8, 0>;
    if (T == 32 && R == 32) f = pad ? raw_transpose_tiled<32, 32, 1> : raw_transpose_tiled<32, 32, 0>;
    if (T == 64 && R == 4) f = pad ? raw_transpose_tiled<64, 4, 1> : raw_transpose_tiled<64, 4, 0>;
    if (!f) return nullptr;  // no hand-written twin of this shape
    dim3 tiles((m + T - 1) / T, (n + T - 1) / T);
    return make(f, order ? dim3(tiles.y, tiles.x) : tiles, dim3(T, R), 0);
  }
  if (k.id == "transpose_tiled_dynamic") {
    unsigned T = unsigned(p["tile"]);
    return make(pad ? raw_transpose_tiled_dynamic<1> : raw_transpose_tiled_dynamic<0>,
                dim3((m + T - 1) / T, (n + T - 1) / T), dim3(T, T), uint32_t(T * (T + (pad ? 1 : 0)) * sizeof(float)));
  }
  return nullptr;
}

}  // namespace ws::gpu::detail
