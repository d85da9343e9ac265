// src/session/arrays.cpp — a program's arrays: element types from their instructions, shapes
// from cudaMallocPitch, the program's annotations or the app, the toolkit's own told apart.
#include "session/arrays.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "session/session.h"

namespace ws::session {

namespace {

// The PTX type of an instruction's text: "ld.global.nc.v4.f32" -> "f32" ("" : none).
std::string ptx_type(const std::string& insn) {
  static const std::regex type(R"(^(f|u|s|b)(8|16|32|64)$|^bf16$)");
  std::string last;
  std::istringstream parts(insn);
  for (std::string p; std::getline(parts, p, '.');)
    if (std::regex_match(p, type)) last = p;
  return last;
}

std::string type_word(const std::string& ptx) {
  static const std::map<std::string, std::string> names{
      {"f32", "float"}, {"f64", "double"}, {"f16", "half"},    {"bf16", "bfloat16"}, {"s8", "int8"},
      {"u8", "uint8"},  {"s16", "int16"},  {"u16", "uint16"},  {"s32", "int"},       {"u32", "uint32"},
      {"s64", "int64"}, {"u64", "uint64"}, {"b8", "8-bit"},    {"b16", "16-bit"},    {"b32", "32-bit"},
      {"b64", "64-bit"}};
  auto it = names.find(ptx);
  return it == names.end() ? std::string() : it->second;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The integer a name of `text` is defined as (`#define N 64`, `constexpr int N = 64;`,
// `const int N = 64;`), or -1.
int64_t defined_value(const std::string& text, const std::string& name) {
  const std::regex def("(?:^|\\n)[ \\t]*#[ \\t]*define[ \\t]+" + name + "[ \\t]+\\(?([0-9]+)[uUlL]*\\)?[ \\t]*(?:\\n|//|$)");
  const std::regex var("\\b(?:constexpr|const)[ \\t]+(?:static[ \\t]+)?(?:unsigned[ \\t]+)?(?:int|long|size_t|int64_t|"
                       "uint32_t|uint64_t|int32_t|auto)[ \\t]+" + name + "[ \\t]*=[ \\t]*([0-9]+)[uUlL]*[ \\t]*;");
  std::smatch m;
  if (std::regex_search(text, m, def) || std::regex_search(text, m, var)) return std::stoll(m[1].str());
  return -1;
}

// A dimension as written: a number, or a name `text` defines as one; -1 when neither.
int64_t dimension(const std::string& text, const std::string& word) {
  if (!word.empty() && std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return word.size() > 12 ? -1 : std::stoll(word);
  static const std::regex ident("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(word, ident) ? defined_value(text, word) : -1;
}

// Where buffers alike (one per launch) stand for one array.
std::string array_key(const trace::Buffer& b) {
  return b.name + '\n' + std::to_string(int(b.space)) + '\n' + std::to_string(b.size_bytes);
}

}  // namespace

std::string element_type(const trace::Trace& t, uint32_t b) {
  std::map<std::string, uint64_t> uses;
  for (const trace::Site& s : t.sites)
    if (s.buffer == b && !s.instruction.empty())
      if (std::string ty = ptx_type(s.instruction); !ty.empty()) ++uses[ty];
  // An untyped move (b32) says less than a typed access of the same width.
  bool typed = false;
  for (const auto& [ty, n] : uses) typed |= ty[0] != 'b';
  std::vector<std::pair<uint64_t, std::string>> order;
  for (const auto& [ty, n] : uses)
    if (!typed || ty[0] != 'b') order.push_back({n, type_word(ty)});
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::string out;
  for (const auto& [n, word] : order) out += (out.empty() ? "" : "/") + word;
  return out;
}

uint32_t element_bytes(const std::string& type) {
  static const std::map<std::string, uint32_t> bytes{
      {"float", 4}, {"double", 8}, {"half", 2},  {"bfloat16", 2}, {"int8", 1},   {"uint8", 1},  {"int16", 2},
      {"uint16", 2}, {"int", 4},   {"uint32", 4}, {"int64", 8},   {"uint64", 8}, {"8-bit", 1}, {"16-bit", 2},
      {"32-bit", 4}, {"64-bit", 8}};
  auto it = bytes.find(type);
  return it == bytes.end() ? 0 : it->second;
}

bool internal_array(const trace::Buffer& b) {
  return b.space == trace::Space::Local || b.name.find("$str") != std::string::npos || b.name.rfind("__", 0) == 0 ||
         b.name.rfind("$", 0) == 0;
}

std::vector<ArrayShape> shape_annotations(const std::string& text, std::vector<std::string>& notes) {
  static const std::regex line(R"(//[ \t]*warpscope:[ \t]*shape\b([^\n]*))");
  static const std::regex form(R"(^[ \t]+([A-Za-z_][A-Za-z0-9_.]*)[ \t]*=[ \t]*([A-Za-z0-9_]+)[ \t]*[xX×*][ \t]*([A-Za-z0-9_]+)[ \t\r]*$)");
  std::vector<ArrayShape> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator(); ++it) {
    const std::string rest = (*it)[1].str();
    std::smatch m;
    if (!std::regex_match(rest, m, form)) {
      notes.push_back("warpscope: shape" + rest + ": not read (the form is `// warpscope: shape NAME = ROWS x COLS`)");
      continue;
    }
    const int64_t r = dimension(text, m[2].str()), c = dimension(text, m[3].str());
    if (r <= 0 || c <= 0) {
      const std::string bad = r <= 0 ? m[2].str() : m[3].str();
      notes.push_back("warpscope: shape " + m[1].str() + ": '" + bad +
                      "' is not a number or a #define / constexpr of the file: the shape is not applied");
      continue;
    }
    out.push_back({m[1].str(), uint64_t(r), uint64_t(c), "annotation"});
  }
  return out;
}

std::string shapes_file(const std::string& program) { return program + ".shapes"; }

std::vector<ArrayShape> saved_shapes(const std::string& program, std::vector<std::string>& notes) {
  std::vector<ArrayShape> out;
  std::ifstream in(shapes_file(program));
  static const std::regex row(R"(^([A-Za-z_][A-Za-z0-9_.]*) ([0-9]{1,12}) x ([0-9]{1,12})\r?$)");
  for (std::string l; std::getline(in, l);) {
    if (l.empty() || l[0] == '#') continue;
    std::smatch m;
    if (!std::regex_match(l, m, row) || std::stoull(m[2].str()) == 0 || std::stoull(m[3].str()) == 0) {
      notes.push_back(shapes_file(program) + ": '" + l + "' is not NAME ROWS x COLS: left out");
      continue;
    }
    out.push_back({m[1].str(), std::stoull(m[2].str()), std::stoull(m[3].str()), "set in the app"});
  }
  return out;
}

bool save_shape(const std::string& program, const std::string& name, uint64_t rows, uint64_t cols,
                std::string& error) {
  std::vector<std::string> notes;
  std::vector<ArrayShape> shapes = saved_shapes(program, notes);
  shapes.erase(std::remove_if(shapes.begin(), shapes.end(), [&](const ArrayShape& s) { return s.name == name; }),
               shapes.end());
  if (rows && cols) shapes.push_back({name, rows, cols, ""});
  const std::string path = shapes_file(program);
  std::error_code ec;
  if (shapes.empty()) {
    std::filesystem::remove(path, ec);
    return true;
  }
  std::ofstream out(path, std::ios::trunc);
  out << "# the shapes of " << std::filesystem::path(program).filename().string()
      << "'s arrays, set in warpscope: NAME ROWS x COLS\n";
  for (const ArrayShape& s : shapes) out << s.name << " " << s.rows << " x " << s.cols << "\n";
  if (!out) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

std::map<std::string, std::string> shape_arrays(trace::Trace& t, const std::string& program,
                                                std::vector<std::string>& notes) {
  std::map<std::string, std::string> from;
  // Element sizes first: a shape counts elements.
  for (uint32_t b = 0; b < t.buffers.size(); ++b) {
    trace::Buffer& buf = t.buffers[b];
    const uint32_t e = element_bytes(element_type(t, b));
    if (!e || e == buf.elem_bytes || buf.space == trace::Space::Local) continue;
    // The runtime counted a pitched array's rows in 4-byte elements.
    if (buf.rows > 1) {
      buf.cols = buf.cols * buf.elem_bytes / e;
      buf.pitch = buf.pitch * buf.elem_bytes / e;
    } else {
      buf.cols = std::max<uint64_t>(1, buf.size_bytes / e);
    }
    buf.elem_bytes = e;
  }
  for (const trace::Buffer& buf : t.buffers)
    if (buf.rows > 1 && buf.pitch && buf.space == trace::Space::Global) from[buf.name] = "cudaMallocPitch";
  std::vector<ArrayShape> shapes = shape_annotations(read_text(program), notes);
  for (ArrayShape& s : saved_shapes(program, notes)) shapes.push_back(std::move(s));
  for (const ArrayShape& s : shapes) {
    if (from.count(s.name)) continue;  // the program's own pitch, or an annotation before a saved shape
    bool found = false;
    for (trace::Buffer& buf : t.buffers) {
      if (buf.name != s.name || buf.space != trace::Space::Global) continue;
      found = true;
      const uint64_t elements = buf.size_bytes / std::max<uint32_t>(1, buf.elem_bytes);
      if (s.rows * s.cols != elements) {
        notes.push_back("shape " + s.name + " = " + std::to_string(s.rows) + " x " + std::to_string(s.cols) + " holds " +
                        std::to_string(s.rows * s.cols) + " elements, the array " + std::to_string(elements) +
                        ": not applied");
        break;
      }
      buf.rows = s.rows;
      buf.cols = s.cols;
      buf.pitch = 0;
      from[s.name] = s.from;
    }
    if (!found) notes.push_back("shape " + s.name + ": no global array of that name reached by a kernel");
  }
  return from;
}

std::vector<ArrayRow> array_rows(const Session& s, bool internal) {
  const trace::Trace& t = s.whole_trace();
  std::vector<ArrayRow> rows;
  std::map<std::string, size_t> by_key;
  std::vector<std::set<uint32_t>> launches(t.buffers.size());
  for (const trace::Record& r : t.records) {
    for (int l = 0; l < trace::kWarpSize; ++l)
      if (r.lane_active(l) && r.buffer_of(l) < launches.size()) launches[r.buffer_of(l)].insert(r.launch + 1);
  }
  for (uint32_t b = 0; b < t.buffers.size(); ++b) {
    const trace::Buffer& buf = t.buffers[b];
    const bool inner = internal_array(buf);
    if (inner && !internal) continue;
    auto [it, fresh] = by_key.emplace(array_key(buf), rows.size());
    if (fresh) {
      ArrayRow a;
      a.name = buf.name;
      a.type = element_type(t, b);
      const GridShape g = grid_shape(buf);
      a.shape = buf.rows > 1 ? std::to_string(g.array_rows()) + " × " + std::to_string(g.array_cols())
                             : std::to_string(g.elements);
      if (buf.rows > 1 && buf.pitch && buf.pitch != buf.cols) a.shape += " (pitch " + std::to_string(buf.pitch) + ")";
      if (auto f = s.shape_from().find(buf.name); f != s.shape_from().end() && buf.rows > 1) a.from = f->second;
      a.space = trace::to_string(buf.space);
      a.size_bytes = buf.size_bytes;
      a.internal = inner;
      rows.push_back(std::move(a));
    }
    ArrayRow& a = rows[it->second];
    a.buffers.push_back(b);
    if (a.type.empty()) a.type = element_type(t, b);
    for (uint32_t l : launches[b]) a.launches.push_back(l);
  }
  for (ArrayRow& a : rows) {
    std::sort(a.launches.begin(), a.launches.end());
    a.launches.erase(std::unique(a.launches.begin(), a.launches.end()), a.launches.end());
  }
  // An array no recorded access reaches says nothing about the program's accesses.
  if (!internal)
    rows.erase(std::remove_if(rows.begin(), rows.end(), [](const ArrayRow& a) { return a.launches.empty(); }), rows.end());
  // Two arrays of one name (a shared array of two instantiations): each says its launches.
  std::map<std::string, int> named;
  for (const ArrayRow& a : rows) ++named[a.name];
  for (ArrayRow& a : rows) {
    if (named[a.name] > 1 && !a.launches.empty()) {
      std::string l;
      for (uint32_t k : a.launches) l += (l.empty() ? "" : ", ") + std::to_string(k);
      a.name += " (launch" + std::string(a.launches.size() > 1 ? "es " : " ") + l + ")";
    }
  }
  // The program's arrays first, global before shared, then the toolkit's.
  std::stable_sort(rows.begin(), rows.end(), [](const ArrayRow& x, const ArrayRow& y) {
    return std::make_tuple(x.internal, x.space != "global") < std::make_tuple(y.internal, y.space != "global");
  });
  return rows;
}

}  // namespace ws::session
