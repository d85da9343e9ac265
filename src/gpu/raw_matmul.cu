// src/gpu/raw_matmul.cu — the SGEMM ladder written out by hand as plain CUDA with raw
// pointers: the catalog's kernels statement for statement, without the context. Used only
// to show that the single-source kernels instantiated with PlainCtx cost nothing: same
// speed, same memory instructions (bench and SASS).
// Deliberately not the kernel contract: these are plain CUDA, __syncthreads() and all.
#include <cuda_runtime.h>

#include "gpu/internal.h"
#include "gpu/raw_warptile.cuh"

namespace ws::gpu::detail {
namespace {

__global__ void raw_matmul_naive_uncoalesced(const float* A, const float* B, float* C, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < N && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k) sum += A[row * N + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

__global__ void raw_matmul_naive(const float* A, const float* B, float* C, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k) sum += A[row * N + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

__global__ void raw_matmul_naive_colmajor(const float* A, const float* B, float* C, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k) sum += A[row * N + k] * B[col * N + k];
    C[row * N + col] = sum;
  }
}

// Tiled, optionally coarsened (COARSE output tiles along a row) and corner-turned (B
// column-major, its tile read down the columns and stored turned): matmul_tiled,
// matmul_coarse1d and matmul_corner_turning, as the catalog writes them.
template <int TILE, int COARSE, bool CORNER_TURN>
__global__ void raw_matmul_tiled(const float* A, const float* B, float* C, int N) {
  __shared__ __align__(16) float As[TILE][TILE];
  __shared__ __align__(16) float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  float sum[COARSE];
#pragma unroll
  for (int c = 0; c < COARSE; ++c) sum[c] = 0.0f;
  for (int ph = 0; ph < (N + TILE - 1) / TILE; ++ph) {
    As[ty][tx] = (row < N && ph * TILE + tx < N) ? A[row * N + ph * TILE + tx] : 0.0f;
#pragma unroll
    for (int c = 0; c < COARSE; ++c) {
      int col = (blockIdx.x * COARSE + c) * TILE + tx;
      if (!CORNER_TURN) {
        Bs[ty][tx] = (ph * TILE + ty < N && col < N) ? B[(ph * TILE + ty) * N + col] : 0.0f;
      } else {
        int bcol = (blockIdx.x * COARSE + c) * TILE + ty;
        Bs[tx][ty] = (ph * TILE + tx < N && bcol < N) ? B[bcol * N + ph * TILE + tx] : 0.0f;
      }
      __syncthreads();
      for (int k = 0; k < TILE; ++k) sum[c] += As[ty][k] * Bs[k][tx];
      __syncthreads();
    }
  }
#pragma unroll
  for (int c = 0; c < COARSE; ++c) {
    int col = (blockIdx.x * COARSE + c) * TILE + tx;
    if (row < N && col < N) C[row * N + col] = sum[c];
  }
}

template <int BM>
__global__ void raw_matmul_coarse2d(const float* A, const float* B, float* C, int N) {
  constexpr int BN = BM, BK = 8, TM = 8, TN = 8, THREADS = (BM * BN) / (TM * TN);
  __shared__ __align__(16) float As[BM][BK];
  __shared__ __align__(16) float Bs[BK][BN];
  int tid = threadIdx.x;
  int threadRow = tid / (BN / TN);
  int threadCol = tid % (BN / TN);
  int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
  float acc[TM * TN] = {0.0f};
  float regM[TM], regN[TN];
  for (int k0 = 0; k0 < N; k0 += BK) {
    for (int r = tid / BK; r < BM; r += THREADS / BK) {
      int gr = rowBase + r, gk = k0 + tid % BK;
      As[r][tid % BK] = (gr < N && gk < N) ? A[gr * N + gk] : 0.0f;
    }
    for (int r = tid / BN; r < BK; r += THREADS / BN) {
      int gk = k0 + r, gc = colBase + tid % BN;
      Bs[r][tid % BN] = (gk < N && gc < N) ? B[gk * N + gc] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) regM[i] = As[threadRow * TM + i][k];
#pragma unroll
      for (int j = 0; j < TN; ++j) regN[j] = Bs[k][threadCol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i * TN + j] += regM[i] * regN[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    int r = rowBase + threadRow * TM + i;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      int c = colBase + threadCol * TN + j;
      if (r < N && c < N) C[r * N + c] = acc[i * TN + j];
    }
  }
}

template <int BM>
__global__ void raw_matmul_coarse2d_vec(const float4* A, const float4* B, float4* C, int N) {
  constexpr int BN = BM, BK = 8, TM = 8, TN = 8, THREADS = (BM * BN) / (TM * TN);
  __shared__ __align__(16) float As[BK][BM];
  __shared__ __align__(16) float4 Bs[BK][BN / 4];
  float4 (&As4)[BK][BM / 4] = reinterpret_cast<float4 (&)[BK][BM / 4]>(As);
  int N4 = N / 4;
  int tid = threadIdx.x;
  int threadRow = tid / (BN / TN);
  int threadCol4 = (tid % (BN / TN)) * (TN / 4);
  int rowBase = blockIdx.y * BM, colBase4 = blockIdx.x * (BN / 4);
  float acc[TM * TN] = {0.0f};
  float regM[TM], regN[TN];
  for (int k0 = 0; k0 < N; k0 += BK) {
    for (int r = tid / (BK / 4); r < BM; r += THREADS / (BK / 4)) {
      int gr = rowBase + r, gk4 = k0 / 4 + tid % (BK / 4);
      float4 v = (gr < N && gk4 < N4) ? A[gr * N4 + gk4] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      int k = (tid % (BK / 4)) * 4;
      As[k + 0][r] = v.x;
      As[k + 1][r] = v.y;
      As[k + 2][r] = v.z;
      As[k + 3][r] = v.w;
    }
    for (int r = tid / (BN / 4); r < BK; r += THREADS / (BN / 4)) {
      int gk = k0 + r, gc4 = colBase4 + tid % (BN / 4);
      Bs[r][tid % (BN / 4)] = (gk < N && gc4 < N4) ? B[gk * N4 + gc4] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int p = 0; p < TM / 4; ++p) {
        float4 m = As4[k][threadRow * (TM / 4) + p];
        regM[4 * p + 0] = m.x;
        regM[4 * p + 1] = m.y;
        regM[4 * p + 2] = m.z;
        regM[4 * p + 3] = m.w;
      }
#pragma unroll
      for (int q = 0; q < TN / 4; ++q) {
        float4 b = Bs[k][threadCol4 + q];
        regN[4 * q + 0] = b.x;
        regN[4 * q + 1] = b.y;
        regN[4 * q + 2] = b.z;
        regN[4 * q + 3] = b.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i * TN + j] += regM[i] * regN[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < TM * TN; j += 4) {
    int i = j / TN, q = (j % TN) / 4;
    int r = rowBase + threadRow * TM + i, c4 = colBase4 + threadCol4 + q;
    if (r < N && c4 < N4) C[r * N4 + c4] = make_float4(acc[j], acc[j + 1], acc[j + 2], acc[j + 3]);
  }
}

// The warp-tiled ladder (kernels/warptile.h): its body is gpu/raw_warptile.cuh.
template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool PAIRED = false>
__global__ void raw_matmul_warptile(const float4* A, const float4* B, float4* C, int N, float alpha, float beta,
                                    int group) {
  warptile_body<BM, BN, BK, WM, WN, STAGES, PAIRED>(A, B, C, N, alpha, beta, group);
}

using RawKernel = void (*)(const float*, const float*, float*, int);
using RawKernel4 = void (*)(const float4*, const float4*, float4*, int);

class RawMatmulRunner : public Runner {
 public:
  RawMatmulRunner(RawKernel f, RawKernel4 f4, dim3 grid, dim3 block, DeviceArrays& a, int n)
      : f_(f), f4_(f4), grid_(grid), block_(block), a_(a.ptr(0)), b_(a.ptr(1)), c_(a.ptr(2)), n_(n) {}
  void launch() override {
    if (f_)
      f_<<<grid_, block_, 0, cudaStream_t(stream())>>>(static_cast<const float*>(a_), static_cast<const float*>(b_),
                                                       static_cast<float*>(c_), n_);
    else
      f4_<<<grid_, block_, 0, cudaStream_t(stream())>>>(static_cast<const float4*>(a_), static_cast<const float4*>(b_),
                                                        static_cast<float4*>(c_), n_);
    check(cudaGetLastError(), "launching a raw SGEMM");
  }

 private:
  RawKernel f_;
  RawKernel4 f4_;
  dim3 grid_, block_;
  void *a_, *b_, *c_;
  int n_;
};

using RawWarpTile = void (*)(const float4*, const float4*, float4*, int, float, float, int);

// C = alpha·A·B + beta·C with the block order of `group`, as the catalog's warp-tiled entries.
class RawWarpTileRunner : public Runner {
 public:
  RawWarpTileRunner(RawWarpTile f, dim3 grid, int threads, DeviceArrays& a, int n, float alpha, float beta, int group)
      : f_(f), grid_(grid), threads_(threads), a_(a.ptr(0)), b_(a.ptr(1)), c_(a.ptr(2)), n_(n), alpha_(alpha),
        beta_(beta), group_(group) {}
  void launch() override {
    f_<<<grid_, threads_, 0, cudaStream_t(stream())>>>(static_cast<const float4*>(a_), static_cast<const float4*>(b_),
                                                        static_cast<float4*>(c_), n_, alpha_, beta_, group_);
    check(cudaGetLastError(), "launching a raw warp-tiled SGEMM");
  }

 private:
  RawWarpTile f_;
  dim3 grid_;
  int threads_;
  void *a_, *b_, *c_;
  int n_;
  float alpha_, beta_;
  int group_;
};

}  // namespace

std::unique_ptr<Runner> raw_matmul_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a) {
  const int N = int(p.size());
  auto grid = [&](int rows, int cols) { return dim3((N + cols - 1) / cols, (N + rows - 1) / rows); };
  auto make = [&](RawKernel f, RawKernel4 f4, dim3 g, dim3 b) { return std::make_unique<RawMatmulRunner>(f, f4, g, b, a, N); };
  const int64_t tile = p["tile"], coarse = p["coarse"], bm = p["bm"];
  if (k.id == "matmul_naive_uncoalesced") return make(raw_matmul_naive_uncoalesced, nullptr, grid(32, 32), dim3(32, 32));
  if (k.id == "matmul_naive") return make(raw_matmul_naive, nullptr, grid(32, 32), dim3(32, 32));
  if (k.id == "matmul_naive_colmajor") return make(raw_matmul_naive_colmajor, nullptr, grid(32, 32), dim3(32, 32));
  if (k.id == "matmul_tiled" && (tile == 16 || tile == 32))
    return make(tile == 16 ? raw_matmul_tiled<16, 1, false> : raw_matmul_tiled<32, 1, false>, nullptr,
                grid(int(tile), int(tile)), dim3(unsigned(tile), unsigned(tile)));
  if (k.id == "matmul_corner_turning" && (tile == 16 || tile == 32))
    return make(tile == 16 ? raw_matmul_tiled<16, 1, true> : raw_matmul_tiled<32, 1, true>, nullptr,
                grid(int(tile), int(tile)), dim3(unsigned(tile), unsigned(tile)));
  if (k.id == "matmul_coarse1d" && coarse == 4)
    return make(raw_matmul_tiled<32, 4, false>, nullptr, grid(32, 32 * 4), dim3(32, 32));
  if (k.id == "matmul_coarse2d" && bm == 128) return make(raw_matmul_coarse2d<128>, nullptr, grid(128, 128), dim3(256));
  if (k.id == "matmul_coarse2d_vec" && bm == 128)
    return make(nullptr, raw_matmul_coarse2d_vec<128>, grid(128, 128), dim3(256));
  // The warp-tiled rungs: 128×128 tiles, warps of 64 rows; alpha, beta as the catalog's.
  auto warptile = [&](RawWarpTile f, int wn, int group) {
    return std::make_unique<RawWarpTileRunner>(f, grid(128, 128), 32 * 2 * (128 / wn), a, N, 0.5f, 3.0f, group);
  };
  if (k.id == "matmul_warptile") return warptile(raw_matmul_warptile<128, 128, 8, 64, 32, 1>, 32, 1);
  if (k.id == "matmul_double_buffer") return warptile(raw_matmul_warptile<128, 128, 8, 64, 32, 2>, 32, 1);
  if (k.id == "matmul_tuned") {
    const int64_t bk = p["bk"], wn = p["wn"];
    const int group = int(p["group"]);
    if (p["lanes"] == 1) {
      if (bk == 8 && wn == 32) return warptile(raw_matmul_warptile<128, 128, 8, 64, 32, 2, true>, 32, group);
      if (bk == 16 && wn == 32) return warptile(raw_matmul_warptile<128, 128, 16, 64, 32, 2, true>, 32, group);
      if (bk == 8 && wn == 64) return warptile(raw_matmul_warptile<128, 128, 8, 64, 64, 2, true>, 64, group);
      if (bk == 16 && wn == 64) return warptile(raw_matmul_warptile<128, 128, 16, 64, 64, 2, true>, 64, group);
    }
    if (bk == 8 && wn == 32) return warptile(raw_matmul_warptile<128, 128, 8, 64, 32, 2>, 32, group);
    if (bk == 16 && wn == 32) return warptile(raw_matmul_warptile<128, 128, 16, 64, 32, 2>, 32, group);
    if (bk == 8 && wn == 64) return warptile(raw_matmul_warptile<128, 128, 8, 64, 64, 2>, 64, group);
    if (bk == 16 && wn == 64) return warptile(raw_matmul_warptile<128, 128, 16, 64, 64, 2>, 64, group);
  }
  return nullptr;
}

std::unique_ptr<Runner> raw_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a) {
  // The hand-written twins, by kernel id (each runner knows its own; null: none).
  if (auto r = raw_transpose_runner(k, p, a)) return r;
  if (auto r = raw_tensor_runner(k, p, a)) return r;
  return raw_matmul_runner(k, p, a);
}

}  // namespace ws::gpu::detail
