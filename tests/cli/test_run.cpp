// `warpscope run` as users type it: nvcc's flags joined or apart, several sources, the
// program's own arguments after --, and the exit status of each way a run can end.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

struct Ran {
  int rc = -1;
  std::string out, err;
};

std::string slurp_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// `warpscope WORDS` (split as a shell would), its stdout and stderr kept apart.
Ran ws_cmd(const std::string& words) {
  const fs::path dir = fs::temp_directory_path() / ("ws_run_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path out = dir / "stdout", err = dir / "stderr";
  const std::string cmd = std::string("'") + WS_BINARY + "' " + words + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  Ran r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = slurp_file(out);
  r.err = slurp_file(err);
  fs::remove_all(dir);
  return r;
}

Ran run_cmd(const std::string& args) { return ws_cmd("run " + args); }

bool have_nvcc() {
  for (const char* p : {"/usr/local/cuda/bin/nvcc"})
    if (fs::exists(p)) return true;
  if (std::system("command -v nvcc >/dev/null 2>&1") == 0) return true;
  MESSAGE("nvcc not found: `run` tests skipped");
  return false;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("run: -I dir, -D X=1 apart, -std, -use_fast_math, -Xcompiler; arguments after -- whatever they start with") {
  if (!have_nvcc()) return;
  const Ran r = run_cmd(
      "tests/programs/args/args.cu -I tests/programs/args/inc -D FACTOR=3 -std=c++17 -use_fast_math -Xcompiler -Wall "
      "--backend emulator -- -dimX=64 --n=1048576 256 tests/programs/args/args.cu");
  INFO(r.err);
  CHECK(r.rc == 0);
  CHECK(has(r.out, "FACTOR=3 cplusplus=201703"));
  CHECK(has(r.out, "argv[1]=-dimX=64\n"));
  CHECK(has(r.out, "argv[2]=--n=1048576\n"));
  CHECK(has(r.out, "argv[3]=256\n"));
  CHECK(has(r.out, "argv[4]=tests/programs/args/args.cu\n"));  // a file after -- is an argument
  CHECK(!has(r.out, "argv[5]"));
  CHECK(has(r.out, "x[31]=93"));
}

TEST_CASE("run: a flag before an option leaves the option its value (--no-time --record-launches 2)") {
  if (!have_nvcc()) return;
  const Ran r = run_cmd("tests/programs/timing_loop.cu --backend emulator --literal --record-launches 2 --no-time -- 4");
  INFO(r.err);
  CHECK(r.rc == 0);
  CHECK(has(r.out, "launches  3–4: accumulate ×2, as launch 2"));
}

TEST_CASE("run: -Idir, -DX=1 joined, -l and -L for the host link, -arch honoured with a note") {
  if (!have_nvcc()) return;
  const Ran r = run_cmd("tests/programs/args/args.cu -Itests/programs/args/inc -DFACTOR=2 -lm -L /usr/lib -arch=sm_80 "
                        "--backend emulator");
  INFO(r.err);
  CHECK(r.rc == 0);
  CHECK(has(r.out, "FACTOR=2"));
  CHECK(has(r.out, "x[31]=62"));
  CHECK(!has(r.out, "argv[1]"));
  CHECK(has(r.out + r.err, "-arch=sm_80: the emulated device runs the PTX of sm_80"));
}

TEST_CASE("run: two .cu files and two .cpp files, every kernel reported, the program's arguments after --") {
  if (!have_nvcc()) return;
  const Ran r = run_cmd(
      "tests/programs/multi/scale.cu tests/programs/multi/add.cu tests/programs/multi/alloc.cpp "
      "tests/programs/multi/main.cpp --backend emulator -- --n=256");
  INFO(r.err);
  CHECK(r.rc == 0);
  CHECK(has(r.out, "256 elements, PASSED"));
  CHECK(has(r.out, "scale"));
  CHECK(has(r.out, "add"));
  CHECK(has(r.out, "d_out"));
}

TEST_CASE("run: exit status 3 for a compile error, 4 for a fault, 124 for the timeout (output kept), 2 for bad words") {
  if (!have_nvcc()) return;
  const Ran c = run_cmd("tests/programs/bad/does_not_compile.cu --backend emulator");
  CHECK(c.rc == 3);
  CHECK(has(c.err, "warpscope: error: "));
  CHECK(has(c.err, "does_not_compile.cu(2)"));
  const Ran f = run_cmd("tests/programs/bad/out_of_bounds.cu --backend emulator");
  CHECK(f.rc == 4);
  CHECK(has(f.out, "after the launch: an illegal memory access was encountered"));
  CHECK(has(f.err, "warpscope: a kernel faulted: out-of-bounds access to 'd_in' at kernel line 7"));
  // report --program ends as run does: the faulting kernel fails the command.
  const Ran rf = ws_cmd("report --program tests/programs/bad/out_of_bounds.cu --backend emulator");
  CHECK(rf.rc == 4);
  CHECK(has(rf.err, "out-of-bounds access to 'd_in'"));
  const Ran t = run_cmd("tests/programs/bad/prints_then_spins.cu --backend emulator --timeout 3");
  CHECK(t.rc == 124);
  CHECK(has(t.out, "before the endless loop\n"));
  CHECK(has(t.err, "the program did not finish within 3 s and was stopped"));
  const Ran o = run_cmd("tests/programs/args/args.cu -o prog --backend emulator");
  CHECK(o.rc == 2);
  CHECK(has(o.err, "nvcc's -o is warpscope's to choose"));
  const Ran m = run_cmd("tests/programs/args/args.cu missing_helper.cpp --backend emulator");
  CHECK(m.rc == 2);
  CHECK(has(m.err, "no such file: missing_helper.cpp"));
}

TEST_CASE("run --help: the forms nvcc's words take and every exit status") {
  const Ran r = run_cmd("--help");
  CHECK(r.rc == 0);
  CHECK(has(r.out, "-I dir, -Idir"));
  CHECK(has(r.out, "3 it did not compile"));
  CHECK(has(r.out, "124 the program ran past"));
}

TEST_CASE("run: a shared-memory race is a line of its own, both lines and threads named; the status stays the program's") {
  if (!have_nvcc()) return;
  const Ran r = run_cmd("tests/programs/races/races.cu --backend emulator");
  CHECK(r.rc == 0);
  CHECK(has(r.err, "warpscope: race on word 32 of raceNoBarrier::s (byte 128) in block (0,0,0) of launch 1 (raceNoBarrier): "
                   "races.cu:14 read by thread (31,0,0), races.cu:13 written by thread (32,0,0) of another warp, no "
                   "barrier between\n"));
  CHECK(has(r.err, "warpscope: launch 7 raced on 13 more pairs of lines (its first 10 are listed)\n"));
  CHECK(!has(r.err, "(barrierBetween)"));
  const Ran clean = run_cmd("examples/reduction.cu --backend emulator");
  CHECK(clean.rc == 0);
  CHECK(!has(clean.err, "race"));
  // report --program names the race in the launch it happened in, text and JSON.
  const Ran rep = ws_cmd("report --program tests/programs/races/races.cu --backend emulator --launch 1");
  CHECK(has(rep.out, "race      race on word 32 of raceNoBarrier::s (byte 128) in block (0,0,0) of launch 1"));
  const Ran two = ws_cmd("report --program tests/programs/races/races.cu --backend emulator --launch 2");
  CHECK(!has(two.out, "of launch 1 (raceNoBarrier)"));
  const Ran js = ws_cmd("report --program tests/programs/races/races.cu --backend emulator --launch 1 --format json");
  CHECK(has(js.out, "\"races\":[\"race on word 32 of raceNoBarrier::s"));
}

namespace {

// The process whose parent is `parent` and whose name begins with `name` (15 characters
// at most, as /proc keeps it): its pid, 0 when there is none.
pid_t child_named(pid_t parent, const std::string& name) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::ifstream f(e.path() / "stat");
    std::string pid, comm, state;
    pid_t ppid = 0;
    if (!(f >> pid >> comm >> state >> ppid)) continue;
    if (ppid == parent && comm.rfind("(" + name.substr(0, 15), 0) == 0) return pid_t(std::stol(pid));
  }
  return 0;
}

// Whether process `pid` has ended (gone, or a zombie its new parent has yet to reap).
bool ended(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string p, comm, state;
  return !(f >> p >> comm >> state) || state == "Z" || state == "X";
}

}  // namespace

TEST_CASE("run: warpscope ended by a signal (a Ctrl-C, a kill) takes the program, in a process group of its own, with it") {
  if (!have_nvcc()) return;
  const pid_t ws = ::fork();
  REQUIRE(ws >= 0);
  if (ws == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execl(WS_BINARY, WS_BINARY, "run", "tests/programs/bad/prints_then_spins.cu", "--backend", "emulator", "--timeout",
            "300", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  pid_t prog = 0;
  for (int i = 0; i < 1200 && !prog; ++i) {  // compiled by nvcc, then started: up to two minutes
    prog = child_named(ws, "prints_then_spins");
    if (!prog) ::usleep(100'000);
  }
  REQUIRE(prog != 0);
  ::kill(ws, SIGTERM);
  int status = 0;
  ::waitpid(ws, &status, 0);
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    gone = ended(prog);
    if (!gone) ::usleep(100'000);
  }
  CHECK(gone);
  if (!gone) ::kill(prog, SIGKILL);
}
