// src/program/sources.cpp — a program of several files: which of the words given to nvcc are
// device sources, host files, link flags or flags for both builds, and the PTX of every .cu
// file made into the one module the emulated device loads.
#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "program/program.h"

namespace ws::program {
namespace fs = std::filesystem;

namespace {

}  // namespace

bool nvcc_takes_value(const std::string& f) {
  static const std::set<std::string> kWithValue{
      "-I", "-D", "-U", "-L", "-l", "-include", "-isystem", "-Xcompiler", "-Xlinker", "-Xptxas", "-Xnvlink",
      "-Xarchive", "-Xcudafe", "-x", "-arch", "-code", "-gencode", "-ccbin", "-o", "-std", "-maxrregcount", "-rdc",
      "-odir", "-t", "-diag-suppress", "-m", "--compiler-options", "--linker-options", "--include-path",
      "--define-macro", "--undefine-macro", "--library", "--library-path", "--gpu-architecture", "--gpu-code",
      "--generate-code", "--compiler-bindir", "--output-file", "--std", "--relocatable-device-code", "--pre-include",
      "--system-include", "--ptxas-options", "--nvlink-options", "--threads", "--diag-suppress", "--x",
      "--maxrregcount", "--machine"};
  return kWithValue.count(f) > 0;
}

namespace {

// The flag's name without a joined value: "-arch=sm_80" -> "-arch".
std::string flag_name(const std::string& f) { return f.substr(0, f.find('=')); }

bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace

SourceSplit split_sources(const Options& o) {
  SourceSplit s;
  s.device.push_back(o.source);
  const std::vector<std::string>& w = o.nvcc_flags;
  for (size_t i = 0; i < w.size(); ++i) {
    const std::string& f = w[i];
    if (f.empty()) continue;
    if (f[0] != '-') {
      const std::string ext = fs::path(f).extension().string();
      if (ext == ".cu") {
        if (!fs::exists(f)) throw Error("no such file: " + f, std::string("input"));
        s.device.push_back(f);
      } else if (host_file(f)) {
        s.host.push_back(fs::absolute(f).string());
      } else if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c" || ext == ".o" || ext == ".a" ||
                 ext == ".so") {
        throw Error("no such file: " + f, std::string("input"));
      } else {
        throw Error("nvcc does not know what to do with '" + f +
                        "': a source is a .cu/.cpp/.c file, an object .o/.a/.so; the program's own arguments follow --",
                    std::string("input"));
      }
      continue;
    }
    // The flag and its value, as one or two words.
    std::vector<std::string> words{f};
    if (nvcc_takes_value(f)) {
      if (i + 1 >= w.size()) throw Error("nvcc flag " + f + " needs a value", std::string("input"));
      words.push_back(w[++i]);
    }
    const std::string name = flag_name(f);
    static const std::set<std::string> kArch{"-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode",
                                             "--generate-code"};
    static const std::set<std::string> kRefused{"-o", "--output-file", "-c", "--compile", "-ptx", "--ptx", "-cubin",
                                                "--cubin", "-E", "--preprocess", "-M", "-run", "--run", "-lib",
                                                "--lib", "-dlink", "--device-link", "-odir", "-fatbin", "--fatbin"};
    if (kArch.count(name) || starts(f, "-arch") || starts(f, "-gencode")) {
      s.dropped.push_back(words.size() == 2 ? words[0] + " " + words[1] : words[0]);
      continue;
    }
    if (kRefused.count(name))
      throw Error("nvcc's " + name + " is warpscope's to choose: it builds and runs the whole program itself",
                  std::string("input"));
    const bool link = starts(f, "-l") || starts(f, "-L") || name == "-Xlinker" || name == "--linker-options" ||
                      name == "--library" || name == "--library-path" || name == "-Xnvlink" || starts(f, "-Wl,");
    for (const std::string& x : words) (link ? s.link : s.both).push_back(x);
  }
  // The target the architecture words asked for.
  static const std::regex target(R"((?:sm|compute)_(\d+)([a-z]?))");
  std::string best;
  auto number = [](const std::string& a) { return std::stoi(a.substr(0, a.find_first_not_of("0123456789"))); };
  auto rank = [&](const std::string& a) {  // higher is preferred: sm_90a, sm_90, the newest below, the rest
    const int v = number(a);
    return a == "90a" ? 3000 : v == 90 ? 2000 : v < 90 ? 1000 + v : -v;
  };
  for (const std::string& d : s.dropped)
    for (auto it = std::sregex_iterator(d.begin(), d.end(), target); it != std::sregex_iterator(); ++it) {
      const std::string a = (*it)[1].str() + (*it)[2].str();
      if (best.empty() || rank(a) > rank(best)) best = a;
    }
  s.arch = best;
  return s;
}

std::string merge_ptx(const std::vector<std::string>& texts) {
  if (texts.size() == 1) return texts[0];
  // Each module numbers its .file entries from 1 and names its string constants and
  // labels $str, $L__...: the later modules' numbers move past the earlier ones' and their
  // $-names take the module's number, so nothing of one file is mistaken for another's.
  static const std::regex header(R"(^\s*\.(version|target|address_size)\b.*$)");
  static const std::regex file_dir(R"(^(\s*\.file\s+)(\d+)(.*)$)");
  static const std::regex loc(R"(^(\s*\.loc\s+)(\d+)(.*)$)");
  static const std::regex inlined(R"(inlined_at\s+(\d+))");
  static const std::regex dollar(R"(\$[A-Za-z0-9_$]+)");
  static const std::regex extern_decl(R"(^\s*\.extern\s+\.func\b(?:\s*\([^)]*\))?\s*([A-Za-z_$][A-Za-z0-9_$]*))");
  std::ostringstream out;
  uint32_t file_base = 0;
  std::set<std::string> externs;
  for (size_t k = 0; k < texts.size(); ++k) {
    std::istringstream in(texts[k]);
    uint32_t most = 0;
    bool skipping_extern = false;
    for (std::string l; std::getline(in, l);) {
      std::smatch m;
      if (skipping_extern) {  // the rest of a repeated .extern declaration, to its ';'
        if (l.find(';') != std::string::npos) skipping_extern = false;
        continue;
      }
      if (k > 0 && std::regex_match(l, header)) continue;
      if (std::regex_search(l, m, extern_decl)) {
        // vprintf and the like, declared by every module that calls them: once is enough.
        if (!externs.insert(m[1].str()).second) {
          skipping_extern = l.find(';') == std::string::npos;
          continue;
        }
      }
      if (k > 0) {
        const std::string suffix = "_m" + std::to_string(k);
        std::string r;
        auto it = std::sregex_iterator(l.begin(), l.end(), dollar);
        size_t at = 0;
        for (; it != std::sregex_iterator(); ++it) {
          r += l.substr(at, size_t(it->position()) - at) + it->str() + suffix;
          at = size_t(it->position() + it->length());
        }
        l = r + l.substr(at);
      }
      if (std::regex_match(l, m, file_dir) || std::regex_match(l, m, loc)) {
        const uint32_t n = uint32_t(std::stoul(m[2].str()));
        most = std::max(most, n);
        std::string rest = m[3].str();
        std::string fixed;
        auto it = std::sregex_iterator(rest.begin(), rest.end(), inlined);
        size_t at = 0;
        for (; it != std::sregex_iterator(); ++it) {
          fixed += rest.substr(at, size_t(it->position()) - at) + "inlined_at " +
                   std::to_string(std::stoul((*it)[1].str()) + file_base);
          at = size_t(it->position() + it->length());
        }
        l = m[1].str() + std::to_string(n + file_base) + fixed + rest.substr(at);
      }
      out << l << "\n";
    }
    file_base += most;
  }
  return out.str();
}

}  // namespace ws::program
