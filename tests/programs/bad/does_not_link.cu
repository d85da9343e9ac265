// Calls the driver API without linking it (no -lcuda): the link fails, and the message
// names the missing symbol and the library that has it.
#include <cuda.h>
#include <cstdio>

int main() {
  int version = 0;
  cuDriverGetVersion(&version);
  std::printf("driver %d\n", version);
  return 0;
}
