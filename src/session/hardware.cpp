// src/session/hardware.cpp — the replay pack's SASS traces, looked up by name and launch.
#include "session/hardware.h"

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

std::shared_ptr<const trace::Trace> replay_catalog_sass(const std::string& id, const std::map<std::string, int64_t>& params) {
  return replay_sass("catalog/" + id, [&](const trace::Trace& t) { return !t.launches.empty() && t.launches[0].params == params; });
}

}  // namespace ws::session
