// tests/program/test_contracts.cpp — what crosses the process boundary between warpscope,
// the emulated runtime and the GPU tracer: the environment's names, the timer's lines and
// its kernel layouts (written on one side, read back on the other), the raw records' layout.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "env/environment.h"
#include "program/gpu_times.h"
#include "program/timing.h"
#include "sass/import.h"
#include "sass/raw.h"

using namespace ws;
using env::Var;

TEST_CASE("the environment: every name declared once, with a meaning; NAME=value entries for the child") {
  std::set<std::string> names;
  for (const env::Declared& d : env::kDeclared) {
    CHECK(std::string(d.name).rfind("WARPSCOPE_", 0) == 0);
    CHECK(names.insert(d.name).second);
    CHECK(std::strlen(d.help) > 0);
  }
  CHECK(std::string(env::name(Var::ptx)) == "WARPSCOPE_PTX");
  CHECK(std::string(env::name(Var::kernel_params)) == "WARPSCOPE_KERNEL_PARAMS");
  CHECK(env::declared(Var::tracer_debug).kind == env::Kind::Developer);
  CHECK(env::declared(Var::tracer_dir).kind == env::Kind::Folder);
  CHECK(env::declared(Var::gpu_trace).reader == env::Reader::Tracer);
  CHECK(env::entry(Var::trace_blocks, "3-5") == "WARPSCOPE_TRACE_BLOCKS=3-5");
}

TEST_CASE("the environment's readers: the default when unset or empty, counts and switches typed") {
  ::unsetenv("WARPSCOPE_MAX_RECORDS");
  CHECK_FALSE(env::is_set(Var::max_records));
  CHECK(env::get_int(Var::max_records) == 2'000'000);
  ::setenv("WARPSCOPE_MAX_RECORDS", "", 1);
  CHECK_FALSE(env::is_set(Var::max_records));
  CHECK(env::get_int(Var::max_records) == 2'000'000);
  ::setenv("WARPSCOPE_MAX_RECORDS", "1234", 1);
  CHECK(env::get_int(Var::max_records) == 1234);
  ::unsetenv("WARPSCOPE_MAX_RECORDS");

  ::unsetenv("WARPSCOPE_TRACE_BLOCKS");
  CHECK(env::get_string(Var::trace_blocks) == "all");
  ::setenv("WARPSCOPE_TRACE_BLOCKS", "2-7", 1);
  CHECK(env::get_string(Var::trace_blocks) == "2-7");
  ::unsetenv("WARPSCOPE_TRACE_BLOCKS");

  ::unsetenv("WARPSCOPE_HIDE_LOCAL");
  CHECK_FALSE(env::get_flag(Var::hide_local));
  ::setenv("WARPSCOPE_HIDE_LOCAL", "0", 1);
  CHECK_FALSE(env::get_flag(Var::hide_local));
  ::setenv("WARPSCOPE_HIDE_LOCAL", "1", 1);
  CHECK(env::get_flag(Var::hide_local));
  ::unsetenv("WARPSCOPE_HIDE_LOCAL");
}

TEST_CASE("the timer's line: written as the tracer writes it, read back field for field") {
  gpu_times::Line l;
  l.index = 3;
  l.grid[0] = 64, l.grid[1] = 32;
  l.block[0] = 16, l.block[1] = 16;
  l.shared = 4096;
  l.runs = 50;
  l.median_ns = 342000, l.min_ns = 341000, l.max_ns = 347000;
  l.saved_bytes = 12582912;
  l.restored = false;
  l.params = {{0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x00, 0x00}, {0x00, 0x04, 0x00, 0x00}, {}};
  l.kernel = "_Z11matmulTiledPKfS0_Pfi";
  const std::string text = gpu_times::format(l);
  CHECK(text ==
        "launch\t3\t64 32 1\t16 16 1\t4096\t50\t342000 341000 347000\t12582912\t0\t8:00007f0000000000,4:00040000,0:\t"
        "_Z11matmulTiledPKfS0_Pfi\n");
  gpu_times::Line back;
  REQUIRE(gpu_times::parse(text.substr(0, text.size() - 1), back) == "");
  CHECK(gpu_times::format(back) == text);
  CHECK(back.params == l.params);
  CHECK_FALSE(back.restored);

  gpu_times::Line untimed;  // arguments not known: "-"
  untimed.kernel = "k";
  const std::string u = gpu_times::format(untimed);
  CHECK(u == "launch\t0\t1 1 1\t1 1 1\t0\t0\t0 0 0\t0\t1\t-\tk\n");
  REQUIRE(gpu_times::parse(u.substr(0, u.size() - 1), back) == "");
  CHECK(back.params.empty());

  gpu_times::Line bad;
  CHECK(gpu_times::parse("launch\t0\t1 1 1", bad) == "expected 11 tab-separated fields, the first 'launch'");
  CHECK(gpu_times::parse("launch\tx\t1 1 1\t1 1 1\t0\t0\t0 0 0\t0\t1\t-\tk", bad) == "a number expected");
  CHECK(gpu_times::parse("launch\t0\t1 1\t1 1 1\t0\t0\t0 0 0\t0\t1\t-\tk", bad) == "bad grid or block");
  CHECK(gpu_times::parse("launch\t0\t1 1 1\t1 1 1\t0\t0\t0 0\t0\t1\t-\tk", bad) == "bad times");
  CHECK(gpu_times::parse("launch\t0\t1 1 1\t1 1 1\t0\t0\t0 0 0\t0\t1\t4:00\tk", bad) == "argument size and bytes disagree");
  CHECK(gpu_times::parse("launch\t0\t1 1 1\t1 1 1\t0\t0\t0 0 0\t0\t1\t1:zz\tk", bad) == "bad argument bytes");
}

TEST_CASE("the timer's file: its first line, then what the tracer wrote read back as launches") {
  gpu_times::Line l;
  l.index = 1, l.runs = 10, l.median_ns = 2'500'000, l.min_ns = 2'000'000, l.max_ns = 3'000'000;
  l.kernel = "_Z4stepPf";
  l.params = {{1, 0, 0, 0}};
  const auto t = program::read_times(std::string(gpu_times::kHeader) + "\n" + gpu_times::format(l));
  REQUIRE(t.size() == 1);
  CHECK(t[0].index == 1);
  CHECK(t[0].median_ms == doctest::Approx(2.5));
  CHECK(t[0].params == l.params);
  CHECK(t[0].kernel == "_Z4stepPf");
}

TEST_CASE("the kernels' layouts for the timer: written by warpscope, read back by the timer") {
  gpu_times::ParamLayout l;
  l["_Z11matmulTiledPKfS0_Pfi"] = {{8, 8}, {8, 8}, {8, 8}, {4, 4}};
  l["_Z4nonev"] = {};
  l["_Z4step4Dims"] = {{12, 4}, {8, 8}};
  const std::string s = gpu_times::format_layouts(l);
  CHECK(s == "_Z11matmulTiledPKfS0_Pfi=8:8,8:8,8:8,4:4;_Z4nonev=;_Z4step4Dims=12:4,8:8");
  CHECK(gpu_times::parse_layouts(s) == l);
  CHECK(program::param_layout_env(l) == s);
  CHECK(gpu_times::parse_layouts("no_equals;k=4:4,x").at("k") == std::vector<std::pair<uint32_t, uint32_t>>{{4, 4}});
  CHECK(gpu_times::parse_layouts("").empty());
}

TEST_CASE("the tracer's file: its head and chunk heads as the reader expects them, byte for byte") {
  const sass::FileHead head;
  unsigned char bytes[sizeof head];
  std::memcpy(bytes, &head, sizeof head);
  CHECK(std::memcmp(bytes, sass::kRawMagic, sizeof sass::kRawMagic) == 0);
  uint32_t version = 0;
  std::memcpy(&version, bytes + 8, 4);
  CHECK(version == sass::kRawVersion);

  // A file of one Alloc chunk, written with the records' structs, read back.
  std::string file(reinterpret_cast<const char*>(&head), sizeof head);
  sass::ChunkHead ch;
  ch.type = uint32_t(sass::ChunkType::Alloc);
  ch.bytes = sizeof(sass::AllocChunk);
  const sass::AllocChunk a{0x7f0000000000, 4096, sass::kAllocModule};
  file.append(reinterpret_cast<const char*>(&ch), sizeof ch);
  file.append(reinterpret_cast<const char*>(&a), sizeof a);
  const sass::RawCapture raw = sass::read_raw(file);
  REQUIRE(raw.allocs.size() == 1);
  CHECK(raw.allocs[0].address == 0x7f0000000000);
  CHECK(raw.allocs[0].size == 4096);
  CHECK(raw.allocs[0].module_data);
}
