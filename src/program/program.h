// src/program/program.h — the user's own CUDA program, unmodified, run in a child process
// and traced: on the emulated device (compiled by nvcc, the host code with `-cudart shared`,
// the device code also as PTX with -lineinfo, run against warpscope's own libcudart.so.13,
// cudart/, whose emulated device records every launch), or on this machine's GPU (built
// with -lineinfo, run with the real runtime under the GPU tracer, tools/gpu_tracer, and
// its SASS records read by sass/; each launch also timed plainly). What comes back is one
// trace: every launch, every source file the kernels' lines come from, the arrays named
// from the program's text; and from the emulated device, the shared-memory races it met.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "program/problem.h"
#include "program/races.h"
#include "trace/trace.h"

namespace ws::program {

// One message of the compiler, where it points.
struct Diagnostic {
  std::string file;
  uint32_t line = 0, column = 0;  // 1-based; column 0: not known
  std::string severity;           // "error" | "warning"
  std::string message;
  bool operator==(const Diagnostic&) const = default;
};

// The program could not be built or run: one line for the user ("prog.cu(12): error:
// identifier "x" is undefined", "the program did not finish within 60 s"), and for a
// build, every message of the compiler.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
  Error(const std::string& what, std::vector<Diagnostic> d) : std::runtime_error(what), diagnostics(std::move(d)) {}
  // What failed, for a front end's exit status: "compile" (nvcc refused the program),
  // "timeout" (it ran past the timeout and was stopped), "load" (the emulated device could
  // not load its PTX), "input" (a word for nvcc that cannot be placed), "crash" (its host
  // code was killed by a signal), "limit" (it ran into a limit of Options), "" (anything else).
  Error(const std::string& what, std::string kind) : std::runtime_error(what), kind(std::move(kind)) {}
  std::vector<Diagnostic> diagnostics;
  std::string kind;
  std::string output;  // what the program printed before it was stopped (when not echoed)
  Problem problem;     // the same, with where: a compile error's line, a crash's last output
};

// The messages of an nvcc log: `file(line): error: text` with the caret line under the
// quoted source giving the column, and the host compiler's `file:line:col: error: text`.
std::vector<Diagnostic> parse_diagnostics(const std::string& log);

struct Options {
  std::string source;                     // prog.cu
  std::vector<std::string> nvcc_flags;    // -I, -D, -std, ... passed through
  std::vector<std::string> args;          // the program's own arguments
  bool literal = false;                   // -G: every access the source writes
  bool show_local = false;                // record the threads' local frames even in literal mode
  uint64_t max_records = 2'000'000;       // records of one launch past this are counted, not kept
  uint64_t record_launches = 3;           // on the emulator, each kernel's first N launches are recorded (0: all)
  // On the emulator: "compiled" (each module compiled to native code once, cached) or
  // "interpreter"; both give the same results and traces.
  std::string engine = "compiled";
  double timeout_seconds = 120;           // the program is stopped after this
  // Limits on the program's process (setrlimit), so that a runaway program cannot take the
  // machine: its address space on the emulated device, in MiB (0: three quarters of this
  // machine's memory; on the GPU the driver's own reservations rule an address limit out),
  // its CPU time (the timeout on every core, and a minute), 4096 open files, and a core
  // file only when asked for.
  uint64_t memory_limit_mib = 0;
  bool core_dump = false;
  bool echo = true;                       // the program's stdout/stderr pass through
  // Where the kernels run: "emulator" (warpscope's emulated device, no GPU needed), "gpu"
  // (the real runtime on this machine's GPU, every launch traced by the GPU tracer at the
  // SASS level), "auto" (the GPU where there is one and the tracer was built, else the
  // emulator).
  std::string backend = "emulator";
  std::string binary;                     // with "gpu": a program built elsewhere, traced as it is
  std::string blocks;                     // with "gpu": "LO-HI" linear blocks to record ("": all)
  // With "gpu": the memory spaces whose instructions the tracer patches, "global" or
  // "shared" ("" or "all": both). The others run unseen, at the plain kernel's speed.
  std::string spaces;
  // With "gpu": each launch also timed plainly in a second run of the program (timing.h),
  // its work given by these expressions over the kernel's scalar arguments ("": the
  // source's `// warpscope: flops = ...` annotations, or none).
  bool time = true;
  std::string flops, bytes;
  // With "gpu" and a binary: what its allocations are called, in the order it makes them
  // (else "allocation K"), and the files whose inlined frames give their caller's line.
  std::vector<std::string> allocation_names;
  std::vector<std::string> see_through;
  bool operator==(const Options&) const = default;
};

// How a run ended besides the program's own status: what the emulated device stopped.
struct Ending {
  // "" (nothing stopped), "fault" (a kernel faulted: an access outside its arrays, a failed
  // assert, an instruction the emulated device lacks), "stopped" (a kernel ran past its
  // instruction budget: an endless loop), "timeout" (the emulated device stopped the
  // program at the timeout: the launches that ended, and the one it stopped, are kept).
  std::string kind;
  std::string message;                    // the emulated device's line about it
  int exit_code = 0;                      // the program's own
  Problem problem;                        // the same with where it happened (empty: none)
};

struct Result {
  trace::Trace trace;
  int exit_code = 0;                      // the program's own
  Ending ending;                          // what the emulated device stopped, if anything
  std::string output;                     // what it printed (when not echoed)
  std::string nvcc;                       // the compiler used
  double compile_seconds = 0, run_seconds = 0;
  std::vector<std::string> notes;         // what the user should know (a timing that failed)
  Races races;                            // shared-memory races the emulated device saw (races.h)
};

// The one-line refusal of Options whose backend or spaces name nothing run() knows ("":
// they are fine). run() throws it; a front end can say it before anything is compiled.
std::string options_error(const Options& o);

// Compiles and runs the program. Throws Error for a program that does not compile, cannot
// start, crashes before its first launch was recorded, or runs past the timeout; with the
// "gpu" backend also for a machine with no GPU or no GPU tracer (one line each).
Result run(const Options& o);

// A GPU trace of a program (a replay pack's) with each kernel's shared window cut into the
// arrays the emulated device's trace of the same program names, where the GPU trace proves
// where ptxas placed them (sass::split_shared_windows).
void name_shared_arrays(trace::Trace& gpu, const trace::Trace& emulated);

// What the emulated device stopped, read from the program's stderr `text` (its lines
// "warpscope: out-of-bounds access ...", "... is in an endless loop: ...", a failed assert).
Ending ending_of(const std::string& text);

// The ending of the last run() of this process that came back with a trace (front ends
// that reach run() through a session read the fault or the stopped loop here).
Ending last_ending();

// A program's words for nvcc split by where they go: the device sources (.cu, `source`
// first), host-only files, flags for both builds, the host link's flags (-l, -L, -Xlinker)
// and the GPU-architecture flags left out (the emulated device builds for sm_90, the GPU
// backend for this GPU). Throws Error for a missing file, a word nvcc could not place
// and a flag warpscope must choose itself (-o, -c, -ptx...).
struct SourceSplit {
  std::vector<std::string> device, host, both, link, dropped;
  // The target the dropped -arch / -gencode words name, as "90a" ("" when none does): the
  // emulated device builds the PTX of the Hopper one they name (sm_90a for wgmma), else of
  // the highest up to sm_90, else of the first; a GPU build honours sm_90a on a 9.0 GPU.
  std::string arch;
};
SourceSplit split_sources(const Options& o);

// What makes a build the same code (identity.cpp): a hash of the text of the program's
// file, its further source files and the headers they include with quotes, and its flags;
// "" when the file cannot be read. A renamed copy hashes alike, an edited one does not.
std::string source_hash(const Options& o);

// Whether nvcc's flag `f` takes the next word as its value ("-I", "-Xcompiler", "-l").
bool nvcc_takes_value(const std::string& f);

// The PTX of several .cu files as one module: one header, each module's .file numbers
// after the previous ones', its $-names made its own, the common .extern declarations once.
std::string merge_ptx(const std::vector<std::string>& texts);

// This machine's GPU as nvidia-smi names it and its compute capability ("90"); false (and
// `why`) when there is none.
bool gpu_here(std::string& name, std::string& arch, std::string& why);

// The GPU tracer's folder (libwarpscope_tracer.so and its patch fatbin): $WARPSCOPE_TRACER_DIR,
// beside the binary, or this build's; "" when it was not built.
std::string tracer_dir();

// The folder of warpscope's libcudart.so.13 (WARPSCOPE_CUDART_DIR, beside the binary, or
// this build's). Throws Error when it was not built.
std::string runtime_dir();

// nvcc: $CUDA_HOME/bin/nvcc, /usr/local/cuda/bin/nvcc, or the one on PATH; "" when none.
std::string find_nvcc();

// The names the program's text gives its allocations, in the order written:
// cudaMalloc(&d_A, ...), cudaMalloc((void**)&d_A, ...), cudaMalloc(reinterpret_cast<void**>(&d_A),
// ...), cudaMallocManaged(&x, ...), cudaMallocPitch(&p, &pitch, ...). The runtime names an
// allocation by its call's line (name_at_line); the k-th of these only where no line is
// known (WARPSCOPE_SOURCE).
std::vector<std::string> allocation_names(const std::string& source_text);

// A line of the program's source: where a call came from.
struct CallLine {
  std::string file;   // as the compiler named it ("" : not known)
  uint32_t line = 0;
};

// The program's line that made a call returning to `return_address` (the caller's
// __builtin_return_address(0)): its module's debug lines read by binutils' addr2line, the
// toolkit's inline wrappers passed over. Empty where the program was built without host
// line information or addr2line is missing.
CallLine call_line(const void* return_address);

// The first frame of `addr2line -i` output that is the program's own (not a system or
// CUDA runtime header).
CallLine parse_addr2line(const std::string& out);

// The name the statement starting at `line` of `text` gives its one allocation
// (cudaMalloc(&d_A, ...), checkCudaErrors(cudaMalloc((void**)&buf[i], ...))), else `label`.
std::string name_at_line(const std::string& text, uint32_t line, const std::string& label);

// The name the program's text gives what the call returning to `caller` allocates, read at
// that call's line in any file of the program ("d_A", else "main.cpp:59"); "" when the
// host code carries no line for it. Resolved once per call site; safe from any thread.
std::string name_of_call(const void* caller);

// The same for an allocation call made somewhere up this thread's stack (a tool called
// back from inside the CUDA runtime): the innermost frame of the program's executable that
// has a line of the program's own.
std::string name_of_stack_call();

// Whether `arg` names an existing host-only file of a program (a .cpp/.cc/.cxx/.c source,
// an object or a library): built with the program, not part of its device code.
bool host_file(const std::string& arg);

// Finishes a program's trace as the child wrote it: the program's own file (`main_file`,
// as nvcc named it) becomes file 0; every file gets its text, every site its line's code;
// the toolkit's arrays no access reaches (drop_unused_toolkit_arrays) leave the list.
void finish_trace(trace::Trace& t, const std::string& main_file);

// Removes the arrays nvcc made for itself ($-named: printf's format strings) that no record
// or site reaches, every later array's index moved down.
void drop_unused_toolkit_arrays(trace::Trace& t);

}  // namespace ws::program
