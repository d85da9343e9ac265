// src/ui/timing.cpp — bench JSON and the replay pack read into tables, the live bench on its
// own thread, the timing panel's ladder, and Timing, which owns them (timing.h).
#include "ui/timing.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include "session/bench.h"
#include "trace/assets.h"

namespace ws::ui {

namespace {

// A bench result as the panel keeps it: its checked, timed rows only.
bool table_of(trace::BenchResult r, TimingTable& out, std::string& error) {
  out = TimingTable{};
  out.device = r.device.name;
  out.date = r.date;
  out.cublas_gflops = r.cublas_gflops;
  out.copy_gbs = r.copy_gbs;
  out.cublas_size = r.cublas_size;
  out.copy_bytes = r.copy_bytes;
  out.hgemm_gflops = r.hgemm_gflops;
  out.hgemm_size = r.hgemm_size;
  for (auto& row : r.rows)
    if (row.ok && !row.kernel.empty() && (row.ms > 0 || row.gbs > 0 || row.gflops > 0))
      out.samples.push_back(std::move(row));
  if (out.samples.empty()) {
    error = "no timings in it";
    return false;
  }
  return true;
}

}  // namespace

bool parse_bench_json(const std::string& body, TimingTable& out, std::string& error) {
  out = TimingTable{};
  trace::BenchResult r;
  if (!trace::read_bench(body, r, error)) return false;
  return table_of(std::move(r), out, error);
}

std::vector<TimingTable> load_replay_pack(const std::string& dir, std::string& message) {
  std::vector<TimingTable> tables;
  for (auto& f : trace::read_replay_dir(dir, message)) {  // newest first: find() prefers the latest
    TimingTable t;
    std::string err;
    if (!table_of(std::move(f.result), t, err)) {
      message += (message.empty() ? "" : "; ") + std::filesystem::path(f.path).filename().string() + ": " + err;
      continue;
    }
    t.origin = "replay";
    t.file = f.path;
    tables.push_back(std::move(t));
  }
  return tables;
}

std::string bundled_replay_dir() { return trace::find_asset("replay"); }

LiveBench gpu_live_bench() {
  if (!session::bench_unavailable().empty()) return {};
  return [](const std::vector<std::string>& kernels, const std::map<std::string, int64_t>& params) {
    trace::BenchOptions o;
    o.kernels = kernels;
    o.set = params;
    o.variants = true;
    o.seconds = 0.2;
    o.overhead = false;
    o.zero_cost = false;
    return trace::bench_json(session::bench(o));
  };
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
  if (live && live->device == t.device)
    for (auto& old : live->samples) {
      const bool again = std::any_of(t.samples.begin(), t.samples.end(), [&](const TimingSample& s) {
        return s.kernel == old.kernel && s.params == old.params;
      });
      if (!again) t.samples.push_back(std::move(old));
    }
  live = std::move(t);
}

// ---- the ladder ---------------------------------------------------------------------------

namespace {

// 67108864 -> "64 Mi", 1000 -> "1,000".
std::string count_text(int64_t n) {
  char b[48];
  if (n >= (int64_t(1) << 20) && n % (int64_t(1) << 20) == 0) {
    std::snprintf(b, sizeof b, "%lld Mi", (long long)(n >> 20));
    return b;
  }
  if (n >= (int64_t(1) << 10) && n % (int64_t(1) << 10) == 0) {
    std::snprintf(b, sizeof b, "%lld Ki", (long long)(n >> 10));
    return b;
  }
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0 && digits[i - 1] != '-') out += ',';
    out += digits[i];
  }
  return out;
}

// `params` completed with the kernel's defaults (as `k` runs them). Values the catalog
// refuses (a pack from another version) are kept as given.
std::map<std::string, int64_t> full_params(const catalog::KernelInfo& k, const std::map<std::string, int64_t>& params) {
  std::map<std::string, int64_t> set;
  for (const auto& ps : k.params)
    if (auto it = params.find(ps.name); it != params.end()) set[ps.name] = it->second;
  int64_t size = k.bench_size;
  if (auto it = params.find("size"); it != params.end() && it->second > 0) size = it->second;
  catalog::Params p;
  if (!catalog::resolve(k, size, set, p).empty()) {
    p.values = params;
    for (const auto& ps : k.params) p.values.emplace(ps.name, ps.def);
    p.values["size"] = size;
  }
  return p.values;
}

// The family of a sample: the catalog's, else the one the row names.
std::string family_of(const TimingSample& s) {
  if (const catalog::KernelInfo* k = catalog::find(s.kernel)) return k->family;
  return s.family;
}

// One table for every row of `family`: live when it times the family, else the replay table
// that times most of its kernels, the newest of those (null: none).
const TimingTable* family_table(const TimingStore& store, const std::string& family) {
  if (store.live && std::any_of(store.live->samples.begin(), store.live->samples.end(),
                                [&](const TimingSample& s) { return family_of(s) == family; }))
    return &*store.live;
  // Of the replay files, the one that times most of the family's kernels (the pack's full
  // run, not its run of a ladder's top rungs at a larger size); the newest of those.
  const TimingTable* best = nullptr;
  size_t most = 0;
  for (const auto& t : store.replay) {
    std::set<std::string> ids;
    for (const TimingSample& s : t.samples)
      if (family_of(s) == family) ids.insert(s.kernel);
    if (ids.size() > most) best = &t, most = ids.size();
  }
  return best;
}

// The family's yardstick: what most of its rows are compared with, and its figure.
void set_yardstick(TimingLadder& l, const catalog::KernelInfo& cur) {
  const std::string& family = cur.family;
  int cublas = 0, copy = 0, hgemm = 0;
  bool any_gflops = false, any_gbs = false;
  if (l.table)
    for (const auto& s : l.table->samples) {
      if (family_of(s) != family) continue;
      cublas += s.ref == "cuBLAS" || s.vs_hgemm;  // a replay file names the HGEMM rows' ref "cuBLAS HGEMM"
      copy += s.ref == "device copy";
      hgemm += s.vs_hgemm;
      any_gflops |= s.gflops > 0;
      any_gbs |= s.gbs > 0;
    }
  l.compute = cublas != copy ? cublas > copy
                             : (any_gflops && !any_gbs) ||
                                   (!any_gflops && !any_gbs && cur.yardstick == catalog::Yardstick::Cublas);
  l.unit = l.compute ? "GFLOP/s" : "GB/s";
  const bool half = l.compute && 2 * hgemm > cublas;  // the tensor-core ladder: mostly half inputs
  l.ref = half ? "cuBLAS HGEMM" : l.compute ? "cuBLAS SGEMM" : "device-to-device copy";
  if (l.table) {
    l.ref_value = half ? l.table->hgemm_gflops : l.compute ? l.table->cublas_gflops : l.table->copy_gbs;
    const int64_t blas_size = half ? l.table->hgemm_size : l.table->cublas_size;
    if (l.compute && blas_size > 0) l.ref_size = std::to_string(blas_size) + "³";
    if (!l.compute && l.table->copy_bytes > 0) {
      char b[32];
      std::snprintf(b, sizeof b, "%.0f MiB", double(l.table->copy_bytes / 2) / double(1 << 20));
      l.ref_size = b;
    }
  }
}

// The family's common prefix of ids, up to an underscore ("transpose_"), among the kernels
// whose ids begin with the first one's first word: a rung named otherwise (tma_transpose in
// the transposes) keeps its whole id and leaves the others' short names alone.
std::string common_prefix(const std::vector<const catalog::KernelInfo*>& ladder) {
  if (ladder.size() < 2) return "";
  const std::string& first = ladder[0]->id;
  const std::string word = first.substr(0, first.find('_') + 1);
  size_t prefix = first.size(), members = 0;
  for (const auto* k : ladder) {
    if (k->id.rfind(word, 0) != 0) continue;
    ++members;
    size_t n = 0;
    while (n < prefix && n < k->id.size() && k->id[n] == first[n]) ++n;
    prefix = n;
  }
  if (members < 2) return "";
  while (prefix > 0 && first[prefix - 1] != '_') --prefix;
  return first.substr(0, prefix);
}

// A rung's name on the ladder: its id without the family's prefix, where it has it.
std::string rung_name(const std::string& id, const std::string& prefix) {
  return id.rfind(prefix, 0) == 0 ? id.substr(prefix.size()) : id;
}

// A published kernel's name in the ladder where its entry names no source: its project and
// the number its author gave it, from the name the bench recorded ("SGEMM_CUDA
// sgemmWarptiling<…> (kernel 10), beside" -> "SGEMM_CUDA kernel 10"); "published" when
// there is none.
std::string published_name(const std::string& full) {
  const size_t open = full.rfind('('), close = full.rfind(')'), space = full.find(' ');
  if (full.empty()) return "published";
  if (open == std::string::npos || close == std::string::npos || close < open || space == std::string::npos)
    return full.substr(0, std::min<size_t>(full.size(), 24));
  return full.substr(0, space) + " " + full.substr(open + 1, close - open - 1);
}

// The ladder's rows of kernel `k`: one per timed variant (and the published kernel it
// reproduces), or one bare row when the table holds none. `screen`: the parameters on
// screen, `cur` the kernel on screen, `prefix` how much of the id to drop.
void kernel_rows(TimingLadder& l, const catalog::KernelInfo* k, const catalog::KernelInfo* cur,
                 const std::map<std::string, int64_t>& screen, const std::string& prefix) {
  std::vector<const TimingSample*> mine;
  if (l.table)
    for (const auto& s : l.table->samples) {
      if (s.kernel != k->id) continue;
      // A pack may hold a variant twice (two runs): the first is shown.
      const bool dup = std::any_of(mine.begin(), mine.end(), [&](const TimingSample* o) {
        return full_params(*k, o->params) == full_params(*k, s.params);
      });
      if (!dup) mine.push_back(&s);
    }
  // Variants by parameter value, in the order the kernel declares its parameters.
  auto key = [&](const TimingSample* s) {
    const auto v = full_params(*k, s->params);
    std::vector<int64_t> out;
    for (const auto& ps : k->params) out.push_back(v.count(ps.name) ? v.at(ps.name) : ps.def);
    out.push_back(v.count("size") ? v.at("size") : 0);
    return out;
  };
  std::stable_sort(mine.begin(), mine.end(), [&](const TimingSample* a, const TimingSample* b) { return key(a) < key(b); });
  const bool same_kernel = k == cur;
  if (mine.empty()) {
    LadderRow r;
    r.kernel = k;
    r.name = rung_name(k->id, prefix);
    r.same_kernel = same_kernel;
    l.rows.push_back(r);
    return;
  }
  for (const TimingSample* s : mine) {
    LadderRow r;
    r.kernel = k;
    r.sample = s;
    r.name = rung_name(k->id, prefix);
    r.same_kernel = same_kernel;
    const auto v = full_params(*k, s->params);
    r.here = same_kernel;
    // Named: the parameters that vary among the rows and differ from the kernel's default,
    // plus the first varying one always (so the default row reads "pad=0" beside "pad=1"),
    // and any that differ from the launch on screen.
    bool first_varying = true;
    for (const auto& ps : k->params) {
      const int64_t mine_v = v.count(ps.name) ? v.at(ps.name) : ps.def;
      const bool differs_from_screen = same_kernel && screen.count(ps.name) && screen.at(ps.name) != mine_v;
      if (differs_from_screen) r.here = false;
      bool varies = false;
      for (const TimingSample* o : mine) {
        const auto w = full_params(*k, o->params);
        varies |= (w.count(ps.name) ? w.at(ps.name) : ps.def) != mine_v;
      }
      if ((varies && (mine_v != ps.def || first_varying)) || differs_from_screen)
        r.variant += (r.variant.empty() ? "" : " ") + ps.name + "=" + std::to_string(mine_v);
      first_varying &= !varies;
    }
    r.value = l.compute ? s->gflops : s->gbs;
    r.pct = percent_of_reference(*s, *l.table, l.compute);
    r.size = bench_size_text(*k, v);
    if (r.here && l.here < 0) l.here = int(l.rows.size());
    l.rows.push_back(r);
    // The published kernel this variant reproduces, timed in the same rounds: its figures
    // are the row's scaled by the two medians.
    if (s->published_ratio > 0) {
      LadderRow q = r;
      q.published = true;
      q.here = false;
      q.name = published_name(s->published);
      q.variant = "";
      if (const catalog::SourceRef* src = k->sources.empty() ? nullptr : &k->sources.front())
        if (!src->label.empty()) q.name = src->label;
      q.value = r.value * s->published_ratio;  // entry ms / published ms: its speed relative to the entry's
      q.pct = r.pct >= 0 ? r.pct * s->published_ratio : -1;
      l.rows.push_back(q);
    }
  }
}

// The size the rows share; rows timed at another size are named after it.
void shared_size(TimingLadder& l) {
  std::vector<std::pair<std::string, int>> sizes;  // text, rows
  for (const auto& r : l.rows) {
    if (r.size.empty()) continue;
    auto it = std::find_if(sizes.begin(), sizes.end(), [&](const auto& x) { return x.first == r.size; });
    if (it == sizes.end())
      sizes.push_back({r.size, 1});
    else
      ++it->second;
  }
  if (!sizes.empty()) {
    const auto common = std::max_element(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    l.size = common->first;
    std::string last;
    for (const auto& r : l.rows)
      if (!r.size.empty() && r.size != common->first && r.kernel->id != last) {
        l.size += "; " + r.kernel->id + " " + r.size;
        last = r.kernel->id;
      }
  }
}

}  // namespace

std::string bench_size_text(const catalog::KernelInfo& k, const std::map<std::string, int64_t>& params) {
  const std::map<std::string, int64_t> v = full_params(k, params);
  catalog::Params p;
  p.values = v;
  const int64_t n = p.size();
  // The SGEMM ladder multiplies square matrices: M = N = K = size.
  if (k.yardstick == catalog::Yardstick::Cublas) {
    const bool half = k.buffers && !k.buffers(p).empty() && k.buffers(p)[0].elem_bytes == 2;
    return std::to_string(n) + (half ? "³ HGEMM" : "³ SGEMM");
  }
  if (k.buffers) {
    const std::vector<catalog::BufferSpec> bufs = k.buffers(p);
    if (!bufs.empty() && bufs[0].rows > 1 && bufs[0].cols > 1)
      return std::to_string(bufs[0].rows) + " × " + std::to_string(bufs[0].cols) + (bufs[0].elem_bytes == 2 ? " halves" : " floats");
  }
  // One thread per element: a copy reads and writes one float each (its bytes say so);
  // other kernels touch several arrays per thread, so their size is a thread count.
  if (k.bytes && n > 0 && k.bytes(p) == 8.0 * double(n)) return count_text(n) + " floats";
  return count_text(n) + " threads";
}

double percent_of_reference(const TimingSample& s, const TimingTable& t, bool compute) {
  if (compute) {
    if (s.pct_cublas > 0) return s.pct_cublas;
    if (s.ref.rfind("cuBLAS", 0) == 0 && s.pct_ref >= 0) return s.pct_ref;
    const double blas = s.vs_hgemm ? t.hgemm_gflops : t.cublas_gflops;
    if (blas > 0 && s.gflops > 0) return 100.0 * s.gflops / blas;
  } else {
    if (s.pct_copy > 0) return s.pct_copy;
    if (s.ref == "device copy" && s.pct_ref >= 0) return s.pct_ref;
    if (t.copy_gbs > 0 && s.gbs > 0) return 100.0 * s.gbs / t.copy_gbs;
  }
  return -1;
}

TimingLadder timing_ladder(const TimingStore& store, const std::string& kernel,
                           const std::map<std::string, int64_t>& params) {
  TimingLadder l;
  const catalog::KernelInfo* cur = catalog::find(kernel);
  if (!cur) return l;
  std::vector<const catalog::KernelInfo*> ladder;
  for (const auto& k : catalog::all())
    if (k.family == cur->family) ladder.push_back(&k);
  l.table = family_table(store, cur->family);
  set_yardstick(l, *cur);
  const std::string prefix = common_prefix(ladder);
  const std::map<std::string, int64_t> screen = full_params(*cur, params);
  for (const auto* k : ladder) kernel_rows(l, k, cur, screen, prefix);
  shared_size(l);
  return l;
}

// ---- Timing --------------------------------------------------------------------------------

Timing::Timing(LiveBench live, const std::string& replay_dir) : live_(std::move(live)) {
  std::string pack_msg;
  store_.replay = load_replay_pack(replay_dir, pack_msg);
  if (!pack_msg.empty()) store_.message = "replay pack: " + pack_msg;
}

void Timing::poll() {
  std::string err;
  if (auto t = live_.take(err)) store_.add_live(std::move(*t));
  if (!err.empty()) store_.message = err;
}

void Timing::follow(const session::Session* m, const std::map<std::string, int64_t>& params) {
  if (!live_.available() || !m || !m->kernel()) return;
  std::string key = m->kernel()->family;
  for (const auto& [k, v] : params) key += " " + k + "=" + std::to_string(v);
  if (key == family_) return;
  family_ = key;
  std::vector<std::string> ids;
  for (const auto& k : catalog::all())
    if (k.family == m->kernel()->family) ids.push_back(k.id);
  live_.request(ids, params);
}

std::string Timing::caption() const {
  return live_.available() ? "live on this GPU" : store_.replay.empty() ? "no GPU here" : "replay pack";
}

TimingLadder Timing::ladder(const std::string& kernel, const std::map<std::string, int64_t>& params) const {
  return timing_ladder(store_, kernel, params);
}

std::optional<ProgramTimes> Timing::program_times(const session::Session& m) {
  if (m.origin() != "program") return std::nullopt;
  const session::GpuTimes g = session::gpu_times(m);
  if (!g.json) return std::nullopt;
  const std::string* json = g.json;
  if (read_from_ != *json) {
    read_from_ = *json;
    trace::BenchResult b;
    std::string error;
    if (trace::read_bench(*json, b, error)) {
      program_ = program_time_rows(b);
      program_.text = trace::program_times_text(b);
    } else {
      program_ = ProgramTimes{};
      program_.text = "unreadable timings: " + error;
      program_.hint = program_.text;
    }
  }
  program_.from = g.this_run ? "this run" : "replay pack, " + g.date;
  program_.edited = edited(m);
  return program_;
}

const std::string& Timing::edited(const session::Session& m) {
  if (m.origin() != "program" || m.source_hash().empty()) {
    edited_.clear();
    return edited_;
  }
  std::error_code ec;
  const auto t = std::filesystem::last_write_time(m.program().source, ec);
  const std::string key = m.source_hash() + " " + (ec ? "?" : std::to_string(t.time_since_epoch().count()));
  if (key != edited_for_) {
    edited_for_ = key;
    edited_ = edited_since(m);
  }
  return edited_;
}

// ---- a program's times in the panel's pieces -------------------------------------------------

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

bool digit(char c) { return c >= '0' && c <= '9'; }

// Microseconds or milliseconds, whichever reads better: "6 µs", "0.54 ms".
std::string duration_text(double ms) { return ms < 0.1 ? fmt("%.0f µs", ms * 1000) : fmt("%.3g ms", ms); }

}  // namespace

std::vector<std::string> unbroken_pieces(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream words(text);
  bool after_number = false;
  for (std::string w; words >> w;) {
    const bool number = digit(w[0]) || (w.size() > 1 && (w[0] == '(' || w[0] == '=') && digit(w[1]));
    if (after_number && !out.empty() && !digit(w[0]))
      out.back() += " " + w;
    else
      out.push_back(w);
    after_number = number && !out.back().empty() && digit(out.back().back());
  }
  return out;
}

ProgramTimes program_time_rows(const trace::BenchResult& b) {
  ProgramTimes p;
  p.device = b.device.name.empty() ? "?" : b.device.name;
  bool any_work = false;
  for (const auto& w : b.rows) {
    ProgramTimeRow r;
    const size_t shape = w.variant.find(" <<<");
    const std::string launch = shape == std::string::npos ? w.variant : w.variant.substr(0, shape);
    unsigned k = 0;
    if (std::sscanf(launch.c_str(), "launch %u", &k) == 1) r.launch = k;
    r.head = launch + "  " + w.kernel + (shape == std::string::npos ? "" : w.variant.substr(shape + 1));
    if (!w.ok) {
      r.notes.push_back(w.error);
      p.rows.push_back(std::move(r));
      continue;
    }
    r.figures.push_back(fmt("%.4g ms", w.ms));
    if (w.runs)
      for (auto& x : unbroken_pieces("(" + fmt("%.4g", w.ms_min) + " to " + fmt("%.4g", w.ms_max) + " ms, " +
                                     std::to_string(w.runs) + " runs)"))
        r.figures.push_back(std::move(x));
    if (w.gflops > 0) {
      r.figures.push_back(fmt("%.0f GFLOP/s", w.gflops));
      if (w.pct_cublas > 0) r.figures.push_back("= " + fmt("%.1f%% of cuBLAS", w.pct_cublas));
    }
    if (w.gbs > 0) {
      r.figures.push_back(fmt("%.0f GB/s", w.gbs));
      if (w.pct_copy > 0) r.figures.push_back("= " + fmt("%.1f%% of a device copy", w.pct_copy));
    }
    any_work = any_work || w.gflops > 0 || w.gbs > 0;
    // A launch this short is mostly the launch itself, and so is a yardstick this short.
    const bool vs_cublas = w.pct_cublas > 0, vs_copy = w.pct_copy > 0;
    const double ref_ms = vs_cublas ? b.cublas_ms : vs_copy ? b.copy_ms : 0;
    if ((vs_cublas || vs_copy) && (w.ms < 0.02 || (ref_ms > 0 && ref_ms < 0.02)))
      r.caveat = "(a " + duration_text(std::min(w.ms, ref_ms > 0 ? ref_ms : w.ms)) + " launch is mostly launch " +
                 "overhead: this percentage means little; run a larger size)";
    if (!w.note.empty()) r.notes.push_back(w.note);
    if (w.record_ms > 0)
      r.notes.push_back("traced at the SASS level (blocks " + b.record_blocks + " recorded): " + fmt("%.4g ms", w.record_ms) +
                        ", " + fmt("%.0fx", w.record_ratio) + " the plain run");
    p.rows.push_back(std::move(r));
  }
  if (b.cublas_size)
    p.yardsticks.push_back({"cuBLAS SGEMM " + std::to_string(b.cublas_size) + "^3 (the same flops), same run:",
                            fmt("%.4g ms,", b.cublas_ms), fmt("%.0f GFLOP/s", b.cublas_gflops), "(FP32)"});
  if (b.copy_bytes) {
    const double each = double(b.copy_bytes / 2);
    p.yardsticks.push_back({"cudaMemcpy device to device,",
                            each < (1 << 20) ? fmt("%.3g KiB", each / 1024) : fmt("%.3g MiB", each / (1 << 20)),
                            "(the same bytes), same run:", fmt("%.4g ms,", b.copy_ms), fmt("%.0f GB/s", b.copy_gbs)});
  }
  if (!any_work)
    p.hint = "GFLOP/s and % of cuBLAS: say a launch's work above its kernel, `// warpscope: flops = 2*N*N*N; bytes = "
             "12*N*N` (its scalar parameters by name), or --flops / --bytes";
  return p;
}

std::string edited_since(const session::Session& m) {
  if (m.origin() != "program" || m.source_hash().empty()) return "";
  if (program::source_hash(m.program()) == m.source_hash()) return "";
  const std::string& date = m.trace().provenance.date;  // ISO 8601, UTC: 2026-11-26T14:02:11Z
  const std::string at = date.size() >= 16 ? date.substr(11, 5) + " UTC" : "its last build";
  return "the file as it was at " + at + ", before your edit";
}

}  // namespace ws::ui
