// Atomics costed as an H100 carries them out (Nsight Compute, CUDA 13.0; docs/validation.md,
// "Atomics"): lanes on one address take turns unless the compiled code counted them
// (ATOMS.POPC.INC) or ptxas combined the warp's updates into one.
#include <doctest/doctest.h>

#include <functional>

#include "analysis/analysis.h"

using namespace ws;
using trace::AtomicPath;

namespace {

trace::Record warp(const std::function<uint32_t(uint32_t)>& f, uint32_t active = ~0u) {
  trace::Record r;
  r.active = active;
  for (uint32_t l = 0; l < 32; ++l) r.offset[l] = (active >> l) & 1 ? f(l) : 0;
  return r;
}

trace::Site atomic_site(trace::Space sp, const std::string& instruction, AtomicPath path = AtomicPath::PerLane,
                        uint8_t bytes = 4) {
  trace::Site s;
  s.space = sp;
  s.op = trace::Op::Atomic;
  s.bytes = bytes;
  s.instruction = instruction;
  s.atomic = path;
  s.buffer = 0;
  return s;
}

// A one-site, one-record trace of `s` and `r`, analysed.
struct One {
  trace::Trace t;
  analysis::Report rep;
  One(const trace::Site& s, const trace::Record& r) {
    t.launches.resize(1);
    trace::Buffer b;
    b.name = "counts";
    b.space = s.space;
    b.cols = 1024;
    b.size_bytes = 4096;
    t.buffers.push_back(b);
    t.sites.push_back(s);
    t.records.push_back(r);
    analysis::DramModel d;
    rep = analysis::analyze(t, d);
  }
  const analysis::SiteStats& site() const { return rep.sites[0]; }
};

const auto same = [](uint32_t) { return 64u; };
const auto consecutive = [](uint32_t l) { return 4 * l; };

}  // namespace

TEST_CASE("shared: an add of 1 (ATOMS.POPC.INC) is 1 wavefront whatever the lanes share") {
  const auto s = atomic_site(trace::Space::Shared, "atom.shared.add.u32", AtomicPath::Increment);
  CHECK(analysis::shared_cost(s, warp(same)).wavefronts == 1);
  CHECK(analysis::shared_cost(s, warp(consecutive)).wavefronts == 1);
  CHECK(analysis::shared_cost(s, warp([](uint32_t l) { return 4 * (l % 4); })).wavefronts == 1);
  // The GPU trace's opcode says the same.
  const auto g = atomic_site(trace::Space::Shared, "ATOMS.POPC.INC.32");
  CHECK(!analysis::serialized_atomic(g));
  CHECK(analysis::shared_cost(g, warp(same)).wavefronts == 1);
  One one(s, warp(same));
  CHECK(one.site().wavefronts == 1);
  CHECK(one.site().bank_conflicts == 0);
  CHECK(one.site().why == "every lane updates the same word → an add of 1: ATOMS.POPC.INC counts the lanes on each word, 1 wavefront per request");
}

TEST_CASE("shared: an add of values to one run-time address takes 32 turns: 32 wavefronts, 31 conflicts") {
  const auto s = atomic_site(trace::Space::Shared, "atom.shared.add.u32");
  CHECK(analysis::serialized_atomic(s));
  auto c = analysis::shared_cost(s, warp(same));
  CHECK(c.wavefronts == 32);
  CHECK(c.conflicts == 31);
  CHECK(c.max_way == 32);
  // The H100's own opcode for it.
  CHECK(analysis::shared_cost(atomic_site(trace::Space::Shared, "ATOMS.ADD"), warp(same)).wavefronts == 32);
  // Distinct words in distinct banks: no turns, 1 wavefront as for a load.
  CHECK(analysis::shared_cost(s, warp(consecutive)).wavefronts == 1);
  // 4 words, 8 lanes on each: 8 turns. Two words of one bank, 16 lanes each: 32 updates of one bank.
  CHECK(analysis::shared_cost(s, warp([](uint32_t l) { return 4 * (l % 4); })).wavefronts == 8);
  CHECK(analysis::shared_cost(s, warp([](uint32_t l) { return 128 * (l % 2); })).wavefronts == 32);
  // Half the warp active on one word: 16.
  CHECK(analysis::shared_cost(s, warp(same, 0xffffu)).wavefronts == 16);
  One one(s, warp(same));
  CHECK(one.site().wavefronts == 32);
  CHECK(one.site().bank_conflicts == 31);
  CHECK(one.site().why == "every lane updates the same word → lanes on one word take turns: 32 wavefronts per request, 31 counted as bank conflicts");
}

TEST_CASE("global: a RED on one address is 32 sectors, an add of 1 or not; 32 consecutive ints 4") {
  for (const char* in : {"atom.global.add.u32", "RED.E.ADD.STRONG.GPU", "REDG.E.ADD.STRONG.GPU"}) {
    CAPTURE(in);
    const auto s = atomic_site(trace::Space::Global, in);
    CHECK(analysis::serialized_atomic(s));
    auto c = analysis::global_cost(s, warp(same));
    CHECK(c.sectors == 32);
    CHECK(c.ideal_sectors == 1);
    CHECK(analysis::global_cost(s, warp(consecutive)).sectors == 4);
  }
  // An add of 1 in global memory is still a RED: the PTX path's Increment does not apply.
  CHECK(analysis::global_cost(atomic_site(trace::Space::Global, "atom.global.add.u32", AtomicPath::Increment), warp(same)).sectors == 32);
  One one(atomic_site(trace::Space::Global, "atom.global.add.u32"), warp(same));
  CHECK(one.site().sectors == 32);
  CHECK(one.site().sectors_per_request == 32);
  CHECK(one.site().ideal_sectors == 1);
  CHECK(one.site().why == "every lane updates the same 4-byte word → lanes on one address take turns: 32 sectors per request; ideal 1");
}

TEST_CASE("global: per sector, the most lanes on one address in it") {
  const auto s = atomic_site(trace::Space::Global, "ATOMG.E.ADD.STRONG.GPU");
  // Lanes 0-15 on word 0, 16-31 on word 1: one sector, 16 turns.
  CHECK(analysis::global_cost(s, warp([](uint32_t l) { return 4 * (l / 16); })).sectors == 16);
  // Two words in two sectors, 16 lanes each: 16 + 16.
  CHECK(analysis::global_cost(s, warp([](uint32_t l) { return 32 * (l / 16); })).sectors == 32);
  // 8-byte atomics, lanes in pairs on 16 words: 4 sectors, 2 turns in each.
  const auto s8 = atomic_site(trace::Space::Global, "atom.global.add.u64", AtomicPath::PerLane, 8);
  CHECK(analysis::global_cost(s8, warp([](uint32_t l) { return 8 * (l / 2); })).sectors == 8);
  // Loads are untouched: a broadcast is one sector.
  trace::Site ld = s;
  ld.op = trace::Op::Load;
  CHECK(!analysis::serialized_atomic(ld));
  CHECK(analysis::global_cost(ld, warp(same)).sectors == 1);
}

TEST_CASE("an address uniform by construction: ptxas combines the warp's updates, 1 sector or 1 wavefront") {
  const auto g = atomic_site(trace::Space::Global, "atom.global.add.u32", AtomicPath::Combined);
  CHECK(!analysis::serialized_atomic(g));
  CHECK(analysis::global_cost(g, warp(same)).sectors == 1);
  One og(g, warp(same));
  CHECK(og.site().sectors == 1);
  CHECK(og.site().why == "every lane updates the same 4-byte word, at an address the same in every lane by construction → ptxas combines the warp's updates into one: 1 sector per request");
  const auto s = atomic_site(trace::Space::Shared, "atom.shared.add.u32", AtomicPath::Combined);
  CHECK(analysis::shared_cost(s, warp(same)).wavefronts == 1);
  One os(s, warp(same));
  CHECK(os.site().wavefronts == 1);
  CHECK(os.site().why == "every lane updates the same word, at an address the same in every lane by construction → ptxas combines the warp's updates into one: 1 wavefront per request");
}

TEST_CASE("an atomic whose lanes share no address reads as any access") {
  One one(atomic_site(trace::Space::Global, "atom.global.add.u32"), warp(consecutive));
  CHECK(one.site().sectors == 4);
  CHECK(one.site().why == "consecutive lanes update consecutive 4-byte words → 4 sectors, fully used");
  One sh(atomic_site(trace::Space::Shared, "atom.shared.add.u32"), warp(consecutive));
  CHECK(sh.site().wavefronts == 1);
  CHECK(sh.site().why == "consecutive lanes update consecutive words → 1 wavefront, no conflict");
  // One lane: 1 sector however the site is carried out (what a GPU trace shows after REDUX).
  One lone(atomic_site(trace::Space::Global, "REDG.E.ADD.STRONG.GPU"), warp(same, 1u));
  CHECK(lone.site().sectors == 1);
}
