// The access layer on its own: what a wrapper hands its sink for each lane access, what a
// site key holds, and how keys become a trace's sites. The emulator and the GPU contexts
// are sinks over these same wrappers.
#include <doctest/doctest.h>

#include <vector>

#include "trace/access.h"
#include "trace/builder.h"
#include "trace/trace.h"

using namespace ws::trace;

namespace {

struct Access {
  uint32_t key, off;
  bool store;
};

// Records every access; refuses nothing, and remembers a fault instead of stopping.
struct TestSink {
  std::vector<Access>* log;
  std::vector<int64_t>* faults;
  void load(uint32_t key, uint32_t off) const { log->push_back({key, off, false}); }
  bool store(uint32_t key, uint32_t off) const {
    log->push_back({key == kNoKey ? key : store_key(key), off, true});
    return key != kNoKey;
  }
  void fault(uint32_t, uint32_t, int64_t off, uint64_t) const { faults->push_back(off); }
};

}  // namespace

TEST_CASE("site keys: line, buffer, op and width, and back") {
  const uint32_t k = make_key(123, 5, uint32_t(Op::Load), 16);
  CHECK(k == (123u | 5u << 16 | 4u << 26));
  CHECK(key_line(k) == 123);
  CHECK(key_buffer(k) == 5);
  CHECK(key_op(k) == uint32_t(Op::Load));
  CHECK(key_bytes(k) == 16);
  CHECK(key_op(store_key(k)) == uint32_t(Op::Store));
  CHECK(key_line(store_key(k)) == 123);
  for (uint32_t b : {1u, 2u, 4u, 8u, 16u}) CHECK(key_bytes(make_key(1, 0, 0, b)) == b);
  Site s;
  s.line = 7;
  s.buffer = 2;
  s.op = Op::Store;
  s.bytes = 8;
  CHECK(key_of(s) == store_key(make_key(7, 2, 0, 8)));
}

TEST_CASE("wrappers: each lane access reaches the sink with its line, array and offset") {
  std::vector<Access> log;
  std::vector<int64_t> faults;
  TestSink sink{&log, &faults};
  float data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  Ptr<TestSink, float> a(data, reinterpret_cast<const char*>(data), sizeof data, 3, sink);

  const uint32_t line = __LINE__ + 1;
  float x = a[5];
  CHECK(x == 5);
  a[2] = 9.f;
  CHECK(data[2] == 9);
  REQUIRE(log.size() == 2);
  CHECK(log[0].key == make_key(line, 3, uint32_t(Op::Load), 4));
  CHECK(log[0].off == 20);
  CHECK(!log[0].store);
  CHECK(key_line(log[1].key) == line + 2);
  CHECK(key_op(log[1].key) == uint32_t(Op::Store));
  CHECK(log[1].off == 8);

  log.clear();
  a[1] += 1.f;  // a read, then a write
  REQUIRE(log.size() == 2);
  CHECK(!log[0].store);
  CHECK(log[1].store);
  CHECK(data[1] == 2);

  log.clear();
  Ptr<TestSink, float> b = a + 4;  // offsets stay from the array's start
  b[1] = a[0];
  REQUIRE(log.size() == 2);
  CHECK(log[0].off == 0);
  CHECK(log[1].off == 20);
  CHECK(data[5] == 0);
}

TEST_CASE("wrappers: an out-of-bounds access is reported, then refused") {
  std::vector<Access> log;
  std::vector<int64_t> faults;
  TestSink sink{&log, &faults};
  float data[4] = {1, 2, 3, 4};
  Ptr<TestSink, float> a(data, reinterpret_cast<const char*>(data), sizeof data, 0, sink);
  a[4] = 7.f;  // one past the end
  float y = a[-1];
  REQUIRE(faults.size() == 2);
  CHECK(faults[0] == 16);
  CHECK(faults[1] == -4);
  REQUIRE(log.size() == 2);
  CHECK(log[0].key == kNoKey);
  CHECK(log[1].key == kNoKey);
  CHECK(y == 1);  // the array's first element, read instead
  CHECK(data[0] == 1);  // the store never made
}

TEST_CASE("wrappers: shared views, and the same array read 16 bytes a lane") {
  std::vector<Access> log;
  std::vector<int64_t> faults;
  TestSink sink{&log, &faults};
  alignas(16) float tile[4][8] = {};
  using SV = SharedView<TestSink, float[4][8]>;
  static_assert(SV::rows == 4 && SV::cols == 8 && SV::bytes == sizeof tile);
  auto t = SV::make(&tile[0][0], 6, sink);
  t[2][3] = 1.f;
  CHECK(tile[2][3] == 1);
  REQUIRE(log.size() == 1);
  CHECK(log[0].off == (2 * 8 + 3) * 4);
  CHECK(key_buffer(log[0].key) == 6);

  struct alignas(16) Quad {
    float x, y, z, w;
  };
  log.clear();
  Quad q = t.as<Quad>()[2][0];  // tile[2][0 .. 3]
  CHECK(q.w == 1);
  REQUIRE(log.size() == 1);
  CHECK(log[0].off == 2 * 8 * 4);
  CHECK(key_bytes(log[0].key) == 16);

  float row[5] = {};
  using SV1 = SharedView<TestSink, float[5]>;
  static_assert(SV1::rows == 1 && SV1::cols == 5 && SV1::bytes == sizeof row);
  auto r = SV1::make(row, 7, sink);
  r[4] = 2.f;
  r[5] = 3.f;  // out of bounds: reported, refused
  CHECK(row[4] == 2);
  CHECK(faults.size() == 1);
}

TEST_CASE("catalog keys become sites in order of first sight, with their line and column") {
  Trace t;
  t.files = {{"k.h", "first\n  out[i] = tile[i];\nthird\n"}};
  t.buffers = {Buffer{.name = "in"}, Buffer{.name = "out"}, shared_buffer("tile", 4, 2, 3, 24)};
  CHECK(t.buffers[2].space == Space::Shared);
  CHECK(t.buffers[2].size_bytes == 24);
  Site known;
  known.line = 1;
  known.column = 1;
  known.buffer = 0;
  known.code = "first";
  t.sites.push_back(known);
  Builder b(t);
  CHECK(b.key_site(key_of(known)).site == 0);
  const uint32_t k = store_key(make_key(2, 2, 0, 4));
  CHECK(b.key_site(k).site == 1);
  CHECK(b.key_site(k).buffer == 2);
  CHECK(b.key_site(make_key(3, 0, 0, 8)).site == 2);
  CHECK(b.key_site(make_key(2, 1, 1, 4)).site == 3);
  CHECK(b.key_site(k).site == 1);
  REQUIRE(t.sites.size() == 4);
  CHECK(t.sites[1].code == "out[i] = tile[i];");
  CHECK(t.sites[1].space == Space::Shared);
  CHECK(t.sites[1].op == Op::Store);
  CHECK(t.sites[1].buffer == 2);
  CHECK(t.sites[1].column == 12);  // where `tile[` starts
  CHECK(t.sites[3].column == 3);   // `out[`
  CHECK(t.sites[2].bytes == 8);
  CHECK(t.sites[2].space == Space::Global);
  CHECK(t.sites[2].column == 1);  // `in` is not indexed on "third": the line's first character
}
