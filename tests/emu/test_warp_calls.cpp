// tests/emu/test_warp_calls.cpp — the kernel contract's warp-wide calls and async copies
// on the CPU emulator: ldmatrix fragments where the PTX ISA puts them, mma against a
// product worked out by hand, cp.async's shared write landing only at the wait, and what
// each records (Form::Matrix rows, linked async halves, mma/commit/wait events). Each
// kernel is one warp of one block, small enough to check on paper.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "contract.h"
#include "emu/context.h"
#include "emu/machine.h"

using namespace ws;

namespace {

// Runs Op over `args` on a grid of one block of `threads` threads (with `dynamic` bytes of
// dynamic shared memory); `globals` are the launch's global arrays (their data lives in the
// caller's vectors).
template <class Op, class Args>
trace::Trace run(const Args& args, const std::vector<trace::Buffer>& globals, uint32_t threads = 32, uint32_t dynamic = 0) {
  struct Closure {
    Args args;
    static void thread(void* p) {
      emu::Ctx ctx;
      Op{}(ctx, static_cast<Closure*>(p)->args);
    }
  } c{args};
  trace::Trace t;
  t.buffers = globals;
  trace::Builder b(t);
  trace::Launch l;
  l.kernel = "test";
  l.block = {threads, 1, 1};
  l.dynamic_shared_bytes = dynamic;
  b.begin_launch(l);
  emu::Machine m;
  m.run(dynamic, &Closure::thread, &c, {}, b);
  return t;
}

trace::Buffer global(const char* name, uint32_t elem_bytes, uint64_t elements) {
  trace::Buffer b;
  b.name = name;
  b.elem_bytes = elem_bytes;
  b.cols = elements;
  b.size_bytes = elem_bytes * elements;
  return b;
}

uint32_t lo(uint32_t r) { return r & 0xffffu; }
uint32_t hi(uint32_t r) { return r >> 16; }
// The half of small integer v, as bits.
uint32_t h(int v) { return half_bits(float(v)); }

const trace::Site* site_of(const trace::Trace& t, trace::Form f) {
  for (const auto& s : t.sites)
    if (s.form == f) return &s;
  return nullptr;
}

// ---- ldmatrix ---------------------------------------------------------------------------

struct LdArgs {
  Buf<uint32_t> out;  // (32 lanes, 4 registers)
  int matrices;
  int trans;
};

// A 32x8 half tile holding r*8+c at (r, c); lane l names row l, so matrix i is rows
// 8i..8i+7.
struct LdmatrixKernel {
  template <class Ctx>
  void operator()(Ctx& ctx, const LdArgs& a) const {
    WS_SHARED(half, tile, [32][8]);
    auto out = ctx.global(a.out);
    const int lane = threadIdx.x;
    for (int c = 0; c < 8; ++c) tile[lane][c] = float(lane * 8 + c);
    __syncthreads();
    uint32_t r[4] = {0, 0, 0, 0};
    if (a.matrices == 4 && !a.trans) ctx.ldmatrix_x4(r, tile[lane][0]);
    if (a.matrices == 4 && a.trans) ctx.ldmatrix_x4_trans(r, tile[lane][0]);
    if (a.matrices == 2) ctx.ldmatrix_x2(reinterpret_cast<uint32_t(&)[2]>(r), tile[lane][0]);
    if (a.matrices == 1) ctx.ldmatrix_x1(reinterpret_cast<uint32_t(&)[1]>(r), tile[lane][0]);
    for (int i = 0; i < 4; ++i) out[lane * 4 + i] = r[i];
  }
};

}  // namespace

TEST_CASE("ldmatrix.x4 puts row l/4, columns 2(l%4) and 2(l%4)+1 of matrix i in lane l's register i") {
  std::vector<uint32_t> out(128, 0);
  trace::Trace t = run<LdmatrixKernel>(LdArgs{{out.data(), 0}, 4, 0}, {global("out", 4, 128)});
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t i = 0; i < 4; ++i) {
      CAPTURE(l);
      CAPTURE(i);
      const uint32_t row = 8 * i + l / 4, col = 2 * (l % 4);
      CHECK(lo(out[l * 4 + i]) == h(int(row * 8 + col)));
      CHECK(hi(out[l * 4 + i]) == h(int(row * 8 + col + 1)));
    }
  // Lane 5, register 2: matrix 2's row 1 (tile row 17), columns 2 and 3: 138 and 139.
  CHECK(lo(out[5 * 4 + 2]) == h(138));
  CHECK(hi(out[5 * 4 + 2]) == h(139));
  // One record of the 32 row addresses, 16 bytes a lane, at a site of Form::Matrix.
  const trace::Site* s = site_of(t, trace::Form::Matrix);
  REQUIRE(s);
  CHECK(s->space == trace::Space::Shared);
  CHECK(s->op == trace::Op::Load);
  CHECK(s->bytes == 16);
  int matrix_records = 0;
  for (const auto& r : t.records)
    if (&t.sites[r.site] == s) {
      ++matrix_records;
      CHECK(r.active == 0xffffffffu);
      for (uint32_t l = 0; l < 32; ++l) CHECK(r.offset[l] == l * 16);
    }
  CHECK(matrix_records == 1);
}

TEST_CASE("ldmatrix.x4.trans gives lane l column l/4, rows 2(l%4) and 2(l%4)+1 of each matrix") {
  std::vector<uint32_t> out(128, 0);
  run<LdmatrixKernel>(LdArgs{{out.data(), 0}, 4, 1}, {global("out", 4, 128)});
  // Lane 6: column 1, rows 4 and 5 of matrix 3 (tile rows 28, 29): 28*8+1 and 29*8+1.
  CHECK(lo(out[6 * 4 + 3]) == h(225));
  CHECK(hi(out[6 * 4 + 3]) == h(233));
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t i = 0; i < 4; ++i) {
      const uint32_t row = 8 * i + 2 * (l % 4), col = l / 4;
      CHECK(lo(out[l * 4 + i]) == h(int(row * 8 + col)));
      CHECK(hi(out[l * 4 + i]) == h(int((row + 1) * 8 + col)));
    }
}

TEST_CASE("ldmatrix.x2 and .x1 take their rows from the first 16 and 8 lanes, and record only those") {
  for (int m : {1, 2}) {
    CAPTURE(m);
    std::vector<uint32_t> out(128, 0);
    trace::Trace t = run<LdmatrixKernel>(LdArgs{{out.data(), 0}, m, 0}, {global("out", 4, 128)});
    CHECK(lo(out[9 * 4 + 0]) == h(2 * 8 + 2));  // lane 9: row 2, columns 2, 3 of matrix 0
    if (m == 2) CHECK(hi(out[9 * 4 + 1]) == h(10 * 8 + 3));
    const trace::Site* s = site_of(t, trace::Form::Matrix);
    REQUIRE(s);
    for (const auto& r : t.records)
      if (&t.sites[r.site] == s) CHECK(r.active == (m == 2 ? 0xffffu : 0xffu));
  }
}

// ---- mma ---------------------------------------------------------------------------------

namespace {

struct MmaArgs {
  Buf<const half> a;   // (16, 16) row-major
  Buf<const half> bt;  // B stored by columns: (8, 16), bt[n][k] = B[k][n]
  Buf<float> d;        // (16, 8)
};

// The fragments come from shared tiles through ldmatrix, as a GEMM loads them: lane l
// names row l%16, column 8(l/16) of A (matrices: rows 0-7/8-15 × k 0-7/8-15), and row l%8,
// column 8(l/8) of Bᵀ.
struct MmaKernel {
  template <class Ctx>
  void operator()(Ctx& ctx, const MmaArgs& args) const {
    WS_SHARED(half, As, [16][16]);
    WS_SHARED(half, Bs, [8][16]);
    auto a = ctx.global(args.a);
    auto bt = ctx.global(args.bt);
    auto d = ctx.global(args.d);
    const int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) As[i / 16][i % 16] = a[i];
    for (int i = lane; i < 128; i += 32) Bs[i / 16][i % 16] = bt[i];
    __syncthreads();
    uint32_t af[4], bf[2];
    ctx.ldmatrix_x4(af, As[lane % 16][(lane / 16) * 8]);
    ctx.ldmatrix_x2(bf, Bs[lane % 8][((lane / 8) % 2) * 8]);
    float acc[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    ctx.mma_m16n8k16(acc, af, bf);
    const int g = lane / 4, t = lane % 4;
    d[g * 8 + 2 * t] = acc[0];
    d[g * 8 + 2 * t + 1] = acc[1];
    d[(g + 8) * 8 + 2 * t] = acc[2];
    d[(g + 8) * 8 + 2 * t + 1] = acc[3];
  }
};

}  // namespace

TEST_CASE("mma m16n8k16: D = C + A·B in the C fragment layout") {
  SUBCASE("A = I: D is 1 + B, element for element") {
    std::vector<half> a(256), bt(128);
    for (int r = 0; r < 16; ++r)
      for (int k = 0; k < 16; ++k) a[size_t(r * 16 + k)] = float(r == k);
    for (int n = 0; n < 8; ++n)
      for (int k = 0; k < 16; ++k) bt[size_t(n * 16 + k)] = float(k * 8 + n);
    std::vector<float> d(128, -7);
    trace::Trace t = run<MmaKernel>(MmaArgs{{a.data(), 0}, {bt.data(), 1}, {d.data(), 2}},
                                    {global("a", 2, 256), global("bt", 2, 128), global("d", 4, 128)});
    for (int r = 0; r < 16; ++r)
      for (int n = 0; n < 8; ++n) CHECK(d[size_t(r * 8 + n)] == float(1 + r * 8 + n));
    // One mma event of the whole warp, between the fragment loads and the stores of D.
    REQUIRE(t.events.size() == 1);
    CHECK(t.event_sites.at(t.events[0].site).form == trace::Form::Mma);
    CHECK(t.events[0].active == 0xffffffffu);
    uint32_t last_ldmatrix = 0, first_store_d = ~0u;
    for (const auto& r : t.records) {
      if (t.sites[r.site].form == trace::Form::Matrix) last_ldmatrix = std::max(last_ldmatrix, r.seq);
      if (r.buffer == 2) first_store_d = std::min(first_store_d, r.seq);
    }
    CHECK(last_ldmatrix < t.events[0].seq);
    CHECK(t.events[0].seq < first_store_d);
  }
  SUBCASE("small integers: equal to the CPU's product") {
    std::vector<half> a(256), bt(128);
    for (int r = 0; r < 16; ++r)
      for (int k = 0; k < 16; ++k) a[size_t(r * 16 + k)] = float((r * 3 + k) % 5 - 2);
    for (int n = 0; n < 8; ++n)
      for (int k = 0; k < 16; ++k) bt[size_t(n * 16 + k)] = float((k * 7 + n) % 9 - 4);
    std::vector<float> d(128, -7);
    run<MmaKernel>(MmaArgs{{a.data(), 0}, {bt.data(), 1}, {d.data(), 2}},
                   {global("a", 2, 256), global("bt", 2, 128), global("d", 4, 128)});
    for (int r = 0; r < 16; ++r)
      for (int n = 0; n < 8; ++n) {
        float want = 1;
        for (int k = 0; k < 16; ++k) want += float(a[size_t(r * 16 + k)]) * float(bt[size_t(n * 16 + k)]);
        CHECK(d[size_t(r * 8 + n)] == want);
      }
    // Row 0, column 0 by hand: sum over k of ((k % 5) - 2) * ((7k % 9) - 4), plus 1.
    CHECK(d[0] == 1.0f + (-2 * -4) + (-1 * 3) + (0 * 1) + (1 * -1) + (2 * -3) + (-2 * 4) + (-1 * 2) + (0 * 0) +
                      (1 * -2) + (2 * -4) + (-2 * 3) + (-1 * 1) + (0 * -1) + (1 * -3) + (2 * 4) + (-2 * 2));
  }
}

// ---- cp.async ----------------------------------------------------------------------------

namespace {

struct CopyArgs {
  Buf<const float> in;  // 64 floats
  Buf<float> before;    // what the lane's shared word held right after issuing
  Buf<float> after;     // and after the waits
};

// Two groups: a 4-byte copy of in[lane] (group 0), then a 16-byte copy of in[32 + 4(l%8)..]
// by lanes 0-7 (group 1). wait<1> lands group 0 only; wait<0> the rest.
struct CopyKernel {
  template <class Ctx>
  void operator()(Ctx& ctx, const CopyArgs& a) const {
    WS_SHARED(float, s, [64]);
    auto in = ctx.global(a.in);
    auto before = ctx.global(a.before);
    auto after = ctx.global(a.after);
    const int lane = threadIdx.x;
    // Each lane reads back only the words its own copies write: lanes are not in lock
    // step here, so another lane's words would be a race.
    s[lane] = -1.0f;
    if (lane < 8)
      for (int j = 0; j < 4; ++j) s[32 + 4 * lane + j] = -1.0f;
    ctx.cp_async4(s[lane], in[lane]);
    ctx.cp_async_commit();
    if (lane < 8) ctx.cp_async16(s[32 + 4 * lane], in[32 + 4 * lane]);
    ctx.cp_async_commit();
    before[lane] = s[lane];
    ctx.template cp_async_wait<1>();
    after[lane] = s[lane];
    if (lane < 8)
      for (int j = 0; j < 4; ++j) before[32 + 4 * lane + j] = s[32 + 4 * lane + j];
    ctx.template cp_async_wait<0>();
    if (lane < 8)
      for (int j = 0; j < 4; ++j) after[32 + 4 * lane + j] = s[32 + 4 * lane + j];
  }
};

}  // namespace

TEST_CASE("cp.async: the shared word keeps its old value until the wait that covers its group") {
  std::vector<float> in(64), before(64, 0), after(64, 0);
  for (int i = 0; i < 64; ++i) in[size_t(i)] = float(i + 100);
  trace::Trace t = run<CopyKernel>(CopyArgs{{in.data(), 0}, {before.data(), 1}, {after.data(), 2}},
                                   {global("in", 4, 64), global("before", 4, 64), global("after", 4, 64)});
  for (int i = 0; i < 32; ++i) {
    CAPTURE(i);
    CHECK(before[size_t(i)] == -1.0f);               // group 0 issued, not landed
    CHECK(after[size_t(i)] == float(i + 100));       // landed at wait<1>
    CHECK(before[size_t(32 + i)] == -1.0f);          // group 1 still in flight after wait<1>
    CHECK(after[size_t(32 + i)] == float(i + 132));  // landed at wait<0>
  }
  // Sites: each copy's read (global, at issue) and write (shared, at the wait), linked.
  std::vector<const trace::Site*> reads, writes;
  for (const auto& s : t.sites) {
    if (s.form == trace::Form::AsyncRead) reads.push_back(&s);
    if (s.form == trace::Form::AsyncWrite) writes.push_back(&s);
  }
  REQUIRE(reads.size() == 2);
  REQUIRE(writes.size() == 2);
  for (const auto* r : reads) {
    CHECK(r->space == trace::Space::Global);
    REQUIRE(r->partner < t.sites.size());
    const trace::Site& w = t.sites[r->partner];
    CHECK(w.form == trace::Form::AsyncWrite);
    CHECK(w.space == trace::Space::Shared);
    CHECK(w.op == trace::Op::Store);
    CHECK(w.line == r->line);
    CHECK(w.bytes == r->bytes);
    CHECK(t.sites[w.partner].line == r->line);
  }
  // Events in order: commit, commit, wait 1, wait 0; the 16-byte write lands after wait<1>.
  REQUIRE(t.events.size() == 4);
  const trace::Form want[4] = {trace::Form::Commit, trace::Form::Commit, trace::Form::Wait, trace::Form::Wait};
  for (int i = 0; i < 4; ++i) CHECK(t.event_sites.at(t.events[size_t(i)].site).form == want[i]);
  CHECK(t.events[2].arg == 1);
  CHECK(t.events[3].arg == 0);
  for (const auto& r : t.records) {
    const trace::Site& s = t.sites[r.site];
    if (s.form == trace::Form::AsyncWrite && s.bytes == 4) {
      CHECK(r.seq < t.events[2].seq);  // landed by wait<1>, recorded just before it
      CHECK(r.seq > t.events[1].seq);
      CHECK(r.active == 0xffffffffu);
    }
    if (s.form == trace::Form::AsyncWrite && s.bytes == 16) {
      CHECK(r.seq > t.events[2].seq);
      CHECK(r.seq < t.events[3].seq);
      CHECK(r.active == 0xffu);
      for (uint32_t l = 0; l < 8; ++l) CHECK(r.offset[l] == 128 + 16 * l);
    }
    if (s.form == trace::Form::AsyncRead && s.bytes == 16) CHECK(r.seq < t.events[1].seq);
  }
}

// ---- refusals ----------------------------------------------------------------------------

namespace {

struct BadArgs {
  Buf<const float> in;  // 64 floats
  int what;
};

struct BadKernel {
  template <class Ctx>
  void operator()(Ctx& ctx, const BadArgs& a) const {
    WS_SHARED(half, tile, [32][8]);
    WS_SHARED(float, s, [32]);
    auto in = ctx.global(a.in);
    const int lane = threadIdx.x;
    uint32_t r[4];
    float d[4] = {0, 0, 0, 0};
    if (a.what == 0) ctx.ldmatrix_x4(r, tile[lane][1]);  // 2 bytes into the row: misaligned
    if (a.what == 1) ctx.ldmatrix_x4(r, in[lane]);        // a global array
    if (a.what == 2) ctx.mma_m16n8k16(d, r, reinterpret_cast<uint32_t(&)[2]>(r));  // a 16-thread block
    if (a.what == 3) ctx.cp_async4(s[lane], in[lane]);  // no wait before the end
    if (a.what == 4) {  // in[1] is not 16-byte aligned
      ctx.cp_async16(s[lane], in[lane]);
      ctx.cp_async_commit();
      ctx.template cp_async_wait<0>();
    }
    if (a.what == 5 && lane < 16) ctx.ldmatrix_x4(r, tile[lane][0]);  // half the warp
    if (a.what == 6 || a.what == 7) {  // 64 copies a lane in flight are tracked; 65 are refused
      for (int i = 0; i < (a.what == 6 ? 64 : 65); ++i) ctx.cp_async4(s[lane], in[lane]);
      ctx.cp_async_commit();
      ctx.template cp_async_wait<0>();
    }
  }
};

std::string refusal(int what, uint32_t threads = 32) {
  std::vector<float> in(64, 1.0f);
  try {
    run<BadKernel>(BadArgs{{in.data(), 0}, what}, {global("in", 4, 64)}, threads);
  } catch (const emu::KernelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("misused warp-wide calls and copies are refused in one line") {
  const std::string misaligned = refusal(0);
  CHECK(misaligned.find("ldmatrix at kernel line") != std::string::npos);
  CHECK(misaligned.find("byte offset 2 of 'tile' is not 16-byte aligned") != std::string::npos);
  CHECK(refusal(1).find("'in' is not a shared array") != std::string::npos);
  const std::string partial = refusal(2, 16);
  CHECK(partial.find("mma at kernel line") != std::string::npos);
  CHECK(partial.find("16 of the 32 lanes of warp 0") != std::string::npos);
  CHECK(refusal(3).find("ended with copies still in flight") != std::string::npos);
  const std::string unaligned_copy = refusal(4);
  INFO(unaligned_copy);
  CHECK(unaligned_copy.find("byte offset 4 of 'in' is not 16-byte aligned") != std::string::npos);
  CHECK(refusal(5).find("16 of the 32 lanes of warp 0") != std::string::npos);
  CHECK(refusal(6) == "");
  const std::string many = refusal(7);
  CHECK(many.find("this lane already has 64 copies in flight, the most warpscope tracks a lane") != std::string::npos);
  for (int w = 0; w <= 7; ++w) CHECK(refusal(w, w == 2 ? 16 : 32).find('\n') == std::string::npos);
}

TEST_CASE("half: round to nearest even, and back exactly") {
  CHECK(half_bits(1.0f) == 0x3c00);
  CHECK(half_bits(-2.0f) == 0xc000);
  CHECK(half_bits(65504.0f) == 0x7bff);
  CHECK(half_bits(65520.0f) == 0x7c00);           // rounds up to infinity
  CHECK(half_bits(1.0f + 0x1p-11f) == 0x3c00);    // halfway: to the even neighbour
  CHECK(half_bits(1.0f + 3 * 0x1p-11f) == 0x3c02);
  CHECK(half_bits(0x1p-24f) == 0x0001);           // the smallest subnormal
  CHECK(half_bits(0x1p-25f) == 0x0000);           // half of it: ties to even, zero
  CHECK(half_bits(0x1.8p-25f) == 0x0001);
  CHECK(half_value(0x0001) == 0x1p-24f);
  CHECK(half_value(0x7bff) == 65504.0f);
  CHECK(half_value(0xbc00) == -1.0f);
  CHECK(half_value(half_bits(0.1f)) == 0.0999755859375f);
  for (uint32_t b = 0; b < 0x7c00; ++b) CHECK(half_bits(half_value(uint16_t(b))) == b);
}

// ---- TMA and mbarriers ------------------------------------------------------------------

struct TmaArgs {
  Tma2D<const float> in;  // 32 × 32 floats
  Buf<float> out;         // the tile as it lies in shared memory, 1024 floats
  Buf<float> early;       // what lane 0 of warp 1 read of the tile before waiting, 1 float
  uint32_t expect;        // the bytes warp 0 says will arrive
};

// Warp 0 brings the whole 32×32 box; the mbarrier also waits for warp 1's arrival, which
// comes after warp 1 has peeked at the tile: its box is read, and must not have landed yet.
// Then the block copies the tile out as it lies.
struct TmaKernel {
  template <class Ctx>
  void operator()(Ctx& ctx, const TmaArgs& a) const {
    WS_DYNAMIC_SHARED_TMA(float, tile);
    WS_SHARED(uint64_t, full, [1]);
    auto out = ctx.global(a.out);
    auto early = ctx.global(a.early);
    const int t = threadIdx.x;
    if (t < 32) ctx.mbarrier_init(full[0], 2);
    __syncthreads();
    if (t < 32) {
      ctx.mbarrier_arrive_expect_tx(full[0], a.expect);
      ctx.tma_load(tile[0], a.in, 0, 0, full[0]);
    } else {
      if (t == 32) early[0] = tile[0];
      ctx.mbarrier_arrive(full[0]);
    }
    ctx.mbarrier_wait(full[0], 0);
    for (int i = t; i < 1024; i += 64) out[i] = tile[i];
  }
};

trace::Trace run_tma(int swizzle, std::vector<float>& in, std::vector<float>& out, float& early, uint32_t expect = 4096) {
  in.resize(1024);
  for (int i = 0; i < 1024; ++i) in[size_t(i)] = float(i);
  out.assign(1024, -1.0f);
  const TmaArgs a{{nullptr, Buf<const float>{in.data(), 0}, 32, 32, 32, 32, swizzle}, Buf<float>{out.data(), 1},
                  Buf<float>{&early, 2}, expect};
  return run<TmaKernel>(a, {global("in", 4, 1024), global("out", 4, 1024), global("early", 4, 1)}, 64, 4096);
}

TEST_CASE("TMA: a 32×32 box lands under the 128-byte swizzle, chunk q of row r at chunk q XOR r mod 8") {
  std::vector<float> in, out;
  float early = 0;
  run_tma(128, in, out, early);
  CHECK(early != early);  // read before the phase completed: not landed yet (NaN poison)
  // Row 1, element 0 (global element 32) sits in chunk 0 XOR 1 = 1 of row 1: tile element 36.
  CHECK(out[36] == 32.0f);
  CHECK(out[32] == 36.0f);
  // Row 5, element 9 (chunk 2, word 1): chunk 2 XOR 5 = 7, so tile element 5·32 + 7·4 + 1.
  CHECK(out[5 * 32 + 29] == float(5 * 32 + 9));
  // Row 8 starts the pattern again: chunk q stays q.
  CHECK(out[8 * 32 + 4] == float(8 * 32 + 4));
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) {
      const int o = r * 128 + 4 * c, s = o ^ (((o >> 7) & 7) << 4);
      CHECK(out[size_t(s / 4)] == in[size_t(r * 32 + c)]);
    }
  run_tma(0, in, out, early);  // no swizzle: the tile is the box as it lies in memory
  CHECK(out == in);
}

TEST_CASE("TMA: one box is 8 read records of 32 pieces at issue and 8 write records at the wait, paired") {
  std::vector<float> in, out;
  float early = 0;
  const trace::Trace t = run_tma(128, in, out, early);
  const trace::Site* rd = site_of(t, trace::Form::BulkRead);
  const trace::Site* wr = site_of(t, trace::Form::BulkWrite);
  REQUIRE(rd);
  REQUIRE(wr);
  CHECK(rd->bytes == 16);
  CHECK(rd->partner == uint32_t(wr - t.sites.data()));
  std::vector<const trace::Record*> reads, writes;
  for (const auto& r : t.records) {
    if (t.sites[r.site].form == trace::Form::BulkRead) reads.push_back(&r);
    if (t.sites[r.site].form == trace::Form::BulkWrite) writes.push_back(&r);
  }
  REQUIRE(reads.size() == 8);
  REQUIRE(writes.size() == 8);
  // Record k holds pieces 32k .. 32k+31: rows 4k .. 4k+3, read whole (lane l: byte 512k + 16l).
  for (int k = 0; k < 8; ++k) {
    CHECK(reads[size_t(k)]->active == ~0u);
    CHECK(reads[size_t(k)]->warp == 0);
    CHECK(writes[size_t(k)]->warp == 0);
    for (int l = 0; l < 32; ++l) {
      CHECK(reads[size_t(k)]->offset[size_t(l)] == uint32_t(512 * k + 16 * l));
      const uint32_t o = uint32_t(512 * k + 16 * l);
      CHECK(writes[size_t(k)]->offset[size_t(l)] == (o ^ (((o >> 7) & 7u) << 4)));
    }
  }
  // The reads come before the warp's wait, the writes after it: every read's seq is lower.
  CHECK(reads.back()->seq < writes.front()->seq);
}

TEST_CASE("TMA: a wait for a phase nothing completes is refused as a deadlock in one line") {
  std::vector<float> in, out;
  float early = 0;
  // Two boxes' bytes expected, one box brought: phase 0 never completes.
  CHECK_THROWS_WITH_AS(run_tma(128, in, out, early, 8192),
                       doctest::Contains("an mbarrier wait that never returns: 64 threads of block 0,0"),
                       emu::KernelError);
}
