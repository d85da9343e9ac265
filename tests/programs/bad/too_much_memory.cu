// Takes host memory until there is none: the run stops at warpscope's memory limit for the
// program, said in one line, instead of pushing the machine into swap.
#include <cstring>
#include <vector>

__global__ void touch(float* p) { p[threadIdx.x] = 1.0f; }

int main() {
  float* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(float));
  touch<<<1, 64>>>(d);
  cudaDeviceSynchronize();
  std::vector<char*> kept;
  for (;;) {
    char* p = new char[64 << 20];
    std::memset(p, 1, 64 << 20);
    kept.push_back(p);
  }
}
