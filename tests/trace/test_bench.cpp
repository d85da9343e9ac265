// Bench JSON (the replay pack's timings): what the bench writes comes back equal, older and
// hand-written packs are read tolerantly, and the pack in the repository reads.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "trace/bench.h"

using namespace ws::trace;

namespace {

BenchResult sample() {
  BenchResult r;
  r.device.name = "NVIDIA H200";
  r.device.cc_major = 9;
  r.device.sms = 132;
  r.device.memory_bytes = 150109880320ull;
  r.device.driver_version = 13000;
  r.device.runtime_version = 12080;
  r.date = "2026-11-22T07:10:17Z";
  r.record_blocks = "0-3";
  r.cublas_size = 4096;
  r.cublas_ms = 2.5;
  r.cublas_gflops = 50000;
  r.copy_bytes = 536870912;
  r.copy_ms = 0.125;
  r.copy_gbs = 4000;
  BenchRow a;
  a.kernel = "transpose_tiled";
  a.family = "transpose";
  a.variant = "pad=1";
  a.params = {{"pad", 1}, {"size", 8192}};
  a.size = 8192;
  a.runs = 200;
  a.ms = 0.25;
  a.ms_min = 0.125;
  a.ms_max = 0.5;
  a.gbs = 3500;
  a.pct_copy = 86.5;
  a.ok = true;
  a.checked_against = "CPU reference";
  a.raw_ms = 0.25;
  a.raw_ratio = 1;
  a.record_ms = 0.5;
  a.record_ratio = 2;
  a.counts_ms = 5;
  a.counts_ratio = 20;
  a.counters_ms = 0.75;
  a.counters_ratio = 3;
  a.counters_passes = 2;
  BenchRow b;
  b.kernel = "matmul_naive";
  b.family = "sgemm";
  b.params = {{"size", 4096}};
  b.size = 4096;
  b.ok = false;
  b.error = "result check";
  r.rows = {a, b};
  r.all_ok = false;
  return r;
}

}  // namespace

TEST_CASE("bench JSON: what the bench writes reads back, failed rows included") {
  BenchResult r = sample();
  BenchRow c;  // timed beside cuBLAS HGEMM on its own arrays
  c.kernel = "tc_wgmma";
  c.family = "hgemm";
  c.vs_cublas = c.vs_hgemm = true;
  c.params = {{"size", 4096}};
  c.size = 4096;
  c.ok = true;
  c.checked_against = "cuBLAS HGEMM";
  c.ms = 0.2;
  c.gflops = 687194.8;
  c.yardstick_ms = 0.21;
  c.pct_cublas = 105;
  r.rows.push_back(c);
  BenchResult back;
  std::string err;
  REQUIRE(read_bench(bench_json(r), back, err));
  CHECK(back.device.name == "NVIDIA H200");
  CHECK(back.device.cc_major == 9);
  CHECK(back.device.sms == 132);
  CHECK(back.device.memory_bytes == r.device.memory_bytes);
  CHECK(back.device.runtime_version == 12080);
  CHECK(back.date == r.date);
  CHECK(back.cublas_gflops == r.cublas_gflops);
  CHECK(back.copy_bytes == r.copy_bytes);
  CHECK(back.record_blocks == "0-3");
  CHECK(!back.all_ok);
  REQUIRE(back.rows.size() == 3);
  const BenchRow& a = back.rows[0];
  CHECK(a.params == r.rows[0].params);
  CHECK(a.ms == 0.25);
  CHECK(a.gbs == 3500);
  CHECK(a.ref == "device copy");
  CHECK(a.pct_ref == 86.5);
  CHECK(a.raw_ratio == 1);
  CHECK(a.counts_ratio == 20);
  CHECK(a.counters_ms == 0.75);
  CHECK(a.counters_ratio == 3);
  CHECK(a.counters_passes == 2);
  CHECK(bench_text(back).find("3.00x") != std::string::npos);  // the hw column
  CHECK(!back.rows[1].ok);
  CHECK(back.rows[1].error == "result check");
  CHECK(back.rows[2].yardstick_ms == 0.21);
  CHECK(back.rows[2].ref == "cuBLAS HGEMM");
  CHECK(back.rows[2].pct_ref == 105);
  CHECK(bench_text(back).find("105.0%") != std::string::npos);
  CHECK(bench_text(back).find("of cuBLAS on the row's own arrays, timed in the same rounds as the row") != std::string::npos);
  // Printed again, a pack is the text the bench printed.
  CHECK(bench_text(back) == bench_text(r));
  CHECK(bench_json(back) == bench_json(r));
}

TEST_CASE("bench JSON: older and hand-written packs, and what is not a pack") {
  BenchResult r;
  std::string err;
  REQUIRE(read_bench(R"([{"kernel": "copy", "gpu": "H100", "date": "2025-01-01", "time_ms": 1.5, "gbps": 900,
                          "pct_of_ref": 40, "ref": "STREAM", "history": [1.6, 1.55]}])",
                     r, err));
  CHECK(r.device.name == "H100");
  CHECK(r.date == "2025-01-01");
  REQUIRE(r.rows.size() == 1);
  CHECK(r.rows[0].ok);  // no "ok": taken as checked
  CHECK(r.all_ok);
  CHECK(r.rows[0].ms == 1.5);
  CHECK(r.rows[0].gbs == 900);
  CHECK(r.rows[0].ref == "STREAM");
  CHECK(r.rows[0].pct_ref == 40);
  CHECK(r.rows[0].history.size() == 2);

  CHECK(!read_bench("{ nope", r, err));
  CHECK(err == "not JSON");
  CHECK(!read_bench(R"({"device": "H100"})", r, err));
  CHECK(err == "no \"rows\" array");
}

TEST_CASE("bench JSON: the replay pack in the repository") {
  const char* path = "assets/replay/bench.json";
  if (!std::filesystem::exists(path)) return;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  BenchResult r;
  std::string err;
  REQUIRE(read_bench(text.str(), r, err));
  CHECK(!r.device.name.empty());
  CHECK(r.device.runtime_version > 0);
  CHECK(!r.rows.empty());
  for (const auto& w : r.rows) {
    CAPTURE(w.kernel);
    CHECK(w.params.count("size"));
    if (w.ok) CHECK(w.ms > 0);
  }
}

TEST_CASE("bench JSON: tensor-core rows are compared with cuBLAS HGEMM, in a table of their own") {
  BenchResult r = sample();
  r.rows.pop_back();
  r.all_ok = true;
  r.hgemm_size = 4096;
  r.hgemm_ms = 0.25;
  r.hgemm_gflops = 549755.8;
  BenchRow s;
  s.kernel = "matmul_xgemm6";
  s.family = "sgemm";
  s.vs_cublas = true;
  s.params = {{"size", 4096}};
  s.size = 4096;
  s.ms = 5;
  s.gflops = 27487.8;
  s.pct_cublas = 55;
  s.ok = true;
  s.checked_against = "cuBLAS";
  BenchRow h = s;
  h.kernel = "tc_mma_pipelined";
  h.family = "hgemm";
  h.vs_hgemm = true;
  h.ms = 0.5;
  h.gflops = 274877.9;
  h.pct_cublas = 50;  // of HGEMM's 549755.8
  h.checked_against = "cuBLAS HGEMM";
  h.max_rel_error = 2e-6;
  r.rows.push_back(s);
  r.rows.push_back(h);

  const std::string json = bench_json(r);
  CHECK(json.find("\"cublas_hgemm\"") != std::string::npos);
  CHECK(json.find("\"yardstick\": \"cuBLAS HGEMM\"") != std::string::npos);
  BenchResult back;
  std::string err;
  REQUIRE(read_bench(json, back, err));
  CHECK(back.hgemm_size == 4096);
  CHECK(back.hgemm_gflops == r.hgemm_gflops);
  REQUIRE(back.rows.size() == 3);
  CHECK(back.rows[1].vs_cublas);
  CHECK(!back.rows[1].vs_hgemm);
  CHECK(back.rows[1].ref == "cuBLAS");
  CHECK(back.rows[2].vs_cublas);
  CHECK(back.rows[2].vs_hgemm);
  CHECK(back.rows[2].ref == "cuBLAS HGEMM");
  CHECK(back.rows[2].pct_ref == 50);
  CHECK(bench_json(back) == json);

  const std::string text = bench_text(back);
  CHECK(text.find("cuBLAS HGEMM 4096^3: 0.250 ms, 549756 GFLOP/s (f16 in, f32 accumulate)") != std::string::npos);
  // Three tables: the SGEMM row under %cuBLAS, the HGEMM row under %HGEMM, the copy row.
  const size_t sg = text.find("%cuBLAS"), hg = text.find("%HGEMM"), cp = text.find("%copy");
  REQUIRE(sg != std::string::npos);
  REQUIRE(hg != std::string::npos);
  REQUIRE(cp != std::string::npos);
  const size_t xg = text.find("matmul_xgemm6"), tc = text.find("tc_mma_pipelined");
  CHECK((sg < xg && xg < hg && hg < tc && tc < cp));
  CHECK(text.find("50.0%") != std::string::npos);
  CHECK(text.find("2.0e-06 vs cuBLAS") != std::string::npos);
  // A pack without HGEMM says nothing of it.
  CHECK(bench_text(sample()).find("HGEMM") == std::string::npos);
  CHECK(bench_json(sample()).find("cublas_hgemm") == std::string::npos);
}
