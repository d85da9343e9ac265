// `warpscope report`: what every access of a launch costs — from a fresh recording or a
// saved trace. Both are a Session; the report prints its figures, the source gutter's
// per-line figures included.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "session/session.h"
#include "session/worker.h"
#include "trace/bench.h"
#include "trace/wstrace.h"

namespace ws::cli {
namespace {

struct ReportOptions {
  cli::LaunchArgs launch;
  std::string trace_file;
  std::string format = "text";
  CLI::Option* trace_opt = nullptr;
  int64_t step = 0;              // also print request K's figures (K from 1; 0: none)
  int64_t launch_number = 0;     // only launch K of the trace (K from 1; 0: every launch)
};

std::string dim_text(const trace::Dim3& d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

bool from_file(const session::Session& s) { return s.origin == "file" || s.origin == "program"; }

// The launch header of the text report.
void print_header(const session::Session& s) {
  const trace::Trace& t = s.trace();
  const trace::Launch& l = t.launch();
  std::cout << "kernel    " << l.kernel << (s.kernel ? "  — " + s.kernel->title : "") << "\n";
  if (!l.params.empty()) std::cout << "params    " << session::params_text(l.params) << "\n";
  std::cout << "launch    grid " << dim_text(l.grid) << " × block " << dim_text(l.block);
  if (l.dynamic_shared_bytes) std::cout << ", " << l.dynamic_shared_bytes << " B dynamic shared memory";
  std::cout << "\n";
  const trace::Provenance& p = t.provenance;
  if (s.launches() > 1) std::cout << "launch    " << s.launch + 1 << " of " << s.launches() << "\n";
  if (s.origin == "program")
    std::cout << "program   " << s.file << ", run on the " << p.device << "\n";
  else if (!from_file(s))
    std::cout << "backend   " << p.backend << " (" << p.device << ")\n";
  else
    std::cout << "backend   file, recorded by " << p.backend << " (" << p.device << ") on " << p.date
              << " with warpscope " << p.version << "\n";
  if (s.counted)
    std::cout << "counted   all " << l.grid.count() << " blocks on the GPU (counts mode: statistics summed on the "
              << "device, no addresses stored), " << s.report.records << " requests";
  else
    std::cout << "recorded  " << l.blocks.size() << " of " << l.grid.count() << " blocks, " << t.records.size()
              << " requests";
  if (l.dropped_records) std::cout << " (" << l.dropped_records << " more past the record cap were dropped)";
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

// One launch's report as an entry of the JSON report's "launches" list.
nlohmann::ordered_json launch_json(const session::Session& s, int64_t step) {
  using json = nlohmann::ordered_json;
  const trace::Trace& t = s.trace();
  const trace::Launch& l = t.launch();
  json j = json::parse(analysis::report_json(t, s.report, s.launch));
  j.erase("dram_model");
  if (s.counted) j["blocks_recorded"] = l.grid.count();
  j["records"] = t.records.size();
  j["source_lines"] = json::parse(session::source_lines_json(s));
  if (step >= 0) j["request"] = json::parse(session::request_json(s, uint64_t(step)));
  return j;
}

// Where a program's GPU times come from, as the reports say it.
std::string times_from(const session::GpuTimes& g) { return g.this_run ? "this run" : "the replay pack, recorded " + g.date; }

// The JSON report (version 2): what recorded the trace, the DRAM model, and one entry per
// launch reported.
void print_json(const std::vector<std::shared_ptr<const session::Session>>& shown, int64_t step) {
  using json = nlohmann::ordered_json;
  const session::Session& s = *shown.front();
  const trace::Provenance& p = s.trace().provenance;
  json j;
  j["report_version"] = 2;
  j["backend"] = s.origin == "program" ? "program" : from_file(s) ? "file" : p.backend;
  if (s.origin == "program") j["program"] = s.file;
  j["device"] = p.device;
  j["date"] = p.date;
  j["version"] = p.version;
  if (s.origin == "file") j["recorded_with"] = p.backend;
  if (!from_file(s)) j["mode"] = s.counted ? "counts" : "records";
  j["dram_model"] = json::parse(analysis::dram_json(s.report.dram));
  if (!from_file(s)) {
    j["check"] = {{"checked", s.checked},
                  {"max_rel_error", s.max_rel_error},
                  {"matches_reference", s.checked && !s.differs()}};
    j["lane_accesses"] = s.lane_accesses;
    j["seconds"] = s.capture_seconds;
  }
  if (!s.note.empty()) j["note"] = s.note;
  if (const session::GpuTimes g = session::gpu_times(s); g.json) {
    j["gpu_times"] = json::parse(*g.json, nullptr, false);
    j["gpu_times_from"] = times_from(g);
  }
  j["launches"] = json::array();
  for (const auto& one : shown) j["launches"].push_back(launch_json(*one, step));
  std::cout << j.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
}

// Prints the report of every session in `shown` (the launches of one trace).
}  // namespace

void print_reports(const std::vector<std::shared_ptr<const session::Session>>& shown, Format f, int64_t request) {
  int64_t step = -1;  // the record of request K
  if (request > 0) {
    if (shown.size() > 1) throw UsageError("--step needs --launch K: the trace has " + std::to_string(shown.size()) + " launches");
    try {
      step = int64_t(session::record_of_request(request, shown.front()->size()));
    } catch (const session::InputError& e) {
      throw UsageError(std::string("--step: ") + e.what());
    }
  }
  if (f == Format::Json) {
    print_json(shown, step);
    return;
  }
  for (size_t i = 0; i < shown.size(); ++i) {
    const session::Session& s = *shown[i];
    if (i) std::cout << "\n";
    print_header(s);
    std::cout << analysis::report_text(s.trace(), s.report);
    if (std::string lines = session::source_lines_text(s); !lines.empty()) std::cout << "\n" << lines;
    if (step >= 0) std::cout << "\n" << session::request_text(s, uint64_t(step));
  }
  if (const session::GpuTimes g = session::gpu_times(*shown.front()); g.json) {
    trace::BenchResult b;
    std::string error;
    if (trace::read_bench(*g.json, b, error))
      std::cout << "\n" << (g.this_run ? "" : "[" + times_from(g) + "] ") << trace::program_times_text(b);
  }
}

// Launch K (from 1) of the trace in `first`'s file, or every launch when K is 0.
std::vector<std::shared_ptr<const session::Session>> launches_of(std::shared_ptr<const session::Session> first,
                                                                 int64_t k, const analysis::DramModel& dram) {
  const size_t n = first->launches();
  if (k > int64_t(n)) throw UsageError("--launch " + std::to_string(k) + " is out of range: allowed 1.." + std::to_string(n));
  std::vector<std::shared_ptr<const session::Session>> out;
  for (size_t i = 0; i < n; ++i) {
    if (k && size_t(k - 1) != i) continue;
    out.push_back(i == first->launch ? first : first->of_launch(uint32_t(i), dram));
  }
  return out;
}

namespace {

int run(const ReportOptions& o) {
  const Format f = parse_format(o.format);
  if (o.trace_opt->count()) {
    session::LaunchSpec spec;
    spec.trace = o.trace_file;
    spec.launch = uint32_t(o.launch_number > 0 ? o.launch_number - 1 : 0);
    spec.dram = dram_from_sets(o.launch.set).preset;
    const session::Launch launch = session::resolve(spec);
    print_reports(launches_of(session::record_session(launch, spec), o.launch_number, launch.dram), f, o.step);
    return 0;
  }
  session::LaunchSpec spec = cli::spec_of(o.launch);
  if (!spec.program.empty()) {
    spec.program_echo = f == Format::Text;  // JSON keeps stdout for itself
    spec.dram = dram_from_sets(o.launch.set).preset;
    const session::Launch launch = session::resolve(spec);
    print_reports(launches_of(session::record_session(launch, spec), o.launch_number, launch.dram), f, o.step);
    return 0;
  }
  if (o.launch_number) throw UsageError("--launch K needs --trace FILE or --program FILE.cu");
  spec.counts = true;  // on a GPU, the whole grid in counts mode
  const session::Launch launch = resolve_launch(spec, "report");
  std::shared_ptr<const session::Session> s = session::Session::from_capture(session::capture(launch), launch, spec);
  print_reports({s}, f, o.step);
  if (s->differs()) throw std::runtime_error(launch.kernel->id + ": " + s->check_text());
  return 0;
}

}  // namespace

Command add_report(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("report", "per-site costs of a launch: sectors, bank conflicts, DRAM spread");
  cli::add_launch_options(*cmd, o->launch, cli::kWithDram | cli::kWithBlocks | cli::kWithBackend | cli::kWithProgram);
  cmd->add_option("--format", o->format, "text|json (default text)")->type_name("FORMAT");
  o->trace_opt = cmd->add_option("--trace", o->trace_file, "report a saved .wstrace file instead of running a kernel")
                     ->type_name("FILE");
  for (const char* other : {"--kernel", "--size", "--blocks", "--backend"}) o->trace_opt->excludes(other);
  o->trace_opt->excludes("--program");
  cmd->add_option("--launch", o->launch_number, "with --trace or --program: only launch K (from 1)")
      ->type_name("K")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--step", o->step, "also show request K (from 1) as the warp inspector does: lanes to sectors or banks")
      ->type_name("K")
      ->check(CLI::PositiveNumber);
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ws::cli
