#include "ui/settings.h"

#include <cmath>
#include <limits>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ws::ui {
namespace {

using json = nlohmann::json;
// Version 2: a section per panel ("launch", "window", "timeline", "memory", "dram"), each
// the fields() of its struct. Version 1 (still read) had the same names at the top level,
// with the DRAM view's as "dram_preset" and "dram_array" (-2 follow, -1 all, else a
// buffer id).
constexpr int kVersion = 2;

// A field to JSON and back. A missing or ill-typed value keeps the default.
template <class T>
void put(json& j, const char* key, const T& v) {
  j[key] = v;
}
void put(json& j, const char* key, StepUnit v) { j[key] = int(v); }
void put(json& j, const char* key, const session::DramChoice& c) {
  using K = session::DramChoice::Kind;
  if (c.kind == K::Array)
    j[key] = c.buffer;
  else
    j[key] = c.kind == K::All ? "all" : "follow";
}

// Whether `v` converts to T without leaving T's range: a floating-point number read into an
// integer (or a map of them) must fit, where the JSON library would convert it anyway.
template <class T>
bool fits(const json& v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (!v.is_number_float()) return true;
    // The conversion truncates: it is defined for (-1, 2^digits) unsigned, [-2^digits, 2^digits) signed.
    const double d = v.get<double>(), top = std::ldexp(1.0, std::numeric_limits<T>::digits);
    return (std::is_signed_v<T> ? d >= -top : d > -1.0) && d < top;
  } else if constexpr (requires { typename T::mapped_type; }) {
    if (!v.is_object()) return true;  // the library refuses it with a type error
    for (const auto& [k, e] : v.items())
      if (!fits<typename T::mapped_type>(e)) return false;
    return true;
  } else {
    return true;
  }
}

template <class T>
void get(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end()) return;
  if (!fits<T>(*it)) return;  // out of range: keep the default
  try {
    T v = it->get<T>();
    if constexpr (std::is_floating_point_v<T>)
      if (!std::isfinite(v)) return;
    out = v;
  } catch (const json::exception&) {
    // wrong type: keep the default
  }
}
void get(const json& j, const char* key, StepUnit& out) {
  int unit = int(out);
  get(j, key, unit);
  if (unit >= 0 && unit <= 2) out = StepUnit(unit);
}
void get(const json& j, const char* key, session::DramChoice& out) {
  auto it = j.find(key);
  if (it == j.end()) return;
  if (it->is_string()) {
    if (*it == "all") out = session::DramChoice::all();
    if (*it == "follow") out = session::DramChoice::follow();
  } else if (it->is_number_unsigned()) {
    out = session::DramChoice::array(uint32_t(std::min<uint64_t>(it->get<uint64_t>(), UINT32_MAX)));
  }
}

// Writes / reads one struct's fields() into / from object `j`.
template <class S>
json section(S&& fields) {
  json j = json::object();
  fields([&](const char* key, const auto& v) { put(j, key, v); });
  return j;
}
template <class S>
void read_section(const json& j, S&& fields) {
  if (!j.is_object()) return;
  fields([&](const char* key, auto& v) { get(j, key, v); });
}

float clamp_frac(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

// A version 1 file: every field at the top level, the DRAM view's under other names.
void read_v1(const json& j, UiState& d) {
  d.launch_fields([&](const char* key, auto& v) { get(j, key, v); });
  d.window_fields([&](const char* key, auto& v) { get(j, key, v); });
  read_section(j, [&](auto&& v) { d.timeline.fields(v); });
  read_section(j, [&](auto&& v) { d.memory.fields(v); });
  get(j, "dram_preset", d.dram.preset);
  int array = -2;
  get(j, "dram_array", array);
  // Files from before the DRAM view followed the request stored its old default, every
  // array (-1), as a choice: they get the new default, following.
  if (!j.contains("dram_follow") && array == -1) array = -2;
  d.dram.array = array >= 0 ? session::DramChoice::array(uint32_t(array))
                 : array == -1 ? session::DramChoice::all()
                               : session::DramChoice::follow();
}

}  // namespace

std::string settings_json(const UiState& st) {
  UiState s = st;  // fields() hands out references
  json j;
  j["version"] = kVersion;
  j["launch"] = section([&](auto&& v) { s.launch_fields(v); });
  j["window"] = section([&](auto&& v) { s.window_fields(v); });
  j["timeline"] = section([&](auto&& v) { s.timeline.fields(v); });
  j["memory"] = section([&](auto&& v) { s.memory.fields(v); });
  j["dram"] = section([&](auto&& v) { s.dram.fields(v); });
  j["source"] = section([&](auto&& v) { s.source.fields(v); });
  return j.dump(2) + "\n";
}

bool load_settings(const std::string& path, UiState& s, std::string& message) {
  message.clear();
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    message = "settings file " + path + " could not be read; using defaults";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_settings(ss.str(), path, s, message);
}

bool parse_settings(const std::string& text, const std::string& path, UiState& s, std::string& message) {
  message.clear();
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    message = "settings file " + path + " is corrupt and was ignored; using defaults";
    return false;
  }
  int version = 0;
  get(j, "version", version);
  if (version != 1 && version != kVersion) {
    message = "settings file " + path + " has version " + std::to_string(version) + " (expected 1 or " +
              std::to_string(kVersion) + ") and was ignored";
    return false;
  }
  UiState d = s;
  if (version == 1) {
    read_v1(j, d);
  } else {
    auto sec = [&](const char* name) -> const json& {
      static const json none = json::object();
      auto it = j.find(name);
      return it != j.end() ? *it : none;
    };
    read_section(sec("launch"), [&](auto&& v) { d.launch_fields(v); });
    read_section(sec("window"), [&](auto&& v) { d.window_fields(v); });
    read_section(sec("timeline"), [&](auto&& v) { d.timeline.fields(v); });
    read_section(sec("memory"), [&](auto&& v) { d.memory.fields(v); });
    read_section(sec("dram"), [&](auto&& v) { d.dram.fields(v); });
    read_section(sec("source"), [&](auto&& v) { d.source.fields(v); });
  }
  // Values from an older or hand-edited file are kept in a sane range.
  d.left_frac = clamp_frac(d.left_frac, 0.1f, 0.45f);
  d.right_frac = clamp_frac(d.right_frac, 0.1f, 0.5f);
  d.left_split = clamp_frac(d.left_split, 0.15f, 0.85f);
  d.center_split = clamp_frac(d.center_split, 0.15f, 0.85f);
  d.right_split = clamp_frac(d.right_split, 0.15f, 0.85f);
  d.timeline.speed = clamp_frac(d.timeline.speed, 0.25f, 10000.0f);
  d.font_scale = clamp_frac(d.font_scale, 0.75f, 3.0f);
  if (d.enlarged < -1 || d.enlarged >= int(Panel::Count)) d.enlarged = -1;
  if (d.max_records == 0) d.max_records = UiState{}.max_records;
  s = d;
  return true;
}

bool save_settings(const std::string& path, const UiState& s, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  fs::path tmp = p;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      error = "cannot write " + tmp.string();
      return false;
    }
    out << settings_json(s);
    if (!out) {
      error = "cannot write " + tmp.string();
      return false;
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    error = "cannot replace " + path + ": " + ec.message();
    return false;
  }
  return true;
}

}  // namespace ws::ui
