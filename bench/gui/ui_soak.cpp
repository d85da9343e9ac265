// Soak of the app's core without a window: many frames through a large trace while the app
// re-records, switches kernels and rebuilds a user program on save, as a long lesson does.
// Prints resident memory after warm-up and at the end (growth, %), and the worst frame's
// CPU time on the UI thread (the budget of a 60 Hz display: 16.7 ms).
//
//   ui_soak [--frames N] [--records N] [--program FILE.cu] [--cycle N] [--no-limits]
//
// --no-limits prints the figures and exits 0 whatever they are: the short form the tests run
// under the sanitizers, whose job there is to find memory errors and leaks along the way.
//
// Every 100 frames (--cycle) a catalog kernel is re-recorded (the next of four, in the
// background); 50 frames later the large trace (transpose_tiled at 1024, every block, its records
// repeated to N, default 1,000,000) is shown again, so models are replaced again and
// again. With --program (needs nvcc), the file is touched every 1000 frames and the app
// rebuilds and re-runs it. Build it without sanitizers: AddressSanitizer's quarantine
// grows memory by design.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common.h"
#include "ui/figure/headless.h"
#include "ui/ui.h"

using namespace ws;

namespace {

using bench::rss_mib;

double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
  int frames = 10000;
  uint64_t want = 1'000'000;
  std::string program;
  int cycle = 100;  // frames between recordings (the large trace comes back half-way)
  bool limits = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--no-limits")) {
      limits = false;
      continue;
    }
    if (i + 1 >= argc) break;
    if (!std::strcmp(argv[i], "--frames")) frames = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--records")) want = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--program")) program = argv[i + 1];
    if (!std::strcmp(argv[i], "--cycle")) cycle = std::max(2, std::atoi(argv[i + 1]));
    ++i;
  }

  ui::HeadlessContext ctx(1600, 1000);
  auto tr = bench::large_trace(want).trace;
  std::shared_ptr<const session::Session> big = session::Session::from_trace(tr, session::dram_model("textbook"));
  tr.reset();

  ui::Environment env;
  env.replay_dir = "";
  ui::Ui u(env);
  u.state.kernel = "transpose_tiled";
  u.show_model(big, false);
  u.state.playing = true;
  u.state.timeline.speed = 6000;

  std::string copy;  // the program, copied so that touching it leaves the original alone
  if (!program.empty()) {
    copy = (std::filesystem::temp_directory_path() / ("ws_soak_" + std::to_string(::getpid()) + ".cu")).string();
    std::filesystem::copy_file(program, copy, std::filesystem::copy_options::overwrite_existing);
  }

  const char* kernels[] = {"matmul_tiled", "copy", "matmul_coarse2d_vec", "transpose_tiled"};
  const int warmup = std::min(1000, frames / 10);
  std::vector<double> cpu, wall;
  cpu.reserve(size_t(frames));
  wall.reserve(size_t(frames));
  double rss_warm = 0, rss_max = 0;
  int recordings = 0, rebuilds = 0;
  bool rebuilt_since_save = true;
  const auto t_start = std::chrono::steady_clock::now();
  for (int f = 0; f < frames; ++f) {
    // While the program is open, its rebuilds are the recordings (a catalog kernel would
    // close it); otherwise the next catalog kernel.
    if (f % cycle == 0 && !u.open_program_spec()) {
      u.state.kernel = kernels[(f / cycle) % 4];
      u.state.size = 0;
      u.record();
      ++recordings;
    }
    if (f % cycle == cycle / 2) {
      u.show_model(big, true);
      u.state.playing = true;
    }
    if (!copy.empty() && f % 1000 == 500) {
      if (f == 500) {
        session::LaunchSpec p;
        p.program.source = copy;
        p.backend = "emulator";
        u.open_program(p);
      } else {
        std::ofstream(copy, std::ios::app) << "// touched at frame " << f << "\n";
        std::filesystem::last_write_time(copy, std::filesystem::file_time_type::clock::now());
      }
    }
    // The app checks about once a second; here every frame of the window after a save, until
    // the recorder is free to take it.
    if (!copy.empty() && f > 1000 && f % 1000 >= 600 && !rebuilt_since_save && u.rebuild_if_saved()) {
      ++rebuilds;
      rebuilt_since_save = true;
    }
    if (!copy.empty() && f % 1000 == 500 && f > 1000) rebuilt_since_save = false;
    const double c0 = thread_cpu_ms();
    const auto w0 = std::chrono::steady_clock::now();
    ctx.frame(u, 1.0f / 60);
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count());
    cpu.push_back(thread_cpu_ms() - c0);
    if (f == warmup) rss_warm = rss_mib();
    if (f >= warmup) rss_max = std::max(rss_max, rss_mib());
  }
  // Let the last job land, then measure once more.
  for (int i = 0; i < 5000 && !u.settled(); ++i) ctx.frame(u, 1.0f / 60);
  const double rss_end = rss_mib();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  if (!copy.empty()) std::filesystem::remove(copy);

  auto worst = [](std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[std::min(v.size() - 1, size_t(double(v.size()) * q))];
  };
  const double cpu_max = worst(cpu, 1.0), cpu_p99 = worst(cpu, 0.99), wall_max = worst(wall, 1.0);
  const int over = int(std::count_if(cpu.begin(), cpu.end(), [](double x) { return x > 1000.0 / 60; }));
  // Which frames, by their place in the 100-frame cycle (0: a recording asked for, 50: the
  // large trace shown again), so that a slow frame names its cause.
  std::string which;
  for (size_t f = 0; f < cpu.size() && which.size() < 200; ++f)
    if (cpu[f] > 1000.0 / 60) which += " " + std::to_string(f) + " (" + std::to_string(int(f) % cycle) + ": " + std::to_string(int(cpu[f])) + " ms)";
  const double growth = 100.0 * (rss_end - rss_warm) / rss_warm;
  std::printf("warpscope soak: %d frames in %.0f s, a %s-record trace, %d recordings, %d program rebuilds\n", frames,
              secs, ui::fmt_count(big->size()).c_str(), recordings, rebuilds);
  std::printf("  resident memory: %.1f MiB after %d frames of warm-up, %.1f MiB at the end (%+.2f%%), %.1f MiB at most\n",
              rss_warm, warmup, rss_end, growth, rss_max);
  std::printf("  UI thread CPU per frame: median %.2f ms, p99 %.2f ms, max %.2f ms; %d frames over 16.7 ms "
              "(wall max %.2f ms)\n",
              worst(cpu, 0.5), cpu_p99, cpu_max, over, wall_max);
  if (over) std::printf("  frames over 16.7 ms, with their place in the 100-frame cycle:%s\n", which.c_str());
  const bool ok = growth < 5.0 && cpu_max <= 1000.0 / 60;
  std::printf("%s\n", !limits ? "soak: ran to the end (limits not checked: --no-limits)"
                     : ok      ? "soak: within the limits (growth < 5%, every frame <= 16.7 ms)"
                               : "soak: OVER a limit");
  return ok || !limits ? 0 : 1;
}
