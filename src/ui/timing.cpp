#include "ui/timing.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ws::ui {
namespace {

using json = nlohmann::json;

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

bool parse_sample(const json& e, TimingSample& s) {
  if (!e.is_object()) return false;
  s.kernel = text(e, {"kernel", "id", "name"});
  if (s.kernel.empty()) return false;
  if (const json* p = first_of(e, {"params", "parameters", "set"}); p && p->is_object())
    for (auto it = p->begin(); it != p->end(); ++it)
      if (it.value().is_number_integer()) s.params[it.key()] = it.value().get<int64_t>();
  if (const json* n = first_of(e, {"size", "n"}); n && n->is_number_integer()) s.params["size"] = n->get<int64_t>();
  if (e.contains("ok") && e["ok"].is_boolean() && !e["ok"].get<bool>()) return false;  // failed its check
  s.ms = number(e, {"ms", "time_ms", "median_ms", "mean_ms", "msec"}, 0);
  s.ms_min = number(e, {"ms_min"}, 0);
  s.ms_max = number(e, {"ms_max"}, 0);
  s.runs = int(number(e, {"runs"}, 0));
  s.gflops = number(e, {"gflops", "GFLOPS", "gflop_s", "gflops_per_s"}, 0);
  s.gbps = number(e, {"gbs", "gbps", "GBps", "gb_s", "gb_per_s", "bandwidth_gbps"}, 0);
  s.variant = text(e, {"variant"});
  s.note = text(e, {"note"});
  // Both references may be present, the one that does not apply as 0.
  const double cublas = number(e, {"pct_cublas", "pct_of_cublas", "percent_of_cublas"}, 0);
  const double copy = number(e, {"pct_copy", "pct_of_copy", "percent_of_copy"}, 0);
  if (cublas > 0) {
    s.pct_ref = cublas;
    s.ref = "cuBLAS";
  } else if (copy > 0) {
    s.pct_ref = copy;
    s.ref = "device copy";
  } else {
    s.pct_ref = number(e, {"pct_of_ref", "percent_of_ref", "pct", "percent"}, -1);
  }
  std::string ref = text(e, {"ref", "reference", "ref_name"});
  if (!ref.empty()) s.ref = ref;
  if (const json* h = first_of(e, {"history", "runs_ms", "samples_ms"}); h && h->is_array())
    for (const auto& x : *h)
      if (x.is_number()) s.history.push_back(x.get<double>());
  return s.ms > 0 || s.gbps > 0 || s.gflops > 0;
}

}  // namespace

bool parse_bench_json(const std::string& body, TimingTable& out, std::string& error) {
  out = TimingTable{};
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded()) {
    error = "not JSON";
    return false;
  }
  const json* list = j.is_array() ? &j : first_of(j, {"rows", "results", "timings", "kernels", "entries"});
  if (!list || !list->is_array()) {
    error = "no \"rows\" array";
    return false;
  }
  out.device = text(j, {"device", "gpu", "device_name"});
  out.date = text(j, {"date", "recorded", "timestamp", "time"});
  if (const json* c = first_of(j, {"cublas_sgemm"}); c && c->is_object()) out.cublas_gflops = number(*c, {"gflops"}, 0);
  if (const json* c = first_of(j, {"memcpy_d2d"}); c && c->is_object()) out.copy_gbs = number(*c, {"gbs", "gbps"}, 0);
  for (const auto& e : *list) {
    TimingSample s;
    if (!parse_sample(e, s)) continue;
    if (out.device.empty()) out.device = text(e, {"device", "gpu"});
    if (out.date.empty()) out.date = text(e, {"date"});
    out.samples.push_back(std::move(s));
  }
  if (out.samples.empty()) {
    error = "no timings in it";
    return false;
  }
  return true;
}

std::vector<TimingTable> load_replay_pack(const std::string& dir, std::string& message) {
  namespace fs = std::filesystem;
  std::vector<TimingTable> tables;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return tables;
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec) && it->path().extension() == ".json") files.push_back(it->path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    TimingTable t;
    std::string err;
    if (!parse_bench_json(ss.str(), t, err)) {
      message += (message.empty() ? "" : "; ") + f.filename().string() + ": " + err;
      continue;
    }
    t.origin = "replay";
    t.file = f.string();
    tables.push_back(std::move(t));
  }
  // Newest first, so find() prefers the latest recording.
  std::stable_sort(tables.begin(), tables.end(), [](const TimingTable& a, const TimingTable& b) { return a.date > b.date; });
  return tables;
}

LiveTimer::LiveTimer(LiveBench bench) : bench_(std::move(bench)) {
  if (bench_) thread_ = std::thread([this] { loop(); });
}

LiveTimer::~LiveTimer() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LiveTimer::request(std::vector<std::string> kernels, std::map<std::string, int64_t> params) {
  if (!bench_) return;
  {
    std::lock_guard<std::mutex> lk(mu_);
    pending_ = Pending{std::move(kernels), std::move(params)};
  }
  cv_.notify_all();
}

bool LiveTimer::busy() const {
  std::lock_guard<std::mutex> lk(mu_);
  return running_ || pending_.has_value();
}

std::optional<TimingTable> LiveTimer::take(std::string& error) {
  std::lock_guard<std::mutex> lk(mu_);
  error = std::move(error_);
  error_.clear();
  auto t = std::move(done_);
  done_.reset();
  return t;
}

void LiveTimer::loop() {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    cv_.wait(lk, [this] { return stop_ || pending_.has_value(); });
    if (stop_) return;
    Pending job = std::move(*pending_);
    pending_.reset();
    running_ = true;
    lk.unlock();
    TimingTable t;
    std::string err;
    try {
      if (!parse_bench_json(bench_(job.kernels, job.params), t, err)) err = "live timings: " + err;
    } catch (const std::exception& e) {
      err = std::string("live timings failed: ") + e.what();
    }
    lk.lock();
    running_ = false;
    if (err.empty()) {
      t.origin = "live";
      done_ = std::move(t);
    } else {
      error_ = err;
    }
  }
}

const TimingSample* TimingStore::find(const std::string& kernel, const std::map<std::string, int64_t>& params,
                                      const TimingTable** table) const {
  auto score = [&](const TimingSample& s) {
    int sc = 0;
    for (const auto& [k, v] : params) {
      if (k == "size") continue;  // timings are taken at a realistic size, not the teaching one
      auto it = s.params.find(k);
      if (it != s.params.end()) sc += it->second == v ? 2 : -2;
    }
    return sc;
  };
  auto search = [&](const TimingTable& t) -> const TimingSample* {
    const TimingSample* best = nullptr;
    int best_score = -1000;
    for (const auto& s : t.samples) {
      if (s.kernel != kernel) continue;
      int sc = score(s);
      if (sc > best_score) {
        best = &s;
        best_score = sc;
      }
    }
    return best;
  };
  if (live)
    if (const TimingSample* s = search(*live)) {
      if (table) *table = &*live;
      return s;
    }
  for (const auto& t : replay)
    if (const TimingSample* s = search(t)) {
      if (table) *table = &t;
      return s;
    }
  return nullptr;
}

void TimingStore::add_live(TimingTable t) {
  for (const auto& s : t.samples) {
    auto& h = live_history[s.kernel];
    h.push_back(s.ms);
    if (h.size() > 64) h.erase(h.begin());
  }
  live = std::move(t);
}

}  // namespace ws::ui
