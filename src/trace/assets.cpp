#include "trace/assets.h"

#include <unistd.h>

#include <filesystem>

namespace ws::trace {

namespace fs = std::filesystem;

std::vector<std::string> asset_roots(const std::string& exe_dir, const std::string& source_assets) {
  std::vector<std::string> roots;
  if (!exe_dir.empty()) {
    const fs::path d(exe_dir);
    roots.push_back((d / "assets").lexically_normal().string());
    roots.push_back((d / ".." / "assets").lexically_normal().string());
    roots.push_back((d / ".." / "share" / "warpscope").lexically_normal().string());
  }
  if (!source_assets.empty()) roots.push_back(fs::path(source_assets).lexically_normal().string());
  return roots;
}

std::string exe_dir() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return fs::path(std::string(buf, size_t(n))).parent_path().string();
}

std::string find_asset_in(const std::vector<std::string>& roots, const std::string& rel) {
  std::error_code ec;
  for (const auto& r : roots) {
    const fs::path p = fs::path(r) / rel;
    if (fs::exists(p, ec)) return p.string();
  }
  return "";
}

namespace {
std::vector<std::string> roots_here() {
#ifdef WS_ASSETS_DIR
  const std::string source = WS_ASSETS_DIR;
#else
  const std::string source;
#endif
  return asset_roots(exe_dir(), source);
}
}  // namespace

std::string find_asset(const std::string& rel) { return find_asset_in(roots_here(), rel); }

std::string find_example(const std::string& file) {
  if (file.empty() || file.find('/') != std::string::npos) return "";
  std::vector<std::string> roots;
  for (const std::string& r : roots_here()) {
    roots.push_back((fs::path(r) / "examples").string());
    roots.push_back((fs::path(r) / ".." / "examples").lexically_normal().string());
  }
  return find_asset_in(roots, file);
}

}  // namespace ws::trace
