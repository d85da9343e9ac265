// src/analysis/fragments.h — which lane of a warp holds which element of an mma.sync's
// operands: the PTX ISA's fragment layouts ("Matrix Fragments for mma.m16n8k*"), from the
// instruction's shape and types, as grids a view draws. Depends on nothing but the
// standard library.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ws::analysis {

// One element of an operand: the lane that holds it, the register of that lane's operand
// vector it sits in, and its index among the lane's elements (a0 … a7, b0 …, c0 …).
struct FragmentCell {
  uint8_t lane = 0;           // kSharedCell: read from shared memory through a descriptor, no lane holds it
  uint8_t reg = 0;
  uint8_t elem = 0;
  uint8_t warp = 0;           // wgmma: the warp of the warpgroup (0-3) whose lane holds it
};

// One operand as a rows × cols grid, row-major.
constexpr uint8_t kSharedCell = 0xff;

struct FragmentGrid {
  char name = 'A';           // 'A', 'B', or 'C' (C and D share one layout)
  bool shared = false;       // read from shared memory through a descriptor (wgmma): no lanes
  uint32_t rows = 0, cols = 0;
  std::string type;          // "f16", "tf32", "s8", "f32", "s32"
  uint32_t regs = 0;         // registers per lane
  std::vector<FragmentCell> cells;
  const FragmentCell& at(uint32_t r, uint32_t c) const { return cells[size_t(r) * cols + c]; }
};

struct Fragments {
  uint32_t m = 0, n = 0, k = 0;
  FragmentGrid a, b, c;      // A is m × k, B is k × n, C/D is m × n
  std::string shape;         // "m16n8k16"
  // wgmma: the grids are the warpgroup's m64nNk16, A and D over its four warps (warp w
  // holds rows 16w to 16w + 15, each as mma.sync's m16 layout), the first `n` of the
  // shape's `full_n` columns drawn (the layout repeats every 8); 0 for mma.sync.
  uint32_t full_n = 0;
  uint32_t warps = 1;        // the warps whose lanes hold A and D: 4 for wgmma
};

// The layouts of `instruction` ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"):
// m16n8k16 with f16 / bf16 inputs, m16n8k8 with f16 / bf16 / tf32, m16n8k32 with s8 / u8;
// and wgmma.mma_async m64nNk16 with f16 / bf16 inputs and m64nNk32 with s8 / u8 (the whole
// warpgroup's; A from registers
// when the instruction ends " (A in registers)", as its event site names it, else from
// shared memory).
// False, with one line in `error` naming what is not drawn ("no fragment layout for
// 'wmma.mma.sync…': the PTX ISA leaves wmma's fragments unspecified"), for anything else.
bool mma_fragments(const std::string& instruction, Fragments& out, std::string& error);

}  // namespace ws::analysis
