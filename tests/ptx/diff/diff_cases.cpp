// tests/ptx/diff/diff_cases.cpp — reading and writing the differential test's cases and
// fixtures (the format: diff_cases.h, scripts/ptx_diff_cases.py).
#include "diff_cases.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace ws::ptxdiff {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      if (!cur.empty()) parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  return parts;
}

[[noreturn]] void bad(const std::string& file, size_t line, const std::string& what) {
  throw FormatError(file + ":" + std::to_string(line) + ": " + what);
}

uint64_t hex(const std::string& s, const std::string& file, size_t line) {
  if (s.empty() || s.size() > 16 || s.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    bad(file, line, "'" + s + "' is not a hexadecimal value");
  return std::stoull(s, nullptr, 16);
}

// "case NAME | kernel=K threads=N in=a,b out=c tol=T hash=H"
Case read_header(const std::string& rest, const std::string& file, size_t line) {
  Case c;
  c.header = rest;
  const size_t bar = rest.find(" | ");
  if (bar == std::string::npos) bad(file, line, "a case line without ' | '");
  c.name = rest.substr(0, bar);
  for (const std::string& kv : split(rest.substr(bar + 3), ' ')) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) bad(file, line, "'" + kv + "' is not key=value");
    const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    if (k == "kernel") c.kernel = v;
    else if (k == "threads") c.threads = uint32_t(std::stoul(v));
    else if (k == "in") c.ins = v == "-" ? std::vector<std::string>{} : split(v, ',');
    else if (k == "out") c.outs = split(v, ',');
    else if (k == "tol") c.tol = v;
    else if (k == "hash") c.hash = v;
    else bad(file, line, "unknown key '" + k + "'");
  }
  if (c.kernel.empty() || c.threads == 0 || c.outs.empty() || c.hash.empty())
    bad(file, line, "case '" + c.name + "' lacks its kernel, threads, results or hash");
  for (const auto& t : c.ins) type_bytes(t);
  for (const auto& t : c.outs) type_bytes(t);
  return c;
}

// "TID IN... [: OUT...]"
void read_thread(Case& c, const std::string& text, const std::string& file, size_t line) {
  const size_t colon = text.find(" :");
  const std::vector<std::string> in = split(text.substr(0, colon), ' ');
  if (in.empty() || std::to_string(c.inputs.size()) != in[0])
    bad(file, line, "expected thread " + std::to_string(c.inputs.size()) + " of case '" + c.name + "'");
  if (in.size() - 1 != c.ins.size()) bad(file, line, "wrong number of operands for case '" + c.name + "'");
  std::vector<uint64_t> vals;
  for (size_t i = 1; i < in.size(); ++i) vals.push_back(hex(in[i], file, line));
  c.inputs.push_back(vals);
  if (colon == std::string::npos) return;
  std::vector<uint64_t> outs;
  for (const std::string& s : split(text.substr(colon + 2), ' ')) outs.push_back(hex(s, file, line));
  if (outs.size() != c.outs.size()) bad(file, line, "wrong number of results for case '" + c.name + "'");
  c.outputs.push_back(outs);
}

std::string hex_of(uint64_t v, const std::string& type) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%0*llx", int(2 * type_bytes(type)), static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

uint32_t type_bytes(const std::string& t) {
  if (t == "u8" || t == "s8") return 1;
  if (t == "b16" || t == "f16" || t == "bf16") return 2;
  if (t == "pred" || t == "b32" || t == "f32") return 4;
  if (t == "b64" || t == "f64") return 8;
  throw FormatError("unknown operand type '" + t + "'");
}

std::vector<Case> read_cases(const std::string& text, const std::string& file) {
  std::vector<Case> cases;
  std::istringstream in(text);
  std::string l;
  size_t line = 0;
  while (std::getline(in, l)) {
    ++line;
    if (l.empty() || l[0] == '#' || l.rfind("device ", 0) == 0) continue;
    if (l.rfind("case ", 0) == 0) {
      if (!cases.empty() && cases.back().inputs.size() != cases.back().threads)
        bad(file, line, "case '" + cases.back().name + "' has fewer threads than it says");
      cases.push_back(read_header(l.substr(5), file, line));
      continue;
    }
    if (cases.empty()) bad(file, line, "a thread's line before any case");
    try {
      read_thread(cases.back(), l, file, line);
    } catch (const std::logic_error&) {  // stoul and the like
      bad(file, line, "unreadable line");
    }
  }
  if (!cases.empty() && cases.back().inputs.size() != cases.back().threads)
    bad(file, line, "case '" + cases.back().name + "' has fewer threads than it says");
  for (const Case& c : cases)
    if (!c.outputs.empty() && c.outputs.size() != c.inputs.size())
      throw FormatError(file + ": case '" + c.name + "' has results for only some of its threads");
  return cases;
}

Fixture read_fixture(const std::string& text, const std::string& file) {
  Fixture f;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) {
    if (l.rfind("device ", 0) == 0) {
      f.device = l.substr(7);
      f.from_gpu = f.device.rfind("gpu ", 0) == 0;
      break;
    }
  }
  if (f.device.empty()) throw FormatError(file + ": no 'device' line: which device made this fixture?");
  for (Case& c : read_cases(text, file)) {
    if (c.outputs.size() != c.threads) throw FormatError(file + ": case '" + c.name + "' has no results");
    const std::string name = c.name;
    if (!f.cases.emplace(name, std::move(c)).second) throw FormatError(file + ": case '" + name + "' twice");
  }
  return f;
}

std::string write_fixture(const std::string& device, const std::vector<Case>& cases) {
  std::string s =
      "# tests/ptx/fixtures/diff/ — results of the PTX differential test's cases (scripts/ptx_diff_cases.py)\n"
      "# on the device below, one line per thread: its index, operands : results (hex). Written by\n"
      "# ptx_diff_gpu; the test (tests/ptx/diff) runs the same cases on the interpreter against it.\n";
  s += "device " + device + "\n";
  for (const Case& c : cases) {
    s += "case " + c.header + "\n";
    for (size_t t = 0; t < c.inputs.size(); ++t) {
      s += std::to_string(t);
      for (size_t i = 0; i < c.ins.size(); ++i) s += " " + hex_of(c.inputs[t][i], c.ins[i]);
      s += " :";
      for (size_t i = 0; i < c.outs.size(); ++i) s += " " + hex_of(c.outputs[t][i], c.outs[i]);
      s += "\n";
    }
  }
  return s;
}

Module split_module(const std::string& ptx) {
  Module m;
  const std::string mark = "// ---- case ";
  size_t pos = ptx.find(mark);
  m.header = ptx.substr(0, pos);
  while (pos != std::string::npos) {
    const size_t eol = ptx.find('\n', pos);
    const std::string name = ptx.substr(pos + mark.size(), eol - pos - mark.size());
    const size_t next = ptx.find(mark, eol);
    m.cases[name] = ptx.substr(eol + 1, next == std::string::npos ? std::string::npos : next - eol - 1);
    pos = next;
  }
  return m;
}

bool read_file(const std::string& path, std::string& text) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream s;
  s << f.rdbuf();
  text = s.str();
  return true;
}

}  // namespace ws::ptxdiff
