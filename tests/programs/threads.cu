// tests/programs/threads.cu — four host threads sharing one device: each allocates its own
// array, launches kernels into it and copies it back, all at once. Every thread's array
// must hold its own values; exits 1 when one does not.
#include <cstdio>
#include <thread>
#include <vector>

__global__ void fill(int* out, int value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value + i;
}
__global__ void bump(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += 1;
}

int main() {
  const int threads = 4, n = 512, rounds = 20;
  std::vector<int> wrong(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([t, &wrong] {
      int* d_part;
      cudaMalloc(&d_part, n * sizeof(int));
      std::vector<int> h(n);
      for (int r = 0; r < rounds; ++r) {
        fill<<<n / 128, 128>>>(d_part, 1000 * t + r, n);
        bump<<<n / 64, 64>>>(d_part, n);
        cudaMemcpy(h.data(), d_part, n * sizeof(int), cudaMemcpyDeviceToHost);
        for (int i = 0; i < n; ++i) wrong[t] += h[i] != 1000 * t + r + i + 1;
      }
      wrong[t] += cudaGetLastError() != cudaSuccess;
      cudaFree(d_part);
    });
  for (std::thread& th : pool) th.join();
  int bad = 0;
  for (int t = 0; t < threads; ++t) bad += wrong[t];
  std::printf("%d threads x %d rounds: %d wrong\n", threads, rounds, bad);
  return bad ? 1 : 0;
}
