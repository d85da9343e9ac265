// tests/program/test_hopper.cpp — Hopper's own path on the emulated device, held to the GPU:
// wgmma.mma_async in every descriptor layout, from registers, bf16, f16 accumulators, a
// negated A (tests/programs/wgmma_tile.cu); a GEMM fed by TMA under the 128-byte swizzle
// through an mbarrier ring to wgmma (tests/programs/wgmma_gemm.cu); thread block clusters,
// distributed shared memory, a remote mbarrier arrive and a TMA multicast
// (tests/programs/cluster_dsmem.cu). All built as their
// users build them, -arch=sm_90a, which the emulated device honours. The GPU's results
// are kept as hashes of the bytes the programs dump: measured on an NVIDIA H200 (CUDA 13.0,
// driver 580.159.04) on 2026-12-02 with `nvcc -arch=sm_90a` and the same arguments.
#include <doctest/doctest.h>

#include <cctype>
#include <cstdint>
#include <map>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/cluster.h"
#include "analysis/pipeline.h"
#include "program/program.h"
#include "../support.h"

using namespace ws;

namespace {

bool can_run() { return ws::test::have_nvcc("Hopper program tests skipped"); }

program::Result run_hopper(const std::string& file, std::vector<std::string> args) {
  program::Options o;
  o.source = "tests/programs/" + file;
  o.nvcc_flags = {"-arch=sm_90a"};
  o.args = std::move(args);
  o.echo = false;
  o.timeout_seconds = 120;
  return program::run(o);
}

// FNV-1a over a file's bytes (the same as the fixtures were hashed with), 0 when unreadable.
uint64_t file_hash(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  if (!f.good() && s.str().empty()) return 0;
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s.str()) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::string temp_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ws_hopper_" + std::to_string(::getpid()) + "_" + name)).string();
}

}  // namespace

TEST_CASE("wgmma_tile.cu: every descriptor layout, A from registers, bf16, f16 accumulators, -A and copies ordered by the warpgroup equal the H200") {
  if (!can_run()) return;
  const program::Result r = run_hopper("wgmma_tile.cu", {});
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("0 failures") != std::string::npos);
  size_t ok = 0;
  for (size_t at = r.output.find("ok  "); at != std::string::npos; at = r.output.find("ok  ", at + 1)) ++ok;
  CHECK(ok == 12);
  // The target is the one asked for, said once per launch's program note.
  bool said = false;
  for (const std::string& n : r.notes) said |= n == "-arch=sm_90a: the emulated device runs the PTX of sm_90a";
  CHECK(said);
  // Inputs whose sums are not exact, narrow and wide in range: the tensor core's own
  // truncation, bit for bit (H200 hashes).
  for (auto [mode, want] : {std::pair<const char*, uint64_t>{"dump", 0x4b0463ffcc21c735ull}, {"dumpwide", 0x79bdc0b2244a4ffbull}}) {
    const std::string out = temp_file(mode);
    const program::Result d = run_hopper("wgmma_tile.cu", {mode, out});
    CHECK(d.exit_code == 0);
    CHECK_MESSAGE(file_hash(out) == want, mode);
    std::filesystem::remove(out);
  }
}

TEST_CASE("wgmma_gemm.cu: TMA boxes under the 128-byte swizzle, an mbarrier ring and wgmma give the H200's C bit for bit") {
  if (!can_run()) return;
  const std::string out = temp_file("gemm128");
  const program::Result r = run_hopper("wgmma_gemm.cu", {"128", "dump", out});
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("wgmmaGemm 128x128: correct") != std::string::npos);
  CHECK(file_hash(out) == 0xafbdcb098dcc998bull);
  std::filesystem::remove(out);
  REQUIRE(r.trace.launches.size() == 1);
  CHECK(r.trace.launches[0].blocks.size() == 4);
  // The pipeline of block 0 at N = 256, as the kernel's comment lays it out: K in four
  // steps of 64, an A box (8 KiB) and a B box each, into a ring of two stages (four slots,
  // two boxes each); the producer (warp 0) waits for a free stage, the consumer warpgroup
  // (warps 4-7) waits for a full one, then runs four wgmma.
  const program::Result big = run_hopper("wgmma_gemm.cu", {"256"});
  REQUIRE(big.trace.launches.size() == 1);
  const trace::Trace one = trace::launch_trace(big.trace, 0);
  const analysis::Pipeline p = analysis::pipeline_of(one, analysis::follow_copies(one), 0);
  REQUIRE(p.slots.size() == 4);
  uint64_t last_issued = 0;
  for (const analysis::PipelineSlot& s : p.slots) {
    REQUIRE(s.boxes.size() == 2);
    CHECK(s.bytes == 8192);
    for (const analysis::PipelineBox& b : s.boxes) {
      CHECK(b.bytes == 8192);
      CHECK(b.warp == 0);
      CHECK(b.issued < b.landed);
      last_issued = std::max(last_issued, b.issued);
    }
    CHECK(s.boxes[0].landed <= s.boxes[1].issued);  // a stage is filled again only once it landed
  }
  CHECK(p.slots[1].offset == p.slots[0].offset + 8192);
  CHECK(p.warps == std::vector<uint32_t>{0, 4, 5, 6, 7});
  // Each wgmma placed in time among every warp's requests: the first step's run while the
  // producer still fills the ring (by the consumer's own requests alone they would all sit
  // at its stores of C, after the loop).
  size_t wgmma = 0;
  uint64_t first_wgmma = analysis::kNoRecord;
  for (const analysis::PipelineTick& k : p.ticks) {
    if (k.form != trace::Form::Mma) continue;
    ++wgmma;
    CHECK(k.warp >= 4);
    first_wgmma = std::min(first_wgmma, k.step);
  }
  CHECK(first_wgmma < last_issued);
  CHECK(wgmma == 4 * 4 * 4);  // four per k step, four steps, four warps
  // The mbarriers, full[0..1] then empty[0..1] (8 bytes apart): a full stage's phase
  // completes when the producer's second box brings the stage's 16 KiB (A's 8 and B's 8),
  // an empty one's when the last of the 128 consumer threads frees the stage; each phase
  // twice (four k steps over two stages). The consumers wait on the full ones, the
  // producer on the empty ones, each wait after the phase it waited for.
  REQUIRE(p.barriers.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    const analysis::PipelineBarrier& b = p.barriers[i];
    INFO("mbarrier " << i);
    CHECK(b.offset == p.barriers[0].offset + 8 * i);
    REQUIRE(b.phases.size() == 2);
    for (const analysis::PipelinePhase& ph : b.phases) {
      CHECK(ph.bytes == (i < 2 ? 16384u : 0u));
      CHECK((i < 2 ? ph.warp == 0 : ph.warp >= 4));
    }
    for (const analysis::PipelineTick& w : b.waits) CHECK((i < 2 ? w.warp >= 4 : w.warp == 0));
    if (i < 2) {
      REQUIRE(b.waits.size() == 2 * 4);
      CHECK(b.waits.front().step >= b.phases.front().step);
    }
  }
}

TEST_CASE("examples/tma_ring.cu: the column read's wavefronts and the stores' sectors, without and with the swizzle, as an H200 counted them") {
  if (!can_run()) return;
  // The fixture: ncu's counts of the whole launch, a section per swizzle mode.
  std::ifstream f("tests/programs/fixtures/tma_ring_h200.txt");
  REQUIRE(f.good());
  std::map<std::string, std::map<std::string, uint64_t>> gpu;
  std::string mode;
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("transposeTma 256x256, swizzle ", 0) == 0) mode = line.substr(30, line.find(':') - 30);
    if (line.empty() || line[0] == '#' || line.find(".sum") == std::string::npos) continue;
    std::string digits;
    for (char c : line.substr(line.rfind(' ') + 1))
      if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
    gpu[mode][line.substr(0, line.find(' '))] = std::stoull(digits);
  }
  REQUIRE(gpu.size() == 2);
  for (const std::string m : {"0", "128"}) {
    CAPTURE(m);
    program::Options o;
    o.source = "examples/tma_ring.cu";
    o.args = {"256", m};
    o.echo = false;
    const program::Result r = program::run(o);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("swizzle " + m + ": correct") != std::string::npos);
    REQUIRE(r.trace.launches.size() == 1);
    const trace::Trace one = trace::launch_trace(r.trace, 0);
    analysis::DramModel dm;
    analysis::dram_preset("textbook", dm);
    const analysis::Report rep = analysis::analyze(one, dm);
    uint64_t ld_requests = 0, ld_wavefronts = 0, ld_conflicts = 0, st_requests = 0, st_sectors = 0;
    for (const analysis::SiteStats& st : rep.sites) {
      const trace::Site& site = one.sites[st.site];
      if (site.form != trace::Form::Plain) continue;  // the TMA's halves are not the LSU's
      if (site.space == trace::Space::Shared && site.op == trace::Op::Load)
        ld_requests += st.requests, ld_wavefronts += st.wavefronts, ld_conflicts += st.bank_conflicts;
      if (site.space == trace::Space::Global && site.op == trace::Op::Store)
        st_requests += st.requests, st_sectors += st.sectors;
    }
    const auto& g = gpu[m];
    CHECK(ld_requests == g.at("smsp__sass_inst_executed_op_shared_ld.sum"));
    CHECK(ld_wavefronts == g.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"));
    CHECK(ld_conflicts == g.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"));
    CHECK(st_requests == g.at("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"));
    CHECK(st_sectors == g.at("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"));
  }
}

TEST_CASE("cluster_dsmem.cu: clusters from __cluster_dims__ and cudaLaunchKernelEx, distributed shared memory, a remote arrive and a TMA multicast equal the H200") {
  if (!can_run()) return;
  const std::string out = temp_file("cluster");
  program::Options o;
  o.source = "tests/programs/cluster_dsmem.cu";
  o.nvcc_flags = {"-arch=sm_90a"};
  o.args = {"dump", out};
  o.echo = false;
  o.timeout_seconds = 120;
  const program::Result r = program::run(o);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("PASSED: 0 of 4370 values wrong") != std::string::npos);
  CHECK(file_hash(out) == 0xa7cc57ebcb8e5f15ull);  // the H200's dump, byte for byte (2026-12-03: getctarank too)
  CHECK(r.output.find("not in the trace") == std::string::npos);  // (what a run said before they were)
  std::filesystem::remove(out);
  REQUIRE(r.trace.launches.size() == 3);
  // Every CTA of every cluster ran, each cluster's together.
  CHECK(r.trace.launches[0].blocks.size() == 4);
  CHECK(r.trace.launches[1].blocks.size() == 8);
  CHECK(r.trace.launches[2].blocks.size() == 4);
  CHECK(r.trace.launches[0].cluster == trace::Dim3{2, 1, 1});
  CHECK(r.trace.launches[1].cluster == trace::Dim3{4, 1, 1});

  // partner: each CTA's two warps read their partner's tile, lanes 0-31 of warp 0 the
  // words 1-32 of it: records in the Cluster space, on an array of the partner's rank.
  const trace::Trace p = trace::launch_trace(r.trace, 0);
  uint32_t remote = 0;
  for (const trace::Record& rec : p.records) {
    const trace::Site& s = p.sites[rec.site];
    if (s.space != trace::Space::Cluster) continue;
    ++remote;
    CHECK(s.op == trace::Op::Load);
    CHECK(s.line == 34);
    const trace::Buffer& b = p.buffers.at(rec.buffer);
    CHECK(b.space == trace::Space::Cluster);
    CHECK(b.cta == (analysis::cluster_rank(p.launch(), rec.block) ^ 1u) + 1);  // the partner's
    CHECK(b.name == "partner::tile (CTA rank " + std::to_string(b.cta - 1) + ")");
    if (rec.warp == 0) CHECK(rec.offset[0] == 4);  // lane 0 reads word 1
  }
  CHECK(remote == 8);  // 4 CTAs x 2 warps
  // Its cluster: rank 0 and rank 1 each read the other's tile with two requests (64 lanes, 256 bytes).
  const analysis::Cluster c = analysis::cluster_of(p, 1, 0);
  CHECK(c.dims == trace::Dim3{2, 1, 1});
  CHECK(c.clusters == 2);
  CHECK(c.index == 0);
  REQUIRE(c.ctas.size() == 2);
  CHECK(c.ctas[1].block == 1);
  REQUIRE(c.links.size() == 2);
  for (const analysis::ClusterLink& k : c.links) {
    CHECK(k.from == (k.to ^ 1u));
    CHECK(k.loads == 2);
    CHECK(k.lanes == 64);
    CHECK(k.bytes == 256);
    CHECK(k.arrays == std::vector<std::string>{"partner::tile"});
  }
  // ... and no cost is claimed for them: counted, no sectors, no wavefronts.
  const analysis::Report rep = analysis::analyze(p, analysis::DramModel{});
  for (const analysis::SiteStats& st : rep.sites)
    if (p.sites[st.site].space == trace::Space::Cluster) {
      CHECK(st.requests == 4);
      CHECK(st.sectors + st.wavefronts == 0);
      CHECK(st.why.find("no cost model") != std::string::npos);
    }
  // gather: ranks 1-3 add to rank 0's counter (atomics, one request a warp each); rank 0's own
  // add reaches its own array (the shared space).
  const analysis::Cluster g = analysis::cluster_of(trace::launch_trace(r.trace, 1), 4, analysis::kNoRecord);
  REQUIRE(g.links.size() == 3);
  for (uint32_t i = 0; i < 3; ++i) {
    CHECK(g.links[i].from == i + 1);
    CHECK(g.links[i].to == 0);
    CHECK(g.links[i].atomics == 2);
    CHECK(g.links[i].lanes == 64);
  }
  // multicast: rank 0's 64 x 16 box of u16 lands in rank 1 too, which never issued it.
  const analysis::Cluster m = analysis::cluster_of(trace::launch_trace(r.trace, 2), 3, analysis::kNoRecord);
  CHECK(m.links.empty());
  REQUIRE(m.fanouts.size() == 1);
  CHECK(m.fanouts[0].from == std::vector<uint32_t>{0});
  CHECK(m.fanouts[0].to == 1);
  CHECK(m.fanouts[0].bytes == 64 * 16 * 2);
}

TEST_CASE("tma_replace.cu: a tensor map pointed at another array on the device (address, extents, pitch) copies that array's box, as on the H200") {
  if (!can_run()) return;
  program::Options o;
  o.source = "tests/programs/tma_replace.cu";
  o.nvcc_flags = {"-arch=sm_90a", "-lcuda"};
  o.echo = false;
  o.timeout_seconds = 120;
  const program::Result r = program::run(o);
  CHECK(r.exit_code == 0);
  // The H200 printed the same line (nvcc -arch=sm_90a -lcuda, 2026-12-04; compute-sanitizer clean).
  CHECK(r.output.find("PASSED: 0 of 512 elements of B's box out of place") != std::string::npos);
}
