// The replay pack's timings (bench.json), as `bench` and the timing panel read them.
#include "fuzz.h"
#include "trace/bench.h"

WS_FUZZ_TARGET(text) {
  ws::trace::BenchResult r;
  std::string error;
  if (ws::trace::read_bench(text, r, error)) (void)ws::trace::bench_text(r);
}
