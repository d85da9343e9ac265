// Prints a line, then never ends (on the host): what it printed must survive the timeout.
#include <cstdio>
#include <cuda_runtime.h>

int main() {
  int* d_x;
  cudaMalloc(&d_x, sizeof(int));
  std::printf("before the endless loop\n");
  volatile int forever = 1;
  while (forever) {}
  return 0;
}
