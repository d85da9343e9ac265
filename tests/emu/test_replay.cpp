// The replay pack's GPU traces (assets/replay/*.wstrace, recorded on a real GPU) against
// the emulator of this tree: the same launch emulated must give the same records.
#include <doctest/doctest.h>

#include <map>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "catalog.h"
#include "emu/record.h"
#include "trace/wstrace.h"

using namespace ws;

namespace {

// Records by (block, warp, site, sequence); the site by its key, since two compilers may
// order the first executions of a warp's sites differently.
std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, std::array<uint32_t, 32>>> canon(
    const trace::Trace& t) {
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, std::array<uint32_t, 32>>> v;
  for (const auto& r : t.records) v.emplace_back(r.block, r.warp, trace::key_of(t.sites.at(r.site)), r.seq, r.epoch, r.active, r.offset);
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("replay pack traces equal the emulator's trace of the same launch") {
  const std::filesystem::path dir = "assets/replay";
  REQUIRE(std::filesystem::is_directory(dir));
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".wstrace") continue;
    ++files;
    CAPTURE(e.path().string());
    trace::Trace gpu = trace::read_trace(e.path().string());
    CHECK(gpu.provenance.backend == "gpu");
    CHECK(!gpu.provenance.device.empty());
    CHECK(!gpu.provenance.date.empty());
    const catalog::KernelInfo* k = catalog::find(gpu.launch().kernel);
    REQUIRE(k);
    std::map<std::string, int64_t> set = gpu.launch().params;
    const int64_t size = set.count("size") ? set["size"] : 0;
    set.erase("size");
    catalog::Params p;
    REQUIRE(catalog::resolve(*k, size, set, p) == "");
    auto arrays = catalog::make_arrays(*k, p);
    trace::Trace emu_t;
    emu::record(*k, p, arrays, {}, emu_t);
    CHECK(gpu.buffers == emu_t.buffers);
    CHECK(gpu.launch().blocks == emu_t.launch().blocks);
    CHECK(gpu.files == emu_t.files);  // read from format version 1: the kernel file as file 0
    // Sites by key: the version 1 reader gives each the column the builder gives it.
    std::map<uint32_t, std::pair<uint32_t, std::string>> gs, es;
    for (const auto& s : gpu.sites) gs[trace::key_of(s)] = {s.column, s.code};
    for (const auto& s : emu_t.sites) es[trace::key_of(s)] = {s.column, s.code};
    CHECK(gs == es);
    CHECK(gpu.launch().grid == emu_t.launch().grid);
    CHECK(gpu.launch().block == emu_t.launch().block);
    CHECK(gpu.records.size() == emu_t.records.size());
    CHECK(canon(gpu) == canon(emu_t));
  }
  CHECK(files >= 7);
}
