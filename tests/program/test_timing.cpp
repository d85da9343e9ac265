// The GPU timer's file made into bench rows: reading it, the kernels' signatures and work
// annotations, the expressions, and the rows' figures worked out by hand.
#include <doctest/doctest.h>

#include <cstring>

#include "program/program.h"
#include "program/timing.h"
#include "trace/bench.h"

using namespace ws;
using program::TimedLaunch;

namespace {

const char* kSource = R"(// a tiled SGEMM
#include <cstdio>
#define TILE 16

// warpscope: flops = 2.0*N*N*N; bytes = 3*4*N*N
__global__ void matmulTiled(const float* A, const float* B, float* C, int N) {
  __shared__ float As[TILE][TILE];
  if (N > 0) { C[0] = A[0] * B[0]; }  // a brace in a comment: }
}

__global__ void scale(float* x, unsigned long long n, float a /* the factor, {} */) {
  // warpscope: bytes = 8*n
  const char* s = "__global__ void fake() {";
  x[0] *= a;
}

__global__ void noted(int m);  // a declaration, no body

__global__ void plain(float* x) { x[0] = 1; }
)";

std::string hex(const void* p, size_t n) {
  static const char d[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<const unsigned char*>(p)[i];
    s += d[c >> 4], s += d[c & 15];
  }
  return s;
}

// A line as the timer writes it.
std::string line(uint64_t index, const char* name, const std::string& params, uint32_t runs, uint64_t median_ns) {
  return "launch\t" + std::to_string(index) + "\t64 64 1\t16 16 1\t0\t" + std::to_string(runs) + "\t" +
         std::to_string(median_ns) + " " + std::to_string(median_ns - 1000) + " " + std::to_string(median_ns + 5000) +
         "\t12582912\t1\t" + params + "\t" + name + "\n";
}

}  // namespace

TEST_CASE("the kernels' signatures and work annotations come from the source's code, not its comments or strings") {
  const auto sigs = program::kernel_signatures(kSource);
  REQUIRE(sigs.count("matmulTiled"));
  REQUIRE(sigs.count("scale"));
  CHECK(sigs.count("plain"));
  CHECK_FALSE(sigs.count("fake"));   // in a string
  CHECK_FALSE(sigs.count("noted"));  // a declaration
  const auto& m = sigs.at("matmulTiled");
  REQUIRE(m.size() == 4);
  CHECK(m[0] == program::KernelParam{"const float*", "A"});
  CHECK(m[3] == program::KernelParam{"int", "N"});
  const auto& s = sigs.at("scale");
  REQUIRE(s.size() == 3);
  CHECK(s[1] == program::KernelParam{"unsigned long long", "n"});
  CHECK(s[2] == program::KernelParam{"float", "a"});

  const auto work = program::work_annotations(kSource);
  CHECK(work.at("matmulTiled") == program::Work{"2.0*N*N*N", "3*4*N*N"});  // above the kernel
  CHECK(work.at("scale") == program::Work{"", "8*n"});                      // inside it
  CHECK_FALSE(work.count("plain"));
}

TEST_CASE("expressions: numbers, names, + - * / and parentheses, with one-line errors") {
  const std::map<std::string, double> v = {{"N", 1024}, {"n", 10}};
  CHECK(program::evaluate("2*N*N*N", v) == 2.0 * 1024 * 1024 * 1024);
  CHECK(program::evaluate(" (N + 1) * 2 - 4 / 2 ", v) == 2048);
  CHECK(program::evaluate("-n + 1e3", v) == 990);
  CHECK(program::evaluate("1024ull * 4", v) == 4096);
  CHECK_THROWS_WITH(program::evaluate("2*M", v), doctest::Contains("unknown name 'M'"));
  CHECK_THROWS_WITH(program::evaluate("2*(N", v), doctest::Contains("expected ')'"));
  CHECK_THROWS_WITH(program::evaluate("N/0", v), doctest::Contains("division by zero"));
  CHECK_THROWS_WITH(program::evaluate("N N", v), doctest::Contains("unexpected 'N'"));
  CHECK_THROWS_WITH(program::evaluate("", v), doctest::Contains("expected a number"));
}

TEST_CASE("the timer's file: launches with their argument bytes, and one-line errors for a file that is not one") {
  int n = 1024;
  const std::string ptr = "8:00000000007f0000";
  const std::string args = ptr + "," + ptr + "," + ptr + ",4:" + hex(&n, 4);
  const std::string text = "warpscope-gpu-times 1\n" + line(0, "_Z11matmulTiledPKfS0_Pfi", args, 50, 342000) +
                           line(1, "_Z11matmulTiledPKfS0_Pfi", args, 0, 0);
  const auto t = program::read_times(text);
  REQUIRE(t.size() == 2);
  CHECK(t[0].index == 0);
  CHECK(t[0].grid[0] == 64);
  CHECK(t[0].block[1] == 16);
  CHECK(t[0].runs == 50);
  CHECK(t[0].median_ms == doctest::Approx(0.342));
  CHECK(t[0].min_ms == doctest::Approx(0.341));
  CHECK(t[0].max_ms == doctest::Approx(0.347));
  CHECK(t[0].saved_bytes == 12582912);
  CHECK(t[0].restored);
  REQUIRE(t[0].params.size() == 4);
  CHECK(t[0].params[3] == std::vector<uint8_t>{0x00, 0x04, 0x00, 0x00});
  CHECK(t[0].kernel == "_Z11matmulTiledPKfS0_Pfi");
  CHECK(t[1].runs == 0);

  CHECK_THROWS_WITH(program::read_times("hello\n"), doctest::Contains("not one"));
  CHECK_THROWS_WITH(program::read_times("warpscope-gpu-times 1\nlaunch\t0\t1 1 1\n"), doctest::Contains("line 2"));
  CHECK_THROWS_WITH(program::read_times("warpscope-gpu-times 1\n" + line(0, "k", "4:0001", 1, 5000)),
                    doctest::Contains("disagree"));
  CHECK_THROWS_WITH(program::read_times("warpscope-gpu-times 1\n" + line(0, "k", "2:zz00", 1, 5000)),
                    doctest::Contains("bad argument bytes"));
}

TEST_CASE("scalar arguments are valued from their bytes by the declared type; pointers are not") {
  const auto sigs = program::kernel_signatures(kSource);
  TimedLaunch l;
  const unsigned long long big = 3'000'000'000ULL;
  const float a = 0.5f;
  l.params = {std::vector<uint8_t>(8, 0x11), std::vector<uint8_t>(8), std::vector<uint8_t>(4)};
  std::memcpy(l.params[1].data(), &big, 8);
  std::memcpy(l.params[2].data(), &a, 4);
  const auto v = program::scalar_arguments(l, sigs.at("scale"));
  CHECK_FALSE(v.count("x"));
  CHECK(v.at("n") == 3e9);
  CHECK(v.at("a") == 0.5);
  TimedLaunch neg;
  int minus = -3;
  neg.params = {std::vector<uint8_t>(8), std::vector<uint8_t>(8), std::vector<uint8_t>(8), std::vector<uint8_t>(4)};
  std::memcpy(neg.params[3].data(), &minus, 4);
  CHECK(program::scalar_arguments(neg, sigs.at("matmulTiled")).at("N") == -3);
}

TEST_CASE("bench rows of a program's launches: GFLOP/s and GB/s from the annotation, worked out by hand") {
  int n = 1024;
  const std::string ptr = "8:0000000000007f00";
  const std::string args = ptr + "," + ptr + "," + ptr + ",4:" + hex(&n, 4);
  // 2·1024³ flops in 0.5 ms: 4294.97 GFLOP/s; 3·4·1024² bytes in 0.5 ms: 25.17 GB/s.
  const auto t = program::read_times("warpscope-gpu-times 1\n" + line(0, "_Z11matmulTiledPKfS0_Pfi", args, 40, 500000) +
                                     line(1, "_Z5plainPf", ptr, 0, 0));
  std::vector<std::string> notes;
  trace::BenchResult r = program::timing_result(t, kSource, {}, &notes);
  REQUIRE(r.rows.size() == 2);
  const trace::BenchRow m = r.rows[0];  // a copy: r is assigned again below
  CHECK(m.kernel == "matmulTiled");
  CHECK(m.variant == "launch 1 <<<(64,64), (16,16)>>>");
  CHECK(m.params.at("N") == 1024);
  CHECK(m.ok);
  CHECK(m.ms == doctest::Approx(0.5));
  CHECK(m.gflops == doctest::Approx(4294.967296));
  CHECK(m.gbs == doctest::Approx(25.165824));
  CHECK(m.vs_cublas);
  CHECK(m.note == "12 MiB of buffers restored before each run");
  CHECK_FALSE(r.rows[1].ok);
  CHECK(r.rows[1].error.find("not timed") != std::string::npos);
  CHECK(notes.empty());

  // The command line wins over the annotation; an expression that cannot be valued is a note.
  r = program::timing_result(t, kSource, {"N", "N*M"}, &notes);
  CHECK(r.rows[0].gflops == doctest::Approx(1024 / 0.5e-3 / 1e9));
  CHECK(r.rows[0].gbs == 0);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "matmulTiled bytes: unknown name 'M' in 'N*M'");

  // Through the bench JSON (the trace keeps it) and its text, with yardsticks filled in.
  r = program::timing_result(t, kSource, {});
  r.device.name = "Some GPU";
  r.cublas_size = 1024, r.cublas_ms = 0.1, r.cublas_gflops = 21474.8;
  r.rows[0].pct_cublas = 100.0 * r.rows[0].gflops / r.cublas_gflops;
  trace::BenchResult back;
  std::string error;
  REQUIRE(trace::read_bench(trace::bench_json(r), back, error));
  REQUIRE(back.rows.size() == 2);
  CHECK(back.rows[0].variant == m.variant);
  CHECK(back.rows[0].params == m.params);  // no "size" added
  CHECK(back.rows[0].gflops == doctest::Approx(m.gflops));
  const std::string text = trace::program_times_text(back);
  CHECK(text.find("Some GPU") != std::string::npos);
  CHECK(text.find("launch 1  matmulTiled<<<(64,64), (16,16)>>>") != std::string::npos);
  CHECK(text.find("0.5 ms (0.499 to 0.505, 40 runs)   4295 GFLOP/s = 20.0% of cuBLAS   25 GB/s") != std::string::npos);
  CHECK(text.find("cuBLAS SGEMM 1024^3 (the same flops), same run: 0.1 ms, 21475 GFLOP/s") != std::string::npos);
  CHECK(text.find("not timed") != std::string::npos);
}

TEST_CASE("each kernel's parameter layout from its PTX, for the timer where the driver will not say") {
  const std::string ptx = R"(
.visible .entry _Z11matmulTiledPKfS0_Pfi(
	.param .u64 .ptr .align 1 _Z11matmulTiledPKfS0_Pfi_param_0,
	.param .u64 .ptr .align 1 _Z11matmulTiledPKfS0_Pfi_param_1,
	.param .u64 .ptr .align 1 _Z11matmulTiledPKfS0_Pfi_param_2,
	.param .u32 _Z11matmulTiledPKfS0_Pfi_param_3
)
{
	.reg .b32 	%r<5>;
	ld.param.u32 	%r1, [_Z11matmulTiledPKfS0_Pfi_param_3];
}
.visible .entry _Z4step4Dims(
	.param .align 4 .b8 _Z4step4Dims_param_0[12],
	.param .f64 _Z4step4Dims_param_1
)
{
}
.visible .entry _Z4nonev()
{
}
)";
  const program::ParamLayout l = program::ptx_param_layout(ptx);
  using P = std::vector<std::pair<uint32_t, uint32_t>>;
  CHECK(l.at("_Z11matmulTiledPKfS0_Pfi") == P{{8, 8}, {8, 8}, {8, 8}, {4, 4}});
  CHECK(l.at("_Z4step4Dims") == P{{12, 4}, {8, 8}});
  CHECK(l.at("_Z4nonev").empty());
  CHECK(program::param_layout_env(l) == "_Z11matmulTiledPKfS0_Pfi=8:8,8:8,8:8,4:4;_Z4nonev=;_Z4step4Dims=12:4,8:8");
}
