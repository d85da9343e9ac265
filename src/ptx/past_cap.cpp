// src/ptx/past_cap.cpp — a recorded launch's blocks past its record cap, on every core. Once
// the trace holds its cap of records, what is left of a block is counting the records it
// would have made and looking for races; for a kernel whose instructions leave nothing
// else in the trace (parallel_past_cap), the remaining blocks run on workers, each with a
// builder of its own that drops everything, and are merged in block order: the dropped
// records summed, the races kept as one worker would have met them, the global arrays first
// met past the cap added in that order, the lowest block's fault the one thrown. The trace
// is the one a single core makes, whatever the number of workers.
#include <thread>

#include "ptx/block_run.h"

namespace ws::ptx {

bool BlockRun::parallel_past_cap() const {
  // (A kernel may call assert: a failed one throws, the lowest block's fault as any other;
  // its arguments are written to the call's parameters.)
  if (a_.cooperative || !asserts_only(k_) || k_.frame_bytes || !record_ || worker_ || !deterministic(k_)) return false;
  for (size_t pc = 0; pc < k_.code.size(); ++pc) {
    const Insn& in = k_.code[pc];
    if (in.op == Opc::Mma || in.op == Opc::Movmatrix) return false;
    if (kind_of(in.op) != Kind::Memory) continue;
    if (in.op != Opc::Ld && in.op != Opc::St && in.op != Opc::Atom && in.op != Opc::Red) return false;
    if (in.space == Space::Param && (in.op == Opc::Ld || in.op == Opc::St)) continue;
    if (in.space != Space::Shared && in.space != Space::Global) return false;
    if (!site_made(pc, in)) return false;  // a worker makes none (their order is the first core's)
  }
  return true;
}

// Instruction pc's site (of its space, shared or global) made already, and the shared
// arrays' buffers for a shared one.
bool BlockRun::site_made(size_t pc, const Insn& in) const {
  const trace::Space sp = in.space == Space::Shared ? trace::Space::Shared : trace::Space::Global;
  return sites_[pc * trace::kSpaceCount + size_t(sp)] != trace::kNoBuffer && (sp != trace::Space::Shared || !shared_buf_.empty());
}

bool BlockRun::sites_made() const {
  for (size_t pc = 0; pc < k_.code.size(); ++pc) {
    const Insn& in = k_.code[pc];
    if ((in.op != Opc::Ld && in.op != Opc::St) || (in.space != Space::Shared && in.space != Space::Global)) continue;
    if (!site_made(pc, in)) return false;
  }
  return true;
}

void BlockRun::work_for(const BlockRun& first, std::mutex* atomics) {
  worker_ = true;
  atomics_ = atomics;
  sites_ = first.sites_;
  shared_buf_ = first.shared_buf_;
  uniform_ = first.uniform_;
  race_pairs_ = first.race_pairs_;  // pairs reported already: not worth keeping again
}

// Blocks [from, count) of a recorded launch past its cap (first.parallel_past_cap()), on
// `n` workers. Returns the lane accesses; throws the lowest block's fault after the blocks
// below it have been merged.
uint64_t Device::run_past_cap(const Kernel& k, const KernelLaunch& a, trace::Builder& b, BlockRun& first, uint32_t from,
                              uint32_t n, uint64_t budget) {
  const uint32_t nblocks = uint32_t(a.grid.count());
  std::atomic<uint32_t> next{from}, fault_block{UINT32_MAX};
  std::mutex fault_mu;
  std::exception_ptr fault;
  struct Found {
    std::vector<BlockRun::PendingRace> races;
    std::vector<std::pair<uint32_t, Alloc*>> arrays;
    struct Block {
      uint32_t block;
      size_t races;      // the worker's races up to the block's end
      uint64_t dropped;  // the records it dropped
    };
    std::vector<Block> blocks;
    uint64_t lanes = 0;
  };
  std::vector<Found> found(n);
  auto work = [&](uint32_t me) {
    uint32_t blk = UINT32_MAX;
    trace::Trace mine_trace;
    trace::Builder mine(mine_trace, 0);  // every record counted, none kept
    trace::Launch l = b.launch();
    l.dropped_records = 0;  // this worker's own count
    l.blocks.clear();
    mine.begin_launch(std::move(l));
    std::vector<uint32_t> files;
    uint64_t left = 0, before = 0;
    std::unique_ptr<BlockRun> run;
    try {
      run = std::make_unique<BlockRun>(*this, k, a, mine, files, left);
      run->work_for(first, n > 1 ? &atomics_ : nullptr);
      while ((blk = next.fetch_add(1)) < nblocks && blk < fault_block.load()) {
        left = budget;
        before = mine.launch().dropped_records;
        found[me].lanes += run->run(blk);
        found[me].blocks.push_back({blk, run->pending_races().size(), mine.launch().dropped_records - before});
      }
    } catch (...) {
      const uint32_t at = blk == UINT32_MAX ? from : blk;
      if (run) found[me].blocks.push_back({at, run->pending_races().size(), mine.launch().dropped_records - before});
      std::lock_guard<std::mutex> g(fault_mu);
      if (!fault || at < fault_block.load()) {
        fault_block = at;
        fault = std::current_exception();
      }
    }
    if (run) {
      found[me].races = run->pending_races();
      found[me].arrays = std::move(run->new_arrays());
    }
  };
  std::vector<std::thread> workers;
  for (uint32_t i = 1; i < n; ++i) workers.emplace_back(work, i);
  work(0);
  for (std::thread& w : workers) w.join();

  // The merge, block by block up to the faulting one: each worker's races of that block,
  // the arrays it met first there.
  const uint32_t end = fault ? fault_block.load() + 1 : nblocks;
  struct Piece {
    uint32_t block;
    const Found* f;
    size_t races_from, races_to;
    uint64_t dropped;
  };
  std::vector<Piece> pieces;
  for (const Found& f : found) {
    size_t at = 0;
    for (const Found::Block& x : f.blocks) {
      pieces.push_back({x.block, &f, at, x.races, x.dropped});
      at = x.races;
    }
  }
  std::sort(pieces.begin(), pieces.end(), [](const Piece& x, const Piece& y) { return x.block < y.block; });
  uint64_t lanes = 0, dropped = 0;
  for (const Found& f : found) lanes += f.lanes;
  for (const Piece& p : pieces) {
    if (p.block >= end) break;  // run by a worker before the fault was known: a single core never ran it
    dropped += p.dropped;
    first.take_races({p.f->races.begin() + ptrdiff_t(p.races_from), p.f->races.begin() + ptrdiff_t(p.races_to)});
    for (auto [blk, al] : p.f->arrays)
      if (blk == p.block) buffer_of(*al, b);
  }
  for (uint32_t blk = from; blk < end; ++blk) b.block_done(blk);
  b.drop(dropped);
  if (fault) std::rethrow_exception(fault);
  return lanes;
}

}  // namespace ws::ptx
