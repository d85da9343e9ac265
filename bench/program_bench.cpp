// bench/program_bench.cpp — how fast a user's program becomes a trace and a view on the
// emulated device, beside the catalog emulator running the same kernel: lane accesses per
// second of the run (the program's own host code included), the nvcc time, and
// save-to-view (compile, run, read back, analyse: what the app waits for after a save);
// the interpreter alone, recorded on one core and unrecorded on all of them; and NVIDIA's
// matrixMul sample whole (301 launches) where its source is here.
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

// The interpreter alone on tests/programs/matmul_tiled.cu's kernel (N = 256, nvcc's PTX):
// a recorded launch (one core), then unrecorded ones on every core and on one.
void interpreter_rate(const std::string& nvcc) {
  namespace fs = std::filesystem;
  const std::string ptx_path = (fs::temp_directory_path() / "ws_bench_matmul_tiled.ptx").string();
  const std::string cmd = nvcc + " -ptx -lineinfo -O3 -arch=sm_90 tests/programs/matmul_tiled.cu -o " + ptx_path + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::printf("interpreter: nvcc -ptx failed on tests/programs/matmul_tiled.cu\n");
    return;
  }
  std::ifstream f(ptx_path);
  std::stringstream text;
  text << f.rdbuf();
  fs::remove(ptx_path);
  ptx::Device dev;
  dev.load(ptx::parse(text.str(), "matmul_tiled.ptx"));
  dev.record_launches(1);
  const uint32_t n = 256, bytes = n * n * 4;
  std::vector<float> a(n * n), b(n * n);
  for (uint32_t i = 0; i < n * n; ++i) a[i] = float(i % 7) - 3, b[i] = float(i % 5) - 2;
  const uint64_t da = dev.malloc(bytes, "dA"), db = dev.malloc(bytes, "dB"), dc = dev.malloc(bytes, "dC");
  dev.to_device(da, a.data(), bytes);
  dev.to_device(db, b.data(), bytes);
  const ptx::Kernel& k = dev.module().kernels.at(0);
  ptx::KernelLaunch la{k.name, {n / 16, n / 16, 1}, {16, 16, 1}, 0, std::vector<uint8_t>(k.param_bytes, 0)};
  const uint64_t args[4] = {da, db, dc, n};
  for (size_t i = 0; i < 4; ++i) std::memcpy(la.params.data() + k.params[i].offset, &args[i], k.params[i].bytes);
  trace::Trace t;
  trace::Builder bld(t, 2'000'000);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  struct Way {
    const char* what;
    uint32_t threads;
  };
  for (const Way w : {Way{"recorded, one core", 1}, Way{"unrecorded, every core", 0}, Way{"unrecorded, one core", 1}}) {
    dev.threads(w.threads);
    const auto t0 = std::chrono::steady_clock::now();
    const uint64_t lanes = dev.launch(la, bld);
    const double s = since(t0);
    std::printf("interpreter  matmul_tiled 256  %-24s %2u worker%s  %12llu lane accesses  %8.3f s  %10.3e accesses/s\n", w.what,
                w.threads ? w.threads : cores, (w.threads ? w.threads : cores) == 1 ? " " : "s", (unsigned long long)lanes, s,
                double(lanes) / s);
  }
  std::printf("(goal: >= 1e8 lane accesses/s on every core)\n");
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

int main() {
  using namespace ws;
  if (program::find_nvcc().empty()) {
    std::printf("nvcc not found: nothing to measure\n");
    return 0;
  }
  interpreter_rate(program::find_nvcc());
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
  };
  std::printf("%-32s %6s %12s %10s %10s %10s %12s %12s %14s\n", "program", "arg", "accesses", "compile s", "run s",
              "emulate s", "accesses/s", "save->view s", "twin emu acc/s");
  for (const Case& c : cases) {
    session::LaunchSpec spec;
    spec.program.source = c.file;
    spec.program.args = c.args;
    spec.program.echo = false;
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
    std::printf("%-32s %6s %12llu %10.2f %10.3f %10.3f %12.3e %12.2f %14.3e\n", c.file,
                c.args.empty() ? "-" : c.args[0].c_str(), (unsigned long long)acc, total - run_s, run_s, emu_s,
                emu_s > 0 ? double(acc) / emu_s : 0.0, total, twin);
  }
  std::printf("(run s: the program's whole run in its child process, host code and trace file included;\n"
              " emulate s: its launches on the emulated device, recording included; accesses/s: lane accesses per\n"
              " second of that; compile s: nvcc and the rest; goal: >= 5e7 accesses/s, save->view <= 1.5 s)\n");
  return 0;
}
