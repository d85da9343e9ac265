#include "trace/bench.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ws::trace {
namespace {

using json = nlohmann::json;

json as_json(const BenchResult& r) {
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
  if (r.hgemm_size) j["cublas_hgemm"] = {{"size", r.hgemm_size}, {"ms", r.hgemm_ms}, {"gflops", r.hgemm_gflops}};
  j["memcpy_d2d"] = {{"bytes", r.copy_bytes}, {"ms", r.copy_ms}, {"gbs", r.copy_gbs}};
  j["record_blocks"] = r.record_blocks;
  j["all_ok"] = r.all_ok;
  json rows = json::array();
  for (const auto& w : r.rows) {
    json x = {{"kernel", w.kernel},
              {"family", w.family},
              {"yardstick", w.vs_cublas ? (w.vs_hgemm ? "cuBLAS HGEMM" : "cuBLAS") : "device copy"},
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
      if (w.yardstick_ms > 0) x["yardstick_ms"] = w.yardstick_ms;
      x["pct_copy"] = w.pct_copy;
      if (w.raw_ms > 0) x["zero_cost"] = {{"raw_ms", w.raw_ms}, {"ratio", w.raw_ratio}};
      if (w.published_ms > 0)
        x["published"] = {{"kernel", w.published}, {"ms", w.published_ms}, {"ratio", w.published_ratio},
                          {"max_rel_error", w.published_error}};
      if (w.record_ms > 0)
        x["overhead"] = {{"record_ms", w.record_ms}, {"record_ratio", w.record_ratio},
                         {"counts_ms", w.counts_ms}, {"counts_ratio", w.counts_ratio}};
      if (w.counters_ms > 0)
        x["counters"] = {{"ms", w.counters_ms}, {"ratio", w.counters_ratio}, {"passes", w.counters_passes}};
    }
    if (!w.note.empty()) x["note"] = w.note;
    if (!w.history.empty()) x["history"] = w.history;
    rows.push_back(x);
  }
  j["rows"] = rows;
  return j;
}

std::string fmt(const char* f, double v) {
  char s[64];
  std::snprintf(s, sizeof s, f, v);
  return s;
}
std::string pad(std::string s, size_t w, bool right = false) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

// ---- reading: each field under its name or one of the names older packs gave it ----------

const json* first_of(const json& o, std::initializer_list<const char*> keys) {
  if (!o.is_object()) return nullptr;
  for (const char* k : keys) {
    auto it = o.find(k);
    if (it != o.end() && !it->is_null()) return &*it;
  }
  return nullptr;
}

double number(const json& o, std::initializer_list<const char*> keys, double def) {
  const json* v = first_of(o, keys);
  return v && v->is_number() ? v->get<double>() : def;
}

int64_t whole(const json& o, std::initializer_list<const char*> keys, int64_t def) {
  const json* v = first_of(o, keys);
  if (!v || !v->is_number()) return def;
  if (v->is_number_integer()) return v->get<int64_t>();
  const double d = v->get<double>();
  return d > -9.2e18 && d < 9.2e18 ? int64_t(d) : def;  // NaN and values past int64 alike
}

// A string, or the name of an object ({"name": ...}).
std::string text(const json& o, std::initializer_list<const char*> keys) {
  const json* v = first_of(o, keys);
  if (!v) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_object()) {
    const json* n = first_of(*v, {"name", "device", "id"});
    if (n && n->is_string()) return n->get<std::string>();
  }
  return "";
}

// "13.0" -> 13000, as cudaDriverGetVersion gives it.
int version(const std::string& s) {
  int a = 0, b = 0;
  std::sscanf(s.c_str(), "%d.%d", &a, &b);
  if (a < 0 || a > 999 || b < 0 || b > 99) return 0;  // no CUDA version: unknown, not an overflow
  return a * 1000 + b * 10;
}

void read_device(const json& j, DeviceInfo& d) {
  d.name = text(j, {"device", "gpu", "device_name"});
  const json* o = first_of(j, {"device"});
  if (!o || !o->is_object()) return;
  std::sscanf(text(*o, {"compute_capability"}).c_str(), "%d.%d", &d.cc_major, &d.cc_minor);
  d.sms = int(whole(*o, {"sms"}, 0));
  d.memory_bytes = uint64_t(whole(*o, {"memory_bytes"}, 0));
  d.l2_bytes = uint64_t(whole(*o, {"l2_bytes"}, 0));
  d.memory_bus_bits = int(whole(*o, {"memory_bus_bits"}, 0));
  d.max_sm_clock_mhz = int(whole(*o, {"max_sm_clock_mhz"}, 0));
  d.max_mem_clock_mhz = int(whole(*o, {"max_mem_clock_mhz"}, 0));
  d.sm_clock_mhz = int(whole(*o, {"sm_clock_mhz"}, 0));
  d.mem_clock_mhz = int(whole(*o, {"mem_clock_mhz"}, 0));
  d.driver_version = version(text(*o, {"driver_cuda"}));
  d.runtime_version = version(text(*o, {"runtime_cuda"}));
}

BenchRow read_row(const json& e) {
  BenchRow w;
  w.kernel = text(e, {"kernel", "id", "name"});
  w.family = text(e, {"family"});
  w.variant = text(e, {"variant"});
  if (const json* p = first_of(e, {"params", "parameters", "set"}); p && p->is_object())
    for (auto it = p->begin(); it != p->end(); ++it)
      if (it.value().is_number_integer()) w.params[it.key()] = it.value().get<int64_t>();
  if (const json* n = first_of(e, {"size", "n"}); n && n->is_number_integer() && n->get<int64_t>() > 0) {
    w.size = n->get<int64_t>();
    w.params["size"] = w.size;
  }
  const json* ok = first_of(e, {"ok"});
  w.ok = !ok || !ok->is_boolean() || ok->get<bool>();
  w.checked_against = text(e, {"checked_against"});
  w.max_rel_error = number(e, {"max_rel_error"}, 0);
  w.error = text(e, {"error"});
  w.note = text(e, {"note"});
  w.runs = int(whole(e, {"runs"}, 0));
  w.ms = number(e, {"ms", "time_ms", "median_ms", "mean_ms", "msec"}, 0);
  w.ms_min = number(e, {"ms_min"}, 0);
  w.ms_max = number(e, {"ms_max"}, 0);
  w.gflops = number(e, {"gflops", "GFLOPS", "gflop_s", "gflops_per_s"}, 0);
  w.gbs = number(e, {"gbs", "gbps", "GBps", "gb_s", "gb_per_s", "bandwidth_gbps"}, 0);
  // Both references may be present, the one that does not apply as 0.
  w.pct_cublas = number(e, {"pct_cublas", "pct_of_cublas", "percent_of_cublas"}, 0);
  w.pct_copy = number(e, {"pct_copy", "pct_of_copy", "percent_of_copy"}, 0);
  w.yardstick_ms = number(e, {"yardstick_ms"}, 0);
  if (w.pct_cublas > 0) {
    w.pct_ref = w.pct_cublas;
    w.ref = "cuBLAS";
  } else if (w.pct_copy > 0) {
    w.pct_ref = w.pct_copy;
    w.ref = "device copy";
  } else {
    w.pct_ref = number(e, {"pct_of_ref", "percent_of_ref", "pct", "percent"}, -1);
  }
  if (std::string ref = text(e, {"ref", "reference", "ref_name"}); !ref.empty()) w.ref = ref;
  // Packs written before rows named their yardstick: the figures say which it was.
  const std::string yardstick = text(e, {"yardstick"});
  w.vs_cublas = !yardstick.empty() ? yardstick.rfind("cuBLAS", 0) == 0 : w.pct_cublas > 0 || (w.gflops > 0 && w.gbs <= 0);
  w.vs_hgemm = yardstick == "cuBLAS HGEMM";
  if (w.vs_hgemm && w.ref == "cuBLAS") w.ref = "cuBLAS HGEMM";
  if (const json* z = first_of(e, {"zero_cost"})) {
    w.raw_ms = number(*z, {"raw_ms"}, 0);
    w.raw_ratio = number(*z, {"ratio"}, 0);
  }
  if (const json* q = first_of(e, {"published"})) {
    w.published = text(*q, {"kernel", "name"});
    w.published_ms = number(*q, {"ms"}, 0);
    w.published_ratio = number(*q, {"ratio"}, 0);
    w.published_error = number(*q, {"max_rel_error"}, 0);
  }
  if (const json* o = first_of(e, {"overhead"})) {
    w.record_ms = number(*o, {"record_ms"}, 0);
    w.record_ratio = number(*o, {"record_ratio"}, 0);
    w.counts_ms = number(*o, {"counts_ms"}, 0);
    w.counts_ratio = number(*o, {"counts_ratio"}, 0);
  }
  if (const json* c = first_of(e, {"counters"})) {
    w.counters_ms = number(*c, {"ms"}, 0);
    w.counters_ratio = number(*c, {"ratio"}, 0);
    w.counters_passes = int(number(*c, {"passes"}, 0));
  }
  if (const json* h = first_of(e, {"history", "runs_ms", "samples_ms"}); h && h->is_array())
    for (const auto& x : *h)
      if (x.is_number()) w.history.push_back(x.get<double>());
  return w;
}

}  // namespace

std::string bench_json(const BenchResult& r) { return as_json(r).dump(2) + "\n"; }

std::string bench_text(const BenchResult& r) {
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
  if (r.hgemm_size)
    o += "cuBLAS HGEMM " + std::to_string(r.hgemm_size) + "^3: " + fmt("%.3f", r.hgemm_ms) + " ms, " +
         fmt("%.0f", r.hgemm_gflops) + " GFLOP/s (f16 in, f32 accumulate)\n";
  o += "cudaMemcpy D2D " + fmt("%.0f", double(r.copy_bytes / 2) / (1 << 20)) + " MiB: " + fmt("%.3f", r.copy_ms) +
       " ms, " + fmt("%.0f", r.copy_gbs) + " GB/s (read + write)\n";
  // One table per yardstick: SGEMM rows, HGEMM rows (% of cuBLAS HGEMM), the rest.
  auto table = [&](bool sgemm, bool hgemm) {
    std::string t;
    bool any = false;
    for (const auto& w : r.rows) {
      if (w.vs_cublas != sgemm || (sgemm && w.vs_hgemm != hgemm)) continue;
      if (!any) {
        t += "\n" + pad("kernel", 34) + pad("size", 10, true) + pad("ms", 11, true) +
             (sgemm ? pad("GFLOP/s", 10, true) + pad(hgemm ? "%HGEMM" : "%cuBLAS", 9, true)
                    : pad("GB/s", 10, true) + pad("%copy", 9, true)) +
             pad("raw", 8, true) + pad("rec", 9, true) + pad("counts", 9, true) + pad("hw", 9, true) + "  check\n";
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
      t += pad(w.record_ratio > 0 ? fmt("%.2fx", w.record_ratio) : std::string("-"), 9, true);
      t += pad(w.counts_ratio > 0 ? fmt("%.2fx", w.counts_ratio) : std::string("-"), 9, true);
      t += pad(w.counters_ratio > 0 ? fmt("%.2fx", w.counters_ratio) : std::string("-"), 9, true);
      t += "  " + (w.checked_against.rfind("cuBLAS", 0) == 0 ? fmt("%.1e vs cuBLAS", w.max_rel_error) : std::string("exact vs CPU")) +
           (w.error.empty() ? "" : "  (" + w.error + ")") + (w.note.empty() ? "" : "  (" + w.note + ")") + "\n";
    }
    return t;
  };
  o += table(true, false);
  o += table(true, true);
  o += table(false, false);
  std::string pub;
  for (const auto& w : r.rows) {
    if (!w.ok || w.published_ms <= 0) continue;
    pub += pad(w.kernel + (w.variant.empty() ? "" : " " + w.variant), 22) + pad(std::to_string(w.size), 6, true) +
           pad(fmt("%.3f", w.ms), 9, true) + pad(fmt("%.3f", w.published_ms), 9, true) +
           pad(fmt("%.3f", w.published_ratio), 8, true) +
           // their figure: ours times the ratio of the medians (entry / published)
           pad(fmt("%.1f%%", (w.vs_cublas ? w.pct_cublas : w.pct_copy) * w.published_ratio), 9, true) +
           "  " + w.published + "\n";
  }
  if (!pub.empty())
    o += "\npublished kernels, timed in the same rounds as the entries that reproduce them\n" + pad("entry", 22) +
         pad("size", 6, true) + pad("ms", 9, true) + pad("theirs", 9, true) + pad("ratio", 8, true) +
         pad("theirs %", 9, true) + "  source's own kernel\n" + pub +
         "ratio: entry / published kernel, median times (1.000: the same speed); theirs %: of cuBLAS or of the copy\n";
  const bool beside = std::any_of(r.rows.begin(), r.rows.end(), [](const BenchRow& w) { return w.yardstick_ms > 0; });
  o += std::string(beside ? "\n%cuBLAS, %HGEMM: of cuBLAS on the row's own arrays, timed in the same rounds as the row" : "") +
       "\nraw: plain / hand-written raw-pointer kernel, median times; rec: record mode (blocks " + r.record_blocks +
       ") / plain; counts: counts mode (whole grid) / plain\n";
  o += r.all_ok ? "all results checked\n" : "SOME ROWS FAILED: a result check (no figures shown) or an instrumented timing (noted on the row)\n";
  return o;
}

std::string program_times_text(const BenchResult& r) {
  std::string o = "time on the GPU (" + (r.device.name.empty() ? std::string("?") : r.device.name) +
                  "), each launch alone, nothing patched: median of its runs, its buffers restored before each run\n";
  bool any_work = false;
  for (const auto& w : r.rows) {
    const size_t shape = w.variant.find(" <<<");
    const std::string launch = shape == std::string::npos ? w.variant : w.variant.substr(0, shape);
    o += "  " + pad(launch, 10) + w.kernel + (shape == std::string::npos ? "" : w.variant.substr(shape + 1)) + "\n";
    if (!w.ok) {
      o += "      " + w.error + "\n";
      continue;
    }
    o += "      " + fmt("%.4g", w.ms) + " ms (" + fmt("%.4g", w.ms_min) + " to " + fmt("%.4g", w.ms_max) + ", " +
         std::to_string(w.runs) + " runs)";
    if (w.gflops > 0) {
      o += "   " + fmt("%.0f", w.gflops) + " GFLOP/s";
      if (w.pct_cublas > 0) o += " = " + fmt("%.1f", w.pct_cublas) + "% of cuBLAS";
    }
    if (w.gbs > 0) {
      o += "   " + fmt("%.0f", w.gbs) + " GB/s";
      if (w.pct_copy > 0) o += " = " + fmt("%.1f", w.pct_copy) + "% of a device copy";
    }
    any_work = any_work || w.gflops > 0 || w.gbs > 0;
    o += "\n";
    if (!w.note.empty()) o += "      " + w.note + "\n";
    if (w.record_ms > 0)
      o += "      traced at the SASS level (blocks " + r.record_blocks + " recorded): " + fmt("%.4g", w.record_ms) + " ms, " +
           fmt("%.0f", w.record_ratio) + "x the plain run\n";
  }
  if (r.cublas_size)
    o += "  cuBLAS SGEMM " + std::to_string(r.cublas_size) + "^3 (the same flops), same run: " + fmt("%.4g", r.cublas_ms) +
         " ms, " + fmt("%.0f", r.cublas_gflops) + " GFLOP/s (FP32)\n";
  if (r.copy_bytes) {
    const double each = double(r.copy_bytes / 2);
    o += "  cudaMemcpy device to device, " +
         (each < (1 << 20) ? fmt("%.3g", each / 1024) + " KiB" : fmt("%.3g", each / (1 << 20)) + " MiB") +
         " (the same bytes), same run: " + fmt("%.4g", r.copy_ms) + " ms, " + fmt("%.0f", r.copy_gbs) + " GB/s\n";
  }
  // A launch of a few microseconds is mostly the launch itself, for the yardsticks too.
  bool tiny = false;
  for (const auto& w : r.rows) tiny = tiny || (w.ok && w.ms > 0 && w.ms < 0.02 && (w.pct_cublas > 0 || w.pct_copy > 0));
  if (tiny)
    o += "  (launches this short are mostly launch overhead, cuBLAS's and the copy's too: the percentages mean little; "
         "run a larger size)\n";
  if (!any_work)
    o += "  GFLOP/s and % of cuBLAS: say a launch's work above its kernel, `// warpscope: flops = 2*N*N*N; bytes = "
         "12*N*N` (its scalar parameters by name), or --flops / --bytes\n";
  return o;
}

bool read_bench(const std::string& body, BenchResult& out, std::string& error) {
  out = BenchResult{};
  const json j = json::parse(body, nullptr, false);
  if (j.is_discarded()) {
    error = "not JSON";
    return false;
  }
  const json* list = j.is_array() ? &j : first_of(j, {"rows", "results", "timings", "kernels", "entries"});
  if (!list || !list->is_array()) {
    error = "no \"rows\" array";
    return false;
  }
  read_device(j, out.device);
  out.date = text(j, {"date", "recorded", "timestamp", "time"});
  if (const json* c = first_of(j, {"cublas_sgemm"})) {
    out.cublas_size = whole(*c, {"size"}, 0);
    out.cublas_ms = number(*c, {"ms"}, 0);
    out.cublas_gflops = number(*c, {"gflops"}, 0);
  }
  if (const json* c = first_of(j, {"cublas_hgemm"})) {
    out.hgemm_size = whole(*c, {"size"}, 0);
    out.hgemm_ms = number(*c, {"ms"}, 0);
    out.hgemm_gflops = number(*c, {"gflops"}, 0);
  }
  if (const json* c = first_of(j, {"memcpy_d2d"})) {
    out.copy_bytes = uint64_t(whole(*c, {"bytes"}, 0));
    out.copy_ms = number(*c, {"ms"}, 0);
    out.copy_gbs = number(*c, {"gbs", "gbps"}, 0);
  }
  out.record_blocks = text(j, {"record_blocks"});
  bool all_ok = true;
  for (const auto& e : *list) {
    if (!e.is_object()) continue;
    // A pack that says which device and when on its rows only.
    if (out.device.name.empty()) out.device.name = text(e, {"device", "gpu"});
    if (out.date.empty()) out.date = text(e, {"date"});
    out.rows.push_back(read_row(e));
    all_ok &= out.rows.back().ok;
  }
  const json* ok = first_of(j, {"all_ok"});
  out.all_ok = ok && ok->is_boolean() ? ok->get<bool>() : all_ok;
  return true;
}

bool read_bench_file(const std::string& path, BenchResult& out, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error = "cannot read it", false;
  std::stringstream text;
  text << in.rdbuf();
  return read_bench(text.str(), out, error);
}

std::vector<ReplayFile> read_replay_dir(const std::string& dir, std::string& message) {
  namespace fs = std::filesystem;
  std::vector<ReplayFile> out;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return out;
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    // sass/ holds SASS traces and their index (programs.json), not timings.
    if (it->is_directory(ec) && it->path().filename() == "sass") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && it->path().extension() == ".json") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    ReplayFile r{f.string(), {}};
    std::string err;
    if (!read_bench_file(r.path, r.result, err)) {
      message += (message.empty() ? "" : "; ") + f.filename().string() + ": " + err;
      continue;
    }
    out.push_back(std::move(r));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ReplayFile& a, const ReplayFile& b) { return a.result.date > b.result.date; });
  return out;
}

}  // namespace ws::trace
