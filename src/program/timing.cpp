// src/program/timing.cpp — the GPU timer's file read into launches, and those made into
// bench rows with the work the program's annotations say each launch does; the kernels'
// parameter layout (which the timer needs) comes from the PTX reader's declarations.
#include "program/timing.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "program/program.h"
#include "ptx/ptx.h"
#include "sass/import.h"  // plain_name

namespace ws::program {
namespace {

using gpu_times::split;

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string base_name(const std::string& kernel) { return kernel.substr(0, kernel.find('<')); }

// The source with comments and string literals blanked (same length, newlines kept), so
// that braces and `__global__` are found in code only.
std::string code_only(const std::string& s) {
  std::string o = s;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') o[i++] = ' ';
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t e = s.find("*/", i + 2);
      e = e == std::string::npos ? s.size() : e + 2;
      for (; i < e; ++i)
        if (s[i] != '\n') o[i] = ' ';
      --i;
    } else if (s[i] == '"' || s[i] == '\'') {
      const char q = s[i];
      for (++i; i < s.size() && s[i] != q && s[i] != '\n'; ++i) {
        if (s[i] == '\\') o[i++] = ' ';
        if (i < s.size()) o[i] = ' ';
      }
    }
  }
  return o;
}

struct KernelText {
  std::string name;
  size_t begin = 0, end = 0;  // `__global__` .. the body's closing brace
  std::string params;         // the text between the parentheses
};

std::vector<KernelText> kernels_of(const std::string& source) {
  const std::string code = code_only(source);
  std::vector<KernelText> out;
  for (size_t at = code.find("__global__"); at != std::string::npos; at = code.find("__global__", at + 10)) {
    const size_t open = code.find('(', at);
    if (open == std::string::npos) break;
    size_t n = open;
    while (n > at && std::isspace(static_cast<unsigned char>(code[n - 1]))) --n;
    size_t b = n;
    while (b > at && ident_char(code[b - 1])) --b;
    KernelText k;
    k.name = code.substr(b, n - b);
    k.begin = at;
    int depth = 0;
    size_t close = open;
    for (; close < code.size(); ++close) {
      if (code[close] == '(') ++depth;
      else if (code[close] == ')' && --depth == 0) break;
    }
    k.params = code.substr(open + 1, close - open - 1);
    const size_t body = code.find_first_of("{;", close);
    if (body == std::string::npos || code[body] == ';') continue;  // a declaration
    depth = 0;
    size_t end = body;
    for (; end < code.size(); ++end) {
      if (code[end] == '{') ++depth;
      else if (code[end] == '}' && --depth == 0) break;
    }
    k.end = end;
    if (!k.name.empty()) out.push_back(std::move(k));
  }
  return out;
}

// ---- expressions ------------------------------------------------------------------------

struct Parser {
  const std::string& s;
  const std::map<std::string, double>& vars;
  size_t i = 0;

  void skip() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  [[noreturn]] void fail(const std::string& why) const { throw std::invalid_argument(why + " in '" + trim(s) + "'"); }

  double primary() {
    skip();
    if (i >= s.size()) fail("expected a number");
    if (s[i] == '(') {
      ++i;
      const double v = sum();
      skip();
      if (i >= s.size() || s[i] != ')') fail("expected ')'");
      ++i;
      return v;
    }
    if (s[i] == '-') return ++i, -primary();
    if (s[i] == '+') return ++i, primary();
    if (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.') {
      size_t used = 0;
      double v = 0;
      try {
        v = std::stod(s.substr(i), &used);
      } catch (const std::exception&) {
        fail("expected a number");
      }
      i += used;
      while (i < s.size() && std::strchr("uUlLfF", s[i])) ++i;  // C suffixes: 1024ull, 2.0f
      return v;
    }
    if (ident_char(s[i])) {
      size_t b = i;
      while (i < s.size() && ident_char(s[i])) ++i;
      const std::string name = s.substr(b, i - b);
      auto it = vars.find(name);
      if (it == vars.end()) fail("unknown name '" + name + "'");
      return it->second;
    }
    fail(std::string("unexpected '") + s[i] + "'");
  }
  double product() {
    double v = primary();
    for (;;) {
      skip();
      if (i < s.size() && s[i] == '*') ++i, v *= primary();
      else if (i < s.size() && s[i] == '/') {
        ++i;
        const double d = primary();
        if (d == 0) fail("division by zero");
        v /= d;
      } else {
        return v;
      }
    }
  }
  double sum() {
    double v = product();
    for (;;) {
      skip();
      if (i < s.size() && s[i] == '+') ++i, v += product();
      else if (i < s.size() && s[i] == '-') ++i, v -= product();
      else return v;
    }
  }
};

std::string launch_shape(const TimedLaunch& l) {
  auto dim = [](const uint32_t* d) {
    std::string s = std::to_string(d[0]);
    if (d[1] > 1 || d[2] > 1) s += "," + std::to_string(d[1]);
    if (d[2] > 1) s += "," + std::to_string(d[2]);
    return d[1] > 1 || d[2] > 1 ? "(" + s + ")" : s;
  };
  return "<<<" + dim(l.grid) + ", " + dim(l.block) + ">>>";
}

std::string megabytes(uint64_t b) {
  std::ostringstream o;
  if (b < (1u << 20)) {
    o << (b + 1023) / 1024 << " KiB";
    return o.str();
  }
  o.precision(b >= (10u << 20) ? 0 : 1);
  o << std::fixed << double(b) / (1 << 20) << " MiB";
  return o.str();
}

}  // namespace

ParamLayout ptx_param_layout(const std::string& ptx) {
  ParamLayout out;
  for (const ptx::Kernel& k : ptx::parse_declarations(ptx).kernels) {
    auto& params = out[k.name];
    for (const ptx::Param& p : k.params) params.push_back({p.bytes, p.align});
  }
  return out;
}

std::string param_layout_env(const ParamLayout& l) { return gpu_times::format_layouts(l); }

std::vector<TimedLaunch> read_times(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind(gpu_times::kHeader, 0) != 0)
    throw Error(std::string("the GPU timer's file is not one (no '") + gpu_times::kHeader + "' line)");
  std::vector<TimedLaunch> out;
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    gpu_times::Line g;
    if (const std::string why = gpu_times::parse(line, g); !why.empty())
      throw Error("the GPU timer's file, line " + std::to_string(number) + ": " + why);
    TimedLaunch l;
    l.index = g.index;
    l.kernel = std::move(g.kernel);
    std::copy(g.grid, g.grid + 3, l.grid);
    std::copy(g.block, g.block + 3, l.block);
    l.shared_bytes = g.shared;
    l.runs = g.runs;
    l.median_ms = double(g.median_ns) * 1e-6, l.min_ms = double(g.min_ns) * 1e-6, l.max_ms = double(g.max_ns) * 1e-6;
    l.saved_bytes = g.saved_bytes;
    l.restored = g.restored;
    l.params = std::move(g.params);
    out.push_back(std::move(l));
  }
  return out;
}

std::map<std::string, std::vector<KernelParam>> kernel_signatures(const std::string& source) {
  std::map<std::string, std::vector<KernelParam>> out;
  for (const KernelText& k : kernels_of(source)) {
    std::vector<KernelParam> params;
    int depth = 0;
    std::string cur;
    auto push = [&] {
      std::string p = trim(cur.substr(0, cur.find('=')));  // a default value
      cur.clear();
      if (p.empty() || p == "void") return;
      size_t e = p.size();
      while (e > 0 && (p[e - 1] == ']' || std::isspace(static_cast<unsigned char>(p[e - 1])))) {
        if (p[e - 1] == ']') e = p.rfind('[', e - 1);  // an array parameter: its name before [N]
        else --e;
        if (e == std::string::npos) return;
      }
      size_t b = e;
      while (b > 0 && ident_char(p[b - 1])) --b;
      params.push_back({trim(p.substr(0, b)), p.substr(b, e - b)});
    };
    for (char c : k.params) {
      if (c == '<' || c == '(' || c == '[') ++depth;
      else if (c == '>' || c == ')' || c == ']') --depth;
      if (c == ',' && depth == 0) push();
      else cur += c;
    }
    push();
    out.emplace(k.name, std::move(params));
  }
  return out;
}

std::map<std::string, Work> work_annotations(const std::string& source) {
  const std::vector<KernelText> kernels = kernels_of(source);
  std::map<std::string, Work> out;
  for (size_t at = source.find("//"); at != std::string::npos; at = source.find("//", at + 2)) {
    const size_t eol = std::min(source.find('\n', at), source.size());
    const std::string comment = source.substr(at + 2, eol - at - 2);
    const size_t tag = comment.find("warpscope:");
    if (tag == std::string::npos) continue;
    const KernelText* owner = nullptr;
    for (const KernelText& k : kernels)
      if (at > k.begin && at < k.end) owner = &k;
    if (!owner)
      for (const KernelText& k : kernels)
        if (k.begin > at) {
          owner = &k;
          break;
        }
    if (!owner) continue;
    Work& w = out[owner->name];
    for (std::string part : split(comment.substr(tag + 10), ';')) {
      for (const std::string& item : split(part, ',')) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
        if (key == "flops") w.flops = value;
        else if (key == "bytes") w.bytes = value;
      }
    }
  }
  return out;
}

double evaluate(const std::string& expr, const std::map<std::string, double>& vars) {
  Parser p{expr, vars};
  const double v = p.sum();
  p.skip();
  if (p.i != expr.size()) p.fail(std::string("unexpected '") + expr[p.i] + "'");
  return v;
}

std::map<std::string, double> scalar_arguments(const TimedLaunch& l, const std::vector<KernelParam>& sig) {
  std::map<std::string, double> v;
  for (size_t i = 0; i < sig.size() && i < l.params.size(); ++i) {
    const std::string& t = sig[i].type;
    const std::vector<uint8_t>& b = l.params[i];
    if (t.find('*') != std::string::npos || t.find('&') != std::string::npos || sig[i].name.empty()) continue;
    const bool fp = t.find("float") != std::string::npos || t.find("double") != std::string::npos;
    const bool is_unsigned = t.find("unsigned") != std::string::npos || t.find("size_t") != std::string::npos ||
                             t.find("uint") != std::string::npos;
    const bool integer = !fp && (is_unsigned || t.find("int") != std::string::npos || t.find("long") != std::string::npos ||
                                 t.find("short") != std::string::npos || t.find("char") != std::string::npos ||
                                 t.find("bool") != std::string::npos);
    if (fp && b.size() == 4) {
      float f;
      std::memcpy(&f, b.data(), 4);
      v[sig[i].name] = f;
    } else if (fp && b.size() == 8) {
      double d;
      std::memcpy(&d, b.data(), 8);
      v[sig[i].name] = d;
    } else if (integer && (b.size() == 1 || b.size() == 2 || b.size() == 4 || b.size() == 8)) {
      uint64_t u = 0;
      std::memcpy(&u, b.data(), b.size());  // little-endian
      if (!is_unsigned && b.size() < 8 && (u >> (8 * b.size() - 1)) & 1) u |= ~uint64_t(0) << (8 * b.size());
      v[sig[i].name] = is_unsigned ? double(u) : double(int64_t(u));
    }
  }
  return v;
}

trace::BenchResult timing_result(const std::vector<TimedLaunch>& launches, const std::string& source_text,
                                 const Work& command_line, std::vector<std::string>* notes) {
  const auto sigs = kernel_signatures(source_text);
  const auto work = work_annotations(source_text);
  trace::BenchResult r;
  for (const TimedLaunch& l : launches) {
    trace::BenchRow row;
    row.kernel = base_name(sass::plain_name(l.kernel));
    row.family = "program";
    row.variant = "launch " + std::to_string(l.index + 1) + " " + launch_shape(l);
    auto sig = sigs.find(row.kernel);
    const std::map<std::string, double> args = sig == sigs.end() ? std::map<std::string, double>{} : scalar_arguments(l, sig->second);
    for (const auto& [k, v] : args)
      if (v >= -9.2e18 && v <= 9.2e18 && v == std::floor(v)) row.params[k] = int64_t(v);  // (past int64: undefined)
    row.runs = int(l.runs);
    row.ok = l.runs > 0;
    if (!row.ok) {
      row.error = "not timed (the timer times the first 16 launches of each kernel, for a minute at most)";
      r.rows.push_back(std::move(row));
      continue;
    }
    row.ms = l.median_ms, row.ms_min = l.min_ms, row.ms_max = l.max_ms;
    row.note = l.restored ? (l.saved_bytes ? megabytes(l.saved_bytes) + " of buffers restored before each run" : "")
                          : "buffers NOT restored between runs (no device memory for a copy): an in-place kernel's time may be off";
    Work w = work.count(row.kernel) ? work.at(row.kernel) : Work{};
    if (!command_line.flops.empty()) w.flops = command_line.flops;
    if (!command_line.bytes.empty()) w.bytes = command_line.bytes;
    auto value = [&](const std::string& e, const char* what) -> double {
      if (e.empty()) return 0;
      try {
        return evaluate(e, args);
      } catch (const std::invalid_argument& x) {
        const std::string n = row.kernel + " " + what + ": " + x.what();
        if (notes && std::find(notes->begin(), notes->end(), n) == notes->end()) notes->push_back(n);
        return 0;
      }
    };
    const double flops = value(w.flops, "flops"), bytes = value(w.bytes, "bytes");
    if (row.ms > 0) {
      if (flops > 0) row.gflops = flops / (row.ms * 1e-3) / 1e9, row.vs_cublas = true;
      if (bytes > 0) row.gbs = bytes / (row.ms * 1e-3) / 1e9;
    }
    r.rows.push_back(std::move(row));
  }
  r.all_ok = true;
  return r;
}

}  // namespace ws::program
