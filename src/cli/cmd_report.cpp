// `warpscope report`: what every access of a launch costs — from a fresh recording or a
// saved trace. Both are a Session; the report prints its figures, the source gutter's
// per-line figures included.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "session/session.h"
#include "session/worker.h"
#include "trace/wstrace.h"

namespace ws::cli {
namespace {

struct ReportOptions {
  session::LaunchArgs launch;
  std::string trace_file;
  std::string format = "text";
  CLI::Option* trace_opt = nullptr;
  int64_t step = 0;              // also print request K's figures (K from 1; 0: none)
};

std::string dim_text(const trace::Dim3& d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

bool from_file(const session::Session& s) { return s.origin == "file"; }

// The launch header of the text report.
void print_header(const session::Session& s) {
  const trace::Trace& t = s.trace();
  const trace::Launch& l = t.launch;
  std::cout << "kernel    " << l.kernel << (s.kernel ? "  — " + s.kernel->title : "") << "\n";
  std::cout << "params    " << session::params_text(l.params) << "\n";
  std::cout << "launch    grid " << dim_text(l.grid) << " × block " << dim_text(l.block);
  if (l.dynamic_shared_bytes) std::cout << ", " << l.dynamic_shared_bytes << " B dynamic shared memory";
  std::cout << "\n";
  if (!from_file(s))
    std::cout << "backend   " << l.backend << " (" << l.device << ")\n";
  else
    std::cout << "backend   file, recorded by " << l.backend << " (" << l.device << ") on " << l.date
              << " with warpscope " << l.version << "\n";
  if (s.counted)
    std::cout << "counted   all " << l.grid.count() << " blocks on the GPU (counts mode: statistics summed on the "
              << "device, no addresses stored), " << s.report.records << " requests";
  else
    std::cout << "recorded  " << t.blocks.size() << " of " << l.grid.count() << " blocks, " << t.records.size()
              << " requests";
  if (t.dropped_records) std::cout << " (" << t.dropped_records << " more past the record cap were dropped)";
  if (!from_file(s)) {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.3f s", s.capture_seconds);
    std::cout << ", " << s.lane_accesses << " lane accesses in " << secs;
  }
  std::cout << "\n";
  if (!from_file(s)) std::cout << "check     " << s.check_text() << "\n";
  if (!s.note.empty()) std::cout << "note      " << s.note << "\n";
  std::cout << "\n";
}

void print_json(const session::Session& s, int64_t step) {
  using json = nlohmann::ordered_json;
  const trace::Trace& t = s.trace();
  json j = json::parse(analysis::report_json(t, s.report));
  const trace::Launch& l = t.launch;
  // The fields the report format promises, should the analysis leave any out.
  if (!j.contains("kernel")) j["kernel"] = l.kernel;
  if (!j.contains("params")) j["params"] = l.params;
  j["backend"] = from_file(s) ? "file" : l.backend;
  if (!j.contains("grid")) j["grid"] = {l.grid.x, l.grid.y, l.grid.z};
  if (!j.contains("block")) j["block"] = {l.block.x, l.block.y, l.block.z};
  j["device"] = l.device;
  j["date"] = l.date;
  j["version"] = l.version;
  if (from_file(s)) j["recorded_with"] = l.backend;
  j["blocks_recorded"] = s.counted ? l.grid.count() : t.blocks.size();
  if (!from_file(s)) j["mode"] = s.counted ? "counts" : "records";
  j["blocks_total"] = l.grid.count();
  j["records"] = t.records.size();
  j["dropped_records"] = t.dropped_records;
  if (!from_file(s)) {
    j["check"] = {{"checked", s.checked},
                  {"max_rel_error", s.max_rel_error},
                  {"matches_reference", s.checked && !s.differs()}};
    j["lane_accesses"] = s.lane_accesses;
    j["seconds"] = s.capture_seconds;
  }
  if (!s.note.empty()) j["note"] = s.note;
  j["source_lines"] = json::parse(session::source_lines_json(s));
  if (step >= 0) j["request"] = json::parse(session::request_json(s, uint64_t(step)));
  std::cout << j.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
}

void print(const session::Session& s, Format f, int64_t request) {
  int64_t step = -1;  // the record of request K
  if (request > 0) {
    try {
      step = int64_t(session::record_of_request(request, s.size()));
    } catch (const session::InputError& e) {
      throw UsageError(std::string("--step: ") + e.what());
    }
  }
  if (f == Format::Json) {
    print_json(s, step);
  } else {
    print_header(s);
    std::cout << analysis::report_text(s.trace(), s.report);
    if (std::string lines = session::source_lines_text(s); !lines.empty()) std::cout << "\n" << lines;
    if (step >= 0) std::cout << "\n" << session::request_text(s, uint64_t(step));
  }
}

int run(const ReportOptions& o) {
  const Format f = parse_format(o.format);
  if (o.trace_opt->count()) {
    print(*session::Session::from_file(o.trace_file, dram_from_sets(o.launch.set)), f, o.step);
    return 0;
  }
  session::LaunchSpec spec = session::spec_of(o.launch);
  spec.counts = true;  // on a GPU, the whole grid in counts mode
  const session::Launch launch = resolve_launch(spec, "report");
  auto s = session::Session::from_capture(session::capture(launch), launch, spec);
  print(*s, f, o.step);
  if (s->differs()) {
    std::cout.flush();
    std::cerr << "warpscope: error: " << launch.kernel->id << ": " << s->check_text() << std::endl;
    return kExitFailure;
  }
  return 0;
}

}  // namespace

Command add_report(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("report", "per-site costs of a launch: sectors, bank conflicts, DRAM spread");
  session::add_launch_options(*cmd, o->launch, session::kWithDram | session::kWithBlocks | session::kWithBackend);
  cmd->add_option("--format", o->format, "text|json (default text)")->type_name("FORMAT");
  o->trace_opt = cmd->add_option("--trace", o->trace_file, "report a saved .wstrace file instead of running a kernel")
                     ->type_name("FILE");
  for (const char* other : {"--kernel", "--size", "--blocks", "--backend"}) o->trace_opt->excludes(other);
  cmd->add_option("--step", o->step, "also show request K (from 1) as the warp inspector does: lanes to sectors or banks")
      ->type_name("K")
      ->check(CLI::PositiveNumber);
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ws::cli
