// tests/programs/symbols.cu — a module's variables copied to and from every way the runtime
// offers: cudaMemcpyToSymbol / FromSymbol with an offset, their Async forms, the kinds
// cudaMemcpyDefault and DeviceToDevice (from and into a cudaMalloc'd array), and
// cudaGetSymbolAddress followed by a plain cudaMemcpy; a __constant__ table a kernel reads,
// a __device__ array it writes. A copy past the variable's end is refused. Exits 1 when a
// check fails.
#include <cstdio>

__constant__ float weights[8];
__device__ int counts[4];

__global__ void weigh(float* out) {
  const int i = threadIdx.x;
  out[i] = weights[i] * 10.0f;
  if (i < 4) counts[i] += i + 1;
}

static int failures = 0;
static void expect(bool ok, const char* what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  failures += !ok;
}

int main() {
  const float low[4] = {1, 2, 3, 4}, high[4] = {5, 6, 7, 8};
  cudaMemcpyToSymbol(weights, low, sizeof low);                                        // [0, 4)
  cudaMemcpyToSymbolAsync(weights, high, sizeof high, 4 * sizeof(float), cudaMemcpyHostToDevice, 0);  // [4, 8)
  float* d_out;
  cudaMalloc(&d_out, 8 * sizeof(float));
  weigh<<<1, 8>>>(d_out);
  float out[8];
  cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = 0; i < 8; ++i) ok &= out[i] == 10.0f * (i + 1);
  expect(ok, "cudaMemcpyToSymbol at offsets 0 and 16, the kernel reads all 8 constants");

  int c[4] = {};
  cudaMemcpyFromSymbol(c, counts, sizeof c);
  expect(c[0] == 1 && c[1] == 2 && c[2] == 3 && c[3] == 4, "cudaMemcpyFromSymbol of the kernel's __device__ writes");
  int two[2] = {};
  cudaMemcpyFromSymbolAsync(two, counts, sizeof two, 2 * sizeof(int), cudaMemcpyDeviceToHost, 0);
  cudaDeviceSynchronize();
  expect(two[0] == 3 && two[1] == 4, "cudaMemcpyFromSymbolAsync at offset 8");

  // A device array into the symbol and back out into another, by kind and by cudaMemcpyDefault.
  const int seed[4] = {40, 30, 20, 10};
  int *d_in, *d_back;
  cudaMalloc(&d_in, sizeof seed);
  cudaMalloc(&d_back, sizeof seed);
  cudaMemcpy(d_in, seed, sizeof seed, cudaMemcpyHostToDevice);
  cudaMemset(d_back, 0, sizeof seed);  // (compute-sanitizer's initcheck does not see a symbol copy as a write)
  cudaMemcpyToSymbol(counts, d_in, sizeof seed, 0, cudaMemcpyDeviceToDevice);
  cudaMemcpyFromSymbol(d_back, counts, sizeof seed, 0, cudaMemcpyDefault);
  int back[4] = {};
  cudaMemcpy(back, d_back, sizeof back, cudaMemcpyDefault);
  expect(back[0] == 40 && back[3] == 10, "device to symbol (DeviceToDevice) and symbol to device (Default)");

  // The symbol's address works with plain copies.
  int* d_counts = nullptr;
  size_t size = 0;
  cudaGetSymbolAddress((void**)&d_counts, counts);
  cudaGetSymbolSize(&size, counts);
  const int seven = 7;
  cudaMemcpy(d_counts + 1, &seven, sizeof seven, cudaMemcpyHostToDevice);
  cudaMemcpyFromSymbol(c, counts, sizeof c);
  expect(size == sizeof c && c[0] == 40 && c[1] == 7, "cudaGetSymbolAddress, then cudaMemcpy into it");

  // One float past the table's end.
  const cudaError_t past = cudaMemcpyToSymbol(weights, low, sizeof low, 5 * sizeof(float));
  expect(past == cudaErrorInvalidSymbol || past == cudaErrorInvalidValue, "a copy past the symbol's end is refused");
  cudaGetLastError();
  std::printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
