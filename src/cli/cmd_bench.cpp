// src/cli/cmd_bench.cpp — `warpscope bench`: the catalog timed on the GPU against cuBLAS
// and a device-to-device copy measured in the same run, or, with no GPU, the replay pack
// recorded on one (labelled with its device and date).
//
//   warpscope bench [--kernel ID[,ID...]]... [--size N] [--set name=value]...
//                   [--format text|json] [--out FILE.json] [--replay FILE.json]
//                   [--no-variants] [--no-overhead] [--no-zero-cost] [--seconds S]
//
// Exit status: 0 all results checked; 1 a kernel failed its check or the GPU failed;
// 2 bad input.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "catalog.h"
#include "gpu/gpu.h"
#include "trace/bench.h"

namespace {

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "warpscope: error: %s\n", msg.c_str());
  return 2;
}

bool parse_int(const std::string& s, int64_t& v) {
  char* end = nullptr;
  long long x = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || !end || *end) return false;
  v = x;
  return true;
}

// The replay pack: next to the sources when run from the tree, or installed data.
std::string find_replay() {
#ifdef WS_REPLAY_DIR
  if (std::ifstream(std::string(WS_REPLAY_DIR) + "/bench.json")) return std::string(WS_REPLAY_DIR) + "/bench.json";
#endif
  std::vector<std::string> candidates = {"assets/replay/bench.json"};
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    std::string dir(exe);
    dir = dir.substr(0, dir.rfind('/'));
    candidates.push_back(dir + "/../assets/replay/bench.json");
    candidates.push_back(dir + "/../share/warpscope/replay/bench.json");
  }
  for (const auto& c : candidates)
    if (std::ifstream(c)) return c;
  return "";
}

int show_replay(const std::string& path, const std::string& format, const std::string& why) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "warpscope: error: %s, and no replay pack was found (assets/replay/bench.json)\n", why.c_str());
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  ws::gpu::BenchResult r;
  std::string err;
  if (!ws::trace::read_bench(text.str(), r, err)) {
    std::fprintf(stderr, "warpscope: error: the replay pack %s is not readable: %s\n", path.c_str(), err.c_str());
    return 1;
  }
  std::fprintf(stderr, "warpscope bench: %s: showing the replay pack recorded on %s on %s (CUDA %s), %s\n", why.c_str(),
               r.device.name.c_str(), r.date.c_str(), ws::gpu::DeviceInfo::version_text(r.device.runtime_version).c_str(),
               path.c_str());
  std::cout << (format == "json" ? ws::gpu::bench_json(r) : ws::gpu::bench_text(r));
  return 0;
}

}  // namespace

namespace ws::cli {

// argv[0] is "bench"; parses its own options (they differ from the launch options).
int cmd_bench(int argc, char** argv) {
  ws::gpu::BenchOptions opt;
  std::string format = "text", out_path, replay;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string& v) {
      if (i + 1 >= argc) return false;
      v = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--kernel" || a == "-k") {
      if (!value(v)) return usage_error("--kernel needs an id: allowed " + ws::catalog::ids());
      std::stringstream ss(v);
      for (std::string id; std::getline(ss, id, ',');) {
        if (!ws::catalog::find(id)) return usage_error("unknown kernel '" + id + "': allowed " + ws::catalog::ids());
        opt.kernels.push_back(id);
      }
    } else if (a == "--size") {
      if (!value(v) || !parse_int(v, opt.size) || opt.size <= 0) return usage_error("--size needs a positive integer");
    } else if (a == "--set") {
      int64_t x;
      size_t eq;
      if (!value(v) || (eq = v.find('=')) == std::string::npos || !parse_int(v.substr(eq + 1), x))
        return usage_error("--set needs name=value with an integer value");
      opt.set[v.substr(0, eq)] = x;
    } else if (a == "--format") {
      if (!value(format) || (format != "text" && format != "json"))
        return usage_error("unknown format '" + format + "': allowed text, json");
    } else if (a == "--out") {
      if (!value(out_path)) return usage_error("--out needs a file name");
    } else if (a == "--replay") {
      if (!value(replay)) return usage_error("--replay needs a file name");
    } else if (a == "--seconds") {
      if (!value(v) || std::atof(v.c_str()) <= 0) return usage_error("--seconds needs a positive number");
      opt.seconds = std::atof(v.c_str());
    } else if (a == "--no-variants") {
      opt.variants = false;
    } else if (a == "--no-overhead") {
      opt.overhead = false;
    } else if (a == "--no-zero-cost") {
      opt.zero_cost = false;
    } else {
      return usage_error("unknown option '" + a +
                         "': allowed --kernel, --size, --set, --format, --out, --replay, --seconds, --no-variants, "
                         "--no-overhead, --no-zero-cost");
    }
  }
  if (!replay.empty()) return show_replay(replay, format, "replay asked for");

#ifdef WS_HAVE_CUDA
  std::string why;
  if (!ws::gpu::available(&why)) return show_replay(find_replay(), format, "no GPU (" + why + ")");
  try {
    auto r = ws::gpu::bench(opt, [](const std::string& s) { std::fprintf(stderr, "  %s\n", s.c_str()); });
    if (!out_path.empty()) {
      std::ofstream f(out_path);
      f << ws::gpu::bench_json(r);
      if (!f) return usage_error("cannot write " + out_path);
    }
    std::cout << (format == "json" ? ws::gpu::bench_json(r) : ws::gpu::bench_text(r));
    return r.all_ok ? 0 : 1;
  } catch (const std::invalid_argument& e) {
    return usage_error(e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpscope: error: %s\n", e.what());
    return 1;
  }
#else
  return show_replay(find_replay(), format, "this build has no GPU backend");
#endif
}

}  // namespace ws::cli
