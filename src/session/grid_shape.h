// src/session/grid_shape.h — how an array is laid out on screen: rows × columns of
// elements, the labels beside them and an element's index as declared. The memory view and
// the DRAM view draw it; the Session keeps one per array of its trace.
#pragma once
#include <cstdint>
#include <string>

#include "trace/trace.h"

namespace ws::session {

// How a buffer is laid out on screen: a rows × cols grid of elements. Row-major arrays
// are drawn with one storage row per grid row (padding columns included, so a TILE+1 tile
// shows its extra column); 1-D arrays wrap every 128 bytes, so for shared memory a grid
// column is a bank. A thin row-major array (rows far shorter than a 128-byte line, as the
// 1024×4 `c` of the PMPP exercise) is folded: `fold` consecutive rows side by side in one
// grid row, a grid row holding one line, so it is a block of legible cells, not a strip
// a few pixels wide. Every grid row is contiguous memory in all of these.
struct GridShape {
  uint32_t rows = 1, cols = 1;   // cells on screen
  uint32_t elem_bytes = 4;
  uint64_t elements = 0;         // elements that exist (the last row may be partial)
  bool col_major = false;        // element e at (e % rows, e / rows)
  bool wrapped = false;          // a 1-D array shown wrapped
  uint32_t fold = 1;             // array rows side by side in one grid row (1: not folded)
  std::string type;              // the element type its instructions name ("float", "uint32"; "" : not known)
  // Cell of element e; false past the end.
  bool cell(uint64_t e, uint32_t& row, uint32_t& col) const {
    if (e >= elements) return false;
    if (col_major) {
      row = uint32_t(e % rows);
      col = uint32_t(e / rows);
    } else {
      row = uint32_t(e / cols);
      col = uint32_t(e % cols);
    }
    return true;
  }
  // Element of a cell (may be >= elements on the partial last row).
  uint64_t element(uint32_t row, uint32_t col) const {
    return col_major ? uint64_t(col) * rows + row : uint64_t(row) * cols + col;
  }
  // The array's shape as declared, rows × columns (padding columns included; a 1-D array
  // is one row).
  uint64_t array_rows() const;
  uint64_t array_cols() const { return wrapped ? elements : col_major ? cols : cols / fold; }
  // The array's index of element e: "[17][1]" (row, column; as declared, so a column-major
  // array's too), "[96]" for a 1-D array.
  std::string index_text(uint64_t e) const;
  // The labels the memory view writes beside grid row `row` and above grid column `col`,
  // naming real indices: the row (or, wrapped, the element) the grid row starts with, and
  // the column; for a folded array "+k" at the start of the k-th array row of the grid row.
  std::string row_label(uint32_t row) const;
  std::string col_label(uint32_t col) const;
  // What those labels count, for the axis titles: "row" and "column"; a wrapped 1-D
  // array's rows start at an "element" and its columns are the "offset" from it.
  const char* row_axis() const { return wrapped ? "element" : "row"; }
  const char* col_axis() const { return wrapped ? "offset" : "column"; }
  // The spacing of column labels at least `min_step` apart: a power of two (a multiple of
  // the array row for a folded array, so every label starts an array row).
  uint32_t col_label_step(uint32_t min_step) const;
};
GridShape grid_shape(const trace::Buffer& b);

}  // namespace ws::session
