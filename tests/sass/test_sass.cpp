// The GPU tracer's files made into traces (sass/import.h), on any machine: a file built here
// with every kind of chunk, and the files an NVIDIA H100 wrote for tests/programs
// (tests/data/gpu, recorded by scripts/device/trace_programs.sh: the tracer's file and
// nvdisasm's listing of the program's module), checked against the emulated device's trace
// of the same program. Where the two differ, the difference is the compiler's (ptxas merged
// four scalar shared loads into one LDS.128), and the test says so.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "../compare_requests.h"
#include "analysis/analysis.h"
#include "analysis/levels.h"
#include "program/program.h"
#include "sass/import.h"
#include "session/capture.h"
#include "session/hardware.h"
#include "session/report.h"
#include "session/session.h"
#include "trace/assets.h"
#include "trace/trace.h"
#include "trace/wstrace.h"
#include "trace/wstrace.h"
#include "../support.h"

using namespace ws;

namespace {

using ws::test::slurp;

// A tracer's file, written as the tracer writes it.
struct RawWriter {
  std::string bytes;
  RawWriter() {
    bytes.append(sass::kRawMagic, 8);
    put(sass::kRawVersion);
    put(uint32_t(0));
  }
  template <class T>
  void put(const T& v) {
    bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void chunk(sass::ChunkType t, const std::string& payload) {
    put(uint32_t(t));
    put(uint32_t(0));
    const uint64_t padded = (payload.size() + 7) / 8 * 8;
    put(padded);
    bytes += payload;
    bytes.append(padded - payload.size(), '\0');
  }
  template <class T>
  static std::string raw(const T& v) {
    return std::string(reinterpret_cast<const char*>(&v), sizeof v);
  }
};

// One record: lanes of `mask` at base + lane * stride.
sass::DeviceRecord record(uint64_t pc, uint32_t warp, uint8_t space, uint16_t flags, uint64_t base, uint64_t stride,
                          uint32_t mask = ~0u) {
  sass::DeviceRecord r;
  r.pc = pc;
  r.block = 0;
  r.warp = warp;
  r.mask = mask;
  r.space = space;
  r.size = 4;
  r.flags = flags;
  for (int l = 0; l < 32; ++l) r.address[l] = base + uint64_t(l) * stride;
  return r;
}

constexpr const char* kListing = R"(
	.section	.text._Z3fooPfS_,"ax",@progbits
.text._Z3fooPfS_:
	//## File "/home/u/foo.cu", line 7
        /*0080*/                   LDG.E R2, desc[UR4][R2.64] ;
	//## File "/home/u/foo.cu", line 8
        /*0090*/              @!P0 STS [R5+0x4], R2 ;
	//## File "/usr/local/cuda/bin/../targets/x86_64-linux/include/device_atomic_functions.hpp", line 107
        /*00a0*/                   REDG.E.ADD.STRONG.GPU desc[UR6][R2.64], R5 ;
)";

}  // namespace

TEST_CASE("a tracer's file becomes a trace: the program's allocations named, SASS sites with lines, shared past the system's kilobyte") {
  RawWriter w;
  const uint64_t runtime = 0x7000000000, in = 0x7000100000, out = 0x7000200000;
  // The runtime allocates for itself first (during the program's first cudaMalloc); the
  // program's two allocations are marked by the pointers its calls returned.
  w.chunk(sass::ChunkType::Alloc, RawWriter::raw(std::array<uint64_t, 3>{runtime, 512, 0}));
  w.chunk(sass::ChunkType::Alloc, RawWriter::raw(std::array<uint64_t, 3>{in, 4096, 0}));
  w.chunk(sass::ChunkType::ProgramAlloc, RawWriter::raw(in));
  w.chunk(sass::ChunkType::Alloc, RawWriter::raw(std::array<uint64_t, 3>{out, 4096, 0}));
  // The second with the name its call's line gives it (the text's order would say d_out).
  w.chunk(sass::ChunkType::ProgramAlloc, RawWriter::raw(out) + std::string("d_result", 9));
  w.chunk(sass::ChunkType::Module, RawWriter::raw(uint64_t(42)) + "CUBIN");
  sass::LaunchHead h;
  h.module = 42;
  h.function_pc = 0x10000;
  h.block[0] = 64;
  h.block_hi = 1;
  h.executed = 5;  // two beyond the three kept: counted, not kept
  h.kept = 3;
  h.nanoseconds = 2'000'000;
  const std::string name = "_Z3fooPfS_";
  h.name_bytes = uint32_t(name.size());
  std::string payload = RawWriter::raw(h) + name;
  payload.append((name.size() + 7) / 8 * 8 - name.size(), '\0');
  payload += RawWriter::raw(record(0x10080, 0, sass::kRawGlobal, sass::kRawRead, in, 4));
  payload += RawWriter::raw(record(0x10090, 1, sass::kRawShared, sass::kRawWrite, 1024 + 4, 33 * 4));  // TILE+1 rows
  payload += RawWriter::raw(record(0x100a0, 0, sass::kRawGlobal, sass::kRawWrite, out, 0, 1u));
  w.chunk(sass::ChunkType::Launch, payload);
  w.chunk(sass::ChunkType(99), "a later version's chunk");  // skipped

  const sass::RawCapture raw = sass::read_raw(w.bytes);
  REQUIRE(raw.launches.size() == 1);
  CHECK(raw.allocs.size() == 3);
  CHECK(!raw.allocs[0].by_program);
  CHECK(raw.allocs[1].by_program);
  CHECK(raw.allocs[1].name.empty());
  CHECK(raw.allocs[2].name == "d_result");
  CHECK(raw.modules.at(0).cubin.rfind("CUBIN", 0) == 0);  // padded to 8 bytes (an ELF knows its own length)
  const sass::Disassembly dis = sass::parse_disassembly(kListing);
  sass::ImportOptions o;
  o.names = {"d_in", "d_out"};
  o.device = "NVIDIA H100 80GB HBM3";
  o.shared["_Z3fooPfS_"] = {"tile"};
  const trace::Trace t = sass::to_trace(raw, {{42, dis}}, o);
  REQUIRE(t.launches.size() == 1);
  CHECK(t.provenance.backend == "gpu");
  CHECK(t.launches[0].kernel == "foo");
  CHECK(t.launches[0].dropped_records == 2);
  CHECK(t.launches[0].seconds == doctest::Approx(0.002));
  REQUIRE(t.records.size() == 3);
  std::map<std::string, uint32_t> buffers;
  for (uint32_t i = 0; i < t.buffers.size(); ++i) buffers[t.buffers[i].name] = i;
  CHECK(buffers.count("runtime allocation 1"));
  REQUIRE(buffers.count("d_in"));
  CHECK(buffers.count("d_result"));
  CHECK(!buffers.count("d_out"));
  REQUIRE(buffers.count("foo::tile"));
  const trace::Record& load = t.records[0];
  const trace::Site& ls = t.sites[load.site];
  CHECK(ls.instruction == "LDG.E");
  CHECK(ls.line == 7);
  CHECK(t.files[ls.file].name == "/home/u/foo.cu");
  CHECK(load.buffer == buffers["d_in"]);
  CHECK(load.offset[31] == 124);
  // Kept as the emulated device keeps them: warp 0's two (in its order), then warp 1's.
  CHECK(t.records[1].warp == 0);
  CHECK(t.records[1].seq == 1);
  const trace::Record& st = t.records[2];
  CHECK(t.sites[st.site].instruction == "STS");
  CHECK(t.sites[st.site].space == trace::Space::Shared);
  CHECK(st.buffer == buffers["foo::tile"]);
  CHECK(st.offset[0] == 4);  // the system's kilobyte is not the kernel's
  CHECK(st.offset[1] == 4 + 33 * 4);
  // The atomic inlined from the toolkit's header sits on the program's line before it, and
  // is an atomic though the Sanitizer API flags a RED as a write.
  const trace::Site& at = t.sites[t.records[1].site];
  CHECK(at.op == trace::Op::Atomic);
  CHECK(at.line == 8);
  CHECK(t.records[1].active == 1u);
  // Analysed as any trace: the padded tile store is conflict free.
  const analysis::Report rep = analysis::analyze(t, analysis::DramModel{});
  for (const auto& s : rep.sites)
    if (t.sites[s.site].space == trace::Space::Shared) CHECK(s.max_way == 1);
}

TEST_CASE("a tracer's ldmatrix, cp.async, commit and wait: matrix rows, an async copy's paired halves, events in the warp's order") {
  RawWriter w;
  const uint64_t in = 0x7000100000;
  w.chunk(sass::ChunkType::Alloc, RawWriter::raw(std::array<uint64_t, 3>{in, 1 << 16, 0}));
  w.chunk(sass::ChunkType::ProgramAlloc, RawWriter::raw(in) + std::string("d_a", 4));
  sass::LaunchHead h;
  h.function_pc = 0x10000;
  h.block[0] = 32;
  h.block_hi = 1;
  h.executed = 6;
  h.kept = 6;
  const std::string name = "_Z3tcmPK6__half";
  h.name_bytes = uint32_t(name.size());
  std::string payload = RawWriter::raw(h) + name;
  payload.append((name.size() + 7) / 8 * 8 - name.size(), '\0');
  // LDGSTS, 16 bytes a lane on 16 lanes: the global read, then the shared write.
  sass::DeviceRecord rd = record(0x10010, 0, sass::kRawGlobal, sass::kRawRead, in, 16, 0xffffu);
  rd.size = 16;
  rd.form = sass::kRawAsyncRead;
  sass::DeviceRecord wr = record(0x10010, 0, sass::kRawShared, sass::kRawWrite, 1024, 16, 0xffffu);
  wr.size = 16;
  wr.form = sass::kRawAsyncWrite;
  sass::DeviceRecord commit = record(0x10020, 0, sass::kRawGlobal, 0, 0, 0);
  commit.size = 0;
  commit.form = sass::kRawCommit;
  sass::DeviceRecord wait = record(0x10030, 0, sass::kRawGlobal, 1, 0, 0);
  wait.size = 0;
  wait.form = sass::kRawWait;
  // LDSM.x4 from a plain 64-half-wide tile: lane l names row l of the tile, 128 bytes apart.
  sass::DeviceRecord ldsm = record(0x10040, 0, sass::kRawShared, sass::kRawRead, 1024, 128);
  ldsm.size = 16;
  ldsm.form = sass::kRawMatrix;
  ldsm.count = 4;
  // LDSM.x2: the Sanitizer calls every lane; only the first 16 name rows.
  sass::DeviceRecord x2 = ldsm;
  x2.pc = 0x10050;
  x2.count = 2;
  for (const auto& r : {rd, wr, commit, wait, ldsm, x2}) payload += RawWriter::raw(r);
  w.chunk(sass::ChunkType::Launch, payload);

  const trace::Trace t = sass::to_trace(sass::read_raw(w.bytes), {}, sass::ImportOptions{});
  REQUIRE(t.records.size() == 4);
  const trace::Site& r0 = t.sites[t.records[0].site];
  const trace::Site& r1 = t.sites[t.records[1].site];
  CHECK(r0.form == trace::Form::AsyncRead);
  CHECK(r0.space == trace::Space::Global);
  CHECK(r1.form == trace::Form::AsyncWrite);
  CHECK(r1.space == trace::Space::Shared);
  CHECK(r0.partner == t.records[1].site);
  CHECK(r1.partner == t.records[0].site);
  CHECK(t.sites[t.records[2].site].form == trace::Form::Matrix);
  CHECK(t.records[3].active == 0xffffu);
  REQUIRE(t.events.size() == 2);
  CHECK(t.event_sites[t.events[0].site].form == trace::Form::Commit);
  CHECK(t.event_sites[t.events[1].site].form == trace::Form::Wait);
  CHECK(t.events[1].arg == 1);
  // One sequence per warp: read 0, write 1, commit 2, wait 3, the matrix loads 4 and 5.
  CHECK(t.records[1].seq == 1);
  CHECK(t.events[0].seq == 2);
  CHECK(t.events[1].seq == 3);
  CHECK(t.records[2].seq == 4);
  // Costed as the H100 counts them: 8 sectors for 256 consecutive bytes, 2 wavefronts for
  // their shared half, 8-way rows in each of the ldmatrix.x4's four matrices (32 wavefronts).
  const analysis::Report rep = analysis::analyze(t, analysis::DramModel{});
  std::map<trace::Form, const analysis::SiteStats*> by;
  for (const auto& s : rep.sites) by[t.sites[s.site].form] = &s;
  REQUIRE(by.count(trace::Form::AsyncRead));
  CHECK(by[trace::Form::AsyncRead]->sectors == 8);
  CHECK(by[trace::Form::AsyncWrite]->wavefronts == 2);
  CHECK(rep.sites.size() == 4);
  for (const auto& s : rep.sites) {
    if (s.site == t.records[2].site) CHECK(s.wavefronts == 32);  // x4: 4 matrices, 8-way each
    if (s.site == t.records[3].site) CHECK(s.wavefronts == 16);  // x2: 2 matrices
  }
}

TEST_CASE("past the record cap only the blocks kept whole stay: each warp's executed count says which") {
  // Blocks 0-2 of 2 warps, 2 instructions a warp; the cap kept all of block 1, half of
  // block 0 (its warp 1 lost one), nothing of block 2.
  RawWriter w;
  sass::LaunchHead h;
  h.grid[0] = 3;
  h.block[0] = 64;
  h.block_hi = 3;
  h.executed = 12;
  const std::string name = "_Z3fooPfS_";
  h.name_bytes = uint32_t(name.size());
  std::vector<sass::DeviceRecord> recs;
  for (uint32_t blk : {0u, 1u})
    for (uint32_t warp : {0u, 1u})
      for (uint64_t pc : {0x10080ull, 0x10090ull}) {
        if (blk == 0 && warp == 1 && pc == 0x10090) continue;
        sass::DeviceRecord r = record(pc, warp, sass::kRawGlobal, sass::kRawRead, 0x7000100000, 4);
        r.block = blk;
        recs.push_back(r);
      }
  h.kept = recs.size();  // 7 of 12
  std::string payload = RawWriter::raw(h) + name;
  payload.append((name.size() + 7) / 8 * 8 - name.size(), '\0');
  for (const auto& r : recs) payload += RawWriter::raw(r);
  w.chunk(sass::ChunkType::Alloc, RawWriter::raw(std::array<uint64_t, 3>{0x7000100000, 4096, 0}));
  w.chunk(sass::ChunkType::Launch, payload);
  const std::array<uint32_t, 8> counts = {2, 6, 2, 2, 2, 2, 2, 2};  // 2 warps a block, 6 warps
  w.chunk(sass::ChunkType::WarpCounts, RawWriter::raw(counts));
  const sass::RawCapture raw = sass::read_raw(w.bytes);
  REQUIRE(raw.launches.size() == 1);
  CHECK(raw.launches[0].warps_per_block == 2);
  CHECK(raw.launches[0].executed_per_warp == std::vector<uint32_t>{2, 2, 2, 2, 2, 2});
  const trace::Trace t = sass::to_trace(raw, {}, {});
  REQUIRE(t.launches.size() == 1);
  CHECK(t.launches[0].blocks == std::vector<uint32_t>{1});
  CHECK(t.records.size() == 4);
  CHECK(t.launches[0].dropped_records == 8);
  for (const trace::Record& r : t.records) CHECK(r.block == 1);
}

TEST_CASE("a launch note: the spaces left unpatched are named, a launch run unpatched keeps its shape and no blocks") {
  // Two launches of one kernel: the first traced with global accesses only, the second run
  // unpatched (past the launches the tracer records of a kernel).
  RawWriter w;
  const std::string name = "_Z3fooPfS_";
  auto launch = [&](uint32_t kept) {
    sass::LaunchHead h;
    h.grid[0] = 2;
    h.block[0] = 32;
    h.block_hi = kept ? 2 : 0;
    h.executed = h.kept = kept;
    h.name_bytes = uint32_t(name.size());
    h.nanoseconds = 5000;
    std::string payload = RawWriter::raw(h) + name;
    payload.append((name.size() + 7) / 8 * 8 - name.size(), '\0');
    for (uint32_t b = 0; b < kept; ++b) {
      sass::DeviceRecord r = record(0x10080, 0, sass::kRawGlobal, sass::kRawRead, 0x7000100000 + 128 * b, 4);
      r.block = b;
      payload += RawWriter::raw(r);
    }
    w.chunk(sass::ChunkType::Launch, payload);
  };
  w.chunk(sass::ChunkType::Alloc, RawWriter::raw(std::array<uint64_t, 3>{0x7000100000, 4096, 0}));
  launch(2);
  w.chunk(sass::ChunkType::LaunchNote, RawWriter::raw(sass::LaunchNoteChunk{sass::kRawSpaceGlobal, 0}));
  launch(0);
  w.chunk(sass::ChunkType::LaunchNote, RawWriter::raw(sass::LaunchNoteChunk{sass::kRawSpaceGlobal, 1}));
  const sass::RawCapture raw = sass::read_raw(w.bytes);
  REQUIRE(raw.launches.size() == 2);
  CHECK(raw.launches[0].spaces == sass::kRawSpaceGlobal);
  CHECK_FALSE(raw.launches[0].unrecorded);
  CHECK(raw.launches[1].unrecorded);
  const trace::Trace t = sass::to_trace(raw, {}, {});
  REQUIRE(t.launches.size() == 2);
  CHECK(t.launches[0].recorded);
  CHECK(t.launches[0].unrecorded_spaces == std::vector<trace::Space>{trace::Space::Shared});
  CHECK(t.launches[0].blocks == std::vector<uint32_t>{0, 1});
  CHECK_FALSE(t.launches[1].recorded);
  CHECK(t.launches[1].blocks.empty());
  CHECK(t.launches[1].unrecorded_spaces.empty());  // nothing was recorded: no space is singled out
  CHECK(t.launches[1].grid.x == 2);
  CHECK(t.launches[1].seconds == doctest::Approx(5e-6));
  CHECK(t.records.size() == 2);
  // A file of an older tracer, without notes: every space, every launch recorded.
  w = RawWriter();
  w.chunk(sass::ChunkType::Alloc, RawWriter::raw(std::array<uint64_t, 3>{0x7000100000, 4096, 0}));
  launch(2);
  const trace::Trace t2 = sass::to_trace(sass::read_raw(w.bytes), {}, {});
  REQUIRE(t2.launches.size() == 1);
  CHECK(t2.launches[0].unrecorded_spaces.empty());
  CHECK(t2.launches[0].recorded);
}

TEST_CASE("files that are not a tracer's, or cut short, say so or keep what is whole") {
  CHECK_THROWS_WITH_AS(sass::read_raw("hello"), "not a warpscope GPU trace (no WSGPUTR header)", std::runtime_error);
  RawWriter w;
  w.chunk(sass::ChunkType::Alloc, RawWriter::raw(std::array<uint64_t, 3>{1, 2, 0}));
  std::string cut = w.bytes + std::string("\x03\0\0\0\0\0\0\0\xff\xff\0\0\0\0\0\0", 16);  // a launch chunk past the end
  const sass::RawCapture r = sass::read_raw(cut);
  CHECK(r.allocs.size() == 1);
  CHECK(r.launches.empty());
  std::string v2 = w.bytes;
  v2[8] = 9;
  CHECK_THROWS_WITH_AS(sass::read_raw(v2), "GPU trace version 9, this warpscope reads 1", std::runtime_error);
}

TEST_CASE("the kernel's plain name, and the shared arrays a PTX declares") {
  CHECK(sass::plain_name("_Z14transposeTiledILi32ELi8ELi1EEvPKfPfii") == "transposeTiled<32, 8, 1>");
  CHECK(sass::plain_name("_Z11matmulTiledPKfS0_Pfi") == "matmulTiled");
  CHECK(sass::plain_name("not_mangled") == "not_mangled");
  const sass::SharedNames n = sass::ptx_shared_names(
      ".shared .align 4 .b8 partial[1024];\n"
      ".visible .entry _Z11matmulTiledPKfS0_Pfi(\n"
      "\t.shared .align 4 .b8 _ZZ11matmulTiledPKfS0_PfiE2As[1024];\n"
      "\t.shared .align 4 .b8 _ZZ11matmulTiledPKfS0_PfiE2Bs[1024];\n"
      "\tst.shared.f32 \t[%r6], %f60;\n");
  CHECK(n.at("_Z11matmulTiledPKfS0_Pfi") == std::vector<std::string>{"As", "Bs"});
  CHECK(n.at("") == std::vector<std::string>{"partial"});
}

namespace {

bool can_run_programs() {
  if (!ws::test::have_nvcc("the emulated side of the GPU comparisons skipped")) return false;
  return true;
}

// The H100's trace of a program of tests/programs, from its fixture.
trace::Trace gpu_fixture(const std::string& name) {
  const std::string dir = "tests/data/gpu/" + name;
  const sass::RawCapture raw = sass::read_raw(slurp(dir + "/gpu.raw"));
  std::map<uint64_t, sass::Disassembly> dis;
  if (!raw.modules.empty()) dis[raw.modules[0].id] = sass::parse_disassembly(slurp(dir + "/module0.sass"));
  sass::ImportOptions o;
  o.names = program::allocation_names(slurp("tests/programs/" + name + ".cu"));
  o.device = "NVIDIA H100 80GB HBM3";
  return sass::to_trace(raw, dis, o);
}

using test::requests_of;

// Every warp of the emulated trace `e` issued the requests the GPU's `g` holds for it.
template <class Requests>
void same_warps(const Requests& g, const Requests& e) {
  CHECK(g.size() == e.size());
  for (const auto& [warp, set] : e) {
    INFO("block " << warp.first << " warp " << warp.second);
    auto it = g.find(warp);
    REQUIRE(it != g.end());
    CHECK(it->second == set);
  }
}

}  // namespace

TEST_CASE("transpose_twin.cu on an H100 equals the emulated device's trace, request for request, warp by warp") {
  const trace::Trace gpu = gpu_fixture("transpose_twin");
  REQUIRE(gpu.launches.size() == 2);  // TILE and TILE+1
  CHECK(gpu.provenance.backend == "gpu");
  if (!can_run_programs()) return;
  program::Options o;
  o.source = "tests/programs/transpose_twin.cu";
  o.echo = false;
  const program::Result emu = program::run(o);
  REQUIRE(emu.trace.launches.size() == 2);
  for (uint32_t k = 0; k < 2; ++k) {
    CAPTURE(k);
    const auto g = requests_of(gpu, k), e = requests_of(emu.trace, k);
    same_warps(g, e);
  }
  // SASS names: the scalar loads and stores as ptxas wrote them.
  std::set<std::string> ops;
  for (const trace::Site& s : gpu.sites) ops.insert(s.instruction);
  CHECK(ops == std::set<std::string>{"LDG.E", "STS", "LDS", "STG.E"});
}

TEST_CASE("ldmatrix, cp.async and mma programs on an H200 equal the emulated device's traces, request for request") {
  // The replay pack's traces of ldmatrix_swizzle.cu (LDSM from a plain and a swizzled tile),
  // async_copy.cu (LDGSTS: the global read and the shared write of each copy) and tc_twin.cu
  // (an HGEMM of ldmatrix and mma.sync), recorded by the GPU tracer on an H200. Each warp's
  // requests are the emulated device's; async_copy's shared side by its figures per line,
  // as the tracer sees its two tiles as one window (`shared (tileA, tileB)`).
  struct Want {
    const char* name;
    const char* sass;  // an instruction the GPU ran
    uint32_t launches;
    bool shared_by_request;
  };
  for (const Want& w : {Want{"ldmatrix_swizzle", "LDSM.16.M88.4", 2, true},
                        Want{"async_copy", "LDGSTS.E.BYPASS.128", 1, false}, Want{"tc_twin", "LDSM.16.M88.4", 2, true}}) {
    INFO(w.name);
    const trace::Trace gpu = trace::read_trace(std::string("assets/replay/sass/") + w.name + ".wstrace");
    REQUIRE(gpu.launches.size() == w.launches);
    bool ran = false;
    for (const trace::Site& s : gpu.sites) ran |= s.instruction.find(w.sass) != std::string::npos;
    CHECK(ran);
    if (!can_run_programs()) continue;
    program::Options o;
    o.source = std::string("tests/programs/") + w.name + ".cu";
    o.echo = false;
    o.backend = "emulator";
    const program::Result emu = program::run(o);
    REQUIRE(emu.trace.launches.size() == w.launches);
    for (uint32_t k = 0; k < w.launches; ++k) {
      CAPTURE(k);
      const auto g = requests_of(gpu, k, nullptr, !w.shared_by_request);
      const auto e = requests_of(emu.trace, k, nullptr, !w.shared_by_request);
      same_warps(g, e);
      // Per line, space and operation: the same requests, sectors and wavefronts.
      using Totals = std::array<double, 4>;
      auto totals = [k](const trace::Trace& t) {
        const trace::Trace one = trace::launch_trace(t, k);
        const analysis::Report rep = analysis::analyze(one, analysis::DramModel{});
        std::map<std::tuple<uint32_t, int, int>, Totals> out;
        for (const analysis::SiteStats& st : rep.sites) {
          const trace::Site& s = one.sites[st.site];
          Totals& x = out[{s.line, int(s.space), int(s.op)}];
          x[0] += double(st.requests), x[1] += double(st.lane_accesses), x[2] += double(st.sectors), x[3] += double(st.wavefronts);
        }
        return out;
      };
      CHECK(totals(gpu) == totals(emu.trace));
    }
  }
  // The figures themselves, from the H200's trace: 32 wavefronts an LDSM from the plain
  // tile, 4 from the swizzled one (20 LDSM instructions in each kernel).
  const trace::Trace ldsm = trace::read_trace("assets/replay/sass/ldmatrix_swizzle.wstrace");
  for (uint32_t k = 0; k < 2; ++k) {
    const trace::Trace one = trace::launch_trace(ldsm, k);
    const analysis::Report rep = analysis::analyze(one, analysis::DramModel{});
    int matrix = 0;
    for (const analysis::SiteStats& st : rep.sites)
      if (one.sites[st.site].instruction.find("LDSM") != std::string::npos) {
        ++matrix;
        CHECK(st.wavefronts_per_request == doctest::Approx(k ? 4.0 : 32.0));
      }
    CHECK(matrix == 20);
  }
  // cp.async on the H200: 16 bytes a lane, 16 lanes, 8 sectors read and 2 wavefronts
  // written; 4 bytes a lane, 32 lanes, 4 sectors and 1 wavefront (two LDGSTS of each).
  const trace::Trace copy = trace::read_trace("assets/replay/sass/async_copy.wstrace");
  const analysis::Report rep = analysis::analyze(copy, analysis::DramModel{});
  int halves = 0;
  for (const analysis::SiteStats& st : rep.sites) {
    const trace::Site& site = copy.sites[st.site];
    if (site.instruction.find("LDGSTS") == std::string::npos) continue;
    ++halves;
    const bool wide = site.bytes == 16;
    if (site.space == trace::Space::Global)
      CHECK(st.sectors_per_request == doctest::Approx(wide ? 8.0 : 4.0));
    else
      CHECK(st.wavefronts_per_request == doctest::Approx(wide ? 2.0 : 1.0));
  }
  CHECK(halves == 8);
}

TEST_CASE("matmul_tiled.cu on an H100: the inner product's 32 scalar shared loads ran as 16 LDS and 4 LDS.128") {
  const trace::Trace gpu = gpu_fixture("matmul_tiled");  // blocks 0-1 of 16, size 64
  REQUIRE(gpu.launches.size() == 1);
  // Per warp instruction on line 21 (sum += As[ty][k] * Bs[k][tx], unrolled): LDS and LDS.128.
  std::map<std::string, uint64_t> line21;
  std::map<std::string, uint32_t> bytes;
  for (const trace::Record& r : gpu.records) {
    const trace::Site& s = gpu.sites[r.site];
    if (s.line == 21 && s.space == trace::Space::Shared) {
      ++line21[s.instruction];
      bytes[s.instruction] = s.bytes;
    }
  }
  const uint64_t warps = 2 * 8, phases = 64 / 16;  // 2 blocks of 8 warps; 4 tiles along k
  CHECK(line21["LDS"] == 16 * warps * phases);
  CHECK(line21["LDS.128"] == 4 * warps * phases);
  CHECK(bytes["LDS.128"] == 16);
  if (!can_run_programs()) return;
  program::Options o;
  o.source = "tests/programs/matmul_tiled.cu";
  o.echo = false;
  const program::Result emu = program::run(o);
  uint64_t ptx_loads = 0;
  for (const trace::Record& r : emu.trace.records) {
    const trace::Site& s = emu.trace.sites[r.site];
    if (s.line == 21 && s.space == trace::Space::Shared && r.block < 2) ++ptx_loads;
  }
  CHECK(ptx_loads == 32 * warps * phases);  // 37.5% more instructions than the hardware ran
  // The three levels side by side: line 21's shared loads merged, the reason given; the
  // global loads the same.
  bool merged = false, same18 = false;
  for (const analysis::LineLevels& l : analysis::compare_levels(emu.trace, 0, gpu, 0)) {
    if (l.line == 21 && l.space == trace::Space::Shared) {
      merged = true;
      CHECK(l.ptx_per_block == doctest::Approx(32 * 8 * phases));
      CHECK(l.sass_per_block == doctest::Approx(20 * 8 * phases));
      CHECK(l.ptx_bytes == doctest::Approx(l.sass_bytes));
      CHECK(l.verdict.find("merged 4 scalar 4-byte accesses into one 16-byte instruction") != std::string::npos);
      CHECK(l.verdict.find("37.5% fewer") != std::string::npos);
    }
    if (l.line == 18 && l.space == trace::Space::Global) same18 = l.verdict.empty();
  }
  CHECK(merged);
  CHECK(same18);
  // A capped trace stops part way through a block: only the blocks both hold whole count.
  trace::Trace cut = emu.trace;
  uint64_t kept = 0;
  for (const trace::Record& r : cut.records) kept += r.block < 5 ? 1 : 0;
  kept += 100;  // into block 5
  cut.launches[0].dropped_records = cut.records.size() - kept;
  cut.records.resize(kept);
  for (const analysis::LineLevels& l : analysis::compare_levels(cut, 0, emu.trace, 0))
    if (l.line == 21 && l.space == trace::Space::Shared) {
      CHECK(l.ptx_per_block == doctest::Approx(32 * 8 * phases));
      CHECK(l.verdict.empty());
    }
  // The global loads and stores are the same on both, request for request. (The shared
  // tiles are one window on the GPU, As and Bs apart on the emulated device.)
  const std::set<uint32_t> two{0, 1};
  CHECK(requests_of(gpu, 0, nullptr, true) == requests_of(emu.trace, 0, &two, true));
}

TEST_CASE("reduction.cu on an H100: the atomic inlined from the toolkit is the program's line, as on the emulated device") {
  const trace::Trace gpu = gpu_fixture("reduction");
  bool atomic = false;
  for (const trace::Site& s : gpu.sites)
    if (s.op == trace::Op::Atomic) {
      atomic = true;
      CHECK(s.instruction.rfind("RED", 0) == 0);
      CHECK(s.line < 100);  // the program's, not device_atomic_functions.hpp's line 107
    }
  CHECK(atomic);
}

TEST_CASE("the replay pack's SASS traces of the programs: recorded on a GPU, dated, and read beside the emulated device's") {
  namespace fs = std::filesystem;
  int n = 0;
  for (const auto& e : fs::directory_iterator("assets/replay/sass")) {
    if (e.path().extension() != ".wstrace") continue;
    ++n;
    CAPTURE(e.path().string());
    const trace::Trace t = trace::read_trace(e.path().string());
    CHECK(t.provenance.backend == "gpu");
    CHECK(t.provenance.device.find("NVIDIA") == 0);
    CHECK(t.provenance.date.size() >= 10);
    CHECK(!t.records.empty());
    // Each is of a program of tests/programs or examples/, whose text it carries.
    const std::string stem = e.path().stem().string();
    CHECK((fs::exists("tests/programs/" + stem + ".cu") || fs::exists("examples/" + stem + ".cu")));
    bool text = false;
    for (const trace::SourceFile& f : t.files) text |= f.name.find(stem + ".cu") != std::string::npos && !f.text.empty();
    CHECK(text);
  }
  CHECK(n >= 8);
  if (!can_run_programs()) return;
  // `run --levels` on a machine with no GPU: the emulated device's PTX beside the pack's SASS.
  program::Options o;
  o.source = "tests/programs/matmul_tiled.cu";
  o.echo = false;
  const program::Result emu = program::run(o);
  const trace::Trace sass = trace::read_trace("assets/replay/sass/matmul_tiled.wstrace");
  int merged = 0;
  for (const analysis::LineLevels& l : analysis::compare_levels(emu.trace, 0, sass, 0))
    merged += l.line == 21 && l.verdict.find("merged 4") != std::string::npos;
  CHECK(merged == 1);
}

TEST_CASE("without a GPU: --backend gpu says so in one line, auto runs the emulated device") {
  namespace fs = std::filesystem;
  if (fs::exists("/dev/nvidiactl") || fs::exists("/dev/nvidia0")) {
    MESSAGE("a GPU is here: the no-GPU path is not tested on this machine");
    return;
  }
  program::Options o;
  o.source = "tests/programs/vector_add.cu";
  o.echo = false;
  o.backend = "gpu";
  try {
    program::run(o);
    FAIL("--backend gpu ran without a GPU");
  } catch (const program::Error& e) {
    const std::string what = e.what();
    CHECK(what.find("no NVIDIA GPU") == 0);
    CHECK(what.find("--backend emulator") != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
  o.binary = "/bin/true";  // a program built elsewhere: the same line
  CHECK_THROWS_AS(program::run(o), program::Error);
  o.binary.clear();
  o.backend = "nonsense";
  CHECK_THROWS_WITH_AS(program::run(o), "unknown backend 'nonsense': allowed auto, gpu, emulator", program::Error);
  o.backend = "auto";
  o.spaces = "texture";
  CHECK_THROWS_WITH_AS(program::run(o), "unknown spaces 'texture': allowed all, global, shared", program::Error);
  // A space picked for the emulated device is refused by run() as by the session, in the
  // same words (program::options_error serves both).
  o.backend = "emulator";
  o.spaces = "global";
  CHECK(program::options_error(o).find("the emulated device records every space") != std::string::npos);
  CHECK_THROWS_WITH_AS(program::run(o), program::options_error(o).c_str(), program::Error);
  o.backend = "auto";
  o.spaces.clear();
  CHECK(program::options_error(o).empty());
  if (!can_run_programs()) return;
  o.backend = "auto";
  const program::Result r = program::run(o);
  CHECK(r.trace.provenance.backend != "gpu");
  CHECK(!r.trace.records.empty());
}

// A catalog kernel recorded on the emulator at its teaching size, as the app opens it.
std::shared_ptr<session::Session> emulated_session(const char* kernel) {
  session::LaunchSpec spec;
  spec.kernel = kernel;
  spec.backend = "emulator";
  const session::ResolvedLaunch l = session::resolve(spec);
  return session::Session::from_capture(session::capture(l), l, spec);
}

TEST_CASE("the replay pack's SASS trace of tma_transpose: the TMA's lines say the GPU tracer cannot see them") {
  const auto s = emulated_session("tma_transpose");
  REQUIRE(s->hardware());
  std::vector<std::string> texts;
  for (const auto& src : s->sources())
    for (const auto& [line, ls] : src.stats)
      for (const session::LineHardware& hw : ls.hardware) texts.push_back(src.name + ":" + std::to_string(line) + " " + session::hardware_text(hw));
  auto at = [](const char* text) { return "tma.h:" + std::to_string(ws::test::line_of("kernels/tma.h", text)) + " "; };
  const std::string load = at("ctx.tma_load(tile[0], a.in, bx * B"), store = at("ctx.tma_store(a.out, by * B"),
                    swap = at("tile[B * B + tma_tile_index(c, r, B, SWIZZLE)]");
  int tma = 0, same = 0;
  for (const std::string& t : texts) {
    CAPTURE(t);
    tma += (t.find(load) == 0 || t.find(store) == 0) && t.find("the GPU tracer cannot see") != std::string::npos;
    same += t.find(swap) == 0 && t.find("cannot see") == std::string::npos &&
            (t.find(" LDS") != std::string::npos || t.find(" STS") != std::string::npos);
  }
  CHECK(tma == 4);   // the box's read and its landing; the store's shared read and global write
  CHECK(same == 2);  // the threads' shared load and store: 32 LDS and 32 STS a block, as the source
}

TEST_CASE("a catalog SASS trace recorded before its kernel file was edited is not set beside the new lines") {
  const trace::Trace t = trace::read_trace(trace::find_asset("replay/sass/catalog/matmul_tiled.wstrace"));
  CHECK(session::same_source_lines(t));
  trace::Trace moved = t;
  moved.files.at(0).text = "// one line more\n" + moved.files.at(0).text;  // every line one further down
  CHECK_FALSE(session::same_source_lines(moved));
  trace::Trace gone = t;
  gone.files.at(0).name = "no_such_kernel_file.h";
  CHECK_FALSE(session::same_source_lines(gone));
  // Every trace the pack holds was recorded from the kernel files as they are: a kernel edited
  // since is traced again on a GPU (scripts/device/trace_catalog.sh), or its trace removed.
  const std::filesystem::path pack = std::filesystem::path(trace::find_asset("replay/sass/catalog/matmul_tiled.wstrace")).parent_path();
  int traces = 0;
  for (const auto& e : std::filesystem::directory_iterator(pack)) {
    CAPTURE(e.path().filename().string());
    CHECK(session::same_source_lines(trace::read_trace(e.path().string())));
    ++traces;
  }
  CHECK(traces >= 30);
}

TEST_CASE("the replay pack's SASS traces of the catalog: matmul_tiled's source panel shows what the H200 ran") {
  // The teaching size's defaults, as the pack recorded them: the replay trace is attached.
  session::LaunchSpec spec;
  spec.kernel = "matmul_tiled";
  spec.backend = "emulator";
  const session::ResolvedLaunch l = session::resolve(spec);
  const auto s = session::Session::from_capture(session::capture(l), l, spec);
  REQUIRE(s->hardware());
  CHECK(s->hardware()->provenance.device.find("H200") != std::string::npos);  // the pack's one GPU
  CHECK(s->hardware()->launches.at(0).params == l.params.values);
  std::string merged;
  for (const auto& src : s->sources())
    for (const auto& [line, ls] : src.stats)
      for (const session::LineHardware& hw : ls.hardware)
        if (const std::string h = session::hardware_text(hw); h.find("LDS.128") != std::string::npos)
          merged = src.name + ":" + std::to_string(line) + " " + h;
  CHECK(merged.find("matmul.h:128 H200 ran 512 LDS + 128 LDS.128 a block (the source: 1024 4-byte shared loads): ptxas merged 4 "
                    "scalar 4-byte accesses into one 16-byte instruction") != std::string::npos);
  // Other parameters: no trace of them, nothing attached.
  spec.params["tile"] = 32;
  const session::ResolvedLaunch l32 = session::resolve(spec);
  CHECK_FALSE(session::Session::from_capture(session::capture(l32), l32, spec)->hardware());
  // Every kernel of the catalog has its trace at its default parameters, readable, of the
  // kernel it names; another setting of the tuned rung's lane order has none: nothing
  // attached rather than another order's addresses.
  for (const auto& k : catalog::all()) {
    CAPTURE(k.id);
    session::LaunchSpec one;
    one.kernel = k.id;
    if (k.id == "matmul_tuned") {
      session::LaunchSpec other = one;
      other.params["lanes"] = 0;
      CHECK_FALSE(session::replay_catalog_sass(k.id, session::resolve(other).params.values));
    }
    const session::ResolvedLaunch lk = session::resolve(one);
    const auto t = session::replay_catalog_sass(k.id, lk.params.values);
    REQUIRE(t);
    CHECK(t->launches.at(0).kernel == k.id);
  }
}

TEST_CASE("nvdisasm -gi's chains of frames: the innermost frame of the program's own code gives the line") {
  // A catalog kernel: the load in a context (see-through) inlined into a helper (line 63)
  // inlined into the kernel (line 83), inlined into warpscope's wrapper; then a location
  // whose innermost frames are all the toolkit's or the wrapper's.
  const char* listing = R"(
	.section	.text._Z1kv,"ax",@progbits
	//## File "/w/kernels/matmul.h", line 63 inlined at "/w/kernels/matmul.h", line 83
	//## File "/w/kernels/matmul.h", line 83 inlined at "/w/src/gpu/contexts.cuh", line 840
	//## File "/w/src/gpu/contexts.cuh", line 840 inlined at "/w/src/gpu/contexts.cuh", line 147
	//## File "/w/src/gpu/contexts.cuh", line 147
        /*0250*/                   LDG.E R28, desc[UR6][R26.64] ;
        /*0260*/                   LDG.E R29, desc[UR6][R26.64+0x4] ;
	//## File "/w/src/gpu/contexts.cuh", line 90 inlined at "/w/src/gpu/contexts.cuh", line 840
	//## File "/w/src/gpu/contexts.cuh", line 840
        /*0270*/                   STG.E desc[UR6][R2.64], R5 ;
	//## File "/w/kernels/matmul.h", line 65 inlined at "/w/src/gpu/contexts.cuh", line 840
	//## File "/w/src/gpu/contexts.cuh", line 840
        /*0280*/                   STG.E desc[UR6][R2.64], R6 ;
)";
  const sass::Disassembly d = sass::parse_disassembly(listing, {"/src/gpu/"});
  const auto& f = d.at("_Z1kv");
  CHECK(f.at(0x250).line == 63);
  CHECK(f.at(0x260).line == 63);
  CHECK(f.at(0x270).line == 63);  // no frame of the program's: the line met last
  CHECK(f.at(0x280).line == 65);
  CHECK(f.at(0x280).file == "/w/kernels/matmul.h");
}

namespace {

// The GPU fixture with each site's line of code, as a program's import gives it.
trace::Trace gpu_fixture_with_code(const std::string& name) {
  trace::Trace t = gpu_fixture(name);
  const std::string text = slurp("tests/programs/" + name + ".cu");
  for (trace::Site& s : t.sites) s.code = trace::source_line(text, s.line);
  return t;
}

// The name of the array each shared SASS instruction of `line` reaches.
std::map<std::string, std::string> shared_arrays_of_line(const trace::Trace& t, uint32_t line) {
  std::map<std::string, std::string> out;
  for (const trace::Site& s : t.sites)
    if (s.line == line && s.space == trace::Space::Shared)
      out[s.instruction] = s.buffer < t.buffers.size() ? t.buffers[s.buffer].name : "(several)";
  return out;
}

}  // namespace

TEST_CASE("matmul_tiled.cu on an H100: the shared window cut into As and Bs where ptxas placed them") {
  // As and Bs, 16x16 floats each, declared in that order; the lines that name one of them
  // (18 writes As, 19 writes Bs) show which half of the window each covers.
  const sass::SharedDecls decls{{"matmulTiled", {{"As", 1024, 4, 4, 16, 16}, {"Bs", 1024, 4, 4, 16, 16}}}};
  trace::Trace gpu = gpu_fixture_with_code("matmul_tiled");
  const size_t arrays = gpu.buffers.size();
  sass::split_shared_windows(gpu, decls);
  REQUIRE(gpu.buffers.size() == arrays + 1);
  CHECK(shared_arrays_of_line(gpu, 18) == std::map<std::string, std::string>{{"STS", "matmulTiled::As"}});
  CHECK(shared_arrays_of_line(gpu, 19) == std::map<std::string, std::string>{{"STS", "matmulTiled::Bs"}});
  // The inner product: As[ty][k..k+3] in one LDS.128 (a row of As), Bs[k][tx] in LDS.
  CHECK(shared_arrays_of_line(gpu, 21) ==
        std::map<std::string, std::string>{{"LDS", "matmulTiled::Bs"}, {"LDS.128", "matmulTiled::As"}});
  // Offsets from each array's own start: warp 0 of block 0 writes As rows 0-1, words 0-31.
  for (const trace::Record& r : gpu.records) {
    const trace::Site& s = gpu.sites[r.site];
    if (s.line != 18 || s.space != trace::Space::Shared || r.block != 0 || r.warp != 0) continue;
    for (int lane = 0; lane < 32; ++lane) CHECK(r.offset[size_t(lane)] == uint32_t(lane * 4));
    break;
  }
  CHECK(gpu.buffers[gpu.sites[0].buffer].size_bytes > 0);

  // No line names one array alone: nothing tells the packings apart, the window stays.
  trace::Trace whole = gpu_fixture_with_code("matmul_tiled");
  for (trace::Site& s : whole.sites) s.code = "sum += As[ty][k] * Bs[k][tx];";
  sass::split_shared_windows(whole, decls);
  CHECK(whole.buffers.size() == arrays);
  // A layout no packing explains (arrays too small for what the lines touched): kept whole.
  trace::Trace small = gpu_fixture_with_code("matmul_tiled");
  sass::split_shared_windows(small, {{"matmulTiled", {{"As", 64, 4}, {"Bs", 64, 4}}}});
  CHECK(small.buffers.size() == arrays);

  // The replay pack's case: the arrays as the emulated device's trace of the program names them.
  if (!can_run_programs()) return;
  program::Options o;
  o.source = "tests/programs/matmul_tiled.cu";
  o.echo = false;
  const program::Result emu = program::run(o);
  trace::Trace named = gpu_fixture_with_code("matmul_tiled");
  program::name_shared_arrays(named, emu.trace);
  CHECK(shared_arrays_of_line(named, 21) ==
        std::map<std::string, std::string>{{"LDS", "matmulTiled::Bs"}, {"LDS.128", "matmulTiled::As"}});
}

TEST_CASE("a kernel whose SASS issues TMA or bulk copies is named once, with the lines, as missing from the GPU trace") {
  sass::RawCapture raw;
  sass::RawLaunch a, b, again;
  a.head.module = b.head.module = again.head.module = 7;
  a.name = again.name = "_Z12transposeTma14CUtensorMap_stS_b";
  b.name = "_Z5plainPf";
  raw.launches = {a, b, again};
  std::map<uint64_t, sass::Disassembly> dis;
  sass::Disassembly& d = dis[7];
  d[a.name][0x1f0] = {"UTMALDG.2D", "UTMALDG.2D [UR4], [UR8] ;", "tma_store.cu", 38};
  d[a.name][0x5f0] = {"UTMAREDG.2D.ADD", "UTMAREDG.2D.ADD [UR8], [UR14] ;", "tma_store.cu", 52};
  d[a.name][0x6a0] = {"UTMASTG.2D", "UTMASTG.2D [UR4], [UR8] ;", "tma_store.cu", 55};
  d[a.name][0x6c0] = {"UTMACMDFLUSH", "UTMACMDFLUSH ;", "tma_store.cu", 55};
  d[b.name][0x10] = {"STG.E", "STG.E [R2.64], R5 ;", "plain.cu", 3};
  const std::string line = sass::unseen_copies(raw, dis);
  // The kernel once, however often it ran; the plain one not at all.
  CHECK(line.rfind("transposeTma issues UTMALDG at line 38, UTMAREDG at line 52, UTMASTG at line 55: the GPU tracer", 0) == 0);
  CHECK(line.find("UTMACMDFLUSH") == std::string::npos);  // it moves no bytes
  CHECK(line.find("plain") == std::string::npos);
  CHECK(line.find("--backend emulator") != std::string::npos);
  // Two kernels: both named, the reason said once.
  d[b.name][0x20] = {"UBLKCP.G.S", "UBLKCP.G.S [UR4], [UR6], UR7 ;", "plain.cu", 9};
  const std::string both = sass::unseen_copies(raw, dis);
  CHECK(both.find("UTMASTG at line 55; plain issues UBLKCP at line 9: the GPU tracer") != std::string::npos);
  CHECK(sass::unseen_copies(raw, {}).empty());  // no disassembly: nothing known, nothing claimed
}
