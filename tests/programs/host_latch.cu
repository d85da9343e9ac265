// tests/programs/host_latch.cu — a gate kernel on a stream waits in a loop until the host
// opens a latch in page-locked memory; the work queued behind it on the stream (a copy in,
// a kernel, a copy out, a host function) must not start before the gate opens. The host
// opens the latch only after issuing all of it, then waits for the stream. A second round
// uses managed memory for the data and a latch on the default stream's side (a prefetch on
// stream 0 between launch and latch), and a last gate on the default stream. Exits 1 on a
// wrong value.
#include <cstdio>

__global__ void gate(volatile unsigned* latch) {
  while (latch[0] == 0) {
  }
}

__global__ void scale(const float* in, float* out, float by, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * by;
}

static int host_calls = 0;
static void after(void*) { ++host_calls; }

int main() {
  const int n = 1000;
  unsigned* latch;
  float *h_in, *h_out, *d_in, *d_out;
  cudaMallocHost(&latch, sizeof(unsigned));
  cudaMallocHost(&h_in, n * sizeof(float));
  cudaMallocHost(&h_out, n * sizeof(float));
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  int bad = 0;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < n; ++i) h_in[i] = float(i + round), h_out[i] = -1;
    *latch = 0;
    gate<<<1, 1, 0, s>>>(latch);
    cudaMemcpyAsync(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice, s);
    scale<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, 2.0f, n);
    cudaMemcpyAsync(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaLaunchHostFunc(s, after, nullptr);
    // The host may still change what the queued copy reads: the copy sees this value.
    h_in[0] = 100.0f;
    *latch = 1;
    cudaStreamSynchronize(s);
    for (int i = 0; i < n; ++i) bad += h_out[i] != 2.0f * (i ? float(i + round) : 100.0f);
  }
  // Managed data, a prefetch on stream 0 between the launch and the latch.
  float* m;
  cudaMallocManaged(&m, n * sizeof(float));
  for (int i = 0; i < n; ++i) m[i] = float(i);
  *latch = 0;
  gate<<<1, 1, 0, s>>>(latch);
  scale<<<(n + 255) / 256, 256, 0, s>>>(m, m, 3.0f, n);
  cudaMemLocation host{};
  host.type = cudaMemLocationTypeHost;
  cudaMemPrefetchAsync(m, n * sizeof(float), host, 0, 0);
  *latch = 1;
  cudaError_t e = cudaDeviceSynchronize();
  for (int i = 0; i < n; ++i) bad += m[i] != 3.0f * float(i);
  // A gate on the default stream: the launch returns to the host there too.
  *latch = 0;
  gate<<<1, 1>>>(latch);
  *latch = 1;
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  std::printf("%s, %d wrong, %d host functions\n", cudaGetErrorString(e), bad, host_calls);
  cudaFree(m);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFreeHost(h_in);
  cudaFreeHost(h_out);
  cudaFreeHost(latch);
  cudaStreamDestroy(s);
  return bad || host_calls != 2 || e != cudaSuccess;
}
