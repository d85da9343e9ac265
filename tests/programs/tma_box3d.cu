// tma_box3d.cu — boxes of three and five dimensions copied by the tensor memory accelerator
// (cp.async.bulk.tensor.3d / .5d through an mbarrier's transaction count) into shared memory
// under the 64-byte swizzle. The tensor's element at (x, y, z, ...) holds its own linear index,
// so the host can name every element of the shared tile as the kernel writes it out: the box
// lies in shared memory row after row (a row: the box's extent in x; rows in the order of y,
// then z, ...), each 16-byte chunk of a row moved by the swizzle (chunk bits 4-5 of the byte
// offset XORed with bits 7-8), and the elements outside the tensor are zeros.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

constexpr int kBox = 512;  // elements of every box here (1 KiB of u16)

template <int RANK>
__global__ void copyBox(const __grid_constant__ CUtensorMap map, int4 c, int c4, unsigned short* out) {
  __shared__ alignas(1024) unsigned short tile[kBox];
  __shared__ alignas(8) uint64_t bar;
  const unsigned tileAt = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const unsigned barAt = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(barAt));
    asm volatile("fence.proxy.async.shared::cta;");
    if (RANK == 3)
      asm volatile(
          "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
          ::"r"(tileAt), "l"(&map), "r"(c.x), "r"(c.y), "r"(c.z), "r"(barAt) : "memory");
    else
      asm volatile(
          "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
          ::"r"(tileAt), "l"(&map), "r"(c.x), "r"(c.y), "r"(c.z), "r"(c.w), "r"(c4), "r"(barAt) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barAt), "r"(int(sizeof(tile))) : "memory");
  }
  __syncthreads();
  asm volatile(
      "{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.shared.b64 done, [%0], 0;\n @!done bra WAIT;\n}"
      ::"r"(barAt) : "memory");
  for (int i = threadIdx.x; i < kBox; i += blockDim.x) out[i] = tile[i];
}

int main() {
  // One tensor of 64 x 8 x 4 x 2 x 2 u16 elements (8192), read as rank 3 (64 x 8 x 16) and rank 5.
  const int kDim[5] = {64, 8, 4, 2, 2};
  const int kTotal = 64 * 8 * 4 * 2 * 2;
  static unsigned short h[kTotal], got[kBox];
  for (int i = 0; i < kTotal; ++i) h[i] = static_cast<unsigned short>(i);
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
  const cuuint32_t elem[5] = {1, 1, 1, 1, 1};
  int wrong = 0, checked = 0;
  for (int rank : {3, 5}) {
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5];
    if (rank == 3) {
      const cuuint64_t d3[3] = {64, 8, 16};
      const cuuint32_t b3[3] = {32, 4, 4};  // 64-byte rows, 16 rows
      for (int i = 0; i < 3; ++i) dims[i] = d3[i], box[i] = b3[i];
    } else {
      const cuuint32_t b5[5] = {32, 2, 2, 2, 2};
      for (int i = 0; i < 5; ++i) dims[i] = cuuint64_t(kDim[i]), box[i] = b5[i];
    }
    cuuint64_t s = 64 * 2;
    for (int i = 0; i + 1 < rank; ++i) strides[i] = s, s *= dims[i + 1];
    CUtensorMap map;
    if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, rank, d_m, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
      printf("FAILED: cuTensorMapEncodeTiled refused the rank-%d map\n", rank);
      return 1;
    }
    // A box inside the tensor, then one reaching past its last index in every dimension.
    const int inside3[5] = {16, 2, 5, 0, 0}, past3[5] = {48, 7, 14, 0, 0};
    const int inside5[5] = {16, 2, 1, 0, 0}, past5[5] = {48, 7, 3, 1, 1};
    for (const int* at : {rank == 3 ? inside3 : inside5, rank == 3 ? past3 : past5}) {
      if (rank == 3) copyBox<3><<<1, 128>>>(map, make_int4(at[0], at[1], at[2], 0), 0, d_out);
      else copyBox<5><<<1, 128>>>(map, make_int4(at[0], at[1], at[2], at[3]), at[4], d_out);
      if (cudaDeviceSynchronize() != cudaSuccess) {
        printf("FAILED: the rank-%d copy faulted\n", rank);
        return 1;
      }
      cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost);
      for (int i = 0; i < kBox; ++i) {
        // Element i of the box: its coordinates, dimension 0 fastest.
        int c[5] = {}, rest = i, outside = 0, linear = 0, scale = 1;
        for (int d = 0; d < rank; ++d) {
          c[d] = at[d] + rest % int(box[d]);
          rest /= int(box[d]);
          outside |= c[d] >= int(dims[d]);
          linear += c[d] * scale;
          scale *= int(dims[d]);
        }
        const int want = outside ? 0 : linear;
        const int byte = 2 * i, moved = byte ^ (((byte >> 7) & 3) << 4);
        wrong += got[moved / 2] != want;
        ++checked;
      }
    }
  }
  printf("%s: %d of %d elements out of place\n", wrong ? "FAILED" : "PASSED", wrong, checked);
  return wrong ? 1 : 0;
}
