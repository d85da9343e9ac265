// What the program's text calls its allocations; used by the driver and by the emulated
// runtime (which names arrays as they are allocated, so its messages name them too).
#include <filesystem>
#include <regex>

#include "program/program.h"

namespace ws::program {

std::vector<std::string> allocation_names(const std::string& text) {
  // The first `&name` of the call's first argument, whatever cast surrounds it:
  // (void**)&d_A, reinterpret_cast<void **>(&d_A).
  static const std::regex re(
      R"(cudaMalloc(Managed|Pitch)?\s*\(([^;,]*?)&\s*([A-Za-z_][A-Za-z0-9_.>\-\[\]]*))");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    names.push_back((*it)[3].str());
  return names;
}

bool host_file(const std::string& arg) {
  const std::string ext = std::filesystem::path(arg).extension().string();
  for (const char* e : {".cpp", ".cc", ".cxx", ".c", ".o", ".a", ".so"})
    if (ext == e) return !arg.empty() && arg[0] != '-' && std::filesystem::exists(arg);
  return false;
}

}  // namespace ws::program
