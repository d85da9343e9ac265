// src/analysis/levels.h — one program seen at two levels: what its PTX asked for (the
// emulated device's trace) and what the hardware executed (the GPU tracer's SASS trace),
// line by line, with the reason where they differ ("ptxas merged 4 ld.shared.f32 into one
// 16-byte LDS.128").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace ws::analysis {

// One kind of instruction on a line at one level: its name, bytes a lane, and how many
// times warps executed it, per block recorded.
struct LevelOp {
  std::string instruction;  // "ld.shared.f32", "LDS.128"
  uint32_t bytes = 0;
  double per_block = 0;
  double cost = 0;          // mean sectors (global) or wavefronts (shared) a request
};

// A source line's accesses to one memory space, one direction, at both levels.
struct LineLevels {
  std::string file;  // the line's file, by its name's last part
  uint32_t line = 0;
  trace::Space space = trace::Space::Global;
  trace::Op op = trace::Op::Load;
  std::string code;
  std::vector<LevelOp> ptx, sass;
  double ptx_per_block = 0, sass_per_block = 0;  // warp instructions a block
  double ptx_bytes = 0, sass_bytes = 0;          // bytes the lanes moved, a block
  std::string verdict;  // "" when the two are the same; else why they differ
};

// The lines of launch `ptx_launch` of `ptx` beside those of launch `sass_launch` of `sass`
// (the same kernel of the same program), in line order.
std::vector<LineLevels> compare_levels(const trace::Trace& ptx, uint32_t ptx_launch, const trace::Trace& sass,
                                       uint32_t sass_launch);

// Whether `t` names its accesses' instructions (a program's trace: PTX or SASS opcodes);
// a catalog kernel's emulated trace is the source's own accesses, unnamed.
bool names_instructions(const trace::Trace& t);

// "512 LDS + 128 LDS.128": warp instructions a block of each kind; `none` when empty.
std::string level_ops_text(const std::vector<LevelOp>& ops, const std::string& none);

}  // namespace ws::analysis
