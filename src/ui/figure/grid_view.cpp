// src/ui/figure/grid_view.cpp — the memory view's grid maths: the cells a request lights, follow's
// zoom and pan, and long grids cut into bands (grid_view.h).
#include "ui/figure/grid_view.h"

#include <bit>
#include <cmath>

namespace ws::ui {

namespace {

// The largest power of two not above x (x >= 1), as a float.
float pow2_floor(float x) {
  float q = 1;
  while (q * 2 <= x) q *= 2;
  return q;
}

// The start of a window `vis` cells long on an axis of `n` cells that holds [b0, b1), as
// follow_window describes it.
float follow_start(float n, float vis, float b0, float b1) {
  const float len = b1 - b0;
  float start;
  if (len <= vis) {
    // Snapping by q moves the window at most q / 2 from centring the box, and q is no
    // more than the slack around the box, so the box stays inside.
    const float q = pow2_floor(std::max(1.0f, std::min(vis * 0.25f, vis - len)));
    start = std::round(((b0 + b1) * 0.5f - vis * 0.5f) / q) * q;
  } else {
    const float q = pow2_floor(std::max(1.0f, vis * 0.25f));
    start = std::floor(b0 / q) * q;
  }
  return std::clamp(start, 0.0f, std::max(0.0f, n - vis));
}

}  // namespace

std::vector<LaneSpan> lane_spans(const GridShape& g, const RequestFigures& rv) {
  std::vector<LaneSpan> lanes;
  if (!rv.rec || !rv.site || g.elem_bytes == 0) return lanes;
  const uint32_t bytes = rv.site->bytes;
  for (uint32_t bits = rv.rec->active; bits; bits &= bits - 1) {
    const int lane = std::countr_zero(bits);
    const uint64_t off = rv.rec->offset[lane];
    lanes.push_back({lane, off / g.elem_bytes, (off + bytes + g.elem_bytes - 1) / g.elem_bytes});
  }
  return lanes;
}

CellBox request_box(const GridShape& g, const RequestFigures& rv) {
  CellBox box;
  // (lanes past the array's end: past_end_reach)
  for (const LaneSpan& l : lane_spans(g, rv))
    if (l.e0 < uint64_t(g.rows) * g.cols) for_each_run(g, l.e0, l.e1, [&](const CellBox& b) { box.add(b); });
  return box;
}

uint32_t label_step(float cell, float need) {
  uint32_t k = 1;
  while (float(k) * cell < need && k < (1u << 30)) k *= 2;
  return k;
}

const char* type_name(uint32_t bytes) {
  switch (bytes) {
    case 1: return "char";
    case 2: return "half";
    case 4: return "float";
    case 8: return "double";
    case 16: return "float4";
    default: return "elem";
  }
}

GridShape past_end_reach(const GridShape& g, const RequestFigures& rv, uint32_t foot, CellBox& box) {
  GridShape reach = g;
  if (!rv.rec || !rv.site || g.col_major || !g.elem_bytes || !g.cols) return reach;
  // Where lanes of the request lie inside the array too, the window follows their columns
  // and only reaches down to the rows past the end: the strip names the lanes past it, and
  // a window that cannot hold both keeps the lanes inside in view (an off-by-one store's
  // row ends at the right edge, its one lane past the end wraps to column 0).
  const CellBox inside = box;
  for (uint32_t bits = rv.rec->active; bits; bits &= bits - 1) {
    const uint64_t e = rv.rec->offset[size_t(std::countr_zero(bits))] / g.elem_bytes;
    if (e < uint64_t(g.rows) * g.cols || e / g.cols >= uint64_t(g.rows) + 64) continue;
    reach.rows = std::max(reach.rows, uint32_t(e / g.cols) + foot);
    const float x = inside.empty() ? float(e % g.cols) : inside.x0;
    box.add(CellBox{x, float(e / g.cols), x + 1, float(e / g.cols + foot)});
  }
  return reach;
}

float fit_cell(const GridShape& g, float w, float h) {
  return std::max(1e-3f, std::min(w / float(std::max<uint32_t>(1, g.cols)), h / float(std::max<uint32_t>(1, g.rows))));
}

float legible_cell(float small_font_px) { return std::clamp(std::round(small_font_px * 10.0f / 13.0f), 8.0f, 14.0f); }

void keep_on_grid(const GridShape& g, float w, float h, GridWindow& v) {
  const float hw = w * 0.5f / v.cell, hh = h * 0.5f / v.cell;
  const float gx = float(g.cols), gy = float(g.rows);
  v.cx = gx <= 2 * hw ? hw : std::clamp(v.cx, hw, gx - hw);
  v.cy = gy <= 2 * hh ? hh : std::clamp(v.cy, hh, gy - hh);
}

GridWindow follow_window(const GridShape& g, const CellBox& box, float w, float h, float min_cell) {
  GridWindow v;
  const float fit = fit_cell(g, w, h);
  v.cell = fit;
  v.cx = float(g.cols) * 0.5f;
  v.cy = float(g.rows) * 0.5f;
  if (w < 1 || h < 1 || fit >= 0.8f * min_cell || box.empty()) {
    keep_on_grid(g, w, h, v);
    return v;
  }
  const float whole = std::min(w / (box.x1 - box.x0), h / (box.y1 - box.y0));
  // The grid's short side across the whole canvas, where that is legible (a 32-wide grid
  // a little wider than the canvas, or with room to spare): then it pans one way only.
  const float side = std::max(w / float(g.cols), h / float(g.rows));
  const float base = side >= 0.8f * min_cell ? std::min(side, 2 * min_cell) : min_cell;
  const float cell = whole >= base ? base : whole >= 0.6f * min_cell ? whole : std::min(base, min_cell);
  v.cell = std::max(std::floor(cell), fit);
  const float vw = w / v.cell, vh = h / v.cell;
  if (float(g.cols) > vw) v.cx = follow_start(float(g.cols), vw, box.x0, box.x1) + vw * 0.5f;
  if (float(g.rows) > vh) v.cy = follow_start(float(g.rows), vh, box.y0, box.y1) + vh * 0.5f;
  keep_on_grid(g, w, h, v);
  return v;
}

GridBands grid_bands(const GridShape& g, float w, float h, float gap) {
  GridBands best;
  best.cell = fit_cell(g, w, h);
  best.w = float(g.cols) * best.cell;
  best.h = float(g.rows) * best.cell;
  for (int stacked = 0; stacked < 2; ++stacked) {
    // Only a long grid is cut (a square matrix in bands would read as several arrays).
    const uint32_t along = stacked ? g.cols : g.rows, across = stacked ? g.rows : g.cols;
    if (along < 4 * uint64_t(across)) continue;
    for (uint32_t n = 2; n <= 16 && n <= along; n *= 2) {
      const uint32_t span = (along + n - 1) / n;
      if (span < across) break;  // bands no thinner than square: each still reads as part of the array
      const uint32_t used = (along + span - 1) / span;
      const float gaps = float(used - 1) * gap;
      float cell, bw, bh;
      if (stacked) {
        cell = std::min(w / float(span), (h - gaps) / float(uint64_t(used) * g.rows));
        bw = float(span) * cell;
        bh = float(uint64_t(used) * g.rows) * cell + gaps;
      } else {
        cell = std::min((w - gaps) / float(uint64_t(used) * g.cols), h / float(span));
        bw = float(uint64_t(used) * g.cols) * cell + gaps;
        bh = float(span) * cell;
      }
      // More bands only for clearly larger cells: one band reads most easily.
      if (cell > best.cell * 1.25f) {
        best.count = used;
        best.span = span;
        best.stacked = stacked != 0;
        best.cell = cell;
        best.w = bw;
        best.h = bh;
      }
    }
  }
  return best;
}

BandWindow follow_bands(const GridShape& g, const CellBox& box, float w, float h, float gap, float min_cell) {
  BandWindow out;
  if (g.col_major || g.cols < 4 * uint64_t(g.rows) || box.empty() || w < 1 || h < 1) return out;
  const uint32_t line = std::max<uint32_t>(1, 128 / std::max<uint32_t>(1, g.elem_bytes));
  uint32_t span = 0, count = 0, shown = 0;
  auto bands_at = [&](float cell) {
    const uint32_t fit = uint32_t(w / cell);
    span = fit / line * line;
    if (span == 0) {
      span = 1;
      while (span * 2 <= fit) span *= 2;
    }
    count = (g.cols + span - 1) / span;
    shown = uint32_t(std::max(0.0f, std::floor((h + gap) / (float(g.rows) * cell + gap))));
    return span >= 8 && count >= 2 && shown >= 2;
  };
  float cell = 0;
  const float least = std::ceil(0.8f * min_cell);
  for (float c = std::floor(2 * min_cell); c >= least && cell == 0; c -= 1)
    if (bands_at(c) && shown >= count) cell = c;
  for (float c = std::floor(min_cell); c >= least && cell == 0; c -= 1)
    if (bands_at(c) && span >= line) cell = c;
  if (cell == 0) cell = min_cell;
  if (!bands_at(cell)) return out;
  shown = std::min(shown, count);
  // Pages of q bands: the request's bands [k0, k1] stay inside [band0, band0 + shown).
  const uint32_t k0 = uint32_t(std::max(0.0f, box.x0)) / span;
  const uint32_t k1 = uint32_t(std::max(box.x0, box.x1 - 1)) / span;
  const uint32_t need = k1 - k0 + 1;
  uint32_t band0 = k0;
  if (need <= shown) {
    const uint32_t q = shown - need + 1;
    band0 = k0 / q * q;
  }
  band0 = std::min(band0, count - shown);
  out.bands = GridBands{count, span, true, cell, 0, 0};
  out.band0 = band0;
  out.band1 = band0 + shown;
  return out;
}

}  // namespace ws::ui
