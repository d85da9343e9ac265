// kernels/catalog.cpp — the registry's lists, parameter checks, array filling and output
// comparison (catalog.h).
#include "catalog.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>

#include "all.h"
#include "contract.h"
#include "dispatch.h"

namespace ws::catalog {

int64_t Params::operator[](const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? 0 : it->second;
}

namespace {
// Lessons are written in the entries as indented paragraphs: line breaks and
// indentation become single spaces.
std::string fold_whitespace(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      out += c;
      space = false;
    }
  }
  return out;
}
}  // namespace

const std::vector<KernelInfo>& all() {
  static const std::vector<KernelInfo> list = [] {
    std::vector<KernelInfo> v;
#define WS_INFO(id) v.push_back(kernels::id::info());
    WS_CATALOG(WS_INFO)
#undef WS_INFO
    for (auto& k : v) k.lesson = fold_whitespace(k.lesson);
    return v;
  }();
  return list;
}

const KernelInfo* find(const std::string& id) {
  for (const auto& k : all())
    if (k.id == id) return &k;
  return nullptr;
}

std::string ids() {
  std::string s;
  for (const auto& k : all()) s += (s.empty() ? "" : ", ") + k.id;
  return s;
}

namespace {
std::string allowed_text(const ParamSpec& p) {
  if (p.allowed.empty()) return std::to_string(p.min) + ".." + std::to_string(p.max);
  std::string s;
  for (int64_t v : p.allowed) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return s;
}
}  // namespace

std::string check_size(const KernelInfo& k, int64_t size) {
  if (size >= k.size_min && size <= k.size_max) return "";
  return "size " + std::to_string(size) + " is out of range for " + k.id + ": allowed " + std::to_string(k.size_min) +
         ".." + std::to_string(k.size_max);
}

std::string resolve(const KernelInfo& k, int64_t size, const std::map<std::string, int64_t>& set,
                    Params& out) {
  out.values.clear();
  if (size == 0) size = k.teach_size;
  if (std::string e = check_size(k, size); !e.empty()) return e;
  out.values["size"] = size;
  for (const auto& p : k.params) out.values[p.name] = p.def;
  for (const auto& kv : set) {
    const std::string& name = kv.first;  // not a structured binding: clang 14 cannot capture one
    const int64_t value = kv.second;
    auto it = std::find_if(k.params.begin(), k.params.end(), [&](const ParamSpec& p) { return p.name == name; });
    if (it == k.params.end()) {
      std::string names;
      for (const auto& p : k.params) names += (names.empty() ? "" : ", ") + p.name;
      return "unknown parameter '" + name + "' for " + k.id + ": allowed " + (names.empty() ? "none" : names);
    }
    bool ok = it->allowed.empty() ? (value >= it->min && value <= it->max)
                                  : std::find(it->allowed.begin(), it->allowed.end(), value) != it->allowed.end();
    if (!ok)
      return "parameter " + name + "=" + std::to_string(value) + " is not allowed for " + k.id + ": allowed " +
             allowed_text(*it);
    out.values[name] = value;
  }
  if (k.check) return k.check(out);
  return "";
}

std::map<std::string, int64_t> setting_values(const SourceRef& s, int64_t& size) {
  std::map<std::string, int64_t> out;
  size = 0;
  std::istringstream in(s.setting);
  std::string word, arg;
  while (in >> word) {
    if (!(in >> arg)) break;
    if (word == "--size") {
      size = std::stoll(arg);
    } else if (word == "--set") {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) out[arg.substr(0, eq)] = std::stoll(arg.substr(eq + 1));
    }
  }
  return out;
}

bool reproduces(const SourceRef& s, const Params& p) {
  int64_t size = 0;
  for (const auto& [name, v] : setting_values(s, size))
    if (p[name] != v) return false;
  return size == 0 || size == p.size();
}

const SourceRef* reproduced(const KernelInfo& k, const Params& p) {
  for (const auto& s : k.sources)
    if (reproduces(s, p)) return &s;
  return nullptr;
}

HostArrays make_arrays(const KernelInfo& k, const Params& p, uint32_t seed) {
  HostArrays a;
  uint64_t state = 0x9e3779b97f4a7c15ull ^ seed;
  for (const auto& b : k.buffers(p)) {
    std::vector<float> v(b.elements());
    if (is_input(b.role)) {
      for (auto& x : v) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        x = float(int((state >> 33) % 2001) - 1000) / 1000.0f;  // in [-1, 1], exact in float
      }
      // A half array holds what its 16 bits can: the host's copy is that value exactly.
      if (b.elem_bytes == 2)
        for (auto& x : v) x = half_value(half_bits(x));
    } else {
      std::fill(v.begin(), v.end(), std::numeric_limits<float>::quiet_NaN());
    }
    a.push_back(std::move(v));
  }
  return a;
}

namespace {
// A launcher that only notes the grid an entry's run() asks for: no arrays, no kernel.
struct ShapeLauncher {
  std::array<uint32_t, 3> grid{0, 0, 0};
  uint32_t cluster = 1;
  template <class T>
  Buf<T> buf(int index) {
    return Buf<T>{nullptr, uint32_t(index)};
  }
  template <class T>
  Tma2D<T> tma(int index, int rows, int cols, int box_rows, int box_cols, int swizzle) {
    return Tma2D<T>{nullptr, buf<T>(index), rows, cols, box_rows, box_cols, swizzle};
  }
  template <class Op, class Args>
  void launch(dim3 g, dim3, uint32_t, const Args&) {
    grid = {g.x, g.y, g.z};
    cluster = cluster_size<Op>();
  }
};
}  // namespace

std::array<uint32_t, 3> launch_grid(const KernelInfo& k, const Params& p) {
  ShapeLauncher l;
  if (const auto run = find_run<ShapeLauncher>(k.id)) run(l, p);
  return l.grid;
}

uint32_t launch_cluster(const KernelInfo& k, const Params& p) {
  ShapeLauncher l;
  if (const auto run = find_run<ShapeLauncher>(k.id)) run(l, p);
  return l.cluster;
}

uint64_t launch_blocks(const KernelInfo& k, const Params& p) {
  const std::array<uint32_t, 3> g = launch_grid(k, p);
  return uint64_t(g[0]) * g[1] * g[2];
}

double max_rel_error(const KernelInfo& k, const Params& p, const HostArrays& got, const HostArrays& want) {
  auto specs = k.buffers(p);
  double worst = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!is_output(specs[i].role)) continue;
    if (got[i].size() != want[i].size()) return std::numeric_limits<double>::infinity();
    double scale = 0;
    for (float w : want[i]) scale = std::max(scale, std::fabs(double(w)));
    if (scale == 0) scale = 1;
    for (size_t j = 0; j < got[i].size(); ++j) {
      if (std::isnan(got[i][j]) && std::isnan(want[i][j])) continue;  // unwritten by both
      double d = std::fabs(double(got[i][j]) - double(want[i][j]));
      if (std::isnan(got[i][j]) != std::isnan(want[i][j]) || std::isnan(d)) return std::numeric_limits<double>::infinity();
      worst = std::max(worst, d / scale);
    }
  }
  return worst;
}

}  // namespace ws::catalog
