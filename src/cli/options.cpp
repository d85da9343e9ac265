// Options and helpers shared by the commands.
#include "cli/cli.h"

namespace ws::cli {

Format parse_format(const std::string& s) {
  if (s == "text") return Format::Text;
  if (s == "json") return Format::Json;
  throw UsageError("unknown format '" + s + "': allowed text, json");
}

analysis::DramModel dram_from_sets(const std::vector<std::string>& set) {
  session::LaunchSpec spec;
  for (const auto& s : set) {
    if (s.rfind("dram=", 0) != 0)
      throw UsageError("--set " + s.substr(0, s.find('=')) + " does not apply to a saved trace: only dram=" +
                       session::dram_presets_text("|") + " does");
    session::apply_setting(spec, s);
  }
  return session::dram_model(spec.dram);
}

session::Launch resolve_launch(const session::LaunchSpec& spec, const std::string& what) {
  if (spec.kernel.empty() && spec.program.empty())
    throw UsageError(what + " needs --kernel ID (kernels: " + catalog::ids() + ") or --program FILE.cu");
  return session::resolve(spec);
}

}  // namespace ws::cli
