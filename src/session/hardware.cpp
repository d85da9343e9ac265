#include "session/hardware.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "program/program.h"
#include "session/bench.h"
#include "trace/assets.h"
#include "trace/wstrace.h"
#if defined(WS_HAVE_CUDA)
#include "gpu/gpu.h"
#endif

namespace ws::session {
namespace {

namespace fs = std::filesystem;

// The command-line warpscope: $WARPSCOPE_CLI, beside this binary (the app's), or this build's.
std::string warpscope_binary() {
  if (const char* e = std::getenv("WARPSCOPE_CLI"); e && *e) return e;
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

trace::Trace catalog_sass(const Launch& l) {
  if (l.source != Source::Catalog || !l.kernel) throw InputError("the SASS trace of a catalog kernel needs a catalog launch");
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

std::shared_ptr<const trace::Trace> replay_sass(const std::string& name,
                                                const std::function<bool(const trace::Trace&)>& fits) {
  const std::string f = trace::find_asset("replay/sass/" + name + ".wstrace");
  if (f.empty()) return nullptr;
  try {
    auto t = std::make_shared<trace::Trace>(trace::read_trace(f));
    return fits(*t) ? t : nullptr;
  } catch (const std::exception&) {
    return nullptr;  // an unreadable replay trace: the source panel shows the emulated side alone
  }
}

std::shared_ptr<const trace::Trace> replay_catalog_sass(const std::string& id, const std::map<std::string, int64_t>& params) {
  return replay_sass("catalog/" + id, [&](const trace::Trace& t) { return !t.launches.empty() && t.launches[0].params == params; });
}

void run_plain_once(const Launch& l) {
  if (l.source != Source::Catalog || !l.kernel) throw InputError("plain-launch needs a catalog kernel");
#if defined(WS_HAVE_CUDA)
  catalog::HostArrays arrays = catalog::make_arrays(*l.kernel, l.params, 3);
  try {
    gpu::run_plain(*l.kernel, l.params, arrays);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
#else
  throw std::runtime_error(bench_unavailable());
#endif
}

}  // namespace ws::session
