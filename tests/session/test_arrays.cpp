// A program's arrays as its author knows them (session/arrays.h): element types from the
// instructions, shapes from cudaMallocPitch, an annotation or the app, the toolkit's own
// buffers apart, each array once; and the replay pack's figures for the same code only.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "program/program.h"
#include "session/arrays.h"
#include "session/capture.h"
#include "session/dram.h"
#include "session/session.h"
#include "../support.h"

using namespace ws;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir(const char* what) { return ws::test::temp_dir(std::string("arrays-") + what); }

using ws::test::slurp;

trace::Site site(uint32_t buffer, const char* insn) {
  trace::Site s;
  s.buffer = buffer;
  s.instruction = insn;
  return s;
}

trace::Buffer global(const char* name, uint64_t bytes) {
  trace::Buffer b;
  b.name = name;
  b.cols = bytes / 4;
  b.size_bytes = bytes;
  return b;
}

std::shared_ptr<session::Session> program_session(const fs::path& source) {
  session::LaunchSpec spec;
  spec.program.source = source.string();
  spec.program.echo = false;
  const session::ResolvedLaunch l = session::resolve(spec);
  return session::Session::from_capture(session::capture(l), l, spec);
}

const session::ArrayRow* row(const std::vector<session::ArrayRow>& rows, const std::string& name) {
  for (const auto& r : rows)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("an array's element type is what its instructions read and write") {
  trace::Trace t;
  for (int i = 0; i < 5; ++i) t.buffers.push_back(global("a", 256));
  t.sites = {site(0, "ld.global.u32"), site(0, "st.global.u32"),               // a uint32 array is not a float one
             site(1, "ld.global.nc.v4.f32"),                                     // a vector load of floats
             site(2, "ld.global.f32"), site(2, "ld.global.f32"), site(2, "atom.global.add.u32"),  // mixed, most used first
             site(3, "st.global.b32"), site(3, "ld.global.s32")};                // an untyped move says less
  CHECK(session::element_type(t, 0) == "uint32");
  CHECK(session::element_type(t, 1) == "float");
  CHECK(session::element_type(t, 2) == "float/uint32");
  CHECK(session::element_type(t, 3) == "int");
  CHECK(session::element_type(t, 4) == "");  // no site names one
  CHECK(session::element_bytes("uint8") == 1);
  CHECK(session::element_bytes("double") == 8);
  CHECK(session::element_bytes("float/uint32") == 0);
}

TEST_CASE("shape annotations: numbers or the file's own #define / constexpr values; any other form refused in one line") {
  const std::string text =
      "#define N 64\n"
      "constexpr int M = 32;\n"
      "const int rows = 8;\n"
      "// warpscope: shape d_in = N x N\n"
      "// warpscope: shape d_b = 16 x M\n"
      "  // warpscope: shape d_c=rows*4\n"
      "// warpscope: shape d_d = n x n\n"
      "// warpscope: shape d_e = 4 by 4\n";
  std::vector<std::string> notes;
  const auto shapes = session::shape_annotations(text, notes);
  REQUIRE(shapes.size() == 3);
  CHECK(shapes[0].name == "d_in");
  CHECK(shapes[0].rows == 64);
  CHECK(shapes[0].cols == 64);
  CHECK(shapes[1].rows == 16);
  CHECK(shapes[1].cols == 32);
  CHECK(shapes[2].rows == 8);
  CHECK(shapes[2].cols == 4);
  CHECK(shapes[0].from == "annotation");
  REQUIRE(notes.size() == 2);
  CHECK(notes[0] == "warpscope: shape d_d: 'n' is not a number or a #define / constexpr of the file: the shape is not applied");
  CHECK(notes[1].find("not read (the form is `// warpscope: shape NAME = ROWS x COLS`)") != std::string::npos);
}

TEST_CASE("shapes set in the app are kept beside the program, one line each, and forgotten on request") {
  const fs::path dir = temp_dir("saved");
  const std::string prog = (dir / "p.cu").string();
  std::string error;
  REQUIRE(session::save_shape(prog, "d_in", 64, 64, error));
  REQUIRE(session::save_shape(prog, "d_out", 32, 128, error));
  REQUIRE(session::save_shape(prog, "d_in", 128, 32, error));  // set again: replaced
  std::vector<std::string> notes;
  auto shapes = session::saved_shapes(prog, notes);
  REQUIRE(shapes.size() == 2);
  CHECK(shapes[0].name == "d_out");
  CHECK(shapes[1].name == "d_in");
  CHECK(shapes[1].rows == 128);
  CHECK(shapes[1].from == "set in the app");
  CHECK(notes.empty());
  // A line spoiled by hand: left out, said once.
  std::ofstream(session::shapes_file(prog), std::ios::app) << "d_x sixty x 4\n";
  shapes = session::saved_shapes(prog, notes);
  CHECK(shapes.size() == 2);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("'d_x sixty x 4' is not NAME ROWS x COLS: left out") != std::string::npos);
  REQUIRE(session::save_shape(prog, "d_in", 0, 0, error));
  REQUIRE(session::save_shape(prog, "d_out", 0, 0, error));
  CHECK_FALSE(fs::exists(session::shapes_file(prog)));  // nothing kept: no file
  fs::remove_all(dir);
}

TEST_CASE("shape_arrays: element sizes from the instructions, then the annotation, then the app's; a wrong size refused") {
  const fs::path dir = temp_dir("shape");
  const fs::path prog = dir / "p.cu";
  std::ofstream(prog) << "#define N 64\n// warpscope: shape d_in = N x N\n// warpscope: shape d_out = 64 x 32\n";
  std::string error;
  REQUIRE(session::save_shape(prog.string(), "d_bytes", 16, 64, error));
  trace::Trace t;
  t.buffers = {global("d_in", 64 * 64 * 4), global("d_out", 64 * 64 * 4), global("d_bytes", 1024)};
  t.sites = {site(0, "ld.global.f32"), site(1, "st.global.f32"), site(2, "ld.global.u8")};
  std::vector<std::string> notes;
  const auto from = session::shape_arrays(t, prog.string(), notes);
  CHECK(t.buffers[0].rows == 64);
  CHECK(t.buffers[0].cols == 64);
  CHECK(from.at("d_in") == "annotation");
  CHECK(t.buffers[1].rows == 1);  // 64 x 32 is half of it
  CHECK(from.count("d_out") == 0);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "shape d_out = 64 x 32 holds 2048 elements, the array 4096: not applied");
  CHECK(t.buffers[2].elem_bytes == 1);  // bytes, as its loads say
  CHECK(t.buffers[2].rows == 16);
  CHECK(t.buffers[2].cols == 64);
  CHECK(from.at("d_bytes") == "set in the app");
  fs::remove_all(dir);
}

TEST_CASE("the arrays list: each array once, the toolkit's buffers only when asked for") {
  auto t = std::make_shared<trace::Trace>();
  t->buffers = {global("d_in", 4096), global("$str", 16), global("tile", 4096), global("tile", 4096),
                global("tile", 4224), global("d_out", 4096)};
  t->buffers[2].space = t->buffers[3].space = t->buffers[4].space = trace::Space::Shared;
  trace::Buffer frames = global("local frames", 512);
  frames.space = trace::Space::Local;
  t->buffers.push_back(frames);
  t->buffers.push_back(frames);
  t->sites = {site(0, "ld.global.f32"), site(2, "st.shared.f32"), site(3, "st.shared.f32"), site(4, "st.shared.f32"),
              site(5, "st.global.f32")};
  for (uint32_t l = 0; l < 3; ++l) {
    trace::Launch launch;
    launch.kernel = "k";
    t->launches.push_back(launch);
    // Launch l reads d_in, writes its own tile (the third a padded one) and d_out.
    for (uint32_t s : {0u, 1u + l, 4u}) {
      trace::Record r;
      r.launch = l;
      r.site = s;
      r.buffer = t->sites[s].buffer;
      r.active = 1;
      t->records.push_back(r);
    }
  }
  const auto m = session::Session::from_trace(t, session::dram_model("textbook"));
  const auto rows = session::array_rows(*m, false);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].name == "d_in");
  CHECK(rows[1].name == "d_out");
  CHECK(rows[0].type == "float");
  CHECK(rows[0].shape == "1024");
  // The two tiles of one size are one array; the padded one says which launch is its own.
  CHECK(rows[2].name == "tile (launches 1, 2)");
  CHECK(rows[2].buffers.size() == 2);
  CHECK(rows[3].name == "tile (launch 3)");
  for (const auto& r : rows) CHECK_FALSE(r.internal);
  const auto all = session::array_rows(*m, true);
  REQUIRE(all.size() == 6);
  CHECK(all[4].name == "$str");
  CHECK(all[5].name == "local frames");  // two launches' frames, one row
  CHECK(all[5].buffers.size() == 2);
}

TEST_CASE("a program's arrays in a Session: the annotated matrix 64 x 64, a pitched one by its rows, uint32 is not float") {
  if (!ws::test::have_nvcc("skipped")) return;
  const fs::path dir = temp_dir("program");
  const fs::path prog = dir / "shapes.cu";
  std::ofstream(prog) << R"(#include <cstdio>
#include <cuda_runtime.h>
#define N 64
// warpscope: shape d_in = N x N
__global__ void k(float* out, const float* in, unsigned* counts, float* pitched, size_t pitch) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * 2.0f;
  atomicAdd(&counts[i % 16], 1u);
  float* row = (float*)((char*)pitched + (i / 32) * pitch);
  row[i % 32] = 1.0f;
}
int main() {
  float *d_in, *d_out, *d_p;
  unsigned* d_counts;
  size_t pitch = 0;
  cudaMalloc(&d_in, N * N * sizeof(float));
  cudaMalloc(&d_out, N * N * sizeof(float));
  cudaMalloc(&d_counts, 16 * sizeof(unsigned));
  cudaMallocPitch(&d_p, &pitch, 32 * sizeof(float), 128);
  cudaMemset(d_counts, 0, 16 * sizeof(unsigned));
  k<<<N * N / 256, 256>>>(d_out, d_in, d_counts, d_p, pitch);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
)";
  const auto m = program_session(prog);
  const auto rows = session::array_rows(*m, false);
  const session::ArrayRow* in = row(rows, "d_in");
  REQUIRE(in);
  CHECK(in->shape == "64 × 64");  // not "4096 float · 32 per row"
  CHECK(in->type == "float");
  CHECK(in->from == "annotation");
  const session::ArrayRow* counts = row(rows, "d_counts");
  REQUIRE(counts);
  CHECK(counts->type == "uint32");
  const session::ArrayRow* p = row(rows, "d_p");
  REQUIRE(p);
  CHECK(p->shape == "128 × 128 (pitch 128)");  // rows of 32 floats padded to 512 bytes
  CHECK(p->from == "cudaMallocPitch");
  const session::ArrayRow* out = row(rows, "d_out");
  REQUIRE(out);
  CHECK(out->shape == "4096");
  CHECK(out->from.empty());
  // The memory view's grid of d_in: 64 rows of 64, named by its type.
  for (size_t b = 0; b < m->trace().buffers.size(); ++b)
    if (m->trace().buffers[b].name == "d_in") {
      CHECK(m->shapes()[b].rows == 64);
      CHECK(m->shapes()[b].cols == 64);
      CHECK(m->shapes()[b].type == "float");
    }
  fs::remove_all(dir);
}

TEST_CASE("the replay pack's figures are the same code's: a copy matches by its text, an edit or another program gets none") {
  if (!ws::test::have_nvcc("skipped")) return;
  const fs::path dir = temp_dir("pack");
  const std::string text = slurp("examples/transpose.cu");
  // The example itself: its trace and times from the pack.
  const auto original = program_session("examples/transpose.cu");
  REQUIRE(original->hardware());
  CHECK(session::gpu_times(*original).json);
  CHECK(original->source_hash() == program::source_hash(original->program()));
  // The same text under another name is the same code.
  std::ofstream(dir / "my_transpose.cu") << text;
  CHECK(program_session(dir / "my_transpose.cu")->hardware());
  // Edited (the padded tile in launch 2): the pack's figures are of other code.
  std::string padded = text;
  padded.replace(padded.find("tile[TILE][TILE + PAD]"), 22, "tile[TILE][TILE + 1]");
  std::ofstream(dir / "transpose.cu") << padded;
  const auto edited = program_session(dir / "transpose.cu");
  CHECK_FALSE(edited->hardware());
  CHECK_FALSE(session::gpu_times(*edited).json);
  // A program of another name the pack never ran (a transpose by any other name).
  CHECK_FALSE(program_session("tests/programs/atomics/global_atomics.cu")->hardware());
  fs::remove_all(dir);
}
