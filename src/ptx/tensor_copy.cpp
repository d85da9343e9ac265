// src/ptx/tensor_copy.cpp — cp.async.bulk.tensor (the tensor memory accelerator's copy) of
// a box of 1 to 5 dimensions from global to shared memory, as a tensor map made by the runtime's
// cuTensorMapEncodeTiled describes it (tensor_map.h): the box's elements read at issue,
// those outside the tensor as zeros, laid out row after row in shared memory (a row: the
// box's extent in dimension 0; rows in the order of dimensions 1, 2, ...) under the map's swizzle, landed when the mbarrier's phase completes (mbarrier.cpp). Recorded as a
// box: one record per 512 bytes, each lane a 16-byte piece, the read at issue
// (Form::BulkRead) and the write when it lands (Form::BulkWrite).
#include <bit>
#include <cstring>

#include "ptx/block_run.h"
#include "ptx/tensor_map.h"

namespace ws::ptx {

BlockRun::TensorBox BlockRun::tensor_box(const Insn& in, const Operand& o, uint32_t w, int l) {
  TensorBox b;
  const Where at = resolve(in, Space::Generic, addr(o, w, l), sizeof(TensorMap), w, l);
  std::memcpy(&b.map, at.p, sizeof b.map);
  if (const std::string why = tensor_map_problem(b.map); !why.empty()) insn_fault(in, why);
  if (b.map.rank != o.count)
    insn_fault(in, "a tensor map of rank " + std::to_string(b.map.rank) + " for a " + std::to_string(o.count) + "-d copy");
  for (uint32_t i = 0; i < b.map.rank; ++i) b.c0[i] = int32_t(reg(w, o.vec[i], l));
  for (uint32_t i = 1; i < TensorMap::kMaxRank; ++i) b.rows *= b.map.box[i];
  b.row_bytes = uint64_t(b.map.box[0]) * b.map.elem_bytes;
  b.size = b.row_bytes * b.rows;
  return b;
}

// tensormap.replace.tile.FIELD [map], (ord,) value: a field of the map at `map` (shared or
// global memory, as the instruction says) set in this device's layout: the global address,
// dimension ord's extent (elements), or the stride of dimension ord + 1 (bytes, as
// cuTensorMapEncodeTiled's strides count them). tensormap.cp_fenceproxy [dst], [src], 128:
// the map copied from shared to global memory, where a TMA copy reads it. Every executing
// lane acts (a warp's lanes write the same map with the same value).
uint64_t BlockRun::tensormap_op(uint32_t, const Insn& in, uint32_t w, uint32_t exec) {
  const TensormapOp op = TensormapOp(in.sub);
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (op == TensormapOp::Copy) {
      if (const uint64_t bytes = val(in.o[2], w, l); bytes != 128)
        insn_fault(in, "a tensor map copy of " + std::to_string(bytes) + " bytes (a map is 128)");
      const Where src = resolve(in, Space::Shared, addr(in.o[1], w, l), 128, w, l);
      const Where dst = resolve(in, Space::Global, addr(in.o[0], w, l), 128, w, l);
      std::memmove(dst.p, src.p, 128);
      continue;
    }
    const Where at = resolve(in, in.space == Space::Shared ? Space::Shared : Space::Global, addr(in.o[0], w, l),
                             sizeof(TensorMap), w, l);
    TensorMap map;
    std::memcpy(&map, at.p, sizeof map);
    if (map.magic != TensorMap::kMagic) insn_fault(in, "not a tensor map made by cuTensorMapEncodeTiled");
    const bool ordered = op != TensormapOp::GlobalAddress;
    const uint64_t ord = ordered ? val(in.o[1], w, l) : 0, v = val(in.o[ordered ? 2 : 1], w, l);
    const uint64_t dims = op == TensormapOp::GlobalStride ? TensorMap::kMaxRank - 1 : TensorMap::kMaxRank;
    if (ordered && ord >= dims)
      insn_fault(in, "dimension " + std::to_string(ord) + " of a tensor map (0 to " + std::to_string(dims - 1) + ")");
    if (op == TensormapOp::GlobalAddress) map.global = v;
    else if (op == TensormapOp::GlobalDim) map.dim[ord] = uint32_t(v);
    else map.stride[ord + 1] = v;
    std::memcpy(at.p, &map, sizeof map);
  }
  return 0;
}

uint64_t BlockRun::cp_tensor_issue(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  uint64_t lanes = 0;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const TensorBox box = tensor_box(in, in.o[1], w, l);
    const TensorMap& map = box.map;
    const int64_t* c0 = box.c0;
    const int64_t x0 = c0[0];
    const uint64_t rows = box.rows, row_bytes = box.row_bytes, size = box.size;
    const uint64_t dst = addr(in.o[0], w, l);
    if (dst % 128) insn_fault(in, "a destination not aligned to 128 bytes");
    resolve(in, Space::Shared, dst, uint32_t(size), w, l);
    BulkInFlight b;
    b.pc = pc;
    b.warp = w;
    b.barrier = mbarrier_at(in, addr(in.o[2], w, l), w, l);
    b.bytes.assign(size, 0);
    std::vector<uint64_t> read;  // global address of each piece read whole (~0: partly outside, not recorded)
    int64_t at_x = 0;
    uint64_t at_r = 0, at_global = 0;  // the element being read (for a fault's line)
    try {
    for (uint64_t r = 0; r < rows; ++r) {
      // Row r's place in dimensions 1 and up: inside the tensor, and where it starts.
      const auto [row_inside, row_at] = box_row(map, c0, r);
      for (uint64_t p = 0; p < row_bytes / 16; ++p) {
        const uint64_t o = r * row_bytes + 16 * p;
        bool whole = row_inside;
        for (uint32_t e = 0; e < 16u / map.elem_bytes; ++e) {
          const int64_t x = x0 + int64_t((16 * p) / map.elem_bytes + e);
          const bool inside = row_inside && x >= 0 && uint64_t(x) < map.dim[0];
          whole = whole && inside;
          if (!inside) continue;  // outside the tensor: zeros
          at_x = x, at_r = r, at_global = row_at + uint64_t(x) * map.elem_bytes;
          const Where from = resolve(in, Space::Global, at_global, map.elem_bytes, w, l);
          std::memcpy(b.bytes.data() + o + e * map.elem_bytes, from.p, map.elem_bytes);
        }
        b.piece.push_back(swizzled(dst + o, map.swizzle));
        read.push_back(whole ? row_at + uint64_t(x0) * map.elem_bytes + 16 * p : ~0ull);
      }
    }
    } catch (const Fault& f) {
      throw f.said_with("; " + element_text(map, c0, at_x, at_r, at_global) + " of " + box_text(map, c0));
    }
    issue_bulk(pc, in, w, l, std::move(b), read);
    lanes += size / 16;
  }
  return lanes;
}

}  // namespace ws::ptx
