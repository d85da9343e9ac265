// `warpscope record`: runs a launch and saves its trace to a .wstrace file.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/cli.h"
#include "trace/wstrace.h"

namespace ws::cli {
namespace {

struct RecordOptions {
  LaunchOptions launch;
  std::string out;
};

int run(const RecordOptions& o) {
  for (const auto& s : o.launch.set)
    if (s.rfind("dram=", 0) == 0)
      throw UsageError("--set dram=... picks the DRAM model of a report; a trace stores none (use it with report --trace)");
  if (o.launch.kernel.empty()) throw UsageError("record needs --kernel ID (kernels: " + catalog::ids() + ")");
  if (o.out.empty()) throw UsageError("record needs --out FILE");
  analysis::DramModel unused;
  capture::Request req = make_request(o.launch, unused);
  capture::Result res = capture::record(req);
  trace::write_trace(res.trace, o.out);
  const trace::Trace& t = res.trace;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f s", res.seconds);
  std::cout << "wrote " << o.out << ": " << t.launch.kernel << " " << params_text(t.launch.params) << ", "
            << t.blocks.size() << " of " << t.launch.grid.count() << " blocks, " << t.records.size() << " requests";
  if (t.dropped_records) std::cout << " (" << t.dropped_records << " dropped past the record cap)";
  std::cout << ", " << t.launch.backend << " (" << t.launch.device << ") in " << secs << "; " << check_text(res)
            << "\n";
  if (!res.note.empty()) std::cout << "note: " << res.note << "\n";
  if (check_failed(res)) {
    std::cout.flush();
    std::cerr << "warpscope: error: " << req.kernel << ": " << check_text(res) << std::endl;
    return kExitFailure;
  }
  return 0;
}

}  // namespace

Command add_record(CLI::App& app) {
  auto o = std::make_shared<RecordOptions>();
  CLI::App* cmd = app.add_subcommand("record", "run a launch and save its trace (.wstrace)");
  add_launch_options(*cmd, o->launch, false);
  cmd->add_option("--out", o->out, "the trace file to write")->type_name("FILE");
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ws::cli
