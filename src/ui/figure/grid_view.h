// src/ui/figure/grid_view.h — the memory view's grid maths, apart from drawing: which cells a
// request lights, where "follow" puts them (zoom and pan, in pixels per cell), and how a
// long grid is cut into bands to fill a small box. Pure functions of the session's
// GridShape (the model's element → cell rule), a request and a canvas size in pixels, so
// the app's panels, the figure export and the tests get one answer.
#pragma once
#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "session/session.h"

namespace ws::ui {

using session::GridShape;
using session::RequestFigures;

// Grid cells [x0, x1) × [y0, y1): columns × rows.
struct CellBox {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x1 <= x0 || y1 <= y0; }
  void add(const CellBox& b) {
    if (b.empty()) return;
    if (empty()) {
      *this = b;
      return;
    }
    x0 = std::min(x0, b.x0), y0 = std::min(y0, b.y0), x1 = std::max(x1, b.x1), y1 = std::max(y1, b.y1);
  }
};

// Calls f(CellBox) for each run of elements [e0, e1) that lies on one grid row (one grid
// column for a column-major array): a grid row is contiguous memory.
template <class F>
void for_each_run(const GridShape& g, uint64_t e0, uint64_t e1, F&& f) {
  e1 = std::min<uint64_t>(e1, g.elements);
  while (e0 < e1) {
    uint32_t r, c;
    if (!g.cell(e0, r, c)) return;
    if (g.col_major) {
      const uint64_t end = std::min<uint64_t>(e1, e0 + (g.rows - r));
      f(CellBox{float(c), float(r), float(c + 1), float(r + (end - e0))});
      e0 = end;
    } else {
      const uint64_t end = std::min<uint64_t>(e1, e0 + (g.cols - c));
      f(CellBox{float(c), float(r), float(c + (end - e0)), float(r + 1)});
      e0 = end;
    }
  }
}

// The elements [e0, e1) one active lane of a request touches (a float4 lane: four floats).
struct LaneSpan {
  int lane = 0;
  uint64_t e0 = 0, e1 = 0;
};
std::vector<LaneSpan> lane_spans(const GridShape& g, const RequestFigures& rv);

// The cells the request's active lanes touch (empty when there is no request).
CellBox request_box(const GridShape& g, const RequestFigures& rv);

// Label spacing along a grid's edge: the smallest power of two whose gap of cells `cell`
// pixels wide fits a label `need` pixels wide.
uint32_t label_step(float cell, float need);

// The C type a grid's cells of `bytes` read as in its title ("float", "float4"; "elem").
const char* type_name(uint32_t bytes);

// A faulting request's lanes past the end of a row-major grid (drawn where the grid would go
// on): the grid grown to their rows and `foot` rows more below them, those cells added to
// `box`. Lanes further than 64 rows past the end are left out; `g` itself where none is.
GridShape past_end_reach(const GridShape& g, const RequestFigures& rv, uint32_t foot, CellBox& box);

// How a grid sits in a canvas: pixels per cell, and the grid point (in cells) at the
// canvas middle.
struct GridWindow {
  float cell = 1, cx = 0, cy = 0;
};

// Zoom and pan of one buffer's grid in the memory view, as the user left it (used while
// "follow" is off), and where it was last drawn (for easing the next view in).
struct GridView {
  float zoom = 1;           // 1: the whole buffer fits
  ImVec2 center{-1, -1};    // cell at the middle of the canvas (-1: the buffer's middle)
  float shown_cell = 0;     // pixels per cell last drawn (0: not drawn yet)
  ImVec2 shown_center;      // and its centre,
  float shown_zoom = 1;     // its cell over the fitting cell,
  bool shown_followed = false;  // and whether follow placed it
};

// Pixels per cell when the whole grid fits a w × h canvas.
float fit_cell(const GridShape& g, float w, float h);

// The least cell at which a lane's colour and the sector and line outlines around cells
// read: the outlines are drawn 1–3 px outside the cells, so a cell must stay several
// pixels wider than an outline, and a colour patch smaller than about the height of small
// text is hard to tell from its neighbour's. 10 px at the regular 13 px labels, scaling
// with the type (a projector's larger text gets larger cells) from 8 to 14 px (beyond,
// cells would only cost context).
float legible_cell(float small_font_px);

// Moves `v` so the grid covers as much of the w × h canvas as it can: a grid smaller
// than the canvas at its top left, beside its row and column numbers.
void keep_on_grid(const GridShape& g, float w, float h, GridWindow& v);

// Where "follow" puts grid `g` in a w × h canvas for a request covering `box`:
//  - zoom: the whole grid when it fits at `min_cell` × 0.8 or more; else cells of
//    `min_cell` (the most context at a legible size), or the cell at which the grid's
//    short side spans the canvas when that is between 0.8 and 2 × `min_cell` (a grid
//    32 cells wide then pans one way only); smaller (down to 0.6 ×) when that shows the
//    whole request. Whole pixels, so cells are crisp. It depends on the grid, the canvas
//    and the request's extent only, so neighbouring requests of one pattern keep one zoom;
//  - pan: the request inside the window, its centre snapped to steps of up to a quarter
//    window, so a request that moves a little (the next j of c[i*4 + j]) leaves the
//    window where it is; a request larger than the window shows its start (lane 0's end).
GridWindow follow_window(const GridShape& g, const CellBox& box, float w, float h, float min_cell);

// A grid drawn as `count` bands of `span` rows side by side (a tall grid), or of `span`
// columns one under another (`stacked`: a wide grid), `gap` pixels apart, when that gives
// clearly larger cells in a small box (the memory view's overview of every array). Only
// a grid at least 4 times longer than wide is cut, into bands no thinner than square.
struct GridBands {
  uint32_t count = 1, span = 0;
  bool stacked = false;
  float cell = 0;       // pixels per cell
  float w = 0, h = 0;   // the size the bands take
};
GridBands grid_bands(const GridShape& g, float w, float h, float gap);
// Where cell (row, col) lands in the bands' box, in pixels (its top-left corner).
inline void band_cell(const GridBands& b, float gap, uint32_t rows, uint32_t cols, uint32_t row, uint32_t col, float& x,
                      float& y) {
  if (b.count <= 1 || b.span == 0) {
    x = float(col) * b.cell, y = float(row) * b.cell;
  } else if (b.stacked) {
    const uint32_t k = col / b.span;
    x = float(col % b.span) * b.cell;
    y = float(k) * (float(rows) * b.cell + gap) + float(row) * b.cell;
  } else {
    const uint32_t k = row / b.span;
    x = float(k) * (float(cols) * b.cell + gap) + float(col) * b.cell;
    y = float(row % b.span) * b.cell;
  }
}

// Follow on a wide grid (a few rows of many columns: a tile As[8][128], the exercise's
// b[4][1024]) whose rows would leave most of a w × h canvas empty: its columns wrapped
// into bands one under another, `gap` pixels apart (room for each band's column numbers),
// showing bands [band0, band1). A band holds whole 128-byte lines where one fits (so line
// and sector outlines stay whole), else a power of two of cells, at least 8. The cell: the
// largest up to 2 × `min_cell` at which every band fits, else the largest down to 0.8 ×
// at which a band holds a line, else `min_cell`. The bands shown hold the request's and
// move by whole pages, so neighbouring requests keep them. `bands.count` < 2 where the
// grid is not wide (4 times as many columns as rows) or fewer than two bands fit.
struct BandWindow {
  GridBands bands;  // stacked; count: all the grid's bands
  uint32_t band0 = 0, band1 = 0;
};
BandWindow follow_bands(const GridShape& g, const CellBox& box, float w, float h, float gap, float min_cell);

}  // namespace ws::ui
