// Options and helpers shared by the commands.
#include "cli/cli.h"

#include <iostream>

#include "analysis/levels.h"

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

session::ResolvedLaunch resolve_launch(const session::LaunchSpec& spec, const std::string& what) {
  if (spec.kernel.empty() && spec.program.source.empty())
    throw UsageError(what + " needs --kernel ID (kernels: " + catalog::ids() + ") or --program FILE.cu");
  return session::resolve(spec);
}

void print_levels(const trace::Trace& ptx, const trace::Trace& sass, const std::string& sass_from) {
  // A program's trace names its PTX instructions; a catalog kernel's is the source's own.
  const bool named = analysis::names_instructions(ptx);
  std::cout << "\n" << (named ? "source / PTX / SASS, per line (PTX" : "source / SASS, per line (source")
            << ": the emulated device; SASS: " << sass.provenance.device
            << (sass.provenance.date.empty() ? "" : ", " + sass.provenance.date.substr(0, 10)) << ", " << sass_from
            << "), warp instructions per block:\n";
  for (uint32_t k = 0; k < ptx.launches.size() && k < sass.launches.size(); ++k) {
    std::cout << "\nlaunch " << (k + 1) << ": " << ptx.launches[k].kernel;
    if (sass.launches[k].kernel.substr(0, sass.launches[k].kernel.find('<')) !=
        ptx.launches[k].kernel.substr(0, ptx.launches[k].kernel.find('<')))
      std::cout << " (SASS: " << sass.launches[k].kernel << ", another kernel: the traces are of different runs)";
    std::cout << "\n";
    for (const analysis::LineLevels& l : analysis::compare_levels(ptx, k, sass, k)) {
      std::cout << "  " << l.file << ":" << l.line << "  " << trace::to_string(l.space) << " " << trace::to_string(l.op)
                << "   " << l.code << "\n";
      std::cout << "      " << (named ? "PTX    " : "source ") << analysis::level_ops_text(l.ptx, "—") << "\n";
      std::cout << "      SASS   " << analysis::level_ops_text(l.sass, "—") << "\n";
      std::cout << "      " << (l.verdict.empty() ? "the same instructions" : l.verdict) << "\n";
    }
  }
}

}  // namespace ws::cli
