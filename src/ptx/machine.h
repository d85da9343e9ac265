// src/ptx/machine.h — an emulated CUDA device that runs decoded PTX (ptx.h): device
// memory (allocations, a module's variables), and launches executed warp by warp in lock
// step. A warp runs the instruction of its lowest program counter with the lanes that
// stand there (the others wait: divergence, and reconvergence where the paths meet); the
// warps of a block run in turn between barriers. Every global, shared, local and constant
// access of a recorded launch becomes one warp-level record through trace::Builder,
// attributed to its array; a kernel's launches after its first few run unrecorded, their
// blocks spread over every core, only counted and timed.
// Engine: a user's program on the CPU (its PTX interpreted; the 2×2 of engines: session/capture.h).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ptx/engine.h"
#include "ptx/ptx.h"
#include "ptx/windows.h"
#include "trace/builder.h"

namespace ws::ptx {


// A fault of the running kernel (an access outside every array, a division the machine
// refuses, a kernel that runs past its instruction budget): one line, as the GPU's
// "illegal address" would be reported with where it happened.
struct Fault : std::runtime_error {
  using std::runtime_error::runtime_error;
  Fault(const std::string& what, bool assertion) : std::runtime_error(what), assertion(assertion) {}
  bool assertion = false;  // a failed assert() in the kernel, not an access
  // Where it happened, as far as the machine knows it (a front end draws it; what() says it):
  // "out_of_bounds", "endless_loop", "assert", or "" for the rest.
  std::string kind;
  std::string array;                     // out_of_bounds: the array the address was read against
  int64_t offset = 0;                    // its byte offset there, of the first lane outside
  uint64_t size = 0;                     // the array's bytes
  bool placed = false;                   // thread, block, warp and line below are known
  uint32_t thread[3] = {}, block[3] = {}, warp = 0;
  uint32_t file = 0, line = 0;           // the .loc of the instruction (a PTX .file number)
  std::string file_name;                 // assert: the file its message names (else "")
  uint32_t lanes = 0;                    // out_of_bounds: the lanes of the warp's request
  int64_t lane_offset[32] = {};          // ... each one's byte offset in `array`
  int64_t record = -1;                   // the request's record in the trace (-1: not recorded)
  // The same fault, its line ending in `more` (what the instruction was doing then).
  Fault said_with(const std::string& more) const {
    Fault f(*this);
    static_cast<std::runtime_error&>(f) = std::runtime_error(std::string(what()) + more);
    return f;
  }
};

// A launch of a kernel that holds an instruction the interpreter refuses (Kernel::refused):
// nothing of it ran. One line: "kernel bad cannot run: prog.ptx:57: cvt.rn.bf16.f32: the
// type bf16 is not implemented". A Fault, so that every reader of faults reports it.
struct Refused : Fault {
  explicit Refused(const std::string& what) : Fault(what, false) {}
};

// Two accesses of one shared-memory word by threads of different warps of a block between
// the same two barriers, at least one a write and not both atomic: a race, as
// compute-sanitizer's racecheck calls a shared-memory hazard (block_run.h says where this
// detector differs). `first` is the access the interpreter ran first; which of the warps
// a GPU runs first is not fixed, so either order can happen there.
struct RaceEnd {
  uint32_t file = 0, line = 0, column = 0;  // the instruction's .loc (file: Module::files key)
  uint32_t pc = 0;                          // the instruction in the kernel's code
  uint32_t thread = 0;                      // linear thread index in the block
  enum Access : uint8_t { Read, Write, Atomic } access = Read;
};
struct Race {
  uint32_t launch = 0;                      // index into the trace's launches
  uint32_t block = 0;                       // linear block index
  uint32_t array = 0;                       // index into Kernel::shared; its size: the padding between arrays
  std::string name;                         // that array as the views call it ("reduceSum::partial")
  uint64_t offset = 0;                      // byte offset of the word in that array (in the window: padding)
  RaceEnd first, second;
};
// Races kept per launch: a race in a loop repeats in every block and iteration; the pairs of
// lines past these are only counted.
constexpr uint32_t kRacesPerLaunch = 10;

// Warp instructions one block executes before it is watched for an endless loop (BlockRun::
// budget_spent: stopped only if nothing in it changes; a long loop runs on). A cooperative
// launch's blocks, which run in turns, share one, and are stopped when it is spent.
constexpr uint64_t kInstructionBudget = 600'000'000ull;

// Shared memory one block may have, static and dynamic together (an H100's 227 KiB).
constexpr uint64_t kMaxSharedPerBlock = 227 * 1024;

// One launch of a kernel as the program asked for it: which kernel, its grid and block, the
// dynamic shared memory and the argument bytes.
struct KernelLaunch {
  std::string kernel;             // mangled name, as registered
  trace::Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  std::vector<uint8_t> params;    // packed as the kernel's .param list
  // cudaLaunchCooperativeKernel: every block resident at once, so that a grid-wide barrier
  // (cooperative groups' this_grid().sync()) can wait for all of them.
  bool cooperative = false;
  // A launch with thread block clusters (cudaLaunchKernelEx's cluster dimension, or the
  // kernel's __cluster_dims__): the CTAs of each cluster resident together (grid.cpp),
  // reading each other's shared memory. 1x1x1: none.
  trace::Dim3 cluster = {1, 1, 1};
};

// The clusters a launch of `k` runs in: the launch's own, else the kernel's __cluster_dims__
// (.reqnctapercluster), else 1x1x1.
trace::Dim3 launch_cluster(const Kernel& k, const KernelLaunch& a);

// Whether a launch of `k` can leave nothing that the host or a later launch would see:
// every instruction computes, branches, waits at a barrier, reads memory, or writes only
// the block's own shared or local memory (no global or generic store, no atomic, no copy,
// no call). Such a kernel, waiting in a loop for host memory to change (a latch the host
// sets after launching it), may run at the host's next synchronisation instead.
bool writes_no_memory(const Kernel& k);

// Why a launch's clusters cannot be (a grid that is not whole clusters, a cluster of more
// than 16 CTAs, a cooperative launch with clusters); "" when they can.
std::string cluster_problem(const KernelLaunch& a);

// A kernel's name as a reader writes it: "_Z14transposeTiledILi1EEvPfPKfi" ->
// "transposeTiled<1>" (the mangled name when it does not demangle).
std::string kernel_name(const std::string& mangled);

class BlockRun;

// The engine a Device starts with (the interpreter until set): a test run sets it to run
// every test of the emulated device on the compiling engine too.
void set_default_engine(Engine e, EngineOptions o = {});

class Device {
 public:
  Device();
  ~Device();

  // The program's PTX, and where its source files are (the trace's file table).
  void load(Module m);
  const Module& module() const { return module_; }

  // Device memory. `name` is what the views call the array ("d_A").
  uint64_t malloc(uint64_t bytes, std::string name);
  bool free(uint64_t addr);
  // Host memory the device sees at the same address (cudaMallocManaged): returns it.
  uint64_t adopt(void* host, uint64_t bytes, std::string name);
  // Copies; false when a range is not inside one allocation.
  bool to_device(uint64_t dst, const void* src, uint64_t bytes);
  bool to_host(void* dst, uint64_t src, uint64_t bytes);
  bool device_to_device(uint64_t dst, uint64_t src, uint64_t bytes);
  bool memset(uint64_t dst, int value, uint64_t bytes);
  // Whether accesses to the threads' local frames are recorded (a -G build's stack
  // traffic is hidden unless asked for).
  void record_local(bool on) { record_local_ = on; }
  // How many launches of each kernel are recorded (0: all); later ones run unrecorded: the
  // same interpreter with no records, on `threads` workers (0: one per core).
  void record_launches(uint64_t first) { record_first_ = first; }
  void threads(uint32_t n) { threads_ = n; }
  // The most blocks a worker of a recorded launch takes at once (0: as many as the launch's
  // size and records suit; run_parallel), whatever the blocks' count.
  void block_runs(uint32_t n) { block_runs_ = n; }
  // A module variable's device address (__device__ / __constant__), 0 when none.
  uint64_t symbol(const std::string& name) const;
  // The allocation that holds `addr` (its name), "" when none.
  std::string owner(uint64_t addr) const;

  // Runs one launch to its end, recording through `b` (a launch is begun there; an
  // unrecorded one has no blocks and no records). `budget` caps the warp instructions of
  // each block (a kernel that never ends). Throws Fault: on several workers, the fault of the lowest
  // block, as one worker would have met it first. Returns the lane accesses executed.
  uint64_t launch(const KernelLaunch& a, trace::Builder& b, uint64_t budget = kInstructionBudget);

  // Which engine runs the launches (the interpreter until told otherwise). With Compiled,
  // a module found in the compiling engine's cache runs natively from its first launch;
  // another is compiled when EngineOptions says (in the background, its blocks moving to
  // the native code once it is loaded). A kernel that cannot be compiled, or a module the
  // compiler refuses, runs on the interpreter, and engine_note() says why in one line. Each
  // launch's trace entry names the engine that ran its blocks.
  void engine(Engine e, EngineOptions o = {}) {
    engine_ = e;
    engine_options_ = std::move(o);
    build_.reset();
  }
  Engine engine() const { return engine_; }
  std::string engine_note() const { return build_ ? build_->error() : std::string(); }
  // What the device said about a launch that the run should say once (new since the last
  // call): a one-line note each, e.g. what ran but is not in the trace.
  std::vector<std::string> take_notes() { return std::exchange(notes_, {}); }
  void note(const std::string& line) {
    if (noted_.insert(line).second) notes_.push_back(line);
  }
  // Seconds the module's compile took (0: taken from the cache, or not compiled yet).
  double engine_compile_seconds() const { return build_ ? build_->compile_seconds() : 0; }
  // Waits for a compile running in the background (a front end that wants to measure).
  void engine_wait() {
    if (build_) build_->start(true);
  }
  // The program ends (this device is not destroyed): a compile running in the background is
  // left to finish on its own and fill the cache for the next run (EngineBuild::leave).
  void engine_leave() {
    if (build_) build_->leave();
  }

  // Stops the launch running now, from any thread (a program's time limit): its blocks throw
  // a Fault of kind "timeout" within a few million instructions, and so does every later
  // launch at its first block.
  void stop() { stop_.store(true, std::memory_order_relaxed); }
  bool stopping() const { return stop_.load(std::memory_order_relaxed); }

  // Whether recorded launches look for shared-memory races (on by default; their cost is
  // a shadow word per shared word touched). Unrecorded launches never do.
  void detect_races(bool on) { detect_races_ = on; }
  // The races of every recorded launch so far, at most kRacesPerLaunch per launch, and per
  // launch how many more distinct pairs of lines raced.
  const std::vector<Race>& races() const { return races_; }
  const std::map<uint32_t, uint32_t>& races_left_out() const { return races_left_out_; }
  // Of the last launch's blocks past its record cap, those whose shared accesses repeated a
  // race-free block's, so that the race check settled them without the shadow (races.cpp).
  uint32_t blocks_repeated() const { return blocks_repeated_; }

  // The reductions one launch made into one array, in order: each its byte offset with
  // its kind (AtomOp, Type, whether global: reduction_at) above bit 48, and its operand.
  struct RedLog {
    struct Entry {
      uint64_t at, operand;
    };
    std::vector<Entry> e;
    std::atomic<uint64_t>* counted = nullptr;  // the device's bytes of logs, less these when freed
    ~RedLog() {
      if (counted) counted->fetch_sub(e.size() * sizeof(Entry), std::memory_order_relaxed);
    }
  };

  // An array's bytes as the host holds them: an array of a megabyte or more on 2 MiB pages
  // where the operating system grants them (a column walk of a 4 MiB matrix touches a page
  // a row, and 4 KiB pages missed the TLB on nearly every row).
  template <class T>
  struct BigPages {
    using value_type = T;
    BigPages() = default;
    template <class U>
    BigPages(const BigPages<U>&) {}
    T* allocate(size_t n);
    void deallocate(T* p, size_t n);
    bool operator==(const BigPages&) const { return true; }
  };
  struct Alloc {
    uint64_t base = 0, bytes = 0;
    std::vector<uint8_t, BigPages<uint8_t>> data;  // owned memory (empty for adopted host memory)
    uint8_t* ptr = nullptr;      // the bytes: data.data(), or the host's
    std::string name;
    trace::Space space = trace::Space::Global;
    uint32_t buffer = trace::kNoBuffer;  // in the trace being built; assigned on first access
    bool freed = false;
    // What the launch running now did to it (kRead | kWritten, set by any worker), and the
    // device's write count when its bytes last changed: what a repeated launch is judged by.
    uint8_t touched = 0;
    uint64_t version = 0;
    static constexpr uint8_t kRead = 1, kWritten = 2, kReduced = 4;  // kReduced: only by reductions (Insn::reduces)
    uint64_t serial = 0;  // which allocation this is (a base may be given again after a free)
    // Reductions due but not yet applied: the logs of launches that only reduced into this
    // array, each with how many times it is due, in order. Applied (materialize) before
    // anything else reads or writes the array; dropped when it is freed or overwritten
    // whole. `lazy`: whether any are due, read by any worker without the lock that guards
    // `pending` (the running launch's reductions into such an array are only logged).
    std::vector<std::pair<std::shared_ptr<const RedLog>, uint64_t>> pending;
    std::atomic<bool> lazy{false};
    // The running launch's reductions into it, in the order they were made, while they
    // are kept (`log_ok`: none was lost to the log budget or to another kind of access).
    std::shared_ptr<RedLog> log;
    bool log_ok = false;
    // Its bytes' hash (Device::content) at `hashed` (a version; ~0: none yet).
    uint64_t hash = 0, hashed = ~uint64_t(0);
  };

 private:
  friend class BlockRun;
  Alloc* find(uint64_t addr, uint64_t bytes);
  uint32_t buffer_of(Alloc& a, trace::Builder& b);
  uint32_t new_buffer(const Alloc& a, trace::Builder& b);  // a trace buffer for `a` (not noted on it)
  // The trace's buffer of shared array `shared` (a buffer of this trace) as the CTA of
  // cluster rank `rank` holds it, reached from another CTA (added on first use).
  uint32_t cluster_buffer(uint32_t shared, uint32_t rank, trace::Builder& b);
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> cluster_buffers_;  // (shared, rank) -> buffer
  uint64_t run_recorded(const Kernel& k, const KernelLaunch& a, trace::Builder& b, uint64_t budget);
  uint64_t run_unrecorded(const Kernel& k, const KernelLaunch& a, trace::Builder& b, uint64_t budget);
  // A launch's sites' arrays (Site::buffer), settled from its records as they are kept: the
  // one array all of a site's records reach, kNoBuffer where they reach several. Done for a
  // launch that faulted too: the requests recorded up to the fault keep their arrays' names.
  struct SiteBuffers {
    explicit SiteBuffers(size_t first_record) : fed(first_record) {}
    void take(const trace::Trace& t);  // the records kept since the last take
    void settle(trace::Trace& t);      // the rest taken; then the sites' arrays set
    std::vector<uint32_t> buf;         // per site: its array, kUnseen or kNoBuffer
    size_t fed;                        // the records taken so far
  };
  // A recorded launch's blocks [from, grid) on `n` workers, committed in block order
  // (parallel.cpp).
  uint64_t run_parallel(const Kernel& k, const KernelLaunch& a, trace::Builder& b, BlockRun& first, uint32_t from,
                        uint32_t n, uint64_t budget, SiteBuffers& sites);
  // A cooperative launch (grid.cpp): every block started, run in turns until all end.
  uint64_t run_cooperative(const Kernel& k, const KernelLaunch& a, trace::Builder& b, uint64_t budget);
  // A launch with clusters (grid.cpp): cluster after cluster, the CTAs of each run in turns.
  uint64_t run_clusters(const Kernel& k, const KernelLaunch& a, trace::Builder& b, uint64_t budget);
  // Trace file index of a .file number (files are added to the trace on first use).
  std::vector<uint32_t> trace_files(trace::Builder& b);
  void settle_sites(trace::Trace& t, size_t first_record) { SiteBuffers(first_record).settle(t); }
  // After a launch that ran: the arrays it read and wrote, their versions moved on, and
  // whether a launch alike it could be skipped.
  void after_run(const Kernel& k, const KernelLaunch& a, uint32_t launch, uint64_t lanes);
  void changed(Alloc& a) { a.version = ++writes_; }
  // Reductions (atomics.cpp). Applies `a`'s due reductions, then the running launch's
  // logged ones, and ends its log: before anything but a reduction reaches its bytes.
  // `locked`: the caller holds atomics_. Cheap when none are due.
  void materialize(Alloc& a, bool locked = false);
  // One reduction into `a` (its kind and byte offset as the log keeps them), logged while
  // its log is kept; true when it is only logged, due after the array's waiting ones.
  bool log_reduction(Alloc& a, uint64_t at, uint64_t operand, bool locked);
  // Host access of [off, off + bytes) of `a`: its due reductions applied, or dropped when
  // `overwrite` covers the whole array.
  void settle(Alloc& a, uint64_t off, uint64_t bytes, bool overwrite);
  // At a launch's start: which arrays' reductions are logged (host memory's are not), the
  // budget for logs set.
  void begin_logs();
  // Bytes of memory this machine has free now (0 when it cannot tell).
  static uint64_t free_memory();
  std::atomic<uint64_t> log_bytes_{0};  // of every RedLog alive
  uint64_t log_limit_ = 0;
  uint64_t serials_ = 0;

  // A launch that read no array it wrote and ran nothing but arithmetic and memory
  // (no printf, clock, malloc, host memory): run again with the same parameters on arrays
  // whose bytes did not change since, it would write the same bytes over themselves.
  struct Repeat {
    trace::Dim3 grid, block;
    uint32_t dynamic_shared = 0;
    std::vector<uint8_t> params;
    // Whether launch `a` has its shape and parameters (the kernel's own entries are compared).
    bool same_launch(const KernelLaunch& a) const {
      return grid == a.grid && block == a.block && dynamic_shared == a.dynamic_shared && params == a.params;
    }
    std::vector<std::pair<uint64_t, uint64_t>> arrays;  // base, version after the launch
    // Of those, the arrays it only wrote (never read): base, the hash of their bytes after
    // it, where it was taken. Written since by other launches, but holding those bytes again,
    // such an array does not keep a launch alike it from repeating: the launch, deterministic,
    // reading the same versions of everything else, would write the same bytes over it.
    std::vector<std::pair<uint64_t, uint64_t>> outputs;
    uint32_t launch = 0;                                // 1-based, in the trace
    std::vector<uint64_t> rewritten;                    // (a candidate's) arrays it read and wrote
    uint64_t lanes = 0;                                 // (a candidate's) lane accesses
    // Arrays the launch only reduced into (their bytes never steered it): base, serial,
    // and its reductions, due again at each repeat instead of running it.
    struct Reduced {
      uint64_t base, serial;
      std::shared_ptr<const RedLog> log;
    };
    std::vector<Reduced> reduced;
    // Host memory it touched (changed behind the device's back): base, its bytes as the
    // launch left them.
    std::vector<std::pair<uint64_t, std::vector<uint8_t>>> host;
  };
  // Whether launch `a` is alike the launch `r` keeps (kernel shape, parameters) and every
  // array that launch touched is as it left it: what a repeat and a candidate both ask.
  bool alike(const Repeat& r, const KernelLaunch& a) const;
  // A launch alike an earlier one whose inputs and outputs are as it left them (see
  // Repeat): that launch's entry; null when it must run.
  const Repeat* repeats(const KernelLaunch& a) const;
  // The hash of an array's bytes (kept on it for its version): an output's, compared.
  uint64_t content(Alloc& x) const;
  // Per kernel: its last repeatable launches of each shape and parameters, the latest last
  // (at most kRepeatsKept: a program that checks a kernel in four block sizes and then
  // times each finds each check's launch again).
  static constexpr size_t kRepeatsKept = 8;
  std::map<std::string, std::vector<Repeat>> repeats_;
  // A repeat of `r`: its reductions due once more in each array it reduced into.
  void replay(const Repeat& r);
  // A launch that read arrays it wrote (C = A·B + 0·C, a histogram) cannot be skipped on
  // its parameters alone; but when a launch alike it, on the same bytes, leaves those arrays
  // as it found them, it reached a fixed point: any later launch alike it would too. Per
  // kernel, its last launch when only such arrays kept it from repeating; before a launch
  // that matches it, the bytes of those arrays (compared after the run in after_run).
  std::map<std::string, Repeat> candidates_;
  std::map<uint64_t, std::vector<uint8_t>> before_;     // base -> bytes before the running launch
  void keep_before(const KernelLaunch& a);
  uint64_t writes_ = 0;

  // The compiling engine at a launch's start, and at each block's (any worker): the module
  // looked up, its compile started once the interpreter has run long enough; the native
  // code when it is loaded, else null.
  void engine_begin();
  const CompiledModule* engine_ready();

  Module module_;
  Engine engine_ = Engine::Interpreter;
  EngineOptions engine_options_;
  std::unique_ptr<EngineBuild> build_;                  // the module's way to native code (Compiled)
  double interpreted_seconds_ = 0;                      // the module's launches so far, interpreted
  std::chrono::steady_clock::time_point launch_start_;  // of the launch running now
  std::atomic<uint32_t> blocks_compiled_{0}, blocks_interpreted_{0};  // of the launch running now
  std::atomic<uint32_t> blocks_repeated_{0};                         // of the launch running now
  uint64_t block_budget_ = kInstructionBudget;          // of the launch running now
  std::atomic<bool> stop_{false};                        // stop(): every block stops
  std::map<uint64_t, std::unique_ptr<Alloc>> allocs_;  // by base
  uint64_t next_ = kGlobalBase;
  std::map<std::string, uint64_t> symbols_;             // module variable -> device address
  std::vector<uint64_t> global_values_;                  // per Module::globals: an operand's value
  trace::Trace* buffers_for_ = nullptr;                  // the trace buffer ids refer to
  bool record_local_ = true;
  uint64_t record_first_ = 0;                            // launches of a kernel recorded (0: all)
  std::map<std::string, uint64_t> launched_;             // per kernel: its launches so far
  uint32_t threads_ = 0;                                 // workers of an unrecorded launch (0: a core each)
  uint32_t block_runs_ = 0;                              // block_runs
  std::mutex atomics_;                                   // global atomics across workers
  std::vector<std::string> notes_;                       // take_notes()
  std::set<std::string> noted_;
  uint64_t grid_workspace_ = 0;                          // what a cooperative launch's %envreg1:2 hold
  bool detect_races_ = true;
  std::vector<Race> races_;                              // found by recorded launches (BlockRun)
  std::map<uint32_t, uint32_t> races_left_out_;          // per launch: distinct pairs past the cap
};

}  // namespace ws::ptx
