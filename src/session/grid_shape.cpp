// src/session/grid_shape.cpp — an array's grid on screen: wrapped, column-major or folded.
#include "session/grid_shape.h"

#include <algorithm>

namespace ws::session {

GridShape grid_shape(const trace::Buffer& b) {
  GridShape g;
  g.elem_bytes = std::max<uint32_t>(1, b.elem_bytes);
  g.elements = b.size_bytes / g.elem_bytes;
  if (g.elements == 0) g.elements = b.rows * b.cols;
  if (b.rows <= 1 && g.elements > 64) {
    // A 1-D array: 128 bytes per grid row, so each column of a shared array is a bank.
    g.wrapped = true;
    g.cols = std::max<uint32_t>(1, 128 / g.elem_bytes);
    g.rows = uint32_t((g.elements + g.cols - 1) / g.cols);
    return g;
  }
  const uint64_t pitch = b.row_pitch();
  if (b.col_major) {
    g.col_major = true;
    g.rows = uint32_t(std::max<uint64_t>(1, pitch));
    g.cols = uint32_t(std::max<uint64_t>(1, (g.elements + g.rows - 1) / g.rows));
    return g;
  }
  g.cols = uint32_t(std::max<uint64_t>(1, pitch));
  g.rows = uint32_t(std::max<uint64_t>(1, (g.elements + g.cols - 1) / g.cols));
  // A thin array (at least 8 times as many rows as columns, a row shorter than half a
  // line): as many rows side by side as fill a 128-byte line, so a warp's strided request
  // is a few grid rows of cells instead of a column one cell wide.
  const uint64_t row_bytes = uint64_t(g.cols) * g.elem_bytes;
  const uint64_t fold = row_bytes ? 128 / row_bytes : 1;
  if (fold >= 2 && g.rows >= 8 * uint64_t(g.cols) && g.rows >= 4 * fold) {
    g.fold = uint32_t(fold);
    g.cols = uint32_t(uint64_t(g.cols) * fold);
    g.rows = uint32_t((g.elements + g.cols - 1) / g.cols);
  }
  return g;
}

uint64_t GridShape::array_rows() const {
  if (wrapped) return 1;
  if (col_major) return rows;
  const uint64_t pitch = std::max<uint64_t>(1, array_cols());
  return (elements + pitch - 1) / pitch;
}

std::string GridShape::index_text(uint64_t e) const {
  if (wrapped) return "[" + std::to_string(e) + "]";
  uint64_t r, c;
  if (col_major) {
    r = e % rows;
    c = e / rows;
  } else {
    const uint64_t pitch = std::max<uint64_t>(1, array_cols());
    r = e / pitch;
    c = e % pitch;
  }
  return "[" + std::to_string(r) + "][" + std::to_string(c) + "]";
}

std::string GridShape::row_label(uint32_t row) const {
  if (wrapped) return std::to_string(uint64_t(row) * cols);
  return std::to_string(uint64_t(row) * fold);
}

std::string GridShape::col_label(uint32_t col) const {
  if (fold > 1) {
    const uint32_t pitch = cols / fold;
    return col % pitch == 0 ? "+" + std::to_string(col / pitch) : std::to_string(col % pitch);
  }
  return std::to_string(col);
}

uint32_t GridShape::col_label_step(uint32_t min_step) const {
  uint32_t k = 1;
  while (k < min_step && k < (1u << 30)) k *= 2;
  if (fold > 1) {
    const uint32_t pitch = cols / fold;
    k = (k + pitch - 1) / pitch * pitch;
  }
  return k;
}

}  // namespace ws::session
