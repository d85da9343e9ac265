// src/lesson/lesson.cpp — lesson files: parsing with one-line errors, the bundled list.
#include "lesson/lesson.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "catalog.h"
#include "env/environment.h"
#include "trace/assets.h"

namespace ws::lesson {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Where in the file a value sits, for messages: "basics.json, step 3 (\"Strides\"): focus.op".
struct Where {
  std::string file;
  std::string step;  // "step 3" or ""
  std::string at(const std::string& key) const {
    std::string s = file;
    if (!step.empty()) s += ", " + step;
    if (!key.empty()) s += ": " + key;
    return s;
  }
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw LessonError(at(key) + ": " + problem);
  }
};

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return s;
}

std::string type_name(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "true/false";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "a list";
  return "an object";
}

void only_keys(const json& obj, const Where& w, const std::string& what, const std::set<std::string>& allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (it.key() == "comment" || allowed.count(it.key())) continue;
    std::string names;
    for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a;
    w.fail(what.empty() ? it.key() : what + "." + it.key(), "unknown key; allowed: " + names);
  }
}

const json* get(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string str(const json& v, const Where& w, const std::string& key) {
  if (!v.is_string()) w.fail(key, "expected a string, got " + type_name(v));
  return v.get<std::string>();
}

// A string, or a list of strings joined with line breaks (long texts stay readable in JSON).
std::string text(const json& v, const Where& w, const std::string& key) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) w.fail(key, "expected a string or a list of strings, got " + type_name(v));
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) w.fail(key + "[" + std::to_string(i) + "]", "expected a string, got " + type_name(v[i]));
    if (i) out += "\n";
    out += v[i].get<std::string>();
  }
  return out;
}

int64_t integer(const json& v, const Where& w, const std::string& key, int64_t min, int64_t max) {
  if (!v.is_number_integer() && !v.is_number_unsigned()) w.fail(key, "expected an integer, got " + type_name(v));
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) w.fail(key, "out of range");
  int64_t x = v.get<int64_t>();
  if (x < min || x > max)
    w.fail(key, std::to_string(x) + " is out of range " + std::to_string(min) + ".." + std::to_string(max));
  return x;
}

std::optional<Metric> metric_named(const std::string& name) {
  for (const auto& m : metrics())
    if (name == m.name) return m.metric;
  return std::nullopt;
}

std::string metric_names() {
  std::string s;
  for (const auto& m : metrics()) s += (s.empty() ? "" : ", ") + std::string(m.name);
  return s;
}

// The placeholders `after` may use.
void check_placeholders(const std::string& after, const Where& w, bool has_question) {
  size_t pos = 0;
  while ((pos = after.find('{', pos)) != std::string::npos) {
    size_t end = after.find('}', pos);
    if (end == std::string::npos) w.fail("after", "'{' without '}'");
    std::string name = after.substr(pos + 1, end - pos - 1);
    bool ok = name == "why" || name == "array" || name == "line" || name == "code" ||
              (name == "answer" && has_question);
    if (auto m = metric_named(name)) ok = info(*m).choices.empty();
    if (!ok)
      w.fail("after", "unknown placeholder {" + name +
                          "}; allowed: {answer} (with a question), {why}, {array}, {line}, {code}, and the number metrics");
    pos = end + 1;
  }
}

// A step's program launch: "program" (a file of examples/), "args", "launch" (from 1).
void parse_program(const json& s, const Where& w, StepLaunch& l) {
  if (const json* v = get(s, "args")) {
    if (!l.is_program()) w.fail("args", "only a program step has arguments");
    if (!v->is_array()) w.fail("args", "expected a list of strings, got " + type_name(*v));
    l.args.clear();
    for (size_t i = 0; i < v->size(); ++i) l.args.push_back(str((*v)[i], w, "args[" + std::to_string(i) + "]"));
  }
  if (const json* v = get(s, "launch")) {
    if (!l.is_program()) w.fail("launch", "only a program step has launches to pick from");
    l.launch = uint32_t(integer(*v, w, "launch", 1, 1 << 20) - 1);
  }
  for (const char* k : {"size", "params", "blocks"})
    if (l.is_program() && get(s, k)) w.fail(k, "a program takes its sizes from its arguments (\"args\")");
  if (l.is_program() && (l.program.find('/') != std::string::npos || l.program.size() < 4 ||
                         l.program.compare(l.program.size() - 3, 3, ".cu") != 0))
    w.fail("program", "'" + l.program + "' is not a .cu file name of the examples folder");
}

StepLaunch parse_launch(const json& s, const Where& w, const StepLaunch* previous) {
  StepLaunch l;
  const json* kernel = get(s, "kernel");
  const json* program = get(s, "program");
  if (kernel && program) w.fail("program", "a step names a kernel or a program, not both");
  if (kernel) {
    l.kernel = str(*kernel, w, "kernel");
  } else if (program) {
    l.program = str(*program, w, "program");
  } else if (previous) {
    l = *previous;  // same launch as the step before, with the overrides below
  } else {
    w.fail("kernel", "missing (the first step must name a kernel or a program)");
  }
  parse_program(s, w, l);
  if (l.is_program()) return l;
  if (const json* v = get(s, "size")) l.size = integer(*v, w, "size", 0, int64_t(1) << 40);
  if (const json* v = get(s, "params")) {
    if (!v->is_object()) w.fail("params", "expected an object such as {\"pad\": 1}, got " + type_name(*v));
    for (auto it = v->begin(); it != v->end(); ++it)
      l.params[it.key()] = integer(it.value(), w, "params." + it.key(), INT64_MIN / 2, INT64_MAX / 2);
  }
  if (const json* v = get(s, "blocks")) {
    if (!v->is_array()) w.fail("blocks", "expected a list of block ids, got " + type_name(*v));
    l.blocks.clear();
    for (size_t i = 0; i < v->size(); ++i)
      l.blocks.push_back(uint32_t(integer((*v)[i], w, "blocks[" + std::to_string(i) + "]", 0, UINT32_MAX - 1)));
    std::sort(l.blocks.begin(), l.blocks.end());
    l.blocks.erase(std::unique(l.blocks.begin(), l.blocks.end()), l.blocks.end());
  }
  const catalog::KernelInfo* k = catalog::find(l.kernel);
  if (!k) w.fail("kernel", "unknown kernel '" + l.kernel + "'; allowed: " + catalog::ids());
  catalog::Params p;
  if (std::string e = catalog::resolve(*k, l.size, l.params, p); !e.empty()) w.fail("", one_line(e));
  return l;
}

Focus parse_focus(const json& f, const Where& w) {
  if (!f.is_object()) w.fail("focus", "expected an object, got " + type_name(f));
  only_keys(f, w, "focus", {"array", "op", "code", "line", "block", "warp", "request"});
  Focus out;
  if (const json* v = get(f, "array")) out.array = str(*v, w, "focus.array");
  if (const json* v = get(f, "op")) {
    std::string op = str(*v, w, "focus.op");
    if (op == "load") out.op = trace::Op::Load;
    else if (op == "store") out.op = trace::Op::Store;
    else if (op == "atomic") out.op = trace::Op::Atomic;
    else w.fail("focus.op", "unknown op '" + op + "'; allowed: load, store, atomic");
  }
  if (const json* v = get(f, "code")) out.code = str(*v, w, "focus.code");
  if (const json* v = get(f, "line")) out.line = uint32_t(integer(*v, w, "focus.line", 1, 1 << 20));
  if (const json* v = get(f, "block")) out.block = uint32_t(integer(*v, w, "focus.block", 0, UINT32_MAX - 1));
  if (const json* v = get(f, "warp")) out.warp = uint32_t(integer(*v, w, "focus.warp", 0, 1023));
  // Counted from 1 in files, as every request number the app shows.
  if (const json* v = get(f, "request")) out.request = uint32_t(integer(*v, w, "focus.request", 1, UINT32_MAX) - 1);
  return out;
}

Question parse_question(const json& q, const Where& w) {
  if (!q.is_object()) w.fail("question", "expected an object, got " + type_name(q));
  only_keys(q, w, "question", {"ask", "prompt", "tolerance"});
  Question out;
  const json* ask = get(q, "ask");
  if (!ask) w.fail("question.ask", "missing; allowed: " + metric_names());
  std::string name = str(*ask, w, "question.ask");
  auto m = metric_named(name);
  if (!m) w.fail("question.ask", "unknown metric '" + name + "'; allowed: " + metric_names());
  out.ask = *m;
  out.choices = info(*m).choices;
  out.tolerance = info(*m).tolerance;
  const json* prompt = get(q, "prompt");
  if (!prompt) w.fail("question.prompt", "missing");
  out.prompt = text(*prompt, w, "question.prompt");
  if (out.prompt.empty()) w.fail("question.prompt", "empty");
  if (const json* v = get(q, "tolerance")) {
    if (!v->is_number()) w.fail("question.tolerance", "expected a number, got " + type_name(*v));
    if (out.is_choice()) w.fail("question.tolerance", "a choice question has no tolerance");
    out.tolerance = v->get<double>();
    if (!(out.tolerance >= 0)) w.fail("question.tolerance", "must be 0 or more");
  }
  return out;
}

std::string stem(const std::string& name) { return fs::path(name).stem().string(); }

}  // namespace

Lesson parse(const std::string& content, const std::string& name) {
  const std::string& file = name;
  Where top{file, ""};
  json doc;
  try {
    doc = json::parse(content);
  } catch (const json::exception& e) {  // a syntax error, or a number too large to hold
    std::string msg = e.what();
    if (msg.rfind("[json.exception.", 0) == 0 && msg.find("] ") != std::string::npos) msg = msg.substr(msg.find("] ") + 2);
    top.fail("", "not valid JSON: " + one_line(msg));
  }
  if (!doc.is_object()) top.fail("", "expected a JSON object with \"title\" and \"steps\", got " + type_name(doc));
  only_keys(doc, top, "", {"title", "summary", "order", "steps"});
  Lesson l;
  l.id = stem(name);
  l.path = name;
  const json* title = get(doc, "title");
  if (!title) top.fail("title", "missing");
  l.title = str(*title, top, "title");
  if (l.title.empty()) top.fail("title", "empty");
  if (const json* v = get(doc, "summary")) l.summary = text(*v, top, "summary");
  if (const json* v = get(doc, "order")) l.order = int(integer(*v, top, "order", -1000000, 1000000));
  const json* steps = get(doc, "steps");
  if (!steps) top.fail("steps", "missing");
  if (!steps->is_array()) top.fail("steps", "expected a list of steps, got " + type_name(*steps));
  if (steps->empty()) top.fail("steps", "empty: a lesson needs at least one step");

  for (size_t i = 0; i < steps->size(); ++i) {
    const json& s = (*steps)[i];
    Where w{file, "step " + std::to_string(i + 1)};
    if (!s.is_object()) w.fail("", "expected an object, got " + type_name(s));
    only_keys(s, w, "", {"title", "kernel", "size", "params", "blocks", "program", "args", "launch", "focus", "text", "question", "after"});
    Step st;
    st.where = w.at("");
    const json* t = get(s, "title");
    if (!t) w.fail("title", "missing");
    st.title = str(*t, w, "title");
    if (st.title.empty()) w.fail("title", "empty");
    st.launch = parse_launch(s, w, l.steps.empty() ? nullptr : &l.steps.back().launch);
    if (const json* v = get(s, "focus")) st.focus = parse_focus(*v, w);
    const json* body = get(s, "text");
    if (!body) w.fail("text", "missing");
    st.text = text(*body, w, "text");
    if (const json* v = get(s, "question")) {
      st.question = parse_question(*v, w);
      if (!st.focus || !st.focus->names_site())
        w.fail("question", "needs a focus naming an access (focus.array, .op, .code or .line)");
    }
    if (const json* v = get(s, "after")) {
      st.after = text(*v, w, "after");
      if (st.after.find('{') != std::string::npos && (!st.focus || !st.focus->names_site()))
        w.fail("after", "placeholders need a focus naming an access");
      check_placeholders(st.after, w, st.question.has_value());
    }
    l.steps.push_back(std::move(st));
  }
  return l;
}

Lesson load(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw LessonError(path + ": is a folder, not a lesson file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw LessonError(path + ": cannot open the lesson file");
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad()) throw LessonError(path + ": cannot read the lesson file");
  return parse(s.str(), path);
}

std::string lessons_dir() {
  if (env::is_set(env::Var::lessons)) return env::get_string(env::Var::lessons);
  // Beside the binary, installed, or in the source tree the build came from.
  const std::string found = trace::find_asset("lessons");
  return found.empty() ? "assets/lessons" : found;
}

std::vector<Entry> list(const std::string& dir) {
  std::vector<Entry> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() != ".json" || !it->is_regular_file(ec)) continue;
    Entry e;
    e.id = p.stem().string();
    e.path = p.string();
    try {
      Lesson l = load(e.path);
      e.title = l.title;
      e.order = l.order;
      e.steps = l.steps.size();
    } catch (const LessonError& err) {
      e.error = err.what();
    }
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    return a.order != b.order ? a.order < b.order : a.id < b.id;
  });
  return out;
}

std::string find(const std::string& name, const std::string& dir) {
  std::error_code ec;
  if (name.empty()) throw LessonError("no lesson named: give a lesson name or a .json file");
  if (fs::is_regular_file(name, ec)) return name;
  const bool looks_like_path = name.find('/') != std::string::npos || fs::path(name).extension() == ".json";
  if (!looks_like_path) {
    fs::path p = fs::path(dir) / (name + ".json");
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  std::string names;
  for (const auto& e : list(dir)) names += (names.empty() ? "" : ", ") + e.id;
  if (looks_like_path) throw LessonError(name + ": no such lesson file");
  throw LessonError("unknown lesson '" + name + "'; allowed: " + (names.empty() ? "none in " + dir : names) +
                    ", or a path to a .json file");
}

}  // namespace ws::lesson
