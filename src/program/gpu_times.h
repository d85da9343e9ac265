// src/program/gpu_times.h — the GPU tracer's timing mode and warpscope, both ways: what the
// parent tells the timer (each kernel's parameter layout, in WARPSCOPE_KERNEL_PARAMS) and
// the file the timer writes back (tools/gpu_tracer/timer.cpp writes it, program/timing.h
// reads it). Plain C++17 with no CUDA: the tracer is built apart from warpscope and
// includes it as it is.
//
// The file: the line "warpscope-gpu-times 1", then one tab-separated line per launch:
//   launch  INDEX  GX GY GZ  BX BY BZ  SHARED  RUNS  MEDIAN_NS MIN_NS MAX_NS  SAVED_BYTES
//           RESTORED(1|0)  PARAMS(size:hex,... or -)  NAME
// RUNS 0: not timed (past the per-kernel limit), the other figures 0.
#pragma once
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ws::gpu_times {

// The file's first line (without its newline).
inline constexpr char kHeader[] = "warpscope-gpu-times 1";

// One launch as the timer writes it.
struct Line {
  uint64_t index = 0;                       // the program's launches, from 0
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint32_t shared = 0;                      // dynamic shared bytes
  uint32_t runs = 0;                        // 0: not timed
  uint64_t median_ns = 0, min_ns = 0, max_ns = 0;
  uint64_t saved_bytes = 0;                 // buffers saved and restored before each run
  bool restored = true;                     // false: a buffer could not be copied
  std::vector<std::vector<uint8_t>> params;  // each argument's bytes; none: not known
  std::string kernel;                       // as the driver names it (mangled)
};

// `line` as the file holds it, its newline included.
inline std::string format(const Line& l) {
  auto u = [](uint64_t v) { return std::to_string(v); };
  std::string s = "launch\t" + u(l.index) + "\t" + u(l.grid[0]) + " " + u(l.grid[1]) + " " + u(l.grid[2]) + "\t" +
                  u(l.block[0]) + " " + u(l.block[1]) + " " + u(l.block[2]) + "\t" + u(l.shared) + "\t" + u(l.runs) +
                  "\t" + u(l.median_ns) + " " + u(l.min_ns) + " " + u(l.max_ns) + "\t" + u(l.saved_bytes) + "\t" +
                  (l.restored ? "1" : "0") + "\t";
  static const char hex[] = "0123456789abcdef";
  for (size_t i = 0; i < l.params.size(); ++i) {
    s += (i ? "," : "") + u(l.params[i].size()) + ":";
    for (uint8_t b : l.params[i]) s += hex[b >> 4], s += hex[b & 15];
  }
  if (l.params.empty()) s += "-";
  return s + "\t" + l.kernel + "\n";
}

// `s` cut at every `sep` (empty fields kept): the file's fields, and the annotations'
// lists program/timing.cpp reads.
inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> v;
  std::string cur;
  for (char c : s) {
    if (c == sep) v.push_back(cur), cur.clear();
    else cur += c;
  }
  v.push_back(cur);
  return v;
}

namespace detail {

// The PARAMS field into `out`; "" or why it is not one.
inline std::string parse_params(const std::string& field, std::vector<std::vector<uint8_t>>& out) {
  if (field == "-") return "";
  for (const std::string& p : split(field, ',')) {
    const size_t colon = p.find(':');
    if (colon == std::string::npos) return "bad argument bytes";
    const std::string hex = p.substr(colon + 1);
    if (hex.size() % 2 || hex.size() / 2 != std::strtoull(p.substr(0, colon).c_str(), nullptr, 10))
      return "argument size and bytes disagree";
    std::vector<uint8_t> bytes;
    for (size_t k = 0; k < hex.size(); k += 2) {
      if (!std::isxdigit(static_cast<unsigned char>(hex[k])) || !std::isxdigit(static_cast<unsigned char>(hex[k + 1])))
        return "bad argument bytes";
      bytes.push_back(uint8_t(std::stoul(hex.substr(k, 2), nullptr, 16)));
    }
    out.push_back(std::move(bytes));
  }
  return "";
}
}  // namespace detail

// One line of the file (without its newline) into `l` (all of it replaced); "" or why it
// is not one.
inline std::string parse(const std::string& text, Line& l) {
  l = Line();
  const std::vector<std::string> f = split(text, '\t');
  if (f.size() != 11 || f[0] != "launch") return "expected 11 tab-separated fields, the first 'launch'";
  try {
    l.index = std::stoull(f[1]);
    std::istringstream g(f[2] + " " + f[3]);
    if (!(g >> l.grid[0] >> l.grid[1] >> l.grid[2] >> l.block[0] >> l.block[1] >> l.block[2])) return "bad grid or block";
    l.shared = uint32_t(std::stoul(f[4]));
    l.runs = uint32_t(std::stoul(f[5]));
    std::istringstream t(f[6]);
    unsigned long long med = 0, lo = 0, hi = 0;
    if (!(t >> med >> lo >> hi)) return "bad times";
    l.median_ns = med, l.min_ns = lo, l.max_ns = hi;
    l.saved_bytes = std::stoull(f[7]);
    l.restored = f[8] == "1";
  } catch (const std::exception&) {
    return "a number expected";
  }
  if (std::string why = detail::parse_params(f[9], l.params); !why.empty()) return why;
  l.kernel = f[10];
  return "";
}

// Each kernel's parameters as its PTX declares them: entry (mangled) → (bytes, alignment)
// in order. The timer lays the arguments out by them where cuFuncGetParamInfo fails (on
// the runtime's functions).
using ParamLayout = std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>>;

// `l` as WARPSCOPE_KERNEL_PARAMS holds it: "entry=8:8,4:4;entry2=...".
inline std::string format_layouts(const ParamLayout& l) {
  std::string s;
  for (const auto& [fn, params] : l) {
    s += (s.empty() ? "" : ";") + fn + "=";
    for (size_t i = 0; i < params.size(); ++i)
      s += (i ? "," : "") + std::to_string(params[i].first) + ":" + std::to_string(params[i].second);
  }
  return s;
}

// WARPSCOPE_KERNEL_PARAMS's text as layouts; items without '=' are skipped, a layout ends
// at its first pair that is not "size:alignment".
inline ParamLayout parse_layouts(const std::string& all) {
  ParamLayout out;
  for (size_t at = 0; at < all.size();) {
    size_t end = all.find(';', at);
    if (end == std::string::npos) end = all.size();
    const std::string item = all.substr(at, end - at);
    at = end + 1;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    auto& layout = out[item.substr(0, eq)];
    const char* p = item.c_str() + eq + 1;
    unsigned long size = 0, align = 0;
    int used = 0;
    while (std::sscanf(p, "%lu:%lu%n", &size, &align, &used) == 2) {
      layout.push_back({uint32_t(size), uint32_t(align)});
      p += used;
      if (*p == ',') ++p;
    }
  }
  return out;
}

}  // namespace ws::gpu_times
