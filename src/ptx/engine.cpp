// src/ptx/engine.cpp — the compiling engine's build: a module's generated C++ (codegen.cpp)
// compiled by the system's C++ compiler into a shared library, kept in the user's cache
// folder under a hash of everything it was made from (the generated text, the embedded
// headers, the flags, the contract version, the CPU it was tuned for), and loaded. A module
// found in the cache loads in milliseconds; one the compiler refuses runs on the
// interpreter, and error() says why in one line.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ptx/engine.h"

extern char** environ;

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
// semantic functions keep apart (the interpreter's build targets a CPU without FMA). The
// generated code runs only round-to-nearest forms (a directed rounding is handed to the
// interpreter, which sets the host's mode around it), so it is compiled as ordinary code
// and its lanes' arithmetic vectorizes; half.cpp, whose functions round as told, keeps
// -frounding-math, as in the interpreter's build.
// A long module (long_module) is compiled at -O1 with vectorization, in about two thirds of
// -O2's time (tests/programs/tc_twin.cu: 3.9 s against 6.0 s), and without the precompiled
// prelude, which is -O2's.
constexpr const char* kFlags = "-std=c++20 -O2 -march=native -fPIC -fvisibility=hidden -ffp-contract=off -w";
constexpr const char* kLongFlags = " -O1 -ftree-vectorize";
constexpr const char* kHalfFlags = " -frounding-math";
constexpr size_t kPartBytes = size_t(256) << 10;  // the least text worth a compiler of its own
constexpr size_t kParts = 8;

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

EngineBuild::EngineBuild(const Module& m, EngineOptions o) : o_(std::move(o)), name_(m.name) {
  const Generated g = generate(m);
  text_ = g.text();
  // A long module in parts, one a core, each of a quarter megabyte of text or more (about
  // ten seconds of the compiler's), and at most kParts of them (each compiler takes a few
  // hundred megabytes): the parts compile side by side, then are linked.
  size_t n = o_.parts;
  if (n == 0 && long_module(m))
    n = std::min({size_t(std::max(1u, std::thread::hardware_concurrency())), kParts, text_.size() / kPartBytes});
  if (n > 1) parts_ = g.parts(n);
  for (const Kernel& k : m.kernels) runnable_.push_back(k.refused.empty());
  uint64_t sources = 0xcbf29ce484222325ull;
  for (const auto& [path, body] : engine_sources()) sources = fnv(fnv(sources, path), body);
  const std::string sources_key = hex(sources) + "-" + hex(fnv(fnv(0, kFlags), o_.compiler));
  long_ = long_module(m);
  optimize_ = o_.opt_level >= 0 ? " -O" + std::to_string(o_.opt_level) : long_ ? kLongFlags : "";
  uint64_t key = fnv(fnv(fnv(fnv(fnv(sources, text_), kFlags), optimize_), o_.compiler), cpu_flags());
  key = fnv(key, std::to_string(compiled::kAbi));
  const fs::path dir = cache_folder(o_);
  library_ = (dir / (hex(key) + ".so")).string();
  include_ = (dir / ("include-" + sources_key)).string();
  std::error_code ec;
  if (fs::exists(library_, ec) && load()) started_ = true;  // compiled before: nothing to do
}

EngineBuild::~EngineBuild() {
  stop();
  std::lock_guard<std::mutex> g(thread_mu_);
  if (thread_.joinable()) thread_.join();
}

void EngineBuild::stop() {
  stopping_ = true;
  if (const int pid = child_.load(); pid > 0) kill(-pid, SIGKILL);
}

// Only a short module's compile is left, and at most one a cache folder: its marker
// `left-PID` (the shell's pid; the shell removes it as it ends, however it ends short of
// being killed). Where another's marker names a live process, this one is stopped instead;
// a left one runs at the priority EngineOptions::leave_nice gives.
void EngineBuild::leave() {
  const int pid = child_.load();
  if (long_ || pid <= 0) {  // a long module's; or not started yet: nothing to leave
    stop();
    return;
  }
  std::error_code ec;
  const fs::path dir = fs::path(library_).parent_path();
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("left-", 0) != 0) continue;
    const int other = std::atoi(name.c_str() + 5);
    if (other == pid) return;  // left already (a program's end may be said more than once)
    if (other > 0 && kill(other, 0) == 0) {
      stop();
      return;
    }
    fs::remove(e.path(), ec);  // a marker of a compile that was killed
  }
  write_file(dir / ("left-" + std::to_string(pid)), "");
  setpriority(PRIO_PGRP, id_t(pid), o_.leave_nice);
  stopping_ = true;
}

void EngineBuild::start(bool wait) {
  if (!started_.exchange(true)) {
    if (wait) {
      run();
      return;
    }
    std::lock_guard<std::mutex> g(thread_mu_);
    thread_ = std::thread([this] { run(); });
    return;
  }
  if (wait) {  // started in the background: its end
    std::lock_guard<std::mutex> g(thread_mu_);
    if (thread_.joinable()) thread_.join();
  }
}

std::string EngineBuild::error() const {
  std::lock_guard<std::mutex> g(mu_);
  return error_;
}

void EngineBuild::fail(const std::string& why) {
  std::lock_guard<std::mutex> g(mu_);
  if (!stopping_) error_ = why + ": its kernels run on the interpreter";
}

int EngineBuild::shell(const std::string& command) {
  if (stopping_) return -1;
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  // (A compile left to finish must not hold the program's output open: whoever reads it
  // would wait for the compiler.)
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclosefrom_np(&files, 3);
  pid_t pid = 0;
  const char* argv[] = {"sh", "-c", command.c_str(), nullptr};
  const int rc = posix_spawn(&pid, "/bin/sh", &files, &attr, const_cast<char* const*>(argv), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return 127;
  child_ = pid;
  if (stopping_) kill(-pid, SIGKILL);  // stopped while it was being started
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  child_ = 0;
  if (stopping_) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// The headers parsed once (a precompiled prelude) and half.cpp compiled once per set of
// sources, then the module: its library renamed into place whole, so that another process
// never loads half of one. Every step after the sources are written is one shell command,
// its renames and clean-up included, so that a compile left to finish (leave) ends as it
// would have here.
void EngineBuild::run() {
  {
    std::lock_guard<std::mutex> g(mu_);
    error_.clear();
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  const fs::path dir = fs::path(library_).parent_path(), inc = include_;
  fs::create_directories(dir, ec);
  const std::string pid = std::to_string(getpid()) + "-" + hex(uint64_t(reinterpret_cast<uintptr_t>(this)));
  // The headers, where no run has made them yet: in a folder of this run's, renamed into
  // place whole (or removed, where another process put the same there first); exit 3 when
  // the compiler fails on them (the folder kept, for its log). Any failure of the module's
  // own steps exits 1, so that a compiler's own exit status of 3 is never taken for this.
  std::string steps = "m=" + quoted((dir / "left-").string()) + "$$; trap 'rm -f \"$m\"' EXIT; ";  // (leave's marker, where it made one)
  fs::path tmp;
  if (!fs::exists(inc / "half.o", ec)) {
    tmp = fs::path(inc.string() + "." + pid);
    fs::create_directories(tmp / "ptx", ec);
    bool ok = !ec;
    for (const auto& [path, body] : engine_sources()) ok = ok && write_file(tmp / path, body);
    ok = ok && write_file(tmp / "ws_prelude.h", kPrelude);
    if (!ok) {
      fs::remove_all(tmp, ec);
      fail("the compiling engine cannot write to " + dir.string());
      return;
    }
    const std::string t = quoted(tmp.string()), log = quoted((tmp / "build.log").string());
    steps += "{ " + o_.compiler + " " + kFlags + " -I" + t + " -x c++-header " + t + "/ws_prelude.h -o " + t +
            "/ws_prelude.h.gch >" + log + " 2>&1 && " + o_.compiler + " " + kFlags + kHalfFlags + " -I" + t + " -c " + t +
            "/ptx/half.cpp -o " + t + "/half.o >>" + log + " 2>&1 || exit 3; } && { mv -T " + t + " " + quoted(inc.string()) +
            " 2>/dev/null || rm -rf " + t + "; } && ";
  }
  // The module's sources written, and the command that makes its library of them.
  const fs::path out = fs::path(library_ + "." + pid), log = fs::path(library_).replace_extension(".log");
  const std::string cc = o_.compiler + " " + kFlags + optimize_ + " -I" + quoted(inc.string()) + " ";
  const std::string to_log = " >>" + quoted(log.string()) + " 2>&1", half = quoted((inc / "half.o").string());
  fs::remove(log, ec);
  std::vector<fs::path> made;  // removed once the library is made
  bool written = true;
  std::string cmd;
  if (parts_.empty()) {  // one translation unit, compiled and linked at once
    made.push_back(library_ + "." + pid + ".cpp");
    written = write_file(made[0], text_);
    cmd = cc + "-shared " + quoted(made[0].string()) + " " + half + " -o " + quoted(out.string()) + to_log;
  } else {  // the parts side by side, each waited for and its status kept, then linked
    std::string waits, ok = "true", objects;
    for (size_t i = 0; i < parts_.size(); ++i) {
      const std::string base = library_ + "." + pid + "." + std::to_string(i), p = std::to_string(i);
      made.push_back(base + ".cpp");
      made.push_back(base + ".o");
      written = written && write_file(base + ".cpp", parts_[i]);
      cmd += cc + "-c " + quoted(base + ".cpp") + " -o " + quoted(base + ".o") + to_log + " & p" + p + "=$!; ";
      waits += "wait $p" + p + "; r" + p + "=$?; ";
      ok += " && [ $r" + p + " = 0 ]";
      objects += " " + quoted(base + ".o");
    }
    cmd += waits + ok + " && " + o_.compiler + " -shared" + objects + " " + half + " -o " + quoted(out.string()) + to_log;
  }
  std::string clean = quoted(out.string());  // what the shell removes as it ends
  for (const fs::path& f : made) clean.append(" ").append(quoted(f.string()));
  const std::string& lib = library_;
  steps += "( " + cmd + " ) && mv -f " + quoted(out.string()) + " " + quoted(lib) + " 2>>" + quoted(log.string()) +
           "; r=$?; rm -f " + clean + "; [ $r -ne 0 ] || rm -f " + quoted(log.string()) + "; [ $r -eq 0 ] || r=1; exit $r";
  const int rc = written ? shell(steps) : 1;
  // (The shell has ended, its own way or killed: what it left is removed.)
  for (const fs::path& f : made) fs::remove(f, ec);
  fs::remove(out, ec);
  if (!written || rc < 0) {
    if (!tmp.empty()) fs::remove_all(tmp, ec);
    if (!written) fail("the compiling engine cannot write to " + dir.string());
    return;
  }
  if (rc == 3) {
    fail("the compiling engine's " + o_.compiler + " cannot compile its own sources (" + (tmp / "build.log").string() + ")");
    return;
  }
  if (rc != 0) {
    fail("the compiling engine's " + o_.compiler + " failed on " + name_ + " (" + log.string() + ")");
    return;
  }
  if (load()) compile_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool EngineBuild::load() {
  std::unique_ptr<CompiledModule> cm(new CompiledModule());
  cm->handle_ = dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!cm->handle_) {
    const char* why = dlerror();
    fail("the compiling engine cannot load " + library_ + ": " + (why ? why : "dlopen failed"));
    std::error_code ec;
    fs::remove(library_, ec);  // damaged, or built for another machine: made again next time
    return false;
  }
  auto abi = reinterpret_cast<uint32_t (*)()>(dlsym(cm->handle_, "ws_engine_abi"));
  if (!abi || abi() != compiled::kAbi) {
    fail("the compiling engine's library " + library_ + " is of another version");
    return false;
  }
  cm->entries_.assign(runnable_.size(), nullptr);
  for (size_t i = 0; i < runnable_.size(); ++i)
    if (runnable_[i]) cm->entries_[i] = reinterpret_cast<compiled::Entry>(dlsym(cm->handle_, ("ws_kernel_" + std::to_string(i)).c_str()));
  module_ = std::move(cm);
  ready_.store(module_.get(), std::memory_order_release);
  return true;
}

CompiledModule::~CompiledModule() {
  if (handle_) dlclose(handle_);
}

}  // namespace ws::ptx
