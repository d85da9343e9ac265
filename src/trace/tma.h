// src/trace/tma.h — where the tensor memory accelerator (TMA) puts the bytes of a box:
// the swizzle of shared memory, and a 2-D box of a row-major array cut into the 16-byte
// pieces that a warp records (lane l: pieces l, l + 32, ...; a record: 512 bytes). One
// definition for the emulated devices (the catalog's CPU context, the PTX engine) and the
// GPU's instrumented contexts, so that they lay a box out alike. Host and device; integer
// arithmetic only.
#pragma once
#include <cstdint>

#include "trace/site_key.h"

namespace ws::trace {

// The byte of shared memory where byte `o` of a box lands (o: its offset from a
// destination aligned to 1024 bytes, or its shared address), under a swizzle of `span`
// bytes (0: none, 32, 64 or 128): the 16-byte chunk's index within each 128-byte line is
// XORed with the line's index modulo span / 16. Hopper's pattern; CUTLASS calls the three
// Swizzle<1,4,3>, <2,4,3> and <3,4,3>.
WS_INLINE_HD constexpr uint64_t tma_swizzled(uint64_t o, uint32_t span) {
  if (span < 32) return o;
  const uint64_t mask = span / 16 - 1;
  return o ^ (((o >> 7) & mask) << 4);
}

// The wgmma descriptor (matrix descriptor) of a K-major tile laid out as a box of 128-byte
// rows lands under the 128-byte swizzle, starting at shared address `at` (its row 0 aligned
// to 1024 bytes, where the pattern starts): the start address >> 4 (bits 0-13), leading byte
// offset 16 (unused by this layout), stride byte offset 1024 (the next 8 rows: one
// 8 x 128-byte swizzle atom further) and layout 1, the 128-byte swizzle (bits 62-63). One
// k16 step further along the rows is 32 bytes: the descriptor + 2.
WS_INLINE_HD constexpr uint64_t wgmma_sw128_desc(uint64_t at) {
  return ((at & 0x3ffffu) >> 4) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

// A 2-D box of `box_rows` × `box_cols` elements of `elem` bytes at column x0, row y0 of a
// row-major array whose rows hold `cols` elements, landing row after row in a shared tile.
struct TmaBox2D {
  uint32_t elem = 4, cols = 0, box_rows = 0, box_cols = 0, swizzle = 0;
  int64_t x0 = 0, y0 = 0;
  WS_INLINE_HD constexpr uint32_t row_bytes() const { return box_cols * elem; }
  WS_INLINE_HD constexpr uint32_t bytes() const { return box_rows * row_bytes(); }
  WS_INLINE_HD constexpr uint32_t pieces() const { return bytes() / 16; }
  // Piece p's first byte in the array, and in the tile (swizzled).
  WS_INLINE_HD constexpr uint64_t global_offset(uint32_t p) const {
    const uint32_t per_row = row_bytes() / 16;
    return (uint64_t(y0) + p / per_row) * cols * elem + uint64_t(x0) * elem + 16u * (p % per_row);
  }
  WS_INLINE_HD constexpr uint32_t shared_offset(uint32_t p) const { return uint32_t(tma_swizzled(16ull * p, swizzle)); }
};

}  // namespace ws::trace
