// src/gpu/bench_format.h — bench results as text and JSON, and back from JSON (the replay
// pack). Header-only and free of CUDA, so builds without a GPU backend can show a replay.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

#include "gpu/gpu.h"

namespace ws::gpu {

inline nlohmann::json bench_to_json(const BenchResult& r) {
  using nlohmann::json;
  const DeviceInfo& d = r.device;
  json j;
  j["format"] = "warpscope-bench";
  j["format_version"] = 1;
  j["date"] = r.date;
  j["device"] = {{"name", d.name},
                 {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
                 {"sms", d.sms},
                 {"memory_bytes", d.memory_bytes},
                 {"l2_bytes", d.l2_bytes},
                 {"memory_bus_bits", d.memory_bus_bits},
                 {"max_sm_clock_mhz", d.max_sm_clock_mhz},
                 {"max_mem_clock_mhz", d.max_mem_clock_mhz},
                 {"sm_clock_mhz", d.sm_clock_mhz},
                 {"mem_clock_mhz", d.mem_clock_mhz},
                 {"driver_cuda", DeviceInfo::version_text(d.driver_version)},
                 {"runtime_cuda", DeviceInfo::version_text(d.runtime_version)}};
  j["cublas_sgemm"] = {{"size", r.cublas_size}, {"ms", r.cublas_ms}, {"gflops", r.cublas_gflops}};
  j["memcpy_d2d"] = {{"bytes", r.copy_bytes}, {"ms", r.copy_ms}, {"gbs", r.copy_gbs}};
  j["record_blocks"] = r.record_blocks;
  j["all_ok"] = r.all_ok;
  json rows = json::array();
  for (const auto& w : r.rows) {
    json x = {{"kernel", w.kernel},
              {"family", w.family},
              {"variant", w.variant},
              {"params", w.params},
              {"size", w.size},
              {"ok", w.ok},
              {"checked_against", w.checked_against},
              {"max_rel_error", w.max_rel_error}};
    if (!w.error.empty()) x["error"] = w.error;
    if (w.ok) {
      x["runs"] = w.runs;
      x["ms"] = w.ms;
      x["ms_min"] = w.ms_min;
      x["ms_max"] = w.ms_max;
      x["gflops"] = w.gflops;
      x["gbs"] = w.gbs;
      x["pct_cublas"] = w.pct_cublas;
      x["pct_copy"] = w.pct_copy;
      if (w.raw_ms > 0) x["zero_cost"] = {{"raw_ms", w.raw_ms}, {"ratio", w.raw_ratio}};
      if (w.record_ms > 0)
        x["overhead"] = {{"record_ms", w.record_ms}, {"record_ratio", w.record_ratio},
                         {"counts_ms", w.counts_ms}, {"counts_ratio", w.counts_ratio}};
    }
    rows.push_back(x);
  }
  j["rows"] = rows;
  return j;
}

inline std::string bench_json(const BenchResult& r) { return bench_to_json(r).dump(2) + "\n"; }

// Throws std::runtime_error (nlohmann's) on a malformed document.
inline BenchResult bench_from_json(const nlohmann::json& j) {
  BenchResult r;
  r.date = j.value("date", "");
  const auto& d = j.at("device");
  r.device.name = d.value("name", "");
  std::string cc = d.value("compute_capability", "0.0");
  std::sscanf(cc.c_str(), "%d.%d", &r.device.cc_major, &r.device.cc_minor);
  r.device.sms = d.value("sms", 0);
  r.device.memory_bytes = d.value("memory_bytes", uint64_t(0));
  r.device.l2_bytes = d.value("l2_bytes", uint64_t(0));
  r.device.memory_bus_bits = d.value("memory_bus_bits", 0);
  r.device.max_sm_clock_mhz = d.value("max_sm_clock_mhz", 0);
  r.device.max_mem_clock_mhz = d.value("max_mem_clock_mhz", 0);
  r.device.sm_clock_mhz = d.value("sm_clock_mhz", 0);
  r.device.mem_clock_mhz = d.value("mem_clock_mhz", 0);
  auto ver = [](const std::string& s) {
    int a = 0, b = 0;
    std::sscanf(s.c_str(), "%d.%d", &a, &b);
    return a * 1000 + b * 10;
  };
  r.device.driver_version = ver(d.value("driver_cuda", "0.0"));
  r.device.runtime_version = ver(d.value("runtime_cuda", "0.0"));
  if (j.contains("cublas_sgemm")) {
    const auto& c = j["cublas_sgemm"];
    r.cublas_size = c.value("size", int64_t(0));
    r.cublas_ms = c.value("ms", 0.0);
    r.cublas_gflops = c.value("gflops", 0.0);
  }
  if (j.contains("memcpy_d2d")) {
    const auto& c = j["memcpy_d2d"];
    r.copy_bytes = c.value("bytes", uint64_t(0));
    r.copy_ms = c.value("ms", 0.0);
    r.copy_gbs = c.value("gbs", 0.0);
  }
  r.record_blocks = j.value("record_blocks", "");
  r.all_ok = j.value("all_ok", false);
  for (const auto& x : j.at("rows")) {
    BenchRow w;
    w.kernel = x.value("kernel", "");
    w.family = x.value("family", "");
    w.variant = x.value("variant", "");
    if (x.contains("params")) w.params = x["params"].get<std::map<std::string, int64_t>>();
    w.size = x.value("size", int64_t(0));
    w.ok = x.value("ok", false);
    w.checked_against = x.value("checked_against", "");
    w.max_rel_error = x.value("max_rel_error", 0.0);
    w.error = x.value("error", "");
    w.runs = x.value("runs", 0);
    w.ms = x.value("ms", 0.0);
    w.ms_min = x.value("ms_min", 0.0);
    w.ms_max = x.value("ms_max", 0.0);
    w.gflops = x.value("gflops", 0.0);
    w.gbs = x.value("gbs", 0.0);
    w.pct_cublas = x.value("pct_cublas", 0.0);
    w.pct_copy = x.value("pct_copy", 0.0);
    if (x.contains("zero_cost")) {
      w.raw_ms = x["zero_cost"].value("raw_ms", 0.0);
      w.raw_ratio = x["zero_cost"].value("ratio", 0.0);
    }
    if (x.contains("overhead")) {
      const auto& o = x["overhead"];
      w.record_ms = o.value("record_ms", 0.0);
      w.record_ratio = o.value("record_ratio", 0.0);
      w.counts_ms = o.value("counts_ms", 0.0);
      w.counts_ratio = o.value("counts_ratio", 0.0);
    }
    r.rows.push_back(w);
  }
  return r;
}

namespace bench_detail {
inline std::string fmt(const char* f, double v) {
  char s[64];
  std::snprintf(s, sizeof s, f, v);
  return s;
}
inline std::string pad(std::string s, size_t w, bool right = false) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}
}  // namespace bench_detail

// The ladder tables: SGEMM, then transpose and copies, each row checked before shown.
inline std::string bench_text(const BenchResult& r) {
  using namespace bench_detail;
  const DeviceInfo& d = r.device;
  std::string o;
  o += "device: " + d.name + " (sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) + ", " +
       std::to_string(d.sms) + " SMs), driver CUDA " + DeviceInfo::version_text(d.driver_version) + ", runtime CUDA " +
       DeviceInfo::version_text(d.runtime_version) + "\n";
  o += "clocks: SM " + (d.sm_clock_mhz ? std::to_string(d.sm_clock_mhz) + " MHz now, " : std::string()) + "max " +
       std::to_string(d.max_sm_clock_mhz) + " MHz; memory " +
       (d.mem_clock_mhz ? std::to_string(d.mem_clock_mhz) + " MHz now, " : std::string()) + "max " +
       std::to_string(d.max_mem_clock_mhz) + " MHz\n";
  o += "date:   " + r.date + "\n";
  if (r.cublas_size)
    o += "cuBLAS SGEMM " + std::to_string(r.cublas_size) + "^3: " + fmt("%.3f", r.cublas_ms) + " ms, " +
         fmt("%.0f", r.cublas_gflops) + " GFLOP/s (FP32)\n";
  o += "cudaMemcpy D2D " + fmt("%.0f", double(r.copy_bytes / 2) / (1 << 20)) + " MiB: " + fmt("%.3f", r.copy_ms) +
       " ms, " + fmt("%.0f", r.copy_gbs) + " GB/s (read + write)\n";
  auto table = [&](bool sgemm) {
    std::string t;
    bool any = false;
    for (const auto& w : r.rows) {
      if ((w.family == "sgemm") != sgemm) continue;
      if (!any) {
        t += "\n" + pad("kernel", 34) + pad("size", 10, true) + pad("ms", 11, true) +
             (sgemm ? pad("GFLOP/s", 10, true) + pad("%cuBLAS", 9, true) : pad("GB/s", 10, true) + pad("%copy", 9, true)) +
             pad("raw", 8, true) + pad("rec", 7, true) + pad("counts", 8, true) + "  check\n";
        any = true;
      }
      std::string name = w.kernel + (w.variant.empty() ? "" : " " + w.variant);
      t += pad(name, 34) + pad(std::to_string(w.size), 10, true);
      if (!w.ok) {
        t += "  FAILED: " + (w.error.empty() ? std::string("result check") : w.error) + "\n";
        continue;
      }
      t += pad(fmt("%.3f", w.ms), 11, true);
      if (sgemm)
        t += pad(fmt("%.0f", w.gflops), 10, true) + pad(fmt("%.1f%%", w.pct_cublas), 9, true);
      else
        t += pad(fmt("%.0f", w.gbs), 10, true) + pad(fmt("%.1f%%", w.pct_copy), 9, true);
      t += pad(w.raw_ratio > 0 ? fmt("%.3f", w.raw_ratio) : std::string("-"), 8, true);
      t += pad(w.record_ratio > 0 ? fmt("%.2fx", w.record_ratio) : std::string("-"), 7, true);
      t += pad(w.counts_ratio > 0 ? fmt("%.2fx", w.counts_ratio) : std::string("-"), 8, true);
      t += "  " + (w.checked_against == "cuBLAS" ? fmt("%.1e vs cuBLAS", w.max_rel_error) : std::string("exact vs CPU")) +
           (w.error.empty() ? "" : "  (" + w.error + ")") + "\n";
    }
    return t;
  };
  o += table(true);
  o += table(false);
  o += "\nraw: plain / hand-written raw-pointer kernel, median times; rec: record mode (blocks " + r.record_blocks +
       ") / plain; counts: counts mode (whole grid) / plain\n";
  o += r.all_ok ? "all results checked\n" : "SOME ROWS FAILED: a result check (no figures shown) or an instrumented timing (noted on the row)\n";
  return o;
}

}  // namespace ws::gpu
