// tests/programs/zero_copy.cu — a kernel reading and writing host memory in place, as a GPU
// does through a mapped pointer: cudaHostAlloc (mapped), cudaMallocHost and a registered
// malloc'd buffer, each reached through cudaHostGetDevicePointer. Exits 1 on a wrong value.
#include <cstdio>
#include <cstdlib>

__global__ void add(const float* a, const float* b, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

int main() {
  const int n = 300;
  float *h_a, *h_b, *h_out;
  cudaHostAlloc(&h_a, n * sizeof(float), cudaHostAllocMapped);
  cudaMallocHost(&h_b, n * sizeof(float));
  h_out = static_cast<float*>(std::malloc(n * sizeof(float)));
  cudaError_t e = cudaHostRegister(h_out, n * sizeof(float), cudaHostRegisterMapped);
  for (int i = 0; i < n; ++i) {
    h_a[i] = float(i);
    h_b[i] = 0.5f;
    h_out[i] = -1;
  }
  float *d_a, *d_b, *d_out;
  cudaHostGetDevicePointer(&d_a, h_a, 0);
  cudaHostGetDevicePointer(&d_b, h_b, 0);
  cudaHostGetDevicePointer(&d_out, h_out, 0);
  add<<<(n + 127) / 128, 128>>>(d_a, d_b, d_out, n);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += h_out[i] != float(i) + 0.5f;
  // Unmapped memory has no device pointer.
  float stack_value = 0;
  void* none = nullptr;
  const cudaError_t unmapped = cudaHostGetDevicePointer(&none, &stack_value, 0);
  std::printf("%s, %d wrong, unmapped: %s\n", cudaGetErrorString(e), bad, cudaGetErrorName(unmapped));
  cudaHostUnregister(h_out);
  std::free(h_out);
  cudaFreeHost(h_a);
  cudaFreeHost(h_b);
  return bad || e != cudaSuccess || unmapped != cudaErrorInvalidValue;
}
