// A program as users give it: words for nvcc split into sources and flags, several .cu
// files made into one module, allocations named by the line that made them, and what the
// emulated device stopped read from the program's stderr.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "program/program.h"
#include "ptx/ptx.h"
#include "../support.h"

using namespace ws;

TEST_CASE("nvcc's words as users type them: joined or apart, sources, link flags, -arch left out") {
  program::Options o;
  o.source = "tests/programs/multi/scale.cu";
  o.nvcc_flags = {"-I", "tests/programs/args/inc", "-Iinc2", "-D", "X=1", "-DY=2", "-std=c++17", "-use_fast_math",
                  "-Xcompiler", "-Wall", "-lcublas", "-L", "/opt/lib", "-arch=sm_80", "-gencode",
                  "arch=compute_80,code=sm_80", "tests/programs/multi/add.cu", "tests/programs/multi/main.cpp"};
  const program::SourceSplit s = program::split_sources(o);
  CHECK(s.device == std::vector<std::string>{"tests/programs/multi/scale.cu", "tests/programs/multi/add.cu"});
  REQUIRE(s.host.size() == 1);
  CHECK(s.host[0] == std::filesystem::absolute("tests/programs/multi/main.cpp").string());
  CHECK(s.both == std::vector<std::string>{"-I", "tests/programs/args/inc", "-Iinc2", "-D", "X=1", "-DY=2", "-std=c++17",
                                           "-use_fast_math", "-Xcompiler", "-Wall"});
  CHECK(s.link == std::vector<std::string>{"-lcublas", "-L", "/opt/lib"});
  CHECK(s.dropped == std::vector<std::string>{"-arch=sm_80", "-gencode arch=compute_80,code=sm_80"});
  CHECK(program::nvcc_takes_value("-I"));
  CHECK(program::nvcc_takes_value("-Xcompiler"));
  CHECK(!program::nvcc_takes_value("-Iinc"));
  CHECK(!program::nvcc_takes_value("-use_fast_math"));
}

TEST_CASE("nvcc's words it cannot place: one line each, the kind a front end maps to bad input") {
  program::Options o;
  o.source = "tests/programs/multi/scale.cu";
  auto refused = [&](std::vector<std::string> w, const std::string& says) {
    o.nvcc_flags = std::move(w);
    try {
      program::split_sources(o);
      FAIL("accepted: " << says);
    } catch (const program::Error& e) {
      CHECK(std::string(e.what()).find(says) != std::string::npos);
      CHECK(e.kind == "input");
    }
  };
  refused({"-o", "prog"}, "nvcc's -o is warpscope's to choose");
  refused({"-c"}, "nvcc's -c is warpscope's to choose");
  refused({"256"}, "nvcc does not know what to do with '256'");
  refused({"no_such_helper.cpp"}, "no such file: no_such_helper.cpp");
  refused({"no_such_kernels.cu"}, "no such file: no_such_kernels.cu");
  refused({"-I"}, "nvcc flag -I needs a value");
}

TEST_CASE("several modules' PTX as one: one header, .file numbers moved on, $-names their module's own") {
  const std::string a =
      ".version 9.0\n.target sm_90\n.address_size 64\n.extern .func (.param .b32 r) vprintf\n(\n.param .b64 f\n)\n;\n"
      ".global .align 1 .b8 $str[3] = {104, 105, 0};\n.file 1 \"/p/a.cu\"\n.file 2 \"/p/h.h\"\n"
      ".visible .entry ka()\n{\n.loc 1 5 3\nret;\n}\n";
  const std::string b =
      ".version 9.0\n.target sm_90\n.address_size 64\n.extern .func (.param .b32 r) vprintf\n(\n.param .b64 f\n)\n;\n"
      ".global .align 1 .b8 $str[3] = {104, 111, 0};\n.file 1 \"/p/b.cu\"\n"
      ".visible .entry kb()\n{\n.loc 1 7 2, function_name $L__info_string0, inlined_at 1 9 1\nmov.u64 %rd1, $str;\nret;\n}\n";
  const std::string m = program::merge_ptx({a, b});
  auto count = [&](const std::string& x) {
    size_t n = 0;
    for (size_t at = m.find(x); at != std::string::npos; at = m.find(x, at + 1)) ++n;
    return n;
  };
  CHECK(count(".version") == 1);
  CHECK(count(".extern .func") == 1);
  CHECK(count(".param .b64 f") == 1);  // the repeated declaration's lines went with it
  CHECK(m.find(".file 3 \"/p/b.cu\"") != std::string::npos);
  CHECK(m.find(".loc 3 7 2, function_name $L__info_string0_m1, inlined_at 3 9 1") != std::string::npos);
  CHECK(m.find("$str_m1[3] = {104, 111, 0}") != std::string::npos);
  CHECK(m.find("mov.u64 %rd1, $str_m1;") != std::string::npos);
  CHECK(m.find(".loc 1 5 3") != std::string::npos);  // the first module as it was
  CHECK(program::merge_ptx({a}) == a);
}

TEST_CASE("the allocating line: addr2line's frames past the toolkit's wrappers, the name its statement writes") {
  const program::CallLine l = program::parse_addr2line(
      "/usr/local/cuda/targets/x86_64-linux/include/cuda_runtime.h:153\n/work/p/main.cpp:22 (discriminator 2)\n"
      "/work/p/main.cpp:40\n");
  CHECK(l.file == "/work/p/main.cpp");
  CHECK(l.line == 22);
  CHECK(program::parse_addr2line("??:0\n").file.empty());
  CHECK(program::parse_addr2line("/usr/include/c++/12/bits/alloc.h:10\n").file.empty());
  const std::string text =
      "int main() {\n"
      "  checkCudaErrors(cudaMalloc((void **)&d_Data,\n"
      "                             size));\n"
      "  for (int i = 0; i < 4; ++i) cudaMalloc(&buf[i], n);\n"
      "  alloc(&p, n);\n"
      "  cudaMallocManaged(reinterpret_cast<void**>(&hist), 256);\n"
      "}\n";
  CHECK(program::name_at_line(text, 2, "main.cpp:2") == "d_Data");
  CHECK(program::name_at_line(text, 4, "main.cpp:4") == "buf[i]");
  CHECK(program::name_at_line(text, 5, "main.cpp:5") == "main.cpp:5");  // a helper's call: no cudaMalloc here
  CHECK(program::name_at_line(text, 6, "main.cpp:6") == "hist");
  CHECK(program::name_at_line(text, 99, "main.cpp:99") == "main.cpp:99");
}

TEST_CASE("what the emulated device stopped, from the program's stderr") {
  CHECK(program::ending_of("hello\nwarpscope: out-of-bounds access to 'd_in' at kernel line 7: byte offset 256 of 256 "
                           "(thread 0,0 of block 1,0) (ld.global.f32 in copyTooFar)\n")
            .kind == "fault");
  const program::Ending e = program::ending_of(
      "warpscope: kernel spin did not finish within 600000000 warp instructions (an endless loop?): block (0,0), warp 0 "
      "at line 3\n");
  CHECK(e.kind == "stopped");
  CHECK(e.message.rfind("kernel spin did not finish", 0) == 0);
  CHECK(program::ending_of("warpscope: kernel spin is in an endless loop: after 600000000 warp instructions, block (0,0), warp 0 "
                           "at line 3 came back with every register unchanged, and so did every other warp of the block\n")
            .kind == "stopped");
  CHECK(program::ending_of("prog.cu:5: void k(): block [0,0,0], thread [1,0,0] Assertion `x > 0` failed.\n").kind ==
        "fault");
  CHECK(program::ending_of("warpscope: the program called cudaGraphLaunch, which the emulated device does not provide\n")
            .kind.empty());
  CHECK(program::ending_of("out-of-bounds access in the program's own words\n").kind.empty());
}

namespace {

bool have_nvcc() {
  if (!ws::test::have_nvcc("user-program tests skipped")) return false;
  return true;
}

// The name of the array that the `op` site of `file` reaches.
std::string array_of(const trace::Trace& t, const std::string& file, trace::Op op) {
  for (const trace::Site& s : t.sites)
    if (s.op == op && s.space == trace::Space::Global && s.buffer != trace::kNoBuffer &&
        std::filesystem::path(t.files[s.file].name).filename() == file)
      return t.buffers[s.buffer].name;
  return "";
}

}  // namespace

TEST_CASE("a program in four files: both .cu files' kernels run and print, arrays named by the lines that made them") {
  if (!have_nvcc()) return;
  program::Options o;
  o.source = "tests/programs/multi/scale.cu";
  o.nvcc_flags = {"tests/programs/multi/add.cu", "tests/programs/multi/alloc.cpp", "tests/programs/multi/main.cpp"};
  o.args = {"--n=300"};
  o.echo = false;
  o.timeout_seconds = 60;
  const program::Result r = program::run(o);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("300 elements, PASSED") != std::string::npos);
  CHECK(r.output.find("scale: 300 elements") != std::string::npos);  // each module's own printf format
  CHECK(r.output.find("add: 300 elements") != std::string::npos);
  REQUIRE(r.trace.launches.size() == 2);
  CHECK(r.trace.launches[0].kernel == "scale");
  CHECK(r.trace.launches[1].kernel == "add");
  // The helper in alloc.cpp allocates first, then main, then a loop: the text's order
  // (main.cpp's one cudaMalloc) would name them wrongly.
  CHECK(array_of(r.trace, "add.cu", trace::Op::Store) == "d_out");
  CHECK(array_of(r.trace, "scale.cu", trace::Op::Store) == "bufs[i]");
  const std::set<std::string> named{"d_out", "bufs[i]"};
  // printf's formats ($str, $str_m1: one per module) are read by the kernels' printf.
  for (const trace::Buffer& b : r.trace.buffers)
    if (b.space == trace::Space::Global && b.name[0] != '$') CHECK_MESSAGE(named.count(b.name) == 1, b.name);
  CHECK(r.trace.files[0].name == std::filesystem::absolute("tests/programs/multi/scale.cu").string());
  CHECK(program::last_ending().kind.empty());
}

TEST_CASE("a program stopped at its timeout keeps what it printed; a kernel fault is its ending") {
  if (!have_nvcc()) return;
  program::Options o;
  o.source = "tests/programs/bad/prints_then_spins.cu";
  o.echo = false;
  o.timeout_seconds = 3;
  try {
    program::run(o);
    FAIL("a program that never ends finished");
  } catch (const program::Error& e) {
    CHECK(e.kind == "timeout");
    CHECK(e.output.find("before the endless loop") != std::string::npos);
  }
  o.source = "tests/programs/bad/out_of_bounds.cu";
  o.timeout_seconds = 60;
  const program::Result r = program::run(o);
  CHECK(r.exit_code == 1);
  CHECK(r.ending.kind == "fault");
  CHECK(r.ending.message.find("out-of-bounds access to 'd_in' at kernel line 7") == 0);
  CHECK(program::last_ending().kind == "fault");
  CHECK(program::last_ending().exit_code == 1);
  o.source = "tests/programs/bad/does_not_compile.cu";
  try {
    program::run(o);
    FAIL("a program that does not compile ran");
  } catch (const program::Error& e) {
    CHECK(e.kind == "compile");
  }
}

TEST_CASE("nvcc's own arrays that nothing reaches leave the list; the others keep their records") {
  trace::Trace t;
  for (const char* n : {"$str", "d_a", "$str_m1", "d_b"}) {
    trace::Buffer b;
    b.name = n;
    t.buffers.push_back(b);
  }
  trace::Site s;
  s.buffer = 3;
  t.sites.push_back(s);
  trace::Record r;
  r.buffer = 1;
  trace::LaneBuffers lanes;
  lanes.fill(3);
  lanes[0] = 1;
  r.lanes = std::make_shared<const trace::LaneBuffers>(lanes);
  t.records.push_back(r);
  trace::Record used_str;
  used_str.buffer = 2;  // a kernel that reads $str_m1 itself keeps it
  t.records.push_back(used_str);
  program::drop_unused_toolkit_arrays(t);
  REQUIRE(t.buffers.size() == 3);
  CHECK(t.buffers[0].name == "d_a");
  CHECK(t.buffers[1].name == "$str_m1");
  CHECK(t.buffers[2].name == "d_b");
  CHECK(t.sites[0].buffer == 2);
  CHECK(t.records[0].buffer == 0);
  CHECK(t.records[0].buffer_of(0) == 0);
  CHECK(t.records[0].buffer_of(5) == 2);
  CHECK(t.records[1].buffer == 1);
}
