#include <doctest/doctest.h>

#include "catalog.h"
#include "emu/record.h"

using namespace ws;

TEST_CASE("transpose kernels equal the CPU reference in the emulator") {
  for (const char* id : {"transpose_read_coalesced", "transpose_write_coalesced", "transpose_tiled", "transpose_tiled_dynamic"}) {
    const auto* k = catalog::find(id);
    REQUIRE(k);
    for (int64_t n : {1, 31, 64, 70}) {
      for (int pad : {0, 1}) {
        catalog::Params p;
        std::map<std::string, int64_t> set;
        if (std::string(id).find("tiled") != std::string::npos) set["pad"] = pad;
        REQUIRE(catalog::resolve(*k, n, set, p) == "");
        auto got = catalog::make_arrays(*k, p);
        auto want = got;
        k->reference(p, want);
        trace::Trace t;
        emu::record(*k, p, got, {}, t);
        CAPTURE(id);
        CAPTURE(n);
        CHECK(catalog::max_rel_error(*k, p, got, want) == 0.0);
        CHECK(!t.records.empty());
      }
    }
  }
}
