#include "session/launch.h"

#include <algorithm>
#include <charconv>

namespace ws::session {

namespace {

std::string presets_text(const char* sep = ", ") {
  std::string s;
  for (const auto& p : analysis::dram_presets()) s += (s.empty() ? "" : sep) + p;
  return s;
}

}  // namespace

bool parse_whole(std::string_view s, int64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || p != s.data() + s.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    v = s[0] == '-' ? INT64_MIN : INT64_MAX;
    return true;
  }
  return ec == std::errc();
}

void apply_setting(LaunchSpec& spec, const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError("bad setting '" + text + "': expected name=value, e.g. pad=1");
  const std::string name = text.substr(0, eq), value = text.substr(eq + 1);
  if (name == "dram") {
    dram_model(value);  // refuses unknown presets now, where the user typed them
    spec.dram = value;
    return;
  }
  int64_t v = 0;
  if (!parse_whole(value, v)) throw InputError("bad setting '" + text + "': " + name + " takes a whole number");
  if (name == "size")
    spec.size = v;
  else
    spec.params[name] = v;
}

analysis::DramModel dram_model(const std::string& preset) {
  analysis::DramModel d;
  if (!analysis::dram_preset(preset, d))
    throw InputError("unknown DRAM preset '" + preset + "': allowed " + presets_text());
  return d;
}

std::string dram_presets_text(const char* sep) { return presets_text(sep); }

ResolvedLaunch resolve(const LaunchSpec& spec) {
  ResolvedLaunch l;
  if (spec.origin() == Origin::Program) {
    if (!spec.kernel.empty() || !spec.trace.empty())
      throw InputError("a launch comes from one source: a kernel, a trace file or a program ('" + spec.program.source + "')");
    l.origin = Origin::Program;
    l.program = spec.program;
    l.nearest_launch = spec.nearest_launch;
    l.program.max_records = spec.max_records;
    l.program.backend = spec.backend;
    if (const std::string e = program::options_error(l.program); !e.empty()) throw InputError(e);
    // The GPU tracer records one range of blocks: "5" or "0-3".
    if (!spec.blocks.empty() && spec.blocks != "all") {
      if (spec.blocks.find_first_not_of("0123456789-") != std::string::npos)
        throw InputError("--blocks with a program takes one range, as 0-3 ('" + spec.blocks + "')");
      l.program.blocks = spec.blocks;
    }
    l.max_records = spec.max_records;
    l.launch = spec.launch;
    l.dram = dram_model(spec.dram);
    return l;
  }
  if (spec.origin() == Origin::TraceFile) {
    if (!spec.kernel.empty())
      throw InputError("a launch comes from a kernel or from a trace file, not both ('" + spec.kernel + "' and " +
                       spec.trace + ")");
    l.origin = Origin::TraceFile;
    l.trace = spec.trace;
    l.launch = spec.launch;
    l.dram = dram_model(spec.dram);
    return l;
  }
  if (spec.kernel.empty()) throw InputError("no kernel given: allowed " + catalog::ids());
  l.kernel = catalog::find(spec.kernel);
  if (!l.kernel) throw InputError("unknown kernel '" + spec.kernel + "': allowed " + catalog::ids());
  const catalog::KernelInfo& k = *l.kernel;
  // The catalog reads size 0 as "the teaching size"; typed by the user, 0 is out of range.
  if (spec.size && *spec.size == 0) throw InputError(catalog::check_size(k, 0));
  if (std::string e = catalog::resolve(k, spec.size.value_or(k.teach_size), spec.params, l.params); !e.empty())
    throw InputError(e);
  if (spec.backend != "auto" && spec.backend != "gpu" && spec.backend != "emulator")
    throw InputError("unknown backend '" + spec.backend + "': allowed auto, gpu, emulator");
  l.backend = spec.backend;
  l.dram = dram_model(spec.dram);
  l.max_records = spec.max_records;
  l.counts = spec.counts;
  if (!spec.blocks.empty() && spec.blocks != "all") {
    l.blocks = parse_blocks(spec.blocks);
  } else if (spec.blocks.empty() && spec.block_default == BlockDefault::FewWhenLarge) {
    const double work = std::max(k.bytes ? k.bytes(l.params) / 4 : 0.0, k.flops ? k.flops(l.params) : 0.0);
    // (A grid of no more blocks than that, a persistent one, is recorded whole.)
    if (work > kFewBlocksWork && catalog::launch_blocks(k, l.params) > kFewBlocks) {
      for (uint32_t b = 0; b < kFewBlocks; ++b) l.blocks.push_back(b);
      l.few_blocks = true;
      l.note = "large launch: recording blocks 0-" + std::to_string(kFewBlocks - 1) +
               " only (type 'all' under blocks for every block)";
    }
  }
  return l;
}

std::vector<uint32_t> parse_blocks(const std::string& text) {
  constexpr size_t kMaxBlocks = size_t(1) << 24;
  const std::string usage = "expected block ids and ranges such as 0,1,5-7";
  auto number = [&](std::string_view s) -> uint32_t {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size())
      throw InputError("bad block list '" + text + "': " + usage);
    if (v >= UINT32_MAX) throw InputError("bad block list '" + text + "': block " + std::string(s) + " is too large");
    return uint32_t(v);
  };
  std::vector<uint32_t> out;
  std::string_view rest = text;
  if (text.find_first_not_of(" ,") == std::string::npos) throw InputError("empty block list: " + usage);
  while (true) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      out.push_back(number(item));
    } else {
      uint32_t a = number(item.substr(0, dash)), b = number(item.substr(dash + 1));
      if (b < a) throw InputError("bad block list '" + text + "': range " + std::string(item) + " runs backwards");
      if (uint64_t(b - a) + 1 + out.size() > kMaxBlocks)
        throw InputError("block list '" + text + "' names too many blocks");
      for (uint64_t v = a; v <= b; ++v) out.push_back(uint32_t(v));
    }
    if (out.size() > kMaxBlocks) throw InputError("block list '" + text + "' names too many blocks");
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

LaunchSpec parse_compact(const std::string& text) {
  LaunchSpec spec;
  const size_t colon = text.find(':');
  spec.kernel = text.substr(0, colon);
  if (spec.kernel.empty()) throw InputError("expected ID[:name=value,...], got '" + text + "'");
  if (colon == std::string::npos) return spec;
  const std::string rest = text.substr(colon + 1);
  size_t pos = 0;
  while (pos <= rest.size()) {
    const size_t comma = rest.find(',', pos);
    const std::string kv = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!kv.empty()) apply_setting(spec, kv);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return spec;
}

bool runs_as(const LaunchSpec& spec, const std::string& kernel, const std::map<std::string, int64_t>& params) {
  if (spec.kernel != kernel) return false;
  try {
    return resolve(spec).params.values == params;
  } catch (const InputError&) {
    std::map<std::string, int64_t> given = spec.params;
    if (spec.size) given["size"] = *spec.size;
    return given == params;
  }
}

std::string params_text(const std::map<std::string, int64_t>& params) {
  std::string s;
  if (auto it = params.find("size"); it != params.end()) s = "size=" + std::to_string(it->second);
  for (const auto& [k, v] : params)
    if (k != "size") s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

}  // namespace ws::session
