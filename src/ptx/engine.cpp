// src/ptx/engine.cpp — the compiling engine's build: a module's generated C++ (codegen.cpp)
// compiled by the system's C++ compiler into a shared library, kept in the user's cache
// folder under a hash of everything it was made from (the generated text, the embedded
// headers, the flags, the contract version, the CPU it was tuned for), and loaded. A module
// found in the cache loads in milliseconds; one the compiler refuses runs on the
// interpreter, and error() says why in one line.
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ptx/engine.h"

namespace ws::ptx {

namespace fs = std::filesystem;

const char* engine_name(Engine e) { return e == Engine::Compiled ? "compiled" : "interpreter"; }

bool parse_engine(const std::string& text, Engine& e) {
  if (text == "compiled") e = Engine::Compiled;
  else if (text == "interpreter") e = Engine::Interpreter;
  else return false;
  return true;
}

namespace {

// -ffp-contract=off: the host compiler must not fuse a multiply and an add that the
// semantic functions keep apart (the interpreter's build targets a CPU without FMA).
// -frounding-math: directed rounding runs under fesetround, as in the interpreter's files.
constexpr const char* kFlags =
    "-std=c++20 -O2 -march=native -fPIC -fvisibility=hidden -ffp-contract=off -frounding-math -w";

// What every generated module includes first, precompiled once.
constexpr const char* kPrelude = "#pragma once\n#include <type_traits>\n#include \"ptx/arith.h\"\n#include \"ptx/compiled.h\"\n";

uint64_t fnv(uint64_t h, const std::string& s) {
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return (h ^ 0xff) * 0x100000001b3ull;
}

std::string hex(uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

// What the CPU can run (-march=native tunes for it): its flags line.
std::string cpu_flags() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("flags", 0) == 0) return line;
  return "";
}

std::string cache_folder(const EngineOptions& o) {
  if (!o.cache_dir.empty()) return o.cache_dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/warpscope/engine";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/warpscope/engine";
  return (fs::temp_directory_path() / "warpscope-engine").string();
}

bool write_file(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  return bool(f);
}

// The single quotes a shell needs around a path.
std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

}  // namespace

std::shared_ptr<CompiledModule> CompiledModule::build(const Module& m, const EngineOptions& o) {
  std::shared_ptr<CompiledModule> cm(new CompiledModule());
  cm->entries_.assign(m.kernels.size(), nullptr);
  const std::string text = generate(m);
  uint64_t sources = 0xcbf29ce484222325ull;
  for (const auto& [path, body] : engine_sources()) sources = fnv(fnv(sources, path), body);
  uint64_t key = fnv(fnv(fnv(fnv(sources, text), kFlags), o.compiler), cpu_flags());
  key = fnv(key, std::to_string(compiled::kAbi));
  std::error_code ec;
  const fs::path dir = cache_folder(o);
  fs::create_directories(dir, ec);
  const fs::path lib = dir / (hex(key) + ".so");
  cm->library_ = lib.string();
  if (!fs::exists(lib)) {
    const auto t0 = std::chrono::steady_clock::now();
    // The headers, once per set of them; the module's text; the library, renamed into place
    // whole so that another process never loads half of one.
    // The headers are parsed once (a precompiled prelude) and half.cpp compiled once, per
    // set of sources: a module's own compile is then its kernels alone.
    const fs::path inc = dir / ("include-" + hex(sources) + "-" + hex(fnv(fnv(0, kFlags), o.compiler)));
    if (!fs::exists(inc / "half.o")) {
      const fs::path tmp = fs::path(inc.string() + "." + std::to_string(getpid()));
      fs::create_directories(tmp / "ptx", ec);
      bool ok = !ec;
      for (const auto& [path, body] : engine_sources()) ok = ok && write_file(tmp / path, body);
      ok = ok && write_file(tmp / "ws_prelude.h", kPrelude);
      if (!ok) {
        cm->error_ = "the compiling engine cannot write to " + dir.string();
        fs::remove_all(tmp, ec);
        return cm;
      }
      const std::string t = quoted(tmp.string()), log = quoted((tmp / "build.log").string());
      const std::string cmd = o.compiler + " " + kFlags + " -I" + t + " -x c++-header " + t + "/ws_prelude.h -o " + t +
                              "/ws_prelude.h.gch >" + log + " 2>&1 && " + o.compiler + " " + kFlags + " -I" + t + " -c " + t +
                              "/ptx/half.cpp -o " + t + "/half.o >>" + log + " 2>&1";
      if (std::system(cmd.c_str()) != 0) {
        cm->error_ = "the compiling engine's " + o.compiler + " cannot compile its own sources (" + (tmp / "build.log").string() + ")";
        return cm;
      }
      fs::rename(tmp, inc, ec);
      if (ec) fs::remove_all(tmp, ec);  // another process put the same in place first
      if (!fs::exists(inc / "half.o")) {
        cm->error_ = "the compiling engine cannot write to " + dir.string();
        return cm;
      }
    }
    const std::string stem = hex(key) + "." + std::to_string(getpid());
    const fs::path src = dir / (stem + ".cpp"), out = dir / (stem + ".so"), log = dir / (hex(key) + ".log");
    if (!write_file(src, text)) {
      cm->error_ = "the compiling engine cannot write to " + dir.string();
      return cm;
    }
    const std::string cmd = o.compiler + " " + kFlags + " -shared -I" + quoted(inc.string()) + " " + quoted(src.string()) + " " +
                            quoted((inc / "half.o").string()) + " -o " + quoted(out.string()) + " >" + quoted(log.string()) +
                            " 2>&1";
    const int rc = std::system(cmd.c_str());
    fs::remove(src, ec);
    if (rc != 0 || !fs::exists(out)) {
      fs::remove(out, ec);
      cm->error_ = "the compiling engine's " + o.compiler + " failed on " + m.name + " (" + log.string() + ")";
      return cm;
    }
    fs::remove(log, ec);
    fs::rename(out, lib, ec);
    if (ec) {
      cm->error_ = "the compiling engine cannot write to " + dir.string();
      fs::remove(out, ec);
      return cm;
    }
    cm->compile_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  cm->handle_ = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!cm->handle_) {
    const char* why = dlerror();
    cm->error_ = "the compiling engine cannot load " + lib.string() + ": " + (why ? why : "dlopen failed");
    fs::remove(lib, ec);  // built elsewhere or damaged: made again next time
    return cm;
  }
  auto abi = reinterpret_cast<uint32_t (*)()>(dlsym(cm->handle_, "ws_engine_abi"));
  if (!abi || abi() != compiled::kAbi) {
    cm->error_ = "the compiling engine's library " + lib.string() + " is of another version";
    return cm;
  }
  for (size_t i = 0; i < m.kernels.size(); ++i)
    if (m.kernels[i].refused.empty())
      cm->entries_[i] = reinterpret_cast<compiled::Entry>(dlsym(cm->handle_, ("ws_kernel_" + std::to_string(i)).c_str()));
  return cm;
}

CompiledModule::~CompiledModule() {
  if (handle_) dlclose(handle_);
}

}  // namespace ws::ptx
