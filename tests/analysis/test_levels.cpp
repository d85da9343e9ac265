// The source beside the SASS, line by line, on hand-built traces: a line's own verdict, and
// lines whose instructions ptxas's line table shared out among them.
#include <doctest/doctest.h>

#include <map>

#include "analysis/levels.h"

using namespace ws;

namespace {

// One launch of one block with a global array "A" and a shared array "tiles"; `loads` gives,
// per line, how many 16-byte shared loads of a full warp the block ran, named `instruction`.
trace::Trace block_of(const std::map<uint32_t, int>& loads, const std::string& instruction) {
  trace::Trace t;
  t.launch().kernel = "hand";
  t.files = {{"tensor.h", ""}};
  trace::Buffer a;
  a.name = "A";
  a.size_bytes = 1 << 20;
  trace::Buffer tiles;
  tiles.name = "tiles";
  tiles.space = trace::Space::Shared;
  tiles.size_bytes = 1 << 16;
  t.buffers = {a, tiles};
  for (const auto& [line, n] : loads) {
    trace::Site s;
    s.line = line;
    s.space = trace::Space::Shared;
    s.op = trace::Op::Load;
    s.bytes = 16;
    s.buffer = 1;
    s.instruction = instruction;
    t.sites.push_back(s);
    for (int i = 0; i < n; ++i) {
      trace::Record r;
      r.site = uint32_t(t.sites.size() - 1);
      r.buffer = 1;
      r.active = ~0u;
      for (uint32_t l = 0; l < 32; ++l) r.offset[l] = 16 * l;
      t.records.push_back(r);
    }
  }
  return t;
}

std::map<uint32_t, std::string> verdicts(const trace::Trace& ptx, const trace::Trace& sass) {
  std::map<uint32_t, std::string> v;
  for (const analysis::LineLevels& l : analysis::compare_levels(ptx, 0, sass, 0)) v[l.line] = l.verdict;
  return v;
}

}  // namespace

TEST_CASE("ldmatrix lines whose SASS the line table shares out: one verdict for the lines together") {
  // tc_mma_tuned on an H100: the source's 128 + 128 ldmatrix a block ran as 16 on the
  // first line and 240 on the second; the totals and the bytes are the source's.
  const trace::Trace ptx = block_of({{351, 128}, {353, 128}}, "ldmatrix.x4");
  const trace::Trace sass = block_of({{351, 16}, {353, 240}}, "LDSM.16.M88.4");
  const auto v = verdicts(ptx, sass);
  const std::string want =
      "lines 351 and 353 together: the source's 256 instructions a block, the same bytes; ptxas's line table gives some "
      "of them to another of these lines";
  CHECK(v.at(351) == want);
  CHECK(v.at(353) == want);
  // A line that only the SASS has takes part too (tc_mma_pipelined: 128 + 64 in the source,
  // 128 on a line of the loop header, 64 and none on the two source lines).
  const auto w = verdicts(block_of({{250, 128}, {255, 64}}, "ldmatrix.x4"),
                          block_of({{73, 128}, {250, 64}}, "LDSM.16.M88.4"));
  CHECK(w.at(73).find("lines 73, 250 and 255 together: the source's 192 instructions") == 0);
  CHECK(w.at(255) == w.at(73));
}

TEST_CASE("lines whose totals differ keep their own verdicts") {
  // 128 + 128 in the source, 64 + 128 on the GPU: one line really ran fewer.
  const auto v = verdicts(block_of({{10, 128}, {12, 128}}, "ldmatrix.x4"), block_of({{10, 64}, {12, 128}}, "LDSM.16.M88.4"));
  CHECK(v.at(10).find("50.0% fewer instructions on the GPU") == 0);
  CHECK(v.at(12).empty());
  // One line alone that differs is that line's own story.
  const auto w = verdicts(block_of({{10, 128}}, "ldmatrix.x4"), block_of({{10, 256}}, "LDSM.16.M88.4"));
  CHECK(w.at(10).find("100.0% more instructions on the GPU") == 0);
}
