// src/program/identity.cpp — what makes two builds of a program the same code: the text of
// its sources (the file, further source files, the headers they include with quotes) and
// its flags, hashed, comments aside. Figures measured on a GPU (the replay pack's SASS traces and times)
// belong to the program whose hash they were recorded with, whatever its file is called.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "program/program.h"

namespace ws::program {
namespace fs = std::filesystem;

namespace {

bool read_text(const fs::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

// The text as the compiler reads it, positions kept: each comment's characters dropped, its
// line breaks kept, blanks at a line's end dropped, so that a comment edited within its
// lines (a "Try" rewritten, a `// warpscope:` note added) leaves the code and every line
// number as they were, and the figures with them.
std::string without_comments(const std::string& t) {
  std::string out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"' || c == '\'') {  // a literal, escapes included, to its closing quote or line end
      out += c;
      for (++i; i < t.size() && t[i] != c && t[i] != '\n'; ++i) {
        if (t[i] == '\\' && i + 1 < t.size()) out += t[i++];
        out += t[i];
      }
      if (i < t.size()) out += t[i];
    } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
      while (i + 1 < t.size() && t[i + 1] != '\n') ++i;
    } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
      for (i += 2; i < t.size() && !(t[i] == '*' && i + 1 < t.size() && t[i + 1] == '/'); ++i)
        if (t[i] == '\n') out += '\n';
      ++i;
    } else {
      out += c;
    }
  }
  // Nor does the blank a trailing comment leaves at the end of its line.
  std::string trimmed, pending;
  trimmed.reserve(out.size());
  for (char c : out) {
    if (c == ' ' || c == '\t' || c == '\r') {
      pending += c;
      continue;
    }
    if (c != '\n') trimmed += pending;
    pending.clear();
    trimmed += c;
  }
  return trimmed;
}

// A word for nvcc that names an existing file whose bytes make the program.
bool source_word(const std::string& w) {
  if (w.empty() || w[0] == '-') return false;
  const std::string ext = fs::path(w).extension().string();
  for (const char* e : {".cu", ".cpp", ".cc", ".cxx", ".c", ".o", ".a", ".so"})
    if (ext == e) return fs::is_regular_file(w);
  return false;
}

// The -I folders of the flags ("-I dir", "-Idir").
std::vector<fs::path> include_dirs(const std::vector<std::string>& flags) {
  std::vector<fs::path> dirs;
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] == "-I" && i + 1 < flags.size()) dirs.push_back(flags[++i]);
    else if (flags[i].rfind("-I", 0) == 0 && flags[i].size() > 2) dirs.push_back(flags[i].substr(2));
  }
  return dirs;
}

// Appends file `p` and, depth first, the files its `#include "…"` lines name that exist
// beside it or under an -I folder (each file once; system headers are the toolkit's).
void add_file(const fs::path& p, const std::vector<fs::path>& dirs, std::set<std::string>& seen, std::string& canon) {
  std::error_code ec;
  const fs::path key = fs::weakly_canonical(p, ec);
  if (!seen.insert((ec ? p : key).string()).second) return;
  std::string text;
  if (!read_text(p, text)) return;
  const std::string code = without_comments(text);
  canon += "file " + std::to_string(code.size()) + "\n" + code + "\n";
  static const std::regex inc(R"(^[ \t]*#[ \t]*include[ \t]*"([^"]+)\")");
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) {
    std::smatch m;
    if (!std::regex_search(l, m, inc)) continue;
    std::vector<fs::path> where{p.parent_path() / m[1].str()};
    for (const auto& d : dirs) where.push_back(d / m[1].str());
    for (const auto& w : where)
      if (fs::is_regular_file(w, ec)) {
        add_file(w, dirs, seen, canon);
        break;
      }
  }
}

}  // namespace

std::string source_hash(const Options& o) {
  std::string canon = "warpscope source hash 1\n";
  std::vector<std::string> files{o.source};
  for (const std::string& w : o.nvcc_flags) {
    if (source_word(w)) files.push_back(w);
    else canon += "flag " + w + "\n";
  }
  if (!fs::is_regular_file(o.source)) return "";
  const std::vector<fs::path> dirs = include_dirs(o.nvcc_flags);
  std::set<std::string> seen;
  for (const auto& f : files) add_file(f, dirs, seen, canon);
  // FNV-1a, 64 bits: scripts/replay_index.py computes the same for the replay pack.
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : canon) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
  return hex;
}

}  // namespace ws::program
