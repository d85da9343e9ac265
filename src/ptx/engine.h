// src/ptx/engine.h — the two engines of the emulated device. The interpreter runs a
// kernel's decoded instructions one warp instruction at a time; the compiling engine turns
// each kernel of a module into C++ (codegen.cpp) — the same semantic functions (arith.h)
// over a warp's 32 lanes as vectors, its control flow as jumps — compiled once by the
// system's compiler into a shared library cached by a hash of what it was made from, and
// loaded (engine.cpp). Both run on one BlockRun and give the same results, records and
// faults: the compiled code hands everything it does not run itself to the interpreter, so
// a launch may move from one to the other between blocks.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ptx/compiled.h"
#include "ptx/ptx.h"

namespace ws::ptx {

enum class Engine : uint8_t { Compiled, Interpreter };
const char* engine_name(Engine e);
// "compiled" / "interpreter"; false for anything else.
bool parse_engine(const std::string& text, Engine& e);

// Where the compiling engine keeps its libraries, which compiler it runs, and when.
struct EngineOptions {
  std::string cache_dir;            // "": $XDG_CACHE_HOME/warpscope/engine, else ~/.cache/warpscope/engine
  std::string compiler = "c++";     // the system's C++ compiler (C++20)
  // A module not in the cache is compiled in the background once its launches have run
  // this long on the interpreter (a short program never waits for, nor pays for, a
  // compile), and its blocks move to the native code as soon as it is loaded; with `wait`
  // it is compiled at its first launch, which waits for it.
  double after_seconds = 0.3;
  bool wait = false;
  // Translation units the module is compiled in, side by side: 0 gives a long module one a
  // core (at most 8), each of a quarter megabyte of text or more, and a short one a single unit.
  size_t parts = 0;
  // The compiler's optimization level: -1 the engine's own (-O2; a long module -O1 with
  // vectorization), else that level (a test of the generated code's semantics, in a hurry).
  int opt_level = -1;
  // The priority (nice value) of a compile left to finish at a program's end
  // (EngineBuild::leave): the lowest, so that it takes only what the next runs leave.
  int leave_nice = 19;
};

// A module longer than this many instructions calls its helpers instead of inlining them
// at each instruction, and is compiled at -O1 (with vectorization): its compile time stays
// in proportion to its length (long_module).
constexpr size_t kInlineInstructions = 600;
// Of a long module's blocks, at most this many loops (a block that branches back to its own
// start) run as one loop over their lanes (fused), as every block of a short module may.
constexpr size_t kLongModuleLoops = 16;
bool long_module(const Module& m);

// Instructions the generated code may run on a block's own 32-bit copies of registers
// (live.cpp): Alu and Move rows that read only the low 32 bits of each source and write a
// zero-extended 32-bit value, and loads of such values.
bool low_half_alu(const Insn& in);
bool low_half_load(const Insn& in);
// Calls f with each register an operand names (a vector's, an address's base and
// coordinates).
template <class F>
void registers(const Kernel& k, const Operand& o, F&& f) {
  switch (o.kind) {
    case Operand::Reg: f(o.reg); break;
    case Operand::Vec:
      if (o.has_reg)
        for (uint32_t i = 0; i < o.count; ++i) f(k.lists[size_t(o.reg) + i]);
      else
        for (uint32_t i = 0; i < o.count && i < o.vec.size(); ++i) f(o.vec[i]);
      break;
    case Operand::Addr:
      if (o.has_reg) f(o.reg);
      for (uint32_t i = 0; i < o.count && i < o.vec.size(); ++i) f(o.vec[i]);
      break;
    default: break;
  }
}
// Where each of a kernel's registers `regs` is live: read on some path from an
// instruction before it is written again (live.cpp). Errs towards live; a register not in
// `regs` is always live.
class Liveness {
 public:
  Liveness(const Kernel& k, const std::vector<uint32_t>& regs);
  // Whether reg is live on entry to instruction pc (pc == code size: past the end, never).
  bool live(uint32_t pc, uint32_t reg) const;

 private:
  std::vector<int32_t> index_;  // per register: its bit, -1 when not looked at
  size_t words_ = 0;
  std::vector<uint64_t> in_;    // per pc: the bits live on entry
};

// The registers a thread of kernel k may read before it writes them, erring towards more:
// those live on entry, and every register of an instruction whose lanes may read each
// other's or that the analysis does not follow. A block finds only these cleared: the others
// are written before any read, whatever the block before left in them.
std::vector<uint32_t> entry_registers(const Kernel& k);

// The C++ text of a module's kernels for the compiling engine: one function
// `ws_kernel_<i>(compiled::Ctx&)` per kernel i that can run (Kernel::refused empty), with a
// function per block of its instructions. `head` is what every translation unit begins
// with (the prelude, the forms and constants), `units` the functions in order (each
// kernel's blocks, then its entry, which declares them).
struct Generated {
  std::string head;
  std::vector<std::string> units;
  std::string text() const;                        // the module as one translation unit
  std::vector<std::string> parts(size_t n) const;  // as n or fewer, of about equal length
};
Generated generate(const Module& m);

// A module's kernels compiled to native code and loaded.
class CompiledModule {
 public:
  ~CompiledModule();
  CompiledModule(const CompiledModule&) = delete;
  CompiledModule& operator=(const CompiledModule&) = delete;
  // Kernel i's entry (Module::kernels order), null when it runs on the interpreter.
  compiled::Entry entry(size_t kernel) const { return kernel < entries_.size() ? entries_[kernel] : nullptr; }

 private:
  friend class EngineBuild;
  CompiledModule() = default;
  void* handle_ = nullptr;
  std::vector<compiled::Entry> entries_;
};

// One module's way to native code: looked up in the cache when made (and loaded at once
// when there), else compiled when start() is called, on the caller's thread or a thread
// of its own; a compile still running when this is destroyed is stopped (the compiler
// killed, nothing kept), one left (leave) goes on. Thread-safe.
class EngineBuild {
 public:
  EngineBuild(const Module& m, EngineOptions o);
  ~EngineBuild();
  EngineBuild(const EngineBuild&) = delete;
  EngineBuild& operator=(const EngineBuild&) = delete;

  // Compiles (once): with `wait` here and now, else in the background.
  void start(bool wait);
  // Stops a compile running in the background now (its compiler's processes killed), from
  // any thread, without waiting: what a program's end does, whose device is never destroyed.
  void stop();
  // A program's end: a short module's compile running in the background is left to finish on
  // its own, its library put in the cache for the program's next run (the compiler's
  // processes hold none of the program's files or terminal, and outlive it), one at a time
  // per cache folder and at a low priority; nothing more is loaded here. A long module's
  // (long_module: a library of CUTLASS's takes gigabytes and many minutes) is stopped.
  void leave();
  bool started() const { return started_.load(); }
  // The loaded module, null until it is (never waits).
  const CompiledModule* ready() const { return ready_.load(std::memory_order_acquire); }
  // Why the module runs on the interpreter, "" while it may still compile: one line.
  std::string error() const;
  double compile_seconds() const { return compile_seconds_.load(); }  // 0: from the cache
  const std::string& library() const { return library_; }

 private:
  void run();
  bool load();
  // /bin/sh -c in a process group of its own, its input and output /dev/null and no other
  // file of this process open; -1 when stopped or left
  int shell(const std::string& command);
  void fail(const std::string& why);

  EngineOptions o_;
  std::string name_, text_, library_, include_;
  std::vector<std::string> parts_;  // a long module's translation units, compiled side by side (none: text_ alone)
  std::string optimize_;  // the module's -O flags
  bool long_ = false;     // long_module
  std::vector<bool> runnable_;  // per kernel: Kernel::refused empty
  std::unique_ptr<CompiledModule> module_;
  std::atomic<const CompiledModule*> ready_{nullptr};
  std::atomic<bool> started_{false}, stopping_{false};
  std::atomic<int> child_{0};
  std::atomic<double> compile_seconds_{0};
  mutable std::mutex mu_;          // error_
  std::string error_;
  std::mutex thread_mu_;           // thread_
  std::thread thread_;
};

// The texts the generated code includes (its headers, and half.cpp compiled beside it), as
// this build embeds them: path -> text.
const std::vector<std::pair<std::string, std::string>>& engine_sources();

}  // namespace ws::ptx
