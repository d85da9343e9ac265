// Options and helpers shared by the commands.
#include <charconv>
#include <cstdint>
#include <cstdio>

#include "cli/cli.h"

namespace ws::cli {

Format parse_format(const std::string& s) {
  if (s == "text") return Format::Text;
  if (s == "json") return Format::Json;
  throw UsageError("unknown format '" + s + "': allowed text, json");
}

void add_launch_options(CLI::App& cmd, LaunchOptions& o, bool with_dram) {
  cmd.add_option("--kernel", o.kernel, "kernel id (see `warpscope list`)")->type_name("ID");
  o.size_opt = cmd.add_option("--size", o.size, "problem size: N×N matrices, N elements for copies")->type_name("N");
  cmd.add_option("--set", o.set,
                 with_dram ? "set a kernel parameter, or the report's DRAM model with dram=textbook|hbm; repeatable"
                           : "set a kernel parameter (see `warpscope list`); repeatable")
      ->type_name("NAME=VALUE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  o.blocks_opt = cmd.add_option("--blocks", o.blocks, "blocks to record, e.g. 0,1,5-7 (default: every block)")
      ->type_name("LIST");
  cmd.add_option("--backend", o.backend, "where the kernel runs: auto|gpu|emulator (default auto)")
      ->type_name("BACKEND");
}

namespace {

// A whole number; one too large for int64 saturates, so range checks still name it.
bool parse_int(std::string_view s, int64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || p != s.data() + s.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    v = s[0] == '-' ? INT64_MIN : INT64_MAX;
    return true;
  }
  return ec == std::errc();
}

std::string presets_text(const char* sep = ", ") {
  std::string s;
  for (const auto& p : analysis::dram_presets()) s += (s.empty() ? "" : sep) + p;
  return s;
}

// Splits "name=value"; throws UsageError for anything else.
std::pair<std::string, std::string> split_set(const std::string& s) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw UsageError("bad --set '" + s + "': expected name=value, e.g. --set pad=1");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

}  // namespace

analysis::DramModel dram_from_sets(const std::vector<std::string>& set, bool only_dram) {
  analysis::DramModel dram;
  if (!analysis::dram_preset("textbook", dram)) dram = analysis::DramModel{};
  for (const auto& s : set) {
    auto [name, value] = split_set(s);
    if (name != "dram") {
      if (only_dram)
        throw UsageError("--set " + name + " does not apply to a saved trace: only dram=" + presets_text("|") +
                         " does");
      continue;
    }
    if (!analysis::dram_preset(value, dram))
      throw UsageError("unknown DRAM preset '" + value + "': allowed " + presets_text());
  }
  return dram;
}

capture::Request make_request(const LaunchOptions& o, analysis::DramModel& dram) {
  capture::Request req;
  if (o.kernel.empty()) throw UsageError("--kernel is required: allowed " + catalog::ids());
  const catalog::KernelInfo* k = catalog::find(o.kernel);
  if (!k) throw UsageError("unknown kernel '" + o.kernel + "': allowed " + catalog::ids());
  req.kernel = o.kernel;
  if (o.size_opt && o.size_opt->count()) {
    if (!parse_int(o.size, req.size)) throw UsageError("bad size '" + o.size + "': expected a whole number");
    if (req.size <= 0 || req.size > k->size_max)  // 0 would mean "the teaching size" to the capture
      throw UsageError("size " + o.size + " is out of range for " + k->id + ": allowed " +
                       std::to_string(k->size_min) + ".." + std::to_string(k->size_max));
  }
  dram = dram_from_sets(o.set, false);
  for (const auto& s : o.set) {
    auto [name, value] = split_set(s);
    if (name == "dram") continue;
    int64_t v = 0;
    if (!parse_int(value, v))
      throw UsageError("bad --set '" + s + "': " + name + " takes a whole number");
    req.set[name] = v;
  }
  if (o.blocks_opt && o.blocks_opt->count()) req.blocks = capture::parse_blocks(o.blocks);
  req.backend = o.backend;
  return req;
}

std::string check_text(const capture::Result& r) {
  if (!r.checked)
    return "output not checked: only " + std::to_string(r.trace.blocks.size()) + " of " +
           std::to_string(r.trace.launch.grid.count()) + " blocks ran";
  if (!check_failed(r)) return "output matches CPU reference";
  char e[32];
  std::snprintf(e, sizeof e, "%.3g", r.max_rel_error);
  return std::string("output DIFFERS from CPU reference (max relative error ") + e + ")";
}

bool check_failed(const capture::Result& r) { return r.checked && !(r.max_rel_error <= kMatchTolerance); }

std::string params_text(const std::map<std::string, int64_t>& params) {
  std::string s;
  if (auto it = params.find("size"); it != params.end()) s = "size=" + std::to_string(it->second);
  for (const auto& [k, v] : params)
    if (k != "size") s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

}  // namespace ws::cli
