// src/ptx/async_copy.cpp — cp.async as the hardware's asynchronous copy behaves for each
// thread: the global bytes read when the copy is issued (recorded then, Form::AsyncRead),
// the shared bytes written only when a cp.async.wait_group / wait_all (or the mbarrier
// phase a cp.async.mbarrier.arrive tied it to) covers its group (recorded then,
// Form::AsyncWrite, the two sites partners). A read of the destination before that wait
// sees the old bytes, as a kernel missing its wait would on the GPU. Also the decoding of
// the cp.async and mbarrier families' words.
#include <algorithm>
#include <cstring>

#include "ptx/block_run.h"
#include "ptx/reader.h"

namespace ws::ptx {

namespace {

bool has(const std::vector<std::string>& parts, const char* w) {
  return std::find(parts.begin() + 1, parts.end(), w) != parts.end();
}

}  // namespace

// The forms (opcodes.def) took every word; here the words must also make one instruction
// PTX has, with the operands it takes.
void decode_async(Insn& in, const std::vector<std::string>& parts, const std::string& module) {
  auto refuse = [&](const std::string& why) {
    throw Error(module + ":" + std::to_string(in.text_line) + ": " + in.opcode + ": " + why);
  };
  auto operands = [&](int lo, int hi) {
    if (in.nops < lo || in.nops > hi) refuse("wrong number of operands");
  };
  in.space = has(parts, "shared") || has(parts, "shared::cta") || has(parts, "shared::cluster") ? Space::Shared
                                                                                              : Space::Generic;
  if (in.op == Opc::CpAsync) {
    if (!has(parts, "async")) refuse("the instruction cp without .async is not implemented");
    if (has(parts, "bulk_group") || (has(parts, "bulk") && (has(parts, "commit_group") || has(parts, "wait_group")))) {
      decode_bulk_store(in, parts, module);
      return;
    }
    AsyncOp op = AsyncOp::Copy;
    if (has(parts, "commit_group")) op = AsyncOp::Commit, operands(0, 0);
    else if (has(parts, "wait_group")) op = AsyncOp::WaitGroup, operands(1, 1);
    else if (has(parts, "wait_all")) op = AsyncOp::WaitAll, operands(0, 0);
    else if (has(parts, "mbarrier")) op = has(parts, "noinc") ? AsyncOp::CopyArriveNoinc : AsyncOp::CopyArrive, operands(1, 1);
    else if (has(parts, "tensor")) op = AsyncOp::Tensor;
    else if (has(parts, "bulk")) op = AsyncOp::Bulk;
    // After the copy's operands: a CTA mask (.multicast::cluster), a cache policy (.L2::cache_hint).
    const int extra = has(parts, "multicast::cluster") + has(parts, "L2::cache_hint");
    if (has(parts, "multicast::cluster")) in.mods |= kMulticast;
    if (op == AsyncOp::Bulk) operands(4 + extra, 4 + extra);
    if ((op == AsyncOp::WaitGroup) && in.o[0].kind != Operand::Imm) refuse("wait_group takes a constant");
    if (op == AsyncOp::Bulk || op == AsyncOp::Tensor) {
      if (!has(parts, "global") || !has(parts, "mbarrier::complete_tx::bytes"))
        refuse("a bulk copy other than global to shared with an mbarrier is not implemented");
    }
    if (op == AsyncOp::Tensor) {
      int dims = 0, named = 0;
      for (int d = 1; d <= 5; ++d)
        if (has(parts, (std::to_string(d) + "d").c_str())) dims = d, ++named;
      if (named != 1) refuse("a tensor copy names its dimensions (.1d to .5d)");
      operands(3 + extra, 3 + extra);
      if (in.o[0].kind != Operand::Addr || in.o[1].kind != Operand::Addr || in.o[2].kind != Operand::Addr ||
          in.o[1].count != dims)
        refuse("a tensor copy takes [dst], [tensorMap, {" + std::string("x, y, z, w, v").substr(0, 3 * size_t(dims) - 2) +
               "}], [mbar]");
    }
    if (op == AsyncOp::Copy) {
      if (!has(parts, "global") || !(has(parts, "ca") || has(parts, "cg")) || in.space != Space::Shared)
        refuse("cp.async takes .ca or .cg, .shared and .global");
      operands(3, 4);
      if (in.o[2].kind != Operand::Imm) refuse("the copy size must be a constant");
      const int64_t n = in.o[2].imm;
      if (n != 4 && n != 8 && n != 16) refuse("a copy of " + std::to_string(n) + " bytes (4, 8 or 16)");
      if (has(parts, "cg") && n != 16) refuse(".cg copies 16 bytes only");
    }
    in.sub = uint8_t(op);
    return;
  }
  AsyncOp op = AsyncOp::Arrive;
  if (has(parts, "init")) op = AsyncOp::Init, operands(2, 2);
  else if (has(parts, "arrive_drop")) op = AsyncOp::ArriveDrop, operands(2, 3);
  else if (has(parts, "arrive")) op = AsyncOp::Arrive, operands(2, 3);
  else if (has(parts, "expect_tx")) op = AsyncOp::ExpectTx, operands(2, 2);
  else if (has(parts, "complete_tx")) op = AsyncOp::CompleteTx, operands(2, 2);
  else if (has(parts, "test_wait")) op = AsyncOp::TestWait, operands(3, 3);
  else if (has(parts, "try_wait")) op = AsyncOp::TryWait, operands(3, 4);
  else if (has(parts, "inval")) op = AsyncOp::Inval, operands(1, 1);
  else if (has(parts, "pending_count")) op = AsyncOp::PendingCount, operands(2, 2);
  else refuse("an mbarrier instruction without its operation");
  if ((has(parts, "expect_tx") && op != AsyncOp::ExpectTx && op != AsyncOp::Arrive) ||
      (has(parts, "complete_tx") && has(parts, "expect_tx")) || (has(parts, "test_wait") && has(parts, "try_wait")))
    refuse("these modifiers together are not implemented");
  if (op == AsyncOp::Arrive && has(parts, "expect_tx") && in.nops != 3) refuse("arrive.expect_tx takes a byte count");
  if (op != AsyncOp::PendingCount && in.o[op == AsyncOp::Init || op == AsyncOp::ExpectTx || op == AsyncOp::CompleteTx ||
                                            op == AsyncOp::Inval ? 0 : 1].kind != Operand::Addr)
    refuse("the mbarrier's address is missing");
  if (has(parts, "parity") && op != AsyncOp::TestWait && op != AsyncOp::TryWait) refuse(".parity is for waits");
  in.sub = uint8_t(op);
  if (op == AsyncOp::Arrive && has(parts, "expect_tx")) in.mods |= kWide;  // arrive.expect_tx: the count is bytes
  if (has(parts, "parity")) in.mods |= kWide;                              // test/try_wait.parity
}

void BlockRun::async_reset() {
  in_flight_.assign(nwarps_, {});
  committed_.assign(nwarps_, {});
  bulk_.clear();
  bulk_issued_.clear();
  bulk_landed_.clear();
  stores_.clear();
  bulk_committed_.assign(nwarps_, {});
  wait_yield_ = false;
}

// The trace sites of an async copy's halves: its read of global memory and its write of
// shared memory (a store's: the other way), one instruction, each the other's partner.
void BlockRun::async_sites(uint32_t pc, const Insn& in, trace::Form read, trace::Form write, uint32_t bytes, bool to_global) {
  const uint32_t r = site_of(pc, in, to_global ? trace::Space::Shared : trace::Space::Global, trace::Op::Load, bytes);
  const uint32_t wr = site_of(pc, in, to_global ? trace::Space::Global : trace::Space::Shared, trace::Op::Store, bytes);
  std::vector<trace::Site>& sites = b_.trace().sites;
  if (sites[wr].form == write && sites[wr].partner == trace::kNoSite) return;  // unpaired (bulk_paired)
  sites[r].form = read, sites[r].partner = wr;
  sites[wr].form = write, sites[wr].partner = r;
}

// A recorded bulk copy landing in this CTA: its write records pair with its read records
// (analysis::follow_copies, the k-th of a warp and site with the k-th) only when it was issued
// here and lands in the order it was issued; else the instruction's halves are left
// unpaired for the whole trace, and the run says so once (its tile coloured by source
// column would be wrong). A group of a box wholly outside its tensor has no read record:
// the analysis sees the counts differ and pairs none of that warp's.
void BlockRun::bulk_paired(const BulkInFlight& b) {
  const uint32_t landed = bulk_landed_[{b.warp, b.pc}]++;
  if (b.issuer == this && b.ordinal == landed) return;
  std::vector<trace::Site>& sites = b_.trace().sites;
  const uint32_t r = sites_[size_t(b.pc) * trace::kSpaceCount + size_t(trace::Space::Global)];
  const uint32_t wr = sites_[size_t(b.pc) * trace::kSpaceCount + size_t(trace::Space::Shared)];
  if (r < sites.size()) sites[r].partner = trace::kNoSite;
  if (wr < sites.size()) sites[wr].partner = trace::kNoSite;
  d_.note("the read and write halves of a bulk copy are not paired in the trace (a multicast from another CTA, or "
          "copies landing out of the order they were issued in): their tiles are not coloured by source column");
}

// A commit or a wait, for the timeline: an event at the warp's place in its sequence.
void BlockRun::async_event(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec, trace::Form form, uint32_t arg,
                           uint32_t barrier, bool own_seq) {
  if (!record_) return;
  if (event_site_.size() != k_.code.size()) event_site_.assign(k_.code.size(), trace::kNoSite);
  trace::Trace& t = b_.trace();
  if (event_site_[pc] == trace::kNoSite) {
    trace::Site s;
    s.file = trace_file(in.file);
    s.line = in.line;
    s.column = in.column;
    s.space = trace::Space::Shared;
    s.instruction = in.opcode;
    s.form = form;
    if (s.file < t.files.size()) s.code = trace::source_line(t.files[s.file].text, s.line);
    event_site_[pc] = uint32_t(t.event_sites.size());
    t.event_sites.push_back(std::move(s));
  }
  trace::Event e;
  e.launch = b_.launch_index();
  e.block = block_;
  e.warp = w;
  e.site = event_site_[pc];
  e.seq = own_seq ? warps_[w].seq++ : warps_[w].seq;
  e.epoch = epoch_;
  e.active = exec;
  e.arg = arg;
  e.at = b_.launch_records();
  e.barrier = barrier;
  t.events.push_back(e);
}

// Issues the lanes' copies: source bytes read now (src-size of them, the rest zeros; none
// with ignore-src), the destination checked now, written when the copy lands.
uint64_t BlockRun::cp_async_issue(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  const uint32_t size = uint32_t(in.o[2].imm);
  InFlight f;
  f.pc = pc;
  f.warp = w;
  f.lanes = exec;
  Where src[32];
  uint32_t reading = 0;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    uint32_t n = size;
    if (in.nops == 4) {
      // The fourth operand: ignore-src (a predicate) or src-size (bytes to read).
      n = in.type2 == Type::Pred ? (pred(in.o[3], w, l) ? 0 : size) : uint32_t(val(in.o[3], w, l));
      if (n > size)
        insn_fault(in, "a source size of " + std::to_string(n) + " bytes for a copy of " + std::to_string(size));
    }
    const uint64_t d = addr(in.o[0], w, l);
    resolve(in, Space::Shared, d, size, w, l);  // an address outside shared memory faults at issue
    f.dst[l] = d;
    f.group[l] = committed_[w][size_t(l)];
    if (n == 0) continue;
    src[l] = resolve(in, Space::Global, addr(in.o[1], w, l), n, w, l);
    std::memcpy(f.bytes[size_t(l)].data(), src[l].p, n);
    reading |= 1u << l;
  }
  if (record_ && reading) {
    async_sites(pc, in, trace::Form::AsyncRead, trace::Form::AsyncWrite, size);
    record(pc, in, trace::Op::Load, size, reading, src, w);
    f.recorded = true;
  }
  in_flight_[w].push_back(f);
  return uint64_t(std::popcount(reading));
}

// Writes the copy's bytes of `lanes` to shared memory now, and records that write.
void BlockRun::land_one(InFlight& f, uint32_t lanes) {
  lanes &= f.lanes;
  if (!lanes) return;
  const Insn& in = k_.code[f.pc];
  const uint32_t size = uint32_t(in.o[2].imm);
  Where dst[32];
  for (uint32_t m = lanes; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    dst[l] = resolve(in, Space::Shared, f.dst[l], size, f.warp, l);
    std::memcpy(dst[l].p, f.bytes[size_t(l)].data(), size);
  }
  if (record_) {
    shared_touch(f.pc, f.warp, lanes, dst, size, RaceEnd::Write);
    if (f.recorded) record(f.pc, in, trace::Op::Store, size, lanes, dst, f.warp);
  }
  f.lanes &= ~lanes;
}

template <class Due>
void BlockRun::land(uint32_t w, uint32_t lanes, Due&& due) {
  std::vector<InFlight>& q = in_flight_[w];
  for (InFlight& f : q) {
    uint32_t now = 0;
    for (uint32_t m = f.lanes & lanes; m; m &= m - 1)
      if (due(f, std::countr_zero(m))) now |= 1u << std::countr_zero(m);
    land_one(f, now);
  }
  std::erase_if(q, [](const InFlight& f) { return f.lanes == 0; });
}

// Every copy tied to mbarrier `bar` (window offset), of any warp: its phase completed.
void BlockRun::land_barrier(uint64_t bar) {
  for (uint32_t w = 0; w < nwarps_; ++w)
    land(w, ~0u, [&](const InFlight& f, int l) { return f.barrier[l] == bar + 1; });
  for (size_t i = 0; i < bulk_.size();) {
    BulkInFlight& b = bulk_[i];
    if (b.barrier != bar) {
      ++i;
      continue;
    }
    for (size_t p = 0; p < b.piece.size(); ++p) std::memcpy(shared_.data() + b.piece[p], b.bytes.data() + 16 * p, 16);
    if (record_ && b.recorded) {
      bulk_paired(b);
      const Insn& in = k_.code[b.pc];
      if (b.issuer != this) {  // a multicast's copy in a CTA that did not issue it: a bulk write all the same
        trace::Site& s = b_.trace().sites[site_of(b.pc, in, trace::Space::Shared, trace::Op::Store, 16)];
        s.form = trace::Form::BulkWrite;
        s.partner = trace::kNoSite;
      }
      for (size_t p0 = 0; p0 < b.piece.size(); p0 += 32) {
        Where dst[32];
        uint32_t lanes = 0;
        for (size_t p = p0; p < std::min(b.piece.size(), p0 + 32); ++p) {
          dst[p - p0] = resolve(in, Space::Shared, b.piece[p], 16, b.warp, int(p - p0));
          lanes |= 1u << (p - p0);
        }
        record(b.pc, in, trace::Op::Store, 16, lanes, dst, b.warp);
      }
    }
    bulk_.erase(bulk_.begin() + std::ptrdiff_t(i));
  }
}

// cp.async and its groups: issue, commit, wait_group N (every group but the newest N of
// each lane lands), wait_all (commits, then every copy lands), and the mbarrier arrive that
// ties a lane's copies so far to a barrier's phase.
uint64_t BlockRun::cp_async_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  std::array<uint32_t, 32>& done = committed_[w];
  switch (AsyncOp(in.sub)) {
    case AsyncOp::Copy: return cp_async_issue(pc, in, w, exec);
    case AsyncOp::Bulk: return cp_bulk_issue(pc, in, w, exec);
    case AsyncOp::Tensor: return cp_tensor_issue(pc, in, w, exec);
    case AsyncOp::BulkStore:
    case AsyncOp::TensorStore:
    case AsyncOp::BulkCommit:
    case AsyncOp::BulkWait: return bulk_store_op(pc, in, w, exec);
    case AsyncOp::Commit:
      for (uint32_t m = exec; m; m &= m - 1) ++done[size_t(std::countr_zero(m))];
      async_event(pc, in, w, exec, trace::Form::Commit, 0);
      return 0;
    case AsyncOp::WaitGroup: {
      const uint32_t n = uint32_t(in.o[0].imm);
      land(w, exec, [&](const InFlight& f, int l) { return f.group[l] + n < done[size_t(l)]; });
      async_event(pc, in, w, exec, trace::Form::Wait, n);
      return 0;
    }
    case AsyncOp::WaitAll:
      for (uint32_t m = exec; m; m &= m - 1) ++done[size_t(std::countr_zero(m))];
      land(w, exec, [](const InFlight&, int) { return true; });
      async_event(pc, in, w, exec, trace::Form::Wait, 0);
      return 0;
    case AsyncOp::CopyArrive:
    case AsyncOp::CopyArriveNoinc: {
      // The lanes' copies so far land with the barrier's phase; .noinc counts this as the
      // thread's arrival, the plain form adds one to the pending count first (no change).
      for (uint32_t m = exec; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const uint64_t bar = mbarrier_at(in, addr(in.o[0], w, l), w, l);
        for (InFlight& f : in_flight_[w])
          if ((f.lanes >> l) & 1u && !f.barrier[l]) f.barrier[l] = bar + 1;
      }
      if (AsyncOp(in.sub) == AsyncOp::CopyArriveNoinc)
        for (uint32_t m = exec; m; m &= m - 1)
          mbarrier_update(in, w, std::countr_zero(m), mbarrier_at(in, addr(in.o[0], w, std::countr_zero(m)), w, std::countr_zero(m)), 1, 0);
      return 0;
    }
    default: break;
  }
  throw Fault("instruction '" + in.opcode + "' is not supported yet");
}

}  // namespace ws::ptx
