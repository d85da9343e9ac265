// The compiling engine's cache: a module compiled once is found again by its code, whatever
// its PTX file is called (a program's PTX lies in a folder of its own each run), and loaded
// at once; a module the compiler cannot build runs on the interpreter, said in one line; a
// block's accesses through one register, settled once, move what the interpreter moves.
#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "ptx/arith.h"
#include "ptx/compiled.h"
#include "ptx/engine.h"
#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "past_cap_run.h"

using namespace ws;

namespace {

std::string past_cap_ptx() {
  std::ifstream f("tests/ptx/fixtures/past_cap.ptx", std::ios::binary);
  REQUIRE(f.good());
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// past_cap.ptx's second kernel on `dev`, 2 blocks of 32 threads over a 256-byte d_out, into
// `t`: the bytes it wrote.
std::vector<uint8_t> run_second_kernel(ptx::Device& dev, trace::Trace& t) {
  dev.load(ptx::parse(past_cap_ptx(), "past_cap.ptx"));
  const uint64_t out = dev.malloc(256, "d_out");
  std::vector<uint8_t> params(8);
  std::memcpy(params.data(), &out, 8);
  trace::Builder b(t);
  dev.launch({dev.module().kernels.at(1).name, {2, 1, 1}, {32, 1, 1}, 0, params}, b);
  std::vector<uint8_t> bytes(256);
  REQUIRE(dev.to_host(bytes.data(), out, 256));
  return bytes;
}

std::string fresh_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d.string();
}

}  // namespace

TEST_CASE("a module is compiled once and found again by its code, under any file name") {
  ptx::EngineOptions o;
  o.cache_dir = fresh_dir("ws-engine-cache");
  const ptx::Module a = ptx::parse(past_cap_ptx(), "/tmp/run-1/prog.ptx");
  const ptx::Module b = ptx::parse(past_cap_ptx(), "/tmp/run-2/prog.ptx");
  ptx::EngineBuild first(a, o);
  CHECK(!first.ready());
  first.start(true);
  REQUIRE_MESSAGE(first.ready(), first.error());
  CHECK(first.compile_seconds() > 0);
  CHECK(bool(first.ready()->entry(0)));
  ptx::EngineBuild again(b, o);
  CHECK(again.library() == first.library());
  CHECK(again.ready());  // from the cache, at once
  CHECK(again.compile_seconds() == 0);
  std::filesystem::remove_all(o.cache_dir);
}

TEST_CASE("a compile left at a program's end fills the cache on its own; one stopped leaves nothing") {
  ptx::EngineOptions o;
  o.cache_dir = fresh_dir("ws-engine-leave");
  o.leave_nice = 0;  // (this test waits for it)
  const ptx::Module m = ptx::parse(past_cap_ptx(), "leave.ptx");
  const std::string pid = "." + std::to_string(::getpid()) + "-";
  // The cache folder's entries whose names `has`: what a run left behind (its own temporary
  // files and folders, their names holding its pid), and the markers of left compiles.
  const auto count = [&](auto has) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(o.cache_dir, ec)) n += has(e.path().filename().string());
    return n;
  };
  const auto leftovers = [&] { return count([&](const std::string& name) { return name.find(pid) != std::string::npos; }); };
  const auto markers = [&] { return count([](const std::string& name) { return name.rfind("left-", 0) == 0; }); };
  {
    ptx::EngineBuild stopped(m, o);
    stopped.start(false);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // (the compiler started, most likely)
    stopped.stop();
  }
  CHECK(!std::filesystem::exists(ptx::EngineBuild(m, o).library()));
  CHECK(leftovers() == 0);
  {
    ptx::EngineBuild left(m, o);
    left.start(false);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    left.leave();  // the program ends: its compiler goes on
    CHECK(markers() == 1);
    {
      ptx::EngineBuild second(m, o);  // another program's, ending while the first runs on: stopped
      second.start(false);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      second.leave();
      CHECK(markers() == 1);
    }
    const auto t0 = std::chrono::steady_clock::now();
    while (markers() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(300))  // (gone as its shell ends)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(std::filesystem::exists(left.library()));
    CHECK(!left.ready());  // nothing loaded by the run that left it
  }
  CHECK(leftovers() == 0);
  CHECK(markers() == 0);
  ptx::EngineBuild next(m, o);
  CHECK(next.ready());  // the next run: from the cache, at once
  std::filesystem::remove_all(o.cache_dir);
}

namespace {
// The engine's note after a launch made with `compiler` as the system's compiler, which
// must have run it on the interpreter.
std::string note_with_compiler(const std::string& cache, const std::string& compiler) {
  ptx::EngineOptions o;
  o.cache_dir = cache;
  o.compiler = compiler;
  o.wait = true;
  ptx::Device dev;
  dev.engine(ptx::Engine::Compiled, o);
  trace::Trace t;
  run_second_kernel(dev, t);
  CHECK(t.launches.at(0).engine == "interpreter");
  return dev.engine_note();
}
}  // namespace

TEST_CASE("a module the compiler cannot build runs on the interpreter, and says why") {
  const std::string cache = fresh_dir("ws-engine-nocompiler");
  const std::string note = note_with_compiler(cache, "false");  // a compiler that fails every time
  CHECK(note.find("cannot compile its own sources") != std::string::npos);
  std::filesystem::remove_all(cache);
}

TEST_CASE("a compiler that fails on the module with its own status 3 is said to fail on the module") {
  const std::string cache = fresh_dir("ws-engine-module-fails");
  // Builds the engine's own sources, exits 3 on anything else (the module).
  const std::string script = cache + "/cc3";
  std::filesystem::create_directories(cache);
  {
    std::ofstream f(script);
    f << "#!/bin/sh\ncase \"$*\" in *ws_prelude.h*|*half.cpp*) exec c++ \"$@\";; esac\nexit 3\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const std::string note = note_with_compiler(cache, script);
  CHECK(note.find("failed on") != std::string::npos);
  CHECK(note.find("its own sources") == std::string::npos);
  std::filesystem::remove_all(cache);
}

TEST_CASE("a module compiled in several parts side by side runs as the interpreter does") {
  const ptx::Module m = ptx::parse(past_cap_ptx(), "past_cap.ptx");
  const ptx::Generated g = ptx::generate(m);
  const std::vector<std::string> parts = g.parts(3);
  REQUIRE(parts.size() == 3);
  std::string units;
  for (const std::string& u : g.units) units += u;
  std::string joined;
  for (const std::string& p : parts) {
    REQUIRE(p.rfind(g.head, 0) == 0);  // each part begins with what they share
    joined += p.substr(g.head.size() + std::strlen("#define WS_BLOCK\n"));
  }
  CHECK(joined == units);  // every function once, in order
  CHECK(g.parts(1000).size() <= g.units.size());
  ptx::EngineOptions o;
  o.cache_dir = fresh_dir("ws-engine-parts");
  o.wait = true;
  o.parts = 3;
  trace::Trace t[2];
  std::vector<uint8_t> bytes[2];
  for (int e = 0; e < 2; ++e) {
    ptx::Device dev;
    if (e) dev.engine(ptx::Engine::Compiled, o);
    bytes[e] = run_second_kernel(dev, t[e]);
  }
  REQUIRE(t[1].launches.size() == 1);
  CHECK(t[1].launches[0].engine == "compiled");
  for (trace::Trace& x : t) x.launches[0].engine.clear(), x.launches[0].seconds = 0;
  CHECK(t[0].records.size() > 0);
  CHECK(t[0] == t[1]);
  CHECK(bytes[0] == bytes[1]);
  std::filesystem::remove_all(o.cache_dir);
}

TEST_CASE("under the record cap the compiling engine's blocks on two cores make the interpreter's trace on one") {
  const std::string cache = fresh_dir("ws-engine-kept");
  for (const char* name : {"late_races", "late_fault", "late_assert", "late_array"}) {
    INFO(name);
    test::PastCap a = test::run_past_cap(name, 1, "", uint64_t(1) << 20), b = test::run_past_cap(name, 2, cache, uint64_t(1) << 20);
    REQUIRE(b.t.launches.size() == 1);
    if (a.fault.empty()) CHECK(b.t.launches[0].engine == "compiled");  // (a launch that stops names none)
    for (test::PastCap* x : {&a, &b}) x->t.launches[0].engine.clear();
    CHECK(a.t == b.t);
    CHECK(a.t.launches[0].dropped_records == 0);
    CHECK(b.fault == a.fault);
    CHECK(b.fault_record == a.fault_record);
    CHECK(b.races.size() == a.races.size());
  }
  std::filesystem::remove_all(cache);
}

TEST_CASE("the compiling engine's workers taking blocks several at a time make the interpreter's trace on one core") {
  const std::string cache = fresh_dir("ws-engine-runs");
  for (uint64_t cap : {uint64_t(1) << 20, uint64_t(10), uint64_t(4)}) {
    INFO("cap " << cap);
    for (const char* name : {"late_races", "late_fault", "late_assert", "late_array"}) {
      INFO(name);
      test::PastCap a = test::run_past_cap(name, 1, "", cap), b = test::run_past_cap(name, 2, cache, cap, 7);
      REQUIRE(b.t.launches.size() == 1);
      for (test::PastCap* x : {&a, &b}) x->t.launches[0].engine.clear();
      CHECK(a.t == b.t);
      CHECK(b.fault == a.fault);
      CHECK(b.fault_record == a.fault_record);
      CHECK(b.races.size() == a.races.size());
    }
  }
  std::filesystem::remove_all(cache);
}

TEST_CASE("past the record cap the compiling engine counts the records and finds the races the interpreter does") {
  const std::string cache = fresh_dir("ws-engine-late");
  // On one core blocks 51 on are counted by the compiled code itself (every site made); on
  // two, by the workers that take over after block 50 (where the last site is made).
  for (uint32_t threads : {1u, 2u}) {
    INFO(threads << " cores");
    test::PastCap a = test::run_past_cap("late_races", threads), b = test::run_past_cap("late_races", threads, cache);
    REQUIRE(b.t.launches.size() == 1);
    CHECK(b.t.launches[0].engine == "compiled");
    for (test::PastCap* x : {&a, &b}) x->t.launches[0].engine.clear();
    CHECK(a.t == b.t);  // records, arrays, blocks and the records dropped past the cap
    CHECK(b.t.launches[0].dropped_records > 0);
    REQUIRE(b.races.size() == 2);  // block 37's and block 50's, each at its own line
    for (size_t i = 0; i < 2; ++i) {
      CHECK(b.races[i].block == a.races[i].block);
      CHECK(b.races[i].second.line == a.races[i].second.line);
      CHECK(b.races[i].second.thread == a.races[i].second.thread);
    }
    // Every block repeats its BlockRun's reference but the references and the two that race.
    // On two cores each worker keeps its own reference, and which blocks a worker takes
    // changes from run to run: the count is bounded there, and exact on one core.
    CHECK(a.repeated >= 64 - 3 - 2);
    CHECK(b.repeated >= 64 - 3 - 2);
    if (threads == 1) CHECK(a.repeated == b.repeated);
    // late_fault's block 60 writes past d_out: the same fault, and the records counted up to it.
    test::PastCap fa = test::run_past_cap("late_fault", threads), fb = test::run_past_cap("late_fault", threads, cache);
    CHECK(fa.fault.find("out-of-bounds") != std::string::npos);
    CHECK(fb.fault == fa.fault);
    REQUIRE(fb.t.launches.size() == 1);
    for (test::PastCap* x : {&fa, &fb}) x->t.launches[0].engine.clear();
    CHECK(fa.t == fb.t);
    // late_assert's block 61 fails its assert: the same message after the same records.
    test::PastCap sa = test::run_past_cap("late_assert", threads), sb = test::run_past_cap("late_assert", threads, cache);
    CHECK(sa.fault.find("Assertion `") != std::string::npos);
    CHECK(sb.fault == sa.fault);
    REQUIRE(sb.t.launches.size() == 1);
    for (test::PastCap* x : {&sa, &sb}) x->t.launches[0].engine.clear();
    CHECK(sa.t == sb.t);
  }
  std::filesystem::remove_all(cache);
}

// A one-kernel module's launch (one argument: an output buffer of `bytes`) on one engine,
// one of three ways: every access recorded; 8 blocks past a cap of 4 records on two
// workers (where the compiled code only counts); unrecorded (only the bytes move). Its
// trace (seconds and engine cleared) and the output's words.
// `budget`: the launch's warp instructions a block; a fault the launch ends in is kept, not
// thrown.
struct EngineRun {
  trace::Trace t;
  std::vector<uint32_t> out;
  uint64_t lanes = 0;  // the last launch's lane accesses
  std::string fault;   // what the launch's fault said, if it faulted
};
EngineRun engine_run(const std::string& text, const std::string& cache, bool compiled, int way, uint32_t bytes,
                     uint32_t threads = 32, uint64_t budget = ptx::kInstructionBudget) {
  EngineRun r;
  r.out.resize(bytes / 4);
  ptx::Device dev;
  if (compiled) {
    ptx::EngineOptions o;
    o.cache_dir = cache;
    o.wait = true;
    dev.engine(ptx::Engine::Compiled, o);
  } else {
    dev.engine(ptx::Engine::Interpreter);
  }
  dev.load(ptx::parse(text, "fixture.ptx"));
  dev.threads(2);
  const uint64_t d = dev.malloc(bytes, "d_out");
  std::vector<uint8_t> params(8);
  std::memcpy(params.data(), &d, 8);
  trace::Builder b(r.t, way == 1 ? 4 : 1'000'000);
  const ptx::KernelLaunch la{dev.module().kernels.at(0).name, {way == 1 ? 8u : 1u, 1, 1}, {threads, 1, 1}, 0, params};
  if (way == 2) {  // the first launch recorded, the second (on other bytes) not
    dev.record_launches(1);
    try {
      dev.launch(la, b);
    } catch (const ptx::Fault&) {  // (a fault test's: the unrecorded launch faults as well)
    }
    REQUIRE(dev.memset(d, 0xff, bytes));
  }
  if (way == 3) dev.record_launches(0);  // (a fault test's: unrecorded from the first launch)
  try {
    r.lanes = dev.launch(la, b, budget);
  } catch (const ptx::Fault& f) {
    r.fault = f.what();
  }
  REQUIRE(dev.to_host(r.out.data(), d, bytes));
  for (trace::Launch& l : r.t.launches) l.seconds = 0;
  if (r.fault.empty()) CHECK(r.t.launches.back().engine == (compiled ? "compiled" : "interpreter"));
  for (trace::Launch& l : r.t.launches) l.engine.clear();
  return r;
}

// `text` (engine_run's one kernel over an output of `bytes`, in blocks of `threads`) on both
// engines, each of the three ways: the same trace (records, and past the cap the records
// dropped), lane accesses and output; then `check(way, run)` on the compiling engine's run.
template <class F>
void on_both_engines(const std::string& text, const std::string& cache, uint32_t bytes, F&& check, uint32_t threads = 32) {
  for (int way = 0; way < 3; ++way) {
    INFO("way " << way);
    const EngineRun a = engine_run(text, cache, false, way, bytes, threads), c = engine_run(text, cache, true, way, bytes, threads);
    CHECK(a.t == c.t);
    CHECK(a.lanes == c.lanes);
    CHECK(a.out == c.out);
    check(way, c);
  }
}

TEST_CASE("a block's whole-warp accesses through one register move the bytes and make the records the interpreter does") {
  const std::string cache = fresh_dir("ws-engine-spread");
  const std::string text = test::slurp("tests/ptx/fixtures/spread.ptx");
  REQUIRE(!text.empty());
  // The figures on paper: tile[i] = i and tile[32 + i] = 100 + i; tile[64] is lane 31's (one
  // element, the last lane wins); tile[80 + j] lane 28 + j's (lanes apart, in order).
  const auto tile = [](uint32_t i) { return i < 32 ? i : 100 + (i - 32); };
  on_both_engines(text, cache, 1028, [&](int way, const EngineRun& c) {
    if (way == 1) CHECK(c.t.launches.at(0).dropped_records > 0);
    for (uint32_t l = 0; l < 32; ++l) {
      INFO("lane " << l);
      const uint32_t* w = c.out.data() + 8 * l;
      CHECK(w[0] == tile(l + 1));  // an offset of the register's run
      CHECK(w[1] == tile(l + 2));  // the register written between two uses
      CHECK(w[2] == 31);           // a broadcast
      CHECK(w[3] == 28 + l % 4);   // lanes apart
      CHECK(w[4] == tile(2 * l));  // v2
      CHECK(w[5] == tile(2 * l + 1));
      CHECK(w[6] == l);            // lanes 0-3's addresses wrap past 2^64
      CHECK(w[7] == tile(l + 1));  // a negative offset
    }
    CHECK(c.out[256] == 31);  // one global element, the last lane's
  });
  std::filesystem::remove_all(cache);
}

TEST_CASE("registers a block keeps in 32-bit copies reach the register file where they are read again") {
  // The rows the copies run: each reads only its sources' low halves and writes a
  // zero-extended value, whatever the high halves hold; no other row of those types runs
  // on them.
  const auto semantic = [](const ptx::Insn& in, uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
    switch (in.op) {
      case ptx::Opc::Add: return ptx::add_op(in, in.type, a, b, c, 0);
      case ptx::Opc::Sub: return ptx::sub_op(in, in.type, a, b, c, 0);
      case ptx::Opc::Mul: return ptx::mul_op(in, in.type, a, b, c, 0);
      case ptx::Opc::Fma: return ptx::fma_op(in, in.type, a, b, c, 0);
      case ptx::Opc::Mad: return ptx::mad_op(in, in.type, a, b, c, 0);
      case ptx::Opc::Min: return ptx::min_op(in, in.type, a, b, c, 0);
      case ptx::Opc::Max: return ptx::max_op(in, in.type, a, b, c, 0);
      case ptx::Opc::Neg: return ptx::neg_op(in, in.type, a, b, c, 0);
      case ptx::Opc::Abs: return ptx::abs_op(in, in.type, a, b, c, 0);
      case ptx::Opc::Mov: return ptx::mov_op(in, in.type, a, b, c, 0);
      default: FAIL("a row low_half_alu takes that this test does not check: " << int(in.op)); return 0;
    }
  };
  for (size_t op = 0; op < std::size(ptx::kKindOf); ++op)
    for (const ptx::Type type : {ptx::Type::F32, ptx::Type::B32, ptx::Type::U32}) {
      ptx::Insn in;
      in.op = ptx::Opc(op);
      in.type = type;
      if (!ptx::low_half_alu(in)) continue;
      uint64_t x = 0x9e3779b97f4a7c15ull;
      for (int i = 0; i < 200; ++i) {
        const uint64_t a = x * 3, b = x * 5 + 1, c = x ^ (x >> 7);
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t junk = x & 0xffffffff00000000ull;
        const uint64_t y = semantic(in, a, b, c), z = semantic(in, a ^ junk, b ^ (junk >> 3 << 32), c | junk);
        INFO("op " << op << " type " << int(type) << " inputs " << a << " " << b << " " << c);
        CHECK((y >> 32) == 0);
        CHECK(y == z);
      }
    }
  ptx::Insn s32;
  s32.op = ptx::Opc::Add;
  s32.type = ptx::Type::S32;
  CHECK(!ptx::low_half_alu(s32));

  const std::string cache = fresh_dir("ws-engine-copies");
  const std::string text = test::slurp("tests/ptx/fixtures/copies.ptx");
  REQUIRE(!text.empty());
  const auto f = [](uint32_t w) { float v; std::memcpy(&v, &w, 4); return v; };
  on_both_engines(text, cache, 1024, [&](int, const EngineRun& c) {
    for (uint32_t t = 0; t < 32; ++t) {
      INFO("lane " << t);
      const uint32_t* w = c.out.data() + 8 * t;
      const float next = t < 31 ? float(t + 1) : 100.0f;
      CHECK(f(w[0]) == 4 * (float(t) * float(100 + t) + 0.5f * next));  // the loop's sum
      const float f8 = t < 16 ? 3.0f : float(t + 1) * 3;
      CHECK(f(w[1]) == f8);                                   // both sides of the branch
      CHECK(w[2] == (t < 16 ? 7u : t + 1000));                // a guarded write: the other lanes keep theirs
      CHECK(w[3] == ((t ^ 1) < 16 ? 7u : (t ^ 1) + 1000));   // shfl read the copy
      CHECK(f(w[4]) == f8);                                   // stored and loaded back
      CHECK(f(w[5]) == float(16 * (t % 8) + 6));              // a v4 load, live across a barrier
      CHECK(w[6] == 4);
      CHECK(f(w[7]) == (t < 16 ? 2.0f : float(t)));
    }
  });
  std::filesystem::remove_all(cache);
}

TEST_CASE("a fused block's shared loads are matched against the race check's reference word for word") {
  // The reference: two whole-warp loads of 4 bytes by warp 3 in epoch 7, at pcs 56 and 59,
  // their lanes a run of words from window offsets 100 and 164 (pattern 0: 4 * lane).
  std::vector<uint32_t> patterns(32);
  for (uint32_t l = 0; l < 32; ++l) patterns[l] = 4 * l;
  std::vector<uint32_t> memo = {56, 3, ~0u, 4, 7, 100, 0, 59, 3, ~0u, 4, 7, 164, 0};
  ptx::compiled::Ctx c;
  c.patterns = patterns.data();
  c.memo = memo.data();
  c.memo_size = memo.size();
  uint64_t at[32];
  for (uint32_t l = 0; l < 32; ++l) at[l] = 100 + 4 * l;
  CHECK(ptx::compiled::memo_ahead(c, 14) == memo.data());
  CHECK(ptx::compiled::memo_ahead(c, 15) == nullptr);
  CHECK(ptx::compiled::warp_repeats(c, memo.data(), at, 0));
  CHECK(ptx::compiled::warp_repeats(c, memo.data() + 7, at, 64));  // the second load: 64 bytes on
  CHECK_FALSE(ptx::compiled::warp_repeats(c, memo.data() + 7, at, 60));
  at[5] += 4;
  CHECK_FALSE(ptx::compiled::warp_repeats(c, memo.data(), at, 0));  // one lane elsewhere
  // The first load's b less its offset, for offsets 0 to 64: b 100 to 164, inside 32 bits.
  const ptx::compiled::Seen seen{0, 100};
  CHECK(ptx::compiled::seen_range(seen, 0, 64));
  CHECK_FALSE(ptx::compiled::seen_range({0, uint64_t(-8)}, 0, 64));  // at offset 0, b would be -8
  CHECK_FALSE(ptx::compiled::seen_range({0, 0xfffffff0ull}, 0, 64));  // at 64, past 2^32
  // The block's words: pc, warp, lanes, bytes, epoch, b, pattern; V: 0, warp, epoch, b less
  // the offset, the pattern.
  const uint32_t T[14] = {56, 0, ~0u, 4, 0, 0, 0, 59, 0, ~0u, 4, 0, 64, 0};
  const uint32_t I[14] = {0, 1, 0, 0, 2, 3, 4, 0, 1, 0, 0, 2, 3, 4};
  uint32_t V[16] = {0, 3, 7, 100, 0};
  CHECK(ptx::compiled::same_words(memo.data(), T, I, V, 14));
  CHECK(ptx::compiled::same_words(memo.data(), T, I, V, 13));  // a prefix matches too
  memo[8] = 2;  // the second load another warp's
  CHECK_FALSE(ptx::compiled::same_words(memo.data(), T, I, V, 14));
  memo[8] = 3;
  V[2] = 8;  // another epoch
  CHECK_FALSE(ptx::compiled::same_words(memo.data(), T, I, V, 14));
  V[2] = 7;
  V[3] = 104;  // another b
  CHECK_FALSE(ptx::compiled::same_words(memo.data(), T, I, V, 14));
}

TEST_CASE("a block of float rows and shared loads runs as one loop over the lanes and gives the interpreter's answers") {
  const std::string text = test::slurp("tests/ptx/fixtures/fused.ptx");
  REQUIRE(!text.empty());
  // Both blocks between the barriers are written as loops over the lanes (the one through
  // %r9 tries its loop first, finds its lanes apart and runs an instruction at a time), and
  // so is the loop's block.
  const std::string code = ptx::generate(ptx::parse(text, "fused.ptx")).text();
  CHECK(code.find("f0_17_lanes<3>") != std::string::npos);  // two address registers: four forms
  CHECK(code.find("f0_27_lanes<1>") != std::string::npos);  // one: two
  CHECK(code.find("f0_27_lanes<2>") == std::string::npos);
  CHECK(code.find("f0_34_lanes<1>") != std::string::npos);  // the loop, up to its branch
  const std::string cache = fresh_dir("ws-engine-fused");
  const auto f = [](uint32_t w) { float v; std::memcpy(&v, &w, 4); return v; };
  on_both_engines(text, cache, 384, [&](int, const EngineRun& c) {  // recorded; past the cap on two workers; unrecorded
    for (uint32_t t = 0; t < 32; ++t) {
      INFO("lane " << t);
      // On paper: (t + 1) * (t / 8) + t, times t / 8 + 4, plus t + 16; its negation; then
      // tile[3t mod 64] plus that, doubled, less t; the loop's three tile[t], at the word
      // its 64-bit counter (3 * 4 bytes) points past.
      const float f11 = -((float(t + 1) * float(t / 8) + float(t)) * float(t / 8 + 4) + float(t + 16));
      CHECK(f(c.out[3 * t]) == f11);
      CHECK(f(c.out[3 * t + 1]) == (float(3 * t % 64) + f11) * 2 - float(t));
      CHECK(f(c.out[3 * t + 2]) == 3 * float(t));
    }
  });
  std::filesystem::remove_all(cache);
}

TEST_CASE("a loop whose lanes load apart and step their pointers at its end runs as one loop, in a short module and a long one") {
  const std::string text = test::slurp("tests/ptx/fixtures/fused_apart.ptx");
  REQUIRE(!text.empty());
  // The same, with a second kernel that makes the module long (ptx::long_module): there only
  // a loop's own block is written as one loop over the lanes.
  std::string pad = "\n.visible .entry pad(.param .u64 p)\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, %tid.x;\n";
  for (size_t i = 0; i < ptx::kInlineInstructions; ++i) pad += "  add.u32 %r1, %r1, 3;\n";
  pad += "  ret;\n}\n";
  const std::string long_text = text + pad;
  REQUIRE(ptx::long_module(ptx::parse(long_text, "fused_apart_long.ptx")));
  const auto f = [](uint32_t w) { float v; std::memcpy(&v, &w, 4); return v; };
  for (const std::string* t : {&text, &long_text}) {
    const std::string code = ptx::generate(ptx::parse(*t, "fused_apart.ptx")).text();
    // The loop, its lanes each at its own address for A (bit 2) and all on one word for B (bit 1).
    CHECK(code.find("_lanes<6>(c, R, A)") != std::string::npos);
    CHECK(code.find("_lanes<12>(c, R, A)") != std::string::npos);  // (and both apart, for any other mix)
    // A's four loads an iteration through one window of four words a lane, in global memory
    // (from 8 bytes below the register) and in shared memory.
    CHECK(code.find("window<4>(T0, c.globals[") != std::string::npos);
    CHECK(code.find("window<4>(T0, c.shared, 0ull") != std::string::npos);
    const std::string cache = fresh_dir("ws-engine-fused-apart");
    on_both_engines(*t, cache, 8 * 1408, [&](int way, const EngineRun& c) {
      for (uint32_t b = 0; b < (way == 1 ? 8u : 1u); ++b)
        for (uint32_t l = 0; l < 32; ++l) {
          INFO("block " << b << " lane " << l);
          CHECK(f(c.out[b * 352 + 264 + l]) == float(36 * l + 168));  // on paper
          CHECK(f(c.out[b * 352 + 296 + l]) == float(8 * l + 28));
        }
    });
    std::filesystem::remove_all(cache);
  }
}

TEST_CASE("a loop's own block is taken again within one call, its pointers stepped, as the interpreter runs the loop") {
  const std::string text = test::slurp("tests/ptx/fixtures/stepped.ptx");
  REQUIRE(!text.empty());
  const std::string code = ptx::generate(ptx::parse(text, "stepped.ptx")).text();
  CHECK(code.find("if (!step(A[0], 16ull)) break;") != std::string::npos);  // A's row, 16 bytes a turn
  CHECK(code.find("if (!step(A[1], 16ull)) break;") != std::string::npos);  // B's
  const auto f = [](uint32_t w) { float v; std::memcpy(&v, &w, 4); return v; };
  const auto on_paper = [](uint32_t t) {  // small whole numbers: exact in any order
    float s = 0;
    for (uint32_t j = 0; j < 256; ++j) s += float((t + j) % 8) * float(j % 4 + 1);
    return s;
  };
  const std::string cache = fresh_dir("ws-engine-stepped");
  // Recorded (each access noted: one turn a call), past the cap on two workers (counted: the
  // turns within one call) and unrecorded: the interpreter's trace, lane accesses and bytes.
  on_both_engines(text, cache, 8 * 33920, [&](int way, const EngineRun& c) {
    for (uint32_t b = 0; b < (way == 1 ? 8u : 1u); ++b)
      for (uint32_t l = 0; l < 32; ++l) {
        INFO("block " << b << " lane " << l);
        CHECK(f(c.out[(b * 33920 + 33792) / 4 + l]) == on_paper(l));
      }
  });
  // 200 turns carry lane 31's row past its array's end: a turn's checks find it, the warp goes
  // on an instruction at a time and faults where the interpreter does (the instruction, the
  // lane, the byte offset), recorded, counted or unrecorded.
  std::string off = text;
  const std::string turns = "mov.u32 %r9, 64;";
  off.replace(off.find(turns), turns.size(), "mov.u32 %r9, 200;");
  for (int way : {0, 1, 3}) {
    INFO("way " << way);
    const EngineRun a = engine_run(off, cache, false, way, 33920), c = engine_run(off, cache, true, way, 33920);
    CHECK(a.fault.find("out-of-bounds access to 'd_out'") != std::string::npos);
    CHECK(a.fault == c.fault);
    CHECK(a.t == c.t);
  }
  // With a budget of 300 warp instructions a block, far below the loop's 1,152: each turn is
  // progress, so the loop runs to its end on both engines.
  for (int way : {1, 2}) {
    INFO("way " << way);
    const EngineRun a = engine_run(text, cache, false, way, 8 * 33920, 32, 300), c = engine_run(text, cache, true, way, 8 * 33920, 32, 300);
    CHECK(a.fault.empty());
    CHECK(c.fault.empty());
    CHECK(a.t == c.t);
    CHECK(a.out == c.out);
    CHECK(f(c.out[33792 / 4 + 5]) == on_paper(5));
  }
  std::filesystem::remove_all(cache);
}

TEST_CASE("a block of fewer threads than a warp runs its loops as one loop over its lanes, as the interpreter runs them") {
  // fused_apart.ptx in blocks of 16 and 24 threads: each warp lacks lanes, which the loops
  // over the lanes give the first lane's words (their results never read). Recorded under
  // the cap (each access noted: the loops are not taken), past it on two workers (counted:
  // taken) and unrecorded; the lane accesses, records and bytes equal the interpreter's.
  const std::string text = test::slurp("tests/ptx/fixtures/fused_apart.ptx");
  REQUIRE(!text.empty());
  const std::string cache = fresh_dir("ws-engine-short-warps");
  const auto f = [](uint32_t w) { float v; std::memcpy(&v, &w, 4); return v; };
  for (uint32_t threads : {16u, 24u}) {
    INFO(threads << " threads");
    on_both_engines(
        text, cache, 8 * 1408,
        [&](int way, const EngineRun& c) {
          for (uint32_t blk = 0; blk < (way == 1 ? 8u : 1u); ++blk)
            for (uint32_t l = 0; l < threads; ++l) {
              INFO("block " << blk << " lane " << l);
              CHECK(f(c.out[blk * 352 + 264 + l]) == float(36 * l + 168));  // on paper
              CHECK(f(c.out[blk * 352 + 296 + l]) == float(8 * l + 28));
            }
        },
        threads);
  }
  std::filesystem::remove_all(cache);
}

TEST_CASE("a block finds cleared every register it may read before writing it, and only those are cleared") {
  // %r3 is read before any write (a fresh block's is 0); each block then leaves 1000 + its
  // index in it, for the next block its core runs. out[32 b + t] = t on paper.
  const std::string text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry stale(.param .u64 out_p)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out_p];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  add.u32 %r4, %r3, %r1;
  mad.lo.u32 %r5, %r2, 32, %r1;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  add.u32 %r3, %r2, 1000;
  ret;
}
)";
  const ptx::Module m = ptx::parse(text, "stale.ptx");
  const std::vector<uint32_t> fresh = ptx::entry_registers(m.kernels.at(0));
  CHECK(fresh.size() == 1);  // %r3 alone
  // A shuffle's registers are all cleared (a lane may read another's that it never wrote).
  const std::string shfl = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry sh(.param .u64 out_p)
{
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;
  add.u32 %r3, %r2, 1;
  ret;
}
)";
  CHECK(ptx::entry_registers(ptx::parse(shfl, "sh.ptx").kernels.at(0)).size() == 2);  // %r1 and %r2
  const std::string cache = fresh_dir("ws-engine-stale");
  on_both_engines(text, cache, 8 * 32 * 4, [&](int way, const EngineRun& c) {
    for (uint32_t b = 0; b < (way == 1 ? 8u : 1u); ++b)
      for (uint32_t t = 0; t < 32; ++t) {
        INFO("block " << b << " thread " << t);
        CHECK(c.out[b * 32 + t] == t);
      }
  });
  std::filesystem::remove_all(cache);
}

TEST_CASE("a block run as one loop whose loads reach two shared arrays runs an instruction at a time where its records are kept") {
  const std::string text = test::slurp("tests/ptx/fixtures/fused_two.ptx");
  REQUIRE(!text.empty());
  const std::string code = ptx::generate(ptx::parse(text, "fused_two.ptx")).text();
  REQUIRE(code.find("_lanes<") != std::string::npos);  // written as a loop all the same
  const std::string cache = fresh_dir("ws-engine-fused-two");
  const auto f = [](uint32_t w) { float v; std::memcpy(&v, &w, 4); return v; };
  on_both_engines(text, cache, 128, [&](int, const EngineRun& c) {
    for (uint32_t t = 0; t < 32; ++t) {
      INFO("lane " << t);
      const float lo = float(t), hi = float(t + 100);
      CHECK(f(c.out[t]) == (lo * hi + lo + lo) * hi);  // on paper: at most 540113, exact in a float
    }
  });
  std::filesystem::remove_all(cache);
}
