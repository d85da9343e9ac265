// The emulated runtime's streams, graphs, host memory, threads and symbols, and the
// emulated cuBLAS / cuBLASLt beside it: small programs of tests/programs, compiled by nvcc
// and run whole on the emulated device, each checking its own results (exit code 0, one
// "ok" line per check) while the trace shows what ran. Skipped where nvcc is missing.
#include <doctest/doctest.h>

#include <dlfcn.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "program/program.h"
#include "../support.h"

using namespace ws;

namespace {

bool can_run() { return ws::test::have_nvcc("user-program tests skipped"); }

program::Result run_program(const std::string& file, std::vector<std::string> flags = {}) {
  program::Options o;
  o.source = "tests/programs/" + file;
  o.nvcc_flags = std::move(flags);
  o.echo = false;
  o.timeout_seconds = 90;
  return program::run(o);
}

bool has_buffer(const trace::Trace& t, const std::string& name) {
  return std::any_of(t.buffers.begin(), t.buffers.end(), [&](const trace::Buffer& b) { return b.name == name; });
}

size_t count(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("zero_copy.cu: a kernel reads and writes mapped, pinned and registered host memory in place") {
  if (!can_run()) return;
  const program::Result r = run_program("zero_copy.cu");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("no error, 0 wrong, unmapped: cudaErrorInvalidValue") != std::string::npos);
  // Named from the program's text, marked as host memory.
  CHECK(has_buffer(r.trace, "h_a (host memory)"));
  CHECK(has_buffer(r.trace, "h_b (host memory)"));
  CHECK(has_buffer(r.trace, "h_out (host memory)"));
}

TEST_CASE("graphs.cu: callbacks in order, captures run only when launched, edges order an explicit graph") {
  if (!can_run()) return;
  const program::Result r = run_program("graphs.cu");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(count(r.output, "ok  ") == 9);
  CHECK(r.output.find("0 failures") != std::string::npos);
  // Launches that ran: the capture's 3 twice, the fork's 2, the explicit graph's 2, the
  // timed one; the captured launches themselves ran nothing.
  CHECK(r.trace.launches.size() == 11);
  // The refusal names the launch and why, in one line.
  CHECK(r.output.find("a cooperative launch of 1000000 blocks, more than the 264 (2 a multiprocessor of 132, blocks of "
                      "1024 threads) the device holds at once: cudaErrorCooperativeLaunchTooLarge") != std::string::npos);
}

TEST_CASE("threads.cu: four host threads launching and copying at once, each gets its own values") {
  if (!can_run()) return;
  const program::Result r = run_program("threads.cu");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("4 threads x 20 rounds: 0 wrong") != std::string::npos);
  CHECK(r.trace.launches.size() == 4 * 20 * 2);
}

TEST_CASE("symbols.cu: to and from __constant__ and __device__ variables, every form and kind") {
  if (!can_run()) return;
  const program::Result r = run_program("symbols.cu");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(count(r.output, "ok  ") == 6);
}

TEST_CASE("cublas_gemm.cu: cuBLAS and cuBLASLt products on the emulated device equal the host's loops") {
  if (!can_run()) return;
  const program::Result r = run_program("cublas_gemm.cu", {"-lcublas", "-lcublasLt"});
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(count(r.output, "ok  ") == 13);
  CHECK(r.output.find("0 failures") != std::string::npos);
  // Said once per function: the library's work is not in the trace, only the program's kernel.
  CHECK(count(r.output, "cublasSgemm computed on the CPU; its accesses are not in the trace") == 1);
  CHECK(r.trace.launches.size() == 1);
  // The bad pointer and the missing function, one line each.
  CHECK(r.output.find("cublasSgemm: matrix A (batch 0) is not inside the device memory the program allocated") !=
        std::string::npos);
  CHECK(r.output.find("the program called cublasIsamax_v2, which the emulated cuBLAS does not provide") != std::string::npos);
}

TEST_CASE("curand_host.cu: cuRAND's host API refuses in one line, its version answers, the program sees a status") {
  if (!can_run()) return;
  const program::Result r = run_program("curand_host.cu", {"-lcurand"});
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("cuRAND 10") != std::string::npos);
  CHECK(count(r.output, "warpscope: the program called curandCreateGenerator, which the emulated device does not provide "
                        "(cuRAND's host API; its device API, curand_kernel.h, runs); it returned CURAND_STATUS_ARCH_MISMATCH") == 1);
  CHECK(r.output.find("cuRAND failed: status 204") != std::string::npos);
  CHECK(r.trace.launches.empty());
}

TEST_CASE("the emulated cuBLAS, cuBLASLt, cuRAND and driver API export every status function of the toolkit's headers") {
  std::string dir;
  try {
    dir = program::runtime_dir();
  } catch (const program::Error&) {
    MESSAGE("the emulated runtime was not built: skipped");
    return;
  }
  for (auto [lib_name, header] : {std::pair{"libcublas.so.13", "cublas_api.h"}, {"libcublasLt.so.13", "cublasLt.h"},
                                  {"libcurand.so.10", "curand.h"}, {"libcuda.so.1", "cuda.h"}}) {
    std::ifstream f(std::string("/usr/local/cuda/include/") + header);
    if (!f.good() || !std::ifstream(dir + "/" + lib_name).good()) {
      MESSAGE("no " << header << " or " << lib_name << ": skipped");
      continue;
    }
    std::stringstream text;
    text << f.rdbuf();
    const std::string s = text.str();
    const std::string h = header;
    const std::regex re(h == "curand.h" ? "curandStatus_t CURANDAPI\\s+(curand[A-Za-z0-9_]+)\\("
                        : h == "cuda.h" ? "CUresult CUDAAPI (cu[A-Za-z0-9_]+)\\("
                                        : "cublasStatus_t CUBLASWINAPI (cublas[A-Za-z0-9_]+)\\(");
    std::set<std::string> names;
    for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it) names.insert((*it)[1]);
    CHECK(names.size() > 20);
    void* lib = dlopen((dir + "/" + lib_name).c_str(), RTLD_LAZY | RTLD_LOCAL);
    REQUIRE(lib);
    int missing = 0;
    for (const std::string& n : names)
      if (!dlsym(lib, n.c_str())) {
        ++missing;
        MESSAGE("not exported: " << n);
      }
    CHECK(missing == 0);
  }
  // One the emulated cuBLAS lacks answers CUBLAS_STATUS_NOT_SUPPORTED (15).
  void* lib = dlopen((dir + "/libcublas.so.13").c_str(), RTLD_LAZY | RTLD_LOCAL);
  REQUIRE(lib);
  auto strsm = reinterpret_cast<int (*)()>(dlsym(lib, "cublasStrsm_v2"));
  REQUIRE(bool(strsm));
  CHECK(strsm() == 15);
  // cuRAND's generators answer CURAND_STATUS_ARCH_MISMATCH (204).
  void* rand = dlopen((dir + "/libcurand.so.10").c_str(), RTLD_LAZY | RTLD_LOCAL);
  REQUIRE(rand);
  auto generate = reinterpret_cast<int (*)()>(dlsym(rand, "curandGenerateNormal"));
  REQUIRE(bool(generate));
  CHECK(generate() == 204);
}

TEST_CASE("host_latch.cu: a gate kernel waiting for the host's latch holds its stream's work until the host synchronizes") {
  if (!can_run()) return;
  const program::Result r = run_program("host_latch.cu");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("no error, 0 wrong, 2 host functions") != std::string::npos);
  // Said once, naming the kernel; every launch ran, the gates first in each round.
  CHECK(count(r.output, "gate reads host memory and writes none") == 1);
  REQUIRE(r.trace.launches.size() == 7);
  for (size_t i : {0, 2, 4, 6}) CHECK(r.trace.launches[i].kernel.find("gate") != std::string::npos);
  for (size_t i : {1, 3, 5}) CHECK(r.trace.launches[i].kernel.find("scale") != std::string::npos);
}
