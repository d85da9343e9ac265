// tests/support.h — what the test suites share, written once: a file's bytes, the line that
// holds a marker, a temporary folder of this process's own, and whether nvcc is here (a test that needs it skips and
// says so).
#pragma once
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "program/program.h"

namespace ws::test {

// The bytes of file `p` ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// A folder under the system's temporary one for `what`, one per process so that parallel
// runs of the suites do not meet; made empty first when `fresh`.
inline std::filesystem::path temp_dir(const std::string& what, bool fresh = false) {
  const auto p = std::filesystem::temp_directory_path() / ("warpscope-test-" + what + "-" + std::to_string(::getpid()));
  if (fresh) std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

// The line (from 1) of file `path` that holds `marker`; fails the test when none does.
inline uint32_t line_of(const std::filesystem::path& path, const std::string& marker) {
  std::ifstream in(path);
  uint32_t n = 0;
  for (std::string l; std::getline(in, l);) {
    ++n;
    if (l.find(marker) != std::string::npos) return n;
  }
  FAIL("no line of " << path.string() << " holds " << marker);
  return 0;
}

// Whether nvcc is found; when not, the test says "nvcc not found: <skipped>" and should return.
inline bool have_nvcc(const char* skipped = "skipped") {
  if (!program::find_nvcc().empty()) return true;
  MESSAGE("nvcc not found: " << skipped);
  return false;
}

}  // namespace ws::test
