// src/cli/catalog_sass.cpp — a catalog kernel's SASS trace, from warpscope's own plain-launch child.
#include "cli/catalog_sass.h"

#include <cstdlib>
#include <filesystem>
#include <string>

#include "env/environment.h"
#include "program/program.h"

namespace ws::cli {
namespace {

namespace fs = std::filesystem;

// The command-line warpscope: $WARPSCOPE_CLI, beside this binary (the app's), or this build's.
std::string warpscope_binary() {
  if (env::is_set(env::Var::cli)) return env::get_string(env::Var::cli);
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && self.filename() == "warpscope") return self.string();
  if (!ec && fs::exists(self.parent_path() / "warpscope")) return (self.parent_path() / "warpscope").string();
#if defined(WS_CLI_PATH)
  if (fs::exists(WS_CLI_PATH)) return WS_CLI_PATH;
#endif
  return "warpscope";
}

}  // namespace

trace::Trace catalog_sass(const session::ResolvedLaunch& l) {
  if (l.origin != session::Origin::Catalog || !l.kernel)
    throw session::InputError("the SASS trace of a catalog kernel needs a catalog launch");
  program::Options o;
  o.backend = "gpu";
  o.binary = warpscope_binary();
  o.args = {"plain-launch", "--kernel", l.kernel->id, "--size", std::to_string(l.params.size())};
  for (const auto& [k, v] : l.params.values)
    if (k != "size") o.args.insert(o.args.end(), {"--set", k + "=" + std::to_string(v)});
  o.echo = false;
  o.time = false;
  o.max_records = l.max_records ? l.max_records : 2'000'000;
  if (!l.blocks.empty()) o.blocks = std::to_string(l.blocks.front()) + "-" + std::to_string(l.blocks.back());
  for (const catalog::BufferSpec& b : l.kernel->buffers(l.params)) o.allocation_names.push_back(b.name);
  // The kernel's lines are kernels/*.h's; warpscope's launch wrappers and contexts
  // (src/gpu/*.cuh) inline around them.
  o.see_through = {"/src/gpu/"};
  program::Result r;
  try {
    r = program::run(o);
  } catch (const program::Error& e) {
    throw std::runtime_error(e.what());
  }
  if (r.exit_code != 0)
    throw std::runtime_error("the plain run of " + l.kernel->id + " failed (exit code " + std::to_string(r.exit_code) +
                             "): " + r.output.substr(0, r.output.find('\n')));
  for (trace::Launch& launch : r.trace.launches) {
    launch.kernel = l.kernel->id;
    launch.params = l.params.values;
  }
  for (trace::Buffer& b : r.trace.buffers)
    if (b.name.find("::shared") != std::string::npos) b.name = l.kernel->id + "::shared";
  return std::move(r.trace);
}

}  // namespace ws::cli
