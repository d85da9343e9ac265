// src/emu/warp.cpp — ldmatrix and mma.sync as the PTX ISA lays their fragments out over
// the 32 lanes of a warp (warp.h).
#include "emu/warp.h"

#include <cstring>

#include "contract.h"
#include "trace/tma.h"

namespace ws::emu {
namespace {

uint16_t half_at(const char* row, uint32_t col) {
  uint16_t h;
  std::memcpy(&h, row + 2 * col, 2);
  return h;
}
uint16_t lo(uint32_t r) { return uint16_t(r & 0xffffu); }
uint16_t hi(uint32_t r) { return uint16_t(r >> 16); }
uint32_t pack(uint16_t l, uint16_t h) { return uint32_t(l) | uint32_t(h) << 16; }

}  // namespace

// Matrix i's rows are the addresses of lanes 8i..8i+7. Lane l holds, of each matrix, row
// l/4, columns 2(l%4) and 2(l%4)+1; with .trans, column l/4, rows 2(l%4) and 2(l%4)+1.
void perform_ldmatrix(MeetSlot* slots, int n) {
  const uint32_t m = slots[0].matrices;
  const bool trans = slots[0].trans;
  for (int l = 0; l < n; ++l) {
    const uint32_t g = uint32_t(l) / 4, t = uint32_t(l) % 4;
    for (uint32_t i = 0; i < m; ++i) {
      const MeetSlot* rows = slots + 8 * i;
      slots[l].out[i] = trans ? pack(half_at(rows[2 * t].row, g), half_at(rows[2 * t + 1].row, g))
                              : pack(half_at(rows[g].row, 2 * t), half_at(rows[g].row, 2 * t + 1));
    }
  }
}

// m16n8k16, .row.col, f16 inputs, f32 accumulators; lane l is in group g = l/4 at place
// t = l%4. A (16x16): a0 row g, a1 row g+8, a2 row g cols +8, a3 row g+8 cols +8, each at
// columns 2t, 2t+1. B (16x8, by columns): b0 rows 2t, 2t+1, b1 rows 2t+8, 2t+9, column g.
// C (16x8): c0, c1 row g at columns 2t, 2t+1; c2, c3 row g+8.
void perform_mma(MeetSlot* slots, int n) {
  float a[16][16] = {}, b[16][8] = {}, c[16][8] = {};
  for (int l = 0; l < n; ++l) {
    const uint32_t g = uint32_t(l) / 4, t = uint32_t(l) % 4;
    const uint32_t* in = slots[l].in;
    for (uint32_t q = 0; q < 4; ++q) {
      const uint32_t r = g + (q & 1u) * 8, col = 2 * t + (q >> 1) * 8;
      a[r][col] = half_value(lo(in[q]));
      a[r][col + 1] = half_value(hi(in[q]));
    }
    for (uint32_t q = 0; q < 2; ++q) {
      b[2 * t + q * 8][g] = half_value(lo(in[4 + q]));
      b[2 * t + q * 8 + 1][g] = half_value(hi(in[4 + q]));
    }
    for (uint32_t q = 0; q < 4; ++q) std::memcpy(&c[g + (q >> 1) * 8][2 * t + (q & 1u)], &in[6 + q], 4);
  }
  for (int l = 0; l < n; ++l) {
    const uint32_t g = uint32_t(l) / 4, t = uint32_t(l) % 4;
    for (uint32_t q = 0; q < 4; ++q) {
      const uint32_t r = g + (q >> 1) * 8, col = 2 * t + (q & 1u);
      float d = c[r][col];
      for (int k = 0; k < 16; ++k) d += a[r][k] * b[k][col];  // f16 products are exact in f32
      std::memcpy(&slots[l].out[q], &d, 4);
    }
  }
}

// A K-major operand under the 128-byte swizzle (what the TMA lands with the same mode):
// row r and byte b along K at start + (r / 8) * SBO + (r % 8) * 128 + b, moved as the TMA's
// 128-byte swizzle moves that address (trace::tma_swizzled). The start (bits 0-13) and
// the stride byte offset (bits 32-45) are in units of 16 bytes; layout 1 (bits 62-63) is
// the 128-byte swizzle.
std::string perform_wgmma(MeetSlot* slots, int n, const char* shared, uint64_t shared_bytes, uint32_t quarter) {
  const uint32_t N = slots[0].n;
  for (uint64_t desc : {slots[0].da, slots[0].db})
    if ((desc >> 62) != 1 || ((desc >> 49) & 7u) != 0)
      return "a descriptor of another layout than K-major under the 128-byte swizzle, base offset 0 (the one the "
             "catalog's contract makes)";
  auto at = [&](uint64_t desc, uint32_t r, uint32_t k, uint16_t& h) {
    const uint64_t start = (desc & 0x3fffu) << 4, sbo = ((desc >> 32) & 0x3fffu) << 4;
    const uint64_t a = trace::tma_swizzled(start + (r / 8) * sbo + (r % 8) * 128 + 2 * k, 128);
    if (a + 2 > shared_bytes) return false;
    std::memcpy(&h, shared + a, 2);
    return true;
  };
  // Rows 16 quarter .. +15 of A (16 x 16) and all of B (16 x N, column n with k side by side).
  float a[16][16], b[16][256];
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t k = 0; k < 16; ++k) {
      uint16_t h;
      if (!at(slots[0].da, 16 * quarter + r, k, h)) return "A's descriptor reaches past the block's shared memory";
      a[r][k] = half_value(h);
    }
  for (uint32_t c = 0; c < N; ++c)
    for (uint32_t k = 0; k < 16; ++k) {
      uint16_t h;
      if (!at(slots[0].db, c, k, h)) return "B's descriptor reaches past the block's shared memory";
      b[k][c] = half_value(h);
    }
  // Lane (g, t) holds acc[4j .. 4j+1] at row g, columns 8j + 2t, +1 and acc[4j+2 .. 4j+3] at
  // row g + 8, the same columns.
  for (int l = 0; l < n; ++l) {
    const uint32_t g = uint32_t(l) / 4, t = uint32_t(l) % 4;
    float* acc = slots[l].acc;
    for (uint32_t j = 0; j < N / 8; ++j)
      for (uint32_t q = 0; q < 4; ++q) {
        const uint32_t r = g + (q >> 1) * 8, c = 8 * j + 2 * t + (q & 1u);
        float d = acc[4 * j + q];
        for (int k = 0; k < 16; ++k) d += a[r][k] * b[k][c];  // f16 products are exact in f32
        acc[4 * j + q] = d;
      }
  }
  return "";
}

}  // namespace ws::emu
