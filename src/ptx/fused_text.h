// src/ptx/fused_text.h — the parts of a fused block's generated text (codegen.cpp,
// Writer::fused: a block of lane-wise instructions as one loop over a warp's lanes): which
// rows and loads qualify, each address register's windows, the lanes loop's choice, the
// entry's tests of a recorded block, and a loop's own block taken again (its pointers'
// steps, the tests of each later turn).
#pragma once

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ptx/ptx.h"

namespace ws::ptx::fused {

inline std::string num(uint64_t v) { return std::to_string(v); }

// An Alu or Move row into a register from registers and immediates only.
bool register_row(const Insn& in);
// A fused row: a register_row with no guard, a destination that is kept, and no form the
// interpreter must run (a second destination, directed rounding).
bool fusable_alu(const Insn& in);
// A fused load: a 32-bit value through an address register and an offset, unguarded.
bool fusable_load(const Insn& in);

// A fused block's load: its instruction, the spread it goes through, its offset.
struct FusedLoad {
  uint32_t pc, spread;
  uint64_t off;
};

// The registers the instructions [first, last) write.
std::set<uint32_t> written_in(const Kernel& k, uint32_t first, uint32_t last);

// A spread (address register) of a fused block whose loads, where its lanes lie apart, read
// one window of 4 or 8 words a lane (compiled::window): its loads all in one space, at
// offsets 4 bytes apart from the lowest, covering at least half the window's words; a global
// spread's loads all through one array (window_checks, at the entry: else the block runs
// instruction by instruction).
struct Window {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  uint32_t loads = 0, words = 0, pc = 0;  // words: 0 where it has none; pc: the first load's (its array's slot)
  bool shared = false, global = false, aligned = true;
  std::vector<uint32_t> pcs;
};
// The windows of the fused block [first, last), a spread apiece; the lanes loop's lines that
// fill each eight's (to `f`, at the top of its loop over the eights).
std::vector<Window> windows(const Kernel& k, uint32_t first, uint32_t last, const std::vector<uint32_t>& spreads, std::ostream& f);
// The entry's tests of the block's accesses, each `return false;`: the global loads' bounds
// (`bounds`, made as the block's lines were), each global window's loads in one array where
// its lanes lie apart, each spread's shared offsets (`range`) in the shared window.
std::string entry_checks(const std::string& bounds, const std::vector<Window>& win,
                         const std::vector<std::pair<uint64_t, uint64_t>>& range);
// The switch that picks the lanes loop by how each spread's lanes lie (opened; the caller
// closes it).
std::string lanes_switch(const std::string& name, size_t spreads);

// The entry's test, past the record cap, that the block's shared accesses repeat the race
// check's reference; and under it, each load noted in order.
std::string repeated_test(const std::vector<FusedLoad>& shared, const std::vector<std::pair<uint64_t, uint64_t>>& range);
std::string noted_test(const std::vector<FusedLoad>& loads, const std::vector<std::pair<uint64_t, uint64_t>>& range);

// A loop's own block: how far each spread moves a turn (empty where the block is not taken
// again), the entry's tests as a later turn makes them, and the text after a turn's lanes.
std::vector<uint64_t> spread_steps(const Kernel& k, uint32_t first, uint32_t last, const std::vector<uint32_t>& spreads);
std::string again(std::string checks);
struct Turn {
  std::vector<uint64_t> steps;  // each spread's
  std::string guard;            // the loop's branch's lanes (the text of its guard)
  uint32_t first = 0, len = 0;  // the block's first instruction and its length with the branch
  std::string checks, counted;  // the entry's bounds tests; its global arrays' test (counted)
  uint32_t loads = 0;
  bool shared = false;  // any shared load (checked against the race check's reference)
};
std::string next_turn(const Turn& t);

}  // namespace ws::ptx::fused
