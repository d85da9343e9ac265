// src/ptx/mbarrier.cpp — mbarrier objects in shared memory with their phases, as the PTX
// ISA describes them (an expected arrival count, the arrivals and transaction bytes still
// pending, the phase's parity), and the bulk copies (cp.async.bulk) that complete their
// transaction bytes. A phase completes when no arrival and no byte is pending: the copies
// tied to it land then (recorded as their write halves), and, like a barrier, it orders
// the block's shared memory (a new epoch). A warp whose wait finds its phase not complete
// lets the block's other warps run, so that they can arrive.
#include <cstring>

#include "ptx/block_run.h"

namespace ws::ptx {

namespace {

// The 8 bytes of an mbarrier, as this device lays them out (the object is opaque to the
// program): the expected count in bits 0-19, the pending arrivals in 20-39, the pending
// transaction bytes (signed: a copy may complete before its bytes are expected) in 40-60,
// the current phase's parity in bit 63.
constexpr uint64_t kCountMask = (1ull << 20) - 1;
struct Mbar {
  uint32_t expected = 0, pending = 0;
  int64_t tx = 0;
  uint32_t phase = 0;
  static Mbar from(uint64_t v) {
    Mbar b;
    b.expected = uint32_t(v & kCountMask);
    b.pending = uint32_t((v >> 20) & kCountMask);
    const int64_t t = int64_t((v >> 40) & ((1ull << 21) - 1));
    b.tx = t >= (1ll << 20) ? t - (1ll << 21) : t;
    b.phase = uint32_t(v >> 63);
    return b;
  }
  uint64_t bits() const {
    return uint64_t(expected) | uint64_t(pending) << 20 | (uint64_t(tx) & ((1ull << 21) - 1)) << 40 | uint64_t(phase) << 63;
  }
};

}  // namespace

uint64_t BlockRun::mbarrier_at(const Insn& in, uint64_t a, uint32_t w, int l) {
  if (in.space == Space::Generic) {
    if (a < kSharedWindow || a >= kSharedWindow + kWindowBytes) fault(in, w, l, "shared memory (an mbarrier)", int64_t(a), shared_.size());
    a -= kSharedWindow;
  }
  resolve(in, Space::Shared, a, 8, w, l);
  if (a % 8)
    insn_fault(in, "an mbarrier at a shared address not aligned to 8 bytes");
  return a;
}

void BlockRun::mbarrier_update(const Insn& in, uint32_t w, int l, uint64_t bar, uint32_t arrivals, int64_t tx, bool remote) {
  BlockRun* const cta = cta_of(bar);
  if (!cta)
    insn_fault(in, "an mbarrier in no CTA of the cluster");
  if (cta != this) return cta->mbarrier_update(in, w, l, bar, arrivals, tx, true);  // a remote arrive
  uint64_t v;
  std::memcpy(&v, shared_.data() + bar, 8);
  Mbar b = Mbar::from(v);
  if (b.expected == 0) insn_fault(in, "an mbarrier used before mbarrier.init (or after mbarrier.inval)");
  if (arrivals > b.pending) insn_fault(in, "more arrivals than the mbarrier's phase expects");
  b.pending -= arrivals;
  b.tx += tx;
  if (b.tx >= (1ll << 20) || b.tx <= -(1ll << 20)) insn_fault(in, "the mbarrier's transaction count is out of range");
  if (tx > 0) phase_bytes_[bar] += uint64_t(tx);
  const bool complete = b.pending == 0 && b.tx == 0;
  if (complete) {
    b.phase ^= 1;
    b.pending = b.expected;
  }
  v = b.bits();
  std::memcpy(shared_.data() + bar, &v, 8);
  if (complete) {
    // The phase, for the pipeline view: the instruction whose arrival or bytes completed it
    // (this CTA's own; another CTA's remote arrive is not placed in this block's time).
    const auto it = phase_bytes_.find(bar);
    const uint64_t bytes = it == phase_bytes_.end() ? 0 : it->second;
    if (it != phase_bytes_.end()) phase_bytes_.erase(it);
    const size_t pc = size_t(&in - k_.code.data());
    if (!remote && pc < k_.code.size())
      async_event(uint32_t(pc), in, w, 1u << l, trace::Form::Phase, uint32_t(std::min<uint64_t>(bytes, UINT32_MAX)),
                  uint32_t(bar), false);
    land_barrier(bar);
    ++epoch_;  // what the threads did before arriving is visible to every waiter
  }
}

// init, arrive (a count, expect_tx bytes), arrive_drop, expect_tx, complete_tx, the waits
// (by a state from arrive or by a phase's parity), inval, pending_count; lane by lane. A
// wait's predicate is false for a lane while the phase it names runs: the warp then yields.
uint64_t BlockRun::mbarrier_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  const AsyncOp op = AsyncOp(in.sub);
  bool all_done = true;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (op == AsyncOp::PendingCount) {
      set(in.o[0], w, l, (val(in.o[1], w, l) >> 20) & kCountMask);
      continue;
    }
    const bool dest = op == AsyncOp::Arrive || op == AsyncOp::ArriveDrop || op == AsyncOp::TestWait || op == AsyncOp::TryWait;
    const uint64_t bar = mbarrier_at(in, addr(in.o[dest ? 1 : 0], w, l), w, l);
    uint64_t off = bar;
    BlockRun* const cta = cta_of(off);  // (another CTA's for a remote arrive; resolved by mbarrier_at)
    if (!cta) fault(in, w, l, "shared memory (an mbarrier)", int64_t(bar), shared_.size());
    uint8_t* const word = cta->shared_.data() + off;
    uint64_t v;
    std::memcpy(&v, word, 8);
    const uint64_t count = in.nops > (dest ? 2 : 1) ? val(in.o[dest ? 2 : 1], w, l) & 0xffffffffu : 1;
    switch (op) {
      case AsyncOp::Init: {
        if (count == 0 || count > kCountMask)
          throw Fault("kernel " + kernel_name(k_.name) + ": PTX line " + std::to_string(in.text_line) +
                      ": mbarrier.init with a count of " + std::to_string(count) + " (1 to 2^20-1)");
        Mbar b;
        b.expected = b.pending = uint32_t(count);
        v = b.bits();
        std::memcpy(word, &v, 8);
        break;
      }
      case AsyncOp::Inval: std::memset(word, 0, 8); break;
      case AsyncOp::Arrive:
      case AsyncOp::ArriveDrop:
        set(in.o[0], w, l, v);  // the state: the phase it arrived in
        if (op == AsyncOp::ArriveDrop) {
          Mbar b = Mbar::from(v);
          if (b.expected < count) mbarrier_update(in, w, l, bar, uint32_t(count), 0);  // refused there
          b.expected -= uint32_t(count);
          v = b.bits();
          std::memcpy(word, &v, 8);
        }
        if (in.mods & kWide) mbarrier_update(in, w, l, bar, 1, int64_t(count));  // arrive.expect_tx
        else mbarrier_update(in, w, l, bar, uint32_t(count), 0);
        break;
      case AsyncOp::ExpectTx: mbarrier_update(in, w, l, bar, 0, int64_t(count)); break;
      case AsyncOp::CompleteTx: mbarrier_update(in, w, l, bar, 0, -int64_t(count)); break;
      case AsyncOp::TestWait:
      case AsyncOp::TryWait: {
        // Complete: the phase now is not the one the state (or the parity) names.
        const uint64_t named = in.mods & kWide ? val(in.o[2], w, l) & 1 : val(in.o[2], w, l) >> 63;
        const bool done = (v >> 63) != named;
        set(in.o[0], w, l, done);
        all_done = all_done && done;
        break;
      }
      default: throw Fault("instruction '" + in.opcode + "' is not supported yet");
    }
  }
  if (!all_done) wait_yield_ = true;
  // A wait that found its phase complete, for the timeline (the polls before it are not),
  // with the mbarrier its first lane named.
  else if ((op == AsyncOp::TestWait || op == AsyncOp::TryWait) && exec) {
    uint64_t bar = mbarrier_at(in, addr(in.o[1], w, std::countr_zero(exec)), w, std::countr_zero(exec));
    cta_of(bar);
    async_event(pc, in, w, exec, trace::Form::Wait, 0, uint32_t(bar));
  }
  return 0;
}

// cp.async.bulk: each lane of `exec` copies its own `size` bytes (a multiple of 16) from
// global to shared memory; the bytes are read now, and complete that many transaction
// bytes of the mbarrier, whose phase lands them.
uint64_t BlockRun::cp_bulk_issue(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  uint64_t lanes = 0;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint64_t dst = addr(in.o[0], w, l), src = addr(in.o[1], w, l);
    const uint64_t size = val(in.o[2], w, l) & 0xffffffffu;
    check_bulk(in, size, dst, src);
    resolve(in, Space::Shared, dst, uint32_t(size), w, l);
    const Where from = resolve(in, Space::Global, src, uint32_t(size), w, l);
    BulkInFlight b;
    b.pc = pc;
    b.warp = w;
    b.barrier = mbarrier_at(in, addr(in.o[3], w, l), w, l);
    b.bytes.assign(from.p, from.p + size);
    std::vector<uint64_t> read;
    for (uint64_t p = 0; p < size / 16; ++p) {
      b.piece.push_back(dst + 16 * p);
      read.push_back(src + 16 * p);
    }
    issue_bulk(pc, in, w, l, std::move(b), read);
    lanes += size / 16;
  }
  return lanes;
}

void BlockRun::check_bulk(const Insn& in, uint64_t size, uint64_t dst, uint64_t src) const {
  if (size == 0 || size % 16 || dst % 16 || src % 16)
    insn_fault(in, "a bulk copy of " + std::to_string(size) + " bytes needs a size and addresses that are multiples of 16");
}

void BlockRun::record_pieces(uint32_t pc, const Insn& in, Space sp, const std::vector<uint64_t>& at, uint32_t w, trace::Op op,
                             const std::function<void(const Where*, uint32_t)>& each) {
  const uint32_t seq = warps_[w].seq;
  for (size_t p0 = 0; p0 < at.size(); p0 += 32) {
    warps_[w].seq = seq;
    Where pieces[32];
    uint32_t mask = 0;
    for (size_t p = p0; p < std::min(at.size(), p0 + 32); ++p)
      if (at[p] != ~0ull) {
        pieces[p - p0] = resolve(in, sp, at[p], 16, w, int(p - p0));
        mask |= 1u << (p - p0);
      }
    if (!mask) continue;
    if (each) each(pieces, mask);
    record(pc, in, op, 16, mask, pieces, w);
  }
}

void BlockRun::issue_bulk(uint32_t pc, const Insn& in, uint32_t w, int l, BulkInFlight b, const std::vector<uint64_t>& read) {
  if (record_) {
    async_sites(pc, in, trace::Form::BulkRead, trace::Form::BulkWrite, 16);
    // The box's records, 512 bytes each, are one instruction's.
    record_pieces(pc, in, Space::Global, read, w, trace::Op::Load);
    b.recorded = true;
    b.issuer = this;
    b.ordinal = bulk_issued_[{w, pc}]++;
  }
  // Where it lands: the CTA its destination names (another of the cluster's, with a
  // shared::cluster address), whose mbarrier it must complete; with .multicast::cluster,
  // every CTA of the mask at the same offsets, each completing its own mbarrier there.
  const int64_t size = int64_t(b.bytes.size());
  uint64_t bar = b.barrier, dst = b.piece.empty() ? 0 : b.piece[0];
  BlockRun* const to = cta_of(dst);
  if (!to || cta_of(bar) != to) insn_fault(in, "a bulk copy completes an mbarrier of another CTA than the one it writes to");
  for (uint64_t& p : b.piece) p &= kClusterOffsetMask;
  b.barrier = bar;
  std::vector<BlockRun*> targets{to};
  if (in.mods & kMulticast) {
    const uint32_t mask = uint32_t(val(in.o[AsyncOp(in.sub) == AsyncOp::Tensor ? 3 : 4], w, l)) & 0xffffu;
    const size_t ranks = cluster_ ? cluster_->size() : 1;
    if (mask == 0 || (mask >> ranks))
      insn_fault(in, "a multicast to CTA mask " + std::to_string(mask) + " in a cluster of " + std::to_string(ranks) + " CTAs");
    targets.clear();
    for (uint32_t m = mask; m; m &= m - 1) targets.push_back(cluster_ ? (*cluster_)[size_t(std::countr_zero(m))] : this);
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    if (i + 1 < targets.size()) targets[i]->bulk_.push_back(b);  // a multicast's other CTAs: a copy each
    else targets[i]->bulk_.push_back(std::move(b));
    targets[i]->mbarrier_update(in, w, l, bar, 0, -size, targets[i] != this);
  }
}

}  // namespace ws::ptx
