// tma_store.cu — the tensor memory accelerator writing back: a transpose whose 32x32 tiles
// come in by a TMA load and go out by a TMA store (cp.async.bulk.tensor ... global.shared::cta
// .bulk_group), both under the 128-byte swizzle, on a matrix whose sides are not multiples
// of 32 (the load fills zeros past the edge; the store writes nothing there, so the output's
// padding columns keep their sentinel), and once more adding the tiles into the output
// (cp.reduce.async.bulk.tensor ... .add); then plain bulk stores and an unsigned bulk
// reduction (cp.async.bulk / cp.reduce.async.bulk .global.shared::cta.bulk_group) from every
// block into one array, with the shared buffer reused after wait_group.read. The host checks
// every element; it passes on an H200 and on the emulated device alike.
// warpscope: shape d_in = 72 x 80
// warpscope: shape d_out = 80 x 128
#include <cstdio>
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>

constexpr int kRows = 72, kCols = 80;   // in: kRows x kCols floats; out: kCols x kRows
constexpr int kPitch = 128;             // out's row pitch in floats (the columns past kRows are padding)
constexpr int kTile = 32;               // 32 floats: one 128-byte swizzled row
constexpr float kSentinel = -7.0f;

// Byte offset of element (r, c) of a 32x32 float tile laid out by a TMA box under the
// 128-byte swizzle: the 16-byte chunk c/4 of row r lies at chunk (c/4) ^ (r % 8).
__device__ unsigned swz(int r, int c) { return r * 128 + ((((c >> 2) ^ (r & 7)) << 4) | ((c & 3) << 2)); }

__global__ void transposeTma(const __grid_constant__ CUtensorMap inMap, const __grid_constant__ CUtensorMap outMap, bool add) {
  __shared__ alignas(1024) float a[kTile * kTile];
  __shared__ alignas(1024) float b[kTile * kTile];
  __shared__ alignas(8) uint64_t bar;
  const unsigned aAt = static_cast<unsigned>(__cvta_generic_to_shared(a));
  const unsigned bAt = static_cast<unsigned>(__cvta_generic_to_shared(b));
  const unsigned barAt = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  const int x = blockIdx.x * kTile, y = blockIdx.y * kTile;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(barAt));
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barAt), "r"(int(sizeof(a))) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        ::"r"(aAt), "l"(&inMap), "r"(x), "r"(y), "r"(barAt) : "memory");
  }
  __syncthreads();
  asm volatile(
      "{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.shared.b64 done, [%0], 0;\n @!done bra WAIT;\n}"
      ::"r"(barAt) : "memory");
  // b's row r is a's column r: each thread moves 8 elements.
  const char* as = reinterpret_cast<const char*>(a);
  char* bs = reinterpret_cast<char*>(b);
  for (int i = threadIdx.x; i < kTile * kTile; i += blockDim.x) {
    const int r = i / kTile, c = i % kTile;
    *reinterpret_cast<float*>(bs + swz(r, c)) = *reinterpret_cast<const float*>(as + swz(c, r));
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    if (add)
      asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];"
                   ::"l"(&outMap), "r"(y), "r"(x), "r"(bAt) : "memory");
    else
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                   ::"l"(&outMap), "r"(y), "r"(x), "r"(bAt) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

// Each block: its 256 words stored to its own row of `rows`, then added into `sum`.
__global__ void storeAndReduce(unsigned* rows, unsigned* sum) {
  __shared__ alignas(128) unsigned buf[256];
  const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(buf));
  buf[threadIdx.x] = blockIdx.x * 1000u + threadIdx.x;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" ::"l"(rows + blockIdx.x * 256), "r"(at)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
  __syncthreads();
  buf[threadIdx.x] = blockIdx.x + 1;  // the bytes were read: the buffer is free again
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], 1024;" ::"l"(sum), "r"(at)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

int main() {
  static float h[kRows * kCols], got[kCols * kPitch];
  for (int i = 0; i < kRows * kCols; ++i) h[i] = float(i);
  for (float& v : got) v = kSentinel;
  float *d_in, *d_out;
  cudaMalloc(&d_in, sizeof h);
  cudaMalloc(&d_out, sizeof got);
  cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(d_out, got, sizeof got, cudaMemcpyHostToDevice);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess || !fn) {
    printf("FAILED: no cuTensorMapEncodeTiled\n");
    return 1;
  }
  auto encode = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(fn);
  CUtensorMap inMap, outMap;
  const cuuint64_t inDims[2] = {kCols, kRows}, inStrides[1] = {kCols * sizeof(float)};
  const cuuint64_t outDims[2] = {kRows, kCols}, outStrides[1] = {kPitch * sizeof(float)};
  const cuuint32_t box[2] = {kTile, kTile}, elem[2] = {1, 1};
  if (encode(&inMap, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d_in, inDims, inStrides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS ||
      encode(&outMap, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d_out, outDims, outStrides, box, elem,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    printf("FAILED: cuTensorMapEncodeTiled refused a map\n");
    return 1;
  }
  const dim3 grid((kCols + kTile - 1) / kTile, (kRows + kTile - 1) / kTile);
  int wrong = 0;
  for (int add = 0; add < 2; ++add) {
    transposeTma<<<grid, 128>>>(inMap, outMap, add);
    cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost);
    int w = 0;
    for (int r = 0; r < kCols; ++r)
      for (int c = 0; c < kPitch; ++c)
        w += got[r * kPitch + c] != (c < kRows ? (add + 1) * h[c * kCols + r] : kSentinel);
    printf("transpose by TMA load and %s: %d of %d elements wrong (padding included)\n",
           add ? "reduce-add" : "store", w, kCols * kPitch);
    wrong += w;
  }

  constexpr int kBlocks = 6;
  static unsigned rows[kBlocks * 256], sum[256];
  for (unsigned& v : sum) v = 5;
  unsigned *d_rows, *d_sum;
  cudaMalloc(&d_rows, sizeof rows);
  cudaMalloc(&d_sum, sizeof sum);
  cudaMemcpy(d_sum, sum, sizeof sum, cudaMemcpyHostToDevice);
  storeAndReduce<<<kBlocks, 256>>>(d_rows, d_sum);
  cudaMemcpy(rows, d_rows, sizeof rows, cudaMemcpyDeviceToHost);
  cudaMemcpy(sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int b = 0; b < kBlocks; ++b)
    for (int i = 0; i < 256; ++i) bad += rows[b * 256 + i] != unsigned(b * 1000 + i);
  for (int i = 0; i < 256; ++i) bad += sum[i] != 5u + kBlocks * (kBlocks + 1) / 2;
  printf("bulk stores and reduction: %d of %d words wrong\n", bad, kBlocks * 256 + 256);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) printf("CUDA error: %s\n", cudaGetErrorString(e));
  const bool ok = !wrong && !bad && e == cudaSuccess;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
