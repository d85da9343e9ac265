// src/trace/toolkit.h — whether a source file is a header of the CUDA toolkit or the system
// rather than the program's: code inlined from one (atomicAdd, __shfl_down_sync) belongs to
// the program's line that called it, in the PTX and the SASS paths alike.
#pragma once
#include <string>

namespace ws::trace {

inline bool toolkit_file(const std::string& path) {
  return path.rfind("/usr/", 0) == 0 || path.find("/cuda/") != std::string::npos ||
         path.find("/targets/x86_64-linux/include/") != std::string::npos;
}

}  // namespace ws::trace
