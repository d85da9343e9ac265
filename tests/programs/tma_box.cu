// tma_box.cu — a 2-D box of a half-precision matrix copied into shared memory by the tensor
// memory accelerator (cp.async.bulk.tensor through cuda::barrier's transaction count), from a
// CUtensorMap the host encodes through the driver entry point, under the 128-byte swizzle.
// The kernel writes out the shared tile as it lies; the host checks every element against
// the swizzle's rule (the 16-byte chunk c of box row r lands at chunk c ^ (r % 8)), and a
// second box that reaches past the matrix's corner against zeros.
#include <cstdio>
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>

constexpr int kCols = 128, kRows = 32;     // the matrix: element (x, y) holds y * 128 + x
constexpr int kBoxX = 64, kBoxY = 8;       // 128 bytes a box row

__global__ void copyBox(const __grid_constant__ CUtensorMap map, int x, int y, unsigned short* out) {
  __shared__ alignas(1024) unsigned short tile[kBoxY * kBoxX];
  __shared__ alignas(8) uint64_t bar;
  const unsigned tileAt = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const unsigned barAt = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(barAt));
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        ::"r"(tileAt), "l"(&map), "r"(x), "r"(y), "r"(barAt) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barAt), "r"(int(sizeof(tile))) : "memory");
  }
  __syncthreads();
  asm volatile(
      "{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.shared.b64 done, [%0], 0;\n @!done bra WAIT;\n}"
      ::"r"(barAt) : "memory");
  for (int i = threadIdx.x; i < kBoxY * kBoxX; i += blockDim.x) out[i] = tile[i];
}

int main() {
  unsigned short h[kRows * kCols], got[kBoxY * kBoxX];
  for (int i = 0; i < kRows * kCols; ++i) h[i] = static_cast<unsigned short>(i);
  unsigned short *d_m, *d_out;
  cudaMalloc(&d_m, sizeof h);
  cudaMalloc(&d_out, sizeof got);
  cudaMemcpy(d_m, h, sizeof h, cudaMemcpyHostToDevice);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess || !fn) {
    printf("FAILED: no cuTensorMapEncodeTiled\n");
    return 1;
  }
  auto encode = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(fn);
  CUtensorMap map;
  const cuuint64_t dims[2] = {kCols, kRows}, strides[1] = {kCols * sizeof(unsigned short)};
  const cuuint32_t box[2] = {kBoxX, kBoxY}, elem[2] = {1, 1};
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, d_m, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    printf("FAILED: cuTensorMapEncodeTiled refused the map\n");
    return 1;
  }
  int wrong = 0;
  // Box at (64, 8), then one at (96, 28) that reaches past the last column and row.
  const int at[2][2] = {{64, 8}, {96, 28}};
  for (const auto& p : at) {
    copyBox<<<1, 128>>>(map, p[0], p[1], d_out);
    cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost);
    for (int r = 0; r < kBoxY; ++r)
      for (int e = 0; e < kBoxX; ++e) {
        const int x = p[0] + e, y = p[1] + r;
        const int want = x < kCols && y < kRows ? y * kCols + x : 0;
        wrong += got[r * kBoxX + ((e / 8) ^ (r % 8)) * 8 + e % 8] != want;
      }
  }
  printf("%s: %d of %d elements out of place\n", wrong ? "FAILED" : "PASSED", wrong, 2 * kBoxY * kBoxX);
  return wrong ? 1 : 0;
}
