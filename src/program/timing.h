// src/program/timing.h — the user's kernels timed on the GPU, plainly: the GPU tracer's
// timing mode (tools/gpu_tracer/timer.cpp) writes one line per launch (median of many
// runs, each with the launch's buffers restored first; program/gpu_times.h); this reads
// it and turns it into bench rows (trace/bench.h), with GFLOP/s and GB/s where the program
// says how much work a launch does:
//
//   // warpscope: flops = 2*N*N*N; bytes = 3*4*N*N
//   __global__ void matmulTiled(const float* A, const float* B, float* C, int N) { ... }
//
// An annotation is a line comment inside a kernel or above it (it belongs to the kernel
// that contains it, else to the next one); its expressions use numbers, + - * / and
// parentheses, and the kernel's own scalar parameters by name, valued per launch.
// `--flops` / `--bytes` on the command line say the same for every kernel.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "program/gpu_times.h"
#include "trace/bench.h"

namespace ws::program {

// One launch as the timer saw it.
struct TimedLaunch {
  uint64_t index = 0;                      // the program's launches, from 0
  std::string kernel;                      // as the driver names it (mangled)
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint32_t shared_bytes = 0;               // dynamic
  uint32_t runs = 0;                       // 0: not timed
  double median_ms = 0, min_ms = 0, max_ms = 0;
  uint64_t saved_bytes = 0;                // buffers saved and restored before each run
  bool restored = true;                    // false: a buffer could not be copied (no memory)
  std::vector<std::vector<uint8_t>> params;  // each argument's bytes
  bool operator==(const TimedLaunch&) const = default;
};

// Each kernel's parameters as its PTX declares them, entry (mangled) → (bytes, alignment)
// in order; and that as the timer's WARPSCOPE_KERNEL_PARAMS ("entry=8:8,4:4;..."), which
// it uses where the driver will not say (cuFuncGetParamInfo fails on the runtime's
// functions).
using ParamLayout = gpu_times::ParamLayout;
ParamLayout ptx_param_layout(const std::string& ptx);
std::string param_layout_env(const ParamLayout& l);

// The timer's file. Throws Error (program.h) for a file that is not one.
std::vector<TimedLaunch> read_times(const std::string& text);

// A kernel's parameters as its definition in the source declares them.
struct KernelParam {
  std::string type, name;
  bool operator==(const KernelParam&) const = default;
};
std::map<std::string, std::vector<KernelParam>> kernel_signatures(const std::string& source);

// The work a kernel's launch does, as expressions ("" : not said).
struct Work {
  std::string flops, bytes;
  bool operator==(const Work&) const = default;
};
// The `// warpscope: flops = ...; bytes = ...` annotations, by kernel name.
std::map<std::string, Work> work_annotations(const std::string& source);

// The value of `expr` (numbers, names from `vars`, + - * / and parentheses). Throws
// std::invalid_argument with a one-line reason ("unknown name 'M'", "expected a number").
double evaluate(const std::string& expr, const std::map<std::string, double>& vars);

// The scalar arguments of a launch by name (ints, unsigned, size_t, float, double), from
// the argument bytes and the kernel's signature.
std::map<std::string, double> scalar_arguments(const TimedLaunch& l, const std::vector<KernelParam>& sig);

// Bench rows, one per launch (kernel named plainly, "launch K" and its shape as the
// variant, the scalar arguments as params), GFLOP/s and GB/s where the work is known
// (`flops` / `bytes` from the command line win over the annotations). The yardsticks are
// left for the GPU backend to measure (session). `notes` gets one line per expression
// that could not be valued.
trace::BenchResult timing_result(const std::vector<TimedLaunch>& launches, const std::string& source_text,
                                 const Work& command_line, std::vector<std::string>* notes = nullptr);

}  // namespace ws::program
