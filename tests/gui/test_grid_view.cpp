// tests/gui/test_grid_view.cpp — The memory view's grid maths (ui/grid_view.h and the session's GridShape): thin arrays folded
// into legible blocks with labels that name real indices, and "follow" zooming and
// panning to the current request, checked on the catalog's own traces.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "session/launch.h"
#include "session/session.h"
#include "session/worker.h"
#include "ui/figure/grid_view.h"

using namespace ws;
using session::GridShape;
using ui::CellBox;
using ui::GridWindow;

namespace {

trace::Buffer buffer(uint64_t rows, uint64_t cols, uint32_t elem = 4, uint64_t pitch = 0, bool col_major = false) {
  trace::Buffer b;
  b.name.assign(1, 'x');
  b.elem_bytes = elem;
  b.rows = rows;
  b.cols = cols;
  b.pitch = pitch;
  b.col_major = col_major;
  b.size_bytes = rows * (pitch ? pitch : col_major ? rows : cols) * elem;
  if (col_major) b.size_bytes = cols * (pitch ? pitch : rows) * elem;
  return b;
}

std::shared_ptr<session::Session> record(const std::string& kernel) {
  session::LaunchSpec spec;
  spec.kernel = kernel;
  spec.backend = "emulator";
  return session::record_session(spec);
}

// The first request on array `name` at or after `from`.
uint64_t step_on(const session::Session& m, const std::string& name, uint64_t from = 0) {
  const auto& t = m.trace();
  for (uint64_t i = from; i < m.size(); ++i)
    if (t.buffers[t.sites[t.records[i].site].buffer].name == name) return i;
  FAIL("no request on " << name);
  return 0;
}

// The grid cells a w × h canvas shows around `v`.
CellBox window_of(const GridWindow& v, float w, float h) {
  return {v.cx - w * 0.5f / v.cell, v.cy - h * 0.5f / v.cell, v.cx + w * 0.5f / v.cell, v.cy + h * 0.5f / v.cell};
}
bool holds(const CellBox& outer, const CellBox& inner) {
  const float e = 1e-3f;
  return inner.x0 >= outer.x0 - e && inner.y0 >= outer.y0 - e && inner.x1 <= outer.x1 + e && inner.y1 <= outer.y1 + e;
}

}  // namespace

TEST_CASE("thin arrays are folded a line to a grid row; others keep their shape") {
  // The PMPP exercise's c (n×4) and e (n×8): 8 and 4 array rows side by side, 128 B a row.
  GridShape c = session::grid_shape(buffer(1024, 4));
  CHECK(c.fold == 8);
  CHECK(c.cols == 32);
  CHECK(c.rows == 128);
  CHECK(c.array_rows() == 1024);
  CHECK(c.array_cols() == 4);
  GridShape e = session::grid_shape(buffer(1024, 8));
  CHECK(e.fold == 4);
  CHECK(e.cols == 32);
  CHECK(e.rows == 256);
  // A fold keeps memory order: element i*4+j (c[i][j]) sits in grid row (4i+j)/32.
  uint32_t r, col;
  REQUIRE(c.cell(17 * 4 + 1, r, col));
  CHECK(r == 2);
  CHECK(col == 5);
  CHECK(c.element(r, col) == 17 * 4 + 1);

  // Not thin: square matrices, short fat tiles, padded tiles, a matrix only 4× taller.
  for (auto b : {buffer(64, 64), buffer(8, 128), buffer(4, 1024), buffer(32, 32, 4, 33), buffer(64, 16),
                 buffer(16, 16), buffer(8, 32, 16)}) {
    CAPTURE(b.rows);
    CAPTURE(b.cols);
    GridShape g = session::grid_shape(b);
    CHECK(g.fold == 1);
    CHECK(g.cols == b.row_pitch());
    CHECK(g.rows == b.rows);
  }
  // A row of 128 B or more is never folded, however many rows.
  CHECK(session::grid_shape(buffer(4096, 32)).fold == 1);
  // A last grid row part full: 1001 rows of 4 fill 125 grid rows and half of one more.
  GridShape p = session::grid_shape(buffer(1001, 4));
  CHECK(p.fold == 8);
  CHECK(p.rows == 126);
  CHECK(p.cell(4003, r, col));
  CHECK(r == 125);
  CHECK_FALSE(p.cell(4004, r, col));
}

TEST_CASE("grid labels name the array's own indices") {
  GridShape c = session::grid_shape(buffer(1024, 4));
  // Grid row 2 starts with c[16][0]; "+k" marks where array row 16+k starts in it.
  CHECK(c.row_label(2) == "16");
  CHECK(c.index_text(c.element(2, 0)) == "[16][0]");
  CHECK(c.col_label(0) == "+0");
  CHECK(c.col_label(4) == "+1");
  CHECK(c.col_label(5) == "1");
  CHECK(c.index_text(c.element(2, 5)) == "[17][1]");
  // Every row label names the array row of the grid row's first cell.
  for (uint32_t row = 0; row < c.rows; ++row) {
    std::string first = "[";
    first += c.row_label(row);
    first += "][0]";
    CHECK(c.index_text(c.element(row, 0)) == first);
  }
  // Column labels of a folded grid fall on array rows' starts only.
  CHECK(c.col_label_step(1) == 4);
  CHECK(c.col_label_step(3) == 4);
  CHECK(c.col_label_step(5) == 8);
  for (uint32_t k : {1u, 2u, 7u, 9u, 17u}) CHECK(c.col_label_step(k) % 4 == 0);

  // A 1-D array wrapped 32 to a row: rows are named by their first element.
  trace::Buffer one = buffer(1, 1024);
  GridShape a = session::grid_shape(one);
  CHECK(a.wrapped);
  CHECK(a.row_label(3) == "96");
  CHECK(a.col_label(5) == "5");
  CHECK(a.index_text(a.element(3, 5)) == "[101]");
  CHECK(a.array_rows() == 1);
  CHECK(a.array_cols() == 1024);

  // Plain, padded and column-major matrices.
  GridShape m = session::grid_shape(buffer(64, 64));
  CHECK(m.row_label(7) == "7");
  CHECK(m.col_label(9) == "9");
  CHECK(m.col_label_step(3) == 4);
  CHECK(m.index_text(m.element(7, 9)) == "[7][9]");
  GridShape t = session::grid_shape(buffer(32, 32, 4, 33));
  CHECK(t.index_text(t.element(1, 32)) == "[1][32]");  // the padding column
  GridShape cm = session::grid_shape(buffer(8, 4, 4, 0, true));
  CHECK(cm.col_major);
  CHECK(cm.index_text(cm.element(3, 2)) == "[3][2]");
}

TEST_CASE("legible cells: 10 px at the regular labels, larger with larger type, from 8 to 14 px") {
  CHECK(ui::legible_cell(13) == 10);
  CHECK(ui::legible_cell(16) == 12);
  CHECK(ui::legible_cell(27) == 14);
  CHECK(ui::legible_cell(6) == 8);
}

TEST_CASE("follow puts pmpp_exercise's c and e requests in view at legible cells") {
  auto m = record("pmpp_exercise");
  REQUIRE(m->size() > 0);
  const size_t c_id = m->trace().sites[m->trace().records[step_on(*m, "c")].site].buffer;
  const size_t e_id = m->trace().sites[m->trace().records[step_on(*m, "e")].site].buffer;
  const GridShape& c = m->shapes()[c_id];
  const GridShape& e = m->shapes()[e_id];
  // A panel's focus at 1280×720, and one at 1920×1080.
  for (auto [w, h] : {std::pair{300.0f, 150.0f}, std::pair{480.0f, 400.0f}}) {
    CAPTURE(w);
    // Unfollowed, the whole of c would be cells under 2 px.
    CHECK(ui::fit_cell(c, w, h) < 4);
    const uint64_t s = step_on(*m, "c");
    const session::RequestFigures rv = m->request(s);
    const CellBox box = ui::request_box(c, rv);
    CHECK(box.x1 - box.x0 == 29);  // lanes 16 B apart: 8 a grid row, every 4th cell
    CHECK(box.y1 - box.y0 == 4);   // 4 grid rows of one line each
    const GridWindow v = ui::follow_window(c, box, w, h, 10);
    CHECK(v.cell >= 8);
    CHECK(v.cell == std::floor(v.cell));
    CHECK(holds(window_of(v, w, h), box));
    // The next three requests of the warp (j = 1, 2, 3: one element further each) keep
    // the window where it is.
    uint64_t next = s;
    for (int j = 1; j < 4; ++j) {
      next = step_on(*m, "c", next + 1);
      const GridWindow u = ui::follow_window(c, ui::request_box(c, m->request(next)), w, h, 10);
      CHECK(u.cell == v.cell);
      CHECK(u.cx == v.cx);
      CHECK(u.cy == v.cy);
    }
    // Every request on e: 8 grid rows of 32 (lanes 32 B apart), whole and legible.
    int on_e = 0;
    for (uint64_t i = 0; i < m->size(); ++i) {
      if (m->trace().sites[m->trace().records[i].site].buffer != e_id) continue;
      ++on_e;
      const CellBox eb = ui::request_box(e, m->request(i));
      const GridWindow u = ui::follow_window(e, eb, w, h, 10);
      CAPTURE(i);
      CHECK(eb.y1 - eb.y0 == 8);
      CHECK(u.cell >= 8);
      CHECK(holds(window_of(u, w, h), eb));
    }
    CHECK(on_e == 32);
  }
}

TEST_CASE("follow keeps every request of three kernels in view: whole, or legible from its start") {
  for (const std::string kernel : {"pmpp_exercise", "matmul_coarse2d_vec", "transpose_tiled"}) {
    auto m = record(kernel);
    REQUIRE(m->size() > 0);
    const auto& t = m->trace();
    for (auto [w, h] : {std::pair{300.0f, 125.0f}, std::pair{330.0f, 170.0f}, std::pair{480.0f, 400.0f}}) {
      for (uint64_t i = 0; i < m->size(); i += 7) {
        const session::RequestFigures rv = m->request(i);
        const GridShape& g = m->shapes()[t.sites[t.records[i].site].buffer];
        const CellBox box = ui::request_box(g, rv);
        REQUIRE_FALSE(box.empty());
        const GridWindow v = ui::follow_window(g, box, w, h, 10);
        const CellBox win = window_of(v, w, h);
        CAPTURE(kernel);
        CAPTURE(w);
        CAPTURE(i);
        if (ui::fit_cell(g, w, h) >= 8) {
          CHECK(v.cell == ui::fit_cell(g, w, h));  // the whole grid, nothing to zoom
          continue;
        }
        if (holds(win, box)) {
          CHECK(v.cell >= 6);
        } else {
          // Too large to show whole at 6 px (a float4 warp's 128 floats in a 300 px
          // canvas): legible cells from its first cell on.
          const bool too_large = (box.x1 - box.x0) * 6 > w + 1e-3f || (box.y1 - box.y0) * 6 > h + 1e-3f;
          CHECK(too_large);
          CHECK(v.cell >= 8);
          CHECK(box.x0 >= win.x0 - 1e-3f);
          CHECK(box.y0 >= win.y0 - 1e-3f);
        }
      }
    }
  }
}

TEST_CASE("grid bands: a long grid in a small box is cut, a square one never") {
  GridShape e = session::grid_shape(buffer(1024, 8));  // 32 × 256
  ui::GridBands b = ui::grid_bands(e, 60, 100, 3);
  CHECK(b.count > 1);
  CHECK_FALSE(b.stacked);
  CHECK(b.cell > 1.25f * ui::fit_cell(e, 60, 100));
  CHECK(b.w <= 60 + 1e-3f);
  CHECK(b.h <= 100 + 1e-3f);
  CHECK(uint64_t(b.count) * b.span >= e.rows);
  // The last cell of every band lies inside the box, bands apart.
  for (uint32_t k = 0; k < b.count; ++k) {
    float x, y;
    const uint32_t row = std::min(e.rows - 1, (k + 1) * b.span - 1);
    ui::band_cell(b, 3, e.rows, e.cols, row, e.cols - 1, x, y);
    CHECK(x + b.cell <= b.w + 1e-3f);
    CHECK(y + b.cell <= b.h + 1e-3f);
  }
  GridShape wide = session::grid_shape(buffer(4, 1024));  // b of the exercise
  ui::GridBands s = ui::grid_bands(wide, 80, 80, 3);
  CHECK(s.stacked);
  CHECK(s.count > 1);
  CHECK(s.cell > 1.25f * ui::fit_cell(wide, 80, 80));
  GridShape sq = session::grid_shape(buffer(128, 128));
  CHECK(ui::grid_bands(sq, 40, 140, 3).count == 1);
}

TEST_CASE("a wide grid followed in bands: As[8][128] whole, b[4][1024] by pages around the request") {
  // The float4 SGEMM's A tile in a 1920×1080 focus: four bands of one 128-byte line each.
  GridShape as = session::grid_shape(buffer(8, 128));
  ui::BandWindow w = ui::follow_bands(as, CellBox{0, 1, 8, 2}, 464, 420, 21, 10);
  CHECK(w.bands.count == 4);
  CHECK(w.bands.span == 32);
  CHECK(w.bands.stacked);
  CHECK(w.band0 == 0);
  CHECK(w.band1 == 4);
  CHECK(w.bands.cell >= 10);
  CHECK(4 * (8 * w.bands.cell + 21) - 21 <= 420);
  CHECK(32 * w.bands.cell <= 464);

  // The exercise's b in a 1280×720 focus: a line a band at 9 px, three bands shown.
  auto m = record("pmpp_exercise");
  const auto& t = m->trace();
  const size_t b_id = t.sites[t.records[step_on(*m, "b")].site].buffer;
  const GridShape& b = m->shapes()[b_id];
  CHECK(b.rows == 4);
  CHECK(b.cols == 1024);
  int on_b = 0, moves = 0;
  uint32_t last = ~0u;
  for (uint64_t i = 0; i < m->size(); ++i) {
    if (t.sites[t.records[i].site].buffer != b_id) continue;
    ++on_b;
    const CellBox box = ui::request_box(b, m->request(i));
    const ui::BandWindow v = ui::follow_bands(b, box, 300, 170, 21, 10);
    CAPTURE(i);
    REQUIRE(v.bands.count >= 2);
    CHECK(v.bands.span == 32);
    CHECK(v.bands.cell >= 8);
    CHECK(v.band1 - v.band0 == 3);
    // The request's columns lie in the bands shown.
    CHECK(box.x0 >= float(v.band0 * v.bands.span));
    CHECK(box.x1 <= float(v.band1 * v.bands.span));
    if (last != ~0u && v.band0 != last) ++moves;
    last = v.band0;
  }
  CHECK(on_b == 128);
  // 4 rows (j) of every warp share its bands, and a page holds three warps' columns.
  CHECK(moves < on_b / 8);

  // Not wide: a square matrix, a folded thin array, a column-major one.
  CHECK(ui::follow_bands(session::grid_shape(buffer(128, 128)), CellBox{0, 0, 8, 16}, 300, 170, 21, 10).bands.count ==
        1);
  CHECK(ui::follow_bands(session::grid_shape(buffer(1024, 4)), CellBox{0, 0, 29, 4}, 300, 170, 21, 10).bands.count ==
        1);
  CHECK(ui::follow_bands(session::grid_shape(buffer(4, 1024, 4, 0, true)), CellBox{0, 0, 1, 4}, 300, 170, 21, 10)
            .bands.count == 1);
}
