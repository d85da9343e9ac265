// src/session/session.cpp — the Session's factories, its index of warp and epoch runs, its
// per-line and total figures, one request's figures, and the step numbering every front end shares.
#include "session/session.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>

#include "analysis/levels.h"
#include "session/arrays.h"
#include "trace/toolkit.h"
#include "trace/wstrace.h"

namespace ws::session {

std::vector<std::string> Session::title_parts() const {
  const auto& l = trace().launch();
  std::vector<std::string> parts{l.kernel};
  auto it = l.params.find("size");
  if (it != l.params.end()) parts.push_back("size " + std::to_string(it->second));
  for (const auto& [name, value] : l.params) {
    if (name == "size") continue;
    bool range_param = false;
    if (kernel_)
      for (const auto& p : kernel_->params)
        if (p.name == name) range_param = p.allowed.empty();
    if (value == 0 && range_param) continue;  // 0 means "automatic" for range parameters
    parts.push_back(name + "=" + std::to_string(value));
  }
  if (launches() > 1) parts.push_back("launch " + std::to_string(launch_ + 1) + " of " + std::to_string(launches()));
  return parts;
}

std::string Session::title() const {
  std::string s;
  for (const auto& p : title_parts()) s += (s.empty() ? "" : " · ") + p;
  return s;
}

std::string Session::provenance() const {
  const auto& l = trace().provenance;
  std::string s = from_gpu_ ? "recorded on " + (l.device.empty() ? std::string("a GPU") : l.device)
                           : std::string("emulated on CPU");
  if (origin_ == "file") s += " · from file";
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
  const auto& starts = unit == StepUnit::Warp ? warp_starts_ : epoch_starts_;
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
  m.shapes_.clear();
  for (uint32_t b = 0; b < t.buffers.size(); ++b) {
    m.shapes_.push_back(grid_shape(t.buffers[b]));
    m.shapes_.back().type = element_type(t, b);
  }
  m.warp_starts_.clear();
  m.epoch_starts_.clear();
  m.lane_accesses_ = 0;
  m.max_epoch_ = 0;
  m.touched_.assign(t.buffers.size(), 0);
  const trace::Record* prev = nullptr;
  for (size_t i = 0; i < t.records.size(); ++i) {
    const auto& r = t.records[i];
    if (r.lanes) {
      for (uint32_t b : *r.lanes)
        if (b < m.touched_.size()) m.touched_[b] = 1;
    } else if (r.buffer < m.touched_.size()) {
      m.touched_[r.buffer] = 1;
    }
    bool new_epoch = !prev || r.block != prev->block || r.epoch != prev->epoch;
    if (new_epoch || r.warp != prev->warp) m.warp_starts_.push_back(uint32_t(i));
    if (new_epoch) m.epoch_starts_.push_back(uint32_t(i));
    m.lane_accesses_ += uint64_t(std::popcount(r.active));
    m.max_epoch_ = std::max(m.max_epoch_, r.epoch);
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
    uint64_t g_req = 0, sectors = 0, ideal = 0, s_req = 0, wavefronts = 0, ideal_wf = 0, c_req = 0;
    uint32_t max_way = 0;
  };
  std::map<uint32_t, Acc> acc;
  for (const auto& st : m.report().sites) {
    if (st.site >= t.sites.size()) continue;
    const auto& site = t.sites[st.site];
    if (site.file != file) continue;
    LineStat& ls = lines[site.line];
    ls.line = site.line;
    ls.sites.push_back(st.site);
    Acc& a = acc[site.line];
    if (!analysis::cost_modelled(site.space)) {  // another CTA's shared memory: counted, no cost
      a.c_req += st.requests;
    } else if (site.space != trace::Space::Shared) {  // local and constant memory are served in sectors too
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
    ls.requests = a.g_req + a.s_req + a.c_req;
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
      const auto& st = m.report().sites[si];
      if (!st.requests) continue;
      LineStat::Part part;
      part.site = si;
      std::string name = site.buffer < t.buffers.size() ? t.buffers[site.buffer].name : "?";
      char buf[96];
      if (!analysis::cost_modelled(site.space)) {
        // Another CTA's array: short, as the gutter has little room ("→ rank 1"); no cost, ratio 1.
        const uint32_t cta = site.buffer < t.buffers.size() ? t.buffers[site.buffer].cta : 0;
        if (cta) std::snprintf(buf, sizeof buf, "→ rank %u", cta - 1);
        else std::snprintf(buf, sizeof buf, "→ other CTAs");
      } else if (site.space != trace::Space::Shared) {
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
  for (const SourceText& s : sources_)
    if (s.file == file) return &s;
  return nullptr;
}

void Session::analyse(const analysis::DramModel& dram) {
  Session& m = *this;
  const auto& t = m.trace();
  if (!counted_) report_ = analysis::analyze(t, dram);
  copies_ = analysis::follow_copies(t);
  m.totals_ = Totals{};
  for (const auto& st : m.report_.sites) {
    if (st.site >= t.sites.size()) continue;
    if (!analysis::cost_modelled(t.sites[st.site].space)) continue;  // (no cost to sum)
    if (t.sites[st.site].space == trace::Space::Shared) {
      m.totals_.shared_requests += st.requests;
      m.totals_.wavefronts += st.wavefronts;
      m.totals_.ideal_wavefronts += st.ideal_wavefronts;
      m.totals_.max_way = std::max(m.totals_.max_way, st.max_way);
      m.totals_.shared_bytes += st.lane_accesses * t.sites[st.site].bytes;
    } else {
      m.totals_.global_requests += st.requests;
      m.totals_.sectors += st.sectors;
      m.totals_.ideal_sectors += st.ideal_sectors;
      m.totals_.global_bytes += st.bytes_requested;
    }
  }
  // File 0, then the other files with sites: the program's own before the toolkit's.
  m.sources_.clear();
  std::vector<uint32_t> files{0};
  for (const auto& st : m.report_.sites) {
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
    if (f == 0 || !st.stats.empty()) m.sources_.push_back(std::move(st));
  }
  // The hardware's side of each line, where the program's SASS trace is at hand.
  if (m.hardware_) {
    LineHardware h;
    h.gpu = m.hardware_->provenance.device;
    if (h.gpu.rfind("NVIDIA ", 0) == 0) h.gpu = h.gpu.substr(7);
    h.gpu = h.gpu.substr(0, h.gpu.find(' '));
    h.ptx = analysis::names_instructions(t);
    auto base = [](const std::string& p) { return p.substr(p.rfind('/') == std::string::npos ? 0 : p.rfind('/') + 1); };
    // A line's hardware only where the file the GPU ran is this one: a source edited since
    // its SASS was traced would put the instructions on other lines.
    std::map<std::string, const std::string*> ran;
    for (const trace::SourceFile& f : m.hardware_->files) ran[base(f.name)] = &f.text;
    for (const analysis::LineLevels& l : m.hardware_levels_) {
      for (SourceText& st : m.sources_) {
        if (base(st.name) != l.file) continue;
        const auto r = ran.find(l.file);
        if (r == ran.end() || st.file >= t.files.size() || *r->second != t.files[st.file].text) continue;
        auto it = st.stats.find(l.line);
        if (it == st.stats.end()) continue;
        h.levels = l;
        it->second.hardware.push_back(h);
      }
    }
  }
}

void Session::set_hardware(std::shared_ptr<const trace::Trace> h) {
  hardware_ = std::move(h);
  hardware_levels_.clear();
  if (hardware_ && whole_ && launch_ < hardware_->launches.size() && launch_ < whole_->launches.size())
    hardware_levels_ = analysis::compare_levels(*whole_, launch_, *hardware_, launch_);
}

std::shared_ptr<Session> Session::from_trace(std::shared_ptr<const trace::Trace> t, const analysis::DramModel& dram,
                                             uint32_t launch, std::shared_ptr<const trace::Trace> hardware) {
  auto m = std::make_shared<Session>();
  if (launch >= t->launches.size() && !(launch == 0 && t->launches.empty()))
    throw InputError("launch " + std::to_string(launch + 1) + " is out of range: allowed 1.." +
                     std::to_string(t->launches.size()) + " (launches are numbered from 1)");
  m->whole_ = t;
  m->launch_ = launch;
  m->shared_trace_ = t->launches.size() <= 1 ? std::move(t) : std::make_shared<const trace::Trace>(trace::launch_trace(*t, launch));
  const trace::Launch& l = m->trace().launch();
  // A catalog launch carries its entry's parameters ("size" at least); a program's kernel
  // that happens to share a catalog id ("copy") is not that entry.
  m->kernel_ = l.params.count("size") ? catalog::find(l.kernel) : nullptr;
  m->origin_ = m->trace().provenance.backend;
  m->from_gpu_ = m->origin_ == "gpu";
  m->spec_.kernel = l.kernel;
  for (const auto& [name, v] : l.params)
    if (name == "size")
      m->spec_.size = v;
    else
      m->spec_.params[name] = v;
  m->spec_.dram = dram.preset;
  m->set_hardware(std::move(hardware));
  m->index();
  m->analyse(dram);
  return m;
}

std::shared_ptr<Session> Session::from_capture(Capture c, const ResolvedLaunch& launch, LaunchSpec spec) {
  if (launch.origin == Origin::Program) return of_program(std::move(c), launch);
  auto tr = std::make_shared<trace::Trace>(std::move(c.trace));
  auto m = std::make_shared<Session>();
  m->whole_ = tr;
  m->shared_trace_ = std::move(tr);
  m->kernel_ = launch.kernel;
  m->spec_ = std::move(spec);
  m->origin_ = m->trace().provenance.backend;
  m->from_gpu_ = m->origin_ == "gpu";
  m->checked_ = c.checked;
  m->max_rel_error_ = c.max_rel_error;
  m->capture_seconds_ = c.seconds;
  m->note_ = std::move(c.note);
  m->counted_ = c.counted;
  m->hw_ = std::move(c.hw);
  m->few_blocks_ = launch.few_blocks;
  if (c.counted) m->report_ = std::move(c.report);
  m->index();
  if (c.counted) m->lane_accesses_ = c.lane_accesses;  // no records to count them from
  m->set_hardware(std::move(c.hardware));
  m->analyse(launch.dram);
  return m;
}

std::shared_ptr<Session> Session::from_file(const std::string& path, const analysis::DramModel& dram,
                                            uint32_t launch) {
  auto m = from_trace(std::make_shared<trace::Trace>(trace::read_trace(path)), dram, launch);
  m->origin_ = "file";
  m->file_ = path;
  return m;
}

std::shared_ptr<Session> Session::of_program(Capture c, const ResolvedLaunch& l) {
  const size_t n = c.trace.launches.size();
  uint32_t launch = l.launch;
  std::string note;
  if (launch >= n && l.nearest_launch) {
    note = "launch " + std::to_string(launch + 1) + " is gone: the program now makes " + std::to_string(n);
    launch = uint32_t(n - 1);
  }
  if (launch >= n)
    throw InputError("launch " + std::to_string(launch + 1) + " is out of range: the program made " + std::to_string(n));
  if (!c.note.empty()) note += (note.empty() ? "" : "; ") + c.note;
  auto m = from_trace(std::make_shared<trace::Trace>(std::move(c.trace)), l.dram, launch, std::move(c.hardware));
  m->origin_ = "program";
  m->file_ = l.program.source;
  m->spec_.program = l.program;  // how it was built and run (a slide of it builds it again)
  m->program_output_ = std::move(c.output);
  m->problem_ = std::move(c.problem);
  m->races_ = std::move(c.races);
  // A race did not stop the program, but it is shown as a problem is: on the picture.
  m->pick_race();
  m->place_race();
  // The faulting request's kind, found once in the whole trace (the p.record-th record of
  // its launch), for a banner shown over any launch.
  if (const program::Problem& p = m->problem_; p.launch > 0 && p.record >= 0) {
    const trace::Trace& w = *(m->whole_ ? m->whole_ : m->shared_trace_);
    int64_t k = 0;
    for (const trace::Record& r : w.records)
      if (r.launch == p.launch - 1 && k++ == p.record) {
        m->problem_store_ = r.site < w.sites.size() && w.sites[r.site].op == trace::Op::Store;
        break;
      }
  }
  m->source_hash_ = std::move(c.source_hash);
  m->shape_from_ = std::move(c.shape_from);
  m->capture_seconds_ = c.seconds;
  m->note_ = note;
  return m;
}

std::shared_ptr<Session> Session::of_launch(uint32_t k, const analysis::DramModel& dram) const {
  auto m = from_trace(whole_ ? whole_ : shared_trace_, dram, k, hardware_);
  m->origin_ = origin_;
  m->file_ = file_;
  m->spec_.program = spec_.program;
  m->program_output_ = program_output_;
  m->problem_ = problem_;
  m->races_ = races_;
  m->pick_race();
  m->place_race();
  m->problem_store_ = problem_store_;
  m->source_hash_ = source_hash_;
  m->shape_from_ = shape_from_;
  return m;
}

int64_t first_changed_launch(const Session& before, const Session& after, uint32_t skip) {
  const size_t n = before.launches();
  if (n != after.launches() || n < 2) return -1;
  if (before.whole_trace().records.size() + after.whole_trace().records.size() > 2'000'000) return -1;
  const analysis::DramModel& dram = after.report().dram;
  for (uint32_t k = 0; k < n; ++k) {
    if (k == skip) continue;
    if (before.of_launch(k, dram)->totals() != after.of_launch(k, dram)->totals()) return k;
  }
  return -1;
}

uint32_t problem_line(const Session& s, uint32_t file) {
  const program::Problem& p = s.problem();
  if (p.at.empty() || !p.at.front().line || file >= s.trace().files.size()) return 0;
  const std::string& at = p.at.front().file;
  const std::string& name = s.trace().files[file].name;
  auto base = [](const std::string& n) { return n.substr(n.rfind('/') + 1); };
  if (at.empty() ? file == 0 : (at == name || base(at) == base(name))) return p.at.front().line;
  return 0;
}

int64_t Session::problem_step() const {
  if (problem_.kind == "race") return race_step_;
  if (problem_.launch != launch_ + 1 || problem_.record < 0 || uint64_t(problem_.record) >= size()) return -1;
  return problem_.record;
}

void Session::pick_race() {
  // Each launch shows its own first race; one without a race of its own, the program's.
  if (!problem_.empty() && problem_.kind != "race") return;
  program::Races mine;
  for (const auto& r : races_.races)
    if (r.launch == launch_) mine.races.push_back(r);
  if (const auto it = races_.left_out.find(launch_); it != races_.left_out.end()) mine.left_out[launch_] = it->second;
  const auto& launches = (whole_ ? whole_ : shared_trace_)->launches;
  if (!mine.races.empty()) problem_ = program::race_problem(mine, launches);
  else if (problem_.empty()) problem_ = program::race_problem(races_, launches);
}

void Session::place_race() {
  race_step_ = -1;
  if (problem_.kind != "race" || problem_.launch != launch_ + 1 || problem_.at.empty()) return;
  const program::Place& x = problem_.at.front();
  const trace::Trace& t = trace();
  for (uint64_t i = 0; i < t.records.size(); ++i) {
    const auto& r = t.records[i];
    if (r.warp != x.warp || r.site >= t.sites.size()) continue;
    const trace::Site& s = t.sites[r.site];
    if (s.space != trace::Space::Shared || s.line != x.line) continue;
    const trace::Dim3 b = t.launch().block_coords(r.block);
    if (b.x != x.block[0] || b.y != x.block[1] || b.z != x.block[2]) continue;
    race_step_ = int64_t(i);
    return;
  }
}

std::shared_ptr<const analysis::Pipeline> Session::pipeline(uint32_t block) const {
  std::lock_guard<std::mutex> g(pipelines_->mu);
  auto& p = pipelines_->by_block[block];
  if (!p) p = std::make_shared<const analysis::Pipeline>(analysis::pipeline_of(trace(), copies_, block));
  return p;
}

std::shared_ptr<Session> Session::reanalyzed(const analysis::DramModel& dram) const {
  auto m = std::make_shared<Session>(*this);
  m->pipelines_ = std::make_shared<PipelineCache>();
  m->spec_.dram = dram.preset;
  if (!counted_) m->analyse(dram);  // counts mode summed its DRAM figures on the device
  return m;
}

namespace {

// "Lane 31 goes past the end of d_out (byte 16384 of 16384 bytes): a GPU reaches whatever
// lies there, or faults." for a request's lanes past their array's end.
std::string past_end_text(const trace::Trace& t, const trace::Record& r, uint32_t past) {
  const int lane = std::countr_zero(past), n = std::popcount(past);
  const uint32_t b = r.buffer_of(lane);
  const std::string name = b < t.buffers.size() ? t.buffers[b].name : "its array";
  const uint64_t size = b < t.buffers.size() ? t.buffers[b].size_bytes : 0;
  std::string who = n == 1 ? "Lane " + std::to_string(lane) + " goes"
                           : std::to_string(n) + " lanes (from lane " + std::to_string(lane) + ") go";
  return who + " past the end of " + name + " (byte " + std::to_string(r.offset[size_t(lane)]) + " of " +
         std::to_string(size) + "): a GPU reaches whatever lies there, or faults.";
}

}  // namespace

RequestFigures Session::request(uint64_t step) const {
  RequestFigures v;
  const auto& t = trace();
  if (t.records.empty()) return v;
  v.step = std::min<uint64_t>(step, t.records.size() - 1);
  v.trace = &t;
  v.rec = &t.records[v.step];
  if (v.rec->site >= t.sites.size()) return v;
  v.site = &t.sites[v.rec->site];
  if (v.rec->buffer < t.buffers.size()) v.buffer = &t.buffers[v.rec->buffer];
  v.shared = v.site->space == trace::Space::Shared;
  v.modelled = analysis::cost_modelled(v.site->space);
  v.active_lanes = std::popcount(v.rec->active);
  if (!v.modelled) {
    // (no cost figures: the path between SMs is not modelled)
  } else if (v.shared) {
    v.s = analysis::shared_cost(*v.site, *v.rec);
    v.banks = analysis::bank_words(*v.rec, v.site->bytes);
    v.broadcast = analysis::broadcast_lanes(v.banks);
    v.phases = analysis::shared_phases(v.site->bytes);
    if (v.site->form == trace::Form::Matrix) v.matrix = analysis::matrix_phases(*v.rec);
  } else {
    v.g = analysis::global_cost(*v.site, *v.rec);
    v.sectors = analysis::sector_bytes(*v.rec, v.site->bytes);
    v.lines = analysis::touched_granules(*v.rec, v.site->bytes, analysis::kLineBytes);
    v.phases = analysis::global_phases(v.site->bytes);
  }
  v.partner = copies_.partner(v.step);
  v.why = analysis::why(t, *v.rec);
  v.past_end = analysis::lanes_past_end(t, *v.rec, v.site->bytes);
  if (v.past_end) {
    if (!v.why.empty()) v.why[0] = char(std::toupper(static_cast<unsigned char>(v.why[0])));
    v.why = past_end_text(t, *v.rec, v.past_end) + " " + v.why;
  }
  return v;
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
  if (s.counted()) return "all " + grouped(grid) + " blocks (counted)";
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
  for (const trace::Space sp : t.launch().unrecorded_spaces) out += std::string(", ") + to_string(sp) + " not traced";
  return out;
}

GpuTimes gpu_times(const Session& s) {
  GpuTimes g;
  if (!s.trace().timings_json.empty()) {
    g.json = &s.trace().timings_json;
    g.this_run = true;
  } else if (s.hardware() && !s.hardware()->timings_json.empty()) {
    g.json = &s.hardware()->timings_json;
    g.date = s.hardware()->provenance.date.substr(0, 10);
  }
  return g;
}

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
  if (s.origin() == "program") {
    // A program's figure names the program, its kernel and launch, then the step.
    std::string c = std::filesystem::path(s.file()).filename().string() + " · " + t.launch().kernel;
    if (s.launches() > 1) c += " · launch " + std::to_string(s.launch() + 1) + " of " + std::to_string(s.launches());
    return c + " · " + request_label(record, s.size()) + " · " + s.provenance();
  }
  return t.launch().kernel + " · " + params_text(t.launch().params) + " · " + request_label(record, s.size()) + " · " +
         s.provenance();
}

namespace {

// Template arguments and the like are no file name's: transposeTiled<0> -> transposeTiled_0.
std::string file_word(const std::string& w) {
  std::string out;
  for (char c : w) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    if (keep) out += c;
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

}  // namespace

std::string file_stem(const Session& s) {
  const std::string kernel = file_word(s.trace().launch().kernel);
  if (s.origin() != "program") return kernel.empty() ? "trace" : kernel;
  return file_word(std::filesystem::path(s.file()).stem().string()) + "-" + kernel + "-launch" +
         std::to_string(s.launch() + 1);
}

}  // namespace ws::session
