// What the program's text calls its allocations; used by the driver and by the emulated
// runtime (which names arrays as they are allocated, so its messages name them too).
#include <regex>

#include "program/program.h"

namespace ws::program {

std::vector<std::string> allocation_names(const std::string& text) {
  static const std::regex re(
      R"(cudaMalloc(Managed)?\s*\(\s*(\(\s*void\s*\*\s*\*\s*\)\s*)?&\s*([A-Za-z_][A-Za-z0-9_.>\-\[\]]*))");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    names.push_back((*it)[3].str());
  return names;
}

}  // namespace ws::program
