// src/ptx/matrix.cpp — the warp-collective matrix instructions that move data: ldmatrix and
// stmatrix (8x8 matrices of 16-bit elements, a row address from each of the first 8, 16 or
// 32 lanes; one record per instruction, Form::Matrix, 16 bytes a row), movmatrix (a
// transpose across the warp's registers), and wmma.load / wmma.store (a fragment as
// matrix.h lays it out; each lane's share recorded as plain accesses of up to 16 bytes).
// Also what the decoder asks of them: their words and operands checked at parse time.
#include <algorithm>
#include <cstring>

#include "ptx/block_run.h"
#include "ptx/matrix.h"
#include "ptx/reader.h"

namespace ws::ptx {

using matrix::Elem;
using matrix::Info;
using matrix::Part;

namespace {

// Registers a fragment of `n` elements of type `e` takes (a 64-bit element one each).
uint32_t regs_for(uint32_t n, Elem e) {
  const uint32_t bits = matrix::elem_bits(e);
  return bits == 64 ? n : (n * bits + 31) / 32;
}

// The registers each operand of a decoded matrix instruction must name.
std::string check_operands(const Insn& in, const Info& mi) {
  auto want = [&](size_t i, uint32_t n, const char* what) -> std::string {
    if (in.nops <= i || register_count(in.o[i]) != n)
      return std::string(what) + " must be " + std::to_string(n) + " register" + (n > 1 ? "s" : "");
    if (in.o[i].kind == Operand::Vec)
      for (uint32_t j = 0; j < n; ++j)
        if (in.o[i].vec[j] == kSink) return std::string(what) + " cannot hold '_'";
    return "";
  };
  auto addr = [&](size_t i) { return in.nops > i && in.o[i].kind == Operand::Addr; };
  switch (mi.part) {
    case Part::Ldmatrix:
      if (in.nops != 2 || !addr(1)) return "ldmatrix takes d, [address]";
      return want(0, mi.count, "its destination");
    case Part::Stmatrix:
      if (in.nops != 2 || !addr(0)) return "stmatrix takes [address], a";
      return want(1, mi.count, "its source");
    case Part::Movmatrix:
      if (in.nops != 2) return "movmatrix takes d, a";
      if (std::string w = want(0, 1, "its destination"); !w.empty()) return w;
      return want(1, 1, "its source");
    case Part::Mma:
    case Part::WmmaMma: {
      if (in.nops != 4) return "mma takes d, a, b, c";
      const bool w = mi.part == Part::WmmaMma;
      const matrix::Dims d = matrix::dims(mi.shape);
      const uint32_t na = d.m * d.k / 32, nb = d.k * d.n / 32, nc = d.m * d.n / 32;
      // wmma's f16 inputs come as eight f16x2 registers whatever the shape.
      const uint32_t ra = w && mi.a == Elem::F16 ? 8 : regs_for(na, mi.a), rb = w && mi.b == Elem::F16 ? 8 : regs_for(nb, mi.b);
      for (const auto& [i, n, what] : {std::tuple{0, regs_for(nc, mi.d), "d"}, std::tuple{1, ra, "a"},
                                       std::tuple{2, rb, "b"}, std::tuple{3, regs_for(nc, mi.c), "c"}})
        if (std::string why = want(size_t(i), n, what); !why.empty()) return why;
      return "";
    }
    default: {
      const bool load = mi.part != Part::StoreD;
      if (in.nops < 2 || in.nops > 3 || !addr(load ? 1 : 0)) return "wmma.load/store take a fragment, [address] and a stride";
      const matrix::Dims m = matrix::wmma_matrix(mi);
      const bool f16_input = mi.a == Elem::F16 && (mi.part == Part::LoadA || mi.part == Part::LoadB);
      return want(load ? 0 : 1, f16_input ? 8 : regs_for(m.m * m.n / 32, mi.a), "the fragment");
    }
  }
}

// Element e of a fragment whose registers are regs[0..]: its bits.
uint64_t get_elem(const uint64_t* regs, Elem t, uint32_t e) {
  const uint32_t bits = matrix::elem_bits(t);
  if (bits == 64) return regs[e];
  const uint32_t per_reg = 32 / bits;
  const uint64_t mask = (1ull << bits) - 1;
  return (regs[e / per_reg] >> (bits * (e % per_reg))) & mask;
}
void put_elem(uint64_t* regs, Elem t, uint32_t e, uint64_t v) {
  const uint32_t bits = matrix::elem_bits(t);
  if (bits == 64) {
    regs[e] = v;
    return;
  }
  const uint32_t per_reg = 32 / bits, sh = bits * (e % per_reg);
  const uint64_t mask = ((1ull << bits) - 1) << sh;
  regs[e / per_reg] = (regs[e / per_reg] & ~mask) | ((v << sh) & mask);
}

}  // namespace

std::string decode_matrix(Insn& in, const std::vector<std::string>& parts) {
  if (in.op == Opc::Cvt && std::find(parts.begin(), parts.end(), "tf32") != parts.end()) in.op = Opc::CvtTf32;
  if (in.op != Opc::Ldmatrix && in.op != Opc::Stmatrix && in.op != Opc::Movmatrix && in.op != Opc::Mma && in.op != Opc::Wmma)
    return "";
  Info mi;
  if (std::string why = matrix::decode(parts, mi); !why.empty()) return why;
  in.matrix = matrix::pack(mi);
  return check_operands(in, mi);
}

// .sync.aligned: every lane of the warp runs it together; a part of a warp would leave the
// others' elements undefined, so it stops with one line instead.
void BlockRun::whole_warp(const Insn& in, uint32_t w, uint32_t exec) {
  if (exec == ~0u) return;
  Fault f(in.opcode + " was run by " + std::to_string(std::popcount(exec)) +
          " lanes of a warp: it needs all 32 (in " + kernel_name(k_.name) + ")");
  place(f, in, w, std::countr_zero(exec | (exec == 0 ? 1u : 0u)));
  throw f;
}

// The registers of operand `o` for lane l: a vector's, or one register.
void BlockRun::fragment_in(const Operand& o, uint32_t w, int l, uint64_t* regs) {
  if (o.kind == Operand::Reg) regs[0] = reg(w, o.reg, l);
  else
    for (uint32_t j = 0; j < o.count; ++j) regs[j] = reg(w, o.vec[j], l);
}
void BlockRun::fragment_out(const Operand& o, uint32_t w, int l, const uint64_t* regs) {
  if (o.kind == Operand::Reg) reg(w, o.reg, l) = regs[0];
  else
    for (uint32_t j = 0; j < o.count; ++j) reg(w, o.vec[j], l) = regs[j];
}

// A record of this instruction whose site is marked with `form` (ldmatrix's rows).
void BlockRun::record_form(uint32_t pc, const Insn& in, trace::Op op, uint32_t bytes, uint32_t active, const Where* where,
                           uint32_t w, trace::Form form) {
  record(pc, in, op, bytes, active, where, w);
  if (!record_ || form == trace::Form::Plain) return;
  const uint32_t id = sites_[size_t(pc) * trace::kSpaceCount + size_t(where[std::countr_zero(active)].space)];
  if (id != trace::kNoBuffer) b_.trace().sites[id].form = form;
}

// ldmatrix d, [p] / stmatrix [p], a: lane 8m + r gives the address of row r of matrix m;
// register m of lane l holds row l/4, elements 2(l%4) and 2(l%4)+1 of matrix m (the lower
// first), or with .trans those of column l/4.
uint64_t BlockRun::ldmatrix_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  const Info mi = matrix::unpack(in.matrix);
  whole_warp(in, w, exec);
  const bool load = mi.part == Part::Ldmatrix;
  const uint32_t rows = 8u * mi.count;
  const uint32_t active = rows == 32 ? ~0u : (1u << rows) - 1;
  const Operand& ao = load ? in.o[1] : in.o[0];
  const Operand& data = load ? in.o[0] : in.o[1];
  Where where[32];
  for (uint32_t m = active; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    where[l] = resolve(in, in.space, addr(ao, w, l), 16, w, l);
  }
  if (record_) shared_touch(pc, w, active, where, 16, load ? RaceEnd::Read : RaceEnd::Write);
  // Element (r, c) of matrix m, 16 bits at row r's address.
  auto at = [&](uint32_t m, uint32_t r, uint32_t c) { return where[8 * m + r].p + 2 * c; };
  uint64_t frag[32][4] = {};
  if (!load)
    for (int l = 0; l < 32; ++l) fragment_in(data, w, l, frag[l]);
  for (int l = 0; l < 32; ++l) {
    for (uint32_t m = 0; m < mi.count; ++m) {
      for (uint32_t h = 0; h < 2; ++h) {
        const uint32_t r = mi.trans ? 2 * (uint32_t(l) % 4) + h : uint32_t(l) / 4;
        const uint32_t c = mi.trans ? uint32_t(l) / 4 : 2 * (uint32_t(l) % 4) + h;
        uint16_t v = 0;
        if (load) {
          std::memcpy(&v, at(m, r, c), 2);
          frag[l][m] |= uint64_t(v) << (16 * h);
        } else {
          v = uint16_t(frag[l][m] >> (16 * h));
          std::memcpy(at(m, r, c), &v, 2);
        }
      }
    }
  }
  if (load)
    for (int l = 0; l < 32; ++l) fragment_out(data, w, l, frag[l]);
  record_form(pc, in, load ? trace::Op::Load : trace::Op::Store, 16, active, where, w, trace::Form::Matrix);
  return uint64_t(std::popcount(active));
}

uint64_t BlockRun::stmatrix_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) { return ldmatrix_op(pc, in, w, exec); }

// movmatrix.trans d, a: the 8x8 matrix the warp's a registers hold (as ldmatrix lays a
// matrix out) transposed into d.
uint64_t BlockRun::movmatrix_op(uint32_t, const Insn& in, uint32_t w, uint32_t exec) {
  whole_warp(in, w, exec);
  uint64_t src[32];
  for (int l = 0; l < 32; ++l) src[l] = val(in.o[1], w, l);
  auto elem = [&](uint32_t r, uint32_t c) { return (src[r * 4 + c / 2] >> (16 * (c % 2))) & 0xffff; };
  for (int l = 0; l < 32; ++l) {
    const uint32_t r = 2 * (uint32_t(l) % 4), c = uint32_t(l) / 4;
    set(in.o[0], w, l, elem(r, c) | elem(r + 1, c) << 16);
  }
  return 0;
}

// wmma.load.{a,b,c} d, [p], stride / wmma.store.d [p], a, stride: lane l's elements (matrix.h)
// at p + (row * stride + col) * size, or (col * stride + row) * size for .col. Where a lane's
// share lies in consecutive bytes it is moved in pieces of up to 16 bytes, one record each;
// else (an accumulator read or written column-major) element by element.
uint64_t BlockRun::wmma_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  const Info mi = matrix::unpack(in.matrix);
  if (mi.part == Part::WmmaMma) return mma_op(pc, in, w, exec);
  whole_warp(in, w, exec);
  const bool load = mi.part != Part::StoreD;
  const Operand& ao = load ? in.o[1] : in.o[0];
  const Operand& data = load ? in.o[0] : in.o[1];
  const matrix::Dims dm = matrix::wmma_matrix(mi);
  const uint32_t per = dm.m * dm.n / 32, eb = matrix::elem_bits(mi.a) / 8;
  const bool frag_col = (mi.part == Part::LoadA || mi.part == Part::LoadB) && mi.a_col;  // else read row-major
  const bool runs = frag_col == mi.a_col;
  const uint32_t piece = runs ? std::min<uint32_t>(16, per * eb) : eb, pieces = per * eb / piece, in_piece = piece / eb;
  const uint32_t cap = register_count(data) * (eb == 8 ? 1 : 4 / eb);
  uint64_t frag[32][8] = {};
  if (!load)
    for (int l = 0; l < 32; ++l) fragment_in(data, w, l, frag[l]);
  uint64_t lanes = 0;
  for (uint32_t k = 0; k < pieces; ++k) {
    Where where[32];
    for (int l = 0; l < 32; ++l) {
      const uint64_t stride = in.nops > 2 ? uint32_t(val(in.o[2], w, l)) : (mi.a_col ? dm.m : dm.n);
      const matrix::At at = matrix::wmma_at(dm.m, dm.n, frag_col, l, k * in_piece);
      const uint64_t off = mi.a_col ? uint64_t(at.col) * stride + at.row : uint64_t(at.row) * stride + at.col;
      where[l] = resolve(in, in.space, addr(ao, w, l) + off * eb, piece, w, l);
    }
    if (record_) shared_touch(pc, w, ~0u, where, piece, load ? RaceEnd::Read : RaceEnd::Write);
    for (int l = 0; l < 32; ++l)
      for (uint32_t i = 0; i < in_piece; ++i) {
        uint64_t v = 0;
        if (load) {
          std::memcpy(&v, where[l].p + i * eb, eb);
          put_elem(frag[l], mi.a, k * in_piece + i, v);
        } else {
          v = get_elem(frag[l], mi.a, k * in_piece + i);
          std::memcpy(where[l].p + i * eb, &v, eb);
        }
      }
    record(pc, in, load ? trace::Op::Load : trace::Op::Store, piece, ~0u, where, w);
    lanes += 32;
  }
  if (load) {
    for (int l = 0; l < 32; ++l) {
      for (uint32_t e = per; e < cap; ++e) put_elem(frag[l], mi.a, e, get_elem(frag[l], mi.a, e % per));
      fragment_out(data, w, l, frag[l]);
    }
  }
  return lanes;
}

}  // namespace ws::ptx
