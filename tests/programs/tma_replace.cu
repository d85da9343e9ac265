// tma_replace.cu — a tensor map rewritten on the device, as CUTLASS's pointer-array and
// grouped GEMMs do for each batch: the host encodes a map of matrix A; the kernel copies it
// into shared memory, points it at matrix B (tensormap.replace: B's address, its extents
// and its row pitch, all different from A's), copies it to global memory with the proxy
// fence (tensormap.cp_fenceproxy), acquires it, and asks the TMA for a box through it. The
// host checks the box against B, its rows past B's last one against zeros. Build for
// sm_90a, with -lcuda.
#include <cstdio>
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>

constexpr int kColsA = 128, kRowsA = 32;   // A: element (x, y) holds y * 128 + x
constexpr int kColsB = 192, kRowsB = 16;   // B: element (x, y) holds 20000 + y * 192 + x
constexpr int kBoxX = 64, kBoxY = 8;
constexpr int kX = 96, kY = 12;            // the box: columns 96-159 (past A's last), rows 12-19 (past B's last)

__global__ void copyThroughNewMap(const __grid_constant__ CUtensorMap map, CUtensorMap* global_map, const void* b,
                                  unsigned short* out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)  // the sm_90a pass (nvcc also writes compute_90 PTX, which has no tensormap)
  __shared__ alignas(128) CUtensorMap smap;
  __shared__ alignas(128) unsigned short tile[kBoxY * kBoxX];
  __shared__ alignas(8) uint64_t bar;
  const unsigned mapAt = static_cast<unsigned>(__cvta_generic_to_shared(&smap));
  const unsigned tileAt = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const unsigned barAt = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x < 32) {
    reinterpret_cast<int*>(&smap)[threadIdx.x] = reinterpret_cast<const int*>(&map)[threadIdx.x];
    __syncwarp();
    if (threadIdx.x == 0) {
      const uint64_t at = mapAt;
      asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"l"(at), "l"(b) : "memory");
      asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"l"(at), "r"(kColsB) : "memory");
      asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"l"(at), "r"(kRowsB) : "memory");
      asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %1;"
                   ::"l"(at), "l"(uint64_t(kColsB * sizeof(unsigned short))) : "memory");
    }
    __syncwarp();
    asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
                 ::"l"(global_map), "r"(mapAt) : "memory");
  }
  if (threadIdx.x == 0) {
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(global_map) : "memory");
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(barAt));
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        ::"r"(tileAt), "l"(global_map), "r"(kX), "r"(kY), "r"(barAt) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barAt), "r"(int(sizeof(tile))) : "memory");
  }
  __syncthreads();
  asm volatile(
      "{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.shared.b64 done, [%0], 0;\n @!done bra WAIT;\n}"
      ::"r"(barAt) : "memory");
  for (int i = threadIdx.x; i < kBoxY * kBoxX; i += blockDim.x) out[i] = tile[i];
#else
  __trap();
#endif
}

int main() {
  static unsigned short ha[kRowsA * kColsA], hb[kRowsB * kColsB], got[kBoxY * kBoxX];
  for (int i = 0; i < kRowsA * kColsA; ++i) ha[i] = static_cast<unsigned short>(i);
  for (int i = 0; i < kRowsB * kColsB; ++i) hb[i] = static_cast<unsigned short>(20000 + i);
  unsigned short *d_a, *d_b, *d_out;
  CUtensorMap* d_map;
  cudaMalloc(&d_a, sizeof ha);
  cudaMalloc(&d_b, sizeof hb);
  cudaMalloc(&d_out, sizeof got);
  cudaMalloc(&d_map, sizeof(CUtensorMap));
  cudaMemcpy(d_a, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, hb, sizeof hb, cudaMemcpyHostToDevice);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess || !fn) {
    printf("FAILED: no cuTensorMapEncodeTiled\n");
    return 1;
  }
  auto encode = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(fn);
  CUtensorMap map;
  const cuuint64_t dims[2] = {kColsA, kRowsA}, strides[1] = {kColsA * sizeof(unsigned short)};
  const cuuint32_t box[2] = {kBoxX, kBoxY}, elem[2] = {1, 1};
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, d_a, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    printf("FAILED: cuTensorMapEncodeTiled refused the map\n");
    return 1;
  }
  copyThroughNewMap<<<1, 128>>>(map, d_map, d_b, d_out);
  if (cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("FAILED: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  int wrong = 0;
  for (int r = 0; r < kBoxY; ++r)
    for (int e = 0; e < kBoxX; ++e) {
      const int x = kX + e, y = kY + r;
      const int want = x < kColsB && y < kRowsB ? 20000 + y * kColsB + x : 0;
      wrong += got[r * kBoxX + e] != want;
    }
  printf("%s: %d of %d elements of B's box out of place\n", wrong ? "FAILED" : "PASSED", wrong, kBoxY * kBoxX);
  return wrong ? 1 : 0;
}
