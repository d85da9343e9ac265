// src/ptx/grid.cpp — a cooperative launch: every block of the grid resident at once, as
// cudaLaunchCooperativeKernel guarantees, so that a grid-wide barrier (cooperative groups'
// this_grid().sync(): blocks count themselves in at the grid's workspace and spin until the
// last arrives) ends. The blocks run in turns on one worker, each until its warps have
// ended, wait at a barrier or loop.
#include <memory>

#include "ptx/block_run.h"

namespace ws::ptx {

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
  std::vector<uint32_t> running(nblocks);
  for (uint32_t blk = 0; blk < nblocks; ++blk) running[blk] = blk;
  while (!running.empty()) {
    size_t kept = 0;
    for (uint32_t blk : running)
      if (!blocks[blk]->resume(lanes)) running[kept++] = blk;
      else blocks[blk].reset();  // its memory back as soon as it ends
    running.resize(kept);
  }
  if (recorded) {
    for (uint32_t blk = 0; blk < nblocks; ++blk) b.block_done(blk);
    settle_sites(t, first_record);
  }
  return lanes;
}

}  // namespace ws::ptx
