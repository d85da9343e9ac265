// src/ptx/fragments.cpp — the matrix instructions' words read into matrix::Info (which
// shapes go with which types, checked here: the opcodes.def forms take words one by one),
// and the fragment layouts of matrix.h: mma.sync's from the PTX ISA's figures, wmma's by
// this interpreter's own rule.
#include <algorithm>
#include <map>

#include "ptx/matrix.h"

namespace ws::ptx::matrix {

uint32_t pack(const Info& i) {
  return uint32_t(i.shape) | uint32_t(i.part) << 4 | uint32_t(i.count) << 8 | uint32_t(i.trans) << 11 |
         uint32_t(i.a_col) << 12 | uint32_t(i.b_col) << 13 | uint32_t(i.satfinite) << 14 | uint32_t(i.d) << 16 |
         uint32_t(i.a) << 20 | uint32_t(i.b) << 24 | uint32_t(i.c) << 28;
}

Info unpack(uint32_t v) {
  Info i;
  i.shape = Shape(v & 15);
  i.part = Part((v >> 4) & 15);
  i.count = uint8_t((v >> 8) & 7);
  i.trans = (v >> 11) & 1;
  i.a_col = (v >> 12) & 1;
  i.b_col = (v >> 13) & 1;
  i.satfinite = (v >> 14) & 1;
  i.d = Elem((v >> 16) & 15);
  i.a = Elem((v >> 20) & 15);
  i.b = Elem((v >> 24) & 15);
  i.c = Elem((v >> 28) & 15);
  return i;
}

Dims dims(Shape s) {
  switch (s) {
    case Shape::M8N8: return {8, 8, 0};
    case Shape::M16N8K8: return {16, 8, 8};
    case Shape::M16N8K16: return {16, 8, 16};
    case Shape::M16N8K32: return {16, 8, 32};
    case Shape::M8N8K4: return {8, 8, 4};
    case Shape::M16N16K16: return {16, 16, 16};
    case Shape::M32N8K16: return {32, 8, 16};
    case Shape::M8N32K16: return {8, 32, 16};
    case Shape::M16N16K8: return {16, 16, 8};
    case Shape::None: break;
  }
  return {};
}

uint32_t elem_bits(Elem e) {
  switch (e) {
    case Elem::S8: case Elem::U8: return 8;
    case Elem::B16: case Elem::F16: case Elem::BF16: return 16;
    case Elem::F64: return 64;
    case Elem::None: return 0;
    default: return 32;
  }
}

namespace {

const std::map<std::string, Shape>& shapes() {
  static const std::map<std::string, Shape> m{
      {"m8n8", Shape::M8N8},         {"m16n8k8", Shape::M16N8K8},     {"m16n8k16", Shape::M16N8K16},
      {"m16n8k32", Shape::M16N8K32}, {"m8n8k4", Shape::M8N8K4},       {"m16n16k16", Shape::M16N16K16},
      {"m32n8k16", Shape::M32N8K16}, {"m8n32k16", Shape::M8N32K16},   {"m16n16k8", Shape::M16N16K8}};
  return m;
}
const std::map<std::string, Elem>& elems() {
  static const std::map<std::string, Elem> m{{"b16", Elem::B16}, {"f16", Elem::F16}, {"bf16", Elem::BF16},
                                             {"tf32", Elem::TF32}, {"f32", Elem::F32}, {"f64", Elem::F64},
                                             {"s8", Elem::S8},   {"u8", Elem::U8},   {"s32", Elem::S32}};
  return m;
}
bool int8(Elem e) { return e == Elem::S8 || e == Elem::U8; }
bool half(Elem e) { return e == Elem::F16 || e == Elem::BF16; }

// mma.sync's shapes and types, as the PTX ISA pairs them (the ones implemented here).
std::string check_mma(const Info& i) {
  const Shape s = i.shape;
  if (i.a_col || !i.b_col) return "mma.sync is implemented with .row.col only";
  if (half(i.a) && i.b == i.a && (s == Shape::M16N8K8 || s == Shape::M16N8K16)) {
    const bool f16_acc = i.a == Elem::F16 && (i.d == Elem::F16 || i.d == Elem::F32) && (i.c == Elem::F16 || i.c == Elem::F32);
    if (f16_acc || (i.d == Elem::F32 && i.c == Elem::F32)) return "";
  }
  if (i.a == Elem::TF32 && i.b == Elem::TF32 && s == Shape::M16N8K8 && i.d == Elem::F32 && i.c == Elem::F32) return "";
  if (int8(i.a) && int8(i.b) && (s == Shape::M16N8K16 || s == Shape::M16N8K32) && i.d == Elem::S32 && i.c == Elem::S32)
    return "";
  if (i.a == Elem::F64 && i.b == Elem::F64 && s == Shape::M8N8K4 && i.d == Elem::F64 && i.c == Elem::F64) return "";
  return "this shape with these types is not implemented";
}

// wmma's shapes and the types each part takes with them.
std::string check_wmma(const Info& i) {
  const Shape s = i.shape;
  const bool big = s == Shape::M16N16K16 || s == Shape::M32N8K16 || s == Shape::M8N32K16;
  auto input_ok = [&](Elem e) {
    return (big && (half(e) || int8(e))) || (s == Shape::M16N16K8 && e == Elem::TF32) || (s == Shape::M8N8K4 && e == Elem::F64);
  };
  auto acc_ok = [&](Elem e) {
    return (big && (e == Elem::F16 || e == Elem::F32 || e == Elem::S32)) || (s == Shape::M16N16K8 && e == Elem::F32) ||
           (s == Shape::M8N8K4 && e == Elem::F64);
  };
  if (i.part == Part::LoadA || i.part == Part::LoadB) return input_ok(i.a) ? "" : "this shape with this type is not implemented";
  if (i.part == Part::LoadC || i.part == Part::StoreD) return acc_ok(i.a) ? "" : "this shape with this type is not implemented";
  // wmma.mma: A and B of one type; integer inputs accumulate in s32, halves in f16 or f32
  // (bf16 in f32 only), tf32 and f64 in their own.
  if (!input_ok(i.a) || i.b != i.a || !acc_ok(i.d) || !acc_ok(i.c)) return "this shape with these types is not implemented";
  const bool ok = int8(i.a) ? i.d == Elem::S32 && i.c == Elem::S32
                  : i.a == Elem::F16 ? i.d != Elem::S32 && i.c != Elem::S32
                  : i.a == Elem::BF16 || i.a == Elem::TF32 ? i.d == Elem::F32 && i.c == Elem::F32
                                                            : true;
  return ok ? "" : "these types together are not implemented";
}

}  // namespace

std::string decode(const std::vector<std::string>& parts, Info& info) {
  info = Info{};
  const std::string& base = parts[0];
  std::vector<Elem> types;
  std::vector<bool> layouts;  // row (false) / col (true), in order
  int counts = 0, shapes_seen = 0, wmma_ops = 0, wmma_parts = 0;
  bool sync = false, aligned = false;
  for (size_t p = 1; p < parts.size(); ++p) {
    const std::string& w = parts[p];
    if (auto s = shapes().find(w); s != shapes().end()) info.shape = s->second, ++shapes_seen;
    else if (auto e = elems().find(w); e != elems().end()) types.push_back(e->second);
    else if (w == "x1" || w == "x2" || w == "x4") info.count = uint8_t(w[1] - '0'), ++counts;
    else if (w == "trans") info.trans = true;
    else if (w == "row" || w == "col") layouts.push_back(w == "col");
    else if (w == "sync") sync = true;
    else if (w == "aligned") aligned = true;
    else if (w == "satfinite") info.satfinite = true;
    else if (w == "load" || w == "store" || w == "mma") ++wmma_ops, info.part = w == "mma" ? Part::WmmaMma : w == "load" ? Part::LoadA : Part::StoreD;
    else if (w == "a" || w == "b" || w == "c" || w == "d") {
      ++wmma_parts;
      if (info.part == Part::LoadA) info.part = w == "a" ? Part::LoadA : w == "b" ? Part::LoadB : w == "c" ? Part::LoadC : Part::WmmaMma;
      else if (info.part == Part::StoreD && w != "d") return "wmma.store stores the .d fragment only";
    }
  }
  if (!sync || !aligned) return "the .sync.aligned form is the one implemented";
  if (shapes_seen != 1) return "one shape is needed";
  if (base == "ldmatrix" || base == "stmatrix" || base == "movmatrix") {
    info.part = base == "ldmatrix" ? Part::Ldmatrix : base == "stmatrix" ? Part::Stmatrix : Part::Movmatrix;
    if (info.shape != Shape::M8N8 || types.size() != 1 || types[0] != Elem::B16) return "only .m8n8 .b16 is implemented";
    if (base == "movmatrix") return info.trans && counts == 0 ? "" : "movmatrix is implemented as .trans only";
    if (counts != 1) return "one of .x1, .x2, .x4 is needed";
    info.a = Elem::B16;
    return "";
  }
  if (base == "mma") {
    info.part = Part::Mma;
    if (types.size() != 4 || layouts.size() != 2) return "mma.sync needs .alayout.blayout and four types";
    info.d = types[0], info.a = types[1], info.b = types[2], info.c = types[3];
    info.a_col = layouts[0], info.b_col = layouts[1];
    if (info.satfinite && !int8(info.a)) return "the modifier .satfinite is taken with integer inputs only";
    return check_mma(info);
  }
  // wmma
  if (wmma_ops != 1) return "one of .load, .store, .mma is needed";
  if (info.part == Part::WmmaMma) {
    if (wmma_parts != 0 || layouts.size() != 2) return "wmma.mma needs .alayout.blayout";
    info.a_col = layouts[0], info.b_col = layouts[1];
    if (types.size() == 2) info.d = types[0], info.c = types[1], info.a = info.b = Elem::F16;  // .dtype.ctype: f16 inputs
    else if (types.size() == 4) info.d = types[0], info.a = types[1], info.b = types[2], info.c = types[3];
    else return "wmma.mma needs its types";
    if (info.satfinite && !int8(info.a) && info.d != Elem::F16) return "the modifier .satfinite is not implemented here";
    return check_wmma(info);
  }
  if (wmma_parts != 1 || layouts.size() != 1 || types.size() != 1) return "wmma.load/store need a part, a layout and a type";
  if (info.satfinite) return "the modifier .satfinite is taken by wmma.mma only";
  info.a_col = layouts[0];
  info.a = types[0];
  return check_wmma(info);
}

// ---- mma.sync fragments (the PTX ISA's figures) --------------------------------------------
// g = lane / 4 (the group), t = lane % 4 (the thread in it).

uint32_t mma_count_a(const Info& in) {
  const Dims d = dims(in.shape);
  return d.m * d.k / 32;
}
uint32_t mma_count_b(const Info& in) {
  const Dims d = dims(in.shape);
  return d.k * d.n / 32;
}
uint32_t mma_count_c(const Info& in) {
  const Dims d = dims(in.shape);
  return d.m * d.n / 32;
}

At mma_a(const Info& in, int lane, uint32_t i) {
  const uint32_t g = uint32_t(lane) / 4, t = uint32_t(lane) % 4;
  switch (in.shape) {
    case Shape::M8N8K4: return {g, t};
    case Shape::M16N8K8:
      if (in.a == Elem::TF32) return {g + 8 * (i & 1), t + 4 * (i >> 1)};
      return {g + 8 * (i >> 1), 2 * t + (i & 1)};
    case Shape::M16N8K16:
      if (int8(in.a)) return {g + 8 * (i >> 2), 4 * t + (i & 3)};
      return {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
    case Shape::M16N8K32: return {g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)};
    default: return {};
  }
}

At mma_b(const Info& in, int lane, uint32_t i) {
  const uint32_t g = uint32_t(lane) / 4, t = uint32_t(lane) % 4;
  switch (in.shape) {
    case Shape::M8N8K4: return {t, g};
    case Shape::M16N8K8:
      if (in.a == Elem::TF32) return {t + 4 * i, g};
      return {2 * t + i, g};
    case Shape::M16N8K16:
      if (int8(in.a)) return {4 * t + i, g};
      return {2 * t + (i & 1) + 8 * (i >> 1), g};
    case Shape::M16N8K32: return {4 * t + (i & 3) + 16 * (i >> 2), g};
    default: return {};
  }
}

At mma_c(const Info& in, int lane, uint32_t i) {
  const uint32_t g = uint32_t(lane) / 4, t = uint32_t(lane) % 4;
  if (in.shape == Shape::M8N8K4) return {g, 2 * t + i};
  return {g + 8 * (i >> 1), 2 * t + (i & 1)};
}

// ---- wmma fragments (this interpreter's layout) ------------------------------------------

Dims wmma_matrix(const Info& in) {
  const Dims d = dims(in.shape);
  switch (in.part) {
    case Part::LoadA: return {d.m, d.k, 0};
    case Part::LoadB: return {d.k, d.n, 0};
    default: return {d.m, d.n, 0};
  }
}

At wmma_at(uint32_t rows, uint32_t cols, bool col_major, int lane, uint32_t e) {
  const uint32_t per = rows * cols / 32;
  const uint32_t q = uint32_t(lane) * per + e % per;
  return col_major ? At{q % rows, q / rows} : At{q / cols, q % cols};
}

}  // namespace ws::ptx::matrix
