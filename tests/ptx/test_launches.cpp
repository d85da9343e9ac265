// A program's many launches on the emulated device: each kernel's first few recorded, the
// rest run unrecorded on several workers with the same results, atomics and faults as on
// one, and the record cap counted per launch.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "trace/wstrace.h"
#include "past_cap_run.h"

using namespace ws;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream f("tests/ptx/fixtures/" + name, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), "missing fixture " << name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

template <class... T>
std::vector<uint8_t> pack(const ptx::Kernel& k, T... args) {
  std::vector<uint8_t> p(k.param_bytes, 0);
  const std::vector<uint64_t> vals{uint64_t(args)...};
  REQUIRE(vals.size() == k.params.size());
  for (size_t i = 0; i < vals.size(); ++i) std::memcpy(p.data() + k.params[i].offset, &vals[i], k.params[i].bytes);
  return p;
}

// The reduction fixture over n values i % 7 - 3 on `threads` workers, every launch after the
// first unrecorded: the total of `launches` launches into one counter (an atomic per block).
// `fresh`: the input written again before each launch, turned by one value (other bytes, the
// same total), so that each runs.
long long reduce_total(uint32_t workers, int n, int launches, trace::Trace& t, bool fresh = true) {
  ptx::Device dev;
  dev.load(ptx::parse(fixture("reduce.ptx")));
  dev.record_launches(1);
  dev.threads(workers);
  std::vector<int> h(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) h[size_t(i)] = i % 7 - 3;
  const uint64_t din = dev.malloc(uint64_t(n) * 4, "d_in"), dtot = dev.malloc(4, "d_total");
  REQUIRE(dev.to_device(din, h.data(), uint64_t(n) * 4));
  const ptx::Kernel& k = dev.module().kernels.at(0);
  trace::Builder bld(t);
  const uint32_t threads = 128, blocks = uint32_t((n + threads * 2 - 1) / (threads * 2));
  for (int i = 0; i < launches; ++i) {
    if (fresh) {
      std::rotate(h.begin(), h.begin() + 1, h.end());
      REQUIRE(dev.to_device(din, h.data(), uint64_t(n) * 4));
    }
    dev.launch({k.name, {blocks, 1, 1}, {threads, 1, 1}, threads * 4, pack(k, din, dtot, n)}, bld);
  }
  int got = 0;
  REQUIRE(dev.to_host(&got, dtot, 4));
  return got;
}

// The vector-add fixture loaded, its first `recorded` launches recorded, and its inputs
// for n = 1000 on the host: a = 0, 1, 2, ..., b = 2a, c all -1.
struct VectorAdd {
  static constexpr int n = 1000;
  ptx::Device dev;
  std::vector<float> a = std::vector<float>(n), b = std::vector<float>(n), c = std::vector<float>(n, -1);
  explicit VectorAdd(uint32_t recorded) {
    dev.load(ptx::parse(fixture("vector_add.ptx")));
    dev.record_launches(recorded);
    std::iota(a.begin(), a.end(), 0.0f);
    for (int i = 0; i < n; ++i) b[size_t(i)] = 2.0f * float(i);
  }
};

}  // namespace

TEST_CASE("a kernel's launches after its first few run unrecorded: listed with their figures, results exact") {
  VectorAdd v(2);
  ptx::Device& dev = v.dev;
  const int n = VectorAdd::n;
  std::vector<float>& a = v.a;
  std::vector<float>& b = v.b;
  std::vector<float>& c = v.c;
  const uint64_t da = dev.malloc(n * 4, "d_a"), db = dev.malloc(n * 4, "d_b"), dc = dev.malloc(n * 4, "d_c");
  REQUIRE(dev.to_device(da, a.data(), n * 4));
  REQUIRE(dev.to_device(db, b.data(), n * 4));
  const ptx::Kernel& k = dev.module().kernels.at(0);
  trace::Trace t;
  trace::Builder bld(t);
  for (int i = 0; i < 4; ++i) {
    dev.memset(dc, 0, n * 4);
    CHECK(dev.launch({k.name, {4, 1, 1}, {256, 1, 1}, 0, pack(k, da, db, dc, n)}, bld) == 3 * n);
    REQUIRE(dev.to_host(c.data(), dc, n * 4));
    for (int j = 0; j < n; ++j) REQUIRE(c[size_t(j)] == 3.0f * float(j));
  }
  REQUIRE(t.launches.size() == 4);
  // 1000 threads in warps of 32: 32 warps (the last with 8 lanes), three accesses each.
  const size_t per_launch = 32 * 3;
  CHECK(t.records.size() == 2 * per_launch);
  for (size_t i = 0; i < 4; ++i) {
    const trace::Launch& l = t.launches[i];
    CHECK(l.recorded == (i < 2));
    CHECK(l.blocks.size() == (i < 2 ? 4u : 0u));
    CHECK(l.lane_accesses == 3u * n);
    CHECK(l.grid.x == 4);
    CHECK(l.block.x == 256);
  }
  for (const trace::Record& r : t.records) CHECK(r.launch < 2);
  // What the trace file keeps of it, and a file without the field reads as recorded.
  const std::string path = (std::filesystem::temp_directory_path() / "ws_test_unrecorded.wstrace").string();
  trace::write_trace(t, path);
  const trace::Trace back = trace::read_trace(path);
  std::filesystem::remove(path);
  REQUIRE(back.launches.size() == 4);
  CHECK(back.launches[1].recorded);
  CHECK_FALSE(back.launches[2].recorded);
  CHECK(back.launches[3].lane_accesses == 3u * n);
  CHECK(back.records.size() == t.records.size());
}

TEST_CASE("unrecorded launches on several workers: atomics exact, the trace as on one worker") {
  const int n = 300'000;  // 1172 blocks, one atomicAdd each
  long long want = 0;
  for (int i = 0; i < n; ++i) want += i % 7 - 3;
  trace::Trace one, four;
  CHECK(reduce_total(1, n, 5, one) == 5 * want);
  CHECK(reduce_total(4, n, 5, four) == 5 * want);
  REQUIRE(one.launches.size() == four.launches.size());
  for (auto* t : {&one, &four})
    for (auto& l : t->launches) l.seconds = 0;  // the one figure that may differ
  CHECK(one.launches == four.launches);
  CHECK(one.records == four.records);
  CHECK(one.sites.size() == four.sites.size());
  CHECK(one.buffers.size() == four.buffers.size());
  CHECK(four.launches[4].lane_accesses == four.launches[0].lane_accesses);
}

TEST_CASE("a fault in an unrecorded launch on several workers is the one a single worker meets") {
  auto fault_of = [](uint32_t workers) {
    ptx::Device dev;
    dev.load(ptx::parse(fixture("vector_add.ptx")));
    dev.record_launches(1);
    dev.threads(workers);
    const uint64_t da = dev.malloc(1000 * 4, "d_a"), db = dev.malloc(1000 * 4, "d_b"), dc = dev.malloc(1000 * 4, "d_c");
    const ptx::Kernel& k = dev.module().kernels.at(0);
    trace::Trace t;
    trace::Builder bld(t);
    dev.launch({k.name, {4, 1, 1}, {256, 1, 1}, 0, pack(k, da, db, dc, 1000)}, bld);  // recorded, in bounds
    // 64 blocks of 64 threads over n = 4096, the arrays 1000 long: block 15 is the first past them.
    try {
      dev.launch({k.name, {64, 1, 1}, {64, 1, 1}, 0, pack(k, da, db, dc, 4096)}, bld);
    } catch (const ptx::Fault& f) {
      return std::string(f.what());
    }
    return std::string("no fault");
  };
  const std::string one = fault_of(1);
  CHECK(one.find("out-of-bounds access to 'd_") != std::string::npos);
  CHECK(one.find("(thread 40,0 of block 15,0)") != std::string::npos);
  for (int i = 0; i < 5; ++i) CHECK(fault_of(4) == one);
}

TEST_CASE("the record cap holds per launch: a first launch that fills it leaves the next its own") {
  ptx::Device dev;
  dev.load(ptx::parse(fixture("vector_add.ptx")));
  const int n = 1000;
  const uint64_t da = dev.malloc(n * 4, "d_a"), db = dev.malloc(n * 4, "d_b"), dc = dev.malloc(n * 4, "d_c");
  const ptx::Kernel& k = dev.module().kernels.at(0);
  trace::Trace t;
  trace::Builder bld(t, 40);
  for (int i = 0; i < 2; ++i) dev.launch({k.name, {4, 1, 1}, {256, 1, 1}, 0, pack(k, da, db, dc, n)}, bld);
  REQUIRE(t.launches.size() == 2);
  CHECK(t.records.size() == 80);
  for (uint32_t l = 0; l < 2; ++l) {
    CHECK(t.launches[l].dropped_records == 96 - 40);
    CHECK(std::count_if(t.records.begin(), t.records.end(), [&](const trace::Record& r) { return r.launch == l; }) == 40);
  }
}

TEST_CASE("a launch alike the last on bytes that did not change is not run again; any change runs it") {
  VectorAdd v(1);
  ptx::Device& dev = v.dev;
  const int n = VectorAdd::n;
  std::vector<float>& a = v.a;
  std::vector<float>& b = v.b;
  std::vector<float>& c = v.c;
  const uint64_t da = dev.malloc(n * 4, "d_a"), db = dev.malloc(n * 4, "d_b"), dc = dev.malloc(n * 4, "d_c");
  REQUIRE(dev.to_device(da, a.data(), n * 4));
  REQUIRE(dev.to_device(db, b.data(), n * 4));
  const ptx::Kernel& k = dev.module().kernels.at(0);
  trace::Trace t;
  trace::Builder bld(t);
  auto launch = [&](int count) { return dev.launch({k.name, {4, 1, 1}, {256, 1, 1}, 0, pack(k, da, db, dc, count)}, bld); };
  auto c_is = [&](float scale_a) {
    REQUIRE(dev.to_host(c.data(), dc, n * 4));
    for (int j = 0; j < n; ++j) REQUIRE(c[size_t(j)] == scale_a * float(j) + 2.0f * float(j));
  };
  CHECK(launch(n) == 3 * n);  // 1: recorded
  CHECK(launch(n) == 0);      // 2, 3: c already holds a + b
  CHECK(launch(n) == 0);
  c_is(1);
  // The host writes a: the same launch now computes something else, and runs.
  for (float& x : a) x *= 2;
  REQUIRE(dev.to_device(da, a.data(), n * 4));
  CHECK(launch(n) == 3 * n);  // 4
  c_is(2);
  // The host changes c itself: the outputs are no longer in place.
  REQUIRE(dev.memset(dc, 0, n * 4));
  CHECK(launch(n) == 3 * n);  // 5
  c_is(2);
  CHECK(launch(n - 1) == 3 * (n - 1));  // 6: other parameters
  CHECK(launch(n - 1) == 0);            // 7
  REQUIRE(t.launches.size() == 7);
  const uint32_t same_as[7] = {0, 1, 1, 0, 0, 0, 6};
  for (size_t i = 0; i < 7; ++i) {
    CHECK(t.launches[i].same_as == same_as[i]);
    if (same_as[i]) CHECK_FALSE(t.launches[i].recorded);
  }
  // The file keeps it.
  const std::string path = (std::filesystem::temp_directory_path() / "ws_test_same_as.wstrace").string();
  trace::write_trace(t, path);
  const trace::Trace back = trace::read_trace(path);
  std::filesystem::remove(path);
  REQUIRE(back.launches.size() == 7);
  CHECK(back.launches[1].same_as == 1);
  CHECK(back.launches[6].same_as == 6);
  CHECK(back.launches[3].same_as == 0);
}

TEST_CASE("a launch alike an earlier one of another shape is not run again while its outputs hold what it left there") {
  // A program that checks a kernel in two block sizes and then times each (llm.c's dev/cuda
  // programs: four sizes checked, then each timed): each timed launch finds its check's.
  VectorAdd v(1);
  ptx::Device& dev = v.dev;
  const int n = VectorAdd::n;
  const uint64_t da = dev.malloc(n * 4, "d_a"), db = dev.malloc(n * 4, "d_b"), dc = dev.malloc(n * 4, "d_c");
  REQUIRE(dev.to_device(da, v.a.data(), n * 4));
  REQUIRE(dev.to_device(db, v.b.data(), n * 4));
  const ptx::Kernel& k = dev.module().kernels.at(0);
  trace::Trace t;
  trace::Builder bld(t);
  auto launch = [&](uint32_t threads) {
    return dev.launch({k.name, {(n + threads - 1) / threads, 1, 1}, {threads, 1, 1}, 0, pack(k, da, db, dc, n)}, bld);
  };
  auto c_is = [&](float scale_a) {
    REQUIRE(dev.to_host(v.c.data(), dc, n * 4));
    for (int j = 0; j < n; ++j) REQUIRE(v.c[size_t(j)] == scale_a * float(j) + 2.0f * float(j));
  };
  CHECK(launch(256) == 3 * n);  // 1
  CHECK(launch(128) == 3 * n);  // 2: another shape, the same bytes written over c
  CHECK(launch(256) == 0);      // 3: as 1 (c holds what 1 left there)
  CHECK(launch(128) == 0);      // 4: as 2
  c_is(1);
  // The host clears c: launch 5 runs, and leaves c as 2 left it, so 6 is 2's again.
  REQUIRE(dev.memset(dc, 0, n * 4));
  CHECK(launch(256) == 3 * n);  // 5
  CHECK(launch(128) == 0);      // 6
  c_is(1);
  // One word of c changed: its bytes are not those 5 left.
  const float odd = 99.0f;
  REQUIRE(dev.to_device(dc + 5 * 4, &odd, 4));
  CHECK(launch(256) == 3 * n);  // 7
  c_is(1);
  // An input changed: both shapes run again.
  for (float& x : v.a) x *= 2;
  REQUIRE(dev.to_device(da, v.a.data(), n * 4));
  CHECK(launch(128) == 3 * n);  // 8
  CHECK(launch(256) == 3 * n);  // 9
  c_is(2);
  REQUIRE(t.launches.size() == 9);
  const uint32_t same_as[9] = {0, 0, 1, 2, 0, 2, 0, 0, 0};
  for (size_t i = 0; i < 9; ++i) {
    INFO("launch " << i + 1);
    CHECK(t.launches[i].same_as == same_as[i]);
  }
}

TEST_CASE("inputs copied again unchanged, and host memory as the last launch left it, let a launch alike it be counted") {
  VectorAdd v(1);
  ptx::Device& dev = v.dev;
  const int n = VectorAdd::n;
  std::vector<float>& a = v.a;
  std::vector<float>& b = v.b;
  std::vector<float>& c = v.c;
  // a and c are the host's own memory (page-locked or managed), b the device's.
  REQUIRE(dev.adopt(a.data(), n * 4, "h_a") != 0);
  REQUIRE(dev.adopt(c.data(), n * 4, "h_c") != 0);
  const uint64_t ha = uint64_t(reinterpret_cast<uintptr_t>(a.data())), hc = uint64_t(reinterpret_cast<uintptr_t>(c.data()));
  const uint64_t db = dev.malloc(n * 4, "d_b");
  REQUIRE(dev.to_device(db, b.data(), n * 4));
  const ptx::Kernel& k = dev.module().kernels.at(0);
  trace::Trace t;
  trace::Builder bld(t);
  auto launch = [&] { return dev.launch({k.name, {4, 1, 1}, {256, 1, 1}, 0, pack(k, ha, db, hc, n)}, bld); };
  CHECK(launch() == 3 * n);  // 1
  CHECK(c[7] == 21.0f);
  CHECK(launch() == 0);      // 2: nothing changed
  REQUIRE(dev.to_device(db, b.data(), n * 4));  // the same bytes copied again
  CHECK(launch() == 0);      // 3
  a[5] = 100;                // the host writes its input
  CHECK(launch() == 3 * n);  // 4
  CHECK(c[5] == 110.0f);
  c[9] = -1;                 // the host writes the output in place
  CHECK(launch() == 3 * n);  // 5
  CHECK(c[9] == 27.0f);
  b[3] = 0;                  // other bytes copied to the device
  REQUIRE(dev.to_device(db, b.data(), n * 4));
  CHECK(launch() == 3 * n);  // 6
  CHECK(c[3] == 3.0f);
  CHECK(launch() == 0);      // 7
  REQUIRE(t.launches.size() == 7);
  const uint32_t same_as[7] = {0, 1, 1, 0, 0, 0, 6};
  for (size_t i = 0; i < 7; ++i) CHECK(t.launches[i].same_as == same_as[i]);
}

TEST_CASE("a launch that reads what it writes is skipped once a launch alike it left those bytes as it found them") {
  // rewrite: c = a + beta * c. With beta 0 the first launch writes a into c, the second
  // reads c and writes the same bytes back: a fixed point, so the third on is not run.
  // With beta 1 every launch adds a again: each one runs.
  ptx::Device dev;
  dev.load(ptx::parse(fixture("rewrite.ptx")));
  dev.record_launches(1);
  const int n = 1000;
  std::vector<float> a(n), c(n, -1);
  std::iota(a.begin(), a.end(), 1.0f);
  const uint64_t da = dev.malloc(n * 4, "d_a"), dc = dev.malloc(n * 4, "d_c");
  REQUIRE(dev.to_device(da, a.data(), n * 4));
  REQUIRE(dev.to_device(dc, c.data(), n * 4));
  const ptx::Kernel& k = dev.module().kernels.at(0);
  trace::Trace t;
  trace::Builder bld(t);
  auto launch = [&](float beta) {
    return dev.launch({k.name, {4, 1, 1}, {256, 1, 1}, 0, pack(k, da, dc, std::bit_cast<uint32_t>(beta), n)}, bld);
  };
  auto c_is = [&](float times) {
    REQUIRE(dev.to_host(c.data(), dc, n * 4));
    for (int j = 0; j < n; ++j) REQUIRE(c[size_t(j)] == times * a[size_t(j)]);
  };
  CHECK(launch(0) == 3 * n);  // 1: c = a
  CHECK(launch(0) == 3 * n);  // 2: reads c, leaves it as it was
  CHECK(launch(0) == 0);      // 3, 4: as launch 2
  CHECK(launch(0) == 0);
  c_is(1);
  CHECK(launch(1) == 3 * n);  // 5, 6, 7: c += a each time
  CHECK(launch(1) == 3 * n);
  CHECK(launch(1) == 3 * n);
  c_is(4);
  // The host writes c between two launches alike: the next one runs.
  CHECK(launch(0) == 3 * n);  // 8: c = a
  CHECK(launch(0) == 3 * n);  // 9: the fixed point
  REQUIRE(dev.memset(dc, 0, n * 4));
  CHECK(launch(0) == 3 * n);  // 10
  c_is(1);
  CHECK(launch(0) == 3 * n);  // 11: c was changed by launch 10, so it must be seen again
  CHECK(launch(0) == 0);      // 12
  REQUIRE(t.launches.size() == 12);
  const uint32_t same_as[12] = {0, 0, 2, 2, 0, 0, 0, 0, 0, 0, 0, 11};
  for (size_t i = 0; i < 12; ++i) CHECK(t.launches[i].same_as == same_as[i]);
  // A launch that touches a few words of a large array is not worth a copy of it (more
  // than 16 bytes for each of its lane accesses): it runs every time.
  const uint64_t big = dev.malloc(1 << 20, "d_big");
  for (int i = 0; i < 3; ++i)
    CHECK(dev.launch({k.name, {1, 1, 1}, {32, 1, 1}, 0, pack(k, da, big, std::bit_cast<uint32_t>(0.0f), 1)}, bld) == 3);
  for (size_t i = 12; i < 15; ++i) CHECK(t.launches[i].same_as == 0);
}

TEST_CASE("a launch recorded because every launch is always runs; one that only adds into its total is skipped, its adds still counted") {
  trace::Trace t;
  CHECK(reduce_total(1, 1000, 3, t, false) == 3 * ([] {
          long long s = 0;
          for (int i = 0; i < 1000; ++i) s += i % 7 - 3;
          return s;
        }()));
  REQUIRE(t.launches.size() == 3);
  CHECK(t.launches[1].same_as == 1);
  CHECK(t.launches[2].same_as == 1);

  ptx::Device dev;
  dev.load(ptx::parse(fixture("vector_add.ptx")));
  dev.record_launches(0);
  const int n = 64;
  const uint64_t da = dev.malloc(n * 4, "d_a"), db = dev.malloc(n * 4, "d_b"), dc = dev.malloc(n * 4, "d_c");
  const ptx::Kernel& k = dev.module().kernels.at(0);
  trace::Trace t2;
  trace::Builder bld(t2);
  for (int i = 0; i < 3; ++i) CHECK(dev.launch({k.name, {1, 1, 1}, {64, 1, 1}, 0, pack(k, da, db, dc, n)}, bld) == 3 * n);
  for (const trace::Launch& l : t2.launches) CHECK((l.recorded && l.same_as == 0));
}

TEST_CASE("a recorded launch past its record cap runs on every core and makes the trace one core makes, sites met first late included") {
  const test::PastCap one = test::run_past_cap("late_races", 1);
  for (uint32_t workers : {2u, 3u, 8u}) {
    INFO(workers << " workers");
    const test::PastCap many = test::run_past_cap("late_races", workers);
    CHECK(many.t == one.t);  // records, sites, arrays, blocks and the records dropped
    CHECK(many.t.launches.at(0).dropped_records == one.t.launches.at(0).dropped_records);
    // The lines only blocks 37 and 50 run, met first past the cap on a worker: their sites
    // made at the merge, where one core makes them.
    int late = 0;
    for (const trace::Site& s : many.t.sites) late += s.line == 20 || s.line == 21 || s.line == 30 || s.line == 31;
    CHECK(late == 4);
    REQUIRE(many.races.size() == one.races.size());
    for (size_t i = 0; i < one.races.size(); ++i) {
      CHECK(many.races[i].block == one.races[i].block);
      CHECK(many.races[i].first.line == one.races[i].first.line);
      CHECK(many.races[i].second.line == one.races[i].second.line);
      CHECK(many.races[i].second.thread == one.races[i].second.thread);
      CHECK(many.races[i].offset == one.races[i].offset);
    }
  }
  // Block 37's race and block 50's, in that order, though found past the cap.
  REQUIRE(one.races.size() == 2);
  CHECK(one.races[0].block == 37);
  CHECK(one.races[0].second.line == 21);
  CHECK(one.races[1].block == 50);
  CHECK(one.races[1].second.line == 31);
  CHECK(one.t.launches.at(0).dropped_records > 0);
  CHECK(one.t.launches.at(0).blocks.size() == 64);
  // Block 0's shared accesses are the race check's reference: every block but 37 and 50
  // repeats them, and theirs differ only after the accesses they share with it, which are
  // checked then, in order (the races above prove it: each is found at its second line).
  CHECK(one.repeated == 64 - 1 - 2);

  // A fault in a late block: the same line, the blocks before it and it, on any number.
  const test::PastCap f1 = test::run_past_cap("late_fault", 1), f4 = test::run_past_cap("late_fault", 4);
  CHECK(f1.fault.find("out-of-bounds") != std::string::npos);
  CHECK(f4.fault == f1.fault);
  CHECK(f4.t == f1.t);
  CHECK(f1.t.launches.at(0).blocks.size() == 61);

  // A kernel that asserts runs past the cap on every worker too: the first failure (block
  // 61's thread 9) is the fault on any number of them, after the same blocks.
  const test::PastCap a1 = test::run_past_cap("late_assert", 1), a4 = test::run_past_cap("late_assert", 4);
  CHECK(a1.fault.find("block [61,0,0], thread [9,0,0] Assertion `blockIdx.x != 61 || threadIdx.x != 9` failed") !=
        std::string::npos);
  CHECK(a4.fault == a1.fault);
  CHECK(a4.t == a1.t);
  CHECK(a1.t.launches.at(0).blocks.size() == 62);
}

// A recorded launch on several workers against the same on one: the trace (records, sites,
// arrays, blocks in order, the records dropped), the fault and its record, the races.
static void same_as_one_core(const test::PastCap& one, const test::PastCap& many) {
  CHECK(many.t == one.t);
  CHECK(many.t.launches.at(0).blocks == one.t.launches.at(0).blocks);
  CHECK(many.fault == one.fault);
  CHECK(many.fault_record == one.fault_record);
  REQUIRE(many.races.size() == one.races.size());
  for (size_t i = 0; i < one.races.size(); ++i) {
    CHECK(many.races[i].block == one.races[i].block);
    CHECK(many.races[i].second.line == one.races[i].second.line);
    CHECK(many.races[i].second.thread == one.races[i].second.thread);
  }
}

TEST_CASE("a recorded launch under its record cap runs on every core and makes the trace one core makes") {
  // Caps that keep every record, and two that the parallel blocks reach (block 0 makes 4; a
  // cap of 10 leaves room for a few blocks, so workers ahead wait for the commits).
  for (uint64_t cap : {uint64_t(1) << 20, uint64_t(100), uint64_t(10)}) {
    INFO("cap " << cap);
    for (const char* name : {"late_races", "late_fault", "late_assert", "late_array"}) {
      INFO(name);
      const test::PastCap one = test::run_past_cap(name, 1, "", cap);
      CHECK(one.t.records.size() == std::min<size_t>(cap, one.t.records.size() + one.t.launches.at(0).dropped_records));
      CHECK((one.t.launches.at(0).dropped_records > 0) == (cap < 1000));
      for (uint32_t workers : {2u, 3u, 8u}) {
        INFO(workers << " workers");
        const test::PastCap many = test::run_past_cap(name, workers, "", cap);
        same_as_one_core(one, many);
      }
    }
  }
  // late_fault's request is kept where the cap leaves room: block 60's store, the last record.
  const test::PastCap f = test::run_past_cap("late_fault", 4, "", uint64_t(1) << 20);
  REQUIRE(f.fault_record >= 0);
  CHECK(f.t.records.at(size_t(f.fault_record)).block == 60);
  CHECK(size_t(f.fault_record) == f.t.records.size() - 1);
  // late_array's second array, first met by block 40 on a worker, is the trace's second
  // array, named in block 40's record (its lanes split between the two arrays).
  const test::PastCap arr = test::run_past_cap("late_array", 4, "", uint64_t(1) << 20);
  REQUIRE(arr.t.buffers.size() == 2);
  CHECK(arr.t.buffers[1].name == "d_other");
  bool split = false;
  for (const trace::Record& r : arr.t.records)
    if (r.block == 40 && r.lanes) split = r.buffer_of(0) == 0 && r.buffer_of(16) == 1;
  CHECK(split);
}

TEST_CASE("blocks taken several at a time by each worker make the trace one core makes, under and past the cap") {
  // A worker takes a run of blocks and commits them as one piece (small blocks); the runs'
  // ends fall anywhere: across the cap (block 0 makes 4 records), across the late sites,
  // races, array, fault and assert of blocks 37, 40, 50, 60 and 61.
  for (uint64_t cap : {uint64_t(1) << 20, uint64_t(100), uint64_t(10), uint64_t(4)}) {
    INFO("cap " << cap);
    for (const char* name : {"late_races", "late_fault", "late_assert", "late_array"}) {
      INFO(name);
      const test::PastCap one = test::run_past_cap(name, 1, "", cap);
      for (uint32_t runs : {2u, 5u, 16u}) {
        for (uint32_t workers : {2u, 3u}) {
          INFO(workers << " workers, runs of " << runs);
          const test::PastCap many = test::run_past_cap(name, workers, "", cap, runs);
          same_as_one_core(one, many);
        }
      }
    }
  }
}

TEST_CASE("a kernel that asserts is deterministic: a launch alike the last, its assert passing, is not run again") {
  ptx::Device dev;
  dev.load(ptx::parse(fixture("past_cap.ptx"), "past_cap.ptx"));
  dev.record_launches(1);
  const uint64_t out = dev.malloc(64 * 4, "d_out");
  const ptx::Kernel& k = *dev.module().kernel("late_assert");
  trace::Trace t;
  trace::Builder b(t);
  for (int i = 0; i < 3; ++i) dev.launch({k.name, {32, 1, 1}, {64, 1, 1}, 0, pack(k, out)}, b);  // no block 61
  REQUIRE(t.launches.size() == 3);
  CHECK(t.launches[1].same_as == 1);
  CHECK(t.launches[2].same_as == 1);
}

namespace {

// tests/ptx/fixtures/reductions.cu on one device: scatter_add adds in[i] into out[i % m]
// and 1 into hits[i % m] (atomics whose old values nothing reads), twice doubles out in
// place, ticket hands each thread the counter's old value. `lazy`: launches alike the last
// on unchanged inputs are skipped (their reductions kept for later), else every launch is
// recorded and runs. One worker: the float sums are added in one order on both.
// add_then_double adds in's values in the other order in all blocks but its last, which doubles out.
struct Reductions {
  static constexpr int n = 5000, m = 37;
  ptx::Device dev;
  trace::Trace t;
  trace::Builder b{t};
  uint64_t out = 0, hits = 0, in = 0;
  explicit Reductions(bool lazy) {
    dev.load(ptx::parse(fixture("reductions.ptx")));
    dev.record_launches(lazy ? 1 : 0);
    dev.threads(1);
    out = dev.malloc(m * 4, "d_out"), hits = dev.malloc(m * 4, "d_hits"), in = dev.malloc(n * 4, "d_in");
    std::vector<float> v(n);
    // Magnitudes far apart, so that a sum in another order rounds otherwise.
    for (int i = 0; i < n; ++i) v[size_t(i)] = (i % 3 ? 1.0f : 3.0e7f) + float(i) * 0.37f;
    REQUIRE(dev.to_device(in, v.data(), n * 4));
    REQUIRE(dev.memset(out, 0, m * 4));
    REQUIRE(dev.memset(hits, 0, m * 4));
  }
  const ptx::Kernel& kernel(const char* name) {
    for (const ptx::Kernel& k : dev.module().kernels)
      if (k.name.find(name) != std::string::npos) return k;
    FAIL("no kernel " << name);
    return dev.module().kernels.at(0);
  }
  uint64_t scatter() {
    const ptx::Kernel& k = kernel("scatter_add");
    return dev.launch({k.name, {(n + 127) / 128, 1, 1}, {128, 1, 1}, 0, pack(k, out, hits, in, n, m)}, b);
  }
  void add_then_double() {
    const ptx::Kernel& k = kernel("add_then_double");
    dev.launch({k.name, {(n + 127) / 128 + 1, 1, 1}, {128, 1, 1}, 0, pack(k, out, in, n, m)}, b);
  }
  void twice() {
    const ptx::Kernel& k = kernel("twice");
    dev.launch({k.name, {1, 1, 1}, {64, 1, 1}, 0, pack(k, out, m)}, b);
  }
  std::vector<uint32_t> bytes(uint64_t at) {
    std::vector<uint32_t> v(m);
    REQUIRE(dev.to_host(v.data(), at, m * 4));
    return v;
  }
};

}  // namespace

TEST_CASE("a launch that only reduces into its output is skipped; its reductions are applied, in order, once anything reads it") {
  Reductions lazy(true), every(false);
  auto both = [&](auto&& f) { f(lazy), f(every); };
  auto same = [&] {
    CHECK(lazy.bytes(lazy.out) == every.bytes(every.out));  // bit for bit: the same adds in the same order
    CHECK(lazy.bytes(lazy.hits) == every.bytes(every.hits));
  };
  for (int i = 0; i < 5; ++i) both([](Reductions& r) { r.scatter(); });
  CHECK(lazy.t.launches.size() == 5);
  for (int i = 1; i < 5; ++i) CHECK(lazy.t.launches[size_t(i)].same_as == 1);
  CHECK(lazy.t.launches[1].reductions_due);
  const std::string path = (std::filesystem::temp_directory_path() / "ws_test_reductions_due.wstrace").string();
  trace::write_trace(lazy.t, path);
  CHECK(trace::read_trace(path).launches.at(1).reductions_due);
  std::filesystem::remove(path);
  same();  // read by the host: applied
  CHECK(lazy.bytes(lazy.hits)[0] == 5 * ((Reductions::n + Reductions::m - 1) / Reductions::m));

  // A kernel that reads out while adds are due: they are applied before it reads.
  for (int i = 0; i < 3; ++i) both([](Reductions& r) { r.scatter(); });
  both([](Reductions& r) { r.twice(); });
  for (int i = 0; i < 2; ++i) both([](Reductions& r) { r.scatter(); });
  same();

  // A launch that adds into out while adds are due, then reads it: the due ones are
  // applied first, then its own so far, then it reads.
  for (int i = 0; i < 3; ++i) both([](Reductions& r) { r.scatter(); });
  both([](Reductions& r) { r.add_then_double(); });
  same();

  // A launch that runs (new inputs) while adds are due: its own adds come after them.
  for (int i = 0; i < 3; ++i) both([](Reductions& r) { r.scatter(); });
  both([](Reductions& r) {
    const float one = 1.0f;
    REQUIRE(r.dev.to_device(r.in + 8, &one, 4));
  });
  CHECK(lazy.scatter() > 0);
  every.scatter();
  for (int i = 0; i < 2; ++i) both([](Reductions& r) { r.scatter(); });
  same();

  // Written whole by the host: what was due is dropped; written in part: applied first.
  for (int i = 0; i < 4; ++i) both([](Reductions& r) { r.scatter(); });
  both([](Reductions& r) { REQUIRE(r.dev.memset(r.out, 0, Reductions::m * 4)); });
  for (int i = 0; i < 2; ++i) both([](Reductions& r) { r.scatter(); });
  both([](Reductions& r) {
    const float x = 5.0f;
    REQUIRE(r.dev.to_device(r.out + 4, &x, 4));
  });
  same();
  both([](Reductions& r) {
    r.scatter();
    r.scatter();
    std::vector<uint32_t> copy(Reductions::m);
    const uint64_t to = r.dev.malloc(Reductions::m * 4, "d_copy");
    REQUIRE(r.dev.device_to_device(to, r.out, Reductions::m * 4));  // the source applied first
    REQUIRE(r.dev.to_host(copy.data(), to, Reductions::m * 4));
    CHECK(copy == r.bytes(r.out));
  });
  same();
  // Freed with adds due: nothing left to apply.
  for (int i = 0; i < 3; ++i) both([](Reductions& r) { r.scatter(); });
  both([](Reductions& r) { CHECK(r.dev.free(r.out)); });
  CHECK(lazy.bytes(lazy.hits) == every.bytes(every.hits));
}

TEST_CASE("an atomic whose old value the kernel reads runs at every launch") {
  Reductions r(true);
  const ptx::Kernel& k = r.kernel("ticket");
  const uint64_t next = r.dev.malloc(4, "d_next"), got = r.dev.malloc(256 * 4, "d_got");
  REQUIRE(r.dev.memset(next, 0, 4));
  for (int i = 0; i < 3; ++i) CHECK(r.dev.launch({k.name, {2, 1, 1}, {128, 1, 1}, 0, pack(k, next, got, 256)}, r.b) > 0);
  uint32_t total = 0;
  REQUIRE(r.dev.to_host(&total, next, 4));
  CHECK(total == 3 * 256);
  for (const trace::Launch& l : r.t.launches) CHECK(l.same_as == 0);
}
