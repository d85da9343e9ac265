// src/ptx/tensor_copy.cpp — cp.async.bulk.tensor (the tensor memory accelerator's copy) of
// a 1-D or 2-D box from global to shared memory, as a tensor map made by the runtime's
// cuTensorMapEncodeTiled describes it (tensor_map.h): the box's elements read at issue,
// those outside the tensor as zeros, laid out row after row in shared memory under the
// map's swizzle, landed when the mbarrier's phase completes (mbarrier.cpp). Recorded as a
// box: one record per 512 bytes, each lane a 16-byte piece, the read at issue
// (Form::BulkRead) and the write when it lands (Form::BulkWrite).
#include <cstring>

#include "ptx/block_run.h"
#include "ptx/tensor_map.h"

namespace ws::ptx {

uint64_t BlockRun::cp_tensor_issue(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  auto wrong = [&](const std::string& why) {
    throw Fault("kernel " + kernel_name(k_.name) + ": PTX line " + std::to_string(in.text_line) + ": " + in.opcode + ": " + why);
  };
  uint64_t lanes = 0;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    TensorMap map;
    const Where at = resolve(in, Space::Generic, addr(in.o[1], w, l), sizeof(TensorMap), w, l);
    std::memcpy(&map, at.p, sizeof map);
    if (const std::string why = tensor_map_problem(map); !why.empty()) wrong(why);
    if (map.rank != in.o[1].count) wrong("a tensor map of rank " + std::to_string(map.rank) + " for a " +
                                         std::to_string(in.o[1].count) + "-d copy");
    const int64_t x0 = int32_t(reg(w, in.o[1].vec[0], l)), y0 = map.rank == 2 ? int32_t(reg(w, in.o[1].vec[1], l)) : 0;
    const uint64_t rows = map.rank == 2 ? map.box[1] : 1, dim1 = map.rank == 2 ? map.dim[1] : 1;
    const uint64_t row_bytes = uint64_t(map.box[0]) * map.elem_bytes, size = row_bytes * rows;
    const uint64_t dst = addr(in.o[0], w, l);
    if (dst % 128) wrong("a destination not aligned to 128 bytes");
    resolve(in, Space::Shared, dst, uint32_t(size), w, l);
    BulkInFlight b;
    b.pc = pc;
    b.warp = w;
    b.barrier = mbarrier_at(in, addr(in.o[2], w, l), w, l);
    b.bytes.assign(size, 0);
    std::vector<uint64_t> read;  // global address of each piece read whole (~0: partly outside, not recorded)
    for (uint64_t r = 0; r < rows; ++r) {
      const int64_t y = y0 + int64_t(r);
      for (uint64_t p = 0; p < row_bytes / 16; ++p) {
        const uint64_t o = r * row_bytes + 16 * p;
        bool whole = true;
        for (uint32_t e = 0; e < 16u / map.elem_bytes; ++e) {
          const int64_t x = x0 + int64_t((16 * p) / map.elem_bytes + e);
          const bool inside = x >= 0 && uint64_t(x) < map.dim[0] && y >= 0 && uint64_t(y) < dim1;
          whole = whole && inside;
          if (!inside) continue;  // outside the tensor: zeros
          const uint64_t g = map.global + uint64_t(y) * map.stride + uint64_t(x) * map.elem_bytes;
          const Where from = resolve(in, Space::Global, g, map.elem_bytes, w, l);
          std::memcpy(b.bytes.data() + o + e * map.elem_bytes, from.p, map.elem_bytes);
        }
        b.piece.push_back(swizzled(dst + o, map.swizzle));
        read.push_back(whole ? map.global + uint64_t(y) * map.stride + uint64_t(x0) * map.elem_bytes + 16 * p : ~0ull);
      }
    }
    issue_bulk(pc, in, w, l, std::move(b), read);
    lanes += size / 16;
  }
  return lanes;
}

}  // namespace ws::ptx
