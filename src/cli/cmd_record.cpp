// `warpscope record`: runs a launch and saves its trace to a .wstrace file.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/cli.h"
#include "trace/wstrace.h"

namespace ws::cli {
namespace {

struct RecordOptions {
  cli::LaunchArgs launch;
  std::string out;
};

int run(const RecordOptions& o) {
  const session::LaunchSpec spec = cli::spec_of(o.launch);
  const session::Launch launch = resolve_launch(spec, "record");
  if (o.out.empty()) throw UsageError("record needs --out FILE");
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
  cli::add_launch_options(*cmd, o->launch, cli::kWithBlocks | cli::kWithBackend);
  cmd->add_option("--out", o->out, "the trace file to write")->type_name("FILE");
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ws::cli
