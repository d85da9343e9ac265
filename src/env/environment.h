// src/env/environment.h — the environment warpscope reads and gives the processes it starts,
// each name declared once with its default and meaning: what the parent (src/program) sets for
// the emulated runtime (src/program/cudart, loaded into the user's program) and for the GPU
// tracer (tools/gpu_tracer, injected into it), the developer's switches those read, and
// the folders the parent itself may be pointed at. Plain C++17 with no CUDA: the tracer
// is built apart from warpscope and includes it as it is.
//
// Every value is text; an empty one counts as unset, so a reader sees the default.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <string>

// X(id, NAME, reader, kind, default, meaning)
//   reader: who reads it (Runtime, Tracer, Timer: the tracer's timing mode; Parent)
//   kind:   Setting (the parent sets it), Developer (a switch set by hand), Folder (an override)
#define WS_ENVIRONMENT(X)                                                                                        \
  X(ptx, "WARPSCOPE_PTX", Runtime, Setting, "",                                                                  \
    "the PTX the program's kernels run from, compiled beside the program (required)")                           \
  X(trace, "WARPSCOPE_TRACE", Runtime, Setting, "", "the trace file written when the program ends (unset: none)") \
  X(races, "WARPSCOPE_RACES", Runtime, Setting, "",                                                             \
    "the file of shared-memory races (program/races.h) written when the program ends (unset: none)")            \
  X(source, "WARPSCOPE_SOURCE", Runtime, Setting, "",                                                            \
    "a program run by hand without host debug lines: its text's cudaMalloc(&name) calls name its allocations, in order") \
  X(problem, "WARPSCOPE_PROBLEM", Runtime, Setting, "",                                                         \
    "where the first fault of a kernel is written, as program/problem.h's JSON (unset: none)")                  \
  X(max_records, "WARPSCOPE_MAX_RECORDS", Runtime, Setting, "2000000", "warp instructions recorded, per launch")  \
  X(record_launches, "WARPSCOPE_RECORD_LAUNCHES", Runtime, Setting, "3",                                         \
    "launches of each kernel recorded (the GPU tracer reads it too); later ones run unrecorded, only timed (0: all)") \
  X(engine, "WARPSCOPE_ENGINE", Runtime, Setting, "compiled",                                                   \
    "the emulated device's engine: \"compiled\" (each module compiled to native code once, cached) or \"interpreter\"") \
  X(engine_cache, "WARPSCOPE_ENGINE_CACHE", Runtime, Folder, "",                                                  \
    "where compiled modules are kept (unset: $XDG_CACHE_HOME/warpscope/engine, else ~/.cache/warpscope/engine)")  \
  X(engine_cxx, "WARPSCOPE_ENGINE_CXX", Runtime, Folder, "c++", "the C++ compiler the compiling engine runs")     \
  X(engine_after, "WARPSCOPE_ENGINE_AFTER", Runtime, Developer, "0.3",                                            \
    "seconds a module runs interpreted before it is compiled in the background (0: at its first launch, waited for)") \
  X(block_budget, "WARPSCOPE_BLOCK_BUDGET", Runtime, Setting, "600000000",                                        \
    "warp instructions one block runs before it is watched for an endless loop (a cooperative launch or cluster: stopped)")                              \
  X(timeout, "WARPSCOPE_TIMEOUT", Runtime, Setting, "0",                                                       \
    "seconds from the program's start until the emulated device stops it, writes the launches that ended and exits (0: never)") \
  X(hide_local, "WARPSCOPE_HIDE_LOCAL", Runtime, Setting, "0",                                                   \
    "1: local-memory accesses go unrecorded (-G's stack traffic)")                                              \
  X(gpu_trace, "WARPSCOPE_GPU_TRACE", Tracer, Setting, "",                                                       \
    "the file of raw records to write (sass/raw.h); unset: the tracer stays idle")                              \
  X(tracer_patch, "WARPSCOPE_TRACER_PATCH", Tracer, Setting, "",                                                 \
    "the patch fatbin (unset: warpscope_tracer_patch.fatbin beside the tracer)")                                \
  X(trace_blocks, "WARPSCOPE_TRACE_BLOCKS", Tracer, Setting, "all", "\"all\", \"LO-HI\" or \"N\": the linear blocks recorded") \
  X(trace_max_records, "WARPSCOPE_TRACE_MAX_RECORDS", Tracer, Setting, "2000000", "records kept over the whole run") \
  X(trace_spaces, "WARPSCOPE_TRACE_SPACES", Tracer, Setting, "all",                                               \
    "\"all\", \"global\" or \"shared\": the memory instructions patched; the others run unseen (and cost nothing)") \
  X(gpu_times, "WARPSCOPE_GPU_TIMES", Timer, Setting, "",                                                        \
    "time every launch plainly instead of tracing, the lines to this file (program/gpu_times.h)")               \
  X(kernel_params, "WARPSCOPE_KERNEL_PARAMS", Timer, Setting, "",                                                \
    "each kernel's parameters from its PTX, where the driver will not say (program/gpu_times.h)")               \
  X(tracer_debug, "WARPSCOPE_TRACER_DEBUG", Tracer, Developer, "0", "1: each callback and launch said on stderr") \
  X(keep_gpu_raw, "WARPSCOPE_KEEP_GPU_RAW", Parent, Developer, "",                                               \
    "a folder where the tracer's file and the SASS listings are kept (test fixtures)")                          \
  X(cudart_dir, "WARPSCOPE_CUDART_DIR", Parent, Folder, "", "the emulated runtime's folder (libcudart.so.13)")   \
  X(tracer_dir, "WARPSCOPE_TRACER_DIR", Parent, Folder, "",                                                      \
    "the GPU tracer's folder (libwarpscope_tracer.so and its patch fatbin)")                                    \
  X(cli, "WARPSCOPE_CLI", Parent, Folder, "", "the command-line warpscope run as a child for a kernel's SASS (unset: beside this one)") \
  X(lessons, "WARPSCOPE_LESSONS", Parent, Folder, "", "the lessons folder (unset: lessons/ of the installed or source assets)")

namespace ws::env {

enum class Reader { Runtime, Tracer, Timer, Parent };
enum class Kind { Setting, Developer, Folder };

#define WS_ENV_ID(id, name, reader, kind, fallback, help) id,
enum class Var { WS_ENVIRONMENT(WS_ENV_ID) };
#undef WS_ENV_ID

struct Declared {
  const char* name;
  Reader reader;
  Kind kind;
  const char* fallback;  // the value a reader sees when it is unset
  const char* help;
};

#define WS_ENV_ROW(id, name, reader, kind, fallback, help) {name, Reader::reader, Kind::kind, fallback, help},
inline constexpr Declared kDeclared[] = {WS_ENVIRONMENT(WS_ENV_ROW)};
#undef WS_ENV_ROW

// The declaration of `v`: its name, who reads it, its default and meaning.
inline constexpr const Declared& declared(Var v) { return kDeclared[static_cast<int>(v)]; }

// The name of `v` ("WARPSCOPE_PTX").
inline constexpr const char* name(Var v) { return declared(v).name; }

// Whether `v` has a value here (set and not empty).
inline bool is_set(Var v) {
  const char* s = std::getenv(name(v));
  return s && *s;
}

// The value of `v`, else its default.
inline std::string get_string(Var v) { return is_set(v) ? std::string(std::getenv(name(v))) : declared(v).fallback; }

// The value of `v` as a count (its leading digits), else its default.
inline uint64_t get_int(Var v) { return std::strtoull(get_string(v).c_str(), nullptr, 10); }

// Whether the switch `v` is on: set to anything but "0".
inline bool get_flag(Var v) { return get_string(v) != "0" && !get_string(v).empty(); }

// The entry "NAME=value" that gives `v` its value in a child's environment.
inline std::string entry(Var v, const std::string& value) { return std::string(name(v)) + "=" + value; }

}  // namespace ws::env
