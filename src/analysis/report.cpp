// src/analysis/report.cpp — the report as JSON (`warpscope report --format json`) and as
// an aligned text table (`warpscope report`).
#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

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
    if (s.space != Space::Shared) {
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
  j["blocks_recorded"] = l.blocks.size();
  j["blocks_total"] = l.grid.count();
  // Source text read from a file may hold invalid UTF-8: replace it rather than fail.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string report_text(const trace::Trace& t, const Report& rep) {
  std::ostringstream o;
  if (const uint64_t d = t.launch().dropped_records) o << "(" << d << " records dropped past the capture cap)\n\n";
  // One row per site.
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"line", "array", "space", "op", "B", "requests", "per request (ideal)", "use", "why"});
  std::vector<uint32_t> row_site;  // the site of rows[i + 1]
  for (const SiteStats& ss : rep.sites) {
    if (ss.site >= t.sites.size()) continue;
    const trace::Site& s = t.sites[ss.site];
    std::string cost, use;
    if (s.space != Space::Shared) {
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
    row_site.push_back(ss.site);
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
      r.insert(r.begin() + 5, i == 0 ? std::string("instruction") : t.sites[row_site[i - 1]].instruction);
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
