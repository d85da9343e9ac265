// `warpscope report`: what every access of a launch costs — from a fresh recording or a
// saved trace.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "trace/wstrace.h"

namespace ws::cli {
namespace {

struct ReportOptions {
  LaunchOptions launch;
  std::string trace_file;
  std::string format = "text";
  CLI::Option* trace_opt = nullptr;
};

std::string dim_text(const trace::Dim3& d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

// The launch header of the text report. `res` is null for a saved trace.
void print_header(const trace::Trace& t, const capture::Result* res, const std::string& recorded_with) {
  const trace::Launch& l = t.launch;
  const catalog::KernelInfo* k = catalog::find(l.kernel);
  std::cout << "kernel    " << l.kernel << (k ? "  — " + k->title : "") << "\n";
  std::cout << "params    " << params_text(l.params) << "\n";
  std::cout << "launch    grid " << dim_text(l.grid) << " × block " << dim_text(l.block);
  if (l.dynamic_shared_bytes) std::cout << ", " << l.dynamic_shared_bytes << " B dynamic shared memory";
  std::cout << "\n";
  if (res)
    std::cout << "backend   " << l.backend << " (" << l.device << ")\n";
  else
    std::cout << "backend   file, recorded by " << recorded_with << " (" << l.device << ") on " << l.date
              << " with warpscope " << l.version << "\n";
  if (res && res->counted)
    std::cout << "counted   all " << l.grid.count() << " blocks on the GPU (counts mode: statistics summed on the "
              << "device, no addresses stored), " << res->report.records << " requests";
  else
    std::cout << "recorded  " << t.blocks.size() << " of " << l.grid.count() << " blocks, " << t.records.size()
              << " requests";
  if (t.dropped_records) std::cout << " (" << t.dropped_records << " more past the record cap were dropped)";
  if (res) {
    char s[32];
    std::snprintf(s, sizeof s, "%.3f s", res->seconds);
    std::cout << ", " << res->lane_accesses << " lane accesses in " << s;
  }
  std::cout << "\n";
  if (res) std::cout << "check     " << check_text(*res) << "\n";
  if (res && !res->note.empty()) std::cout << "note      " << res->note << "\n";
  std::cout << "\n";
}

void print_json(const trace::Trace& t, const analysis::Report& rep, const capture::Result* res,
                const std::string& recorded_with) {
  using json = nlohmann::ordered_json;
  json j = json::parse(analysis::report_json(t, rep));
  const trace::Launch& l = t.launch;
  // The fields the report format promises, should the analysis leave any out.
  if (!j.contains("kernel")) j["kernel"] = l.kernel;
  if (!j.contains("params")) j["params"] = l.params;
  if (!j.contains("backend")) j["backend"] = l.backend;
  if (!j.contains("grid")) j["grid"] = {l.grid.x, l.grid.y, l.grid.z};
  if (!j.contains("block")) j["block"] = {l.block.x, l.block.y, l.block.z};
  j["device"] = l.device;
  j["date"] = l.date;
  j["version"] = l.version;
  if (!res) j["recorded_with"] = recorded_with;
  j["blocks_recorded"] = res && res->counted ? l.grid.count() : t.blocks.size();
  if (res) j["mode"] = res->counted ? "counts" : "records";
  j["blocks_total"] = l.grid.count();
  j["records"] = t.records.size();
  j["dropped_records"] = t.dropped_records;
  if (res) {
    j["check"] = {{"checked", res->checked},
                  {"max_rel_error", res->max_rel_error},
                  {"matches_reference", res->checked && !check_failed(*res)}};
    j["lane_accesses"] = res->lane_accesses;
    j["seconds"] = res->seconds;
    if (!res->note.empty()) j["note"] = res->note;
  }
  std::cout << j.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
}

void print(const trace::Trace& t, const analysis::DramModel& dram, Format f, const capture::Result* res,
           const std::string& recorded_with) {
  analysis::Report rep = res && res->counted ? res->report : analysis::analyze(t, dram);
  if (f == Format::Json) {
    print_json(t, rep, res, recorded_with);
  } else {
    print_header(t, res, recorded_with);
    std::cout << analysis::report_text(t, rep);
  }
}

int run(const ReportOptions& o) {
  const Format f = parse_format(o.format);
  if (o.trace_opt->count()) {
    analysis::DramModel dram = dram_from_sets(o.launch.set, true);
    trace::Trace t = trace::read_trace(o.trace_file);
    const std::string recorded_with = t.launch.backend;
    t.launch.backend = "file";
    print(t, dram, f, nullptr, recorded_with);
    return 0;
  }
  if (o.launch.kernel.empty()) throw UsageError("report needs --kernel ID or --trace FILE (kernels: " + catalog::ids() + ")");
  analysis::DramModel dram;
  capture::Request req = make_request(o.launch, dram);
  req.counts = true;  // on a GPU, the whole grid in counts mode
  req.dram = dram;
  capture::Result res = capture::record(req);
  print(res.trace, dram, f, &res, res.trace.launch.backend);
  if (check_failed(res)) {
    std::cout.flush();
    std::cerr << "warpscope: error: " << req.kernel << ": " << check_text(res) << std::endl;
    return kExitFailure;
  }
  return 0;
}

}  // namespace

Command add_report(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("report", "per-site costs of a launch: sectors, bank conflicts, DRAM spread");
  add_launch_options(*cmd, o->launch, true);
  cmd->add_option("--format", o->format, "text|json (default text)")->type_name("FORMAT");
  o->trace_opt = cmd->add_option("--trace", o->trace_file, "report a saved .wstrace file instead of running a kernel")
                     ->type_name("FILE");
  for (const char* other : {"--kernel", "--size", "--blocks", "--backend"}) o->trace_opt->excludes(other);
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ws::cli
