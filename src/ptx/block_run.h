// src/ptx/block_run.h — one launch's blocks as the interpreter runs them: the block's
// memory (shared window, local frames, call area), every warp's registers and program
// counters, and the trace bookkeeping of its accesses. Private to src/ptx; the machine's
// public face is machine.h. Its work is spread over files by concern:
//   warp.cpp      the warp scheduler, divergence and reconvergence, control flow
//   execute.cpp   the dispatch of every other instruction (opcodes.def), lane by lane
//                 through arith.h's semantic functions, and the warp-wide ones
//   memory.cpp    loads, stores and atomics: address windows, faults, trace records
//   builtins.cpp  calls of device functions (recursive ones and calls through pointers
//                 included), and the device's own printf and assert
//   races.cpp     shared-memory races: who touched each shared word since the last barrier
//   matrix.cpp    ldmatrix, stmatrix, movmatrix, wmma.load/store; mma.cpp: the tensor cores' product
//   async_copy.cpp  cp.async: copies in flight per warp, their groups, where they land
//   mbarrier.cpp  mbarrier objects and their phases, bulk copies (cp.async.bulk) onto them
//   tensor_copy.cpp  the tensor copy (cp.async.bulk.tensor) of a box a tensor map describes
//   compiled.cpp  the compiling engine's code entered by the scheduler, and its callbacks
//   parallel.cpp  a recorded launch's blocks on every core, committed in block order
#pragma once
#include <atomic>
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <unordered_map>
#include <vector>

#include "ptx/arith.h"
#include "ptx/compiled.h"
#include "ptx/machine.h"
#include "ptx/tensor_map.h"
#include "trace/builder.h"

namespace ws::ptx {

// "_ZZ14transposeTiledPfPKfiE4tile" -> "transposeTiled::tile": what the views call a
// kernel's static array.
std::string demangle_var(const std::string& mangled);

// Whether a kernel's results depend only on its parameters and the arrays it reads: no
// clock, timer or SM number read, nothing the machine provides called (printf, malloc;
// assert, which only ends the launch when it fails, may be). What a launch alike an
// earlier one may be skipped by, and what lets a recorded launch's blocks past the cap run
// on workers (whose clocks would each run on their own).
bool deterministic(const Kernel& k);
// Whether every function the kernel calls is assert (true when it calls none).
bool asserts_only(const Kernel& k);
// What atom / red `op` of type `t` leaves in a word that held `old`, with operand b (and
// cas's c); `global`: the word is in global memory (atomics.cpp). A bulk reduction applies
// it to each element it lands on.
uint64_t atomic_value(AtomOp op, Type t, bool global, uint64_t old, uint64_t b, uint64_t c);

class BlockRun {
 public:
  // One launch's blocks are run one after another by one BlockRun (run() starts each
  // with fresh memory, and cleared the registers a thread may read before writing them:
  // entry_registers). `budget`: warp instructions left to the launch.
  BlockRun(Device& d, const Kernel& k, const KernelLaunch& a, trace::Builder& b, std::vector<uint32_t>& files,
           uint64_t& budget);
  // Adds its blocks to the device's counts of the launch (compiled, interpreted, repeated):
  // counted here, so that workers do not share a counter's cache line block after block.
  ~BlockRun();
  BlockRun(const BlockRun&) = delete;
  BlockRun& operator=(const BlockRun&) = delete;

  // Runs block `block` to its end; returns the lane accesses it made.
  uint64_t run(uint32_t block);
  // A block of a cooperative launch, run in turns with the grid's others (grid.cpp): begun
  // by start(); each resume() runs its warps until every one has ended, waits at a barrier
  // or has taken a branch backwards (a loop, maybe one waiting for another block), adding
  // its lane accesses to `lanes`; true once the block has ended.
  void start(uint32_t block);
  bool resume(uint64_t& lanes);
  // The blocks of a cooperative launch (a BlockRun each) show their shared arrays and local
  // frames as one set of trace arrays: `first`'s, made now.
  void buffers_from(BlockRun& first);

  // ---- thread block clusters (grid.cpp) ---------------------------------------------
  // The cluster barrier's state (barrier.cluster.arrive / wait): its phase, and the threads
  // of the cluster that have neither arrived in it nor exited.
  struct ClusterSync {
    uint64_t phase = 0;
    uint32_t pending = 0, exited = 0, total = 0;
  };
  // This BlockRun as the CTA of rank `rank` of a cluster whose CTAs are `ctas` (by rank),
  // before start().
  void join_cluster(std::vector<BlockRun*>* ctas, ClusterSync* sync, uint32_t rank) {
    cluster_ = ctas;
    sync_ = sync;
    rank_ = rank;
  }

  // ---- a recorded launch's blocks on several workers (parallel.cpp) ----------------------
  // Whether the launch's remaining blocks may run on workers, after this BlockRun ran the
  // blocks before: a kernel whose bookkeeping is its records and the race check (plain
  // loads, stores and atomics of shared and global memory, their sites and arrays made
  // already, no clock read, no call, printf, copy engine or matrix unit). `keep`: the
  // blocks keep records (under the cap), so nothing that one block reads of another's
  // work may place an access: no global atomic whose old value is read.
  bool parallel_blocks(bool keep) const;
  // The part of that the kernel's code and launch decide alone: false, and no later block
  // of the launch runs on workers.
  bool parallel_kernel(bool keep) const;
  bool site_made(size_t pc, const Insn& in) const;
  // A site a worker's block met first, past the cap (a worker adds no site to the trace:
  // their order is one core's), made at the merge in block order by the first BlockRun's
  // site_of, as one core would have made it then.
  struct SiteWant {
    uint32_t pc;
    trace::Space space;
    trace::Op op;
    uint32_t bytes;
  };
  std::vector<SiteWant>& site_wants() { return site_wants_; }
  void make_site(const SiteWant& w) { site_of(w.pc, k_.code[w.pc], w.space, w.op, w.bytes); }
  // This BlockRun as a worker for `first`'s launch: its sites and shared and local arrays,
  // records made into `b` (a builder of its own), races and newly met global arrays kept
  // for the merge, global atomics held by `atomics`.
  void work_for(const BlockRun& first, std::mutex* atomics);
  struct PendingRace {
    std::array<uint32_t, 5> key;
    Race race;
  };
  // A worker's findings, in the order of its blocks: races, and global arrays its blocks
  // met first (block, allocation).
  const std::vector<PendingRace>& pending_races() const { return pending_races_; }
  std::vector<std::pair<uint32_t, Device::Alloc*>>& new_arrays() { return new_arrays_; }
  // The arrays a worker's records name by provisional buffer (provisional(i) for the i-th),
  // for the merge to put the trace's own in.
  const std::vector<Device::Alloc*>& provisional_arrays() const { return provisional_; }
  static constexpr uint32_t provisional(size_t i) { return trace::kNoBuffer - 1 - uint32_t(i); }
  // The merge, on the launch's first BlockRun: a worker's races as if found here.
  void take_races(const std::vector<PendingRace>& found);

  // From now on nothing is recorded (no records, sites or arrays added to the trace); with
  // `atomics`, other workers run blocks of the same launch at once, and every atomic
  // holds it.
  void unrecorded(std::mutex* atomics) {
    record_ = false;
    atomics_ = atomics;
  }

 private:
  struct Warp {
    uint32_t pc[32] = {};           // each lane's next instruction
    uint32_t live = 0, at_bar = 0;  // lanes not exited; lanes waiting at a barrier
    uint32_t seq = 0;               // the warp's records so far (their order in the trace)
  };
  // What a control instruction works on: the warp, the lanes that stand at the instruction
  // (`active`, of the `ready` ones), those of them whose guard holds (`exec`). It may say
  // where the whole warp goes next (`known`: every ready lane is at `pc`).
  struct Step {
    uint32_t w, pc, active, exec, ready;
    bool known = false;
  };
  // One lane's memory access: a host pointer, and where the record says it went.
  struct Where {
    uint8_t* p = nullptr;
    trace::Space space = trace::Space::Global;
    uint32_t buffer = 0;
    uint64_t offset = 0;
    bool remote = false;  // another CTA's shared memory (distributed shared memory; space Cluster)
    Device::Alloc* alloc = nullptr;  // the device array it lies in (global memory)
  };
  struct Frame {
    uint32_t ret_pc, linked;  // where the call returns to; its Kernel::linked entry
    uint32_t saved;           // a recursive call's: where its caller's state starts in saves_
  };
  // Per thread: what its recursive calls keep for their returns, and how far its local
  // frames have moved (Kernel::frame_bytes per recursive call it is inside).
  struct Stack {
    std::vector<Frame> frames;
    std::vector<uint64_t> saves;  // registers, then call-area bytes, of each recursive call
    uint32_t depth = 0;           // recursive calls it is inside
    uint64_t shift = 0;
  };

  uint64_t shared_bytes() const { return dyn_base() + a_.dynamic_shared; }
  uint64_t dyn_base() const { return (k_.static_shared + 15) / 16 * 16; }

  // ---- operands (warp.cpp) ----------------------------------------------------------
  // A register's 32 lanes lie side by side, so that a warp's operation walks one array.
  [[gnu::always_inline]] uint64_t& reg(uint32_t w, uint32_t r, int lane) {
    return regs_[(size_t(w) * k_.registers + r) * 32 + size_t(lane)];
  }
  // Warp w's registers, register r of lane l at [r * 32 + l] (as reg; valid, and never read,
  // for a kernel with no registers).
  uint64_t* warp_registers(uint32_t w) { return regs_.data() + size_t(w) * k_.registers * 32; }
  uint64_t sreg(Sreg s, uint32_t w, int lane) const;
  uint64_t symval(uint32_t sym) const;
  // An operand's value for one lane: registers inline (nearly every operand), the rest
  // out of line so that the common case stays small.
  [[gnu::always_inline]] uint64_t val(const Operand& o, uint32_t w, int lane) {
    if (o.kind == Operand::Reg) [[likely]] return reg(w, o.reg, lane);
    return val_other(o, w, lane);
  }
  [[gnu::noinline]] uint64_t val_other(const Operand& o, uint32_t w, int lane);
  uint64_t addr(const Operand& o, uint32_t w, int lane) {
    uint64_t a = uint64_t(o.imm);
    if (o.has_reg) a += reg(w, o.reg, lane);
    if (o.has_symbol) a += symval(o.symbol) + local_shift(o.symbol, w, lane);
    return a;
  }
  // Where a thread's local frames lie now: a local symbol of a recursive kernel moves with
  // each recursive call (0 for every other symbol and kernel).
  uint64_t local_shift(uint32_t sym, uint32_t w, int lane) const {
    if (k_.frame_bytes == 0 || k_.symbols[sym].kind != Kernel::Sym::Local) [[likely]] return 0;
    return stacks_[w * 32 + uint32_t(lane)].shift;
  }
  bool pred(const Operand& o, uint32_t w, int lane) {
    const bool v = (o.kind == Operand::Imm ? o.imm : int64_t(reg(w, o.reg, lane))) & 1;
    return o.negate ? !v : v;
  }
  [[gnu::always_inline]] void set(const Operand& o, uint32_t w, int lane, uint64_t v) {
    if (o.kind == Operand::Reg) reg(w, o.reg, lane) = v;
  }
  // The 32 lanes' values of an operand: a register's own array, zeros for an operand the
  // instruction does not have, else `tmp` filled for the lanes of `exec`.
  [[gnu::always_inline]] const uint64_t* lanes_of(const Operand& o, uint32_t w, uint32_t exec, uint64_t* tmp) {
    static constexpr uint64_t kZeros[32] = {};
    if (o.kind == Operand::Reg) return &reg(w, o.reg, 0);
    if (o.kind == Operand::None) return kZeros;
    if (o.kind == Operand::Imm) {
      std::fill_n(tmp, 32, uint64_t(o.imm));
      return tmp;
    }
    for (uint32_t m = exec; m; m &= m - 1) tmp[std::countr_zero(m)] = val(o, w, std::countr_zero(m));
    return tmp;
  }

  // ---- the scheduler and control flow (warp.cpp) ------------------------------------
  uint64_t run_warp(uint32_t w);
  // ---- the compiling engine (compiled.cpp) -------------------------------------------
  // The lanes `active` of warp w (of its `ready` ones) at `pc` run in the kernel's compiled
  // code as far as it goes: false when it ran nothing (the scheduler runs the instruction);
  // else `pc` and `known` say where the warp stands, as after the interpreter's steps, and
  // `yield` that an mbarrier wait lets the other warps run.
  bool run_compiled(uint32_t w, uint32_t& pc, uint32_t active, uint32_t ready, bool& known, uint64_t& lanes, bool& yield);
  void compiled_setup();
  static uint64_t compiled_execute(compiled::Ctx& c, uint32_t pc, uint32_t exec);
  void counted_in_order();
  static bool compiled_find(compiled::Ctx& c, uint32_t pc, uint64_t a, uint32_t bytes);
  static bool compiled_note(compiled::Ctx& c, uint32_t pc, uint32_t exec, const uint64_t* at);
  static bool compiled_one_shared(compiled::Ctx& c, uint64_t lo, uint64_t hi);
  compiled::Entry entry_ = nullptr;               // null: the interpreter alone
  compiled::Ctx cx_;
  std::vector<compiled::GlobalSlot> slots_;      // per instruction
  std::vector<uint64_t> symvals_;                // per symbol
  uint64_t entry_budget_ = 0, entry_clock_ = 0;  // budget and clock when the compiled code was entered
  [[noreturn]] void out_of_budget(uint32_t w, const Insn& at, bool watched = false) const;
  // The budget ran out with warp w at `pc`: an endless loop is told from a long one by
  // progress (warp.cpp). A plain launch's block is watched instruction by instruction for a
  // while: each warp that comes back to where it stood with every register and lane as it
  // was has made no progress; if all of them do, the block is stopped as an endless loop;
  // if one comes back changed (or the watch ends undecided), the block gets its budget again
  // and runs on, up to the program's time limit. A cooperative launch's or a cluster's blocks
  // wait on each other, so there the budget alone decides, as before.
  void budget_spent(uint32_t w, uint32_t pc);
  struct Watch {
    uint64_t steps = 0;               // instructions watched (0: not watching)
    std::vector<uint32_t> pc;         // per warp: where it stood as the watch began
    std::vector<uint8_t> moved, same;  // it ran since; it came back unchanged
    std::vector<Warp> lanes;          // its lanes then
    std::vector<uint64_t> regs;       // its registers then
  };
  Watch watch_;
  // The device was told to stop (Device::stop): warp w at `at` (null: at the block's start).
  [[noreturn]] void stopped(uint32_t w, const Insn* at) const;
  void advance(uint32_t w, uint32_t lanes, uint32_t to) {
    uint32_t* const pc = warps_[w].pc;
    if (lanes == ~0u) {  // a whole warp (at every barrier of most kernels): plain stores, in vectors
      for (int l = 0; l < 32; ++l) pc[l] = to;
      return;
    }
    for (uint32_t m = lanes; m; m &= m - 1) pc[std::countr_zero(m)] = to;
  }
  void control(const Insn& in, Step& s);  // the Control rows of opcodes.def
  void bra_op(const Insn& in, Step& s);
  void call_op(const Insn& in, Step& s);
  void ret_op(const Insn& in, Step& s);
  void exit_op(const Insn& in, Step& s);
  void bar_op(const Insn& in, Step& s);
  void named_barrier(const Insn& in, Step& s, uint32_t id, uint32_t count);
  void cluster_barrier(const Insn& in, Step& s);  // barrier.cluster.arrive / wait (grid.cpp)
  void cluster_exit(uint32_t w, uint32_t lanes);   // exited lanes no longer hold the cluster barrier
  void cluster_count_in();                          // one thread more arrived or exited
  // The CTA of the cluster that shared::cluster address `a` (windows.h) names, with `a` made
  // its window offset; null when the launch's cluster has no such rank.
  BlockRun* cta_of(uint64_t& a);
  uint64_t cluster_sreg(Sreg s) const;

  // ---- every other instruction (execute.cpp) ----------------------------------------
  // Runs a non-control instruction for the lanes of `exec`; returns lane accesses.
  uint64_t execute(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  template <auto F, bool kVectors>
  uint64_t lanes(const Insn& in, uint32_t w, uint32_t exec);
  static bool exact_path(const Insn& in);
  template <auto F>
  uint64_t lanes_exact(const Insn& in, uint32_t w, uint32_t exec);
  uint64_t mov_vector(const Insn& in, uint32_t w, uint32_t exec);
  uint64_t shfl_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t vote_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  // The executing lanes of lane l's membermask, operand `i` of a .sync warp instruction
  // (all executing lanes when the instruction names none).
  uint32_t members(const Insn& in, uint32_t i, uint32_t w, int l, uint32_t exec) {
    return in.nops > i ? uint32_t(val(in.o[i], w, l)) & exec : exec;
  }
  uint64_t activemask_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t redux_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t match_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t elect_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t getctarank_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);

  // ---- memory (memory.cpp) ----------------------------------------------------------
  uint64_t memory_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  bool memory_one_array(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  // A one-array access (ld or st of shared or global memory whose lanes reach one array):
  // its lanes' bytes and offsets, the array's trace buffer.
  struct OneArray {
    uint32_t offs[32];
    uint8_t* ptr[32];
    uint32_t buffer = trace::kNoBuffer;
    trace::Space space = trace::Space::Global;
  };
  bool one_array(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec, const uint64_t* at, OneArray& r);
  void one_array_record(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec, OneArray& r);
  void atomics(const Insn& in, uint32_t w, uint32_t exec, const Where* where);
  [[noreturn]] void fault(const Insn& in, uint32_t w, int lane, const std::string& array, int64_t offset, uint64_t size);
  // "kernel K: PTX line N: OPCODE: why": an instruction used as it cannot be (memory.cpp).
  [[noreturn]] void insn_fault(const Insn& in, const std::string& why) const;
  void place(Fault& f, const Insn& in, uint32_t w, int lane) const;  // the fault's thread, block, warp and line
  void fault_request(Fault& f, uint32_t pc, const Insn& in, const Operand& ao, uint32_t w, uint32_t exec, trace::Op op,
                     uint32_t bytes);
  Where resolve(const Insn& in, Space sp, uint64_t a, uint32_t bytes, uint32_t w, int lane);
  // Notes that this launch read (ld) or wrote (st) or both (atom) array `al`, or only
  // reduced into it (Insn::reduces): what decides whether a launch alike it can be skipped
  // (Device::after_run). Anything but a reduction first has the array's due reductions
  // applied. Any worker.
  void touch(Device::Alloc& al, const Insn& in) {
    const Opc op = in.op;
    const uint8_t bit = in.reduces ? Device::Alloc::kReduced
                        : op == Opc::Ld || op == Opc::CpAsync ? Device::Alloc::kRead  // cp.async reads global memory only
                        : op == Opc::St ? Device::Alloc::kWritten
                                        : uint8_t(Device::Alloc::kRead | Device::Alloc::kWritten);
    if (!in.reduces && al.lazy.load(std::memory_order_acquire)) [[unlikely]] d_.materialize(al);
    std::atomic_ref<uint8_t> t(al.touched);
    if ((t.load(std::memory_order_relaxed) & bit) != bit) t.fetch_or(bit, std::memory_order_relaxed);
  }
  size_t shared_array(uint64_t a, size_t& hint) const;
  [[gnu::always_inline]] uint32_t shared_buffer(size_t i) {
    if (!shared_buf_.empty()) [[likely]] return shared_buf_[std::min(i, shared_buf_.size() - 1)];
    return make_shared_buffers(i);
  }
  [[gnu::noinline]] uint32_t make_shared_buffers(size_t i);
  uint32_t local_buffer();
  uint32_t site_of(uint32_t pc, const Insn& in, trace::Space sp, trace::Op op, uint32_t bytes);
  uint32_t trace_file(uint32_t f);
  trace::WarpAccess warp_access(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec, trace::Space space, trace::Op op,
                                uint32_t bytes, uint32_t buffer);
  void record(uint32_t pc, const Insn& in, trace::Op op, uint32_t bytes, uint32_t exec, const Where* where, uint32_t w);
  void record_lanes(uint32_t pc, const Insn& in, trace::Op op, uint32_t bytes, uint32_t exec, const Where* where,
                    uint32_t w);

  // ---- matrix instructions (matrix.cpp, mma.cpp) -------------------------------------
  // ldmatrix, stmatrix, movmatrix, wmma.load/store, and the products of mma.sync and
  // wmma.mma; each needs the whole warp (whole_warp faults otherwise).
  uint64_t ldmatrix_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t stmatrix_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t movmatrix_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t wmma_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t mma_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t wgmma_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);  // wgmma.cpp
  uint64_t setmaxnreg_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);  // wgmma.cpp
  void wgmma_share(const Insn& in, uint32_t w);
  void whole_warp(const Insn& in, uint32_t w, uint32_t exec);
  void fragment_in(const Operand& o, uint32_t w, int l, uint64_t* regs);
  void fragment_out(const Operand& o, uint32_t w, int l, const uint64_t* regs);
  void record_form(uint32_t pc, const Insn& in, trace::Op op, uint32_t bytes, uint32_t active, const Where* where, uint32_t w,
                   trace::Form form);
  void mma_event(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);

  // ---- races in shared memory (races.cpp) -------------------------------------------
  // A recorded launch keeps, per 4-byte word of the shared window, who touched it in the
  // current block and epoch: the warps that read and wrote it (a bit each: most accesses
  // are settled by these alone), its last writer and up to two readers of different warps
  // with their bytes (enough to name a reader of another warp than any later writer's).
  // Lanes of one warp run in lock step here and are never paired: the races reported are
  // between warps (racecheck also warns of threads of one warp that a __syncwarp() should
  // order). Atomics on one word by several warps are no race; an atomic and a plain
  // access are.
  struct Touch {
    uint32_t pc = 0;
    uint16_t thread = 0;  // linear in the block
    uint8_t bytes = 0;    // which of the word's bytes (a bit each); 0: no access
    uint8_t atomic = 0;
  };
  struct Shadow {
    uint64_t when = 0;    // shadow_stamp() of the block and epoch it describes; else empty
    uint32_t readers = 0, writers = 0;  // the warps (a bit each, modulo 32) that read it, wrote it
    Touch write, read1, read2;
  };
  uint64_t shadow_stamp() const { return (uint64_t(block_) << 32 | epoch_) + 1; }
  // The lanes of `exec` read, write or update atomically `bytes` at window offsets `at`:
  // each word's shadow checked against the other warps' accesses since the last barrier,
  // and updated.
  void shared_touch(uint32_t pc, uint32_t w, uint32_t exec, const uint64_t* at, uint32_t bytes, RaceEnd::Access how);
  // The same for a general access's lanes whose `where` is shared memory.
  void shared_touch(uint32_t pc, uint32_t w, uint32_t exec, const Where* where, uint32_t bytes, RaceEnd::Access how);
  // The shadow's own check of one access (shared_touch, when the block is not a repeat).
  void shadow_touch(uint32_t pc, uint32_t w, uint32_t exec, const uint64_t* at, uint32_t bytes, RaceEnd::Access how);
  // Blocks that repeat: the shared accesses of the first block of this BlockRun (the
  // launch's, or a worker's past the cap) that met no race are kept as a reference (per
  // access: pc, warp, epoch, lanes, bytes, kind, the first lane's window offset and its
  // lanes' offsets from it, as one of the block's few patterns). A later block
  // whose accesses repeat the reference's in order meets no race either (whether two
  // accesses race depends on the accesses alone), so its shadow is left alone; at the first
  // access that differs, the reference's accesses before it (the block's own) are checked,
  // in order, and the block goes on checked. The races found are the ones the shadow alone
  // finds, at a fraction of its cost.
  enum class Memo : uint8_t { Off, Build, Match, Checked };
  void memo_begin();
  void memo_end();
  bool memo_match(uint32_t pc, uint32_t w, uint32_t exec, const uint64_t* at, uint32_t head2);
  void memo_log(uint32_t pc, uint32_t w, uint32_t exec, const uint64_t* at, uint32_t head2);
  void memo_replay();
  Memo memo_ = Memo::Off;
  bool memo_have_ = false;     // memo_ref_ holds a block's accesses (maybe none)
  bool memo_raced_ = false;    // this block met a race (race() was called)
  uint32_t memo_tries_ = 0;    // blocks tried as the reference (the cursor: cx_.memo_at)
  std::vector<uint32_t> memo_ref_, memo_log_;
  // The lane patterns the references name (compiled::kMemoHead), and where each of the log's is.
  std::vector<uint32_t> memo_ref_patterns_, memo_log_patterns_;
  std::unordered_map<std::string, uint32_t> memo_log_pattern_at_;
  // One lane, and one word of it that the bits did not settle (the slots decide).
  [[gnu::noinline]] void touch_lane(uint32_t pc, uint32_t w, int l, uint64_t a, uint32_t bytes, RaceEnd::Access how,
                                    uint64_t now);
  [[gnu::noinline]] void touch_word(uint64_t word, Touch t, uint32_t w, RaceEnd::Access how, uint64_t now);
  [[gnu::noinline]] void race(const Touch& before, RaceEnd::Access before_how, const Touch& now, RaceEnd::Access now_how,
                              uint64_t at);
  [[gnu::noinline]] bool make_shadow();

  // ---- asynchronous copies and mbarriers (async_copy.cpp, mbarrier.cpp) ---------------
  // One warp instruction's cp.async copies not landed yet: their bytes were read from global
  // memory at issue; they reach shared memory at the wait (or mbarrier phase) that covers them.
  struct InFlight {
    uint32_t pc = 0, warp = 0;
    uint32_t lanes = 0;                // lanes whose copy has not landed
    bool recorded = false;             // its read half was recorded (so the write half is too)
    uint32_t group[32] = {};           // per lane: the group it belongs to (its commits before it)
    uint64_t barrier[32] = {};         // per lane: the mbarrier it lands with (window offset + 1; 0: none)
    uint64_t dst[32] = {};             // per lane: shared window offset
    std::array<std::array<uint8_t, 16>, 32> bytes{};  // per lane, zero-filled past its source size
  };
  // A cp.async.bulk(.tensor) not landed yet: its whole destination, laid out as it will lie.
  struct BulkInFlight {
    uint32_t pc = 0, warp = 0;
    uint64_t barrier = 0;              // window offset of its mbarrier
    bool recorded = false;
    // Its read records, to be paired with its write records in issue order (bulk_paired):
    // the CTA that issued it, and its place among that warp's recorded copies of the
    // instruction.
    const BlockRun* issuer = nullptr;
    uint32_t ordinal = 0;
    std::vector<uint64_t> piece;       // shared window offset of each 16-byte piece
    std::vector<uint8_t> bytes;        // 16 per piece
  };
  uint64_t cp_async_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t mbarrier_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t cp_async_issue(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t cp_bulk_issue(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t cp_tensor_issue(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);  // tensor_copy.cpp
  // The tensor map that operand `o` of lane `l` names (checked, of the copy's rank) and the
  // box at the operand's coordinates: a TMA load's or store's (tensor_copy.cpp).
  struct TensorBox {
    TensorMap map;
    int64_t c0[TensorMap::kMaxRank] = {};  // the box's first element in each dimension
    uint64_t rows = 1, row_bytes = 0, size = 0;  // rows: every dimension but 0
  };
  TensorBox tensor_box(const Insn& in, const Operand& o, uint32_t w, int l);
  // tensormap.replace (a field of a tensor map in shared or global memory) and
  // tensormap.cp_fenceproxy (a map's 128 bytes from shared to global memory): tensor_copy.cpp.
  uint64_t tensormap_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  // ---- shared to global: bulk and tensor stores and reductions (bulk_store.cpp) ------
  // One thread's store not landed yet: the shared bytes were read at issue; they reach
  // global memory (or are reduced into it) when a cp.async.bulk.wait_group of the thread
  // covers its bulk group, or when the block ends.
  struct BulkStore {
    uint32_t pc = 0, warp = 0;
    int lane = 0;
    uint32_t group = 0;              // the thread's bulk groups committed before it was issued
    bool recorded = false;
    Type type = Type::None;          // a reduction's element type
    std::vector<uint64_t> piece;     // global address of each 16-byte piece
    std::vector<uint16_t> keep;      // per piece, a bit per byte that lands (a box's elements inside its tensor)
    std::vector<uint8_t> bytes;      // 16 per piece
  };
  uint64_t bulk_store_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec);
  uint64_t bulk_store_issue(uint32_t pc, const Insn& in, uint32_t w, int l);
  uint64_t tensor_store_issue(uint32_t pc, const Insn& in, uint32_t w, int l);
  // Records the shared half (the pieces read at `from`, window offsets), puts `s` in flight.
  void issue_store(const Insn& in, const std::vector<uint64_t>& from, BulkStore s);
  void land_store(const BulkStore& s);
  // Lands, in issue order, the stores of warp `w`'s `lanes` older than their newest
  // `keep_groups` bulk groups (cp.async.bulk.wait_group keep_groups).
  void land_stores(uint32_t w, uint32_t lanes, uint32_t keep_groups);
  void land_all_stores();
  std::vector<BulkStore> stores_;
  std::vector<std::array<uint32_t, 32>> bulk_committed_;  // per warp and lane: bulk groups committed
  // Lands the copies of warp `w`'s lanes `lanes` that `due` picks (per entry and lane).
  template <class Due>
  void land(uint32_t w, uint32_t lanes, Due&& due);
  void land_one(InFlight& f, uint32_t lanes);
  void land_barrier(uint64_t bar);   // every copy waiting for mbarrier `bar`'s phase
  // mbarrier `bar` (window offset) given `arrivals` arrivals and `tx` bytes done; completes
  // its phase when nothing is pending.
  // (`remote`: the instruction is another CTA's, which keeps its own events)
  void mbarrier_update(const Insn& in, uint32_t w, int l, uint64_t bar, uint32_t arrivals, int64_t tx, bool remote = false);
  // The window offset of the mbarrier at address `a` (of the instruction's space); faults
  // when it is not an aligned 8-byte word of shared memory.
  uint64_t mbarrier_at(const Insn& in, uint64_t a, uint32_t w, int l);
  // (`to_global`: a store's halves, shared read and global write)
  void async_sites(uint32_t pc, const Insn& in, trace::Form read, trace::Form write, uint32_t bytes, bool to_global = false);
  // A bulk or tensor copy issued by lane `l` of warp `w`: its 16-byte pieces read from
  // global addresses `read` (~0: a piece not read whole, not recorded) recorded 32 to a
  // record, the copy put in flight and its bytes counted against its mbarrier.
  void issue_bulk(uint32_t pc, const Insn& in, uint32_t w, int l, BulkInFlight b, const std::vector<uint64_t>& read);
  // A bulk copy's `size` bytes between `dst` and `src`: faults unless all three are multiples of 16.
  void check_bulk(const Insn& in, uint64_t size, uint64_t dst, uint64_t src) const;
  // One instruction's 16-byte pieces at addresses `at` of space `sp` (~0: a piece not
  // recorded), 32 to a record, all with one seq; `each` (if any) sees a record's resolved
  // pieces and their mask first.
  void record_pieces(uint32_t pc, const Insn& in, Space sp, const std::vector<uint64_t>& at, uint32_t w, trace::Op op,
                     const std::function<void(const Where*, uint32_t)>& each = {});
  // (`barrier`: the mbarrier it names; `own_seq`: the event takes a place of the warp's
  // instruction count, else it shares the next one's: a phase completed by an instruction)
  void async_event(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec, trace::Form form, uint32_t arg,
                   uint32_t barrier = trace::kNoBarrier, bool own_seq = true);
  void async_reset();                          // a block's start: nothing in flight
  std::vector<std::vector<InFlight>> in_flight_;   // per warp, in issue order
  std::vector<std::array<uint32_t, 32>> committed_;  // per warp and lane: groups committed
  std::vector<BulkInFlight> bulk_;
  // Recorded bulk copies issued and landed so far in this block, by (warp, pc).
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> bulk_issued_, bulk_landed_;
  std::map<uint64_t, uint64_t> phase_bytes_;  // per mbarrier: the transaction bytes its phase expected so far
  void bulk_paired(const BulkInFlight& b);
  std::vector<uint32_t> event_site_;           // per instruction: its event site (made on first use)
  bool wait_yield_ = false;                    // a failed mbarrier wait: the warp lets the others run
  // A wgmma.mma_async whose warpgroup has not all arrived: the warp stays at it and lets the
  // others run (wgmma.cpp). Per warp: the wgmma.mma_async it has arrived at so far, and
  // whether it waits at one now.
  bool stall_ = false;
  uint32_t stall_pc_ = 0;  // where the compiled code met the stall
  std::vector<uint32_t> wg_arrived_, wg_computed_;  // wg_computed_: the last whose share is made
  std::vector<uint8_t> wg_waiting_;

  // ---- calls and the device's builtins (builtins.cpp) -------------------------------
  void call(const Insn& in, uint32_t w, int l, uint32_t ret_pc);
  const Kernel::Linked& target(const Insn& in, uint32_t w, int l, uint32_t& li);
  void enter_recursive(const Kernel::Linked& L, Stack& st, uint32_t w, int l);
  void ret(uint32_t w, int l);
  void builtin(const Insn& in, const Kernel::Linked& L, uint32_t w, int l);
  std::string device_string(const Insn& in, uint64_t a, uint32_t w, int l);
  uint32_t device_printf(const Insn& in, uint64_t fmt_addr, uint64_t args, uint32_t w, int l);

  // The trace array of a global allocation: made on its first access; a worker notes it
  // for the merge instead and answers a provisional buffer (provisional_arrays).
  uint32_t global_buffer(Device::Alloc& al);

  std::vector<BlockRun*>* cluster_ = nullptr;  // a cluster launch's CTAs, by rank (grid.cpp)
  ClusterSync* sync_ = nullptr;                // null unless clustered or the kernel waits at barrier.cluster
  ClusterSync own_sync_;                       // a launch without clusters: a cluster of this CTA alone
  bool cluster_barrier_ = false;               // the kernel has a barrier.cluster
  bool cluster_addresses_ = false;             // the kernel has a mapa: shared addresses may name other CTAs
  uint32_t rank_ = 0;
  std::vector<uint64_t> cluster_arrived_;      // per thread: the cluster barrier phase it arrived in, + 1
  bool record_ = true;
  bool worker_ = false;                          // a worker of a parallel launch (work_for)
  std::vector<SiteWant> site_wants_;             // a worker's block's, in the order it met them (site_of)
  uint64_t counted_ = 0;                         // of the entry's cx_.dropped, those in the warp's seq already
  std::vector<PendingRace> pending_races_;
  std::vector<std::pair<uint32_t, Device::Alloc*>> new_arrays_;
  std::vector<Device::Alloc*> provisional_;
  bool yielded_ = false;           // a warp of a cooperative launch gave the others their turn
  std::mutex* atomics_ = nullptr;  // held by each warp's atomics while other workers run
  Device& d_;
  const Kernel& k_;
  const KernelLaunch& a_;
  trace::Builder& b_;
  std::vector<uint32_t> shared_buf_;             // the trace's buffer of each shared array (made on first use)
  uint32_t local_buf_ = trace::kNoBuffer;
  std::vector<uint32_t> sites_;                  // per instruction and space: its trace site
  std::vector<uint8_t> uniform_;                 // per register: uniform by construction (uniform.h), found at the first atomic
  std::vector<std::pair<uint64_t, uint64_t>> shared_range_;  // per shared array: [begin, end) in the window
  size_t shared_hint_ = 0;
  std::vector<size_t> pc_shared_;                // per instruction: the shared array it reached last
  std::vector<Shadow> shadow_;                   // per shared word (made on first use)
  std::vector<std::array<uint32_t, 5>> race_pairs_;  // (file, line) of both ends and the array of each race found
  std::vector<Device::Alloc*> pc_alloc_;         // per instruction: the allocation it reached last
  std::vector<uint32_t>& files_;
  uint64_t& budget_;
  uint32_t threads_ = 0, nwarps_ = 0, block_ = 0, epoch_ = 0;
  uint32_t place_[kPlaceWords] = {};  // the block's place (arith.h: place_value)
  const uint32_t* const ctaid_ = place_ + 3;  // the block's index in the grid, x, y, z (of the place)
  uint32_t compiled_blocks_ = 0, interpreted_blocks_ = 0, repeated_blocks_ = 0;  // (~BlockRun)
  uint64_t clock_ = 0;
  Device::Alloc* last_ = nullptr;
  std::vector<uint8_t> shared_, local_, call_;
  std::vector<Stack> stacks_;  // per thread: the calls it is inside
  // The named barriers (bar.sync / bar.arrive with a count of part of the block): the count
  // each was reached for (0: idle), the threads in so far, the lanes of each warp waiting.
  std::string where_warps() const;  // where each warp stands, for a deadlock's line (warp.cpp)
  struct Named {
    uint32_t count = 0, arrived = 0;
    std::vector<uint32_t> lanes;
  };
  std::array<Named, 16> named_;
  // The bar.red the block's lanes wait at: its instruction, the lanes of each warp that
  // reached it, the count and the and/or of their predicates so far.
  const Insn* red_ = nullptr;
  std::vector<uint32_t> red_lanes_;
  uint32_t red_count_ = 0;
  bool red_and_ = true, red_or_ = false;
  std::vector<uint64_t> regs_;
  std::vector<uint32_t> fresh_;  // the registers a block must find cleared (entry_registers)
  std::vector<Warp> warps_;
};

}  // namespace ws::ptx
