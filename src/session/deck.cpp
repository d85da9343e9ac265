#include "session/deck.h"

#include "session/session.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ws::session {

using json = nlohmann::json;

namespace {

constexpr const char* kFormat = "warpscope deck";

std::string slide_prefix(size_t index) { return "slide " + std::to_string(index + 1) + ": "; }

// A whole number of a JSON value, or an error naming `what`.
int64_t whole(const json& v, const std::string& what) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d == double(int64_t(d))) return int64_t(d);
  }
  throw InputError(what + " must be a whole number, not " + v.dump());
}

Slide slide_from_json(const json& j, size_t index, int64_t version) {
  const std::string at = slide_prefix(index);
  if (!j.is_object()) throw InputError(at + "expected an object {\"kernel\": ..., \"step\": ...}");
  Slide s;
  auto kernel = j.find("kernel");
  if (kernel == j.end() || !kernel->is_string()) throw InputError(at + "no \"kernel\": name a catalog id, e.g. \"transpose_tiled\"");
  s.kernel = kernel->get<std::string>();
  if (auto p = j.find("params"); p != j.end()) {
    if (!p->is_object()) throw InputError(at + "\"params\" must be an object such as {\"pad\": 1}");
    for (const auto& [k, v] : p->items()) {
      const int64_t x = whole(v, at + "parameter " + k);
      if (k == "size")
        s.size = x;
      else
        s.params[k] = x;
    }
  }
  auto step = j.find("step");
  if (step == j.end()) throw InputError(at + "no \"step\": give the request number, from 1 as --step counts");
  const int64_t st = whole(*step, at + "\"step\"");
  // Version 1 files counted records from 0; from version 2 "step" is the request number.
  const int64_t lowest = version < 2 ? 0 : 1;
  if (st < lowest)
    throw InputError(at + "\"step\" must be " + std::to_string(lowest) + " or more, not " + std::to_string(st));
  s.step = uint64_t(st - lowest);
  if (auto v = j.find("view"); v != j.end()) {
    if (!v->is_string()) throw InputError(at + "\"view\" must be one of " + slide_views_text());
    s.view = v->get<std::string>();
  }
  if (auto c = j.find("caption"); c != j.end()) {
    if (!c->is_string()) throw InputError(at + "\"caption\" must be text");
    s.caption = c->get<std::string>();
  }
  return s;
}

}  // namespace

const std::vector<std::string>& slide_views() {
  static const std::vector<std::string> views = {"memory", "warp", "banks", "dram", "source"};
  return views;
}

std::string slide_views_text() {
  std::string s;
  for (const auto& v : slide_views()) s += (s.empty() ? "" : ", ") + v;
  return s;
}

LaunchSpec Slide::spec() const {
  LaunchSpec spec;
  spec.kernel = kernel;
  spec.size = size;
  spec.params = params;
  return spec;
}

std::string Slide::variant_text() const {
  std::map<std::string, int64_t> all = params;
  if (size) all["size"] = *size;
  const std::string p = params_text(all);
  return p.empty() ? kernel : kernel + " " + p;
}

Slide slide_of(const std::string& kernel, const std::map<std::string, int64_t>& params, uint64_t step,
               const std::string& view, const std::string& caption) {
  Slide s;
  s.kernel = kernel;
  for (const auto& [k, v] : params)
    if (k == "size")
      s.size = v;
    else
      s.params[k] = v;
  s.step = step;
  s.view = view;
  s.caption = caption;
  return s;
}

std::optional<std::map<std::string, int64_t>> resolved_params(const Slide& s) {
  try {
    return resolve(s.spec()).params.values;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

bool same_variant(const Slide& s, const std::string& kernel, const std::map<std::string, int64_t>& params) {
  return runs_as(s.spec(), kernel, params);
}

void check_slide(const Slide& s, size_t index) {
  const std::string at = slide_prefix(index);
  try {
    resolve(s.spec());
  } catch (const InputError& e) {
    throw InputError(at + e.what());
  }
  const auto& views = slide_views();
  if (std::find(views.begin(), views.end(), s.view) == views.end())
    throw InputError(at + "unknown view '" + s.view + "': allowed " + slide_views_text());
}

std::string deck_json(const Deck& d) {
  json j;
  j["format"] = kFormat;
  j["version"] = kDeckVersion;
  j["title"] = d.title;
  j["slides"] = json::array();
  for (const Slide& s : d.slides) {
    json p = json::object();
    if (s.size) p["size"] = *s.size;
    for (const auto& [k, v] : s.params) p[k] = v;
    j["slides"].push_back({{"kernel", s.kernel}, {"params", p}, {"step", request_number(s.step)}, {"view", s.view}, {"caption", s.caption}});
  }
  return j.dump(2) + "\n";
}

Deck parse_deck(const std::string& text, const std::string& name) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    std::string what = e.what();
    // nlohmann's messages start with "[json.exception.parse_error.101] ": the rest is for people.
    if (auto close = what.find("] "); close != std::string::npos) what = what.substr(close + 2);
    throw InputError(name + " is not a warpscope deck (bad JSON: " + what + ")");
  }
  if (!j.is_object() || !j.contains("version") || !j.contains("slides"))
    throw InputError(name + " is not a warpscope deck: expected {\"version\": " + std::to_string(kDeckVersion) +
                     ", \"slides\": [...]}");
  if (!j["version"].is_number_integer())
    throw InputError(name + ": \"version\" must be a whole number (this warpscope reads " +
                     std::to_string(kDeckVersion) + ")");
  const int64_t version = j["version"].get<int64_t>();
  if (version > kDeckVersion)
    throw InputError(name + " is deck version " + std::to_string(version) + ", newer than this warpscope reads (" +
                     std::to_string(kDeckVersion) + "): update warpscope");
  if (version < 1) throw InputError(name + ": unknown deck version " + std::to_string(version));
  Deck d;
  if (auto t = j.find("title"); t != j.end() && t->is_string()) d.title = t->get<std::string>();
  if (!j["slides"].is_array()) throw InputError(name + ": \"slides\" must be a list");
  size_t i = 0;
  try {
    for (const json& s : j["slides"]) {
      d.slides.push_back(slide_from_json(s, i, version));
      check_slide(d.slides.back(), i);
      ++i;
    }
  } catch (const InputError& e) {
    throw InputError(name + ": " + e.what());
  }
  return d;
}

Deck load_deck(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError("cannot open deck " + path);
  std::stringstream s;
  s << f.rdbuf();
  return parse_deck(s.str(), path);
}

void save_deck(const Deck& d, const std::string& path) {
  // Written beside and renamed, so a failed save leaves the old deck whole.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << deck_json(d);
    f.close();
    if (!f) {
      std::remove(tmp.c_str());
      throw InputError("cannot write deck " + path);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw InputError("cannot write deck " + path);
  }
}

}  // namespace ws::session
