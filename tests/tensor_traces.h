// A one-warp trace of a tensor-core tile loop, built by hand (tests/analysis/test_tensor.cpp,
// tests/gui/test_tensor_views.cpp): a 64×64 half tile copied from global memory into
// shared memory with cp.async (16 bytes a lane, one commit, one wait_group 0), read back
// with two ldmatrix.x4 (lane l names row l % 8 + 8·(l / 8) of the tile, 16-byte chunk 0
// then 1), and one mma.sync.m16n8k16 after them. Stored plainly (128 bytes a row: the 8
// rows of each 8×8 matrix share their banks, 8-way) or with its 16-byte chunks XOR-swizzled
// by the row, chunk ^ (row & 7) (conflict-free).
#pragma once
#include <cstdint>
#include <string>

#include "trace/trace.h"

namespace ws::test {

// Where row `row`, 16-byte chunk `chunk` of the shared tile lies.
inline uint32_t tile_offset(uint32_t row, uint32_t chunk, bool swizzled) {
  return row * 128 + (swizzled ? chunk ^ (row & 7) : chunk) * 16;
}

// A site of 16 bytes a lane at `line` of `source`, its code that line's text.
inline trace::Site site16(const char* source, uint32_t line, trace::Space sp, trace::Op op, trace::Form f,
                          const std::string& ins, uint32_t buffer) {
  trace::Site s;
  s.line = line;
  s.space = sp;
  s.op = op;
  s.bytes = 16;
  s.form = f;
  s.instruction = ins;
  s.buffer = buffer;
  s.code = trace::source_line(source, line);
  return s;
}

inline const char* kTensorSource =
    "// tile.cu\n"                                                      // 1
    "__global__ void tile(const half* A, float* D) {\n"                // 2
    "  __shared__ half tile[64 * 64];\n"                               // 3
    "  int lane = threadIdx.x;\n"                                      // 4
    "  for (int i = 0; i < 16; ++i) {\n"                               // 5
    "    int c = i * 32 + lane, row = c / 8, chunk = c % 8;\n"         // 6
    "    cp_async16(&tile[row * 64 + swz(row, chunk) * 8], &A[row * 64 + chunk * 8]);\n"  // 7
    "  }\n"                                                            // 8
    "  cp_async_commit();\n"                                           // 9
    "  cp_async_wait<0>();\n"                                          // 10
    "  __syncthreads();\n"                                             // 11
    "  ldmatrix_x4(a, &tile[(lane % 8 + 8 * (lane / 8)) * 64 + swz(lane % 32, 0) * 8]);\n"  // 12
    "  ldmatrix_x4(b, &tile[(lane % 8 + 8 * (lane / 8)) * 64 + swz(lane % 32, 1) * 8]);\n"  // 13
    "  mma_m16n8k16(d, a, b, d);\n"                                    // 14
    "}\n";

inline trace::Trace tensor_trace(bool swizzled) {
  using namespace trace;
  Trace t;
  t.provenance = {"emulator", "CPU emulator", "2026-11-26T00:00:00Z", "test"};
  t.files.push_back({"tile.cu", kTensorSource});
  Buffer a;
  a.name = "A";
  a.elem_bytes = 2;
  a.rows = a.cols = 64;
  a.size_bytes = 64 * 64 * 2;
  t.buffers.push_back(a);
  t.buffers.push_back(shared_buffer("tile", 2, 64, 64, 64 * 64 * 2));
  Launch l;
  l.kernel = swizzled ? "tile_swizzled" : "tile_plain";
  l.block = {32, 1, 1};
  l.blocks = {0};
  t.launches.push_back(l);
  auto site = [&](uint32_t line, Space sp, Op op, Form f, const std::string& ins, uint32_t buffer) {
    return site16(kTensorSource, line, sp, op, f, ins, buffer);
  };
  t.sites.push_back(site(7, Space::Global, Op::Load, Form::AsyncRead, "cp.async.cg.shared.global", 0));
  t.sites.push_back(site(7, Space::Shared, Op::Store, Form::AsyncWrite, "cp.async.cg.shared.global", 1));
  t.sites.push_back(site(12, Space::Shared, Op::Load, Form::Matrix, "ldmatrix.sync.aligned.m8n8.x4.shared.b16", 1));
  t.sites.push_back(site(13, Space::Shared, Op::Load, Form::Matrix, "ldmatrix.sync.aligned.m8n8.x4.shared.b16", 1));
  t.sites[0].partner = 1;
  t.sites[1].partner = 0;
  t.event_sites.push_back(site(9, Space::Shared, Op::Load, Form::Commit, "cp.async.commit_group", kNoBuffer));
  t.event_sites.push_back(site(10, Space::Shared, Op::Load, Form::Wait, "cp.async.wait_group", kNoBuffer));
  t.event_sites.push_back(
      site(14, Space::Shared, Op::Load, Form::Mma, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", kNoBuffer));
  uint32_t seq = 0;
  auto record = [&](uint32_t s, uint32_t epoch, auto offset) {
    Record r;
    r.site = s;
    r.seq = seq++;
    r.epoch = epoch;
    r.active = ~0u;
    r.buffer = t.sites[s].buffer;
    for (uint32_t lane = 0; lane < 32; ++lane) r.offset[lane] = offset(lane);
    t.records.push_back(r);
  };
  auto event = [&](uint32_t s, uint32_t epoch, uint32_t arg) {
    Event e;
    e.site = s;
    e.seq = seq++;
    e.epoch = epoch;
    e.active = ~0u;
    e.arg = arg;
    t.events.push_back(e);
  };
  // Chunk c = 32·i + lane of the tile: row c / 8, chunk c % 8.
  for (uint32_t i = 0; i < 16; ++i)
    record(0, 0, [&](uint32_t lane) { return (32 * i + lane) * 16; });
  event(0, 0, 0);
  event(1, 0, 0);
  // The copies land at the wait, in the order they were issued.
  for (uint32_t i = 0; i < 16; ++i)
    record(1, 0, [&](uint32_t lane) { const uint32_t c = 32 * i + lane; return tile_offset(c / 8, c % 8, swizzled); });
  for (uint32_t chunk = 0; chunk < 2; ++chunk)
    record(2 + chunk, 1, [&](uint32_t lane) { return tile_offset(lane % 8 + 8 * (lane / 8), chunk, swizzled); });
  event(2, 1, 0);
  return t;
}

// A block of two warpgroups' leaders, built by hand (tests/gui/test_pipeline_view.cpp):
// warp 0 brings four 1 KiB boxes of A by TMA into a ring of two 1 KiB stages of `ring`
// (two pieces of 512 bytes a box), each landing at warp 4's wait for it; warp 4 runs one
// wgmma after each wait, and warp 0 waits for a stage to be free before its third and
// fourth boxes. Every event keeps its place among the requests (Event::at); each box's
// bytes complete a phase of its stage's mbarrier (at shared bytes 2048 and 2056), which
// warp 4's wait names.
inline trace::Trace pipeline_trace() {
  using namespace trace;
  Trace t;
  t.provenance = {"emulator", "CPU emulator", "2026-12-02T00:00:00Z", "test"};
  static const char* kSource = "// ring.cu\n  tma_load(ring[s], A, k);\n  wait(full[s]);\n  wgmma(d, ring[s]);\n";
  t.files.push_back({"ring.cu", kSource});
  Buffer a;
  a.name = "A";
  a.elem_bytes = 2;
  a.rows = 16;
  a.cols = 128;
  a.size_bytes = 16 * 128 * 2;
  t.buffers.push_back(a);
  t.buffers.push_back(shared_buffer("ring", 2, 1, 1024, 2048));
  Launch l;
  l.kernel = "ring";
  l.block = {256, 1, 1};
  l.blocks = {0};
  t.launches.push_back(l);
  auto site = [](uint32_t line, Space sp, Op op, Form f, uint32_t buffer) {
    return site16(kSource, line, sp, op, f,
                  f == Form::Mma    ? "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"
                  : f == Form::Wait ? "mbarrier.try_wait.parity.shared::cta.b64"
                                    : "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                  buffer);
  };
  t.sites.push_back(site(2, Space::Global, Op::Load, Form::BulkRead, 0));
  t.sites.push_back(site(2, Space::Shared, Op::Store, Form::BulkWrite, 1));
  t.sites[0].partner = 1;
  t.sites[1].partner = 0;
  t.event_sites.push_back(site(3, Space::Shared, Op::Load, Form::Wait, kNoBuffer));
  t.event_sites.push_back(site(4, Space::Shared, Op::Load, Form::Mma, kNoBuffer));
  t.event_sites.push_back(site(2, Space::Shared, Op::Load, Form::Phase, kNoBuffer));
  uint32_t seq[8] = {};
  auto record = [&](uint32_t warp, uint32_t s, uint64_t base) {
    Record r;
    r.warp = warp;
    r.site = s;
    r.seq = seq[warp]++;
    r.active = ~0u;
    r.buffer = t.sites[s].buffer;
    for (uint32_t lane = 0; lane < 32; ++lane) r.offset[lane] = uint32_t(base + 16 * lane);
    t.records.push_back(r);
  };
  auto event = [&](uint32_t warp, uint32_t s, uint32_t barrier = kNoBarrier, uint32_t arg = 0) {
    Event e;
    e.warp = warp;
    e.site = s;
    e.seq = seq[warp]++;
    e.active = ~0u;
    e.at = t.records.size();
    e.barrier = barrier;
    e.arg = arg;
    t.events.push_back(e);
  };
  auto full = [](uint32_t k) { return 2048 + 8 * (k % 2); };
  auto issue = [&](uint32_t k) {  // box k of A: 1 KiB, two pieces of one instruction (one seq)
    for (uint32_t p = 0; p < 2; ++p) record(0, 0, 1024 * k + 512 * p);
    t.records.back().seq = t.records[t.records.size() - 2].seq;
    --seq[0];
    event(0, 2, full(k), 1024);  // its bytes complete the stage's phase
  };
  auto land = [&](uint32_t k) {  // into stage k % 2
    for (uint32_t p = 0; p < 2; ++p) record(0, 1, 1024 * (k % 2) + 512 * p);
  };
  issue(0);
  issue(1);
  for (uint32_t k = 0; k < 4; ++k) {
    event(4, 0, full(k));  // warp 4 waits for stage k % 2: box k lands
    land(k);
    event(4, 1);  // and runs its wgmma
    if (k + 2 < 4) {
      event(0, 0);  // warp 0 waits for the stage to be free, then fills it again
      issue(k + 2);
    }
  }
  return t;
}

// A launch of 4 CTAs in one 4x1x1 cluster, as the emulated device records one: rank 0
// writes its own tile, then reads rank 1's (a whole warp); rank 1 reads rank 0's tile with
// lanes 0-15 and rank 2's with lanes 16-31 (one request, two CTAs); rank 0 issues a TMA
// box of 512 bytes multicast to itself and rank 1, which lands in both; rank 3 writes rank
// 0's tile (two CTAs apart).
inline trace::Trace cluster_trace() {
  using namespace trace;
  Trace t;
  t.provenance = {"emulator", "CPU emulator", "2026-12-03T00:00:00Z", "test"};
  static const char* kSource =
      "// cluster.cu\n  tile[lane] = lane;\n  x = peer[lane];\n  y = peer[lane + 32];\n  tma_multicast(tile, A);\n";
  t.files.push_back({"cluster.cu", kSource});
  Buffer a;
  a.name = "A";
  a.cols = 128;
  a.size_bytes = 512;
  t.buffers.push_back(a);                                               // 0
  t.buffers.push_back(shared_buffer("tile", 4, 1, 64, 256));            // 1
  for (uint32_t rank = 0; rank < 3; ++rank) {                           // 2, 3, 4: ranks 0, 1, 2
    Buffer b = shared_buffer("tile (CTA rank " + std::to_string(rank) + ")", 4, 1, 64, 256);
    b.space = Space::Cluster;
    b.cta = rank + 1;
    t.buffers.push_back(b);
  }
  Launch l;
  l.kernel = "cluster";
  l.grid = {4, 1, 1};
  l.block = {32, 1, 1};
  l.cluster = {4, 1, 1};
  l.blocks = {0, 1, 2, 3};
  t.launches.push_back(l);
  auto site = [](uint32_t line, Space sp, Op op, Form f, uint32_t buffer, uint8_t bytes, const char* ins) {
    Site s = site16(kSource, line, sp, op, f, ins, buffer);
    s.bytes = bytes;
    return s;
  };
  t.sites.push_back(site(2, Space::Shared, Op::Store, Form::Plain, 1, 4, "st.shared.u32"));                  // 0
  t.sites.push_back(site(3, Space::Cluster, Op::Load, Form::Plain, 3, 4, "ld.shared::cluster.u32"));         // 1
  t.sites.push_back(site(4, Space::Cluster, Op::Load, Form::Plain, kNoBuffer, 4, "ld.shared::cluster.u32"));  // 2
  const char* bulk = "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster";
  t.sites.push_back(site(5, Space::Global, Op::Load, Form::BulkRead, 0, 16, bulk));    // 3
  t.sites.push_back(site(5, Space::Shared, Op::Store, Form::BulkWrite, 1, 16, bulk));  // 4: rank 0's landing
  t.sites.push_back(site(5, Space::Shared, Op::Store, Form::BulkWrite, 1, 16, bulk));  // 5: rank 1's
  t.sites.push_back(site(3, Space::Cluster, Op::Store, Form::Plain, 2, 4, "st.shared::cluster.u32"));  // 6
  uint32_t seq[4] = {};
  auto record = [&](uint32_t block, uint32_t s, uint32_t buffer, uint32_t stride) {
    Record r;
    r.block = block;
    r.site = s;
    r.seq = seq[block]++;
    r.active = ~0u;
    r.buffer = buffer;
    for (uint32_t lane = 0; lane < 32; ++lane) r.offset[lane] = stride * lane;
    t.records.push_back(r);
    return &t.records.back();
  };
  record(0, 0, 1, 4);
  record(0, 1, 3, 4);                   // rank 0 reads rank 1's tile
  Record* split = record(1, 2, 2, 4);   // rank 1: lanes 0-15 rank 0's, 16-31 rank 2's
  LaneBuffers lanes{};
  for (uint32_t lane = 0; lane < 32; ++lane) lanes[lane] = lane < 16 ? 2 : 4;
  split->lanes = std::make_shared<const LaneBuffers>(lanes);
  record(0, 3, 0, 16);                  // the box read once, by rank 0
  record(0, 4, 1, 16);                  // ... landing in rank 0
  record(1, 5, 1, 16);                  // ... and in rank 1
  record(3, 6, 2, 4);                   // rank 3 writes rank 0's tile
  return t;
}

}  // namespace ws::test
