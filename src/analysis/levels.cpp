#include "analysis/levels.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include <iterator>
#include <set>
#include <tuple>

#include "analysis/analysis.h"

namespace ws::analysis {

namespace {

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

using Key = std::tuple<std::string, uint32_t, int, int>;  // file, line, space, op

struct Side {
  std::map<Key, std::map<std::pair<std::string, uint32_t>, std::pair<uint64_t, double>>> ops;  // → (count, cost sum)
  std::map<Key, double> bytes;
  std::map<Key, std::string> code;
  std::set<Key> bulk;  // lines whose accesses are TMA (bulk) copies
  double blocks = 1;
};

// The blocks of a launch recorded whole: every block with records, less the one the
// record cap cut short (records come block by block, so it is the last one).
std::set<uint32_t> whole_blocks(const trace::Trace& t, uint32_t launch) {
  std::set<uint32_t> b;
  uint32_t last = 0;
  for (const trace::Record& r : t.records)
    if (r.launch == launch) b.insert(r.block), last = r.block;
  if (!b.empty() && launch < t.launches.size() && t.launches[launch].dropped_records > 0) b.erase(last);
  return b;
}

// One side's instructions, line by line, over the blocks in `only` (empty: every block).
Side side_of(const trace::Trace& t, uint32_t launch, const std::set<uint32_t>& only) {
  Side s;
  std::set<uint32_t> blocks;
  for (const trace::Record& r : t.records) {
    if (r.launch != launch) continue;
    if (!only.empty() && !only.count(r.block)) continue;
    const trace::Site& site = t.sites[r.site];
    if (site.space != trace::Space::Global && site.space != trace::Space::Shared) continue;
    blocks.insert(r.block);
    const Key k{base_name(t.file_name(site)), site.line, int(site.space), int(site.op)};
    double cost = 0;
    if (site.space == trace::Space::Shared) cost = shared_cost(r, site.bytes).wavefronts;
    else cost = global_cost(r, site.bytes).sectors;
    // A catalog kernel's trace is the source's own: its accesses named by width and kind.
    const std::string name = !site.instruction.empty()
                                 ? site.instruction
                                 : std::to_string(site.bytes) + "-byte " + trace::to_string(site.space) + " " + trace::to_string(site.op);
    auto& e = s.ops[k][{name, site.bytes}];
    e.first += 1;
    e.second += cost;
    s.bytes[k] += double(std::popcount(r.active)) * site.bytes;
    if (!site.code.empty()) s.code[k] = site.code;
    if (site.form == trace::Form::BulkRead || site.form == trace::Form::BulkWrite) s.bulk.insert(k);
  }
  s.blocks = std::max<double>(1, double(blocks.size()));
  return s;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// Lines of one file, space and direction that differ one by one but together run the
// instructions and bytes of their source: ptxas's line table gave some of one line's
// instructions to another (unrolled loops over neighbouring lines do this), which says
// nothing about how many the hardware ran. Their verdicts say so instead of a per-line cause.
void attribute_across_lines(std::vector<LineLevels>& lines) {
  std::map<std::tuple<std::string, int, int>, std::vector<LineLevels*>> groups;
  for (LineLevels& l : lines)
    if (!l.verdict.empty()) groups[{l.file, int(l.space), int(l.op)}].push_back(&l);
  for (auto& [key, g] : groups) {
    if (g.size() < 2) continue;
    double n = 0, m = 0, nb = 0, mb = 0;
    for (const LineLevels* l : g) n += l->ptx_per_block, m += l->sass_per_block, nb += l->ptx_bytes, mb += l->sass_bytes;
    if (n <= 0 || std::abs(n - m) >= 0.5 || std::abs(nb - mb) > 0.01 * nb + 1) continue;
    std::string names;
    for (size_t i = 0; i < g.size(); ++i)
      names += (i == 0 ? "" : i + 1 == g.size() ? " and " : ", ") + std::to_string(g[i]->line);
    for (LineLevels* l : g)
      l->verdict = "lines " + names + " together: the source's " + figure_text(n) +
                   " instructions a block, the same bytes; ptxas's line table gives some of them to another of these lines";
  }
}

}  // namespace

std::vector<LineLevels> compare_levels(const trace::Trace& ptx, uint32_t ptx_launch, const trace::Trace& sass,
                                       uint32_t sass_launch) {
  // Per block over the blocks both traces hold whole: a capped trace stops part way
  // through a block, and the two backends may have recorded different blocks.
  std::set<uint32_t> common;
  {
    const std::set<uint32_t> x = whole_blocks(ptx, ptx_launch), y = whole_blocks(sass, sass_launch);
    std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::inserter(common, common.begin()));
  }
  const Side a = side_of(ptx, ptx_launch, common), b = side_of(sass, sass_launch, common);
  std::set<Key> keys;
  for (const auto& [k, v] : a.ops) keys.insert(k);
  for (const auto& [k, v] : b.ops) keys.insert(k);
  std::vector<LineLevels> out;
  for (const Key& k : keys) {
    LineLevels l;
    l.file = std::get<0>(k);
    l.line = std::get<1>(k);
    l.space = trace::Space(std::get<2>(k));
    l.op = trace::Op(std::get<3>(k));
    if (auto it = a.code.find(k); it != a.code.end()) l.code = it->second;
    else if (auto jt = b.code.find(k); jt != b.code.end()) l.code = jt->second;
    auto fill = [&](const Side& s, std::vector<LevelOp>& ops, double& per_block, double& bytes) {
      auto it = s.ops.find(k);
      if (it == s.ops.end()) return;
      for (const auto& [name, e] : it->second) {
        ops.push_back({name.first, name.second, double(e.first) / s.blocks, e.first ? e.second / double(e.first) : 0});
        per_block += double(e.first) / s.blocks;
      }
      bytes = s.bytes.at(k) / s.blocks;
      std::sort(ops.begin(), ops.end(), [](const LevelOp& x, const LevelOp& y) { return x.bytes < y.bytes; });
    };
    fill(a, l.ptx, l.ptx_per_block, l.ptx_bytes);
    fill(b, l.sass, l.sass_per_block, l.sass_bytes);
    // Why the hardware ran other instructions than the PTX asked for.
    const double n = l.ptx_per_block, m = l.sass_per_block;
    uint32_t wide = 0, narrow = ~0u;
    for (const LevelOp& o : l.sass) wide = std::max(wide, o.bytes);
    for (const LevelOp& o : l.ptx) narrow = std::min(narrow, o.bytes);
    if (n == 0 && m > 0) {
      l.verdict = "only in the SASS: an access the PTX made elsewhere or through another space";
    } else if (m == 0 && n > 0 && a.bulk.count(k)) {
      l.verdict = "a TMA copy: the tensor memory accelerator moved these bytes, which the GPU tracer cannot "
                  "see (the Sanitizer API reports no TMA access)";
    } else if (m == 0 && n > 0) {
      l.verdict = "not run as memory instructions on the GPU (kept in registers, or folded away by ptxas)";
    } else if (std::abs(n - m) < 0.5 && std::abs(l.ptx_bytes - l.sass_bytes) < 1) {
      l.verdict = "";  // the same
    } else if (m < n && wide > narrow && std::abs(l.ptx_bytes - l.sass_bytes) <= 0.01 * l.ptx_bytes + 1) {
      l.verdict = "ptxas merged " + std::to_string(wide / narrow) + " scalar " + std::to_string(narrow) +
                  "-byte accesses into one " + std::to_string(wide) + "-byte instruction (consecutive addresses): " +
                  fmt("%.1f%%", 100.0 * (1 - m / n)) + " fewer instructions for the same bytes";
    } else if (m < n) {
      l.verdict = fmt("%.1f%%", 100.0 * (1 - m / n)) +
                  " fewer instructions on the GPU: ptxas kept a value in a register instead of loading it again";
    } else {
      l.verdict = fmt("%.1f%%", 100.0 * (m / n - 1)) + " more instructions on the GPU: ptxas split or duplicated them";
    }
    out.push_back(std::move(l));
  }
  std::sort(out.begin(), out.end(), [](const LineLevels& x, const LineLevels& y) {
    return std::tie(x.file, x.line, x.space, x.op) < std::tie(y.file, y.line, y.space, y.op);
  });
  attribute_across_lines(out);
  return out;
}

bool names_instructions(const trace::Trace& t) {
  return std::any_of(t.sites.begin(), t.sites.end(), [](const trace::Site& s) { return !s.instruction.empty(); });
}

std::string level_ops_text(const std::vector<LevelOp>& ops, const std::string& none) {
  std::string out;
  for (const LevelOp& o : ops) {
    // A described access ("4-byte shared load") in the plural; an opcode as it is.
    const bool plural = o.instruction.find(' ') != std::string::npos && std::abs(o.per_block - 1) > 1e-9;
    out += (out.empty() ? "" : " + ") + figure_text(o.per_block) + " " + o.instruction + (plural ? "s" : "");
  }
  return out.empty() ? none : out;
}

}  // namespace ws::analysis
