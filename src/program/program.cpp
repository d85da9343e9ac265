// src/program/program.cpp — building a user's program and running it: on the emulated
// device (the child loads warpscope's libcudart.so.13) or, traced and timed, on this
// machine's GPU (the child has the GPU tracer injected). What the child is told goes
// through program/environment.h.
#include "program/program.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <mutex>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "env/environment.h"
#include "program/limits.h"
#include "program/timing.h"
#include "ptx/ptx.h"
#include "sass/import.h"
#include "trace/assets.h"
#include "trace/wstrace.h"

namespace ws::program {
namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Child {
  int status = 0;
  bool timed_out = false;
  std::string output;  // captured stdout + stderr (when not echoed)
  std::string errors;  // its stderr as passed through (when echoed and teed)
};

// A child process started with extra environment entries, its output to `log_path` when
// captured; else, with `tee`, its stderr passed through a pipe so that the emulated
// device's lines can be read as they go by.
struct Started {
  pid_t pid = -1;
  bool capture = false;
  std::string log_path;
  int err_fd = -1;  // the read end of the stderr pipe, when teed
};

Started start(const std::vector<std::string>& argv, const std::vector<std::string>& env, bool capture,
              const std::string& log_path = "", bool tee = false, const Limits& limits = {}) {
  Started s;
  s.capture = capture;
  s.log_path = log_path;
  int out_fd = -1, err_pipe[2] = {-1, -1};
  if (capture) {
    out_fd = ::open(log_path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (out_fd < 0) throw Error("cannot write " + log_path);
  } else if (tee && ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw Error("cannot start " + argv[0] + ": no pipe");
  }
  // Everything the child needs is built before fork: a threaded parent's child may only
  // make async-signal-safe calls until exec. The environment is this one with `env` over it.
  std::vector<std::string> envs = env;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('=') + 1);
    bool replaced = false;
    for (const std::string& x : env) replaced |= x.rfind(key, 0) == 0;
    if (!replaced) envs.push_back(kv);
  }
  std::vector<char*> envp, a;
  for (std::string& x : envs) envp.push_back(x.data());
  envp.push_back(nullptr);
  for (const std::string& x : argv) a.push_back(const_cast<char*>(x.c_str()));
  a.push_back(nullptr);
  static const char kCannot[] = "warpscope: cannot run the compiler or the program\n";
  const pid_t parent = ::getpid();
  s.pid = ::fork();
  if (s.pid < 0) throw Error("cannot start " + argv[0]);
  if (s.pid == 0) {
    ::setpgid(0, 0);
    // In a process group of its own, a Ctrl-C at the terminal does not reach it: it ends
    // when warpscope does, however warpscope ends (the thread that started it waits for it).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    apply_limits(limits);
    if (out_fd >= 0) {
      ::dup2(out_fd, 1);
      ::dup2(out_fd, 2);
    }
    if (err_pipe[1] >= 0) ::dup2(err_pipe[1], 2);
    ::execvpe(a[0], a.data(), envp.data());
    if (::write(2, kCannot, sizeof kCannot - 1) < 0) {}
    ::_exit(127);
  }
  if (out_fd >= 0) ::close(out_fd);
  if (err_pipe[1] >= 0) {
    ::close(err_pipe[1]);
    s.err_fd = err_pipe[0];
  }
  return s;
}

// Passes on what the child wrote to its stderr pipe, waiting up to `ms` for some; false at
// its end.
bool pass_errors(int fd, std::string& kept, int ms) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, ms) <= 0) return true;
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n <= 0) return false;
  kept.append(buf, size_t(n));
  for (ssize_t at = 0; at < n;) {
    const ssize_t w = ::write(2, buf + at, size_t(n - at));
    if (w <= 0) break;
    at += w;
  }
  return true;
}

// Waits for a started child up to `timeout` seconds (then kills its process group).
Child wait(const Started& s, double timeout) {
  Child c;
  const auto t0 = std::chrono::steady_clock::now();
  bool open = s.err_fd >= 0;
  for (;;) {
    const pid_t r = ::waitpid(s.pid, &c.status, WNOHANG);
    if (r == s.pid) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > timeout) {
      ::kill(-s.pid, SIGKILL);
      ::waitpid(s.pid, &c.status, 0);
      c.timed_out = true;
      break;
    }
    if (open) open = pass_errors(s.err_fd, c.errors, 2);
    else std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // What is left in the pipe; a process the program left running may hold it open, so
  // only what is there now.
  if (s.err_fd >= 0) {
    for (pollfd p{s.err_fd, POLLIN, 0}; open && ::poll(&p, 1, 0) > 0;) open = pass_errors(s.err_fd, c.errors, 0);
    ::close(s.err_fd);
  }
  if (s.capture) c.output = read_file(s.log_path);
  return c;
}

Child spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, double timeout, bool capture,
            const std::string& log_path = "") {
  return wait(start(argv, env, capture, log_path), timeout);
}

// A link that failed: the first symbol the linker could not find, with the library that
// holds it where that is one of CUDA's (the linker's own last line, "ld returned 1 exit
// status", names no cause). Empty when the log has no undefined reference.
std::string undefined_reference(const std::string& log) {
  const size_t at = log.find("undefined reference to");
  if (at == std::string::npos) return "";
  const size_t end = log.find('\n', at);
  std::string line = log.substr(at, end == std::string::npos ? std::string::npos : end - at);
  const size_t q = line.find_first_of("`'\""), q2 = q == std::string::npos ? q : line.find_first_of("'\"", q + 1);
  const std::string sym = q2 == std::string::npos ? "" : line.substr(q + 1, q2 - q - 1);
  const char* lib = sym.rfind("cublas", 0) == 0 ? "-lcublas"
                    : sym.rfind("curand", 0) == 0 ? "-lcurand"
                    : sym.rfind("cufft", 0) == 0 ? "-lcufft"
                    : sym.rfind("cu", 0) == 0 && sym.size() > 2 && std::isupper(uint8_t(sym[2])) ? "-lcuda"
                                                                                                   : nullptr;
  return "link failed: " + line + (lib ? std::string(" (it is in ") + lib + ": add it to the command)" : "");
}

// The first error line nvcc printed (a failed link's missing symbol), else its last line.
std::string first_error_line(const std::string& log) {
  if (std::string why = undefined_reference(log); !why.empty()) return why;
  std::istringstream in(log);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find("error") != std::string::npos) return line;
    if (!line.empty()) last = line;
  }
  return last.empty() ? "nvcc failed" : last;
}

// nvcc's failure as an Error: its first error line, and every message.
Error build_error(const std::string& log) {
  std::vector<Diagnostic> d = parse_diagnostics(log);
  std::string line = first_error_line(log);
  for (const Diagnostic& x : d)
    if (x.severity == "error") {
      line = x.file + "(" + std::to_string(x.line) + "): error: " + x.message;
      break;
    }
  Error e(line, d);
  e.kind = "compile";
  // The problem a front end draws: the first error and its line; the whole log beside it.
  e.problem.kind = "compile";
  e.problem.message = line;
  for (const Diagnostic& x : d)
    if (x.severity == "error") {
      e.problem.at.push_back(Place{x.file, x.line});
      break;
    }
  for (const Diagnostic& x : d)
    if (x.severity == "error" && x.message != d.front().message)
      e.problem.output += x.file.substr(x.file.rfind('/') + 1) + "(" + std::to_string(x.line) + "): " + x.message + "\n";
  return e;
}


struct TempDir {
  std::string path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "warpscope-XXXXXX").string();
    if (!::mkdtemp(t.data())) throw Error("cannot create a temporary folder");
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

namespace {

// The first folder holding every one of `files`: the override `var`, `sub` beside the
// binary or a level up, lib/warpscope of an install, or this build's `built` ("" : none);
// "" when none does.
std::string find_dir(env::Var var, const std::string& sub, const char* built, std::initializer_list<const char*> files) {
  std::vector<std::string> dirs;
  if (env::is_set(var)) dirs.push_back(env::get_string(var));
  const std::string exe = trace::exe_dir();
  if (!exe.empty()) {
    dirs.push_back(exe + "/" + sub);
    dirs.push_back(exe + "/../" + sub);
    dirs.push_back(exe + "/../lib/warpscope");
  }
  if (built && *built) dirs.push_back(built);
  for (const std::string& d : dirs)
    if (std::all_of(files.begin(), files.end(), [&](const char* f) { return fs::exists(d + "/" + f); })) return d;
  return "";
}

#ifdef WS_CUDART_DIR
constexpr const char* kBuiltRuntime = WS_CUDART_DIR;
#else
constexpr const char* kBuiltRuntime = "";
#endif
#ifdef WS_TRACER_DIR
constexpr const char* kBuiltTracer = WS_TRACER_DIR;
#else
constexpr const char* kBuiltTracer = "";
#endif

}  // namespace

std::string runtime_dir() {
  const std::string d = find_dir(env::Var::cudart_dir, "emulated", kBuiltRuntime, {"libcudart.so.13"});
  if (d.empty())
    throw Error("warpscope's emulated CUDA runtime (libcudart.so.13) was not built; rebuild with the CUDA toolkit's headers present");
  return d;
}

std::string find_nvcc() {
  std::vector<std::string> c;
  if (const char* h = std::getenv("CUDA_HOME")) c.push_back(std::string(h) + "/bin/nvcc");
  c.push_back("/usr/local/cuda/bin/nvcc");
  if (const char* p = std::getenv("PATH")) {
    std::string path = p;
    size_t s = 0;
    while (s <= path.size()) {
      const size_t e = path.find(':', s);
      const std::string d = path.substr(s, e == std::string::npos ? std::string::npos : e - s);
      if (!d.empty()) c.push_back(d + "/nvcc");
      if (e == std::string::npos) break;
      s = e + 1;
    }
  }
  for (const std::string& n : c)
    if (::access(n.c_str(), X_OK) == 0) return n;
  return "";
}

void drop_unused_toolkit_arrays(trace::Trace& t) {
  // nvcc's own module variables ($str: printf's formats) are arrays to the emulated device
  // but nothing the program wrote: where no access reaches them, the arrays list leaves
  // them out.
  std::vector<bool> used(t.buffers.size(), false);
  for (const trace::Record& r : t.records) {
    if (r.buffer < used.size()) used[r.buffer] = true;
    if (r.lanes)
      for (uint32_t b : *r.lanes)
        if (b < used.size()) used[b] = true;
  }
  for (const trace::Site& s : t.sites)
    if (s.buffer < used.size()) used[s.buffer] = true;
  std::vector<uint32_t> to(t.buffers.size(), trace::kNoBuffer);
  std::vector<trace::Buffer> kept;
  for (size_t i = 0; i < t.buffers.size(); ++i) {
    if (!used[i] && !t.buffers[i].name.empty() && t.buffers[i].name[0] == '$') continue;
    to[i] = uint32_t(kept.size());
    kept.push_back(std::move(t.buffers[i]));
  }
  if (kept.size() == t.buffers.size()) {
    t.buffers = std::move(kept);
    return;
  }
  t.buffers = std::move(kept);
  auto moved = [&](uint32_t b) { return b < to.size() ? to[b] : b; };
  for (trace::Record& r : t.records) {
    r.buffer = moved(r.buffer);
    if (r.lanes) {
      auto lanes = std::make_shared<trace::LaneBuffers>(*r.lanes);
      for (uint32_t& b : *lanes) b = moved(b);
      r.lanes = std::move(lanes);
    }
  }
  for (trace::Site& s : t.sites) s.buffer = moved(s.buffer);
}

void finish_trace(trace::Trace& t, const std::string& main_file) {
  drop_unused_toolkit_arrays(t);
  // The program's own file first (reports name lines of other files by their file).
  for (size_t i = 1; i < t.files.size(); ++i) {
    if (t.files[i].name != main_file) continue;
    std::swap(t.files[0], t.files[i]);
    for (trace::Site& s : t.sites)
      if (s.file == 0) s.file = uint32_t(i);
      else if (s.file == i) s.file = 0;
    break;
  }
  // Source text of every file the kernels' lines come from; sites get their line's code.
  for (trace::SourceFile& f : t.files)
    if (f.text.empty() && fs::exists(f.name)) f.text = read_file(f.name);
  for (trace::Site& s : t.sites)
    if (s.code.empty() && s.file < t.files.size()) s.code = trace::source_line(t.files[s.file].text, s.line);
}

// nvcc's own steps for `build` (as `nvcc -dryrun` lists them), run with the two front ends
// at once: the host side (preprocessor, cudafe++) beside the device side (preprocessor,
// cicc, which also writes the host's registration stubs), then the rest in nvcc's order;
// the device code is embedded as the PTX cicc wrote (the emulated device runs PTX; no
// ptxas). Leaves cicc's PTX at `ptx`. False when nvcc's plan is not the expected shape or a
// step fails: the caller then builds the plain way (which also gives nvcc's own messages).
bool build_in_parallel(const std::vector<std::string>& build, const std::string& dir, const std::string& ptx) {
  std::vector<std::string> dry = build;
  dry.push_back("-dryrun");
  const std::vector<std::string> tmp{"TMPDIR=" + dir};
  const Child plan = spawn(dry, tmp, 60, true, dir + "/dryrun.log");
  if (plan.timed_out || !WIFEXITED(plan.status) || WEXITSTATUS(plan.status) != 0) return false;
  std::string exports;
  std::vector<std::string> host, device, rest;
  std::string cicc_ptx;
  std::istringstream lines(plan.output);
  static const std::regex assign(R"(^([A-Za-z_][A-Za-z0-9_]*)=(.*)$)");
  static const std::regex ptx_out(R"re("([^"]+\.ptx)")re");
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("#$ ", 0) != 0) continue;
    l = l.substr(3);
    std::smatch m;
    if (std::regex_match(l, m, assign)) {
      const std::string v = m[2].str();
      if (v.find('"') == std::string::npos && v.find(' ') == std::string::npos && v.find('\'') == std::string::npos)
        exports += "export " + m[1].str() + "='" + v + "'; ";
      continue;
    }
    const bool device_arch = l.find("-D__CUDA_ARCH__=") != std::string::npos;
    if (l.rfind("gcc ", 0) == 0 && l.find(" -E ") != std::string::npos) {
      (device_arch ? device : host).push_back(l);
    } else if (l.rfind("cudafe++ ", 0) == 0) {
      host.push_back(l);
    } else if (l.find("/cicc\" ") != std::string::npos || l.rfind("cicc ", 0) == 0) {
      if (!std::regex_search(l, m, ptx_out)) return false;
      cicc_ptx = m[1].str();
      // cicc makes the module's id itself (the same one cudafe++ makes) instead of reading
      // cudafe++'s: the two no longer wait for each other.
      static const std::regex id(R"re(--module_id_file_name "([^"]+)")re");
      if (!std::regex_search(l, m, id)) return false;
      l = std::regex_replace(l, id, "--gen_module_id_file --module_id_file_name \"$1.device\"");
      device.push_back(l);
    } else if (l.rfind("ptxas ", 0) == 0) {
      continue;  // no machine code: the emulated device runs the PTX
    } else if (l.rfind("fatbinary ", 0) == 0 && l.find("kind=elf") != std::string::npos && l.find(" -link ") == std::string::npos) {
      // The program's fatbinary with its PTX alone.
      static const std::regex elf(R"re( "--image3=kind=elf[^"]*")re");
      rest.push_back(std::regex_replace(l, elf, ""));
    } else if (l.rfind("rm ", 0) == 0) {
      rest.push_back("rm -f " + l.substr(3));  // files nvcc itself would have made
    } else {
      rest.push_back(l);
    }
  }
  if (host.size() != 2 || device.size() != 2 || cicc_ptx.empty() || rest.empty()) return false;
  auto script = [&](const std::vector<std::string>& cmds) {
    std::string sh = exports + "set -e; ";
    for (const std::string& c : cmds) sh += c + "; ";
    return std::vector<std::string>{"/bin/sh", "-c", sh};
  };
  const Started h = start(script(host), tmp, true, dir + "/host.log");
  const Started d = start(script(device), tmp, true, dir + "/device.log");
  const Child hc = wait(h, 300), dc = wait(d, 300);
  auto ok = [](const Child& c) { return !c.timed_out && WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0; };
  if (!ok(hc) || !ok(dc)) return false;
  std::error_code ec;
  fs::copy_file(cicc_ptx, ptx, fs::copy_options::overwrite_existing, ec);
  if (ec) return false;
  return ok(spawn(script(rest), tmp, 300, true, dir + "/link.log"));
}

bool gpu_here(std::string& name, std::string& arch, std::string& why) {
  if (!fs::exists("/dev/nvidiactl") && !fs::exists("/dev/nvidia0")) {
    why = "no NVIDIA GPU on this machine";
    return false;
  }
  TempDir dir;
  const Child c = spawn({"nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader"}, {}, 30, true,
                        dir.path + "/smi.out");
  std::string line = c.output.substr(0, c.output.find('\n'));
  const size_t comma = line.rfind(',');
  if (c.timed_out || !WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 || comma == std::string::npos) {
    why = "no NVIDIA GPU answers here (nvidia-smi: " + first_error_line(c.output) + ")";
    return false;
  }
  name = line.substr(0, comma);
  arch = line.substr(comma + 1);
  arch.erase(std::remove_if(arch.begin(), arch.end(), [](char ch) { return !std::isdigit(static_cast<unsigned char>(ch)); }),
             arch.end());
  return !name.empty() && !arch.empty();
}

std::string tracer_dir() {
  return find_dir(env::Var::tracer_dir, "gpu_tracer", kBuiltTracer,
                  {"libwarpscope_tracer.so", "warpscope_tracer_patch.fatbin"});
}

namespace {

// The built program `exe` and the program's own arguments.
std::vector<std::string> argv_of(const std::string& exe, const Options& o) {
  std::vector<std::string> argv{exe};
  argv.insert(argv.end(), o.args.begin(), o.args.end());
  return argv;
}

// `name` found on PATH ("" when not).
std::string on_path(const std::string& name) {
  const char* p = std::getenv("PATH");
  std::istringstream dirs(p ? p : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && ::access((d + "/" + name).c_str(), X_OK) == 0) return d + "/" + name;
  return "";
}

}  // namespace

namespace {

std::mutex last_mu;
Ending last;

// The limits of the user's program under options `o` (see Options).
Limits program_limits(const Options& o) {
  Limits l;
  l.core = o.core_dump;
  l.open_files = 4096;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  l.cpu_seconds = uint64_t(o.timeout_seconds * cores) + 60;
  if (o.backend != "gpu") l.address_bytes = memory_limit_bytes(o.memory_limit_mib);
  return l;
}

// Runs the built program `exe` with its arguments and `env`, timing it into `r` from `t1`
// and reading what the emulated device stopped; throws Error when it runs past the timeout.
// `grace`: seconds past the timeout before it is killed (the emulated device stops the
// program itself at the timeout and writes what it has: that may take a while).
Child run_built(const std::string& exe, const Options& o, const std::vector<std::string>& env, const std::string& dir,
                Result& r, std::chrono::steady_clock::time_point t1, double grace = 0) {
  std::vector<std::string> argv = argv_of(exe, o);
  // The C library keeps a program's stdout in a block buffer when it is not a terminal: a
  // program stopped at the timeout would lose all it printed. Line by line, it keeps it.
  if (const std::string sb = on_path("stdbuf"); !sb.empty()) argv.insert(argv.begin(), {sb, "-oL"});
  Child c = wait(start(argv, env, !o.echo, dir + "/program.out", true, program_limits(o)), o.timeout_seconds + grace);
  r.run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  r.output = c.output;
  r.ending = ending_of(o.echo ? c.errors : c.output);
  if (c.timed_out) {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.0f", o.timeout_seconds);
    Error e("the program did not finish within " + std::string(secs) + " s and was stopped", std::string("timeout"));
    e.output = c.output;
    e.problem.kind = "timeout";
    e.problem.message = e.what();
    e.problem.output = last_lines(c.output, 6);
    throw e;
  }
  return c;
}

// The program run once more on the GPU, nothing patched, the tracer's timer timing each
// launch plainly (tools/gpu_tracer/timer.cpp): the times go into the trace as bench rows.
// A timing run that fails leaves a note, not an error: the trace is already made.
// `source_text` and `ptx` the program's ("" for one built elsewhere).
void time_launches(const std::string& exe, const Options& o, const std::string& tools, const std::string& device,
                   const std::string& source_text, const std::string& ptx, const std::string& dir, Result& r) {
  const std::string path = dir + "/gpu.times";
  std::vector<std::string> child_env{"CUDA_INJECTION64_PATH=" + tools + "/libwarpscope_tracer.so",
                                     env::entry(env::Var::gpu_times, path)};
  if (!ptx.empty()) child_env.push_back(env::entry(env::Var::kernel_params, param_layout_env(ptx_param_layout(ptx))));
  const Child c = spawn(argv_of(fs::absolute(exe).string(), o), child_env, o.timeout_seconds + 90, true, dir + "/timed.out");
  std::vector<TimedLaunch> times;
  try {
    if (!fs::exists(path)) throw Error("the timer wrote nothing");
    times = read_times(read_file(path));
  } catch (const Error& e) {
    r.notes.push_back(std::string("the kernels were not timed: ") + e.what());
    return;
  }
  if (c.timed_out) r.notes.push_back("the timing run did not finish: the launches after the last timed one are missing");
  else if (!WIFEXITED(c.status)) r.notes.push_back("the timing run crashed: its times may be incomplete");
  else if (WEXITSTATUS(c.status) != r.exit_code)
    r.notes.push_back("the program exited with code " + std::to_string(WEXITSTATUS(c.status)) + " while timed (" +
                      std::to_string(r.exit_code) + " when traced): a buffer its kernels write may not have been "
                      "restored between the timed runs (one reached through device memory, not an argument)");
  trace::BenchResult b = timing_result(times, source_text, {o.flops, o.bytes}, &r.notes);
  // The tracer's cost, launch by launch: the traced run's wall time of the launch.
  for (size_t i = 0; i < b.rows.size() && i < times.size(); ++i) {
    trace::BenchRow& w = b.rows[i];
    // A launch run unpatched (past its kernel's recorded ones) cost nothing to trace.
    if (times[i].index >= r.trace.launches.size() || !r.trace.launches[times[i].index].recorded || !w.ok || w.ms <= 0)
      continue;
    w.record_ms = r.trace.launches[times[i].index].seconds * 1e3;
    w.record_ratio = w.record_ms / w.ms;
  }
  b.record_blocks = o.blocks.empty() ? "all" : o.blocks;
  b.device.name = device;
  b.date = r.trace.provenance.date;
  r.trace.timings_json = trace::bench_json(b);
}

// The program run on this machine's GPU with the GPU tracer injected; its file made into a
// trace with each module's SASS (nvdisasm -g: opcodes and -lineinfo lines).
// `device` and `arch` as gpu_here() found them; `tools` the tracer's folder.
Result run_gpu(const Options& o, const std::string& device, const std::string& gpu_arch, const std::string& tools) {
  Result r;
  std::string arch = gpu_arch;
  TempDir dir;
  std::string exe = o.binary, src;
  const auto t0 = std::chrono::steady_clock::now();
  if (exe.empty()) {
    if (!fs::exists(o.source)) throw Error("no such file: " + o.source);
    r.nvcc = find_nvcc();
    if (r.nvcc.empty()) throw Error("nvcc was not found ($CUDA_HOME/bin, /usr/local/cuda/bin or PATH)");
    src = fs::absolute(o.source).string();
    exe = dir.path + "/program";
    const SourceSplit files = split_sources(o);
    if (arch == "90" && files.arch == "90a") arch = "90a";  // Hopper's own instructions (wgmma), asked for
    std::vector<std::string> build{r.nvcc, "-arch=sm_" + arch, "-lineinfo", o.literal ? "-G" : "-O3"};
    build.insert(build.end(), files.both.begin(), files.both.end());
    // The host code with its debug lines (device code unchanged): the tracer names each
    // allocation by the program's line that made it.
    build.push_back("-g");
    for (const std::string& d : files.dropped) r.notes.push_back(d + " left out: the program is built for this GPU, sm_" + arch);
    // The PTX too, at once: it names each kernel's shared arrays.
    std::vector<std::string> toptx = build;
    toptx.push_back("-ptx");
    toptx.push_back(src);
    toptx.push_back("-o");
    toptx.push_back(dir.path + "/program.ptx");
    for (const std::string& d : files.device) build.push_back(fs::absolute(d).string());
    build.insert(build.end(), files.host.begin(), files.host.end());
    build.insert(build.end(), files.link.begin(), files.link.end());
    build.push_back("-o");
    build.push_back(exe);
    const Started ptx = start(toptx, {}, true, dir.path + "/ptx.log");
    const Child c = spawn(build, {}, 300, true, dir.path + "/nvcc.log");
    wait(ptx, 300);
    if (c.timed_out || !WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) throw build_error(c.output);
  } else if (!fs::exists(exe)) {
    throw Error("no such program: " + exe);
  }
  const auto t1 = std::chrono::steady_clock::now();
  r.compile_seconds = std::chrono::duration<double>(t1 - t0).count();
  const std::string raw_path = dir.path + "/gpu.raw";
  std::vector<std::string> child_env{"CUDA_INJECTION64_PATH=" + tools + "/libwarpscope_tracer.so",
                                     env::entry(env::Var::gpu_trace, raw_path),
                                     env::entry(env::Var::tracer_patch, tools + "/warpscope_tracer_patch.fatbin"),
                                     env::entry(env::Var::trace_max_records, std::to_string(o.max_records))};
  if (!o.blocks.empty()) child_env.push_back(env::entry(env::Var::trace_blocks, o.blocks));
  if (!o.spaces.empty()) child_env.push_back(env::entry(env::Var::trace_spaces, o.spaces));
  child_env.push_back(env::entry(env::Var::record_launches, std::to_string(o.record_launches)));
  const Child c = run_built(fs::absolute(exe).string(), o, child_env, dir.path, r, t1);
  r.exit_code = WIFEXITED(c.status) ? WEXITSTATUS(c.status) : 128 + WTERMSIG(c.status);
  if (!fs::exists(raw_path)) throw Error("the GPU tracer wrote nothing: the program did not initialise CUDA");
  sass::RawCapture raw;
  try {
    raw = sass::read_raw(read_file(raw_path));
  } catch (const std::exception& e) {
    throw Error(std::string("the GPU trace is unreadable: ") + e.what());
  }
  if (raw.launches.empty()) {
    if (WIFSIGNALED(c.status))
      throw Error(std::string("the program crashed (") + strsignal(WTERMSIG(c.status)) + ") before a launch was traced");
    throw Error("the program ran on the GPU but launched no kernel the tracer saw");
  }
  // Each module's SASS, with lines where it was built with -lineinfo.
  std::map<uint64_t, sass::Disassembly> dis;
  std::string nvdisasm = "nvdisasm";
  if (const std::string nvcc = find_nvcc(); !nvcc.empty()) {
    const std::string beside = (fs::path(nvcc).parent_path() / "nvdisasm").string();
    if (fs::exists(beside)) nvdisasm = beside;
  }
  for (size_t i = 0; i < raw.modules.size(); ++i) {
    const std::string cubin = dir.path + "/module" + std::to_string(i) + ".cubin";
    std::ofstream(cubin, std::ios::binary) << raw.modules[i].cubin;
    // -gi: lines with the chain of inlined calls; -g where this nvdisasm lacks it.
    for (const char* g : {"-gi", "-g"}) {
      const Child d = spawn({nvdisasm, g, "-c", cubin}, {}, 120, true, cubin + ".sass");
      if (d.timed_out || !WIFEXITED(d.status) || WEXITSTATUS(d.status) != 0) continue;
      dis[raw.modules[i].id] = sass::parse_disassembly(d.output, o.see_through);
      break;
    }
  }
  // The tracer's file and the disassemblies kept for test fixtures.
  if (env::is_set(env::Var::keep_gpu_raw)) {
    const std::string keep = env::get_string(env::Var::keep_gpu_raw);
    std::error_code ec;
    fs::create_directories(keep, ec);
    fs::copy_file(raw_path, fs::path(keep) / "gpu.raw", fs::copy_options::overwrite_existing, ec);
    for (size_t i = 0; i < raw.modules.size(); ++i) {
      const std::string sass = dir.path + "/module" + std::to_string(i) + ".cubin.sass";
      if (fs::exists(sass))
        fs::copy_file(sass, fs::path(keep) / ("module" + std::to_string(i) + ".sass"), fs::copy_options::overwrite_existing, ec);
    }
  }
  sass::ImportOptions io;
  io.device = device;
  io.max_records = o.max_records;
  // The program's text and PTX, read once: they name its arrays and give the timer its
  // kernels' parameters.
  const std::string source_text = src.empty() ? std::string() : read_file(src);
  const std::string ptx = fs::exists(dir.path + "/program.ptx") ? read_file(dir.path + "/program.ptx") : std::string();
  io.names = src.empty() ? o.allocation_names : allocation_names(source_text);
  io.names_given = src.empty();
  if (!ptx.empty()) io.shared = sass::ptx_shared_names(ptx);
  r.trace = sass::to_trace(raw, dis, io);
  if (const std::string unseen = sass::unseen_copies(raw, dis); !unseen.empty()) r.notes.push_back(unseen);
  r.trace.provenance.version = WS_VERSION;
  finish_trace(r.trace, src);  // src: "" for a program built elsewhere
  if (!ptx.empty()) sass::split_shared_windows(r.trace, sass::ptx_shared_decls(ptx));
  if (o.time) time_launches(exe, o, tools, device, source_text, ptx, dir.path, r);
  return r;
}

// Each .cu file's PTX beside the host build, which takes them all with the host files:
// the device code as one module at `ptx` (merge_ptx), the program at `exe`.
void build_emulated(const SourceSplit& files, const std::vector<std::string>& common, const std::string& dir,
                    const std::string& exe, const std::string& ptx) {
  // The host code with its debug lines: the runtime names each allocation by the line of
  // the program that called it.
  std::vector<std::string> build = common;
  for (const char* a : {"-g", "-cudart", "shared"}) build.push_back(a);
  for (const std::string& d : files.device) build.push_back(fs::absolute(d).string());
  build.insert(build.end(), files.host.begin(), files.host.end());
  build.insert(build.end(), files.link.begin(), files.link.end());
  build.push_back("-o");
  build.push_back(exe);
  if (files.device.size() == 1 && build_in_parallel(build, dir, ptx)) return;
  // The plain way: every compilation at once (they share nothing but the sources).
  const Started host = start(build, {}, true, dir + "/nvcc.log");
  std::vector<Started> device;
  std::vector<std::string> modules;
  for (size_t i = 0; i < files.device.size(); ++i) {
    std::vector<std::string> toptx = common;
    modules.push_back(dir + "/module" + std::to_string(i) + ".ptx");
    for (const std::string& a : {std::string("-ptx"), fs::absolute(files.device[i]).string(), std::string("-o"), modules.back()})
      toptx.push_back(a);
    device.push_back(start(toptx, {}, true, modules.back() + ".log"));
  }
  const Child c = wait(host, 300);
  std::vector<Child> d;
  for (const Started& x : device) d.push_back(wait(x, 300));
  if (c.timed_out || !WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) throw build_error(c.output);
  std::vector<std::string> texts;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i].timed_out || !WIFEXITED(d[i].status) || WEXITSTATUS(d[i].status) != 0) throw build_error(d[i].output);
    texts.push_back(read_file(modules[i]));
  }
  std::ofstream(ptx, std::ios::binary) << merge_ptx(texts);
}

// A host crash as a problem: the signal, and the program's last lines of output. The
// limits it ran into are said as such.
Problem crash_problem(const Child& c, const Options& o) {
  Problem p;
  p.kind = "crash";
  const std::string out = o.echo ? c.errors : c.output;
  const int sig = WTERMSIG(c.status);
  if (sig == SIGXCPU) {
    p.kind = "limit";
    p.message = "the program used more than its " + std::to_string(program_limits(o).cpu_seconds) +
                " s of CPU time and was stopped";
  } else if (out.find("std::bad_alloc") != std::string::npos || out.find("out of memory") != std::string::npos) {
    p.kind = "limit";
    p.message = "the program ran out of memory (its limit: " + std::to_string(memory_limit_bytes(o.memory_limit_mib) >> 20) +
                " MiB; --memory-limit MIB to change it) and was killed by signal " + std::to_string(sig) + " (" +
                strsignal(sig) + ")";
  } else {
    p.message = "the program's host code was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  p.output = last_lines(out, 6);
  return p;
}

// The program built for the emulated device and run against warpscope's libcudart.so.13.
Result run_emulated(const Options& o) {
  if (!fs::exists(o.source)) throw Error("no such file: " + o.source);
  const SourceSplit files = split_sources(o);
  Result r;
  r.nvcc = find_nvcc();
  if (r.nvcc.empty())
    throw Error("nvcc was not found ($CUDA_HOME/bin, /usr/local/cuda/bin or PATH): install the CUDA toolkit to run your own "
                "programs (no GPU needed); the catalog's kernels work without it");
  const std::string rt = runtime_dir();
  TempDir dir;
  const std::string src = fs::absolute(o.source).string();
  // Named after its first source, as the user's own build would name it: programs print
  // argv[0] ("template Starting...").
  const std::string exe = dir.path + "/" + fs::path(o.source).stem().string(), ptx = dir.path + "/program.ptx";
  // The target the program asked for (sm_90a for wgmma), else sm_90: the emulated device runs its PTX.
  const std::string target = "sm_" + (files.arch.empty() ? std::string("90") : files.arch);
  std::vector<std::string> common{r.nvcc, "-arch=" + target, "-lineinfo", o.literal ? "-G" : "-O3"};
  common.insert(common.end(), files.both.begin(), files.both.end());
  for (const std::string& d : files.dropped)
    r.notes.push_back(d + (files.arch.empty() ? " left out: the emulated device builds for sm_90"
                                              : ": the emulated device runs the PTX of " + target));
  const auto t0 = std::chrono::steady_clock::now();
  build_emulated(files, common, dir.path, exe, ptx);
  const auto t1 = std::chrono::steady_clock::now();
  r.compile_seconds = std::chrono::duration<double>(t1 - t0).count();

  const std::string trace_path = dir.path + "/program.wstrace";
  std::string ld = "LD_LIBRARY_PATH=" + rt;
  if (const char* old = std::getenv("LD_LIBRARY_PATH")) ld += std::string(":") + old;
  std::vector<std::string> env_all{ld, env::entry(env::Var::ptx, ptx), env::entry(env::Var::trace, trace_path),
                                   env::entry(env::Var::max_records, std::to_string(o.max_records)),
                                   env::entry(env::Var::record_launches, std::to_string(o.record_launches)),
                                   env::entry(env::Var::engine, o.engine)};
  if (o.literal && !o.show_local) env_all.push_back(env::entry(env::Var::hide_local, "1"));  // -G's stack traffic
  const std::string problem_path = dir.path + "/problem.json";
  env_all.push_back(env::entry(env::Var::problem, problem_path));
  const std::string races_path = dir.path + "/program.races";
  env_all.push_back(env::entry(env::Var::races, races_path));
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g", o.timeout_seconds);
  env_all.push_back(env::entry(env::Var::timeout, limit));
  const Child c = run_built(exe, o, env_all, dir.path, r, t1, 30);
  r.exit_code = WIFEXITED(c.status) ? WEXITSTATUS(c.status) : 128 + WTERMSIG(c.status);
  if (fs::exists(problem_path)) {
    try {
      r.ending.problem = problem_from_json(read_file(problem_path));
    } catch (const std::exception& e) {
      r.notes.push_back(std::string("the emulated device's fault report could not be read: ") + e.what());
    }
  } else if (WIFSIGNALED(c.status)) {
    r.ending.problem = crash_problem(c, o);
  }
  if (!fs::exists(trace_path)) {
    // The runtime writes the trace once it has loaded the module: a module it could not
    // load is said as such (the runtime's own line has already gone by).
    try {
      (void)ptx::parse(read_file(ptx), "program.ptx");
    } catch (const std::exception& e) {
      throw Error(std::string("the module failed to load: ") + e.what(), std::string("load"));
    }
    if (WIFSIGNALED(c.status)) {
      const Problem p = crash_problem(c, o);
      // A limit it ran into is the message; any other crash, the signal.
      const bool limit = p.kind == "limit";
      Error e(limit ? p.message
                    : std::string("the program crashed (") + strsignal(WTERMSIG(c.status)) + ") before its trace was written",
              p.kind);
      e.output = c.output;
      e.problem = p;
      throw e;
    }
    throw Error("the program ended (exit code " + std::to_string(r.exit_code) +
                ") before any CUDA call that needs the device: nothing was traced");
  }
  r.trace = trace::read_trace(trace_path);
  if (r.ending.problem.kind == "timeout") {
    // Stopped at the time limit by the emulated device: the launches that ended are kept,
    // the one it stopped too (up to where it stopped), as a fault's is.
    r.ending.kind = "timeout";
    const size_t n = r.trace.launches.size();
    const uint32_t at = r.ending.problem.launch;  // 0: in the program's own code
    const std::string ended = at > 1 ? "launches 1-" + std::to_string(at - 1) + " ended, " : std::string();
    r.ending.message = "stopped at --timeout " + std::string(limit) + " s, " +
                       (at ? "in launch " + std::to_string(at) + " (" + r.ending.problem.message + "): " + ended + "launch " +
                                 std::to_string(at) + " is shown up to where it stopped"
                           : "in the program's own code: its " + std::to_string(n) + " launches ended");
    if (r.trace.launches.empty()) {
      Error e("the program did not finish within " + std::string(limit) + " s and was stopped before any launch ended",
              std::string("timeout"));
      e.output = c.output;
      e.problem = r.ending.problem;
      throw e;
    }
  }
  finish_trace(r.trace, src);
  try {
    if (fs::exists(races_path)) r.races = read_races(read_file(races_path));
  } catch (const Error& e) {
    r.notes.push_back(e.what());
  }
  return r;
}

}  // namespace

namespace {

// `r`, its ending kept for last_ending().
Result remembered(Result r) {
  std::lock_guard<std::mutex> lock(last_mu);
  last = r.ending;
  last.exit_code = r.exit_code;
  return r;
}

}  // namespace

std::string options_error(const Options& o) {
  if (o.backend != "emulator" && o.backend != "auto" && o.backend != "gpu")
    return "unknown backend '" + o.backend + "': allowed auto, gpu, emulator";
  if (!o.spaces.empty() && o.spaces != "all" && o.spaces != "global" && o.spaces != "shared")
    return "unknown spaces '" + o.spaces + "': allowed all, global, shared";
  if (o.engine != "compiled" && o.engine != "interpreter")
    return "unknown engine '" + o.engine + "': allowed compiled, interpreter";
  if (o.backend == "emulator" && !o.spaces.empty() && o.spaces != "all")
    return "--spaces picks what the GPU tracer patches; the emulated device records every space (--backend gpu)";
  return "";
}

Result run(const Options& o) {
  {
    std::lock_guard<std::mutex> lock(last_mu);
    last = Ending{};
  }
  if (const std::string e = options_error(o); !e.empty()) throw Error(e);
  // The GPU and the tracer are looked for once: required for "gpu" (or a program built
  // elsewhere), used where both are here for "auto".
  if (o.backend != "emulator" || !o.binary.empty()) {
    const bool required = o.backend == "gpu" || !o.binary.empty();
    const std::string tools = tracer_dir();
    std::string device, arch, why;
    if (required || !tools.empty()) {
      const bool gpu = gpu_here(device, arch, why);
      if (!gpu && required)
        throw Error(why + ": --backend gpu needs one (--backend emulator runs the program on the emulated device)");
      if (gpu && tools.empty() && required)
        throw Error("the GPU tracer was not built here: it needs the CUDA toolkit's compute-sanitizer/ folder "
                    "(--backend emulator runs the program on the emulated device)");
      if (gpu && !tools.empty()) return remembered(run_gpu(o, device, arch, tools));
    }
  }
  Result r = run_emulated(o);
  if (!o.spaces.empty() && o.spaces != "all")
    r.notes.push_back("--spaces " + o.spaces + " is the GPU tracer's: the emulated device recorded every space");
  return remembered(std::move(r));
}

Ending last_ending() {
  std::lock_guard<std::mutex> lock(last_mu);
  return last;
}

void name_shared_arrays(trace::Trace& gpu, const trace::Trace& emulated) {
  sass::split_shared_windows(gpu, sass::trace_shared_decls(emulated));
}

}  // namespace ws::program
