#include "analysis/cluster.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/detail.h"

namespace ws::analysis {

namespace {

// The bulk copies among a site's records of one CTA, given as (warp, seq): a program's copy
// is one seq (its records share it); a catalog kernel's box is a run of consecutive seqs of
// its warp (one record for each 32 of its 16-byte pieces, nothing recorded between them).
uint64_t instructions(const std::set<std::pair<uint32_t, uint32_t>>& copies) {
  uint64_t n = 0;
  std::pair<uint32_t, uint32_t> last{~0u, ~0u};
  for (const auto& c : copies) {
    if (c.first != last.first || c.second != last.second + 1) ++n;
    last = c;
  }
  return n;
}

}  // namespace

uint32_t cluster_rank(const trace::Launch& l, uint32_t block) {
  const trace::Dim3 c = l.cluster_dims(), b = l.block_coords(block);
  return b.x % c.x + c.x * (b.y % c.y + c.y * (b.z % c.z));
}

uint32_t cluster_index(const trace::Launch& l, uint32_t block) {
  const trace::Dim3 c = l.cluster_dims(), b = l.block_coords(block), g = l.grid;
  const uint32_t nx = g.x / c.x, ny = g.y / c.y;
  return b.x / c.x + nx * (b.y / c.y + ny * (b.z / c.z));
}


Cluster cluster_of(const trace::Trace& t, uint32_t block, uint64_t step) {
  Cluster out;
  const trace::Launch& l = t.launch();
  const trace::Dim3 c = l.cluster_dims(), g = l.grid;
  out.dims = c;
  out.clusters = uint32_t((g.x / c.x) * (g.y / c.y) * (g.z / c.z));
  out.index = cluster_index(l, block);
  // The cluster's CTAs, rank by rank.
  const std::set<uint32_t> recorded(l.blocks.begin(), l.blocks.end());
  std::map<uint32_t, uint32_t> rank_of;  // block -> rank, for this cluster's blocks
  for (const uint32_t id : l.cluster_blocks(block)) {
    const uint32_t r = uint32_t(out.ctas.size());
    out.ctas.push_back({r, id, recorded.count(id) > 0});
    rank_of[id] = r;
  }
  out.lanes_to.assign(out.ctas.size(), 0);
  std::map<std::pair<uint32_t, uint32_t>, ClusterLink> links;
  // Per bulk write site and rank: the bytes that landed there, and the copies; per bulk read
  // site (its write site's partner) and rank: whether that rank issued any.
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> landed;  // (write site, rank) -> bytes
  // (read site, rank) -> the (warp, seq) of each copy that rank issued there (one
  // instruction's records share its seq)
  std::map<std::pair<uint32_t, uint32_t>, std::set<std::pair<uint32_t, uint32_t>>> issued;
  for (uint64_t i = 0; i < t.records.size(); ++i) {
    const trace::Record& r = t.records[i];
    auto from = rank_of.find(r.block);
    if (from == rank_of.end() || r.site >= t.sites.size()) continue;
    const trace::Site& s = t.sites[r.site];
    const uint32_t lane_bytes = detail::lane_bytes(s.bytes);
    if (s.form == trace::Form::BulkWrite) {
      landed[{r.site, from->second}] += uint64_t(std::popcount(r.active)) * lane_bytes;
    } else if (s.form == trace::Form::BulkRead) {
      issued[{r.site, from->second}].insert({r.warp, r.seq});
    }
    if (s.space != trace::Space::Cluster) continue;
    std::map<uint32_t, uint32_t> lanes;  // rank -> lanes
    for (int lane = 0; lane < trace::kWarpSize; ++lane) {
      if (!r.lane_active(lane)) continue;
      const uint32_t buf = r.buffer_of(lane);
      if (buf >= t.buffers.size() || !t.buffers[buf].cta) continue;
      const uint32_t to = t.buffers[buf].cta - 1;
      if (to >= out.ctas.size()) continue;  // (a file's rank outside the launch's clusters: not drawn)
      lanes[to] |= 1u << lane;
      ClusterLink& k = links[{from->second, to}];
      k.lanes += 1;
      k.bytes += lane_bytes;
      const std::string name = trace::array_name(t.buffers[buf]);
      if (std::find(k.arrays.begin(), k.arrays.end(), name) == k.arrays.end()) k.arrays.push_back(name);
    }
    for (auto [to, mask] : lanes) {
      ClusterLink& k = links[{from->second, to}];
      k.from = from->second, k.to = to;
      (s.op == trace::Op::Load ? k.loads : s.op == trace::Op::Store ? k.stores : k.atomics) += 1;
      if (i == step) out.lanes_to[to] = mask, out.request_from = from->second;  // (to < ctas: checked above)
    }
  }
  for (auto& [key, k] : links) out.links.push_back(std::move(k));
  // A rank whose copies of a bulk instruction landed without its having issued that
  // instruction received them from the ranks that did (a multicast).
  for (const auto& [key, bytes] : landed) {
    const uint32_t write_site = key.first, rank = key.second;
    // The instruction's read half: the bulk read site paired with this write site (a
    // catalog kernel's, whose halves name the call and its destination at two columns), or
    // at the same place (a program's, whose pairing is cleared for copies that land in
    // another CTA).
    const trace::Site& w = t.sites[write_site];
    // The copies rank `rk` issued of that instruction (0: none).
    auto issued_by = [&](uint32_t rk) {
      uint64_t n = 0;
      for (const auto& [key, copies] : issued) {
        const trace::Site& s = t.sites[key.first];
        const bool same = s.partner == write_site || (s.file == w.file && s.line == w.line && s.column == w.column);
        if (key.second == rk && same) n += instructions(copies);
      }
      return n;
    };
    if (issued_by(rank)) continue;
    ClusterFanout f;
    f.line = w.line;
    for (const ClusterCta& cta : out.ctas)
      if (const uint64_t n = issued_by(cta.rank)) f.from.push_back(cta.rank), f.copies += n;
    if (f.from.empty()) continue;
    f.to = rank;
    f.bytes = bytes;
    out.fanouts.push_back(std::move(f));
  }
  return out;
}

}  // namespace ws::analysis
