// src/session/hardware.cpp — the replay pack's SASS traces, a catalog kernel's by its id and parameters,
// a program's by the hash of its sources and flags.
#include "session/hardware.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "catalog.h"
#include "trace/assets.h"
#include "trace/wstrace.h"

namespace ws::session {

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

std::shared_ptr<const trace::Trace> replay_program_sass(const std::string& hash,
                                                        const std::function<bool(const trace::Trace&)>& fits) {
  if (hash.empty()) return nullptr;
  const std::string index = trace::find_asset("replay/sass/programs.json");
  if (index.empty()) return nullptr;
  std::ifstream in(index, std::ios::binary);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("programs") || !j["programs"].is_array()) return nullptr;
  for (const auto& e : j["programs"]) {
    if (!e.is_object() || e.value("hash", "") != hash) continue;
    const std::string name = e.value("trace", "");
    if (name.size() > 8 && name.compare(name.size() - 8, 8, ".wstrace") == 0)
      if (auto t = replay_sass(name.substr(0, name.size() - 8), fits)) return t;
  }
  return nullptr;
}

bool same_source_lines(const trace::Trace& t) {
  auto same = [&](const std::vector<trace::Site>& sites) {
    for (const trace::Site& s : sites) {
      if (s.file >= t.files.size()) return false;
      const trace::SourceFile& f = t.files[s.file];
      const std::string& now = catalog::source(f.name.substr(f.name.find_last_of('/') + 1));
      if (now.empty() || trace::line_text(now, s.line) != trace::line_text(f.text, s.line)) return false;
    }
    return true;
  };
  return same(t.sites) && same(t.event_sites);
}

std::shared_ptr<const trace::Trace> replay_catalog_sass(const std::string& id, const std::map<std::string, int64_t>& params) {
  return replay_sass("catalog/" + id, [&](const trace::Trace& t) {
    return !t.launches.empty() && t.launches[0].params == params && same_source_lines(t);
  });
}

}  // namespace ws::session
