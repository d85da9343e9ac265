// src/ptx/grid.cpp — blocks that must be resident together. A cooperative launch: every
// block of the grid at once, as cudaLaunchCooperativeKernel guarantees, so that a grid-wide
// barrier (cooperative groups' this_grid().sync(): blocks count themselves in at the grid's
// workspace and spin until the last arrives) ends. A launch with thread block clusters: the
// CTAs of each cluster. The blocks run in turns on one worker, each until its warps have
// ended, wait at a barrier or loop.
#include <memory>

#include "ptx/block_run.h"

namespace ws::ptx {

namespace {

// Runs `runs` (blocks resident together) in turns, each until its warps have ended, wait at
// a barrier or loop, until every one has ended; `release`: a block's memory is given back as
// soon as it ends (else the BlockRun is kept for the next cluster's CTA of its rank).
void in_turns(std::vector<std::unique_ptr<BlockRun>>& runs, uint64_t& lanes, bool release) {
  std::vector<uint32_t> running(runs.size());
  for (uint32_t i = 0; i < running.size(); ++i) running[i] = i;
  while (!running.empty()) {
    size_t kept = 0;
    for (uint32_t i : running)
      if (!runs[i]->resume(lanes)) running[kept++] = i;
      else if (release) runs[i].reset();
    running.resize(kept);
  }
}

}  // namespace

void BlockRun::buffers_from(BlockRun& first) {
  if (first.shared_bytes() && first.shared_buf_.empty()) first.make_shared_buffers(0);
  if (k_.local_bytes) first.local_buffer();
  shared_buf_ = first.shared_buf_;
  local_buf_ = first.local_buf_;
}

uint64_t Device::run_cooperative(const Kernel& k, const KernelLaunch& a, trace::Builder& b, uint64_t budget) {
  // The workspace the blocks count themselves in at, cleared for each launch.
  if (!grid_workspace_) grid_workspace_ = malloc(16, "grid barrier (cooperative groups)");
  memset(grid_workspace_, 0, 16);
  std::vector<uint32_t> files = trace_files(b);
  trace::Trace& t = b.trace();
  const size_t first_record = t.records.size();
  const bool recorded = b.launch().recorded;
  const uint32_t nblocks = uint32_t(a.grid.count());
  std::vector<std::unique_ptr<BlockRun>> blocks;
  blocks.reserve(nblocks);
  for (uint32_t blk = 0; blk < nblocks; ++blk) {
    blocks.push_back(std::make_unique<BlockRun>(*this, k, a, b, files, budget));
    if (!recorded) blocks.back()->unrecorded(nullptr);  // one worker: no other holds the atomics
    else blocks.back()->buffers_from(*blocks.front());
    blocks.back()->start(blk);
  }
  uint64_t lanes = 0;
  in_turns(blocks, lanes, true);
  if (recorded) {
    for (uint32_t blk = 0; blk < nblocks; ++blk) b.block_done(blk);
    settle_sites(t, first_record);
  }
  return lanes;
}

// ---- thread block clusters -------------------------------------------------------------
// The CTAs of a cluster are resident together on a GPU, so that they can read each other's
// shared memory (distributed shared memory: mapa, ld/st/atom.shared::cluster), arrive at
// each other's mbarriers and wait at the cluster's barrier. Here each cluster's CTAs run
// in turns on one worker, as a cooperative launch's blocks do, cluster after cluster.

trace::Dim3 launch_cluster(const Kernel& k, const KernelLaunch& a) {
  if (!k.cluster[0] || a.cluster.count() != 1) return a.cluster;
  return {k.cluster[0], k.cluster[1], k.cluster[2]};
}

std::string cluster_problem(const KernelLaunch& a) {
  const trace::Dim3 c = a.cluster, g = a.grid;
  if (c.count() <= 1) return "";
  auto dims = [](trace::Dim3 d) {
    return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
  };
  if (c.count() > 16)
    return "with clusters of " + std::to_string(c.count()) + " CTAs: a cluster has at most 16 (8 without "
           "cudaFuncAttributeNonPortableClusterSizeAllowed): cudaErrorInvalidClusterSize";
  if (g.x % c.x || g.y % c.y || g.z % c.z)
    return "of grid " + dims(g) + " in clusters of " + dims(c) + ": the grid is not a whole number of clusters "
           "(cudaErrorInvalidClusterSize)";
  if (a.cooperative) return "with clusters is cooperative too, which the emulated device does not run";
  return "";
}

uint64_t Device::run_clusters(const Kernel& k, const KernelLaunch& a, trace::Builder& b, uint64_t budget) {
  std::vector<uint32_t> files = trace_files(b);
  trace::Trace& t = b.trace();
  const size_t first_record = t.records.size();
  const bool recorded = b.launch().recorded;
  const trace::Dim3 c = a.cluster, g = a.grid;
  const uint32_t size = uint32_t(c.count());
  // One BlockRun per rank, each running that rank's CTA of every cluster in turn; the
  // cluster's CTAs share one instruction budget, as a cooperative launch's blocks do.
  uint64_t left = budget;
  std::vector<std::unique_ptr<BlockRun>> runs;
  std::vector<BlockRun*> ctas;
  BlockRun::ClusterSync sync;
  for (uint32_t r = 0; r < size; ++r) {
    runs.push_back(std::make_unique<BlockRun>(*this, k, a, b, files, left));
    if (!recorded) runs.back()->unrecorded(nullptr);
    else runs.back()->buffers_from(*runs.front());
    runs.back()->join_cluster(&ctas, &sync, r);
    ctas.push_back(runs.back().get());
  }
  const uint32_t threads = uint32_t(a.block.count());
  uint64_t lanes = 0;
  for (uint32_t cz = 0; cz < g.z / c.z; ++cz)
    for (uint32_t cy = 0; cy < g.y / c.y; ++cy)
      for (uint32_t cx = 0; cx < g.x / c.x; ++cx) {
        left = budget;
        sync = {0, size * threads, 0, size * threads};
        std::vector<uint32_t> blocks(size);
        for (uint32_t r = 0; r < size; ++r) {
          const uint32_t x = cx * c.x + r % c.x, y = cy * c.y + (r / c.x) % c.y, z = cz * c.z + r / (c.x * c.y);
          blocks[r] = x + g.x * (y + g.y * z);
          runs[r]->start(blocks[r]);
        }
        in_turns(runs, lanes, false);
        if (recorded)
          for (uint32_t blk : blocks) b.block_done(blk);
      }
  if (recorded) settle_sites(t, first_record);
  return lanes;
}

uint64_t BlockRun::cluster_sreg(Sreg s) const {
  const trace::Dim3 c = a_.cluster, g = a_.grid;
  const uint32_t x = ctaid_[0] % c.x, y = ctaid_[1] % c.y, z = ctaid_[2] % c.z;
  switch (s) {
    case Sreg::ClusterCtarank: return x + c.x * (y + c.y * z);
    case Sreg::ClusterNctarank: return c.count();
    case Sreg::ClusterCtaidX: return x;
    case Sreg::ClusterCtaidY: return y;
    case Sreg::ClusterCtaidZ: return z;
    case Sreg::ClusterNctaidX: return c.x;
    case Sreg::ClusterNctaidY: return c.y;
    case Sreg::ClusterNctaidZ: return c.z;
    case Sreg::ClusteridX: return ctaid_[0] / c.x;
    case Sreg::ClusteridY: return ctaid_[1] / c.y;
    case Sreg::ClusteridZ: return ctaid_[2] / c.z;
    case Sreg::NclusteridX: return g.x / c.x;
    case Sreg::NclusteridY: return g.y / c.y;
    case Sreg::NclusteridZ: return g.z / c.z;
    case Sreg::IsExplicitCluster: return cluster_ != nullptr;
    default: return 0;
  }
}

BlockRun* BlockRun::cta_of(uint64_t& a) {
  const uint64_t rank = (a >> kClusterRankShift) - 1;
  if (a <= kClusterOffsetMask) return this;
  if (!cluster_addresses_) return nullptr;  // no mapa made it: a shared address out of bounds
  const size_t size = cluster_ ? cluster_->size() : 1;
  if (rank >= size) return nullptr;
  a &= kClusterOffsetMask;
  return cluster_ ? (*cluster_)[rank] : this;
}

// barrier.cluster.arrive counts the lanes in at the barrier's phase; the phase completes
// when every thread of the cluster has arrived or exited, and orders the CTAs' shared memory
// as a block's barrier does (a new epoch in each). barrier.cluster.wait holds the lanes that
// arrived in a phase not complete yet: the warp lets the cluster's other warps run.
void BlockRun::cluster_barrier(const Insn& in, Step& s) {
  ClusterSync& c = *sync_;
  if (BarRed(in.sub) == BarRed::ClusterArrive) {
    for (uint32_t m = s.exec; m; m &= m - 1) {
      uint64_t& arrived = cluster_arrived_[s.w * 32 + uint32_t(std::countr_zero(m))];
      if (arrived == c.phase + 1)
        throw Fault("kernel " + kernel_name(k_.name) + ": PTX line " + std::to_string(in.text_line) +
                    ": a thread arrives twice at the cluster barrier without waiting for it between");
      arrived = c.phase + 1;
      cluster_count_in();
    }
  } else {
    for (uint32_t m = s.exec; m; m &= m - 1)
      if (cluster_arrived_[s.w * 32 + uint32_t(std::countr_zero(m))] == c.phase + 1) {
        wait_yield_ = true;  // run_warp: the warp stays here and the others run
        advance(s.w, s.active, s.pc);
        return;
      }
  }
  advance(s.w, s.active, s.pc + 1);
}

void BlockRun::cluster_count_in() {
  ClusterSync& c = *sync_;
  if (--c.pending) return;
  ++c.phase;
  c.pending = c.total - c.exited;
  if (!cluster_) ++epoch_;
  else
    for (BlockRun* r : *cluster_) ++r->epoch_;
}

void BlockRun::cluster_exit(uint32_t w, uint32_t lanes) {
  ClusterSync& c = *sync_;
  for (uint32_t m = lanes; m; m &= m - 1) {
    ++c.exited;
    if (cluster_arrived_[w * 32 + uint32_t(std::countr_zero(m))] != c.phase + 1) cluster_count_in();
  }
}

}  // namespace ws::ptx
