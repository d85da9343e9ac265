// src/ui/figure/format.cpp — Small shared widgets: number formats, headline figures, help markers.
#include <algorithm>
#include <cstdio>

#include "ui/figure/theme.h"

namespace ws::ui {

// ---- small shared widgets ----------------------------------------------------------------

std::string fmt_count(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  s.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) s.push_back(',');
    s.push_back(digits[i]);
  }
  return s;
}

std::string fmt_compact(uint64_t n) {
  char b[32];
  if (n < 10000) return std::to_string(n);
  if (n < 1000000) std::snprintf(b, sizeof b, "%.1fk", double(n) / 1e3);
  else if (n < 1000000000) std::snprintf(b, sizeof b, "%.1fM", double(n) / 1e6);
  else std::snprintf(b, sizeof b, "%.1fG", double(n) / 1e9);
  return b;
}

std::string fmt_bytes(uint64_t n) {
  char b[32];
  if (n < 1024)
    std::snprintf(b, sizeof b, "%llu B", (unsigned long long)n);
  else if (n < (1u << 20))
    std::snprintf(b, sizeof b, "%.1f KiB", double(n) / 1024);
  else if (n < (1ull << 30))
    std::snprintf(b, sizeof b, "%.1f MiB", double(n) / (1 << 20));
  else
    std::snprintf(b, sizeof b, "%.2f GiB", double(n) / (1ull << 30));
  return b;
}


}  // namespace ws::ui
