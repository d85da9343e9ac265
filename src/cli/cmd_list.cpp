// `warpscope list`: the catalog — kernels by family, their parameters, allowed values and
// defaults.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli.h"

namespace ws::cli {
namespace {

std::vector<std::string> families() {
  std::vector<std::string> f;
  for (const auto& k : catalog::all())
    if (std::find(f.begin(), f.end(), k.family) == f.end()) f.push_back(k.family);
  return f;
}

std::string allowed(const catalog::ParamSpec& p) {
  if (p.allowed.empty()) return std::to_string(p.min) + ".." + std::to_string(p.max);
  std::string s;
  for (int64_t v : p.allowed) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return s;
}

std::string pad(std::string s, size_t n) {
  // Column widths count characters, not UTF-8 bytes.
  size_t chars = 0;
  for (unsigned char c : s) chars += (c & 0xC0) != 0x80;
  if (chars < n) s.append(n - chars, ' ');
  return s;
}

void print_text() {
  size_t id_width = 0;
  for (const auto& k : catalog::all()) id_width = std::max(id_width, k.id.size());
  for (const auto& fam : families()) {
    std::cout << fam << "\n";
    for (const auto& k : catalog::all()) {
      if (k.family != fam) continue;
      std::cout << "  " << pad(k.id, id_width + 2) << k.title << "\n";
      const std::string indent(4, ' ');
      // The first column as wide as the kernel's longest "--set NAME=V" and a space.
      size_t w = 16;
      for (const auto& p : k.params) w = std::max(w, p.name.size() + 9);
      std::cout << indent << pad("--size N", w) << "default " << k.teach_size << "  (allowed "
                << k.size_min << ".." << k.size_max << ")\n";
      for (const auto& p : k.params)
        std::cout << indent << pad("--set " + p.name + "=V", w) << "default " << p.def << "  (allowed "
                  << allowed(p) << ")  " << p.help << "\n";
      for (const auto& s : k.sources) {
        std::cout << indent << pad("as taught", w) << s.text << "\n";
        if (!s.setting.empty() || !s.sizes.empty())
          std::cout << indent << pad("", w) << (s.setting.empty() ? "" : "with " + s.setting)
                    << (s.setting.empty() || s.sizes.empty() ? "" : ", ") << (s.sizes.empty() ? "" : "sizes: " + s.sizes)
                    << "\n";
        if (!s.claim.empty()) std::cout << indent << pad("", w) << "the source says: " << s.claim << "\n";
      }
    }
    std::cout << "\n";
  }
  std::string presets;
  for (const auto& p : analysis::dram_presets()) presets += (presets.empty() ? "" : "|") + p;
  std::cout << "every kernel also takes --set dram=" << presets << " (the DRAM model of the report; default textbook)\n";
}

void print_json() {
  using json = nlohmann::ordered_json;
  json out;
  out["kernels"] = json::array();
  for (const auto& fam : families()) {
    for (const auto& k : catalog::all()) {
      if (k.family != fam) continue;
      json j;
      j["id"] = k.id;
      j["family"] = k.family;
      j["title"] = k.title;
      j["lesson"] = k.lesson;
      j["source_file"] = k.source_file;
      j["size"] = {{"default", k.teach_size}, {"min", k.size_min}, {"max", k.size_max}, {"bench", k.bench_size}};
      j["params"] = json::array();
      for (const auto& p : k.params) {
        json q;
        q["name"] = p.name;
        q["default"] = p.def;
        if (p.allowed.empty()) {
          q["min"] = p.min;
          q["max"] = p.max;
        } else {
          q["allowed"] = p.allowed;
        }
        q["help"] = p.help;
        j["params"].push_back(q);
      }
      j["sources"] = json::array();
      for (const auto& s : k.sources)
        j["sources"].push_back({{"text", s.text}, {"setting", s.setting}, {"sizes", s.sizes}, {"claim", s.claim},
                                 {"label", s.label}});
      out["kernels"].push_back(j);
    }
  }
  out["dram_presets"] = analysis::dram_presets();
  std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace

Command add_list(CLI::App& app) {
  auto format = std::make_shared<std::string>("text");
  CLI::App* cmd = app.add_subcommand("list", "the kernels, their parameters and defaults");
  cmd->add_option("--format", *format, "text|json (default text)")->type_name("FORMAT");
  return {cmd, [format] {
            if (parse_format(*format) == Format::Json)
              print_json();
            else
              print_text();
            return 0;
          }};
}

}  // namespace ws::cli
