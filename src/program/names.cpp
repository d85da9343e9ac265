// src/program/names.cpp — what the program's text calls its allocations; used by the driver
// and by the emulated runtime, which names each array as it is allocated (so that its
// messages name it too): by the line that called cudaMalloc, read from the program's debug
// lines, else by the order of the text's calls.
#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "program/program.h"

namespace ws::program {

std::vector<std::string> allocation_names(const std::string& text) {
  // The first `&name` of the call's first argument, whatever cast surrounds it:
  // (void**)&d_A, reinterpret_cast<void **>(&d_A).
  // Host memory too: cudaMallocHost / cudaHostAlloc(&h, ...), cudaHostRegister(h, ...).
  static const std::regex re(
      R"(cuda(?:Malloc(?:Managed|Pitch|Host|Async)?|HostAlloc)\s*\(([^;,]*?)&\s*([A-Za-z_][A-Za-z0-9_.>\-\[\]]*))"
      R"(|cudaHostRegister\s*\(\s*(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_.>\-\[\]]*))");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    names.push_back((*it)[2].matched ? (*it)[2].str() : (*it)[3].str());
  return names;
}

bool host_file(const std::string& arg) {
  const std::string ext = std::filesystem::path(arg).extension().string();
  for (const char* e : {".cpp", ".cc", ".cxx", ".c", ".o", ".a", ".so"})
    if (ext == e) return !arg.empty() && arg[0] != '-' && std::filesystem::exists(arg);
  return false;
}

std::string name_at_line(const std::string& text, uint32_t line, const std::string& label) {
  // The statement that starts on the line, to its ';' (a call may wrap onto the next lines).
  std::istringstream in(text);
  std::string l, statement;
  for (uint32_t k = 1; std::getline(in, l); ++k) {
    if (k < line) continue;
    statement += l + "\n";
    if (l.find(';') != std::string::npos || k >= line + 4) break;
  }
  const std::vector<std::string> names = allocation_names(statement);
  return names.size() == 1 ? names[0] : label;
}

CallLine parse_addr2line(const std::string& out) {
  // Innermost frame first: the toolkit's inline wrappers (cuda_runtime.h's template
  // cudaMalloc) and the system's headers are passed over to the program's own line.
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) {
    if (const size_t d = l.find(" (discriminator"); d != std::string::npos) l.resize(d);
    const size_t colon = l.rfind(':');
    if (colon == std::string::npos || l.compare(0, 2, "??") == 0) continue;
    const std::string file = l.substr(0, colon);
    const unsigned long line = std::strtoul(l.c_str() + colon + 1, nullptr, 10);
    const std::string base = std::filesystem::path(file).filename().string();
    if (line == 0 || file.rfind("/usr/", 0) == 0 || base.rfind("cuda_runtime", 0) == 0 || base == "cuda_runtime_api.h")
      continue;
    return {file, uint32_t(line)};
  }
  return {};
}

namespace {

std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The ELF file's type: 2 a fixed-address executable, 3 a position-independent one or a library.
int elf_type(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  unsigned char h[18] = {};
  if (!f.read(reinterpret_cast<char*>(h), sizeof h) || h[0] != 0x7f || h[1] != 'E') return 0;
  return h[16] | (h[17] << 8);
}

}  // namespace

namespace {

// The program's line of one return address; `wrapper` set when its frames were only the
// toolkit's headers (an out-of-line cudaMalloc<T> template: its caller has the line).
CallLine line_of(const void* return_address, bool& wrapper) {
  wrapper = false;
  Dl_info info{};
  if (!return_address || !::dladdr(return_address, &info) || !info.dli_fbase) return {};
  std::string file = info.dli_fname ? info.dli_fname : "";
  if (file.empty() || file[0] != '/') {
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return {};
    file.assign(exe, size_t(n));
  }
  const int type = elf_type(file);
  if (type != 2 && type != 3) return {};
  // The return address is the instruction after the call; the one before it is the call's.
  uintptr_t at = reinterpret_cast<uintptr_t>(return_address) - 1;
  if (type == 3) at -= reinterpret_cast<uintptr_t>(info.dli_fbase);
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%lx", static_cast<unsigned long>(at));
  const std::string command = "addr2line -i -e " + shell_quoted(file) + " " + hex + " 2>/dev/null";
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return {};
  std::string out;
  char buf[1024];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ::pclose(p);
  const CallLine line = parse_addr2line(out);
  wrapper = line.file.empty() && out.find("cuda_runtime") != std::string::npos;
  return line;
}

}  // namespace

CallLine call_line(const void* return_address) {
  bool wrapper = false;
  CallLine line = line_of(return_address, wrapper);
  if (!wrapper) return line;
  // Built without optimisation, cudaMalloc<T> is a function of the program's own: the
  // line is its caller's, found a frame further up this thread's stack.
  void* frames[32];
  const int n = ::backtrace(frames, 32);
  for (int i = 0; i + 1 < n; ++i)
    if (frames[i] == return_address) return line_of(frames[i + 1], wrapper);
  return line;
}

std::string name_of_call(const void* caller) {
  static std::mutex mu;
  static std::map<const void*, std::string> by_site;
  std::lock_guard<std::mutex> lock(mu);
  auto site = by_site.find(caller);
  if (site == by_site.end()) {
    const CallLine at = call_line(caller);
    std::string name;
    if (!at.file.empty()) {
      std::ifstream f(at.file, std::ios::binary);
      std::stringstream text;
      text << f.rdbuf();
      const std::string base = at.file.substr(at.file.rfind('/') + 1);
      name = name_at_line(text.str(), at.line, base + ":" + std::to_string(at.line));
    }
    site = by_site.emplace(caller, name).first;
  }
  return site->second;
}

std::string name_of_stack_call() {
  void* frames[48];
  const int n = ::backtrace(frames, 48);
  for (int i = 1; i < n; ++i) {
    Dl_info info{};
    // Only the program's own executable: shared libraries (the runtime, the driver, a
    // tool) carry no line of the program.
    if (!::dladdr(frames[i], &info) || (info.dli_fname && std::strstr(info.dli_fname, ".so"))) continue;
    if (std::string name = name_of_call(frames[i]); !name.empty()) return name;
  }
  return {};
}

}  // namespace ws::program
