// src/ptx/tensor_map.h — the emulated device's CUtensorMap: what the runtime's
// cuTensorMapEncodeTiled (src/program/cudart) writes into the program's 128 opaque bytes,
// and what cp.async.bulk.tensor (the TMA copy, mbarrier.cpp) reads back. One layout, both
// sides; the GPU's own encoding is undocumented and not imitated.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

#include "trace/tma.h"

namespace ws::ptx {

// A tiled tensor map of rank 1 to 5. Dimension 0 is the innermost (contiguous) one.
struct TensorMap {
  static constexpr uint32_t kMagic = 0x4d545357;  // "WSTM": a map this runtime encoded
  static constexpr uint32_t kMaxRank = 5;
  uint32_t magic = kMagic;
  uint8_t elem_bytes = 0;   // 1, 2, 4 or 8
  uint8_t rank = 0;         // 1 to 5
  uint8_t swizzle = 0;      // bytes of the swizzle span: 0 (none), 32, 64 or 128
  uint8_t dtype = 0;        // the CUtensorMapDataType it was encoded with (a reduction's element type)
  // Bytes 8-15 hold nothing: CUTLASS clears bit 21 of a descriptor's second 8-byte word
  // after encoding it (for tensors under 128 KiB, on drivers up to 13.1), a flag of the
  // GPU's own layout. The address it cleared a bit of pointed 2 MiB low.
  uint64_t reserved = 0;
  uint64_t global = 0;      // the tensor's first element (device address)
  uint64_t dim[kMaxRank] = {1, 1, 1, 1, 1};  // elements in each dimension (1 past the rank)
  uint64_t stride[kMaxRank] = {};            // bytes from one index of dimension i to the next (stride[0]: the element)
  uint32_t box[kMaxRank] = {1, 1, 1, 1, 1};  // the box's elements in each dimension (1 past the rank)
};
static_assert(sizeof(TensorMap) <= 128, "a CUtensorMap holds 128 bytes");

// The byte offset in shared memory where byte `o` of a box lands (trace/tma.h).
constexpr uint64_t swizzled(uint64_t o, uint32_t span) { return trace::tma_swizzled(o, span); }

// Why `m` cannot be copied by a TMA of the given box ("" when it can): the checks the
// driver makes of cuTensorMapEncodeTiled's arguments, made again on the bytes read back.
inline std::string tensor_map_problem(const TensorMap& m) {
  if (m.magic != TensorMap::kMagic) return "not a tensor map made by cuTensorMapEncodeTiled";
  if (m.rank < 1 || m.rank > TensorMap::kMaxRank) return "a tensor of rank " + std::to_string(m.rank) + " (1 to 5 are implemented)";
  if (m.elem_bytes != 1 && m.elem_bytes != 2 && m.elem_bytes != 4 && m.elem_bytes != 8) return "an element size it does not know";
  if (m.global % 16) return "a global address not aligned to 16 bytes";
  for (uint32_t i = 1; i < m.rank; ++i)
    // (The driver takes any multiple of 16 below 2^40: CUTLASS gives a batch of one the stride 0.)
    if (m.stride[i] % 16 || m.stride[i] >= (1ull << 40)) return "a stride of dimension " + std::to_string(i) + " not a multiple of 16 bytes below 2^40";
  for (uint32_t i = 0; i < TensorMap::kMaxRank; ++i)
    if (m.box[i] == 0 || m.box[i] > 256) return "a box dimension outside 1..256";
  const uint64_t row = uint64_t(m.box[0]) * m.elem_bytes;
  if (row % 16) return "a box row of " + std::to_string(row) + " bytes (a multiple of 16)";
  if (m.swizzle != 0 && m.swizzle != 32 && m.swizzle != 64 && m.swizzle != 128) return "a swizzle it does not know";
  if (m.swizzle && row > m.swizzle) return "a box row wider than its swizzle span";
  return "";
}

// Row r of a box whose first element is at `c0` (a box's rows: its extent in dimension 0,
// in the order of dimensions 1, 2, ...): whether it lies inside the tensor in those
// dimensions, and the global address of its element of dimension-0 coordinate 0.
struct BoxRow {
  bool inside = true;
  uint64_t at = 0;
};
inline BoxRow box_row(const TensorMap& map, const int64_t* c0, uint64_t r) {
  BoxRow row{true, map.global};
  for (uint64_t i = 1, q = r; i < TensorMap::kMaxRank; q /= map.box[i], ++i) {
    const int64_t c = c0[i] + int64_t(q % map.box[i]);
    row.inside = row.inside && c >= 0 && uint64_t(c) < map.dim[i];
    row.at += uint64_t(c) * map.stride[i];
  }
  return row;
}

// "a 64 x 128 x 1 box at (0, 256, 0) of a tensor map of 128 x 256 x 1 elements, strides
// 256, 0 bytes": what a fault of a box's element adds to its line.
inline std::string box_text(const TensorMap& map, const int64_t* c0) {
  std::string box, at, dims, strides;
  for (uint32_t i = 0; i < map.rank; ++i) {
    box += (i ? " x " : "") + std::to_string(map.box[i]);
    at += (i ? ", " : "") + std::to_string(c0[i]);
    dims += (i ? " x " : "") + std::to_string(map.dim[i]);
    if (i) strides += (i > 1 ? ", " : "") + std::to_string(map.stride[i]);
  }
  return "a " + box + " box at (" + at + ") of a tensor map of " + dims + " elements" +
         (strides.empty() ? "" : ", strides " + strides + " bytes");
}

// "element (0, 16) at byte 2048 of the map's tensor": element x of row r of a box at `c0`
// (its coordinates in the tensor), at global address `at`.
inline std::string element_text(const TensorMap& map, const int64_t* c0, int64_t x, uint64_t r, uint64_t at) {
  std::string xs = std::to_string(x);
  for (uint32_t i = 1, q = uint32_t(r); i < map.rank; q /= map.box[i], ++i) xs += ", " + std::to_string(c0[i] + int64_t(q % map.box[i]));
  return "element (" + xs + ") at byte " + std::to_string(int64_t(at - map.global)) + " of the map's tensor";
}

}  // namespace ws::ptx
