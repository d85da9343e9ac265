// `warpscope sass --kernel K`: a catalog kernel as the GPU executed it. Its plain
// instantiation runs once in a child warpscope (`plain-launch`, hidden) under the GPU tracer;
// the SASS trace is set beside the emulated device's trace of the same blocks, line by line.
// Without a GPU the replay pack's trace of the kernel (same parameters) stands in.
#include <iostream>
#include <memory>
#include <string>

#include "cli/cli.h"
#include "program/program.h"
#include "cli/catalog_sass.h"
#include "session/bench.h"
#include "session/capture.h"
#include "session/hardware.h"
#include "trace/wstrace.h"

namespace ws::cli {
namespace {

struct SassOptions {
  cli::LaunchFlags launch;
  std::string out;
};

int run_sass(const SassOptions& o) {
  session::LaunchSpec spec = cli::spec_of(o.launch);
  if (spec.kernel.empty()) throw UsageError("sass needs --kernel ID (kernels: " + catalog::ids() + ")");
  spec.backend = "emulator";
  const session::ResolvedLaunch launch = resolve_launch(spec, "sass");
  std::string device, arch, why;
  trace::Trace sass;
  std::string from;
  if (!program::tracer_dir().empty() && program::gpu_here(device, arch, why)) {
    std::cerr << "warpscope: tracing " << launch.kernel->id << " on " << device << "\n";
    sass = catalog_sass(launch);
    from = "this GPU";
  } else if (auto r = session::replay_catalog_sass(launch.kernel->id, launch.params.values)) {
    sass = *r;
    from = "the replay pack";
  } else {
    if (why.empty()) why = "the GPU tracer was not built here";
    throw std::runtime_error(why + ", and the replay pack has no SASS trace of " + launch.kernel->id +
                             " with these parameters (it has the teaching size's defaults)");
  }
  if (!o.out.empty()) {
    trace::write_trace(sass, o.out);
    std::cerr << "warpscope: wrote the SASS trace to " << o.out << "\n";
  }
  // The emulated device's trace of the blocks the GPU's holds.
  std::string blocks;
  if (!sass.launches.empty())
    for (uint32_t b : sass.launches[0].blocks) blocks += (blocks.empty() ? "" : ",") + std::to_string(b);
  session::LaunchSpec e = spec;
  e.blocks = blocks.empty() ? "all" : blocks;
  const session::Capture c = session::capture(session::resolve(e));
  print_levels(c.trace, sass, from);
  return 0;
}

}  // namespace

Command add_sass(CLI::App& app) {
  auto o = std::make_shared<SassOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sass", "a catalog kernel as the GPU executed it (SASS), line by line beside the source (a GPU, or the replay pack)");
  cli::add_launch_options(*cmd, o->launch, cli::kWithBlocks);
  cmd->add_option("--out", o->out, "also save the SASS trace (.wstrace)")->type_name("FILE");
  cmd->footer(
      "Example: warpscope sass --kernel matmul_tiled   (matmul.h:128, the inner product: 512 LDS + 128 LDS.128 a block\n"
      "where the source reads 1024 floats one by one)");
  return {cmd, [o] { return run_sass(*o); }};
}

Command add_plain_launch(CLI::App& app) {
  auto a = std::make_shared<cli::LaunchFlags>();
  CLI::App* cmd = app.add_subcommand("plain-launch", "run a catalog kernel's plain instantiation once on the GPU");
  cmd->group("");  // warpscope's own child (sass), not the user's
  cli::add_launch_options(*cmd, *a, 0);
  return {cmd, [a] {
            session::run_plain_once(session::resolve(cli::spec_of(*a)));
            return 0;
          }};
}

}  // namespace ws::cli
