// `warpscope report`: what every access of a launch costs — from a fresh recording or a
// saved trace. Both are a Session; the report prints its figures, the source gutter's
// per-line figures included.
#include <iostream>
#include <memory>

#include "cli/cli.h"
#include "session/report.h"
#include "session/session.h"
#include "session/worker.h"
#include "trace/wstrace.h"

namespace ws::cli {
namespace {

struct ReportOptions {
  cli::LaunchFlags launch;
  std::string trace_file;
  std::string format = "text";
  CLI::Option* trace_opt = nullptr;
  int64_t step = 0;              // also print request K's figures (K from 1; 0: none)
  int64_t launch_number = 0;     // only launch K of the trace (K from 1; 0: every launch)
};

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
  std::cout << (f == Format::Json ? session::report_json(shown, step) + "\n" : session::report_text(shown, step));
}

// Launch K (from 1) of the trace in `first`'s file, or every launch when K is 0.
std::vector<std::shared_ptr<const session::Session>> launches_of(std::shared_ptr<const session::Session> first,
                                                                 int64_t k, const analysis::DramModel& dram) {
  const size_t n = first->launches();
  if (k > int64_t(n)) throw UsageError("--launch " + std::to_string(k) + " is out of range: allowed 1.." + std::to_string(n));
  std::vector<std::shared_ptr<const session::Session>> out;
  for (size_t i = 0; i < n; ++i) {
    if (k && size_t(k - 1) != i) continue;
    out.push_back(i == first->launch() ? first : first->of_launch(uint32_t(i), dram));
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
    const session::ResolvedLaunch launch = session::resolve(spec);
    print_reports(launches_of(session::record_session(launch, spec), o.launch_number, launch.dram), f, o.step);
    return 0;
  }
  session::LaunchSpec spec = cli::spec_of(o.launch);
  if (!spec.program.source.empty()) {
    spec.program.echo = f == Format::Text;  // JSON keeps stdout for itself
    spec.dram = dram_from_sets(o.launch.set).preset;
    const session::ResolvedLaunch launch = session::resolve(spec);
    print_reports(launches_of(session::record_session(launch, spec), o.launch_number, launch.dram), f, o.step);
    return program_exit_status();  // a kernel that faulted fails the command as `run` does
  }
  if (o.launch_number) throw UsageError("--launch K needs --trace FILE or --program FILE.cu");
  spec.counts = true;  // on a GPU, the whole grid in counts mode
  const session::ResolvedLaunch launch = resolve_launch(spec, "report");
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
