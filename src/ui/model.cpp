#include "ui/model.h"

#include <algorithm>
#include <bit>
#include <cstdio>

namespace ws::ui {

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
  } else {
    g.cols = uint32_t(std::max<uint64_t>(1, pitch));
    g.rows = uint32_t(std::max<uint64_t>(1, (g.elements + g.cols - 1) / g.cols));
  }
  return g;
}

std::string Model::title() const {
  const auto& l = trace().launch;
  std::string s = l.kernel;
  auto it = l.params.find("size");
  if (it != l.params.end()) s += " · size " + std::to_string(it->second);
  for (const auto& [name, value] : l.params) {
    if (name == "size") continue;
    bool range_param = false;
    if (kernel)
      for (const auto& p : kernel->params)
        if (p.name == name) range_param = p.allowed.empty();
    if (value == 0 && range_param) continue;  // 0 means "automatic" for range parameters
    s += " · " + name + "=" + std::to_string(value);
  }
  return s;
}

std::string Model::provenance() const {
  const auto& l = trace().launch;
  std::string s = from_gpu ? "recorded on " + (l.device.empty() ? std::string("a GPU") : l.device)
                           : std::string("emulated on CPU");
  if (origin == "file") s += " · from file";
  return s;
}

uint64_t Model::next(uint64_t step, int unit, int dir) const {
  const uint64_t n = size();
  if (n == 0) return 0;
  step = std::min<uint64_t>(step, n - 1);
  if (unit == 0) {
    if (dir > 0) return std::min<uint64_t>(step + 1, n - 1);
    return step > 0 ? step - 1 : 0;
  }
  const auto& starts = unit == 1 ? warp_starts : epoch_starts;
  if (dir > 0) {
    auto it = std::upper_bound(starts.begin(), starts.end(), uint32_t(step));
    return it == starts.end() ? n - 1 : *it;
  }
  auto it = std::lower_bound(starts.begin(), starts.end(), uint32_t(step));
  if (it == starts.begin()) return 0;
  return *(it - 1);
}

namespace {

void fill_indices(Model& m) {
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
  m.source_lines.clear();
  size_t start = 0;
  const std::string& src = t.source;
  while (start < src.size()) {
    size_t end = src.find('\n', start);
    if (end == std::string::npos) end = src.size();
    std::string line = src.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    m.source_lines.push_back(std::move(line));
    start = end + 1;
  }
}

void fill_lines(Model& m) {
  const auto& t = m.trace();
  m.lines.clear();
  struct Acc {
    uint64_t g_req = 0, sectors = 0, ideal = 0, s_req = 0, wavefronts = 0, ideal_wf = 0;
    uint32_t max_way = 0;
  };
  std::map<uint32_t, Acc> acc;
  for (const auto& st : m.report.sites) {
    if (st.site >= t.sites.size()) continue;
    const auto& site = t.sites[st.site];
    LineStat& ls = m.lines[site.line];
    ls.line = site.line;
    ls.sites.push_back(st.site);
    Acc& a = acc[site.line];
    if (site.space == trace::Space::Global) {
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
  for (auto& [line, ls] : m.lines) {
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
    // One part per site, so a line reading two arrays does not average them.
    std::string badge;
    for (uint32_t si : ls.sites) {
      const auto& site = t.sites[si];
      const auto& st = m.report.sites[si];
      if (!st.requests) continue;
      LineStat::Part part;
      part.site = si;
      std::string name = site.buffer < t.buffers.size() ? t.buffers[site.buffer].name : "?";
      char buf[64];
      if (site.space == trace::Space::Global) {
        std::snprintf(buf, sizeof buf, "%s %.3g", name.c_str(), st.sectors_per_request);
        part.ratio = st.ideal_sectors ? double(st.sectors) / double(st.ideal_sectors) : 1;
      } else {
        std::snprintf(buf, sizeof buf, "%s %u-way", name.c_str(), st.max_way);
        part.ratio = st.ideal_wavefronts ? double(st.wavefronts) / double(st.ideal_wavefronts) : 1;
      }
      part.text = buf;
      ratio = std::max(ratio, part.ratio);
      badge += (badge.empty() ? "" : " · ") + part.text;
      ls.parts.push_back(std::move(part));
    }
    ls.ratio = ratio;
    ls.badge = badge;
  }
}

}  // namespace

std::shared_ptr<Model> build_model(std::shared_ptr<const trace::Trace> t, const analysis::DramModel& dram) {
  auto m = std::make_shared<Model>();
  m->shared_trace = std::move(t);
  m->kernel = catalog::find(m->trace().launch.kernel);
  m->origin = m->trace().launch.backend;
  m->from_gpu = m->trace().launch.backend == "gpu";
  fill_indices(*m);
  m->report = analysis::analyze(m->trace(), dram);
  fill_lines(*m);
  return m;
}

std::shared_ptr<Model> reanalyze(const Model& old, const analysis::DramModel& dram) {
  auto m = std::make_shared<Model>(old);
  m->report = analysis::analyze(m->trace(), dram);
  fill_lines(*m);
  return m;
}

RequestView request_view(const Model& m, uint64_t step) {
  RequestView v;
  const auto& t = m.trace();
  if (t.records.empty()) return v;
  step = std::min<uint64_t>(step, t.records.size() - 1);
  v.rec = &t.records[step];
  if (v.rec->site >= t.sites.size()) return v;
  v.site = &t.sites[v.rec->site];
  if (v.site->buffer < t.buffers.size()) v.buffer = &t.buffers[v.site->buffer];
  v.shared = v.site->space == trace::Space::Shared;
  v.active_lanes = std::popcount(v.rec->active);
  if (v.shared)
    v.s = analysis::shared_cost(*v.rec, v.site->bytes);
  else
    v.g = analysis::global_cost(*v.rec, v.site->bytes);
  v.why = analysis::why(t, *v.rec);
  return v;
}

}  // namespace ws::ui
