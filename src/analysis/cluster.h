// src/analysis/cluster.h — one thread block cluster of a launch as the trace saw it: its
// CTAs (rank, block, whether recorded), what each CTA read, wrote or updated in another's
// shared memory (distributed shared memory: the Cluster space's records, each lane's CTA
// its array's), and the bulk copies that landed in a CTA that did not issue them (a TMA
// multicast, fanned out from the CTAs of the cluster that issued that instruction). What
// the cluster view draws; depends on trace only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace ws::analysis {

struct ClusterCta {
  uint32_t rank = 0;
  uint32_t block = 0;     // linear block id
  bool recorded = false;  // its requests are in the trace
};

// Requests of CTA `from` that reached CTA `to`'s shared memory (from != to).
struct ClusterLink {
  uint32_t from = 0, to = 0;  // ranks
  uint64_t loads = 0, stores = 0, atomics = 0;  // requests (a request reaching two CTAs counts in both links)
  uint64_t lanes = 0;         // lane accesses
  uint64_t bytes = 0;         // bytes the lanes asked for
  std::vector<std::string> arrays;  // the arrays reached, by name
};

// Bulk copies of one instruction (line) that CTA `to` received but did not issue, and the
// ranks of the cluster that issued it (the multicast's sources).
struct ClusterFanout {
  uint32_t line = 0;
  std::vector<uint32_t> from;  // ranks that issued copies of the instruction
  uint32_t to = 0;
  uint64_t bytes = 0;  // received
  uint64_t copies = 0; // the issuing ranks' instructions there (a box each)
};

struct Cluster {
  trace::Dim3 dims;               // CTAs per cluster, x y z
  uint32_t index = 0;             // which cluster of the grid (linear)
  uint32_t clusters = 0;          // how many the grid has
  std::vector<ClusterCta> ctas;   // by rank
  std::vector<ClusterLink> links; // by (from, to)
  std::vector<ClusterFanout> fanouts;
  // The current request's lanes by the rank they reached (bit per lane; empty where the
  // request is not in the Cluster space or not of this cluster), and the issuing rank.
  std::vector<uint32_t> lanes_to;  // [rank]
  uint32_t request_from = 0;
};

// The rank of block `block` within its cluster, and the cluster's index, in launch `l`.
uint32_t cluster_rank(const trace::Launch& l, uint32_t block);
uint32_t cluster_index(const trace::Launch& l, uint32_t block);
// The cluster that holds `block` in the trace's current launch, with record `step` (if a
// record of it) as the current request.
Cluster cluster_of(const trace::Trace& t, uint32_t block, uint64_t step);

}  // namespace ws::analysis
