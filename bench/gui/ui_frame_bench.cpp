// Frame-time benchmark of the views: CPU time to lay out and build one frame (all panels,
// no window, no GPU) with two 1024×1024 buffers on screen and a trace of millions of
// records; and the memory a million records cost once loaded.
//
//   ui_frame_bench [--records N] [--frames N]
//
// The trace is transpose_tiled at size 1024 recorded by the emulator (every block), its
// records repeated until there are N (default 2,000,000), so the heat layer, timeline
// strip and stepping work on a realistic pattern at a large size.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "common.h"
#include "ui/figure/headless.h"
#include "ui/ui.h"

using namespace ws;
using clk = std::chrono::steady_clock;

namespace {

using bench::rss_mib;

struct Stats {
  double median = 0, p95 = 0, max = 0, mean = 0;
};

Stats stats(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.median = v[v.size() / 2];
  s.p95 = v[std::min(v.size() - 1, size_t(double(v.size()) * 0.95))];
  s.max = v.back();
  for (double x : v) s.mean += x;
  s.mean /= double(v.size());
  return s;
}

void print(const char* what, const Stats& s) {
  std::printf("  %-44s median %6.2f ms   p95 %6.2f ms   max %6.2f ms\n", what, s.median, s.p95, s.max);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t want = 2'000'000;
  int frames = 300;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--records")) want = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--frames")) frames = std::atoi(argv[i + 1]);
  }

  ui::HeadlessContext ctx(1600, 1000);
  const double rss0 = rss_mib();

  // The trace: one real recording, repeated.
  bench::LargeTrace large = bench::large_trace(want);
  auto tr = large.trace;
  const size_t base = large.recorded;
  const double rec_s = large.record_s;
  const double rss_trace = rss_mib();
  auto t_model = clk::now();
  auto model = session::Session::from_trace(tr, session::dram_model("textbook"));
  const double model_s = std::chrono::duration<double>(clk::now() - t_model).count();
  const double rss_model = rss_mib();
  const double n = double(model->size());

  std::printf("warpscope UI frame benchmark (no window: layout and draw lists only)\n");
  std::printf("  trace: transpose_tiled, size 1024, %s records (%s recorded in %.1f s, repeated), buffers:",
              ui::fmt_count(model->size()).c_str(), ui::fmt_count(base).c_str(), rec_s);
  for (size_t i = 0; i < model->shapes().size(); ++i)
    std::printf(" %s %u×%u", tr->buffers[i].name.c_str(), model->shapes()[i].rows, model->shapes()[i].cols);
  std::printf("\n  analysis and indices: %.2f s\n", model_s);
  std::printf("  memory: %.1f MiB per million records in the trace (sizeof(Record) = %zu B), "
              "+%.1f MiB per million for the analysed model\n",
              (rss_trace - rss0) / n * 1e6, sizeof(trace::Record), (rss_model - rss_trace) / n * 1e6);

  ui::Environment env;
  env.replay_dir = "";
  ui::Ui u(env);
  u.state.kernel = "transpose_tiled";
  u.show_model(model, false);  // as a finished recording would be

  auto measure = [&](int count, auto&& before) {
    std::vector<double> ms;
    for (int i = 0; i < count; ++i) {
      before(i);
      auto t0 = clk::now();
      ctx.frame(u, 1.0f / 60);
      ms.push_back(std::chrono::duration<double, std::milli>(clk::now() - t0).count());
    }
    return stats(ms);
  };

  // Warm up: let the heat layer catch up with a step in the middle.
  u.set_step(uint64_t(n / 2));
  for (int i = 0; i < 2000 && !u.settled(); ++i) ctx.frame(u);
  const double rss_ui = rss_mib();
  std::printf("  heat layers: %.1f MiB (%zu buffers)\n", double(u.pane.heat.bytes()) / (1 << 20), model->shapes().size());
  (void)rss_ui;

  std::printf("frame CPU time, %d frames each (target: 8 ms):\n", frames);
  Stats idle = measure(frames, [](int) {});
  print("standing on one request", idle);
  u.state.playing = true;
  u.state.timeline.speed = 6000;  // 100 requests a frame at 60 fps
  Stats play = measure(frames, [](int) {});
  print("playing, 6000 requests/s", play);
  u.state.playing = false;
  std::mt19937_64 rng(7);
  Stats scrub = measure(frames, [&](int) { u.set_step(rng() % model->size()); });
  print("scrubbing to a random request every frame", scrub);
  Stats step = measure(frames, [&](int) { u.set_step(model->next(u.pane.step, session::StepUnit::Warp, +1)); });
  print("stepping warp by warp", step);
  u.state.enlarged = int(ui::Panel::Memory);
  u.pane.grids[0].zoom = 40;  // zoomed in: labels and bank numbers on screen
  Stats big = measure(frames, [&](int) { u.set_step(model->next(u.pane.step, session::StepUnit::Request, +1)); });
  print("memory view enlarged and zoomed, stepping", big);
  u.state.enlarged = -1;

  const double worst = std::max({idle.median, play.median, scrub.median, step.median, big.median});
  std::printf("worst median %.2f ms: %s\n", worst, worst <= 8.0 ? "within the 8 ms target" : "OVER the 8 ms target");
  return 0;
}
