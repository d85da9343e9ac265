// src/program/races.cpp — a program's shared-memory races: the device's records made into
// the program's words, their one-line text, and the file that carries them from the
// program's process to warpscope (a tab-separated line per race).
#include "program/races.h"

#include <sstream>

#include "program/program.h"
#include "ptx/machine.h"

namespace ws::program {

namespace {

std::string dim_text(const trace::Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// Linear index `i` in a shape `d` as (x, y, z).
trace::Dim3 coords(uint64_t i, const trace::Dim3& d) {
  return {uint32_t(i % d.x), uint32_t(i / d.x % d.y), uint32_t(i / (uint64_t(d.x) * d.y))};
}

std::string where_text(const RaceEnd& e) {
  const std::string base = e.file.substr(e.file.rfind('/') + 1);
  return (base.empty() ? "line " : base + ":") + std::to_string(e.line);
}

const char* verb(const std::string& access) {
  return access == "read" ? "read" : access == "atomic" ? "updated atomically" : "written";
}

// A name or path as one field: tabs and line ends would split the line.
std::string field(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

std::string race_text(const Race& r) {
  return "race on word " + std::to_string(r.offset / 4) + " of " + r.array + " (byte " + std::to_string(r.offset) +
         ") in block " + dim_text(r.block) + " of launch " + std::to_string(r.launch + 1) + " (" + r.kernel +
         "): " + where_text(r.ends[0]) + " " + verb(r.ends[0].access) + " by thread " + dim_text(r.ends[0].thread) +
         ", " + where_text(r.ends[1]) + " " + verb(r.ends[1].access) + " by thread " + dim_text(r.ends[1].thread) +
         " of another warp, no barrier between";
}

Problem race_problem(const Races& r, const std::vector<trace::Launch>& launches) {
  Problem p;
  if (r.races.empty()) return p;
  const Race& x = r.races.front();
  const trace::Dim3 b = x.launch < launches.size() ? launches[x.launch].block : trace::Dim3{};
  p.kind = "race";
  p.launch = x.launch + 1;
  p.array = x.array;
  p.offset = int64_t(x.offset);
  for (const RaceEnd& e : x.ends) {
    Place at;
    at.file = e.file;
    at.line = e.line;
    at.placed = true;
    at.thread[0] = e.thread.x, at.thread[1] = e.thread.y, at.thread[2] = e.thread.z;
    at.block[0] = x.block.x, at.block[1] = x.block.y, at.block[2] = x.block.z;
    at.warp = uint32_t((e.thread.x + b.x * (e.thread.y + uint64_t(b.y) * e.thread.z)) / 32);
    p.at.push_back(at);
  }
  p.message = race_text(x);
  size_t more = r.races.size() - 1;
  for (auto [launch, n] : r.left_out) more += n;
  if (more) p.message += " (and " + std::to_string(more) + " more: `warpscope run` lists them)";
  return p;
}

std::vector<std::string> race_lines(const Races& r) {
  std::vector<std::string> out;
  for (const Race& x : r.races) out.push_back(race_text(x));
  for (auto [launch, n] : r.left_out)
    out.push_back("launch " + std::to_string(launch + 1) + " raced on " + std::to_string(n) + " more pair" +
                  (n == 1 ? "" : "s") + " of lines (its first " + std::to_string(ptx::kRacesPerLaunch) + " are listed)");
  return out;
}

Race race_of(const ptx::Race& r, const ptx::Module& m, const ptx::KernelLaunch& launch) {
  Race out;
  out.launch = r.launch;
  out.kernel = ptx::kernel_name(launch.kernel);
  out.block = coords(r.block, launch.grid);
  out.array = r.name;
  out.offset = r.offset;
  const ptx::RaceEnd* ends[2] = {&r.first, &r.second};
  for (size_t i = 0; i < 2; ++i) {
    const ptx::RaceEnd& e = *ends[i];
    RaceEnd& o = out.ends[i];
    auto f = m.files.find(e.file);
    o.file = f == m.files.end() ? "" : f->second;
    o.line = e.line;
    o.column = e.column;
    o.thread = coords(e.thread, launch.block);
    o.access = e.access == ptx::RaceEnd::Read ? "read" : e.access == ptx::RaceEnd::Atomic ? "atomic" : "write";
  }
  return out;
}

// race LAUNCH KERNEL BX BY BZ ARRAY OFFSET, then each end: FILE LINE COLUMN TX TY TZ ACCESS;
// left_out LAUNCH COUNT.
std::string races_file_text(const Races& rs) {
  std::ostringstream o;
  for (const Race& r : rs.races) {
    o << "race\t" << r.launch << '\t' << field(r.kernel) << '\t' << r.block.x << '\t' << r.block.y << '\t' << r.block.z
      << '\t' << field(r.array) << '\t' << r.offset;
    for (const RaceEnd& e : r.ends)
      o << '\t' << field(e.file) << '\t' << e.line << '\t' << e.column << '\t' << e.thread.x << '\t' << e.thread.y << '\t'
        << e.thread.z << '\t' << e.access;
    o << '\n';
  }
  for (auto [launch, n] : rs.left_out) o << "left_out\t" << launch << '\t' << n << '\n';
  return o.str();
}

Races read_races(const std::string& text) {
  Races out;
  std::istringstream in(text);
  size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty()) continue;
    std::vector<std::string> f;
    for (size_t at = 0;;) {
      const size_t tab = line.find('\t', at);
      f.push_back(line.substr(at, tab == std::string::npos ? std::string::npos : tab - at));
      if (tab == std::string::npos) break;
      at = tab + 1;
    }
    const std::string bad = "the race list's line " + std::to_string(number) + " does not read: " + line.substr(0, 60);
    auto num = [&](size_t i) -> uint64_t {
      const std::string& s = f[i];
      if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) throw Error(bad);
      return std::stoull(s);
    };
    auto u32 = [&](size_t i) {
      const uint64_t v = num(i);
      if (v > UINT32_MAX) throw Error(bad);
      return uint32_t(v);
    };
    if (f[0] == "left_out" && f.size() == 3) {
      out.left_out[u32(1)] += u32(2);
      continue;
    }
    if (f[0] != "race" || f.size() != 22) throw Error(bad);
    Race r;
    r.launch = u32(1);
    r.kernel = f[2];
    r.block = {u32(3), u32(4), u32(5)};
    r.array = f[6];
    r.offset = num(7);
    for (size_t i = 0; i < 2; ++i) {
      const size_t b = 8 + i * 7;
      RaceEnd& e = r.ends[i];
      e.file = f[b];
      e.line = u32(b + 1);
      e.column = u32(b + 2);
      e.thread = {u32(b + 3), u32(b + 4), u32(b + 5)};
      e.access = f[b + 6];
      if (e.access != "read" && e.access != "write" && e.access != "atomic") throw Error(bad);
    }
    out.races.push_back(std::move(r));
  }
  return out;
}

}  // namespace ws::program
