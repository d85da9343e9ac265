// tests/ptx/test_tensor_copy.cpp — cp.async.bulk.tensor (TMA) on the emulated device: a
// box of a 2-D tensor of 16-bit elements, laid out in shared memory plainly and under the
// 128-byte swizzle, elements outside the tensor zero-filled; the tensor map written in the
// emulated device's layout (ptx/tensor_map.h), as the runtime's cuTensorMapEncodeTiled
// writes it. Expected positions worked out by hand from the swizzle's rule.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "ptx/tensor_map.h"

using namespace ws;

namespace {

constexpr uint32_t kCols = 64, kRows = 16;  // the tensor: element (x, y) holds y * 64 + x

// Copies the box at (x, y) of a map with `swizzle` into a 1024-aligned shared tile and
// returns the tile's first 1024 bytes as 512 halves; `t` gets the trace.
// (`rows`: the rows the map claims, kRows unless a test makes it lie.)
std::vector<uint16_t> copy_box(uint32_t box_x, uint32_t box_y, int32_t x, int32_t y, uint8_t swizzle, trace::Trace& t,
                               uint8_t rank = 2, uint32_t rows = kRows) {
  const std::string ptx = R"(.version 8.3
.target sm_90
.address_size 64
.visible .entry tma(.param .u64 pmap, .param .u64 pout, .param .u32 px, .param .u32 py, .param .u32 pbytes)
{
  .reg .pred %p<4>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<40>;
  .shared .align 1024 .b8 tile[1024];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [pmap];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r1, [px];
  ld.param.u32 %r2, [py];
  ld.param.u32 %r5, [pbytes];
  mov.u32 %r3, tile;
  mov.u32 %r4, bar;
  mbarrier.init.shared.b64 [%r4], 1;
  )" + std::string(rank == 2 ? "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r1, %r2}], [%r4];"
                             : "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r1}], [%r4];") + R"(
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [%r4], %r5;
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p2, [%r4], 0;
  @!%p2 bra WAIT;
  mov.u32 %r20, 0;
LOOP:
  add.u32 %r21, %r3, %r20;
  ld.shared.u32 %r22, [%r21];
  cvt.u64.u32 %rd6, %r20;
  add.u64 %rd7, %rd2, %rd6;
  st.global.u32 [%rd7], %r22;
  add.u32 %r20, %r20, 4;
  setp.lt.u32 %p3, %r20, 1024;
  @%p3 bra LOOP;
  ret;
}
)";
  ptx::Device dev;
  dev.load(ptx::parse(ptx, "tma.ptx"));
  std::vector<uint16_t> tensor(kCols * kRows);
  for (uint32_t i = 0; i < tensor.size(); ++i) tensor[i] = uint16_t(i);
  const uint64_t data = dev.malloc(tensor.size() * 2, "tensor"), out = dev.malloc(1024, "out");
  const uint64_t map_at = dev.malloc(128, "map");
  REQUIRE(dev.to_device(data, tensor.data(), tensor.size() * 2));
  ptx::TensorMap m;
  m.elem_bytes = 2;
  m.rank = rank;
  m.swizzle = swizzle;
  m.global = data;
  m.dim[0] = rank == 2 ? kCols : kCols * kRows;
  m.dim[1] = rank == 2 ? rows : 1;
  m.stride[0] = 2;
  m.stride[1] = kCols * 2;
  m.box[0] = box_x;
  m.box[1] = rank == 2 ? box_y : 1;
  REQUIRE(ptx::tensor_map_problem(m) == "");
  REQUIRE(dev.to_device(map_at, &m, sizeof m));
  std::vector<uint8_t> params(28);
  const uint32_t bytes = box_x * (rank == 2 ? box_y : 1) * 2;
  std::memcpy(params.data(), &map_at, 8);
  std::memcpy(params.data() + 8, &out, 8);
  std::memcpy(params.data() + 16, &x, 4);
  std::memcpy(params.data() + 20, &y, 4);
  std::memcpy(params.data() + 24, &bytes, 4);
  trace::Builder b(t);
  dev.launch({"tma", {1, 1, 1}, {1, 1, 1}, 0, params}, b);
  std::vector<uint16_t> got(512);
  REQUIRE(dev.to_host(got.data(), out, 1024));
  return got;
}

}  // namespace

TEST_CASE("TMA 2-D box with the 128-byte swizzle: each 16-byte chunk of row r at chunk index ^ (r % 8)") {
  trace::Trace t;
  // Rows 8..15 of the tensor, 64 halves (128 bytes) each: box row r is tensor row 8 + r.
  const std::vector<uint16_t> s = copy_box(64, 8, 0, 8, 128, t);
  // By hand: row 0 is not moved; row 1's chunk 0 (elements 0..7) goes to chunk 1, its
  // chunk 1 to chunk 0; row 3's element 17 (chunk 2, third half) to chunk 2 ^ 3 = 1.
  CHECK(s[0] == 8 * 64);
  CHECK(s[7] == 8 * 64 + 7);
  CHECK(s[64 + 8] == 9 * 64 + 0);
  CHECK(s[64 + 0] == 9 * 64 + 8);
  CHECK(s[3 * 64 + 1 * 8 + 1] == 11 * 64 + 17);
  CHECK(s[7 * 64 + 0] == 15 * 64 + 7 * 8);  // row 7: chunk 7 lands first
  // Every element: row r, element e at chunk (e / 8) ^ r.
  int wrong = 0;
  for (uint32_t r = 0; r < 8; ++r)
    for (uint32_t e = 0; e < 64; ++e) wrong += s[r * 64 + ((e / 8) ^ r) * 8 + e % 8] != (8 + r) * 64 + e;
  CHECK(wrong == 0);
  // Recorded as a box: 1024 bytes, two records of 32 16-byte pieces each way; the write's
  // pieces at the swizzled places (row 1's first piece at byte 128 + 16).
  std::vector<const trace::Record*> reads, writes;
  for (const trace::Record& rec : t.records) {
    if (t.sites[rec.site].form == trace::Form::BulkRead) reads.push_back(&rec);
    if (t.sites[rec.site].form == trace::Form::BulkWrite) writes.push_back(&rec);
  }
  REQUIRE(reads.size() == 2);
  REQUIRE(writes.size() == 2);
  CHECK(reads[0]->active == ~0u);
  CHECK(reads[0]->offset[0] == 8 * 128);  // tensor row 8
  CHECK(reads[0]->offset[8] == 9 * 128);
  CHECK(writes[0]->offset[8] == 128 + 16);
  CHECK(writes[0]->offset[9] == 128);
}

TEST_CASE("TMA swizzle spans: 32 and 64 bytes XOR the chunk with the row's low bits") {
  CHECK(ptx::swizzled(0x080, 32) == 0x090);   // row 1: chunk 0 <-> 1
  CHECK(ptx::swizzled(0x100, 32) == 0x100);   // row 2: 2 % 2 = 0
  CHECK(ptx::swizzled(0x180, 64) == 0x1b0);   // row 3: chunk 0 -> 3
  CHECK(ptx::swizzled(0x210, 64) == 0x210);   // row 4: 4 % 4 = 0
  CHECK(ptx::swizzled(0x3a4, 128) == 0x3d4);  // row 7, chunk 2 -> 5, byte 4 kept
  CHECK(ptx::swizzled(0x3a4, 0) == 0x3a4);
}

TEST_CASE("TMA box partly outside the tensor: the elements outside arrive as zeros") {
  trace::Trace t;
  // A 32 x 8 box at (48, 12): columns 48..63 and rows 12..15 are inside.
  const std::vector<uint16_t> s = copy_box(32, 8, 48, 12, 0, t);
  CHECK(s[0] == 12 * 64 + 48);
  CHECK(s[15] == 12 * 64 + 63);
  CHECK(s[16] == 0);                // column 64: outside
  CHECK(s[3 * 32 + 5] == 15 * 64 + 53);
  CHECK(s[4 * 32 + 0] == 0);        // row 16: outside
  // Only whole pieces inside the tensor are read: 2 per row for 4 rows.
  int pieces = 0;
  for (const trace::Record& rec : t.records)
    if (t.sites[rec.site].form == trace::Form::BulkRead) pieces += std::popcount(rec.active);
  CHECK(pieces == 8);
  // Negative coordinates too: a box at (-8, -1) starts outside both edges.
  trace::Trace u;
  const std::vector<uint16_t> n = copy_box(16, 2, -8, -1, 0, u);
  CHECK(n[0] == 0);
  CHECK(n[15] == 0);
  CHECK(n[16] == 0);
  CHECK(n[16 + 8] == 0);
  CHECK(n[16 + 9] == 1);
}

TEST_CASE("TMA 1-D box: a run of elements, and a map the interpreter does not know refused in one line") {
  trace::Trace t;
  const std::vector<uint16_t> s = copy_box(128, 1, 100, 0, 0, t, 1);
  CHECK(s[0] == 100);
  CHECK(s[127] == 227);
  ptx::TensorMap m;
  m.elem_bytes = 2;
  m.rank = 2;
  m.global = 0x1000;
  m.dim[0] = 64, m.dim[1] = 4;
  m.stride[0] = 2;
  m.stride[1] = 128;
  m.box[0] = 128, m.box[1] = 1;  // 256 bytes a row, wider than the swizzle
  m.swizzle = 128;
  CHECK(ptx::tensor_map_problem(m) == "a box row wider than its swizzle span");
  m.swizzle = 0;
  m.box[0] = 4;
  CHECK(ptx::tensor_map_problem(m) == "a box row of 8 bytes (a multiple of 16)");
  // A dimension of one element may have the stride 0, as CUTLASS gives a batch of one.
  m.box[0] = 8;
  m.rank = 3;
  m.stride[2] = 0;
  CHECK(ptx::tensor_map_problem(m) == "");
  m.stride[2] = 24;
  CHECK(ptx::tensor_map_problem(m) == "a stride of dimension 2 not a multiple of 16 bytes below 2^40");
  m.magic = 0;
  CHECK(ptx::tensor_map_problem(m) == "not a tensor map made by cuTensorMapEncodeTiled");
}

TEST_CASE("a box element past its array faults with the element, the box and the map in its line") {
  // The map claims 17 rows of an array of 16: the box at row 9 reaches row 16, 2048 bytes in.
  trace::Trace t;
  CHECK_THROWS_WITH_AS(copy_box(64, 8, 0, 9, 0, t, 2, kRows + 1),
                       doctest::Contains("element (0, 16) at byte 2048 of the map's tensor of a 64 x 8 box at (0, 9) of a "
                                         "tensor map of 64 x 17 elements, strides 128 bytes"),
                       ptx::Fault);
}

TEST_CASE("a descriptor's second 8-byte word holds nothing: CUTLASS clears its bit 21 after encoding") {
  // cute::detail::make_tma_copy_desc does so for tensors under 128 KiB on drivers up to
  // 13.1; the map's address lay there, and lost 2 MiB.
  ptx::TensorMap m;
  m.elem_bytes = 2;
  m.rank = 2;
  m.global = 0xa0000200000ull + 0x3dd00;  // bit 21 set
  m.dim[0] = 128, m.dim[1] = 256;
  m.stride[0] = 2, m.stride[1] = 256;
  m.box[0] = 64, m.box[1] = 128;
  unsigned char bytes[128] = {};
  std::memcpy(bytes, &m, sizeof m);
  uint64_t word;
  std::memcpy(&word, bytes + 8, 8);
  word &= ~(1ull << 21);
  std::memcpy(bytes + 8, &word, 8);
  ptx::TensorMap back;
  std::memcpy(&back, bytes, sizeof back);
  CHECK(back.global == m.global);
  CHECK(ptx::tensor_map_problem(back) == "");
}
