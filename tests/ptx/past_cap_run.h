// tests/ptx/past_cap_run.h — past_cap.ptx's kernels run the way the past-the-cap tests of
// test_launches and test_engine both need: 64 blocks of 64 threads recorded with a cap of 4
// records (reached in block 0) or another, on a given number of workers, on the interpreter or the
// compiling engine; what comes out of it (the trace, with its launches' seconds set aside),
// the races, the fault's line if any.
#pragma once
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "ptx/engine.h"
#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "../support.h"

namespace ws::test {

struct PastCap {
  trace::Trace t;
  std::vector<ptx::Race> races;
  std::map<uint32_t, uint32_t> left_out;
  std::string fault;
  int64_t fault_record = -1;  // the fault's request in the trace
  uint32_t repeated = 0;  // Device::blocks_repeated
};

// `dev` on the compiling engine from its first block, its modules cached in `cache`; on the
// interpreter when `cache` is empty.
inline void engine_for(ptx::Device& dev, const std::string& cache) {
  if (cache.empty()) return;
  ptx::EngineOptions o;
  o.cache_dir = cache;
  o.wait = true;
  dev.engine(ptx::Engine::Compiled, o);
}

// Kernel `name` of past_cap.ptx on `workers` workers, recording at most `cap` records; on the
// compiling engine from its first block (its modules cached in `cache`) when `cache` is not
// empty; `runs`: the most blocks a worker takes at once (0: the device's choice). A kernel of
// two parameters gets a second array.
inline PastCap run_past_cap(const std::string& name, uint32_t workers, const std::string& cache = "", uint64_t cap = 4,
                            uint32_t runs = 0) {
  PastCap r;
  ptx::Device dev;
  engine_for(dev, cache);
  const std::string text = slurp("tests/ptx/fixtures/past_cap.ptx");
  REQUIRE_MESSAGE(!text.empty(), "missing fixture past_cap.ptx");
  dev.load(ptx::parse(text, "past_cap.ptx"));
  dev.threads(workers);
  dev.block_runs(runs);
  const uint64_t out = dev.malloc(64 * 4, "d_out");
  const ptx::Kernel& k = *dev.module().kernel(name);
  std::vector<uint8_t> params(8);
  std::memcpy(params.data(), &out, 8);
  if (k.params.size() == 2) {
    const uint64_t other = dev.malloc(64 * 4, "d_other");
    params.resize(16);
    std::memcpy(params.data() + 8, &other, 8);
  }
  trace::Builder b(r.t, cap);
  try {
    dev.launch({k.name, {64, 1, 1}, {64, 1, 1}, 0, params}, b);
  } catch (const ptx::Fault& f) {
    r.fault = f.what();
    r.fault_record = f.record;
  }
  for (trace::Launch& l : r.t.launches) l.seconds = 0;
  r.races = dev.races();
  r.left_out = dev.races_left_out();
  r.repeated = dev.blocks_repeated();
  return r;
}

}  // namespace ws::test
