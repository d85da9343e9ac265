// bench/gui/rss.h — this process's resident memory, for the benchmarks that report it.
#pragma once
#include <fstream>

namespace ws::bench {

// Resident set size in MiB (/proc/self/statm, 4 KiB pages).
inline double rss_mib() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return double(resident) * 4096.0 / (1 << 20);
}

}  // namespace ws::bench
