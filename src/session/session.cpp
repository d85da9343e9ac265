#include "session/session.h"

#include "session/bench.h"
#include "session/hardware.h"

#include "analysis/levels.h"
#include "trace/assets.h"
#include "trace/toolkit.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <bit>
#include <cstdio>

#include "trace/wstrace.h"

namespace ws::session {

GridShape grid_shape(const trace::Buffer& b) {
  GridShape g;
  g.elem_bytes = std::max<uint32_t>(1, b.elem_bytes);
  g.elements = b.size_bytes / g.elem_bytes;
  if (g.elements == 0) g.elements = b.rows * b.cols;
  if (b.rows <= 1 && g.elements > 64) {
    // A 1-D array: 128 bytes per grid row, so each column of a shared array is a bank.
    g.wrapped = true;
    g.cols = std::max<uint32_t>(1, 128 / g.elem_bytes);
    g.rows = uint32_t((g.elements + g.cols - 1) / g.cols);
    return g;
  }
  const uint64_t pitch = b.row_pitch();
  if (b.col_major) {
    g.col_major = true;
    g.rows = uint32_t(std::max<uint64_t>(1, pitch));
    g.cols = uint32_t(std::max<uint64_t>(1, (g.elements + g.rows - 1) / g.rows));
    return g;
  }
  g.cols = uint32_t(std::max<uint64_t>(1, pitch));
  g.rows = uint32_t(std::max<uint64_t>(1, (g.elements + g.cols - 1) / g.cols));
  // A thin array (at least 8 times as many rows as columns, a row shorter than half a
  // line): as many rows side by side as fill a 128-byte line, so a warp's strided request
  // is a few grid rows of cells instead of a column one cell wide.
  const uint64_t row_bytes = uint64_t(g.cols) * g.elem_bytes;
  const uint64_t fold = row_bytes ? 128 / row_bytes : 1;
  if (fold >= 2 && g.rows >= 8 * uint64_t(g.cols) && g.rows >= 4 * fold) {
    g.fold = uint32_t(fold);
    g.cols = uint32_t(uint64_t(g.cols) * fold);
    g.rows = uint32_t((g.elements + g.cols - 1) / g.cols);
  }
  return g;
}

uint64_t GridShape::array_rows() const {
  if (wrapped) return 1;
  if (col_major) return rows;
  const uint64_t pitch = std::max<uint64_t>(1, array_cols());
  return (elements + pitch - 1) / pitch;
}

std::string GridShape::index_text(uint64_t e) const {
  if (wrapped) return "[" + std::to_string(e) + "]";
  uint64_t r, c;
  if (col_major) {
    r = e % rows;
    c = e / rows;
  } else {
    const uint64_t pitch = std::max<uint64_t>(1, array_cols());
    r = e / pitch;
    c = e % pitch;
  }
  return "[" + std::to_string(r) + "][" + std::to_string(c) + "]";
}

std::string GridShape::row_label(uint32_t row) const {
  if (wrapped) return std::to_string(uint64_t(row) * cols);
  return std::to_string(uint64_t(row) * fold);
}

std::string GridShape::col_label(uint32_t col) const {
  if (fold > 1) {
    const uint32_t pitch = cols / fold;
    return col % pitch == 0 ? "+" + std::to_string(col / pitch) : std::to_string(col % pitch);
  }
  return std::to_string(col);
}

uint32_t GridShape::col_label_step(uint32_t min_step) const {
  uint32_t k = 1;
  while (k < min_step && k < (1u << 30)) k *= 2;
  if (fold > 1) {
    const uint32_t pitch = cols / fold;
    k = (k + pitch - 1) / pitch * pitch;
  }
  return k;
}

std::vector<std::string> Session::title_parts() const {
  const auto& l = trace().launch();
  std::vector<std::string> parts{l.kernel};
  auto it = l.params.find("size");
  if (it != l.params.end()) parts.push_back("size " + std::to_string(it->second));
  for (const auto& [name, value] : l.params) {
    if (name == "size") continue;
    bool range_param = false;
    if (kernel)
      for (const auto& p : kernel->params)
        if (p.name == name) range_param = p.allowed.empty();
    if (value == 0 && range_param) continue;  // 0 means "automatic" for range parameters
    parts.push_back(name + "=" + std::to_string(value));
  }
  if (launches() > 1) parts.push_back("launch " + std::to_string(launch + 1) + " of " + std::to_string(launches()));
  return parts;
}

std::string Session::title() const {
  std::string s;
  for (const auto& p : title_parts()) s += (s.empty() ? "" : " · ") + p;
  return s;
}

std::string Session::provenance() const {
  const auto& l = trace().provenance;
  std::string s = from_gpu ? "recorded on " + (l.device.empty() ? std::string("a GPU") : l.device)
                           : std::string("emulated on CPU");
  if (origin == "file") s += " · from file";
  return s;
}

uint64_t Session::next(uint64_t step, StepUnit unit, int dir) const {
  const uint64_t n = size();
  if (n == 0) return 0;
  step = std::min<uint64_t>(step, n - 1);
  if (unit == StepUnit::Request) {
    if (dir > 0) return std::min<uint64_t>(step + 1, n - 1);
    return step > 0 ? step - 1 : 0;
  }
  const auto& starts = unit == StepUnit::Warp ? warp_starts : epoch_starts;
  if (dir > 0) {
    auto it = std::upper_bound(starts.begin(), starts.end(), uint32_t(step));
    return it == starts.end() ? n - 1 : *it;
  }
  auto it = std::lower_bound(starts.begin(), starts.end(), uint32_t(step));
  if (it == starts.begin()) return 0;
  return *(it - 1);
}

void Session::index() {
  Session& m = *this;
  const auto& t = m.trace();
  m.shapes.clear();
  for (const auto& b : t.buffers) m.shapes.push_back(grid_shape(b));
  m.warp_starts.clear();
  m.epoch_starts.clear();
  m.lane_accesses = 0;
  m.max_epoch = 0;
  const trace::Record* prev = nullptr;
  for (size_t i = 0; i < t.records.size(); ++i) {
    const auto& r = t.records[i];
    bool new_epoch = !prev || r.block != prev->block || r.epoch != prev->epoch;
    if (new_epoch || r.warp != prev->warp) m.warp_starts.push_back(uint32_t(i));
    if (new_epoch) m.epoch_starts.push_back(uint32_t(i));
    m.lane_accesses += uint64_t(std::popcount(r.active));
    m.max_epoch = std::max(m.max_epoch, r.epoch);
    prev = &r;
  }
}

namespace {

std::vector<std::string> split_lines(const std::string& src) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < src.size()) {
    size_t end = src.find('\n', start);
    if (end == std::string::npos) end = src.size();
    std::string line = src.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    start = end + 1;
  }
  return out;
}

// The gutter's figures of one file's lines, from the report's sites in it.
std::map<uint32_t, LineStat> line_stats(const Session& m, uint32_t file) {
  const auto& t = m.trace();
  std::map<uint32_t, LineStat> lines;
  struct Acc {
    uint64_t g_req = 0, sectors = 0, ideal = 0, s_req = 0, wavefronts = 0, ideal_wf = 0;
    uint32_t max_way = 0;
  };
  std::map<uint32_t, Acc> acc;
  for (const auto& st : m.report.sites) {
    if (st.site >= t.sites.size()) continue;
    const auto& site = t.sites[st.site];
    if (site.file != file) continue;
    LineStat& ls = lines[site.line];
    ls.line = site.line;
    ls.sites.push_back(st.site);
    Acc& a = acc[site.line];
    if (site.space != trace::Space::Shared) {  // local and constant memory are served in sectors too
      ls.global = true;
      a.g_req += st.requests;
      a.sectors += st.sectors;
      a.ideal += st.ideal_sectors;
    } else {
      ls.shared = true;
      a.s_req += st.requests;
      a.wavefronts += st.wavefronts;
      a.ideal_wf += st.ideal_wavefronts;
      a.max_way = std::max(a.max_way, st.max_way);
    }
  }
  for (auto& [line, ls] : lines) {
    const Acc& a = acc[line];
    ls.requests = a.g_req + a.s_req;
    double ratio = 1;
    if (ls.global && a.g_req) {
      ls.sectors_per_request = double(a.sectors) / double(a.g_req);
      ls.ideal_per_request = double(a.ideal) / double(a.g_req);
    }
    if (ls.shared && a.s_req) {
      ls.max_way = a.max_way;
      ls.wavefronts_per_request = double(a.wavefronts) / double(a.s_req);
    }
    // One part per site, so a line reading two arrays does not average them; the badge
    // names each text once ("As 1-way ×20": a SASS trace has a site per instruction).
    std::vector<std::pair<std::string, int>> texts;
    for (uint32_t si : ls.sites) {
      const auto& site = t.sites[si];
      const auto& st = m.report.sites[si];
      if (!st.requests) continue;
      LineStat::Part part;
      part.site = si;
      std::string name = site.buffer < t.buffers.size() ? t.buffers[site.buffer].name : "?";
      char buf[64];
      if (site.space != trace::Space::Shared) {
        std::snprintf(buf, sizeof buf, "%s %.3g", name.c_str(), st.sectors_per_request);
        part.ratio = analysis::cost_ratio(st.sectors, st.ideal_sectors);
      } else {
        std::snprintf(buf, sizeof buf, "%s %u-way", name.c_str(), st.max_way);
        part.ratio = analysis::cost_ratio(st.wavefronts, st.ideal_wavefronts);
      }
      part.text = buf;
      ratio = std::max(ratio, part.ratio);
      auto seen = std::find_if(texts.begin(), texts.end(), [&](const auto& x) { return x.first == part.text; });
      if (seen == texts.end()) texts.push_back({part.text, 1});
      else ++seen->second;
      ls.parts.push_back(std::move(part));
    }
    ls.ratio = ratio;
    std::string badge;
    for (const auto& [text, n] : texts) badge += (badge.empty() ? "" : " · ") + text + (n > 1 ? " ×" + std::to_string(n) : "");
    ls.badge = badge;
  }
  return lines;
}

}  // namespace

const SourceText* Session::source_of(uint32_t file) const {
  for (const SourceText& s : sources)
    if (s.file == file) return &s;
  return nullptr;
}

void Session::analyse(const analysis::DramModel& dram) {
  Session& m = *this;
  const auto& t = m.trace();
  if (!counted) report = analysis::analyze(t, dram);
  m.totals = Totals{};
  for (const auto& st : m.report.sites) {
    if (st.site >= t.sites.size()) continue;
    if (t.sites[st.site].space == trace::Space::Shared) {
      m.totals.shared_requests += st.requests;
      m.totals.wavefronts += st.wavefronts;
      m.totals.ideal_wavefronts += st.ideal_wavefronts;
      m.totals.max_way = std::max(m.totals.max_way, st.max_way);
      m.totals.shared_bytes += st.lane_accesses * t.sites[st.site].bytes;
    } else {
      m.totals.global_requests += st.requests;
      m.totals.sectors += st.sectors;
      m.totals.ideal_sectors += st.ideal_sectors;
      m.totals.global_bytes += st.bytes_requested;
    }
  }
  // File 0, then the other files with sites: the program's own before the toolkit's.
  m.sources.clear();
  std::vector<uint32_t> files{0};
  for (const auto& st : m.report.sites) {
    if (st.site >= t.sites.size() || !st.requests) continue;
    const uint32_t f = t.sites[st.site].file;
    if (std::find(files.begin(), files.end(), f) == files.end() && f < t.files.size()) files.push_back(f);
  }
  std::stable_partition(files.begin() + 1, files.end(),
                        [&](uint32_t f) { return !trace::toolkit_file(t.files[f].name); });
  for (uint32_t f : files) {
    SourceText st;
    st.file = f;
    if (f < t.files.size()) {
      st.name = t.files[f].name;
      st.lines = split_lines(t.files[f].text);
    }
    st.toolkit = f != 0 && trace::toolkit_file(st.name);
    st.stats = line_stats(m, f);
    if (f == 0 || !st.stats.empty()) m.sources.push_back(std::move(st));
  }
  // The hardware's side of each line, where the program's SASS trace is at hand.
  if (m.hardware) {
    std::string gpu = m.hardware->provenance.device;
    if (gpu.rfind("NVIDIA ", 0) == 0) gpu = gpu.substr(7);
    gpu = gpu.substr(0, gpu.find(' '));
    auto base = [](const std::string& p) { return p.substr(p.rfind('/') == std::string::npos ? 0 : p.rfind('/') + 1); };
    const bool ptx = analysis::names_instructions(t);
    for (const analysis::LineLevels& l : m.hardware_levels) {
      for (SourceText& st : m.sources) {
        if (base(st.name) != l.file) continue;
        auto it = st.stats.find(l.line);
        if (it == st.stats.end()) continue;
        std::string text = gpu + " ran " + analysis::level_ops_text(l.sass, "none") + " a block (" +
                           (ptx ? "PTX: " : "the source: ") + analysis::level_ops_text(l.ptx, "none") + ")";
        text += l.verdict.empty() ? ": the same" : ": " + l.verdict;
        it->second.hardware.push_back(std::move(text));
      }
    }
  }
}

void Session::set_hardware(std::shared_ptr<const trace::Trace> h) {
  hardware = std::move(h);
  hardware_levels.clear();
  if (hardware && source && launch < hardware->launches.size() && launch < source->launches.size())
    hardware_levels = analysis::compare_levels(*source, launch, *hardware, launch);
}

std::shared_ptr<Session> Session::from_trace(std::shared_ptr<const trace::Trace> t, const analysis::DramModel& dram,
                                             uint32_t launch, std::shared_ptr<const trace::Trace> hardware) {
  auto m = std::make_shared<Session>();
  if (launch >= t->launches.size() && !(launch == 0 && t->launches.empty()))
    throw InputError("launch " + std::to_string(launch + 1) + " is out of range: allowed 1.." +
                     std::to_string(t->launches.size()) + " (launches are numbered from 1)");
  m->source = t;
  m->launch = launch;
  m->shared_trace = t->launches.size() <= 1 ? std::move(t) : std::make_shared<const trace::Trace>(trace::launch_trace(*t, launch));
  const trace::Launch& l = m->trace().launch();
  // A catalog launch carries its entry's parameters ("size" at least); a program's kernel
  // that happens to share a catalog id ("copy") is not that entry.
  m->kernel = l.params.count("size") ? catalog::find(l.kernel) : nullptr;
  m->origin = m->trace().provenance.backend;
  m->from_gpu = m->origin == "gpu";
  m->spec.kernel = l.kernel;
  for (const auto& [name, v] : l.params)
    if (name == "size")
      m->spec.size = v;
    else
      m->spec.params[name] = v;
  m->spec.dram = dram.preset;
  m->set_hardware(std::move(hardware));
  m->index();
  m->analyse(dram);
  return m;
}

std::shared_ptr<Session> Session::from_capture(Capture c, const Launch& launch, LaunchSpec spec) {
  auto tr = std::make_shared<trace::Trace>(std::move(c.trace));
  auto m = std::make_shared<Session>();
  m->source = tr;
  m->shared_trace = std::move(tr);
  m->kernel = launch.kernel;
  m->spec = std::move(spec);
  m->origin = m->trace().provenance.backend;
  m->from_gpu = m->origin == "gpu";
  m->checked = c.checked;
  m->max_rel_error = c.max_rel_error;
  m->capture_seconds = c.seconds;
  m->note = std::move(c.note);
  m->counted = c.counted;
  m->few_blocks = launch.few_blocks;
  if (c.counted) m->report = std::move(c.report);
  m->index();
  if (c.counted) m->lane_accesses = c.lane_accesses;  // no records to count them from
  // What the hardware ran for this kernel with these parameters: the replay pack's SASS trace.
  if (launch.kernel && !c.counted) m->set_hardware(replay_catalog_sass(launch.kernel->id, m->trace().launch().params));
  m->analyse(launch.dram);
  return m;
}

std::shared_ptr<Session> Session::from_file(const std::string& path, const analysis::DramModel& dram,
                                            uint32_t launch) {
  auto m = from_trace(std::make_shared<trace::Trace>(trace::read_trace(path)), dram, launch);
  m->origin = "file";
  m->file = path;
  return m;
}

std::shared_ptr<Session> Session::from_program(const program::Options& o, const analysis::DramModel& dram,
                                               uint32_t launch, bool nearest) {
  program::Result r = program::run(o);
  if (r.trace.launches.empty())
    throw InputError("the program " + o.source + " made no kernel launch" +
                     (r.exit_code ? " (it exited with code " + std::to_string(r.exit_code) + ")" : std::string()));
  std::string note;
  if (launch >= r.trace.launches.size() && nearest) {
    note = "launch " + std::to_string(launch + 1) + " is gone: the program now makes " +
           std::to_string(r.trace.launches.size());
    launch = uint32_t(r.trace.launches.size() - 1);
  }
  if (launch >= r.trace.launches.size())
    throw InputError("launch " + std::to_string(launch + 1) + " is out of range: the program made " +
                     std::to_string(r.trace.launches.size()));
  // What the hardware executed: this run's own trace when it ran on a GPU; else the replay
  // pack's SASS trace of a program of that name with as many launches.
  std::shared_ptr<const trace::Trace> hardware;
  if (r.trace.provenance.backend != "gpu")
    hardware = replay_sass(std::filesystem::path(o.source).stem().string(), [&](const trace::Trace& h) {
      return h.launches.size() == r.trace.launches.size();
    });
  if (!r.trace.timings_json.empty()) r.trace.timings_json = with_yardsticks(r.trace.timings_json);
  for (const std::string& n : r.notes) note += (note.empty() ? "" : "; ") + n;
  auto m = from_trace(std::make_shared<trace::Trace>(std::move(r.trace)), dram, launch, hardware);
  m->origin = "program";
  m->file = o.source;
  m->program_output = std::move(r.output);
  m->capture_seconds = r.run_seconds;
  if (r.exit_code) note += (note.empty() ? "" : "; ") + std::string("the program exited with code ") + std::to_string(r.exit_code);
  m->note = note;
  return m;
}

std::shared_ptr<Session> Session::of_launch(uint32_t k, const analysis::DramModel& dram) const {
  auto m = from_trace(source ? source : shared_trace, dram, k, hardware);
  m->origin = origin;
  m->file = file;
  m->program_output = program_output;
  return m;
}

std::shared_ptr<Session> Session::reanalyzed(const analysis::DramModel& dram) const {
  auto m = std::make_shared<Session>(*this);
  m->spec.dram = dram.preset;
  if (!counted) m->analyse(dram);  // counts mode summed its DRAM figures on the device
  return m;
}

RequestFigures Session::request(uint64_t step) const {
  RequestFigures v;
  const auto& t = trace();
  if (t.records.empty()) return v;
  v.step = std::min<uint64_t>(step, t.records.size() - 1);
  v.rec = &t.records[v.step];
  if (v.rec->site >= t.sites.size()) return v;
  v.site = &t.sites[v.rec->site];
  if (v.rec->buffer < t.buffers.size()) v.buffer = &t.buffers[v.rec->buffer];
  v.shared = v.site->space == trace::Space::Shared;
  v.active_lanes = std::popcount(v.rec->active);
  if (v.shared) {
    v.s = analysis::shared_cost(*v.rec, v.site->bytes);
    v.banks = analysis::bank_words(*v.rec, v.site->bytes);
    v.broadcast = analysis::broadcast_lanes(v.banks);
    v.phases = analysis::shared_phases(v.site->bytes);
  } else {
    v.g = analysis::global_cost(*v.rec, v.site->bytes);
    v.sectors = analysis::sector_bytes(*v.rec, v.site->bytes);
    v.lines = analysis::touched_granules(*v.rec, v.site->bytes, analysis::kLineBytes);
    v.phases = analysis::global_phases(v.site->bytes);
  }
  v.why = analysis::why(t, *v.rec);
  return v;
}

bool DramFigures::hits(uint32_t channel, uint32_t bank) const {
  return std::binary_search(hit.begin(), hit.end(), std::make_pair(channel, bank));
}

bool DramFigures::hits_channel(uint32_t channel) const {
  return std::binary_search(hit_channels.begin(), hit_channels.end(), channel);
}

namespace {

// 4096 -> "4,096".
std::string grouped(uint64_t n) {
  std::string d = std::to_string(n), out;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return out;
}

}  // namespace

std::string recorded_text(const Session& s) {
  const trace::Trace& t = s.trace();
  const uint64_t grid = t.launch().grid.count();
  if (s.counted) return "all " + grouped(grid) + " blocks (counted)";
  std::vector<uint32_t> b = t.launch().blocks;
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  std::string out;
  if (!b.empty() && b.size() == grid) {
    out = "all " + grouped(grid) + (grid == 1 ? " block" : " blocks");
  } else {
    // Ranges of consecutive ids; past three of them, a count.
    std::vector<std::pair<uint32_t, uint32_t>> runs;
    for (uint32_t x : b)
      if (!runs.empty() && runs.back().second + 1 == x)
        runs.back().second = x;
      else
        runs.push_back({x, x});
    if (runs.empty()) {
      out = "no blocks";
    } else if (runs.size() <= 3) {
      out = b.size() == 1 ? "block " : "blocks ";
      for (size_t i = 0; i < runs.size(); ++i) {
        out += i ? ", " : "";
        out += std::to_string(runs[i].first);
        if (runs[i].second != runs[i].first) out += "-" + std::to_string(runs[i].second);
      }
    } else {
      out = grouped(b.size()) + " blocks";
    }
    if (grid) out += " of " + grouped(grid);
  }
  if (const uint64_t dropped = t.launch().dropped_records)
    out += ", first " + grouped(t.records.size()) + " records (" + grouped(dropped) + " more dropped)";
  return out;
}

DramArray dram_array_at(const Session& s, uint64_t step, DramChoice choice) {
  DramArray a;
  const trace::Trace& t = s.trace();
  if (choice.kind == DramChoice::Kind::Array) {
    if (choice.buffer < t.buffers.size()) a.buffer = choice.buffer;
    return a;
  }
  if (choice.kind == DramChoice::Kind::All || t.records.empty()) return a;
  const uint64_t n = t.records.size();
  step = std::min(step, n - 1);
  // The array of record i when it is a global request, else kNoBuffer.
  auto global = [&](uint64_t i) {
    const trace::Record& r = t.records[i];
    return t.sites[r.site].space == trace::Space::Global ? r.buffer : trace::kNoBuffer;
  };
  a.followed = true;
  if (uint32_t b = global(step); b != trace::kNoBuffer) {
    a.buffer = b;
    return a;
  }
  // A shared request: the nearest global request before it, else after it. The search is
  // bounded, so a trace of shared accesses alone costs a frame little.
  constexpr uint64_t kReach = 1 << 16;
  for (uint64_t k = 1; k <= kReach && k <= step; ++k)
    if (uint32_t b = global(step - k); b != trace::kNoBuffer) {
      a.buffer = b;
      a.other_request = true;
      a.from = step - k;
      return a;
    }
  for (uint64_t k = 1; k <= kReach && step + k < n; ++k)
    if (uint32_t b = global(step + k); b != trace::kNoBuffer) {
      a.buffer = b;
      a.other_request = true;
      a.from = step + k;
      return a;
    }
  return a;
}

DramFigures dram_figures(const Session& s, const RequestFigures& rv, uint32_t array) {
  DramFigures f;
  f.recorded = recorded_text(s);
  const analysis::DramModel& d = s.report.dram;
  f.epoch = rv.rec ? rv.rec->epoch : 0;
  f.channels = std::max<uint32_t>(1, d.channels);
  f.banks = std::max<uint32_t>(1, d.banks);
  f.shared = rv.shared;
  const uint32_t C = f.channels, B = f.banks;
  f.cells.assign(size_t(C) * B, 0);
  f.per_channel.assign(C, 0);
  for (const auto& e : s.report.epochs) {
    if (e.epoch != f.epoch) continue;
    for (const auto& a : e.arrays) {
      if (array != trace::kNoBuffer && a.buffer != array) continue;
      for (uint32_t c = 0; c < C && c < a.per_bank.size(); ++c)
        for (uint32_t b = 0; b < B && b < a.per_bank[c].size(); ++b) f.cells[size_t(b) * C + c] += a.per_bank[c][b];
      for (uint32_t c = 0; c < C && c < a.per_channel.size(); ++c) f.per_channel[c] += a.per_channel[c];
    }
  }
  for (uint32_t c = 0; c < C; ++c) {
    f.busy += f.per_channel[c] > 0;
    f.total += f.per_channel[c];
  }
  for (uint64_t v : f.cells) f.max_cell = std::max(f.max_cell, v);
  if (rv.rec && rv.site && !rv.shared && (array == trace::kNoBuffer || rv.rec->buffer == array)) {
    const auto bursts = analysis::touched_granules(*rv.rec, rv.site->bytes, d.burst_bytes);
    f.request_bursts = bursts.size();
    for (uint64_t x : bursts) {
      f.hit.emplace_back(d.channel(x * d.burst_bytes), d.bank(x * d.burst_bytes));
      f.hit_channels.push_back(f.hit.back().first);
    }
    std::sort(f.hit.begin(), f.hit.end());
    f.hit.erase(std::unique(f.hit.begin(), f.hit.end()), f.hit.end());
    std::sort(f.hit_channels.begin(), f.hit_channels.end());
    f.hit_channels.erase(std::unique(f.hit_channels.begin(), f.hit_channels.end()), f.hit_channels.end());
  }
  return f;
}

DramFigures dram_view_figures(const Session& s, const RequestFigures& rv, DramChoice choice, DramArray* shown) {
  const DramArray a = dram_array_at(s, rv.step, choice);
  if (shown) *shown = a;
  if (!a.other_request) return dram_figures(s, rv, a.buffer);
  DramFigures f = dram_figures(s, s.request(a.from), a.buffer);
  f.request_bursts = 0;
  f.hit.clear();
  f.hit_channels.clear();
  f.shared = true;
  return f;
}

namespace {

std::string code_of(const SourceText& s, uint32_t line) {
  std::string c = line >= 1 && line <= s.lines.size() ? s.lines[line - 1] : "";
  size_t a = c.find_first_not_of(" \t");
  return a == std::string::npos ? "" : c.substr(a);
}

}  // namespace

std::string source_lines_text(const Session& s) {
  std::string out;
  for (const SourceText& f : s.sources) {
    if (f.stats.empty()) continue;
    out += std::string(out.empty() ? "" : "\n") + "source lines (" + f.name +
           (out.empty() ? "): cost per line, as the source panel's gutter shows it\n" : "):\n");
    for (const auto& [line, ls] : f.stats) {
      char num[16];
      std::snprintf(num, sizeof num, "  %5u  ", line);
      std::string badge = ls.badge;  // a column of 28 bytes; a longer badge pushes the code right
      if (badge.size() < 28) badge.append(28 - badge.size(), ' ');
      out += num + badge + "  " + code_of(f, line) + "\n";
      for (const std::string& h : ls.hardware) out += "         " + std::string(28, ' ') + "  └ " + h + "\n";
    }
  }
  return out;
}

GpuTimes gpu_times(const Session& s) {
  GpuTimes g;
  if (!s.trace().timings_json.empty()) {
    g.json = &s.trace().timings_json;
    g.this_run = true;
  } else if (s.hardware && !s.hardware->timings_json.empty()) {
    g.json = &s.hardware->timings_json;
    g.date = s.hardware->provenance.date.substr(0, 10);
  }
  return g;
}

std::string source_lines_json(const Session& s) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const SourceText& f : s.sources) {
    for (const auto& [line, ls] : f.stats) {
      nlohmann::ordered_json j;
      if (f.file != 0) j["file"] = f.name;  // a header's line (the kernel's own file needs no name)
      j["line"] = line;
      j["code"] = code_of(f, line);
      j["requests"] = ls.requests;
      if (!ls.hardware.empty()) j["hardware"] = ls.hardware;
      if (ls.global) {
        j["sectors_per_request"] = ls.sectors_per_request;
        j["ideal_sectors_per_request"] = ls.ideal_per_request;
      }
      if (ls.shared) {
        j["max_way"] = ls.max_way;
        j["wavefronts_per_request"] = ls.wavefronts_per_request;
      }
      j["ratio"] = ls.ratio;
      j["badge"] = ls.badge;
      nlohmann::ordered_json parts = nlohmann::ordered_json::array();
      for (const auto& p : ls.parts) parts.push_back({{"site", p.site}, {"text", p.text}, {"ratio", p.ratio}});
      j["parts"] = parts;
      a.push_back(j);
    }
  }
  return a.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

namespace {

// "0-7, 9, 12-15" for a lane mask.
std::string lanes_text(uint32_t mask) {
  std::string out;
  for (int lane = 0; lane < 32;) {
    if (!(mask >> lane & 1)) {
      ++lane;
      continue;
    }
    int end = lane;
    while (end + 1 < 32 && (mask >> (end + 1) & 1)) ++end;
    out += (out.empty() ? "" : ", ") + std::to_string(lane) + (end > lane ? "-" + std::to_string(end) : "");
    lane = end + 1;
  }
  return out;
}

uint32_t sector_lanes(const analysis::SectorBytes& sb) {
  uint32_t m = 0;
  for (int8_t l : sb.lane)
    if (l >= 0) m |= 1u << l;
  return m;
}

}  // namespace

std::string request_label(uint64_t record, uint64_t n) {
  return "request " + std::to_string(request_number(record)) + " of " + std::to_string(n);
}

uint64_t record_of_request(int64_t k, uint64_t n) {
  if (n == 0) throw InputError("request " + std::to_string(k) + " is out of range: the trace has no requests");
  if (k < 1 || uint64_t(k) > n)
    throw InputError("request " + std::to_string(k) + " is out of range: allowed 1.." + std::to_string(n) + " (" +
                     std::to_string(n) + (n == 1 ? " request)" : " requests)"));
  return uint64_t(k) - 1;
}

std::string step_caption(const Session& s, uint64_t record) {
  const trace::Trace& t = s.trace();
  return t.launch().kernel + " · " + params_text(t.launch().params) + " · " + request_label(record, s.size()) + " · " +
         s.provenance();
}

std::string request_text(const Session& s, uint64_t step) {
  const RequestFigures r = s.request(step);
  if (!r.rec || !r.site)
    return "no request " + std::to_string(request_number(step)) + ": the trace has " + std::to_string(s.size()) + "\n";
  const trace::Trace& t = s.trace();
  const trace::Dim3 b = t.launch().block_coords(r.rec->block);
  char head[256];
  std::snprintf(head, sizeof head, "request %llu of %zu: block (%u,%u,%u) warp %u epoch %u, line %u: %s %s %s, %u B a lane, %d lanes\n",
                (unsigned long long)request_number(r.step), s.size(), b.x, b.y, b.z, unsigned(r.rec->warp), r.rec->epoch, r.site->line,
                r.buffer ? r.buffer->name.c_str() : "?", r.shared ? "shared" : "global", trace::to_string(r.site->op),
                r.site->bytes, r.active_lanes);
  std::string out = head;
  char line[160];
  if (r.shared) {
    std::snprintf(line, sizeof line, "  %u-way: %u wavefronts (ideal %u), %u phase%s\n", r.s.max_way, r.s.wavefronts,
                  r.s.ideal_wavefronts, r.phases, r.phases == 1 ? "" : "s");
    out += line;
    for (const auto& w : r.banks) {
      std::snprintf(line, sizeof line, "  phase %u  bank %2u  word %-8llu lanes %s%s\n", w.phase, w.bank,
                    (unsigned long long)w.word, lanes_text(w.lanes).c_str(), w.way > 1 ? "  (conflict)" : "");
      out += line;
    }
  } else {
    std::snprintf(line, sizeof line, "  %u sectors (ideal %u), %u lines, %.0f%% of fetched bytes used\n", r.g.sectors,
                  r.g.ideal_sectors, r.g.lines, r.g.efficiency * 100);
    out += line;
    for (const auto& sb : r.sectors) {
      std::snprintf(line, sizeof line, "  sector #%-8llu line #%-7llu lanes %s\n", (unsigned long long)sb.sector,
                    (unsigned long long)(sb.sector / 4), lanes_text(sector_lanes(sb)).c_str());
      out += line;
    }
  }
  out += "  why: " + r.why + "\n";
  return out;
}

std::string request_json(const Session& s, uint64_t step) {
  using json = nlohmann::ordered_json;
  const RequestFigures r = s.request(step);
  json j;
  if (!r.rec || !r.site) return "null";
  auto lanes = [](uint32_t m) {
    json a = json::array();
    for (int l = 0; l < 32; ++l)
      if (m >> l & 1) a.push_back(l);
    return a;
  };
  const trace::Dim3 b = s.trace().launch().block_coords(r.rec->block);
  j["request"] = request_number(r.step);  // the request number K of --step K
  j["block"] = {b.x, b.y, b.z};
  j["warp"] = r.rec->warp;
  j["epoch"] = r.rec->epoch;
  j["line"] = r.site->line;
  j["array"] = r.buffer ? r.buffer->name : "";
  j["space"] = r.shared ? "shared" : "global";
  j["op"] = trace::to_string(r.site->op);
  j["bytes"] = r.site->bytes;
  j["active_lanes"] = lanes(r.rec->active);
  if (r.shared) {
    j["max_way"] = r.s.max_way;
    j["wavefronts"] = r.s.wavefronts;
    j["ideal_wavefronts"] = r.s.ideal_wavefronts;
    j["conflicts"] = r.s.conflicts;
    j["phases"] = r.phases;
    json words = json::array();
    for (const auto& w : r.banks)
      words.push_back({{"phase", w.phase}, {"bank", w.bank}, {"word", w.word}, {"lanes", lanes(w.lanes)}, {"way", w.way}});
    j["words"] = words;
  } else {
    j["sectors"] = r.g.sectors;
    j["ideal_sectors"] = r.g.ideal_sectors;
    j["lines"] = r.g.lines;
    j["efficiency"] = r.g.efficiency;
    json sectors = json::array();
    for (const auto& sb : r.sectors) {
      json bytes = json::array();
      for (int8_t l : sb.lane) bytes.push_back(int(l));
      sectors.push_back({{"sector", sb.sector}, {"lanes", lanes(sector_lanes(sb))}, {"byte_lanes", bytes}});
    }
    j["sector_lanes"] = sectors;
  }
  j["why"] = r.why;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace ws::session
