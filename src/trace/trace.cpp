#include "trace/trace.h"

#include <ctime>

namespace ws::trace {

const char* to_string(Space s) { return s == Space::Global ? "global" : "shared"; }

const char* to_string(Op o) {
  switch (o) {
    case Op::Load: return "load";
    case Op::Store: return "store";
    case Op::Atomic: return "atomic";
  }
  return "?";
}

Dim3 Trace::block_coords(uint32_t linear) const {
  const Dim3& g = launch.grid;
  Dim3 c;
  c.x = linear % g.x;
  c.y = (linear / g.x) % g.y;
  c.z = linear / (g.x * g.y);
  return c;
}

std::string source_line(const std::string& text, uint32_t line) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) return {};
    ++pos;
  }
  size_t end = text.find('\n', pos);
  std::string s = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char s[32];
  std::strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return s;
}

}  // namespace ws::trace
