// tests/emu/emulated.h — a catalog kernel recorded on the CPU emulator for a test: its
// trace, the trace's report (the textbook DRAM model) and the largest relative error of
// its output against the CPU reference.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>

#include "analysis/analysis.h"
#include "catalog.h"
#include "emu/record.h"

namespace ws::test {

struct Emulated {
  trace::Trace t;
  analysis::Report rep;
  double error = 0;
};

inline Emulated emulate(const std::string& id, int64_t size, const std::map<std::string, int64_t>& set = {}) {
  const auto* k = catalog::find(id);
  REQUIRE_MESSAGE(k, id);
  catalog::Params p;
  const std::string err = catalog::resolve(*k, size, set, p);
  REQUIRE_MESSAGE(err.empty(), err);
  auto got = catalog::make_arrays(*k, p);
  auto want = got;
  k->reference(p, want);
  Emulated r;
  emu::record(*k, p, got, {}, r.t);
  r.error = catalog::max_rel_error(*k, p, got, want);
  r.rep = analysis::analyze(r.t, analysis::DramModel{});
  return r;
}

}  // namespace ws::test
