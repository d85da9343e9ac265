// src/ptx/parallel.cpp — a recorded launch's blocks on every core. After the blocks that
// make the trace's sites and shared arrays (run first, on one core: parallel_blocks), the
// rest run on workers, each with a builder of its own: a block keeps its records while the
// launch is under its record cap, and only counts them once the blocks below it have
// filled it. Each block's findings — its records, the records it counted, its races, the
// global arrays it met first — are committed to the launch's builder, a run of blocks at a
// time (Runs), strictly in block order, by whichever worker finds the next run done, while
// the others run on. So the trace is the one a single core makes, whatever the number of
// workers: records kept up to the cap and counted past it, arrays and races in the order one
// core meets them, the lowest block's fault the one thrown, its request's record where that
// was kept.
#include <algorithm>
#include <condition_variable>
#include <map>
#include <thread>
#include <utility>

#include "ptx/block_run.h"

namespace ws::ptx {

bool BlockRun::parallel_blocks(bool keep) const {
  if (!parallel_kernel(keep)) return false;
  if (keep && k_.local_bytes && local_buf_ == trace::kNoBuffer) return false;
  // A worker makes no site (their order is the first core's). Past the cap, where a
  // worker's blocks keep no record, a site no block has met yet (a loop's remainder that
  // never ran, a bounds check's other branch) is made at the merge, in block order
  // (site_wants); while records are kept, every site must be made first.
  if (!keep) return shared_.empty() || !shared_buf_.empty();
  for (size_t pc = 0; pc < k_.code.size(); ++pc) {
    const Insn& in = k_.code[pc];
    if (kind_of(in.op) == Kind::Memory && in.space != Space::Param && !site_made(pc, in)) return false;
  }
  return true;
}

bool BlockRun::parallel_kernel(bool keep) const {
  // (A kernel may call assert: a failed one throws, the lowest block's fault as any other;
  // its arguments are written to the call's parameters.)
  if (a_.cooperative || !asserts_only(k_) || k_.frame_bytes || !record_ || worker_ || !deterministic(k_)) return false;
  for (const Insn& in : k_.code) {
    if (in.op == Opc::Mma || in.op == Opc::Movmatrix) return false;
    if (kind_of(in.op) != Kind::Memory) continue;
    if (in.op != Opc::Ld && in.op != Opc::St && in.op != Opc::Atom && in.op != Opc::Red) return false;
    if (in.space == Space::Param && (in.op == Opc::Ld || in.op == Opc::St)) continue;
    if (in.space != Space::Shared && in.space != Space::Global) return false;
    if (keep && in.op == Opc::Atom && in.space == Space::Global && !in.reduces) return false;
  }
  return true;
}

// Instruction pc's site (of its space, shared or global) made already, and the shared
// arrays' buffers for a shared one.
bool BlockRun::site_made(size_t pc, const Insn& in) const {
  const trace::Space sp = in.space == Space::Shared ? trace::Space::Shared : trace::Space::Global;
  return sites_[pc * trace::kSpaceCount + size_t(sp)] != trace::kNoBuffer && (sp != trace::Space::Shared || !shared_buf_.empty());
}

void BlockRun::work_for(const BlockRun& first, std::mutex* atomics) {
  worker_ = true;
  atomics_ = atomics;
  sites_ = first.sites_;
  shared_buf_ = first.shared_buf_;
  local_buf_ = first.local_buf_;
  uniform_ = first.uniform_;
  race_pairs_ = first.race_pairs_;  // pairs reported already: not worth keeping again
}

namespace {

// One run of blocks' findings on a worker (Runs), waiting for its turn to be committed.
struct Piece {
  uint32_t blocks = 0;                   // blocks [its key, key + blocks) of the launch, in order
  std::vector<trace::Record> records;   // kept
  uint64_t dropped = 0;                  // counted
  std::vector<BlockRun::PendingRace> races;
  std::vector<Device::Alloc*> arrays;    // global arrays the block met before the trace had them, in order
  std::vector<Device::Alloc*> provisional;  // what the records' provisional buffers name (BlockRun::provisional)
  std::vector<BlockRun::SiteWant> sites;     // sites the block met first, in its order
  std::exception_ptr fault;
  // The races and arrays `run` found in the block: those past the first `races_before`
  // and `arrays_before`, and the worker's provisional arrays so far.
  void take(BlockRun& run, size_t races_before, size_t arrays_before) {
    races.assign(run.pending_races().begin() + ptrdiff_t(races_before), run.pending_races().end());
    for (size_t i = arrays_before; i < run.new_arrays().size(); ++i) arrays.push_back(run.new_arrays()[i].second);
    provisional = run.provisional_arrays();
    sites = std::exchange(run.site_wants(), {});
  }
};

// A record's provisional buffer (a worker's, for an array the trace had not yet) as the
// trace's own.
uint32_t own_buffer(uint32_t buf, const std::vector<uint32_t>& ids) {
  const uint32_t i = BlockRun::provisional(0) - buf;
  return buf <= BlockRun::provisional(0) && i < ids.size() ? ids[i] : buf;
}

// The record index a fault names (its request's record in the trace it was made in), and
// the same set anew.
int64_t fault_record(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Fault& f) {
    return f.record;
  } catch (...) {
  }
  return -1;
}
void set_fault_record(const std::exception_ptr& e, int64_t record) {
  try {
    std::rethrow_exception(e);
  } catch (Fault& f) {
    f.record = record;
  } catch (...) {
  }
}

// A block's records into the launch's builder while there is room, their provisional buffers
// replaced by the trace's (`ids`); returns the index in the trace of record `faulted_at` (the
// request of the block's fault), or -1 where it was not kept.
int64_t keep(std::vector<trace::Record>& records, const std::vector<uint32_t>& ids, trace::Builder& b, int64_t faulted_at) {
  int64_t kept_at = -1;
  for (size_t i = 0; i < records.size(); ++i) {
    trace::Record& r = records[i];
    if (!ids.empty()) {
      r.buffer = own_buffer(r.buffer, ids);
      if (r.lanes) {
        auto lanes_of = std::make_shared<trace::LaneBuffers>(*r.lanes);
        for (uint32_t& x : *lanes_of) x = own_buffer(x, ids);
        r.lanes = std::move(lanes_of);
      }
    }
    if (b.add(std::move(r)) && int64_t(i) == faulted_at) kept_at = int64_t(b.trace().records.size() - 1);
  }
  return kept_at;
}

// A worker's budget, a cache line apiece: the compiled code's every entry writes it, and two
// workers' budgets on one line made them wait on each other (matmul_tiled 1024 recorded on
// 2 cores: a tenth of the launch's time, a third of it in that one store).
struct alignas(64) Budget {
  uint64_t left = 0;
};
// How many blocks a worker takes at once, committed as one piece: where blocks are small (an
// element-wise kernel's 256 threads), a piece and a commit per block made the workers wait on
// each other's commits, and two cores were slower than one. While records are kept, a run
// holds few of them (a block that keeps records past the cap, not knowing the blocks below
// have filled it, makes them for nothing: a run of large blocks would make many); past the
// cap (`full`), runs of 16; always enough runs for the workers to share the blocks evenly.
// `fixed` (Device::block_runs), where not 0, is the run whatever the launch.
struct Runs {
  uint32_t even, keeping, fixed;
  // `kept`: the records blocks [0, from) kept, before the workers took over.
  Runs(uint64_t kept, uint32_t from, uint32_t nblocks, uint32_t workers, uint32_t fixed)
      : even(std::max<uint32_t>(1, (nblocks - from) / (workers * 256))),
        keeping(uint32_t(std::clamp<uint64_t>(4096 / std::max<uint64_t>(1, kept / from), 1, 16))),
        fixed(fixed) {}
  uint32_t operator()(bool full) const { return fixed ? fixed : std::min(even, full ? 16u : keeping); }
};
}  // namespace

// Blocks [from, count) of a recorded launch (first.parallel_blocks()), on `n` workers.
// Returns the lane accesses; throws the lowest block's fault after the blocks below it have
// been committed.
uint64_t Device::run_parallel(const Kernel& k, const KernelLaunch& a, trace::Builder& b, BlockRun& first, uint32_t from,
                              uint32_t n, uint64_t budget, SiteBuffers& sites) {
  const uint32_t nblocks = uint32_t(a.grid.count());
  std::atomic<uint32_t> next{from}, fault_block{UINT32_MAX};
  std::atomic<bool> full{!b.room()};  // the launch's cap reached by the blocks committed
  std::atomic<uint64_t> lanes{0};
  trace::Launch head = b.launch();
  head.dropped_records = 0, head.blocks.clear();  // each worker's own count, its own blocks
  // What the workers hand over, under `mu`: blocks done but not committed, record arrays
  // to reuse (their memory already in place), the next block to commit, the arrays given a
  // trace buffer here (noted on them once the workers have ended).
  std::mutex mu;
  std::condition_variable turned;  // a commit was made
  std::map<uint32_t, Piece> waiting;
  uint64_t held = 0;  // the records of the pieces waiting
  std::vector<std::vector<trace::Record>> spare;
  uint32_t turn = from, end = nblocks;
  std::exception_ptr fault;
  std::map<Alloc*, uint32_t> made;
  // The piece of blocks [from_blk, from_blk + p.blocks) into the launch's builder: the sites
  // they met first and their arrays' buffers made, their records kept while there is room
  // (their provisional buffers replaced), their races taken.
  auto commit = [&](uint32_t from_blk, Piece& p) {
    for (const BlockRun::SiteWant& w : p.sites) first.make_site(w);
    for (Alloc* al : p.arrays)
      if (!made.count(al)) made.emplace(al, new_buffer(*al, b));
    std::vector<uint32_t> ids;
    for (Alloc* al : p.provisional) ids.push_back(made.count(al) ? made[al] : trace::kNoBuffer);
    const int64_t kept_at = keep(p.records, ids, b, p.fault ? fault_record(p.fault) : -1);
    sites.take(b.trace());  // (while the records are at hand)
    b.drop(p.dropped);
    full = !b.room();
    first.take_races(p.races);
    for (uint32_t blk = from_blk; blk < from_blk + p.blocks; ++blk) b.block_done(blk);
    p.records.clear();
    spare.push_back(std::move(p.records));
    if (p.fault) {
      set_fault_record(p.fault, kept_at);  // the request's record in the launch's trace, where it was kept
      fault = p.fault, end = from_blk + p.blocks;  // (the piece's last block is the one that faulted)
    }
  };

  std::vector<std::unique_ptr<trace::Trace>> traces;
  std::vector<std::unique_ptr<trace::Builder>> builders;
  std::vector<std::unique_ptr<BlockRun>> runs;
  std::vector<uint32_t> files;  // (a worker makes no site: site_wants)
  std::vector<Budget> left(n);  // each worker's budget
  const uint64_t room = b.room_left();
  for (uint32_t i = 0; i < n; ++i) {
    traces.push_back(std::make_unique<trace::Trace>());
    builders.push_back(std::make_unique<trace::Builder>(*traces.back(), room));
    builders.back()->begin_launch(head);
    runs.push_back(std::make_unique<BlockRun>(*this, k, a, *builders.back(), files, left[i].left));
    runs.back()->work_for(first, n > 1 ? &atomics_ : nullptr);
  }
  const Runs run_of{b.launch_records(), from, nblocks, n, block_runs_};
  auto work = [&](uint32_t me) {
    trace::Trace& mine_trace = *traces[me];
    trace::Builder& mine = *builders[me];
    BlockRun& run = *runs[me];
    uint32_t from_blk;
    for (uint32_t chunk = run_of(full); (from_blk = next.fetch_add(chunk)) < nblocks && from_blk < fault_block.load(); chunk = run_of(full)) {
      const uint32_t to_blk = std::min(nblocks, from_blk + chunk);
      Piece p;
      {
        // (Far ahead of a slow block, a cap's worth of records waiting: wait for the commits.)
        std::unique_lock<std::mutex> g(mu);
        turned.wait(g, [&] { return from_blk == turn || held < room || full.load() || fault_block.load() != UINT32_MAX; });
        if (from_blk >= fault_block.load()) break;
        if (!spare.empty()) p.records = std::move(spare.back()), spare.pop_back();
      }
      std::swap(mine_trace.records, p.records);  // the blocks' records go to the piece's array
      const uint64_t dropped = mine.launch().dropped_records;
      const size_t races = run.pending_races().size(), arrays = run.new_arrays().size();
      for (uint32_t blk = from_blk; blk < to_blk && blk < fault_block.load(); ++blk) {
        if (full.load()) mine.cap(0);  // the blocks below filled the launch's cap
        left[me].left = budget;        // each block its own
        ++p.blocks;
        try {
          lanes += run.run(blk);
        } catch (...) {
          p.fault = std::current_exception();
          for (uint32_t at = fault_block.load(); blk < at && !fault_block.compare_exchange_weak(at, blk);) {
          }
          break;
        }
      }
      std::swap(mine_trace.records, p.records);
      p.dropped = mine.launch().dropped_records - dropped;
      p.take(run, races, arrays);
      const bool faulted = bool(p.fault);
      {
        std::lock_guard<std::mutex> g(mu);
        held += p.records.size();
        waiting.emplace(from_blk, std::move(p));
        for (auto it = waiting.find(turn); it != waiting.end() && turn < end; it = waiting.find(turn)) {
          held -= it->second.records.size();
          const uint32_t blocks = it->second.blocks;
          commit(turn, it->second);
          waiting.erase(it);
          turn += blocks;
        }
      }
      turned.notify_all();
      if (faulted) break;  // (its BlockRun stopped mid-block)
    }
  };
  std::vector<std::thread> workers;
  for (uint32_t i = 1; i < n; ++i) workers.emplace_back(work, i);
  work(0);
  for (std::thread& w : workers) w.join();
  for (auto [al, id] : made) al->buffer = id;
  if (fault) std::rethrow_exception(fault);
  return lanes;
}

}  // namespace ws::ptx
