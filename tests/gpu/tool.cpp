// tests/gpu/tool.cpp — ws_gpu_tool, the GPU side of scripts/device/run_all.sh:
//   ws_gpu_tool info                        device, driver and clocks (JSON)
//   ws_gpu_tool bench [bench options]       the `warpscope bench` command
//   ws_gpu_tool probe plain                 one plain launch per validation case (for ncu)
//   ws_gpu_tool probe counts                counts mode of the same launches (JSON lines)
//   ws_gpu_tool probe counters [--replay kernel|user] [--kernel ID [--size N] [--set k=v]...]
//                                           the GPU's counters (CUPTI) of the same launches (or
//                                           of the one named) beside counts mode's totals, the
//                                           profiled launch's time against the plain one and
//                                           where it went, and whether its outputs equal a
//                                           plain launch's (JSON lines)
//   ws_gpu_tool metrics M1,M2,... [teaching|validation]
//                                           any CUPTI metrics over the cases (JSON lines): their
//                                           values, the passes, counts mode's totals, and the
//                                           profiled launch's wall time against the plain one
//   ws_gpu_tool sassmetrics list            the SASS metrics CUPTI offers on this GPU
//   ws_gpu_tool sassmetrics M1,M2,... --kernel ID [--size N] [--set k=v]...
//                                           those per instruction for one plain launch (JSON
//                                           lines: the launch's times, patched and plain,
//                                           counts mode's totals, then a line per instruction)
//   ws_gpu_tool sanitize [plain]            every teaching case in plain, record and counts
//                                           mode, or plain only (for compute-sanitizer)
//   ws_gpu_tool trace --kernel ID [--size N] [--set k=v]... --out FILE.wstrace
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "cases.h"
#include "gpu/gpu.h"
#include "gpu/internal.h"
#include "trace/wstrace.h"

#include "cli/cli.h"
#include "cli/launch_options.h"

using namespace ws;

namespace {

int info() {
  auto d = gpu::device_info();
  nlohmann::json j = {{"name", d.name},
                      {"cc", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
                      {"sms", d.sms},
                      {"memory_bytes", d.memory_bytes},
                      {"l2_bytes", d.l2_bytes},
                      {"sm_clock_mhz", d.sm_clock_mhz},
                      {"max_sm_clock_mhz", d.max_sm_clock_mhz},
                      {"mem_clock_mhz", d.mem_clock_mhz},
                      {"max_mem_clock_mhz", d.max_mem_clock_mhz},
                      {"driver_cuda", gpu::DeviceInfo::version_text(d.driver_version)},
                      {"runtime_cuda", gpu::DeviceInfo::version_text(d.runtime_version)},
                      {"date", trace::utc_now()}};
  std::cout << j.dump() << "\n";
  return 0;
}

// Totals of one launch by (space, op), the quantities Nsight Compute counts.
nlohmann::json totals(const gpu::Counts& c) {
  nlohmann::json t = nlohmann::json::object();
  for (size_t i = 0; i < c.meta.sites.size(); ++i) {
    const auto& s = c.meta.sites[i];
    const auto& n = c.report.sites[i];
    std::string k = std::string(trace::to_string(s.space)) + "_" + (s.op == trace::Op::Store ? "st" : "ld");
    if (!t.contains(k)) t[k] = nlohmann::json::object();
    auto add = [&](const char* f, uint64_t v) { t[k][f] = t[k].value(f, uint64_t(0)) + v; };
    add("requests", n.requests);
    if (s.space == trace::Space::Global) {
      add("sectors", n.sectors);
    } else {
      add("wavefronts", n.wavefronts);
      add("ideal_wavefronts", n.ideal_wavefronts);
      add("conflicts", n.bank_conflicts);
    }
  }
  return t;
}

int probe(const std::string& mode) {
  for (const auto& c : gpu_test::validation_cases()) {
    const catalog::KernelInfo* k;
    catalog::Params p = gpu_test::resolve(c, k);
    auto arrays = catalog::make_arrays(*k, p, 11);
    if (mode == "plain") {
      gpu::detail::DeviceArrays d(*k, p);
      d.upload(arrays);
      auto r = gpu::detail::plain_runner(*k, p, d);
      r->launch();
      gpu::detail::sync(k->id);
      std::printf("%s\n", c.name().c_str());
    } else {
      gpu::Counts cnt = gpu::counts(*k, p, arrays);
      nlohmann::json j = {{"case", c.name()}, {"kernel", c.kernel}, {"size", p.size()}, {"totals", totals(cnt)}};
      nlohmann::json sites = nlohmann::json::array();
      for (size_t i = 0; i < cnt.meta.sites.size(); ++i) {
        const auto& s = cnt.meta.sites[i];
        const auto& n = cnt.report.sites[i];
        sites.push_back({{"line", s.line},
                         {"array", cnt.meta.buffers.at(s.buffer).name},
                         {"space", trace::to_string(s.space)},
                         {"op", trace::to_string(s.op)},
                         {"bytes", s.bytes},
                         {"code", s.code},
                         {"requests", n.requests},
                         {"sectors", n.sectors},
                         {"wavefronts", n.wavefronts},
                         {"conflicts", n.bank_conflicts}});
      }
      j["sites"] = sites;
      std::cout << j.dump() << "\n";
    }
  }
  return 0;
}

// One launch under the process's profiler: its counters from a first profiled launch, whose
// outputs are checked against a plain launch's on the same inputs; then the plain launch's
// median time, and the profiled one's with the phases of the last.
nlohmann::json counters_case(const std::string& name, const catalog::KernelInfo& k, const catalog::Params& p) {
  gpu::detail::Profiler& prof = gpu::detail::profiler();
  auto arrays = catalog::make_arrays(k, p, 11);
  auto a2 = arrays;
  gpu::Counts cnt = gpu::counts(k, p, a2);
  gpu::detail::DeviceArrays d(k, p);
  d.upload(arrays);
  auto plain = gpu::detail::plain_runner(k, p, d);
  plain->launch();
  gpu::detail::sync(k.id);
  auto want = arrays;
  d.download_outputs(want);
  d.upload(arrays);
  std::unique_ptr<gpu::detail::OutputBackup> outputs;
  if (prof.replay() == gpu::detail::Replay::User) outputs = std::make_unique<gpu::detail::OutputBackup>(d);
  int kernels = 0;
  const std::vector<uint64_t> v = prof.profile([&] { plain->launch(); }, kernels, outputs.get());
  auto got = arrays;
  d.download_outputs(got);
  const double err = catalog::max_rel_error(k, p, got, want);

  auto t = gpu::detail::time_runners({plain.get()}, 1, 5, 20, 0.05);
  const double base = gpu::detail::median(t[0]);
  std::vector<uint64_t> again;
  int kernels_again = 0;
  const double prof_ms = prof.profiled_ms([&] { plain->launch(); }, again, kernels_again, outputs.get());
  const gpu::detail::ProfilePhases& ph = prof.phases();
  const nlohmann::json phases = {{"configure", ph.configure}, {"backup", ph.backup}, {"start", ph.start},
                                 {"launch", ph.launch}, {"sync", ph.sync}, {"stop", ph.stop},
                                 {"decode", ph.decode}, {"evaluate", ph.evaluate}, {"total", ph.total},
                                 {"launches", ph.launches}, {"pass_index", ph.pass_index}};
  nlohmann::json h = nlohmann::json::object();
  const auto& specs = gpu::counter_specs();
  for (size_t i = 0; i < specs.size(); ++i) h[specs[i].space][specs[i].figure] = v[i];
  return {{"case", name},
          {"kernel", k.id},
          {"size", p.size()},
          {"chip", prof.chip()},
          {"replay", prof.replay() == gpu::detail::Replay::User ? "user" : "kernel"},
          {"passes", prof.passes()},
          {"kernels", kernels},
          {"plain_ms", base},
          {"profiled_ms", prof_ms},
          {"ratio", base > 0 ? prof_ms / base : 0},
          {"phases", phases},
          {"outputs_error", err},  // against the plain launch's outputs: 0 when the passes left them right
          {"repeat_same", again == v && kernels_again == kernels},  // the last timed call counted alike
          {"counters", h},
          {"totals", totals(cnt)}};
}

// argv[0] is "counters"; without --kernel, the validation cases.
int probe_counters(int argc, char** argv) {
  CLI::App cmd{"ws_gpu_tool probe counters: the GPU's counters (CUPTI) beside counts mode's totals", "counters"};
  cli::LaunchFlags args;
  std::string replay = "kernel";
  cmd.add_option("--replay", replay, "who runs the launch once per counter pass: kernel (CUPTI) or user (warpscope)")
      ->check(CLI::IsMember({"kernel", "user"}));
  cli::add_launch_options(cmd, args, 0);
  try {
    cmd.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cmd.exit(e);
  }
  gpu::detail::profiler().set_replay(replay == "user" ? gpu::detail::Replay::User : gpu::detail::Replay::Kernel);
  int failed = 0;
  // A case that fails says why in its line, and the others still run.
  auto run = [&](const std::string& name, const catalog::KernelInfo& k, const catalog::Params& p) {
    try {
      std::cout << counters_case(name, k, p).dump() << std::endl;
    } catch (const gpu::Error& e) {
      ++failed;
      std::cout << nlohmann::json({{"case", name}, {"kernel", k.id}, {"replay", replay}, {"error", e.what()}}).dump()
                << std::endl;
    }
  };
  if (!args.kernels.empty()) {
    const session::ResolvedLaunch l = session::resolve(cli::spec_of(args));
    run(l.kernel->id + " size=" + std::to_string(l.params.size()), *l.kernel, l.params);
  } else {
    for (const auto& c : gpu_test::validation_cases()) {
      const catalog::KernelInfo* k;
      catalog::Params p = gpu_test::resolve(c, k);
      run(c.name(), *k, p);
    }
  }
  return failed ? 1 : 0;
}

std::vector<std::string> split_commas(const std::string& list) {
  std::vector<std::string> names;
  for (size_t a = 0, b; a <= list.size(); a = b + 1) {
    b = list.find(',', a);
    if (b == std::string::npos) b = list.size();
    if (b > a) names.push_back(list.substr(a, b - a));
  }
  return names;
}

// argv[0] is "sassmetrics"; the launch options are the shared parser's (as trace's).
int sass_metrics(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "list") {
    for (const auto& [name, what] : gpu::sass_metric_list()) std::cout << name << "\t" << what << "\n";
    return 0;
  }
  CLI::App cmd{"ws_gpu_tool sassmetrics: CUPTI's SASS metrics of one plain launch, per instruction", "sassmetrics"};
  cli::LaunchFlags args;
  std::string list;
  cmd.add_option("metrics", list, "M1,M2,... (ws_gpu_tool sassmetrics list names them)")->required();
  cli::add_launch_options(cmd, args, 0);
  try {
    cmd.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cmd.exit(e);
  }
  const std::vector<std::string> names = split_commas(list);
  const session::ResolvedLaunch l = session::resolve(cli::spec_of(args));
  const catalog::KernelInfo* k = l.kernel;
  const catalog::Params& p = l.params;
  auto arrays = catalog::make_arrays(*k, p, 11);
  auto a2 = arrays;
  gpu::Counts cnt = gpu::counts(*k, p, a2);
  gpu::SassMetrics r = gpu::sass_metrics(*k, p, arrays, names);
  std::vector<uint64_t> sums(names.size(), 0);
  for (const auto& row : r.rows)
    for (size_t m = 0; m < names.size(); ++m) sums[m] += row.values[m];
  nlohmann::json total = nlohmann::json::object();
  for (size_t m = 0; m < names.size(); ++m) total[names[m]] = sums[m];
  std::cout << nlohmann::json({{"kernel", k->id}, {"size", p.size()}, {"plain_ms", r.plain_ms}, {"first_ms", r.first_ms},
                               {"patched_ms", r.ms}, {"first_ratio", r.plain_ms > 0 ? r.first_ms / r.plain_ms : 0},
                               {"patched_ratio", r.plain_ms > 0 ? r.ms / r.plain_ms : 0}, {"instructions", r.rows.size()},
                               {"sums", total}, {"totals", totals(cnt)}})
                   .dump()
            << std::endl;
  for (const auto& row : r.rows) {
    nlohmann::json v = nlohmann::json::array();
    for (uint64_t x : row.values) v.push_back(x);
    std::cout << nlohmann::json({{"function", row.function}, {"pc", row.pc}, {"values", v}}).dump() << "\n";
  }
  return 0;
}

int metrics(const std::string& list, const std::string& which) {
  const std::vector<std::string> names = split_commas(list);
  gpu::detail::Profiler prof(names);
  for (const auto& c : which == "validation" ? gpu_test::validation_cases() : gpu_test::teaching_cases()) {
    const catalog::KernelInfo* k;
    catalog::Params p = gpu_test::resolve(c, k);
    auto arrays = catalog::make_arrays(*k, p, 11);
    auto a2 = arrays;
    gpu::Counts cnt = gpu::counts(*k, p, a2);
    gpu::detail::DeviceArrays d(*k, p);
    d.upload(arrays);
    auto plain = gpu::detail::plain_runner(*k, p, d);
    auto t = gpu::detail::time_runners({plain.get()}, 1, 5, 20, 0.05);
    std::vector<uint64_t> v;
    int kernels = 0;
    const double prof_ms = prof.profiled_ms([&] { plain->launch(); }, v, kernels);
    nlohmann::json m = nlohmann::json::object();
    for (size_t i = 0; i < names.size(); ++i) m[names[i]] = v[i];
    const double base = gpu::detail::median(t[0]);
    std::cout << nlohmann::json({{"case", c.name()}, {"passes", prof.passes()}, {"kernels", kernels},
                                 {"plain_ms", base}, {"profiled_ms", prof_ms}, {"ratio", base > 0 ? prof_ms / base : 0},
                                 {"metrics", m}, {"totals", totals(cnt)}})
                     .dump()
              << std::endl;
  }
  return 0;
}

int sanitize(bool plain_only) {
  int bad = 0;
  for (const auto& c : gpu_test::teaching_cases()) {
    const catalog::KernelInfo* k;
    catalog::Params p = gpu_test::resolve(c, k);
    auto arrays = catalog::make_arrays(*k, p, 13);
    auto want = arrays;
    k->reference(p, want);
    double tol = k->family == "sgemm" || k->family == "hgemm" ? 1e-5 : 0.0;
    {
      gpu::detail::DeviceArrays d(*k, p);
      d.upload(arrays);
      auto r = gpu::detail::plain_runner(*k, p, d);
      r->launch();
      gpu::detail::sync(k->id);
      auto got = arrays;
      d.download_outputs(got);
      if (catalog::max_rel_error(*k, p, got, want) > tol) ++bad, std::printf("WRONG plain %s\n", c.name().c_str());
    }
    if (plain_only) {
      std::printf("ran %s: plain\n", c.name().c_str());
      continue;
    }
    trace::Trace t;
    auto a1 = arrays;
    gpu::record(*k, p, a1, {}, t);
    auto a2 = arrays;
    gpu::counts(*k, p, a2);
    if (catalog::max_rel_error(*k, p, a1, want) > tol) ++bad, std::printf("WRONG record %s\n", c.name().c_str());
    if (catalog::max_rel_error(*k, p, a2, want) > tol) ++bad, std::printf("WRONG counts %s\n", c.name().c_str());
    std::printf("ran %s: plain, record (%zu records), counts\n", c.name().c_str(), t.records.size());
  }
  return bad ? 1 : 0;
}

// argv[0] is "trace"; the launch options are the shared parser's.
int trace_cmd(int argc, char** argv) {
  CLI::App cmd{"ws_gpu_tool trace: record a launch on the GPU into a .wstrace file", "trace"};
  cli::LaunchFlags args;
  std::string out;
  cli::add_launch_options(cmd, args, 0);
  cmd.add_option("--out", out, "the trace file to write")->required();
  try {
    cmd.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cmd.exit(e);
  }
  const session::ResolvedLaunch l = session::resolve(cli::spec_of(args));
  const catalog::KernelInfo* k = l.kernel;
  const std::string& id = k->id;
  const catalog::Params& p = l.params;
  auto arrays = catalog::make_arrays(*k, p);
  trace::Trace t;
  gpu::record(*k, p, arrays, {}, t);
  auto want = catalog::make_arrays(*k, p);
  k->reference(p, want);
  double err = catalog::max_rel_error(*k, p, arrays, want);
  if (err > (k->family == "sgemm" || k->family == "hgemm" ? 1e-5 : 0.0)) {
    std::fprintf(stderr, "%s: GPU result differs from the reference (%g)\n", id.c_str(), err);
    return 1;
  }
  auto d = gpu::device_info();
  t.provenance.date = trace::utc_now();
  t.provenance.device = d.name + " (CUDA " + gpu::DeviceInfo::version_text(d.runtime_version) + ", driver CUDA " +
                    gpu::DeviceInfo::version_text(d.driver_version) + ")";
  t.provenance.version = WS_VERSION;
  trace::write_trace(t, out);
  std::printf("%s: %zu records, %zu sites -> %s\n", id.c_str(), t.records.size(), t.sites.size(), out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cmd = argc > 1 ? argv[1] : "";
  try {
    if (cmd == "bench") {
      CLI::App app{"ws_gpu_tool"};
      cli::Command bench = cli::add_bench(app);
      try {
        app.parse(argc, argv);
      } catch (const CLI::ParseError& e) {
        return app.exit(e);
      }
      return bench.run();
    }
    std::string why;
    if (!gpu::available(&why)) {
      std::fprintf(stderr, "ws_gpu_tool: %s\n", why.c_str());
      return 77;
    }
    if (cmd == "info") return info();
    if (cmd == "probe" && argc > 2 && std::string(argv[2]) == "counters") return probe_counters(argc - 2, argv + 2);
    if (cmd == "probe" && argc > 2) return probe(argv[2]);
    if (cmd == "metrics" && argc > 2) return metrics(argv[2], argc > 3 ? argv[3] : "teaching");
    if (cmd == "sassmetrics") return sass_metrics(argc - 1, argv + 1);
    if (cmd == "sanitize") return sanitize(argc > 2 && std::string(argv[2]) == "plain");
    if (cmd == "trace") return trace_cmd(argc - 1, argv + 1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws_gpu_tool %s: %s\n", cmd.c_str(), e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: ws_gpu_tool info|bench|probe plain|probe counts|probe counters|metrics|sassmetrics|sanitize|trace ...\n");
  return 2;
}
