// A program whose kernels live in two .cu files and whose host code in two .cpp files;
// `--n=N` sets the size. Prints PASSED when both kernels computed what the host expects.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

float* make_scratch(size_t bytes);
void make_buffers(float** bufs, int count, size_t bytes);
void launch_scale(float* x, float s, int n);
void launch_add(const float* a, const float* b, float* c, int n);

int main(int argc, char** argv) {
  int n = 200;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--n=", 4) == 0) n = std::atoi(argv[i] + 4);
  const size_t bytes = n * sizeof(float);
  float* d_scratch = make_scratch(bytes);
  float* d_out;
  cudaMalloc(&d_out, bytes);
  float* bufs[2];
  make_buffers(bufs, 2, bytes);
  std::vector<float> a(n), b(n), out(n);
  for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = 1.0f;
  cudaMemcpy(bufs[0], a.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(bufs[1], b.data(), bytes, cudaMemcpyHostToDevice);
  launch_scale(bufs[0], 2.0f, n);
  launch_add(bufs[0], bufs[1], d_out, n);
  cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += out[i] != 2.0f * i + 1.0f;
  cudaFree(d_scratch);
  std::printf("%d elements, %s\n", n, bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
