// src/session/report.cpp — `warpscope report`'s text and JSON, and the wording of what a
// GPU ran for a line.
#include "session/report.h"

#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/analysis.h"
#include "analysis/levels.h"
#include "program/races.h"
#include "trace/bench.h"

namespace ws::session {

std::string hardware_text(const LineHardware& h) {
  const analysis::LineLevels& l = h.levels;
  std::string text = h.gpu + " ran " + analysis::level_ops_text(l.sass, "none") + " a block (" +
                     (h.ptx ? "PTX: " : "the source: ") + analysis::level_ops_text(l.ptx, "none") + ")";
  text += l.verdict.empty() ? ": the same" : ": " + l.verdict;
  return text;
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
  for (const SourceText& f : s.sources()) {
    if (f.stats.empty()) continue;
    out += std::string(out.empty() ? "" : "\n") + "source lines (" + f.name +
           (out.empty() ? "): cost per line, as the source panel's gutter shows it\n" : "):\n");
    for (const auto& [line, ls] : f.stats) {
      char num[16];
      std::snprintf(num, sizeof num, "  %5u  ", line);
      std::string badge = ls.badge;  // a column of 28 bytes; a longer badge pushes the code right
      if (badge.size() < 28) badge.append(28 - badge.size(), ' ');
      out += num + badge + "  " + code_of(f, line) + "\n";
      for (const LineHardware& h : ls.hardware) out += "         " + std::string(28, ' ') + "  └ " + hardware_text(h) + "\n";
    }
  }
  return out;
}

std::string source_lines_json(const Session& s) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const SourceText& f : s.sources()) {
    for (const auto& [line, ls] : f.stats) {
      nlohmann::ordered_json j;
      if (f.file != 0) j["file"] = f.name;  // a header's line (the kernel's own file needs no name)
      j["line"] = line;
      j["code"] = code_of(f, line);
      j["requests"] = ls.requests;
      if (!ls.hardware.empty()) {
        nlohmann::ordered_json hw = nlohmann::ordered_json::array();
        for (const LineHardware& h : ls.hardware) hw.push_back(hardware_text(h));
        j["hardware"] = hw;
      }
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

namespace {

std::string dim_text(const trace::Dim3& d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

// A trace read back (a file, or the one a program's run wrote): no capture of ours to time or check.
bool from_file(const Session& s) { return s.origin() == "file" || s.origin() == "program"; }

// The emulated device's shared-memory races in the launch shown, a line each.
std::vector<std::string> launch_races(const Session& s) {
  std::vector<std::string> out;
  for (const program::Race& r : s.races().races)
    if (r.launch == s.launch()) out.push_back(program::race_text(r));
  return out;
}

// The launch header of the text report.
void header_text(std::ostream& out, const Session& s) {
  const trace::Trace& t = s.trace();
  const trace::Launch& l = t.launch();
  out << "kernel    " << l.kernel << (s.kernel() ? "  — " + s.kernel()->title : "") << "\n";
  if (!l.params.empty()) out << "params    " << params_text(l.params) << "\n";
  out << "launch    grid " << dim_text(l.grid) << " × block " << dim_text(l.block);
  if (l.dynamic_shared_bytes) out << ", " << l.dynamic_shared_bytes << " B dynamic shared memory";
  out << "\n";
  const trace::Provenance& p = t.provenance;
  if (s.launches() > 1) out << "launch    " << s.launch() + 1 << " of " << s.launches() << "\n";
  if (s.origin() == "program") {
    out << "program   " << s.file() << ", run on the " << p.device << "\n";
    if (!l.engine.empty() && l.seconds > 0) {
      char secs[96];
      std::snprintf(secs, sizeof secs, "%.3f s, %.3g lane accesses/s", l.seconds, double(l.lane_accesses) / l.seconds);
      out << "emulated  on the " << l.engine << " engine: " << l.lane_accesses << " lane accesses in " << secs << "\n";
    }
  }
  else if (!from_file(s))
    out << "backend   " << p.backend << " (" << p.device << ")\n";
  else
    out << "backend   file, recorded by " << p.backend << " (" << p.device << ") on " << p.date << " with warpscope "
        << p.version << "\n";
  if (s.counted())
    out << "counted   all " << l.grid.count() << " blocks on the GPU (counts mode: statistics summed on the "
        << "device, no addresses stored), " << s.report().records << " requests";
  else
    out << "recorded  " << l.blocks.size() << " of " << l.grid.count() << " blocks, " << t.records.size() << " requests";
  if (l.dropped_records) out << " (" << l.dropped_records << " more past the record cap were dropped)";
  for (const trace::Space sp : l.unrecorded_spaces) out << ", " << to_string(sp) << " accesses not traced";
  if (!from_file(s)) {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.3f s", s.capture_seconds());
    out << ", " << s.lane_accesses() << " lane accesses in " << secs;
  }
  out << "\n";
  if (!from_file(s)) out << "check     " << s.check_text() << "\n";
  if (!s.note().empty()) out << "note      " << s.note() << "\n";
  for (const std::string& r : launch_races(s)) out << "race      " << r << "\n";
  out << "\n";
}

// One launch's report as an entry of the JSON report's "launches" list.
nlohmann::ordered_json launch_json(const Session& s, int64_t step) {
  using json = nlohmann::ordered_json;
  const trace::Trace& t = s.trace();
  const trace::Launch& l = t.launch();
  json j = json::parse(analysis::report_json(t, s.report(), s.launch()));
  j.erase("dram_model");
  if (s.counted()) j["blocks_recorded"] = l.grid.count();
  j["records"] = t.records.size();
  if (!l.engine.empty()) {  // the emulated device's own measure of the launch
    j["engine"] = l.engine;
    j["emulated_seconds"] = l.seconds;
    j["lane_accesses"] = l.lane_accesses;
  }
  if (const std::vector<std::string> races = launch_races(s); !races.empty()) j["races"] = races;
  j["source_lines"] = json::parse(source_lines_json(s));
  if (step >= 0) j["request"] = json::parse(request_json(s, uint64_t(step)));
  return j;
}

// Whether two launches are alike: the same kernel, grid, block and dynamic shared memory.
bool alike(const trace::Launch& a, const trace::Launch& b) {
  return a.kernel == b.kernel && a.grid == b.grid && a.block == b.block && a.dynamic_shared_bytes == b.dynamic_shared_bytes;
}

// How many sessions of `shown` from `i` on are unrecorded launches alike, one after another
// in the program (0 when shown[i] was recorded): the report gives them one line.
size_t unrecorded_run(const std::vector<std::shared_ptr<const Session>>& shown, size_t i) {
  const trace::Launch& first = shown[i]->trace().launch();
  if (first.recorded || shown[i]->counted()) return 0;
  size_t n = 1;
  while (i + n < shown.size() && shown[i + n]->launch() == shown[i]->launch() + n) {
    const trace::Launch& l = shown[i + n]->trace().launch();
    if (l.recorded || !alike(l, first)) break;
    ++n;
  }
  return n;
}

// What a run of unrecorded launches stands for: the figures summed, and the last recorded
// launch alike before it (the one whose report they share), 0 when none.
struct UnrecordedRun {
  uint32_t first = 0, last = 0;  // numbered from 1
  uint32_t as = 0;
  uint64_t lane_accesses = 0;
  double seconds = 0;
  size_t repeated = 0;  // of them, not run again (trace::Launch::same_as)
  size_t reduced = 0;   // of those, with their reductions kept (trace::Launch::reductions_due)
};
UnrecordedRun unrecorded_of(const std::vector<std::shared_ptr<const Session>>& shown, size_t i, size_t n) {
  UnrecordedRun r;
  r.first = shown[i]->launch() + 1;
  r.last = shown[i + n - 1]->launch() + 1;
  for (size_t k = i; k < i + n; ++k) {
    r.lane_accesses += shown[k]->trace().launch().lane_accesses;
    r.seconds += shown[k]->trace().launch().seconds;
    r.repeated += shown[k]->trace().launch().same_as != 0;
    r.reduced += shown[k]->trace().launch().reductions_due;
  }
  const auto& all = shown[i]->whole_trace().launches;
  for (uint32_t k = shown[i]->launch(); k-- > 0;)
    if (all[k].recorded && alike(all[k], shown[i]->trace().launch())) {
      r.as = k + 1;
      break;
    }
  return r;
}

// "launches 4–301: MatrixMulCUDA<32> ×298, as launch 3 (not recorded: …)".
std::string unrecorded_text(const std::vector<std::shared_ptr<const Session>>& shown, size_t i, size_t n) {
  const UnrecordedRun r = unrecorded_of(shown, i, n);
  const trace::Launch& l = shown[i]->trace().launch();
  std::string out = n > 1 ? "launches  " + std::to_string(r.first) + "–" + std::to_string(r.last)
                          : "launch    " + std::to_string(r.first);
  out += ": " + l.kernel + " ×" + std::to_string(n);
  out += r.as ? ", as launch " + std::to_string(r.as) : ", grid " + dim_text(l.grid) + " × block " + dim_text(l.block);
  char figures[96];
  std::snprintf(figures, sizeof figures, " (not recorded: %llu lane accesses in %.3f s", (unsigned long long)r.lane_accesses,
                r.seconds);
  out += figures;
  // Launches alike with the same parameters on unchanged bytes (ptx::Device::repeats).
  if (r.repeated)
    out += std::string("; ") + (r.repeated == n ? "" : std::to_string(r.repeated) + " of them ") +
           "not run again: same parameters and input bytes as before, the outputs already in place" +
           (r.reduced ? std::string(" and their atomic updates kept, made in order when the array they update is next read")
                      : std::string());
  return out + ")\n";
}

nlohmann::ordered_json unrecorded_json(const std::vector<std::shared_ptr<const Session>>& shown, size_t i, size_t n) {
  const UnrecordedRun r = unrecorded_of(shown, i, n);
  const trace::Launch& l = shown[i]->trace().launch();
  nlohmann::ordered_json j;
  j["launches"] = {r.first, r.last};
  j["count"] = n;
  j["kernel"] = l.kernel;
  j["grid"] = {l.grid.x, l.grid.y, l.grid.z};
  j["block"] = {l.block.x, l.block.y, l.block.z};
  j["dynamic_shared_bytes"] = l.dynamic_shared_bytes;
  j["recorded"] = false;
  j["as_launch"] = r.as ? nlohmann::ordered_json(r.as) : nlohmann::ordered_json(nullptr);
  j["lane_accesses"] = r.lane_accesses;
  j["seconds"] = r.seconds;
  if (!l.engine.empty()) {
    j["engine"] = l.engine;
    j["emulated_seconds"] = r.seconds;
  }
  j["not_run_again"] = r.repeated;
  j["updates_kept"] = r.reduced;
  return j;
}

// Counts mode on a GPU: the GPU's own counters beside the model's totals, a line per access
// kind ("GPU counters (GH100, CUPTI, 4 passes): ...", then "  global loads   requests ...").
std::string hw_text(const HwCounts& hw) {
  if (!hw.unavailable.empty()) {
    const std::string prefix = "GPU counters: ";
    const std::string why = hw.unavailable.rfind(prefix, 0) == 0 ? hw.unavailable.substr(prefix.size()) : hw.unavailable;
    return "GPU counters not read: " + why + "\n";
  }
  if (hw.rows.empty()) return "";
  char head[160];
  std::snprintf(head, sizeof head, "GPU counters (%s, CUPTI range profiler, %d pass%s, %.1f ms), whole grid; model in brackets where it differs:\n",
                hw.chip.c_str(), hw.passes, hw.passes == 1 ? "" : "es", hw.ms);
  std::string out = head;
  std::string access;
  for (const HwFigure& f : hw.rows) {
    if (f.access != access) {
      if (!access.empty()) out += "\n";
      access = f.access;
      char a[24];
      std::snprintf(a, sizeof a, "  %-15s", f.access.c_str());
      out += a;
    } else {
      out += ", ";
    }
    out += std::to_string(f.counted) + " " + f.figure;
    if (f.model != f.counted) out += " [" + std::to_string(f.model) + "]";
  }
  return out + "\n";
}

nlohmann::ordered_json hw_json(const HwCounts& hw) {
  nlohmann::ordered_json j;
  if (!hw.unavailable.empty()) {
    j["unavailable"] = hw.unavailable;
    return j;
  }
  j["chip"] = hw.chip;
  j["passes"] = hw.passes;
  j["ms"] = hw.ms;
  j["figures"] = nlohmann::ordered_json::array();
  for (const HwFigure& f : hw.rows)
    j["figures"].push_back({{"access", f.access}, {"figure", f.figure}, {"counted", f.counted}, {"model", f.model}});
  return j;
}

// Where a program's GPU times come from, as the reports say it.
std::string times_from(const GpuTimes& g) { return g.this_run ? "this run" : "the replay pack, recorded " + g.date; }

}  // namespace

std::string report_text(const std::vector<std::shared_ptr<const Session>>& shown, int64_t step) {
  std::ostringstream out;
  bool unrecorded_before = false;  // the previous entry was a line of unrecorded launches
  for (size_t i = 0; i < shown.size(); ++i) {
    const Session& s = *shown[i];
    if (const size_t n = unrecorded_run(shown, i)) {
      out << (i && !unrecorded_before ? "\n" : "") << unrecorded_text(shown, i, n);
      i += n - 1;
      unrecorded_before = true;
      continue;
    }
    if (i) out << "\n";
    unrecorded_before = false;
    header_text(out, s);
    out << analysis::report_text(s.trace(), s.report());
    if (std::string hw = hw_text(s.hw_counts()); !hw.empty()) out << "\n" << hw;
    if (std::string lines = source_lines_text(s); !lines.empty()) out << "\n" << lines;
    if (step >= 0) out << "\n" << request_text(s, uint64_t(step));
  }
  if (const GpuTimes g = gpu_times(*shown.front()); g.json) {
    trace::BenchResult b;
    std::string error;
    if (trace::read_bench(*g.json, b, error))
      out << "\n" << (g.this_run ? "" : "[" + times_from(g) + "] ") << trace::program_times_text(b);
  }
  return out.str();
}

std::string report_json(const std::vector<std::shared_ptr<const Session>>& shown, int64_t step) {
  using json = nlohmann::ordered_json;
  const Session& s = *shown.front();
  const trace::Provenance& p = s.trace().provenance;
  json j;
  j["report_version"] = 2;
  j["backend"] = s.origin() == "program" ? "program" : from_file(s) ? "file" : p.backend;
  if (s.origin() == "program") j["program"] = s.file();
  j["device"] = p.device;
  j["date"] = p.date;
  j["version"] = p.version;
  if (s.origin() == "file") j["recorded_with"] = p.backend;
  if (!from_file(s)) j["mode"] = s.counted() ? "counts" : "records";
  j["dram_model"] = json::parse(analysis::dram_json(s.report().dram));
  if (!from_file(s)) {
    j["check"] = {{"checked", s.checked()},
                  {"max_rel_error", s.max_rel_error()},
                  {"matches_reference", s.checked() && !s.differs()}};
    j["lane_accesses"] = s.lane_accesses();
    j["seconds"] = s.capture_seconds();
  }
  if (!s.note().empty()) j["note"] = s.note();
  if (!s.hw_counts().rows.empty() || !s.hw_counts().unavailable.empty()) j["gpu_counters"] = hw_json(s.hw_counts());
  if (const GpuTimes g = gpu_times(s); g.json) {
    j["gpu_times"] = json::parse(*g.json, nullptr, false);
    j["gpu_times_from"] = times_from(g);
  }
  j["launches"] = json::array();
  for (size_t i = 0; i < shown.size(); ++i) {
    if (const size_t n = unrecorded_run(shown, i)) {
      j["launches"].push_back(unrecorded_json(shown, i, n));
      i += n - 1;
    } else {
      j["launches"].push_back(launch_json(*shown[i], step));
    }
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace ws::session
