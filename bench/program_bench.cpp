// bench/program_bench.cpp — how fast a user's program becomes a trace and a view on the
// emulated device, beside the catalog emulator running the same kernel: lane accesses per
// second of the run (the program's own host code included), the nvcc time, and
// save-to-view (compile, run, read back, analyse: what the app waits for after a save);
// both engines alone, side by side, recorded on one core and unrecorded on all of them; and
// NVIDIA's matrixMul sample whole (301 launches) where its source is here.
// Not a test: it prints figures. Run from the repository root.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "catalog.h"
#include "emu/record.h"
#include "program/program.h"
#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "session/session.h"
#include "session/worker.h"

namespace {

using namespace ws;

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Both engines alone on tests/programs/matmul_tiled.cu's kernel (nvcc's PTX) at `n`: a
// recorded launch (one core), then unrecorded ones on every core and on one; the compiling
// engine's module compiled first (its compile time printed), so every launch runs natively;
// the two engines' records compared. $WARPSCOPE_BENCH_FAST_MATH set: the kernel built with
// -use_fast_math, its float rows the .ftz forms that llm.c's kernels are built with.
void engine_rates(const std::string& nvcc, uint32_t n) {
  namespace fs = std::filesystem;
  const std::string ptx_path = (fs::temp_directory_path() / "ws_bench_matmul_tiled.ptx").string();
  const bool fast_math = std::getenv("WARPSCOPE_BENCH_FAST_MATH") != nullptr;
  if (fast_math) std::printf("engines: the kernel built with -use_fast_math (its float rows .ftz)\n");
  const std::string cmd = nvcc + (fast_math ? " -use_fast_math" : "") + " -ptx -lineinfo -O3 -arch=sm_90 tests/programs/matmul_tiled.cu -o " + ptx_path + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::printf("engines: nvcc -ptx failed on tests/programs/matmul_tiled.cu\n");
    return;
  }
  std::ifstream f(ptx_path);
  std::stringstream text;
  text << f.rdbuf();
  fs::remove(ptx_path);
  const uint32_t bytes = n * n * 4;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  struct Way {
    const char* what;
    uint32_t threads;
  };
  const Way ways[] = {{"recorded, one core", 1}, {"unrecorded, every core", 0}, {"unrecorded, one core", 1},
                      {"recorded, every core", 0}};
  constexpr int kWays = 4;
  double secs[2][kWays] = {};
  std::vector<trace::Record> records[2][2];
  // $WARPSCOPE_BENCH_ENGINE (compiled or interpreter), $WARPSCOPE_BENCH_WAY (0-3): that
  // engine, that way alone, for a profiler.
  const char* only = std::getenv("WARPSCOPE_BENCH_ENGINE");
  const char* way = std::getenv("WARPSCOPE_BENCH_WAY");
  const int only_way = way ? std::atoi(way) : -1;
  for (const ptx::Engine engine : {ptx::Engine::Interpreter, ptx::Engine::Compiled}) {
    const int e = engine == ptx::Engine::Compiled;
    if (only && std::string(only) != ptx::engine_name(engine)) continue;
    // Two devices: the first runs the first three ways (its first launch recorded, on one
    // core); the second records its one launch on every core, as a program's launch is.
    for (int d = 0; d < 2; ++d) {
      if (only_way >= 0 && (only_way == 3) != (d == 1)) continue;
      ptx::Device dev;
      ptx::EngineOptions eo;
      eo.wait = true;  // compiled (or found in the cache) before the first launch
      dev.engine(engine, eo);
      dev.load(ptx::parse(text.str(), "matmul_tiled.ptx"));
      dev.record_launches(1);
      std::vector<float> a(size_t(n) * n), b(size_t(n) * n);
      for (uint32_t i = 0; i < n * n; ++i) a[i] = float(i % 7) - 3, b[i] = float(i % 5) - 2;
      const uint64_t da = dev.malloc(bytes, "dA"), db = dev.malloc(bytes, "dB"), dc = dev.malloc(bytes, "dC");
      dev.to_device(db, b.data(), bytes);
      const ptx::Kernel& k = dev.module().kernels.at(0);
      ptx::KernelLaunch la{k.name, {n / 16, n / 16, 1}, {16, 16, 1}, 0, std::vector<uint8_t>(k.param_bytes, 0)};
      const uint64_t args[4] = {da, db, dc, n};
      for (size_t i = 0; i < 4; ++i) std::memcpy(la.params.data() + k.params[i].offset, &args[i], k.params[i].bytes);
      trace::Trace t;
      trace::Builder bld(t, std::getenv("WS_CAP") ? std::strtoull(std::getenv("WS_CAP"), nullptr, 10) : 2'000'000);
      if (only_way == 1 || only_way == 2) {  // an unrecorded way alone: the recorded first launch is one block
        ptx::KernelLaunch one = la;
        one.grid = {1, 1, 1};
        dev.launch(one, bld);
      }
      for (int w = d ? 3 : 0; w < (d ? 4 : 3); ++w) {
        if (only_way >= 0 && only_way != w && d == 0) continue;
        a[0] = float(w);  // new input: the launch runs again (a repeat on the same bytes would be skipped)
        dev.to_device(da, a.data(), bytes);
        dev.threads(ways[w].threads);
        const uint64_t lanes = dev.launch(la, bld);
        secs[e][w] = t.launches.back().seconds;  // the launch's own (a compile waited for at its start is not)
        std::printf("%-12s matmul_tiled %u  %-24s %2u worker%s  %12llu lane accesses  %8.3f s  %10.3e accesses/s  (%s)\n",
                    ptx::engine_name(engine), n, ways[w].what, ways[w].threads ? ways[w].threads : cores,
                    (ways[w].threads ? ways[w].threads : cores) == 1 ? " " : "s", (unsigned long long)lanes, secs[e][w],
                    double(lanes) / secs[e][w], t.launches.back().engine.c_str());
      }
      if (e && !d) std::printf("compiled     module compiled in %.2f s (0: from the cache)\n", dev.engine_compile_seconds());
      records[e][d] = t.records;
    }
  }
  for (int w = 0; w < kWays; ++w)
    std::printf("compiled/interpreter  %-24s  %.2fx\n", ways[w].what, secs[0][w] / secs[1][w]);
  std::printf("records of the two engines: %s\n",
              records[0][0] == records[1][0] && records[0][1] == records[1][1] ? "identical" : "DIFFERENT");
}

// NVIDIA's matrixMul (cuda-samples) at its default size, run whole as `warpscope run` runs
// it: $WARPSCOPE_BENCH_MATRIXMUL, else the corpus's copy; one line when neither is here.
void matrix_mul() {
  const char* env = std::getenv("WARPSCOPE_BENCH_MATRIXMUL");
  const std::string src = env && *env ? env : "/work/corpus/cuda-samples/Samples/0_Introduction/matrixMul/matrixMul.cu";
  if (!std::filesystem::exists(src)) {
    std::printf("matrixMul: skipped, no %s (set WARPSCOPE_BENCH_MATRIXMUL to its matrixMul.cu)\n", src.c_str());
    return;
  }
  const std::filesystem::path common = std::filesystem::path(src).parent_path() / "../../../Common";
  session::LaunchSpec spec;
  spec.program.source = src;
  spec.program.nvcc_flags = {"-I", common.lexically_normal().string()};
  spec.program.echo = false;
  spec.program.timeout_seconds = 900;
  spec.backend = "emulator";
  const auto t0 = std::chrono::steady_clock::now();
  try {
    auto s = session::record_session(spec);
    const double total = since(t0);
    size_t recorded = 0;
    double emu_s = 0;
    for (const trace::Launch& l : s->whole_trace().launches) {
      recorded += l.recorded;
      emu_s += l.seconds;
    }
    std::printf("matrixMul    %zu launches (%zu recorded)  %.1f s in all, %.1f s of it emulating  (goal: <= 30 s)\n",
                s->whole_trace().launches.size(), recorded, total, emu_s);
  } catch (const std::exception& e) {
    std::printf("matrixMul: %s\n", e.what());
  }
}

}  // namespace

// `program_bench engines N`: the engines' side-by-side rates at N alone.
int main(int argc, char** argv) {
  using namespace ws;
  if (program::find_nvcc().empty()) {
    std::printf("nvcc not found: nothing to measure\n");
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "engines") {
    engine_rates(program::find_nvcc(), uint32_t(std::stoul(argv[2])));
    return 0;
  }
  engine_rates(program::find_nvcc(), 256);
  engine_rates(program::find_nvcc(), 1024);
  matrix_mul();
  struct Case {
    const char* file;
    std::vector<std::string> args;
    const char* twin;  // the catalog kernel it matches, "" when none
    int64_t size;
    std::vector<std::pair<std::string, int64_t>> params;
  };
  const std::vector<Case> cases = {
      {"examples/transpose.cu", {}, "transpose_tiled", 64, {{"tile", 32}}},
      {"tests/programs/transpose_twin.cu", {"1024"}, "transpose_tiled", 1024, {{"tile", 32}, {"rows", 8}}},
      {"tests/programs/matmul_tiled.cu", {"64"}, "matmul_tiled", 64, {{"tile", 16}}},
      {"tests/programs/matmul_tiled.cu", {"256"}, "matmul_tiled", 256, {{"tile", 16}}},
      {"examples/reduction.cu", {}, "", 0, {}},
      {"tests/programs/matmul_tiled.cu", {"1024"}, "", 0, {}},
  };
  std::printf("%-32s %6s %-11s %12s %10s %10s %10s %12s %12s %14s\n", "program", "arg", "engine", "accesses", "compile s",
              "run s", "emulate s", "accesses/s", "save->view s", "twin emu acc/s");
  // Each program on the interpreter, then on the compiling engine as a user meets it (its
  // module compiled in the background after 0.3 s of interpreting, or found in the cache),
  // then on the compiling engine with its module in the cache.
  struct Engine {
    const char* name;
    const char* label;
    bool warm;
  };
  const Engine engines[] = {{"interpreter", "interpreter", false}, {"compiled", "compiled", false},
                            {"compiled", "compiled*", true}};
  for (const Case& c : cases)
  for (const Engine& en : engines) {
    if (en.warm) {  // the module into the cache first: a run that compiles it before its first launch
      program::Options o;
      o.source = c.file;
      o.args = c.args;
      o.echo = false;
      o.engine = "compiled";
      o.timeout_seconds = 900;
      setenv("WARPSCOPE_ENGINE_AFTER", "0", 1);
      try {
        program::run(o);
      } catch (const std::exception&) {
      }
      unsetenv("WARPSCOPE_ENGINE_AFTER");
    }
    session::LaunchSpec spec;
    spec.program.source = c.file;
    spec.program.args = c.args;
    spec.program.echo = false;
    spec.program.engine = en.name;
    spec.program.timeout_seconds = 900;
    spec.backend = "emulator";
    spec.max_records = 2'000'000;
    const auto t0 = std::chrono::steady_clock::now();
    auto s = session::record_session(spec);
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t acc = 0;
    double emu_s = 0;  // the launches alone, as the emulated device timed them
    for (const trace::Launch& l : s->whole_trace().launches) {
      acc += l.lane_accesses;
      emu_s += l.seconds;
    }
    // The run alone: compile again is not needed for the figure; the capture timed it.
    const double run_s = s->capture_seconds();
    double twin = 0;
    if (*c.twin) {
      const auto* k = catalog::find(c.twin);
      catalog::Params p;
      std::map<std::string, int64_t> set(c.params.begin(), c.params.end());
      if (k && catalog::resolve(*k, c.size, set, p).empty()) {
        auto arrays = catalog::make_arrays(*k, p);
        trace::Trace t;
        const auto e0 = std::chrono::steady_clock::now();
        const uint64_t n = emu::record(*k, p, arrays, {}, t);
        twin = double(n) / std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count();
      }
    }
    std::printf("%-32s %6s %-11s %12llu %10.2f %10.3f %10.3f %12.3e %12.2f %14.3e\n", c.file,
                c.args.empty() ? "-" : c.args[0].c_str(), en.label, (unsigned long long)acc, total - run_s, run_s, emu_s,
                emu_s > 0 ? double(acc) / emu_s : 0.0, total, twin);
  }
  std::printf("(run s: the program's whole run in its child process, host code and trace file included;\n"
              " emulate s: its launches on the emulated device, recording included; accesses/s: lane accesses per\n"
              " second of that; compile s: nvcc and the rest; compiled*: its module already in the engine's cache;\n"
              " goal: >= 5e7 accesses/s, save->view <= 1.5 s)\n");
  return 0;
}
