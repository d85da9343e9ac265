#include "ui/timing.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ws::ui {

bool parse_bench_json(const std::string& body, TimingTable& out, std::string& error) {
  out = TimingTable{};
  trace::BenchResult r;
  if (!trace::read_bench(body, r, error)) return false;
  out.device = r.device.name;
  out.date = r.date;
  out.cublas_gflops = r.cublas_gflops;
  out.copy_gbs = r.copy_gbs;
  for (auto& row : r.rows)
    if (row.ok && !row.kernel.empty() && (row.ms > 0 || row.gbs > 0 || row.gflops > 0))
      out.samples.push_back(std::move(row));
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
