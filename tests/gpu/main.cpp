// tests/gpu/main.cpp — the GPU tests' entry: exit 77 (CTest: skipped) with the reason
// when this machine has no usable GPU, so CI without one reports them skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "gpu/gpu.h"

int main(int argc, char** argv) {
  std::string why;
  if (!ws::gpu::available(&why)) {
    std::printf("GPU tests skipped: %s\n", why.c_str());
    return 77;
  }
  std::printf("GPU tests on %s\n", ws::gpu::device_name().c_str());
  doctest::Context ctx;
  ctx.applyCommandLine(argc, argv);
  return ctx.run();
}
