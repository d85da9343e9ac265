// src/analysis/fragments.cpp — the PTX ISA's fragment layouts of mma.sync (sections
// "Matrix Fragments for mma.m16n8k8 / m16n8k16 / m16n8k32"), one small function per
// operand and element type: lane l is in group g = l / 4 at place t = l % 4 of it.
#include "analysis/fragments.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace ws::analysis {

namespace {

struct Place {
  uint32_t row, col;
};

// The element types the layouts depend on: 16-bit floats, tf32, and 8-bit integers.
enum class Kind { Half, Tf32, Byte };

bool kind_of(const std::string& t, Kind& k) {
  if (t == "f16" || t == "bf16") k = Kind::Half;
  else if (t == "tf32") k = Kind::Tf32;
  else if (t == "s8" || t == "u8") k = Kind::Byte;
  else return false;
  return true;
}

// Elements of a type in one 32-bit register.
uint32_t per_reg(const std::string& t) {
  return t == "f16" || t == "bf16" ? 2 : t == "s8" || t == "u8" || t == "e4m3" || t == "e5m2" ? 4 : 1;
}

// A (m16 × k): a_i of lane l.
Place a_place(uint32_t k, Kind kind, uint32_t l, uint32_t i) {
  const uint32_t g = l >> 2, t = l % 4;
  if (kind == Kind::Tf32)  // m16n8k8: a0, a2 on row g, a1, a3 on row g + 8; a2, a3 four columns on
    return {g + ((i & 1) ? 8u : 0u), t + (i >= 2 ? 4u : 0u)};
  if (kind == Kind::Byte) {
    if (k == 16) return {g + (i >= 4 ? 8u : 0u), t * 4 + (i & 3)};
    // m16n8k32: a0-a3 and a8-a11 on row g, the others on row g + 8; a8 … sixteen columns on.
    const bool low = i < 4 || (i >= 8 && i < 12);
    return {g + (low ? 0u : 8u), t * 4 + (i & 3) + (i >= 8 ? 16u : 0u)};
  }
  if (k == 8) return {g + (i >= 2 ? 8u : 0u), t * 2 + (i & 1)};
  // m16n8k16: a0, a1, a4, a5 on row g; a4 … eight columns on.
  const bool low = i < 2 || (i >= 4 && i < 6);
  return {g + (low ? 0u : 8u), t * 2 + (i & 1) + (i >= 4 ? 8u : 0u)};
}

// B (k × n8): b_i of lane l; the column is always the lane's group.
Place b_place(uint32_t k, Kind kind, uint32_t l, uint32_t i) {
  const uint32_t g = l >> 2, t = l % 4;
  if (kind == Kind::Tf32) return {t + (i ? 4u : 0u), g};
  if (kind == Kind::Byte) return {k == 16 ? t * 4 + i : t * 4 + (i & 3) + (i >= 4 ? 16u : 0u), g};
  if (k == 8) return {t * 2 + i, g};
  return {t * 2 + (i & 1) + (i >= 2 ? 8u : 0u), g};
}

// C / D (m16 × n8), every shape and type here: c0, c1 on row g, c2, c3 on row g + 8.
Place c_place(uint32_t l, uint32_t i) { return {(l >> 2) + (i >= 2 ? 8u : 0u), (l % 4) * 2 + (i & 1)}; }

template <class F>
FragmentGrid grid(char name, uint32_t rows, uint32_t cols, const std::string& type, uint32_t per_lane, F place) {
  FragmentGrid g;
  g.name = name;
  g.rows = rows;
  g.cols = cols;
  g.type = type;
  g.regs = per_lane / per_reg(type);
  g.cells.resize(size_t(rows) * cols);
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t i = 0; i < per_lane; ++i) {
      const Place p = place(l, i);
      g.cells[size_t(p.row) * cols + p.col] = {uint8_t(l), uint8_t(i / per_reg(type)), uint8_t(i)};
    }
  return g;
}

// A grid read from shared memory through a descriptor: no lane holds its elements.
FragmentGrid shared_grid(char name, uint32_t rows, uint32_t cols, const std::string& type) {
  FragmentGrid g;
  g.name = name;
  g.rows = rows;
  g.cols = cols;
  g.type = type;
  g.shared = true;
  g.cells.assign(size_t(rows) * cols, FragmentCell{kSharedCell, 0, 0});
  return g;
}

// wgmma.mma_async.sync.aligned.m64nNk16.dtype.atype.btype (and m64nNk32 of s8 / u8 into
// s32): the warpgroup's 64 rows of A and D, warp w's lanes holding rows 16w to 16w + 15 as
// mma.sync's m16n8k16 (m16n8k32) A (when A is in registers) and C lay them out; B (and A from a descriptor) from shared memory. Element e
// of a lane's D at row g (+8 from e % 4 = 2), column 8 (e / 4) + 2t + e % 2.
bool wgmma_fragments(const std::vector<std::string>& parts, bool a_regs, Fragments& out, std::string& error,
                     const std::string& instruction) {
  auto refuse = [&](const std::string& why) {
    error = "no fragment layout for '" + instruction + "': " + why;
    return false;
  };
  size_t s = 1;
  while (s < parts.size() && parts[s].rfind("m64n", 0) != 0) ++s;
  if (s + 3 >= parts.size()) return refuse("not a wgmma.mma_async instruction with its shape and types");
  const std::string shape = parts[s];
  const size_t kat = shape.find('k');
  if (kat == std::string::npos || kat <= 4 || kat > 7 ||
      !std::all_of(shape.begin() + 4, shape.begin() + long(kat), [](char ch) { return ch >= '0' && ch <= '9'; }))
    return refuse("not a wgmma.mma_async instruction with its shape and types");
  const uint32_t n = uint32_t(std::stoul(shape.substr(4, kat - 4)));
  size_t t = s + 1;
  if (t < parts.size() && parts[t] == "satfinite") ++t;
  if (t + 2 >= parts.size()) return refuse("not a wgmma.mma_async instruction with its shape and types");
  const std::string d = parts[t], a = parts[t + 1], b = parts[t + 2];
  auto byte_type = [](const std::string& x) { return x == "s8" || x == "u8" || x == "e4m3" || x == "e5m2"; };
  const bool bytes = byte_type(a) && byte_type(b);  // K 32
  const bool tf32 = a == "tf32" && b == "tf32";     // K 8
  if (!bytes && !tf32 && ((a != "f16" && a != "bf16") || a != b))
    return refuse("inputs of type ." + a + " are not drawn (f16, bf16, tf32, e4m3, e5m2, s8, u8 are)");
  const uint32_t k = bytes ? 32 : tf32 ? 8 : 16;
  out = Fragments{};
  out.m = 64;
  out.k = k;
  out.full_n = n;
  out.warps = 4;
  out.n = std::min<uint32_t>(n, 32);
  out.shape = shape;
  // One warp's 16 rows, then the same for the others 16 rows on.
  auto by_warps = [](FragmentGrid g) {
    const size_t one = g.cells.size();
    g.rows *= 4;
    g.cells.resize(one * 4);
    for (uint8_t w = 1; w < 4; ++w)
      for (size_t i = 0; i < one; ++i) {
        g.cells[w * one + i] = g.cells[i];
        g.cells[w * one + i].warp = w;
      }
    return g;
  };
  const Kind kind = bytes ? Kind::Byte : tf32 ? Kind::Tf32 : Kind::Half;
  out.a = a_regs ? by_warps(grid('A', 16, k, a, bytes ? 16 : tf32 ? 4 : 8, [kind, k](uint32_t l, uint32_t i) { return a_place(k, kind, l, i); }))
                 : shared_grid('A', 64, k, a);
  out.b = shared_grid('B', k, out.n, b);
  const uint32_t per_lane = n / 2;  // D's elements a lane holds (f32: a register each; f16: two)
  FragmentGrid c = grid('C', 16, out.n, d, 0, [](uint32_t, uint32_t) { return Place{0, 0}; });
  c.regs = per_lane / per_reg(d);
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t e = 0; e < per_lane; ++e) {
      const Place p = c_place(l, e % 4);  // mma.sync's C, in the n8 block e / 4
      const uint32_t col = p.col + 8 * (e / 4);
      if (col < out.n) c.cells[size_t(p.row) * out.n + col] = {uint8_t(l), uint8_t(e / per_reg(d)), uint8_t(e)};
    }
  out.c = by_warps(std::move(c));
  return true;
}

}  // namespace

bool mma_fragments(const std::string& instruction, Fragments& out, std::string& error) {
  static const std::string kRegs = " (A in registers)";
  const bool a_regs = instruction.size() > kRegs.size() && instruction.compare(instruction.size() - kRegs.size(), kRegs.size(), kRegs) == 0;
  std::vector<std::string> parts;
  std::stringstream ss(a_regs ? instruction.substr(0, instruction.size() - kRegs.size()) : instruction);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  auto refuse = [&](const std::string& why) {
    error = "no fragment layout for '" + instruction + "': " + why;
    return false;
  };
  if (!parts.empty() && parts[0] == "wgmma") return wgmma_fragments(parts, a_regs, out, error, instruction);
  if (parts.empty() || parts[0] != "mma")
    return refuse(parts.size() && parts[0] == "wmma" ? "the PTX ISA leaves wmma's fragments to the implementation"
                                                      : "not an mma.sync instruction");
  size_t s = 1;
  while (s < parts.size() && parts[s].rfind("m16n8k", 0) != 0) ++s;
  if (s == parts.size()) return refuse("only the m16n8k8, m16n8k16 and m16n8k32 shapes are drawn");
  const std::string shape = parts[s];
  std::vector<std::string> types;  // d, a, b, c
  for (size_t i = s + 1; i < parts.size(); ++i)
    if (parts[i] != "row" && parts[i] != "col" && parts[i] != "satfinite") types.push_back(parts[i]);
  if (types.size() != 4) return refuse("expected the d, a, b and c types after the shape");
  Kind kind;
  if (!kind_of(types[1], kind) || (types[1] != types[2] && !(kind == Kind::Byte && per_reg(types[2]) == 4)))
    return refuse("inputs of type ." + types[1] + " are not drawn (f16, bf16, tf32, s8, u8 are)");
  uint32_t k = 0;
  if (shape == "m16n8k8" && kind != Kind::Byte) k = 8;
  else if (shape == "m16n8k16" && kind != Kind::Tf32) k = 16;
  else if (shape == "m16n8k32" && kind == Kind::Byte) k = 32;
  else return refuse("." + types[1] + " inputs in shape ." + shape + " are not drawn");
  out = Fragments{};
  out.m = 16;
  out.n = 8;
  out.k = k;
  out.shape = shape;
  // Each lane holds an equal share: 16·k / 32 elements of A, k·8 / 32 of B, 4 of C.
  out.a = grid('A', 16, k, types[1], 16 * k / 32, [&](uint32_t l, uint32_t i) { return a_place(k, kind, l, i); });
  out.b = grid('B', k, 8, types[2], k * 8 / 32, [&](uint32_t l, uint32_t i) { return b_place(k, kind, l, i); });
  out.c = grid('C', 16, 8, types[3], 4, [](uint32_t l, uint32_t i) { return c_place(l, i); });
  return true;
}

}  // namespace ws::analysis
