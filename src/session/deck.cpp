// src/session/deck.cpp — slide decks: catalog and program slides, their JSON file, and what a
// program slide would build and run (deck.h).
#include "session/deck.h"

#include "session/session.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
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
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
    throw InputError(what + " is too large: " + v.dump());
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    // (converted only inside int64's range: past it the conversion is undefined)
    const double d = v.get<double>();
    if (d >= -9.2e18 && d <= 9.2e18 && d == std::floor(d)) return int64_t(d);
  }
  throw InputError(what + " must be a whole number, not " + v.dump());
}

// A list of words of a program slide ("nvcc", "args").
std::vector<std::string> words(const json& p, const char* key, const std::string& at) {
  std::vector<std::string> out;
  auto it = p.find(key);
  if (it == p.end()) return out;
  if (!it->is_array()) throw InputError(at + "\"program\": \"" + key + "\" must be a list of words");
  for (const json& w : *it) {
    if (!w.is_string()) throw InputError(at + "\"program\": \"" + key + "\" must be a list of words, not " + w.dump());
    out.push_back(w.get<std::string>());
  }
  return out;
}

SlideProgram program_from_json(const json& p, const std::string& at) {
  if (!p.is_object()) throw InputError(at + "\"program\" must be an object {\"source\": \"prog.cu\", \"launch\": 1, ...}");
  SlideProgram out;
  auto src = p.find("source");
  if (src == p.end() || !src->is_string() || src->get<std::string>().empty())
    throw InputError(at + "\"program\" has no \"source\": name the .cu file");
  out.source = src->get<std::string>();
  out.nvcc_flags = words(p, "nvcc", at);
  out.args = words(p, "args", at);
  if (auto l = p.find("literal"); l != p.end()) {
    if (!l->is_boolean()) throw InputError(at + "\"program\": \"literal\" must be true or false");
    out.literal = l->get<bool>();
  }
  if (auto l = p.find("launch"); l != p.end()) {
    const int64_t k = whole(*l, at + "\"program\": \"launch\"");
    if (k < 1 || k > int64_t(UINT32_MAX)) throw InputError(at + "\"program\": \"launch\" must be 1 or more (launches count from 1)");
    out.launch = uint32_t(k - 1);
  }
  if (auto h = p.find("hash"); h != p.end()) {
    if (!h->is_string()) throw InputError(at + "\"program\": \"hash\" must be text");
    out.hash = h->get<std::string>();
  }
  return out;
}

Slide slide_from_json(const json& j, size_t index, int64_t version) {
  const std::string at = slide_prefix(index);
  if (!j.is_object()) throw InputError(at + "expected an object {\"kernel\": ..., \"step\": ...}");
  Slide s;
  if (auto p = j.find("program"); p != j.end()) s.program = program_from_json(*p, at);
  auto kernel = j.find("kernel");
  if (kernel == j.end() || !kernel->is_string()) {
    if (!s.program) throw InputError(at + "no \"kernel\": name a catalog id, e.g. \"transpose_tiled\"");
  } else {
    s.kernel = kernel->get<std::string>();
  }
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
  static const std::vector<std::string> views = {"memory", "warp", "banks", "dram", "source", "pipeline", "cluster"};
  return views;
}

std::string slide_views_text() {
  std::string s;
  for (const auto& v : slide_views()) s += (s.empty() ? "" : ", ") + v;
  return s;
}

LaunchSpec Slide::spec() const {
  LaunchSpec spec;
  if (program) {
    spec.program.source = program->source;
    spec.program.nvcc_flags = program->nvcc_flags;
    spec.program.args = program->args;
    spec.program.literal = program->literal;
    spec.launch = program->launch;
    spec.nearest_launch = true;  // an edited program may have fewer launches: show what it can
    return spec;
  }
  spec.kernel = kernel;
  spec.size = size;
  spec.params = params;
  return spec;
}

std::string Slide::variant_text() const {
  if (program)
    return std::filesystem::path(program->source).filename().string() + " " + kernel + " launch " +
           std::to_string(program->launch + 1);
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

Slide program_slide(const Session& m, uint64_t step, const std::string& view, const std::string& caption) {
  Slide s;
  s.kernel = m.trace().launch().kernel;
  s.step = step;
  s.view = view;
  s.caption = caption;
  SlideProgram p;
  p.source = m.file();
  p.nvcc_flags = m.spec().program.nvcc_flags;
  p.args = m.spec().program.args;
  p.literal = m.spec().program.literal;
  p.launch = m.launch();
  p.hash = source_hash(m);
  s.program = std::move(p);
  return s;
}

std::string source_hash(const Session& m) {
  // FNV-1a over each file's name (without its folder: the deck may move) and text.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& x) {
    for (unsigned char c : x) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;  // a separator no text holds
  };
  for (const SourceText& f : m.sources()) {
    if (f.toolkit) continue;  // the toolkit's headers are the machine's, not the program's
    mix(std::filesystem::path(f.name).filename().string());
    mix(m.trace().files.at(f.file).text);
  }
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

std::string program_command(const SlideProgram& p) {
  std::string cmd = "nvcc";
  if (p.literal) cmd += " -G";
  for (const auto& f : p.nvcc_flags) cmd += " " + f;
  cmd += " " + p.source + ", then ./" + std::filesystem::path(p.source).stem().string();
  for (const auto& a : p.args) cmd += " " + a;
  return cmd;
}

std::string runs_programs(const Deck& d) {
  for (size_t i = 0; i < d.slides.size(); ++i)
    if (const auto& p = d.slides[i].program)
      return "slide " + std::to_string(i + 1) + " builds and runs " + p->source + " (" + program_command(*p) + ")";
  return "";
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
  if (s.program) {
    // Its file is looked at when the slide opens: a deck from elsewhere may name one not here yet.
    const std::string& src = s.program->source;
    if (src.size() < 4 || src.compare(src.size() - 3, 3, ".cu") != 0)
      throw InputError(at + "\"program\": \"source\" must name a .cu file, not '" + src + "'");
  } else {
    try {
      resolve(s.spec());
    } catch (const InputError& e) {
      throw InputError(at + e.what());
    }
  }
  const auto& views = slide_views();
  if (std::find(views.begin(), views.end(), s.view) == views.end())
    throw InputError(at + "unknown view '" + s.view + "': allowed " + slide_views_text());
}

std::string deck_json(const Deck& d) {
  json j;
  j["format"] = kFormat;
  const bool programs = std::any_of(d.slides.begin(), d.slides.end(), [](const Slide& s) { return bool(s.program); });
  j["version"] = programs ? kDeckVersion : 2;
  j["title"] = d.title;
  j["slides"] = json::array();
  for (const Slide& s : d.slides) {
    json p = json::object();
    if (s.size) p["size"] = *s.size;
    for (const auto& [k, v] : s.params) p[k] = v;
    json slide = {{"kernel", s.kernel}, {"params", p}, {"step", request_number(s.step)}, {"view", s.view}, {"caption", s.caption}};
    if (const auto& pr = s.program)
      slide["program"] = {{"source", pr->source}, {"nvcc", pr->nvcc_flags}, {"args", pr->args}, {"literal", pr->literal},
                          {"launch", pr->launch + 1}, {"hash", pr->hash}};
    j["slides"].push_back(slide);
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
  Deck d = parse_deck(s.str(), path);
  // A program named relative to the deck (a deck and its program handed on together).
  namespace fs = std::filesystem;
  for (Slide& sl : d.slides)
    if (sl.program && fs::path(sl.program->source).is_relative() && !fs::exists(sl.program->source)) {
      const fs::path beside = fs::path(path).parent_path() / sl.program->source;
      if (fs::exists(beside)) sl.program->source = beside.string();
    }
  return d;
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
