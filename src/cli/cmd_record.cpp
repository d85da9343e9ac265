// `warpscope record`: runs a launch and saves its trace to a .wstrace file.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "program/program.h"
#include "session/worker.h"
#include "trace/wstrace.h"

namespace ws::cli {
namespace {

struct RecordOptions {
  cli::LaunchFlags launch;
  std::string out;
  int64_t launch_number = 0;
  std::vector<std::string> command;  // after `--`: a program built elsewhere and its arguments
};

// `record --backend gpu -- ./binary args`: a program built elsewhere, run on this GPU with
// the GPU tracer (lines where it was built with -lineinfo, SASS offsets otherwise).
int record_binary(const RecordOptions& o, const session::LaunchSpec& spec) {
  if (o.launch.backend != "gpu" && o.launch.backend != "auto")
    throw UsageError("a program after -- runs on the GPU: use --backend gpu (the emulated device needs --program FILE.cu)");
  program::Options po = spec.program;  // --timeout, --no-time, --flops, --bytes as parsed
  po.binary = o.command[0];
  po.args.assign(o.command.begin() + 1, o.command.end());
  po.backend = "gpu";
  if (!o.launch.blocks.empty() && o.launch.blocks != "all") po.blocks = o.launch.blocks;
  program::Result r;
  try {
    r = program::run(po);
  } catch (const program::Error& e) {
    throw std::runtime_error(e.what());
  }
  const trace::Trace t = o.launch_number ? trace::launch_trace(r.trace, uint32_t(o.launch_number - 1)) : r.trace;
  trace::write_trace(t, o.out);
  std::cout << "wrote " << o.out << ": " << t.launches.size() << (t.launches.size() == 1 ? " launch" : " launches") << " of "
            << po.binary << ", " << t.records.size() << " requests, " << t.provenance.device << "\n";
  return r.exit_code;
}

// A program's launches: every one in one trace, or launch K alone.
int record_program(const RecordOptions& o, session::LaunchSpec spec) {
  const session::ResolvedLaunch launch = session::resolve(spec);
  auto s = session::record_session(launch, spec);
  const size_t n = s->launches();
  if (o.launch_number > int64_t(n))
    throw UsageError("--launch " + std::to_string(o.launch_number) + " is out of range: the program made " + std::to_string(n));
  const trace::Trace t = o.launch_number ? trace::launch_trace(s->whole_trace(), uint32_t(o.launch_number - 1)) : s->whole_trace();
  trace::write_trace(t, o.out);
  std::cout << "wrote " << o.out << ": " << t.launches.size() << (t.launches.size() == 1 ? " launch" : " launches") << " of "
            << spec.program.source << " (";
  for (size_t i = 0; i < t.launches.size(); ++i) std::cout << (i ? ", " : "") << t.launches[i].kernel;
  std::cout << "), " << t.records.size() << " requests, " << t.provenance.device << "\n";
  return 0;
}

int run(const RecordOptions& o) {
  const session::LaunchSpec spec = cli::spec_of(o.launch);
  if (o.out.empty()) throw UsageError("record needs --out FILE");
  if (!o.command.empty()) return record_binary(o, spec);
  if (!spec.program.source.empty()) return record_program(o, spec);
  if (o.launch_number) throw UsageError("--launch K needs --program FILE.cu");
  const session::ResolvedLaunch launch = resolve_launch(spec, "record");
  session::Capture res = session::capture(launch);
  trace::write_trace(res.trace, o.out);
  const trace::Trace& t = res.trace;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f s", res.seconds);
  std::cout << "wrote " << o.out << ": " << t.launch().kernel << " " << session::params_text(t.launch().params) << ", "
            << t.launch().blocks.size() << " of " << t.launch().grid.count() << " blocks, " << t.records.size() << " requests";
  if (t.launch().dropped_records) std::cout << " (" << t.launch().dropped_records << " dropped past the record cap)";
  std::cout << ", " << t.provenance.backend << " (" << t.provenance.device << ") in " << secs << "; " << session::check_text(res)
            << "\n";
  if (!res.note.empty()) std::cout << "note: " << res.note << "\n";
  if (session::check_failed(res)) throw std::runtime_error(launch.kernel->id + ": " + session::check_text(res));
  return 0;
}

}  // namespace

Command add_record(CLI::App& app) {
  auto o = std::make_shared<RecordOptions>();
  CLI::App* cmd = app.add_subcommand("record", "run a launch and save its trace (.wstrace)");
  cli::add_launch_options(*cmd, o->launch, cli::kWithBlocks | cli::kWithBackend | cli::kWithProgram);
  cmd->add_option("--out", o->out, "the trace file to write")->type_name("FILE");
  cmd->add_option("--launch", o->launch_number, "with --program: only launch K (from 1)")
      ->type_name("K")
      ->check(CLI::PositiveNumber);
  cmd->add_option("command", o->command,
                  "after --: a program built elsewhere and its arguments, traced on this machine's GPU (--backend gpu)")
      ->type_name("-- PROGRAM ARGS");
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ws::cli
