// driver_api.cu — a program linked with -lcuda, as many Hopper programs are: it encodes its
// TMA tensor map with the driver's cuTensorMapEncodeTiled (not through the runtime's entry
// point), copies one 32 x 8 box of floats into shared memory and checks every element; it
// also asks the driver for its version and error names, and calls one driver function the
// emulated device does not provide (cuMemAlloc), which must fail rather than pass in silence.
// Build: nvcc -arch=sm_90a driver_api.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

constexpr int kW = 64, kH = 16, kBoxX = 32, kBoxY = 8;

__global__ void copyBox(const __grid_constant__ CUtensorMap map, int x, int y, float* out) {
  __shared__ alignas(128) float tile[kBoxX * kBoxY];
  __shared__ alignas(8) uint64_t bar;
  const unsigned tileAt = unsigned(__cvta_generic_to_shared(tile)), barAt = unsigned(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(barAt));
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(tileAt), "l"(&map), "r"(x), "r"(y), "r"(barAt) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barAt), "r"(int(sizeof(tile))) : "memory");
  }
  __syncthreads();
  asm volatile("{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.shared.b64 done, [%0], 0;\n @!done bra WAIT;\n}"
               ::"r"(barAt) : "memory");
  for (int i = threadIdx.x; i < kBoxX * kBoxY; i += blockDim.x) out[i] = tile[i];
}

int main() {
  if (cuInit(0) != CUDA_SUCCESS) {
    printf("FAILED: cuInit\n");
    return 1;
  }
  int version = 0;
  cuDriverGetVersion(&version);
  const char* name = nullptr;
  cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &name);
  printf("driver %d, error 1 is %s\n", version, name ? name : "?");
  static float h[kW * kH], got[kBoxX * kBoxY];
  for (int i = 0; i < kW * kH; ++i) h[i] = float(i);
  float *d, *dout;
  cudaMalloc(&d, sizeof h);
  cudaMalloc(&dout, sizeof got);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  const cuuint64_t dims[2] = {kW, kH}, strides[1] = {kW * sizeof(float)};
  const cuuint32_t box[2] = {kBoxX, kBoxY}, elem[2] = {1, 1};
  CUtensorMap map;
  if (cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d, dims, strides, box, elem,
                             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    printf("FAILED: cuTensorMapEncodeTiled\n");
    return 1;
  }
  copyBox<<<1, 64>>>(map, 16, 4, dout);
  cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < kBoxX * kBoxY; ++i) wrong += got[i] != h[(4 + i / kBoxX) * kW + 16 + i % kBoxX];
  CUdeviceptr raw = 0;
  const CUresult alloc = cuMemAlloc(&raw, 256);
  printf("cuMemAlloc: %s\n", alloc == CUDA_SUCCESS ? "succeeded" : "refused");
  printf("%s: %d of %d elements wrong\n", wrong ? "FAILED" : "PASSED", wrong, kBoxX * kBoxY);
  return wrong ? 1 : 0;
}
