// tests/ptx/test_async.cpp — cp.async, its groups and waits, mbarrier phases and bulk copies
// on the emulated device: small PTX kernels written by hand whose stored words are checked
// against what the PTX ISA says each thread sees, and the trace's two halves of each copy.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "ptx/machine.h"
#include "ptx/ptx.h"

using namespace ws;

namespace {

// A kernel (in, out) of `threads` threads in one block: %rd1 is `in` (global, 256 words
// 0x100 + i), %rd2 is `out`, `sh` a 1024-byte shared array (zeros, 16-aligned), %r1 the
// thread index. Returns the `n` words stored at out; the trace in `t`.
std::vector<uint32_t> run(const std::string& body, size_t n, trace::Trace& t, uint32_t threads = 1) {
  const std::string ptx = R"(.version 8.3
.target sm_90
.address_size 64
.visible .entry probe(.param .u64 pin, .param .u64 pout)
{
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<40>;
  .shared .align 16 .b8 sh[1024];
  ld.param.u64 %rd0, [pin];
  cvta.to.global.u64 %rd1, %rd0;
  ld.param.u64 %rd0, [pout];
  cvta.to.global.u64 %rd2, %rd0;
  mov.u32 %r1, %tid.x;
)" + body + R"(
  ret;
}
)";
  ptx::Device dev;
  dev.load(ptx::parse(ptx, "probe.ptx"));
  std::vector<uint32_t> words(256);
  for (uint32_t i = 0; i < 256; ++i) words[i] = 0x100 + i;
  const uint64_t in = dev.malloc(1024, "in"), out = dev.malloc(n * 4, "out");
  REQUIRE(dev.to_device(in, words.data(), 1024));
  std::vector<uint8_t> params(16);
  std::memcpy(params.data(), &in, 8);
  std::memcpy(params.data() + 8, &out, 8);
  trace::Builder b(t);
  dev.launch({"probe", {1, 1, 1}, {threads, 1, 1}, 0, params}, b);
  std::vector<uint32_t> got(n);
  REQUIRE(dev.to_host(got.data(), out, n * 4));
  return got;
}

std::string refusal(const std::string& insn) {
  const std::string ptx = ".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
                          "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n  " + insn + "\n  ret;\n}\n";
  return ptx::parse(ptx, "bad.ptx").kernels.at(0).refused;
}

}  // namespace

TEST_CASE("cp.async: the shared bytes land at the wait; a read before it sees the old ones") {
  trace::Trace t;
  const std::vector<uint32_t> r = run(R"(
  mov.u32 %r2, sh;
  mov.u32 %r3, 7;
  st.shared.u32 [%r2], %r3;                            // the old bytes
  cp.async.ca.shared.global [%r2], [%rd1], 4;
  cp.async.commit_group;
  ld.shared.u32 %r4, [%r2];                            // before the wait: still 7
  cp.async.wait_group 0;
  ld.shared.u32 %r5, [%r2];                            // after it: in[0]
  st.global.u32 [%rd2], %r4;
  st.global.u32 [%rd2+4], %r5;
  // 16 bytes of which src-size 6 are read: the rest zeros.
  mov.u32 %r6, 6;
  cp.async.cg.shared.global [%r2+16], [%rd1+8], 16, %r6;
  // ignore-src: nothing is read (the source may be anywhere), 8 zero bytes land.
  st.shared.u32 [%r2+32], %r3;
  setp.eq.u32 %p1, %r1, 0;
  mov.u64 %rd5, 0;
  cp.async.ca.shared.global [%r2+32], [%rd5], 8, %p1;
  cp.async.wait_all;
  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r2+16];
  ld.shared.v2.u32 {%r14, %r15}, [%r2+32];
  st.global.v4.u32 [%rd2+8], {%r10, %r11, %r12, %r13};
  st.global.v2.u32 [%rd2+24], {%r14, %r15};
)", 8, t);
  CHECK(r[0] == 7);
  CHECK(r[1] == 0x100);
  CHECK(r[2] == 0x102);
  CHECK(r[3] == 0x0103);  // bytes 4 and 5 of in[2..]: 03 01, then zeros
  CHECK(r[4] == 0);
  CHECK(r[5] == 0);
  CHECK(r[6] == 0);
  CHECK(r[7] == 0);
  // The first copy's two halves: the read at issue (before the ld.shared), the write at the
  // wait (after it), partner sites of one instruction.
  std::vector<const trace::Record*> halves;
  for (const trace::Record& rec : t.records)
    if (t.sites[rec.site].line == 0 && t.sites[rec.site].instruction == "cp.async.ca.shared.global" &&
        t.sites[rec.site].bytes == 4)
      halves.push_back(&rec);
  REQUIRE(halves.size() == 2);
  const trace::Site& rd = t.sites[halves[0]->site];
  const trace::Site& wr = t.sites[halves[1]->site];
  CHECK(rd.form == trace::Form::AsyncRead);
  CHECK(rd.space == trace::Space::Global);
  CHECK(rd.op == trace::Op::Load);
  CHECK(wr.form == trace::Form::AsyncWrite);
  CHECK(wr.space == trace::Space::Shared);
  CHECK(wr.op == trace::Op::Store);
  CHECK(rd.partner == halves[1]->site);
  CHECK(wr.partner == halves[0]->site);
  // Between them, in the warp's order: the commit and the plain ld.shared; the write lands
  // as the wait runs, just before the wait's own event.
  CHECK(halves[1]->seq == halves[0]->seq + 3);
  // The ignore-src copy read nothing: no record of it, neither half.
  for (const trace::Record& rec : t.records)
    CHECK_FALSE((t.sites[rec.site].form != trace::Form::Plain && t.sites[rec.site].bytes == 8));
  // Events: commit, wait_group 0, wait_all, in order, with the warp's sequence numbers.
  REQUIRE(t.events.size() == 3);
  CHECK(t.event_sites[t.events[0].site].form == trace::Form::Commit);
  CHECK(t.event_sites[t.events[1].site].form == trace::Form::Wait);
  CHECK(t.event_sites[t.events[1].site].instruction == "cp.async.wait_group");
  CHECK(t.events[1].arg == 0);
  CHECK(t.events[0].seq == halves[0]->seq + 1);
  CHECK(t.events[1].seq == halves[1]->seq + 1);
}

TEST_CASE("cp.async.wait_group N: the newest N groups stay in flight, the older ones land") {
  trace::Trace t;
  const std::vector<uint32_t> r = run(R"(
  mov.u32 %r2, sh;
  cp.async.ca.shared.global [%r2], [%rd1], 4;          // group 0
  cp.async.commit_group;
  cp.async.ca.shared.global [%r2+4], [%rd1+4], 4;      // group 1
  cp.async.commit_group;
  cp.async.ca.shared.global [%r2+8], [%rd1+8], 4;      // not committed
  cp.async.wait_group 1;
  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r2];
  cp.async.wait_group 0;                               // group 1 lands, the uncommitted copy does not
  ld.shared.v4.u32 {%r14, %r15, %r16, %r17}, [%r2];
  cp.async.wait_all;                                   // it does
  ld.shared.u32 %r18, [%r2+8];
  st.global.v4.u32 [%rd2], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd2+16], {%r14, %r15, %r16, %r17};
  st.global.u32 [%rd2+32], %r18;
)", 9, t);
  CHECK(r == std::vector<uint32_t>{0x100, 0, 0, 0, 0x100, 0x101, 0, 0, 0x102});
  REQUIRE(t.events.size() == 5);
  CHECK(t.events[2].arg == 1);
  CHECK(t.events[3].arg == 0);
}

TEST_CASE("cp.async 16 bytes on 16 lanes and 4 bytes on 32: the H100's sectors and wavefronts") {
  trace::Trace t;
  run(R"(
  mov.u32 %r2, sh;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd5, %r1, 16;
  add.u64 %rd6, %rd1, %rd5;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 cp.async.cg.shared.global [%r4], [%rd6], 16;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd6, %rd1, %rd5;
  cp.async.ca.shared.global [%r4+512], [%rd6], 4;
  cp.async.wait_all;
)", 1, t, 32);
  const analysis::Report rep = analysis::analyze(t, analysis::DramModel{});
  int seen = 0;
  for (const analysis::SiteStats& s : rep.sites) {
    const trace::Site& site = t.sites[s.site];
    if (site.form == trace::Form::AsyncRead) {
      CHECK(s.sectors_per_request == doctest::Approx(site.bytes == 16 ? 8.0 : 4.0));
      ++seen;
    }
    if (site.form == trace::Form::AsyncWrite) {
      CHECK(s.wavefronts_per_request == doctest::Approx(site.bytes == 16 ? 2.0 : 1.0));
      ++seen;
    }
  }
  CHECK(seen == 4);
}

TEST_CASE("mbarrier: arrivals, transaction bytes and the phase's parity, as the PTX ISA counts them") {
  trace::Trace t;
  const std::vector<uint32_t> r = run(R"(
  mov.u32 %r2, sh;
  mbarrier.init.shared.b64 [%r2], 3;
  mbarrier.arrive.shared.b64 %rd5, [%r2];              // 2 pending
  mbarrier.pending_count.b64 %r10, %rd5;               // the state before: 3
  mbarrier.test_wait.shared.b64 %p1, [%r2], %rd5;      // phase 0 not complete
  mbarrier.arrive.shared::cta.b64 %rd6, [%r2], 2;      // the last two: phase 0 completes
  mbarrier.test_wait.shared.b64 %p2, [%r2], %rd5;
  mbarrier.test_wait.parity.shared.b64 %p3, [%r2], 0;  // phase 0 (parity 0) complete
  mbarrier.test_wait.parity.shared.b64 %p4, [%r2], 1;  // phase 1 running
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r2], 64;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd7, [%r2], 16;
  mbarrier.arrive.shared.b64 %rd7, [%r2], 2;           // arrivals done, 80 bytes pending
  mbarrier.try_wait.parity.shared.b64 %p5, [%r2], 1;
  mbarrier.complete_tx.shared::cta.b64 [%r2], 80;      // phase 1 completes
  mbarrier.try_wait.parity.shared.b64 %p6, [%r2], 1;
  selp.u32 %r11, 1, 0, %p1;
  selp.u32 %r12, 1, 0, %p2;
  selp.u32 %r13, 1, 0, %p3;
  selp.u32 %r14, 1, 0, %p4;
  selp.u32 %r15, 1, 0, %p5;
  selp.u32 %r16, 1, 0, %p6;
  st.global.v4.u32 [%rd2], {%r10, %r11, %r12, %r13};
  st.global.v2.u32 [%rd2+16], {%r14, %r15};
  st.global.u32 [%rd2+24], %r16;
  mbarrier.inval.shared.b64 [%r2];
)", 7, t);
  CHECK(r == std::vector<uint32_t>{3, 0, 1, 1, 0, 0, 1});
}

TEST_CASE("mbarrier across warps: a warp waiting for another's arrival lets it run, and sees its store") {
  trace::Trace t;
  // Warp 0 waits for phase 0 of a barrier of 32 arrivals that only warp 1 makes; warp 1
  // stores a word first. Warp 0 runs first: it must let warp 1 run.
  const std::vector<uint32_t> r = run(R"(
  mov.u32 %r2, sh;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INITED;
  mbarrier.init.shared.b64 [%r2], 32;
INITED:
  bar.sync 0;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra WAIT;
  mov.u32 %r3, 99;
  st.shared.u32 [%r2+64], %r3;
  mbarrier.arrive.shared.b64 %rd5, [%r2];
  bra.uni DONE;
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p3, [%r2], 0;
  @!%p3 bra WAIT;
  ld.shared.u32 %r4, [%r2+64];
  setp.eq.u32 %p4, %r1, 5;
  @%p4 st.global.u32 [%rd2], %r4;
DONE:
)", 1, t, 64);
  CHECK(r[0] == 99);
  // On the timeline: warp 0's one wait that found the phase complete (not its failed polls),
  // after the phase itself, completed by warp 1's arrival; both name the mbarrier.
  REQUIRE(t.events.size() == 2);
  CHECK(t.event_sites[t.events[0].site].form == trace::Form::Phase);
  CHECK(t.events[0].warp == 1);
  CHECK(t.events[0].arg == 0);  // no transaction bytes
  CHECK(t.events[1].warp == 0);
  CHECK(t.event_sites[t.events[1].site].form == trace::Form::Wait);
  CHECK(t.events[0].barrier == t.events[1].barrier);
  CHECK(t.events[0].barrier != trace::kNoBarrier);
  CHECK(t.events[1].at >= t.events[0].at);
}

TEST_CASE("cp.async.mbarrier.arrive: the copies land with the barrier's phase") {
  trace::Trace t;
  const std::vector<uint32_t> r = run(R"(
  mov.u32 %r2, sh;
  mbarrier.init.shared.b64 [%r2], 1;
  cp.async.ca.shared.global [%r2+16], [%rd1+12], 4;
  cp.async.mbarrier.arrive.noinc.shared.b64 [%r2];     // the thread's arrival: phase 0 completes
  mbarrier.test_wait.parity.shared.b64 %p1, [%r2], 0;
  ld.shared.u32 %r3, [%r2+16];
  selp.u32 %r4, 1, 0, %p1;
  mbarrier.init.shared.b64 [%r2+8], 1;
  cp.async.ca.shared.global [%r2+20], [%rd1+16], 4;
  cp.async.mbarrier.arrive.shared.b64 [%r2+8];         // not an arrival: the phase stays open
  ld.shared.u32 %r5, [%r2+20];                         // not landed
  mbarrier.arrive.shared.b64 %rd5, [%r2+8];
  ld.shared.u32 %r6, [%r2+20];
  st.global.v4.u32 [%rd2], {%r3, %r4, %r5, %r6};
)", 4, t);
  CHECK(r == std::vector<uint32_t>{0x103, 1, 0, 0x104});
}

TEST_CASE("cp.async.bulk: a block of bytes read at issue, landed by its mbarrier's transaction bytes") {
  trace::Trace t;
  const std::vector<uint32_t> r = run(R"(
  mov.u32 %r2, sh;
  mbarrier.init.shared.b64 [%r2], 1;
  add.u64 %rd5, %rd1, 32;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2+64], [%rd5], 48, [%r2];
  ld.shared.u32 %r3, [%r2+64];                         // 48 bytes still pending: nothing landed
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd6, [%r2], 48;
WAIT:
  mbarrier.try_wait.shared.b64 %p1, [%r2], %rd6;
  @!%p1 bra WAIT;
  ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r2+96];
  st.global.u32 [%rd2], %r3;
  st.global.v4.u32 [%rd2+16], {%r4, %r5, %r6, %r7};
)", 8, t);
  CHECK(r[0] == 0);
  CHECK(r[4] == 0x110);  // in[8 + 8]
  CHECK(r[7] == 0x113);
  // Recorded as a box: one read record of three 16-byte pieces, one write record landed.
  int reads = 0, writes = 0;
  for (const trace::Record& rec : t.records) {
    const trace::Site& s = t.sites[rec.site];
    if (s.form == trace::Form::BulkRead) {
      ++reads;
      CHECK(rec.active == 0x7u);
      CHECK(rec.offset[1] == 48);
      CHECK(s.bytes == 16);
    }
    if (s.form == trace::Form::BulkWrite) {
      ++writes;
      CHECK(rec.offset[2] == 64 + 32);
    }
  }
  CHECK(reads == 1);
  CHECK(writes == 1);
}

TEST_CASE("async copies and mbarriers refused in one line: what PTX does not have, what is not implemented") {
  CHECK(refusal("cp.async.cg.shared.global [%r1], [%rd1], 8;").find(".cg copies 16 bytes only") != std::string::npos);
  CHECK(refusal("cp.async.ca.shared.global [%r1], [%rd1], 12;").find("a copy of 12 bytes") != std::string::npos);
  CHECK(refusal("cp.async.ca.shared.global [%r1], [%rd1], %r2;").find("must be a constant") != std::string::npos);
  CHECK(refusal("cp.async.ca.shared.global.L2::cache_hint [%r1], [%rd1], 4, %rd2;")
            .find("the modifier .L2::cache_hint is not implemented") != std::string::npos);
  // The stores to global memory run (bulk_store.cpp); shared to another CTA's does not yet.
  CHECK(refusal("cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 16;") == "");
  CHECK(refusal("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r1], 16;") == "");
  CHECK(refusal("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r1], [%r2], 16, [%r3];") != "");
  CHECK(refusal("cp.async.bulk.wait_group %r1;").find("takes a constant") != std::string::npos);
  CHECK(refusal("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.b32 [%rd1], [%r1], 16;") != "");  // add takes no .b32
  CHECK(refusal("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {%r1}], [%r2];").find("[tensorMap, {x, y}]") !=
        std::string::npos);
  CHECK(refusal("mbarrier.init.shared::cluster.b64 [%r1], 1;") != "");  // an mbarrier is initialised by its own CTA
  CHECK(refusal("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r1];") == "");  // a remote arrive (grid.cpp)
  CHECK(refusal("mbarrier.init.shared.b64 [%r1], 1;") == "");
}

TEST_CASE("mbarrier misuse faults in one line: before init, too many arrivals") {
  trace::Trace t;
  CHECK_THROWS_WITH_AS(run("  mov.u32 %r2, sh;\n  mbarrier.arrive.shared.b64 %rd5, [%r2];\n", 1, t),
                       doctest::Contains("before mbarrier.init"), ptx::Fault);
  trace::Trace u;
  CHECK_THROWS_WITH_AS(run("  mov.u32 %r2, sh;\n  mbarrier.init.shared.b64 [%r2], 1;\n"
                           "  mbarrier.arrive.shared.b64 %rd5, [%r2], 2;\n", 1, u),
                       doctest::Contains("more arrivals"), ptx::Fault);
}

TEST_CASE("setmaxnreg: each warp that runs it records an event with its new count; the values stay") {
  trace::Trace t;
  // Warps 0-3 (the producer warpgroup) give registers back, warps 4-7 take more.
  const std::vector<uint32_t> r = run(R"(
  mov.u32 %r2, 7;
  setp.lt.u32 %p1, %r1, 128;
  @%p1 bra PRODUCER;
  setmaxnreg.inc.sync.aligned.u32 232;
  bra.uni DONE;
PRODUCER:
  setmaxnreg.dec.sync.aligned.u32 40;
DONE:
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
)", 256, t, 256);
  for (uint32_t v : r) CHECK(v == 7u);
  REQUIRE(t.events.size() == 8);
  for (const trace::Event& e : t.events) {
    INFO("warp " << e.warp);
    CHECK(t.event_sites[e.site].form == trace::Form::Registers);
    CHECK(e.active == 0xffffffffu);
    CHECK(e.arg == (e.warp < 4 ? 40u : 232u));
    CHECK(t.event_sites[e.site].instruction == (e.warp < 4 ? "setmaxnreg.dec.sync.aligned.u32" : "setmaxnreg.inc.sync.aligned.u32"));
  }
}
