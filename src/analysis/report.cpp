// src/analysis/report.cpp — the report as JSON (`warpscope report --format json`: a row per
// site) and as an aligned text table (`warpscope report`: a row per source line, array,
// space, operation and width, its instructions counted).
#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "analysis/detail.h"

namespace ws::analysis {
namespace {

using json = nlohmann::ordered_json;
using trace::Space;

std::string site_code(const trace::Trace& t, const trace::Site& s) {
  if (!s.code.empty() || s.file >= t.files.size()) return s.code;
  return trace::source_line(t.files[s.file].text, s.line);
}

std::string buffer_name(const trace::Trace& t, uint32_t b) {
  if (b == trace::kNoBuffer) return "(several)";
  return b < t.buffers.size() ? t.buffers[b].name : "#" + std::to_string(b);
}

json dim(const trace::Dim3& d) { return json::array({d.x, d.y, d.z}); }

// One row of the text table: the sites of one source line, array, space, operation and
// width taken together (a compiler unrolls one line of source into tens of instructions).
struct SiteRow {
  SiteStats stats;             // summed over the sites, averages and `why` done again
  std::vector<uint32_t> sites;
};

// A row's figures: sums, and the averages and `why` of the sum, told from the request of
// the site that costs most per request.
SiteRow merge_sites(const trace::Trace& t, const std::vector<const SiteStats*>& group) {
  SiteRow row;
  SiteStats& m = row.stats;
  m.site = group.front()->site;
  const SiteStats* worst = nullptr;
  auto cost = [](const SiteStats& x) { return x.sectors_per_request + x.wavefronts_per_request; };
  for (const SiteStats* g : group) {
    row.sites.push_back(g->site);
    m.requests += g->requests;
    m.lane_accesses += g->lane_accesses;
    m.sectors += g->sectors;
    m.lines += g->lines;
    m.ideal_sectors += g->ideal_sectors;
    m.bytes_requested += g->bytes_requested;
    m.wavefronts += g->wavefronts;
    m.ideal_wavefronts += g->ideal_wavefronts;
    m.bank_conflicts += g->bank_conflicts;
    m.max_way = std::max(m.max_way, g->max_way);
    if (g->requests && g->example < t.records.size() && (!worst || cost(*g) > cost(*worst))) worst = g;
  }
  if (group.size() == 1) {
    m = *group.front();
    return row;
  }
  finish_site(t, worst ? &t.records[worst->example] : nullptr, m);
  if (worst) m.example = worst->example;
  return row;
}

// The rows of the table in order of their first site.
std::vector<SiteRow> site_rows(const trace::Trace& t, const Report& rep) {
  std::vector<std::vector<const SiteStats*>> groups;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, int, int, int>, size_t> index;
  for (const SiteStats& ss : rep.sites) {
    if (ss.site >= t.sites.size()) continue;  // a report of another trace
    const trace::Site& s = t.sites[ss.site];
    const auto key = std::make_tuple(s.file, s.line, s.buffer, int(s.space), int(s.op), int(s.bytes));
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(&ss);
  }
  std::vector<SiteRow> rows;
  for (const auto& g : groups) rows.push_back(merge_sites(t, g));
  return rows;
}

// "ld.shared.f32", "8 × LDS" (alike), "40 instructions: 32 LDS + 8 LDS.U" (not alike).
std::string instructions_text(const trace::Trace& t, const std::vector<uint32_t>& sites) {
  std::vector<std::pair<std::string, size_t>> kinds;
  for (uint32_t s : sites) {
    const std::string& name = t.sites[s].instruction;
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == name; });
    if (it == kinds.end()) kinds.emplace_back(name, 1);
    else ++it->second;
  }
  if (kinds.size() == 1) return sites.size() == 1 ? kinds[0].first : std::to_string(sites.size()) + " × " + kinds[0].first;
  std::string out = std::to_string(sites.size()) + " instructions: ";
  for (size_t i = 0; i < kinds.size(); ++i) out += (i ? " + " : "") + std::to_string(kinds[i].second) + " " + kinds[i].first;
  return out;
}

}  // namespace

std::string dram_json(const DramModel& d) {
  json j = {{"preset", d.preset},
            {"channels", d.channels},
            {"banks", d.banks},
            {"burst_bytes", d.burst_bytes},
            {"xor_hash", d.xor_hash},
            {"note", "teaching model, not the device's real address map"}};
  return j.dump();
}

std::string report_json(const trace::Trace& t, const Report& rep, uint32_t launch) {
  const trace::Launch& l = t.launch();
  json j;
  j["launch"] = launch + 1;  // numbered from 1, as requests are
  j["kernel"] = l.kernel;
  json params = json::object();
  for (const auto& [k, v] : l.params) params[k] = v;
  j["params"] = params;
  j["grid"] = dim(l.grid);
  j["block"] = dim(l.block);
  j["dynamic_shared_bytes"] = l.dynamic_shared_bytes;

  json sites = json::array();
  for (const SiteStats& ss : rep.sites) {
    if (ss.site >= t.sites.size()) continue;  // a report of another trace
    const trace::Site& s = t.sites[ss.site];
    json o;
    o["site"] = ss.site;
    o["file"] = t.file_name(s);
    o["line"] = s.line;
    o["column"] = s.column;
    if (!s.instruction.empty()) o["instruction"] = s.instruction;
    o["code"] = site_code(t, s);
    o["array"] = buffer_name(t, s.buffer);
    o["space"] = trace::to_string(s.space);
    o["op"] = trace::to_string(s.op);
    o["bytes_per_lane"] = s.bytes;
    o["requests"] = ss.requests;
    o["lane_accesses"] = ss.lane_accesses;
    if (!cost_modelled(s.space)) {
      o["cost"] = nullptr;  // distributed shared memory: counted, no cost model (why says so)
    } else if (s.space != Space::Shared) {
      o["sectors"] = ss.sectors;
      o["sectors_per_request"] = ss.sectors_per_request;
      o["ideal_sectors_per_request"] = ss.ideal_sectors_per_request;
      o["efficiency"] = ss.efficiency;
      o["lines"] = ss.lines;
      o["ideal_sectors"] = ss.ideal_sectors;
      o["bytes_requested"] = ss.bytes_requested;
    } else {
      o["wavefronts"] = ss.wavefronts;
      o["ideal_wavefronts"] = ss.ideal_wavefronts;
      o["bank_conflicts"] = ss.bank_conflicts;
      o["max_way"] = ss.max_way;
      o["wavefronts_per_request"] = ss.wavefronts_per_request;
      o["conflicts_per_request"] = ss.conflicts_per_request;
    }
    o["why"] = ss.why;
    sites.push_back(std::move(o));
  }
  j["sites"] = std::move(sites);

  json epochs = json::array();
  for (const EpochStats& e : rep.epochs) {
    json arrays = json::object();
    for (const ArrayEpochStats& a : e.arrays) {
      arrays[buffer_name(t, a.buffer)] = {{"channels_used", a.channels_used},
                                          {"per_channel", a.per_channel},
                                          {"per_bank", a.per_bank},
                                          {"channel_fraction", double(a.channels_used) / double(rep.dram.channels ? rep.dram.channels : 1)},
                                          {"requests", a.requests},
                                          {"bursts", a.bursts}};
    }
    epochs.push_back({{"epoch", e.epoch},
                      {"arrays", std::move(arrays)},
                      {"requests", e.requests},
                      {"sectors", e.sectors},
                      {"ideal_sectors", e.ideal_sectors},
                      {"wavefronts", e.wavefronts},
                      {"bank_conflicts", e.bank_conflicts}});
  }
  j["epochs"] = std::move(epochs);

  j["records"] = rep.records;
  j["dropped_records"] = l.dropped_records;
  if (!l.unrecorded_spaces.empty()) {
    j["unrecorded_spaces"] = json::array();
    for (const trace::Space sp : l.unrecorded_spaces) j["unrecorded_spaces"].push_back(to_string(sp));
  }
  j["blocks_recorded"] = l.blocks.size();
  j["blocks_total"] = l.grid.count();
  // Source text read from a file may hold invalid UTF-8: replace it rather than fail.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string report_text(const trace::Trace& t, const Report& rep) {
  std::ostringstream o;
  if (const uint64_t d = t.launch().dropped_records) o << "(" << d << " records dropped past the capture cap)\n\n";
  for (const trace::Space sp : t.launch().unrecorded_spaces)
    o << "(" << to_string(sp) << " accesses were not traced (--spaces): their figures are unknown, not zero)\n\n";
  // One row per source line, array, space, operation and width.
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"line", "array", "space", "op", "B", "requests", "per request (ideal)", "use", "why"});
  const std::vector<SiteRow> site_row = site_rows(t, rep);
  for (const SiteRow& sr : site_row) {
    const SiteStats& ss = sr.stats;
    const trace::Site& s = t.sites[ss.site];
    std::string cost, use;
    if (!cost_modelled(s.space)) {
      cost = "no cost model";
      use = "-";
    } else if (s.space != Space::Shared) {
      std::string n = detail::num(ss.sectors_per_request);
      cost = n + (n == "1" ? " sector (" : " sectors (") + detail::num(ss.ideal_sectors_per_request) + ")";
      char pct[16];
      std::snprintf(pct, sizeof pct, "%.0f%%", ss.efficiency * 100.0);
      use = ss.requests ? pct : "-";
    } else {
      double ideal = ss.requests ? double(ss.ideal_wavefronts) / double(ss.requests) : 0.0;
      std::string n = detail::num(ss.wavefronts_per_request);
      cost = n + (n == "1" ? " wavefront (" : " wavefronts (") + detail::num(ideal) + ")";
      use = ss.max_way <= 1 ? std::string("no conflict")
                            : std::to_string(ss.max_way) + "-way, " + detail::num(ss.conflicts_per_request) +
                                  (detail::num(ss.conflicts_per_request) == "1" ? " conflict" : " conflicts");
    }
    // A line of another file than the first (a header's __device__ helper) names its file.
    std::string line = std::to_string(s.line);
    if (s.file != 0 && s.file < t.files.size()) {
      const std::string& f = t.files[s.file].name;
      line = f.substr(f.find_last_of('/') + 1) + ":" + line;
    }
    rows.push_back({line, buffer_name(t, s.buffer), trace::to_string(s.space),
                    trace::to_string(s.op), std::to_string(s.bytes), std::to_string(ss.requests), cost, use,
                    ss.why});
  }
  // A trace that knows its instructions (a program's PTX) shows them beside the line.
  bool instructions = false;
  for (const SiteStats& ss : rep.sites) instructions |= ss.site < t.sites.size() && !t.sites[ss.site].instruction.empty();
  if (instructions) {
    size_t i = 0;
    for (auto& r : rows) {
      r.insert(r.begin() + 5, i == 0 ? std::string("instruction") : instructions_text(t, site_row[i - 1].sites));
      ++i;
    }
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::vector<bool> right{true, false, false, false, true, true, false, false, false};
  if (instructions) right.insert(right.begin() + 5, false);
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      std::string cell = r[c];
      if (c + 1 < r.size()) {
        std::string pad(width[c] - cell.size(), ' ');
        cell = right[c] ? pad + cell : cell + pad;
        cell += "  ";
      }
      line += cell;
    }
    o << line << "\n";
  }
  // The source lines, once each, in line order.
  std::vector<uint32_t> lines;
  for (const SiteStats& ss : rep.sites)
    if (ss.site < t.sites.size()) lines.push_back(ss.site);
  std::sort(lines.begin(), lines.end(), [&](uint32_t a, uint32_t b) { return t.sites[a].line < t.sites[b].line; });
  uint32_t last = 0;
  for (uint32_t i : lines) {
    const trace::Site& s = t.sites[i];
    if (s.line == last) continue;
    o << (last ? "" : "\n") << std::setw(int(width[0])) << s.line << "  " << site_code(t, s) << "\n";
    last = s.line;
  }

  // DRAM, per epoch.
  o << "\nDRAM (" << rep.dram.describe() << "), bursts per epoch:\n";
  if (rep.epochs.empty()) o << "  no global accesses\n";
  const size_t kShow = 8;
  for (size_t i = 0; i < rep.epochs.size() && i < kShow; ++i) {
    const EpochStats& e = rep.epochs[i];
    for (const ArrayEpochStats& a : e.arrays) {
      o << "  epoch " << e.epoch << "  " << buffer_name(t, a.buffer) << ": " << a.bursts << " bursts, "
        << a.channels_used << "/" << rep.dram.channels << " channels busy";
      if (rep.dram.channels <= 8) {
        o << "  [";
        for (size_t c = 0; c < a.per_channel.size(); ++c) o << (c ? " " : "") << a.per_channel[c];
        o << "]";
      } else if (!a.per_channel.empty()) {
        auto [lo, hi] = std::minmax_element(a.per_channel.begin(), a.per_channel.end());
        o << "  (" << *lo << " to " << *hi << " per channel)";
      }
      o << "\n";
    }
  }
  if (rep.epochs.size() > kShow) o << "  ... " << rep.epochs.size() - kShow << " more epochs\n";
  return o.str();
}

}  // namespace ws::analysis
