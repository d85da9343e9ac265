// src/ptx/bulk_store.cpp — the bulk copies the other way, shared to global memory:
// cp.async.bulk.global.shared::cta.bulk_group (a run of bytes), its .tensor form (a TMA
// box written back through a tensor map: the shared tile read under the map's swizzle,
// each element written at its place in the tensor, those outside the tensor not written),
// and cp.reduce.async.bulk(.tensor), which combines each element with global memory's as
// red does (atomic_value). Each thread's copies join a bulk group at
// cp.async.bulk.commit_group; the shared bytes are read when the copy is issued (recorded
// then, Form::BulkRead), and reach global memory when the thread's
// cp.async.bulk.wait_group N leaves at most N newer groups pending (recorded then,
// Form::BulkWrite), or when the block ends. A global read before that wait sees the old
// bytes; wait_group.read asks only that the shared bytes have been read, which they have.
#include <algorithm>
#include <cstring>

#include "ptx/block_run.h"
#include "ptx/reader.h"
#include "ptx/tensor_map.h"

namespace ws::ptx {

namespace {

bool has(const std::vector<std::string>& parts, const char* w) {
  return std::find(parts.begin() + 1, parts.end(), w) != parts.end();
}

// A tensor map's element type as an instruction's (a reduction needs it).
Type map_type(uint8_t dtype) {
  static const Type types[] = {Type::U8, Type::U16, Type::U32, Type::S32, Type::U64, Type::S64, Type::F16,
                               Type::F32, Type::F64, Type::BF16, Type::F32, Type::F32, Type::F32};
  return dtype < std::size(types) ? types[dtype] : Type::None;
}

}  // namespace

void decode_bulk_store(Insn& in, const std::vector<std::string>& parts, const std::string& module) {
  auto refuse = [&](const std::string& why) {
    throw Error(module + ":" + std::to_string(in.text_line) + ": " + in.opcode + ": " + why);
  };
  auto operands = [&](int lo, int hi) {
    if (in.nops < lo || in.nops > hi) refuse("wrong number of operands");
  };
  in.space = Space::Shared;  // the source; the destination is global memory
  if (has(parts, "commit_group")) {
    in.sub = uint8_t(AsyncOp::BulkCommit);
    operands(0, 0);
    return;
  }
  if (has(parts, "wait_group")) {
    in.sub = uint8_t(AsyncOp::BulkWait);
    operands(1, 1);
    if (in.o[0].kind != Operand::Imm) refuse("wait_group takes a constant");
    if (has(parts, "read")) in.mods |= kWide;
    return;
  }
  if (!has(parts, "global") || !has(parts, "shared::cta") || !has(parts, "bulk_group"))
    refuse("a bulk copy to global memory reads .shared::cta and completes in a .bulk_group");
  static const std::pair<const char*, AtomOp> ops[] = {{"add", AtomOp::Add}, {"min", AtomOp::Min}, {"max", AtomOp::Max},
                                                       {"and", AtomOp::And}, {"or", AtomOp::Or},   {"xor", AtomOp::Xor},
                                                       {"inc", AtomOp::Inc}, {"dec", AtomOp::Dec}};
  if (parts[1] == "reduce") {
    for (const auto& [w, op] : ops)
      if (has(parts, w)) in.reduce = uint8_t(1 + uint8_t(op));
    if (!in.reduce) refuse("a bulk reduction names its operation");
  }
  const int hint = has(parts, "L2::cache_hint");
  if (has(parts, "tensor")) {
    int dims = 0, named = 0;
    for (int d = 1; d <= 5; ++d)
      if (has(parts, (std::to_string(d) + "d").c_str())) dims = d, ++named;
    if (named != 1) refuse("a tensor copy names its dimensions (.1d to .5d)");
    operands(2 + hint, 2 + hint);
    if (in.o[0].kind != Operand::Addr || in.o[1].kind != Operand::Addr || in.o[0].count != dims)
      refuse("a tensor store takes [tensorMap, {" + std::string("x, y, z, w, v").substr(0, 3 * size_t(dims) - 2) + "}], [src]");
    in.sub = uint8_t(AsyncOp::TensorStore);
    return;
  }
  operands(3 + hint, 3 + hint);
  if (in.o[0].kind != Operand::Addr || in.o[1].kind != Operand::Addr) refuse("a bulk store takes [dst], [src], size");
  if (in.reduce && in.type == Type::None) refuse("a bulk reduction names its element type");
  in.sub = uint8_t(AsyncOp::BulkStore);
}

uint64_t BlockRun::bulk_store_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  switch (AsyncOp(in.sub)) {
    case AsyncOp::BulkCommit:
      for (uint32_t m = exec; m; m &= m - 1) ++bulk_committed_[w][size_t(std::countr_zero(m))];
      async_event(pc, in, w, exec, trace::Form::Commit, 0);
      return 0;
    case AsyncOp::BulkWait:
      // .read: the shared bytes were read at issue, so nothing is left to wait for.
      if (!(in.mods & kWide)) land_stores(w, exec, uint32_t(in.o[0].imm));
      async_event(pc, in, w, exec, trace::Form::Wait, uint32_t(in.o[0].imm));
      return 0;
    default: break;
  }
  uint64_t lanes = 0;
  for (uint32_t m = exec; m; m &= m - 1)
    lanes += AsyncOp(in.sub) == AsyncOp::TensorStore ? tensor_store_issue(pc, in, w, std::countr_zero(m))
                                                     : bulk_store_issue(pc, in, w, std::countr_zero(m));
  return lanes;
}

// cp.(reduce.)async.bulk.global.shared::cta: `size` bytes (a multiple of 16) from the
// thread's shared address to its global one.
uint64_t BlockRun::bulk_store_issue(uint32_t pc, const Insn& in, uint32_t w, int l) {
  const uint64_t dst = addr(in.o[0], w, l), src = addr(in.o[1], w, l);
  const uint64_t size = val(in.o[2], w, l) & 0xffffffffu;
  check_bulk(in, size, dst, src);
  if (in.reduce && size % type_bytes(in.type))
    insn_fault(in, "a reduction of " + std::to_string(size) + " bytes is not whole elements");
  const Where from = resolve(in, Space::Shared, src, uint32_t(size), w, l);
  resolve(in, Space::Global, dst, uint32_t(size), w, l);  // an address outside global memory faults at issue
  BulkStore s;
  s.type = in.type;
  s.bytes.assign(from.p, from.p + size);
  std::vector<uint64_t> read;
  for (uint64_t p = 0; p < size / 16; ++p) {
    s.piece.push_back(dst + 16 * p);
    s.keep.push_back(0xffffu);
    read.push_back(src + 16 * p);
  }
  s.pc = pc, s.warp = w, s.lane = l;
  issue_store(in, read, std::move(s));
  return size / 16;
}

// cp.(reduce.)async.bulk.tensor.Nd.global.shared::cta: the box at the thread's coordinates,
// read from shared memory as a TMA load would have laid it there (rows of box[0]
// elements, under the map's swizzle), each element inside the tensor written to its place.
uint64_t BlockRun::tensor_store_issue(uint32_t pc, const Insn& in, uint32_t w, int l) {
  const TensorBox box = tensor_box(in, in.o[0], w, l);
  const TensorMap& map = box.map;
  const int64_t* c0 = box.c0;
  const Type type = map_type(map.dtype);
  if (in.reduce && (type == Type::None || type_bytes(type) != map.elem_bytes)) insn_fault(in, "a reduction over a tensor map of packed elements");
  const uint64_t rows = box.rows, row_bytes = box.row_bytes, size = box.size;
  const uint64_t src = addr(in.o[1], w, l);
  if (src % 128) insn_fault(in, "a source not aligned to 128 bytes");
  resolve(in, Space::Shared, src, uint32_t(size), w, l);
  BulkStore s;
  s.type = type;
  std::vector<uint64_t> read;
  try {
  for (uint64_t r = 0; r < rows; ++r) {
    const auto [row_inside, row_at] = box_row(map, c0, r);
    for (uint64_t p = 0; p < row_bytes / 16; ++p) {
      const uint64_t o = r * row_bytes + 16 * p, from = src + swizzled(o, map.swizzle);
      const Where piece = resolve(in, Space::Shared, from, 16, w, l);
      uint16_t keep = 0;
      for (uint32_t e = 0; e < 16u / map.elem_bytes; ++e) {
        const int64_t x = c0[0] + int64_t((16 * p) / map.elem_bytes + e);
        if (!row_inside || x < 0 || uint64_t(x) >= map.dim[0]) continue;  // outside the tensor: not written
        resolve(in, Space::Global, row_at + uint64_t(x) * map.elem_bytes, map.elem_bytes, w, l);
        keep |= uint16_t(((1u << map.elem_bytes) - 1) << (e * map.elem_bytes));
      }
      if (!keep) continue;
      s.piece.push_back(row_at + uint64_t(c0[0]) * map.elem_bytes + 16 * p);
      s.keep.push_back(keep);
      s.bytes.insert(s.bytes.end(), piece.p, piece.p + 16);
      read.push_back(from);
    }
  }
  } catch (const Fault& f) {
    throw f.said_with("; " + box_text(map, c0));
  }
  s.pc = pc, s.warp = w, s.lane = l;
  issue_store(in, read, std::move(s));
  return size / 16;
}

void BlockRun::issue_store(const Insn& in, const std::vector<uint64_t>& from, BulkStore s) {
  s.group = bulk_committed_[s.warp][size_t(s.lane)];
  if (record_) {
    async_sites(s.pc, in, trace::Form::BulkRead, trace::Form::BulkWrite, 16, true);
    // The copy's records, 512 bytes each, are one instruction's. The race check sees each
    // piece read by the issuing thread (a record's "lanes" are pieces).
    record_pieces(s.pc, in, Space::Shared, from, s.warp, trace::Op::Load, [&](const Where* pieces, uint32_t mask) {
      for (uint32_t m = mask; m; m &= m - 1) {
        Where one[32];
        one[s.lane] = pieces[std::countr_zero(m)];
        shared_touch(s.pc, s.warp, 1u << s.lane, one, 16, RaceEnd::Read);
      }
    });
    s.recorded = true;
  }
  stores_.push_back(std::move(s));
}

// Writes (or reduces) a store's bytes into global memory, and records that write.
void BlockRun::land_store(const BulkStore& s) {
  const Insn& in = k_.code[s.pc];
  const uint32_t eb = s.type == Type::None ? 1 : type_bytes(s.type);
  for (size_t p = 0; p < s.piece.size(); ++p) {
    const Where to = resolve(in, Space::Global, s.piece[p], 16, s.warp, s.lane);
    const uint8_t* from = s.bytes.data() + 16 * p;
    for (uint32_t b = 0; b < 16; b += eb) {
      if (!((s.keep[p] >> b) & 1u)) continue;
      if (!in.reduce) {
        std::memcpy(to.p + b, from + b, eb);
        continue;
      }
      uint64_t old = 0, v = 0;
      std::memcpy(&old, to.p + b, eb);
      std::memcpy(&v, from + b, eb);
      // As global memory's red does, except that an f32 sum keeps its subnormals (the
      // H200's bulk reduction does, where red.global.add.f32 flushes them).
      const uint64_t nv = atomic_value(AtomOp(in.reduce - 1), s.type, s.type != Type::F32, old, v, 0);
      std::memcpy(to.p + b, &nv, eb);
    }
  }
  if (!record_ || !s.recorded) return;
  // The pieces written whole, 32 to a record, one instruction's: one seq for them all. (A
  // box's piece partly outside its tensor has its read recorded, not its write, so the
  // analysis sees the halves' counts differ and pairs none of them.)
  std::vector<uint64_t> whole;
  for (size_t p = 0; p < s.piece.size(); ++p)
    if (s.keep[p] == 0xffffu) whole.push_back(s.piece[p]);
  record_pieces(s.pc, in, Space::Global, whole, s.warp, trace::Op::Store);
}

void BlockRun::land_stores(uint32_t w, uint32_t lanes, uint32_t keep_groups) {
  auto due = [&](const BulkStore& s) {
    return s.warp == w && ((lanes >> s.lane) & 1u) && s.group + keep_groups < bulk_committed_[w][size_t(s.lane)];
  };
  for (const BulkStore& s : stores_)
    if (due(s)) land_store(s);
  std::erase_if(stores_, due);
}

// The block's end: every copy still pending lands (a grid's stores complete with it).
void BlockRun::land_all_stores() {
  for (const BulkStore& s : stores_) land_store(s);
  stores_.clear();
}

}  // namespace ws::ptx
