// src/ui/figure/memory_scene.cpp — Memory view: every buffer of the launch as a grid of cells. The current request's
// lanes light up their cells in lane colours, the 32-byte sectors and 128-byte lines it
// touches are outlined, and a heat layer shows the traffic so far. The grid itself is one
// GridDraw (a texture on the GPU), so a 1024×1024 buffer costs the same as a small one;
// only the few cells of the current request are drawn as shapes. Where the panel is too
// small for every grid to be legible at once, the current request's buffer is shown large
// (followed: zoomed and panned to the request) beside an overview of every buffer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

#include "ui/figure/theme.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

namespace {

bool shown(const MemoryViewState& st, const std::string& name) {
  if (!st.hidden) return true;
  auto it = st.hidden->find(name);
  return it == st.hidden->end() || !it->second;
}

// The number of columns of equal slots that gives the largest cells overall, where
// `cell_in(buffer, slot size)` is a buffer's cell in a slot.
struct Arrangement {
  int cols = 1, rows = 1;
  float cell = -1;
  ImVec2 slot;
};
Arrangement arrange(const std::vector<size_t>& bufs, ImVec2 avail, float gap,
                    const std::function<float(size_t, ImVec2)>& cell_in) {
  Arrangement best;
  for (int cols = 1; cols <= int(bufs.size()); ++cols) {
    const int rows = (int(bufs.size()) + cols - 1) / cols;
    const ImVec2 slot((avail.x - gap * float(cols - 1)) / float(cols), (avail.y - gap * float(rows - 1)) / float(rows));
    float worst = 1e9f;
    for (size_t i : bufs) worst = std::min(worst, cell_in(i, slot));
    if (worst > best.cell) best = {cols, rows, worst, slot};
  }
  return best;
}

ImVec2 canvas_size(const MemoryLayout::Slot& s) { return ImVec2(s.clip_max.x - s.clip_min.x, s.clip_max.y - s.clip_min.y); }


// The grid drawn in slot `s`: one GridDraw, or one per band shown, each clipped to its band.
void grid_scene(Scene& sc, const MemoryLayout::Slot& s, const GridShape& g, GridDraw gd) {
  gd.cell = s.cell;
  const GridBands& bd = s.bands;
  if (bd.count <= 1 || bd.span == 0) {
    gd.origin = s.origin;
    gd.clip_min = s.clip_min;
    gd.clip_max = s.clip_max;
    sc.grid(gd);
    return;
  }
  for (uint32_t k = s.band0; k < s.band1; ++k) {
    CellBox part{0, 0, float(g.cols), float(g.rows)};
    if (bd.stacked)
      part.x0 = float(k * bd.span), part.x1 = float(std::min(g.cols, (k + 1) * bd.span));
    else
      part.y0 = float(k * bd.span), part.y1 = float(std::min(g.rows, (k + 1) * bd.span));
    slot_rects(s, g, part, [&](ImVec2 a, ImVec2 b) {
      GridDraw band = gd;
      band.origin = ImVec2(a.x - part.x0 * s.cell, a.y - part.y0 * s.cell);
      band.clip_min = ImVec2(std::max(a.x, s.clip_min.x), std::max(a.y, s.clip_min.y));
      band.clip_max = ImVec2(std::min(b.x, s.clip_max.x), std::min(b.y, s.clip_max.y));
      if (band.clip_min.x < band.clip_max.x && band.clip_min.y < band.clip_max.y) sc.grid(band);
    });
  }
}

// Follow on a wide grid in bands (follow_bands), the slot placed on them.
bool follow_in_bands(MemoryLayout::Slot& s, const GridShape& g, const CellBox& box, const MemoryLayout& L) {
  const ImVec2 csz = canvas_size(s);
  const float gap = L.lab_h + 4;  // room for the next band's column numbers
  const BandWindow w = follow_bands(g, box, csz.x, csz.y, gap, L.min_cell);
  if (w.bands.count < 2) return false;
  s.bands = w.bands;
  s.band0 = w.band0;
  s.band1 = w.band1;
  s.band_gap = gap;
  s.cell = w.bands.cell;
  s.origin = s.clip_min;
  s.row0 = 0;
  s.row1 = g.rows;
  s.col0 = w.band0 * w.bands.span;
  s.col1 = std::min(g.cols, w.band1 * w.bands.span);
  s.center = ImVec2(float(s.col0 + s.col1) * 0.5f, float(g.rows) * 0.5f);
  return true;
}

// A slot's grid: followed to the request, or as the user zoomed and panned it.
void view_slot(MemoryLayout::Slot& s, const GridShape& g, const RequestFigures& rv, const MemoryViewState& st,
               const MemoryLayout& L) {
  const ImVec2 csz = canvas_size(s);
  s.fit = fit_cell(g, csz.x, csz.y);
  if (st.follow) {
    CellBox box = s.current ? request_box(g, rv) : CellBox{};
    s.followed = true;
    if (s.fit < 0.8f * L.min_cell && follow_in_bands(s, g, box, L)) return;
    // Lanes past the array's end (a faulting request) are drawn where the grid would go on
    // (past_edge_scene): the view follows them there, with rows clear below them for the
    // strip that names them (two lines: a narrow canvas wraps its words); the grid's own
    // rows are clamped after.
    const float strip = 2 * std::round(font_for(FontRole::Small)->FontSize * 1.25f) + 12;
    const GridShape reach = s.current ? past_end_reach(g, rv, uint32_t(std::ceil(strip / L.min_cell)) + 1, box) : g;
    const GridWindow v = follow_window(reach, box, csz.x, csz.y, L.min_cell);
    place_slot(s, reach, v.cell, ImVec2(v.cx, v.cy));
    s.row1 = std::min(s.row1, g.rows);
    return;
  }
  GridView view = st.grids && s.buffer < st.grids->size() ? (*st.grids)[s.buffer] : GridView{};
  if (view.center.x < 0) view.center = ImVec2(float(g.cols) * 0.5f, float(g.rows) * 0.5f);
  place_slot(s, g, s.fit * view.zoom, view.center);
}

std::string title_text(const GridShape& g, const trace::Buffer& buf) {
  char title[160];
  // A program's array is of the type its instructions name (a uint32 is not a float).
  const auto type_name = [&](uint32_t bytes) { return g.type.empty() ? ws::ui::type_name(bytes) : g.type.c_str(); };
  const char* space = buf.space == trace::Space::Shared    ? "shared"
                      : buf.space == trace::Space::Cluster ? "another CTA's shared memory"
                                                           : "global";
  if (g.wrapped)  // a 1-D array, drawn 128 bytes to a row
    std::snprintf(title, sizeof title, "%llu %s · %s · %u per row", (unsigned long long)g.elements,
                  type_name(g.elem_bytes), space, g.cols);
  else if (g.fold > 1)
    std::snprintf(title, sizeof title, "%llu×%llu %s · %s · %u rows side by side", (unsigned long long)g.array_rows(),
                  (unsigned long long)g.array_cols(), type_name(g.elem_bytes), space, g.fold);
  else
    std::snprintf(title, sizeof title, "%u×%u %s · %s%s", g.rows, g.cols, type_name(g.elem_bytes), space,
                  g.col_major ? " · column-major" : "");
  return title;
}

// The short shape of an overview tile: "1024×4", "1032".
std::string tile_shape(const GridShape& g) {
  if (g.wrapped) return std::to_string(g.elements);
  return std::to_string(g.array_rows()) + "×" + std::to_string(g.array_cols());
}

GridDraw grid_draw(const trace::Buffer& buf, const GridShape& g, const MemoryViewState& st, size_t buffer) {
  const bool shared = buf.space == trace::Space::Shared;
  GridDraw gd;
  gd.key = &buf;
  gd.heat = st.heat && st.heat_map ? st.heat_map->layer(buffer) : nullptr;
  gd.rows = g.rows;
  gd.cols = g.cols;
  gd.log_scale = st.heat_log;
  gd.grid_lines = true;
  gd.elem_bytes = g.elem_bytes;
  gd.row_elems = g.col_major ? g.rows : g.cols;
  // A stronger line at each 32-byte sector boundary of a row.
  gd.major_every = !shared && !g.col_major && (uint64_t(g.cols) * g.elem_bytes) % analysis::kSectorBytes == 0
                       ? analysis::kSectorBytes / g.elem_bytes
                       : 0;
  gd.bank_tint = shared;
  return gd;
}

// An overview tile: the whole grid in its bands, the request's lanes, and the focus
// window's outline on the focus buffer's tile.
void tile_scene(Scene& sc, Scene& labels, const Session& m, const RequestFigures& rv, const MemoryViewState& st,
                const MemoryLayout& L, const MemoryLayout::Slot& s) {
  const Theme& t = theme();
  const trace::Buffer& buf = m.trace().buffers[s.buffer];
  const GridShape& g = m.shapes()[s.buffer];
  sc.size = labels.size = s.size;
  grid_scene(sc, s, g, grid_draw(buf, g, st, s.buffer));
  if (s.current) {
    // The focus window, when the focus shows part of the grid.
    if (L.focus >= 0) {
      const MemoryLayout::Slot& f = L.slots[size_t(L.focus)];
      if (f.row0 > 0 || f.col0 > 0 || f.row1 < g.rows || f.col1 < g.cols)
        slot_rects(s, g, CellBox{float(f.col0), float(f.row0), float(f.col1), float(f.row1)}, [&](ImVec2 a, ImVec2 b) {
          sc.rect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), t.accent, 1.5f);
        });
    }
    const float min_px = 3;
    if (st.request_lanes) {
      for (const LaneSpan& l : lane_spans(g, rv))
        for_each_run(g, l.e0, l.e1, [&](const CellBox& run) {
          slot_rects(s, g, run, [&](ImVec2 a, ImVec2 b) {
            if (b.x - a.x < min_px) a.x = (a.x + b.x - min_px) * 0.5f, b.x = a.x + min_px;
            if (b.y - a.y < min_px) a.y = (a.y + b.y - min_px) * 0.5f, b.y = a.y + min_px;
            sc.fill(a, b, lane_color(l.lane));
          });
        });
    }
  }
  const std::string name = fit_text(FontRole::Bold, buf.name, s.size.x);
  labels.text(ImVec2(0, 1), name, s.current ? t.accent : t.text, FontRole::Bold);
  const float nx = text_size(FontRole::Bold, name).x + 6;
  const std::string shape = tile_shape(g);
  if (nx + text_size(FontRole::Small, shape).x <= s.size.x)
    labels.text(ImVec2(nx, L.tile_title_h * 0.5f), shape, t.text_dim, FontRole::Small, 0, 0.5f);
}

}  // namespace

// The cell under slot point `p` (slot coordinates); false off the grid or between bands.
bool cell_at(const MemoryLayout::Slot& s, const GridShape& g, ImVec2 p, uint32_t& row, uint32_t& col) {
  float x = (p.x - s.origin.x) / s.cell, y = (p.y - s.origin.y) / s.cell;
  const GridBands& bd = s.bands;
  if (bd.count > 1 && bd.span > 0) {
    // Stacked bands (the focus of a wide grid); tiles take no mouse.
    if (!bd.stacked) return false;
    const float pitch = float(g.rows) + s.band_gap / s.cell;
    const float j = std::floor(y / pitch);
    if (j < 0 || x < 0 || x >= float(bd.span)) return false;
    y -= j * pitch;
    x += (float(s.band0) + j) * float(bd.span);
    if (float(s.band0) + j >= float(s.band1)) return false;
  }
  if (x < 0 || y < 0 || x >= float(g.cols) || y >= float(g.rows)) return false;
  row = uint32_t(y);
  col = uint32_t(x);
  return true;
}

void place_slot(MemoryLayout::Slot& s, const GridShape& g, float cell, ImVec2 center) {
  const ImVec2 csz = canvas_size(s);
  GridWindow v{std::max(cell, 1e-3f), center.x, center.y};
  keep_on_grid(g, csz.x, csz.y, v);
  s.cell = v.cell;
  s.center = ImVec2(v.cx, v.cy);
  // Whole pixels, so cell edges stay crisp.
  s.origin = ImVec2(std::round(csz.x * 0.5f - v.cx * v.cell + s.clip_min.x),
                    std::round(csz.y * 0.5f - v.cy * v.cell + s.clip_min.y));
  s.col0 = uint32_t(std::max(0.0f, std::floor((s.clip_min.x - s.origin.x) / s.cell)));
  s.row0 = uint32_t(std::max(0.0f, std::floor((s.clip_min.y - s.origin.y) / s.cell)));
  s.col1 = std::min<uint32_t>(g.cols, uint32_t(std::max(0.0f, std::ceil((s.clip_max.x - s.origin.x) / s.cell))));
  s.row1 = std::min<uint32_t>(g.rows, uint32_t(std::max(0.0f, std::ceil((s.clip_max.y - s.origin.y) / s.cell))));
}

MemoryLayout memory_layout(const Session& m, const RequestFigures& rv, const MemoryViewState& st, ImVec2 avail) {
  MemoryLayout L;
  const auto& tr = m.trace();
  std::vector<size_t> bufs;
  // Global arrays always; another memory's array this launch never reached is another kernel's.
  for (size_t i = 0; i < tr.buffers.size() && i < m.shapes().size(); ++i)
    if (shown(st, tr.buffers[i].name) && (tr.buffers[i].space == trace::Space::Global || m.touches(i))) bufs.push_back(i);
  L.all_hidden = bufs.empty() && !tr.buffers.empty();
  if (bufs.empty() || avail.x < 40 || avail.y < 40) return L;

  ImFont* small = font_for(FontRole::Small);
  // Whole pixels, so a canvas starts where its grid's first cell does.
  L.axis_h = st.labels ? std::ceil(small->FontSize + 2) : 0.0f;
  L.title_h = std::ceil(font_for(FontRole::Ui)->FontSize + 6) + L.axis_h;
  L.tile_title_h = std::ceil(font_for(FontRole::Bold)->FontSize + 4);
  L.lab_h = std::ceil(small->FontSize + 4);
  L.min_cell = legible_cell(small->FontSize);
  // Row numbers as wide as the widest one of a shown buffer (a 1-D array's name elements).
  float lab = text_size(FontRole::Small, "0000").x;
  for (size_t i : bufs) {
    lab = std::max(lab, text_size(FontRole::Small, m.shapes()[i].row_label(m.shapes()[i].rows - 1)).x);
    if (st.labels) lab = std::max(lab, text_size(FontRole::Small, std::string(m.shapes()[i].row_axis()) + " ↓").x);
  }
  L.lab_w = std::ceil(lab + 8);
  const float slot_gap = 12;

  int current = -1;
  if (rv.site)
    for (size_t i : bufs)
      if (rv.site->buffer == i) current = int(i);

  auto slot_at = [&](size_t buffer, ImVec2 min, ImVec2 size) {
    MemoryLayout::Slot s;
    s.buffer = buffer;
    s.min = min;
    s.size = size;
    s.clip_min = ImVec2(L.lab_w, L.title_h + L.lab_h);
    s.clip_max = s.size;
    s.current = int(buffer) == current;
    return s;
  };

  // One slot per buffer, when every grid is legible at once (or nothing is current).
  const Arrangement even = arrange(bufs, avail, slot_gap, [&](size_t i, ImVec2 slot) {
    return fit_cell(m.shapes()[i], slot.x - L.lab_w, slot.y - L.title_h - L.lab_h);
  });
  if (current < 0 || even.cell >= 0.8f * L.min_cell) {
    for (size_t si = 0; si < bufs.size(); ++si) {
      const int col = int(si) % even.cols, row = int(si) / even.cols;
      MemoryLayout::Slot s = slot_at(
          bufs[si], ImVec2(float(col) * (even.slot.x + slot_gap), float(row) * (even.slot.y + slot_gap)), even.slot);
      const ImVec2 csz = canvas_size(s);
      if (csz.x < 8 || csz.y < 8) continue;
      view_slot(s, m.shapes()[s.buffer], rv, st, L);
      L.slots.push_back(s);
    }
    return L;
  }

  // The focus and the overview: side by side in a wide panel, one over the other in a
  // tall one; the overview left out where it would be too small to read.
  ImVec2 fsize = avail, omin, osize;
  const bool wide = avail.x >= avail.y * 1.25f;
  if (wide) {
    const float fw = std::round(avail.x * 0.62f);
    fsize = ImVec2(fw, avail.y);
    omin = ImVec2(fw + slot_gap, 0);
    osize = ImVec2(avail.x - fw - slot_gap, avail.y);
  } else {
    const float fh = std::round(avail.y * 0.6f);
    fsize = ImVec2(avail.x, fh);
    omin = ImVec2(0, fh + slot_gap);
    osize = ImVec2(avail.x, avail.y - fh - slot_gap);
  }
  const float tile_gap = 8;
  Arrangement tiles;
  if (bufs.size() > 1 && osize.x >= 48 && osize.y >= L.tile_title_h + 24)
    tiles = arrange(bufs, osize, tile_gap, [&](size_t i, ImVec2 slot) {
      // A tile as wide as its array's name at least, and not a sliver: tiles far from
      // square count as smaller (a row of slivers reads worse than a tidy grid of tiles).
      if (slot.x < text_size(FontRole::Bold, tr.buffers[i].name).x + 2) return 0.0f;
      const float aspect = std::max(slot.x / slot.y, slot.y / slot.x);
      return grid_bands(m.shapes()[i], slot.x, slot.y - L.tile_title_h, L.band_gap).cell *
             std::min(1.0f, 2.5f / aspect);
    });
  if (tiles.cell <= 0 || tiles.slot.y < L.tile_title_h + 12) fsize = avail;  // no overview

  MemoryLayout::Slot f = slot_at(size_t(current), ImVec2(0, 0), fsize);
  const ImVec2 fcsz = canvas_size(f);
  if (fcsz.x >= 8 && fcsz.y >= 8) {
    view_slot(f, m.shapes()[f.buffer], rv, st, L);
    L.focus = int(L.slots.size());
    L.slots.push_back(f);
  }
  if (fsize.x < avail.x || fsize.y < avail.y)
    for (size_t si = 0; si < bufs.size(); ++si) {
      const int col = int(si) % tiles.cols, row = int(si) / tiles.cols;
      MemoryLayout::Slot s;
      s.buffer = bufs[si];
      s.tile = true;
      s.min = ImVec2(omin.x + float(col) * (tiles.slot.x + tile_gap), omin.y + float(row) * (tiles.slot.y + tile_gap));
      s.size = tiles.slot;
      s.clip_min = ImVec2(0, L.tile_title_h);
      s.clip_max = s.size;
      s.current = int(s.buffer) == current;
      const GridShape& g = m.shapes()[s.buffer];
      const ImVec2 csz = canvas_size(s);
      s.bands = grid_bands(g, csz.x, csz.y, L.band_gap);
      s.band0 = 0;
      s.band1 = s.bands.count;
      s.band_gap = L.band_gap;
      s.fit = s.cell = s.bands.cell;
      s.origin = s.clip_min;
      s.center = ImVec2(float(g.cols) * 0.5f, float(g.rows) * 0.5f);
      s.row1 = g.rows;
      s.col1 = g.cols;
      L.slots.push_back(s);
    }
  return L;
}

namespace {

// What the parts of a slot's scene share: the slot, its buffer and grid, the request and
// the view's toggles.
struct SlotParts {
  const MemoryLayout::Slot& s;
  const trace::Buffer& buf;
  const GridShape& g;
  const RequestFigures& rv;
  const MemoryViewState& st;
  const MemoryLayout& L;
  // Each screen rectangle of cell box `b` in this slot (a wide grid is drawn in bands).
  template <class F>
  void rects(const CellBox& b, F&& f) const { slot_rects(s, g, b, f); }
};

// Bank numbers in shared arrays once cells are large enough to carry them.
void bank_numbers_scene(Scene& sc, const SlotParts& x) {
  const MemoryLayout::Slot& s = x.s;
  const GridShape& g = x.g;
  const float cell = s.cell;
  const Theme& t = theme();
  const bool shared = x.buf.space == trace::Space::Shared;
  if (shared && x.st.banks && cell >= 30 && size_t(s.col1 - s.col0) * (s.row1 - s.row0) <= 2500) {
    for (uint32_t r = s.row0; r < s.row1; ++r)
      for (uint32_t c = s.col0; c < s.col1; ++c) {
        uint64_t e = g.element(r, c);
        if (e >= g.elements) continue;
        std::string bank = "b";
        bank += std::to_string(analysis::bank_of(e * g.elem_bytes));
        x.rects(CellBox{float(c), float(r), float(c + 1), float(r + 1)}, [&](ImVec2, ImVec2 q) {
          sc.text(ImVec2(q.x - 3, q.y - 2), bank, t.text_dim, FontRole::Small, 1, 1);
        });
      }
  }
}

// Lines (128 B) and sectors (32 B) of a global request.
void request_outlines_scene(Scene& sc, const SlotParts& x) {
  const MemoryLayout::Slot& s = x.s;
  const GridShape& g = x.g;
  const float cell = s.cell;
  const Theme& t = theme();
  const RequestFigures& rv = x.rv;
  const MemoryViewState& st = x.st;
  if (s.current && x.buf.space != trace::Space::Shared && x.buf.space != trace::Space::Cluster) {
    const float lw = std::clamp(cell * 0.15f, 1.0f, 3.0f);
    if (st.lines)
      for (uint64_t l : rv.lines)
        for_each_run(g, l * analysis::kLineBytes / g.elem_bytes, (l + 1) * analysis::kLineBytes / g.elem_bytes,
                     [&](const CellBox& b) {
                       x.rects(b, [&](ImVec2 pa, ImVec2 pb) {
                         sc.rect(ImVec2(pa.x - lw, pa.y - lw), ImVec2(pb.x + lw, pb.y + lw), t.line128, lw, 2);
                       });
                     });
    if (st.sectors)
      for (const auto& sector : rv.sectors)
        for_each_run(g, sector.sector * analysis::kSectorBytes / g.elem_bytes,
                     (sector.sector + 1) * analysis::kSectorBytes / g.elem_bytes, [&](const CellBox& b) {
                       x.rects(b, [&](ImVec2 pa, ImVec2 pb) {
                         sc.rect(ImVec2(pa.x - 1, pa.y - 1), ImVec2(pb.x + 1, pb.y + 1), t.sector,
                                 cell >= 6 ? 2.0f : 1.0f);
                       });
                     });
  }
}

// The request's lanes: each lane's cells a patch of its colour, numbered where they fit;
// the words of an n-way conflict rimmed.
void lane_patches_scene(Scene& sc, const SlotParts& x) {
  const MemoryLayout::Slot& s = x.s;
  const GridShape& g = x.g;
  const float cell = s.cell;
  const Theme& t = theme();
  const RequestFigures& rv = x.rv;
  if (!x.st.request_lanes) return;
  const bool shared = x.buf.space == trace::Space::Shared;
  // Words of a shared request that share a bank with another word of the same phase
  // (the n-way conflict) get a red rim.
  std::set<uint64_t> conflicted;  // element indices
  if (s.current && shared && x.st.conflicts)
    for (const analysis::BankWord& w : rv.banks)
      if (w.way > 1) conflicted.insert(w.word * analysis::kBankBytes / g.elem_bytes);
  const std::vector<LaneSpan> lanes = s.current ? lane_spans(g, rv) : std::vector<LaneSpan>{};
  // Each lane's span (four cells of a float4 lane) is one patch, set off from its
  // neighbours by a dark pixel once cells are large enough to spare it.
  const float min_px = 4;
  const float inset = cell >= 16 ? 1.5f : cell >= 9 ? 1.0f : 0.0f;
  const float apart = cell >= 5 && cell < 9 ? 1.0f : 0.0f;  // small cells: a pixel off the far edges only
  const float round = cell >= 16 ? 3.0f : cell >= 8 ? 2.0f : 0.0f;
  ImFont* small = font_for(FontRole::Small);
  // Lane numbers on the patches where every lane's number fits its patch, or on none.
  float num_w = 0;
  for (const auto& l : lanes) num_w = std::max(num_w, text_size(FontRole::Small, std::to_string(l.lane)).x);
  // Spans already carrying a number: lanes sharing a word show the first one's, drawn once
  // every patch is down (a later lane's patch on the same cells would cover it).
  std::set<uint64_t> numbered;
  std::vector<std::pair<ImVec2, int>> numbers;
  for (const auto& l : lanes) {
    const bool number = numbered.insert(l.e0).second;
    for_each_run(g, l.e0, l.e1, [&](const CellBox& run) { x.rects(run, [&](ImVec2 pa, ImVec2 pb) {
      if (pb.x - pa.x < min_px) {
        float c = (pa.x + pb.x) * 0.5f;
        pa.x = c - min_px * 0.5f, pb.x = c + min_px * 0.5f;
      }
      if (pb.y - pa.y < min_px) {
        float c = (pa.y + pb.y) * 0.5f;
        pa.y = c - min_px * 0.5f, pb.y = c + min_px * 0.5f;
      }
      sc.fill(ImVec2(pa.x + inset, pa.y + inset), ImVec2(pb.x - inset - apart, pb.y - inset - apart), lane_color(l.lane),
              round);
      if (conflicted.count(l.e0)) sc.rect(pa, pb, t.bad, cell >= 8 ? 2.5f : 1.5f, 3);
      // The lane's number where its patch can carry it (a float4 span from 14 px cells).
      if (number && pb.y - pa.y >= small->FontSize + 2 && pb.x - pa.x - 2 * inset >= num_w + 2)
        numbers.push_back({ImVec2((pa.x + pb.x) * 0.5f, (pa.y + pb.y) * 0.5f), l.lane});
    }); });
  }
  for (const auto& [at, lane] : numbers)
    sc.text(at, std::to_string(lane), ink_on(lane_color(lane)), FontRole::Small, 0.5f, 0.5f);
}

// Title: name, shape, space; the buffer of the current request is marked.
void slot_title_scene(Scene& labels, const SlotParts& x) {
  const MemoryLayout::Slot& s = x.s;
  const trace::Buffer& buf = x.buf;
  const MemoryViewState& st = x.st;
  const Theme& t = theme();
  const std::string name = fit_text(FontRole::Bold, buf.name, s.size.x);
  labels.text(ImVec2(0, 2), name, s.current ? t.accent : t.text, FontRole::Bold);
  const float nx = text_size(FontRole::Bold, name).x + 8;
  // Room kept at the right for "follow off" while the user holds the view.
  const char* off = s.current && !st.follow ? "follow off (F)" : "";
  const float off_w = *off ? text_size(FontRole::Ui, off).x + 10 : 0.0f;
  // A shared grid's stripes (or checkerboard) are its words' banks, even and odd: named in
  // this title where there is no key row under the grids, before the shape gets its room.
  const bool keyed_here = st.bank_key_buffer >= 0 && size_t(st.bank_key_buffer) == s.buffer;
  const float kh = font_for(FontRole::Small)->FontSize, sw = std::round(kh * 0.8f);
  const char* key_words = buf.space == trace::Space::Shared ? "even / odd bank" : "shared: even / odd bank";
  const float key_w = keyed_here ? sw * 2 + 4 + text_size(FontRole::Small, key_words).x + 10 : 0.0f;
  const char* tag = s.current ? (x.rv.site->op == trace::Op::Store ? "◀ store" : "◀ load") : "";
  const float tag_w = *tag ? text_size(FontRole::Ui, tag).x + 10 : 0.0f;
  const std::string shape = fit_text(FontRole::Ui, title_text(x.g, buf), s.size.x - nx - off_w - key_w - tag_w);
  if (!shape.empty()) labels.text(ImVec2(nx, 3), shape, t.text_dim, FontRole::Ui);
  float tx = nx + text_size(FontRole::Ui, shape).x + 10;
  if (*tag && tx + tag_w - 10 + off_w < s.size.x) {
    labels.text(ImVec2(tx, 3), tag, t.accent, FontRole::Ui);
    tx += tag_w;
  }
  if (keyed_here && tx + key_w - 10 + off_w <= s.size.x) {
    const float y = 3 + std::round((font_for(FontRole::Ui)->FontSize - sw) * 0.5f);
    labels.fill(ImVec2(tx, y), ImVec2(tx + sw, y + sw), t.cell_empty);
    labels.fill(ImVec2(tx + sw, y), ImVec2(tx + 2 * sw, y + sw), t.cell_tinted);
    labels.rect(ImVec2(tx, y), ImVec2(tx + 2 * sw, y + sw), t.grid_line, 1.0f);
    labels.text(ImVec2(tx + 2 * sw + 4, 3 + (font_for(FontRole::Ui)->FontSize - kh) * 0.5f), key_words, t.text_dim,
                FontRole::Small);
    tx += key_w;
  }
  if (*off && tx + off_w - 10 <= s.size.x) labels.text(ImVec2(s.size.x, 3), off, t.warn, FontRole::Ui, 1, 0);
}

// Row and column numbers in the margins, naming the array's own indices: beside and
// above the grid, or each band of a wide grid shown in bands.
void axis_labels_scene(Scene& labels, const SlotParts& x) {
  const MemoryLayout::Slot& s = x.s;
  const GridShape& g = x.g;
  const float cell = s.cell;
  const Theme& t = theme();
  const MemoryLayout& L = x.L;
  ImFont* small = font_for(FontRole::Small);
  if (!x.st.labels) return;
  // Axis titles above the numbers: what the row numbers count over them, the columns'
  // beside it.
  if (L.axis_h > 0) {
    const float ay = L.title_h - 1;
    labels.text(ImVec2(L.lab_w - 5, ay), std::string(g.row_axis()) + " ↓", t.text_dim, FontRole::Small, 1, 1);
    const std::string ct = std::string(g.col_axis()) + " →";
    if (s.clip_min.x + text_size(FontRole::Small, ct).x <= s.size.x)
      labels.text(ImVec2(s.clip_min.x, ay), ct, t.text_dim, FontRole::Small, 0, 1);
  }
  const uint32_t kr = label_step(cell, L.lab_h);
  const float col_w = std::max(text_size(FontRole::Small, "0000").x,
                               text_size(FontRole::Small, g.col_label(g.cols > 1 ? g.cols - 1 : 0)).x);
  const uint32_t kc = g.col_label_step(label_step(cell, col_w + 6));
  const float half = small->FontSize * 0.5f;
  const bool banded = s.bands.count > 1 && s.bands.stacked;
  const uint32_t band1 = banded ? s.band1 : s.band0 + 1;
  for (uint32_t k = s.band0; k < band1; ++k) {
    // This band's columns and the top of its rows (the whole grid when not banded).
    const uint32_t c0 = banded ? k * s.bands.span : s.col0;
    const uint32_t c1 = banded ? std::min(g.cols, (k + 1) * s.bands.span) : s.col1;
    const float top = banded ? s.origin.y + float(k - s.band0) * (float(g.rows) * cell + s.band_gap) : s.origin.y;
    const float left = banded ? s.origin.x - float(c0) * cell : s.origin.x;
    const float label_y = banded ? top - 2 : L.title_h + L.lab_h - 2;
    float last_bottom = -1e9f;
    for (uint32_t r = (s.row0 + kr - 1) / kr * kr; r < s.row1; r += kr) {
      // Kept below the column numbers' band (row 0 of a small grid would reach into it),
      // and apart from the number above.
      const float y = std::max(top + (float(r) + 0.5f) * cell, std::max(top, s.clip_min.y) + half);
      if (y - half < last_bottom || y + half > s.size.y) continue;
      last_bottom = y + half;
      labels.text(ImVec2(L.lab_w - 5, y), g.row_label(r), t.text_dim, FontRole::Small, 1, 0.5f);
    }
    if (label_y - small->FontSize < s.clip_min.y - L.lab_h - 1 || label_y > s.size.y) continue;
    float last_right = -1e9f;
    for (uint32_t c = (c0 + kc - 1) / kc * kc; c < c1; c += kc) {
      const std::string text = g.col_label(c);
      const float w = text_size(FontRole::Small, text).x;
      // A folded array's "+k" starts its array row: over the row's first cell.
      const float x = left + (g.fold > 1 ? float(c) : float(c) + 0.5f) * cell;
      // A centred number that would overhang the grid's left edge starts at it (a band's
      // first column names the band).
      const float x0 = std::max(g.fold > 1 ? x : x - w * 0.5f, s.clip_min.x);
      if (x < s.clip_min.x || x0 < last_right + 4 || x0 + w > s.size.x) continue;
      last_right = x0 + w;
      labels.text(ImVec2(x0, label_y), text, t.text_dim, FontRole::Small, 0, 1);
    }
  }
}

// The word a race was found on (the program's problem, in this launch), rimmed in the
// stop colour (apart from a conflict's red rims) and named beside it on a patch of the
// canvas ("◀ race: word 32"), in the slot of its shared array.
void race_scene(Scene& sc, const SlotParts& x, const Session& m) {
  const program::Problem& p = m.problem();
  if (p.kind != "race" || p.launch != m.launch() + 1 || p.offset < 0 || x.g.elem_bytes == 0) return;
  const std::string& n = x.buf.name;
  auto ends = [](const std::string& a, const std::string& b) {
    return a.size() > b.size() + 2 && a.compare(a.size() - b.size() - 2, b.size() + 2, "::" + b) == 0;
  };
  if (x.buf.space != trace::Space::Shared || (n != p.array && !ends(n, p.array) && !ends(p.array, n))) return;
  const Theme& t = theme();
  const uint64_t e = uint64_t(p.offset) / x.g.elem_bytes;
  for_each_run(x.g, e, e + 1, [&](const CellBox& run) {
    x.rects(run, [&](ImVec2 a, ImVec2 b) {
      const float grow = std::max(3.0f, x.s.cell * 0.3f);
      sc.rect(ImVec2(a.x - grow, a.y - grow), ImVec2(b.x + grow, b.y + grow), t.stop, 3.0f, 3);
      const std::string words = "◀ race: word " + std::to_string(uint64_t(p.offset) / 4);
      const ImVec2 ts = text_size(FontRole::Small, words);
      const ImVec2 at(b.x + grow + 3, (a.y + b.y) * 0.5f);
      sc.fill(ImVec2(at.x - 2, at.y - ts.y * 0.5f - 1), ImVec2(at.x + ts.x + 2, at.y + ts.y * 0.5f + 1), with_alpha(t.canvas, 235), 3);
      sc.text(at, words, t.stop, FontRole::Small, 0, 0.5f);
    });
  });
}

}  // namespace

void memory_slot_scene(Scene& sc, Scene& labels, const Session& m, const RequestFigures& rv, const MemoryViewState& st,
                       const MemoryLayout& L, const MemoryLayout::Slot& s) {
  if (s.tile) return tile_scene(sc, labels, m, rv, st, L, s);
  const trace::Buffer& buf = m.trace().buffers[s.buffer];
  const GridShape& g = m.shapes()[s.buffer];
  const SlotParts x{s, buf, g, rv, st, L};
  sc.size = labels.size = s.size;
  grid_scene(sc, s, g, grid_draw(buf, g, st, s.buffer));
  bank_numbers_scene(sc, x);
  copies_scene(sc, m, rv, st, s);
  // The outlines first, then the lane cells on top.
  request_outlines_scene(sc, x);
  lane_patches_scene(sc, x);
  race_scene(sc, x, m);
  past_edge_scene(sc, s, g, buf, rv);
  slot_title_scene(labels, x);
  axis_labels_scene(labels, x);
}

float memory_legend_height() { return font_for(FontRole::Small)->FontSize + 2; }

void place_bank_key(MemoryViewState& st, const Session& m, const MemoryLayout& L, bool keyed) {
  const auto& bufs = m.trace().buffers;
  int64_t whole = -1;
  st.shared_shown = false;
  for (const auto& s : L.slots) {
    if (s.buffer >= bufs.size() || bufs[s.buffer].space != trace::Space::Shared) continue;
    st.shared_shown = true;
    if (!s.tile && whole < 0) whole = int64_t(s.buffer);
  }
  if (whole < 0 && st.shared_shown)
    for (const auto& s : L.slots)
      if (!s.tile) {
        whole = int64_t(s.buffer);
        break;
      }
  st.bank_key_buffer = keyed ? -1 : whole;
}

float memory_legend_scene(Scene& sc, const RequestFigures& rv, const MemoryViewState& st, float width, bool lane_numbers) {
  const Theme& t = theme();
  const float h = font_for(FontRole::Small)->FontSize, sw = std::round(h * 0.8f), sp = std::round(h * 0.45f);
  float x = 0;
  auto entry = [&](float swatch_w, const std::function<void(ImVec2, ImVec2)>& swatch, const char* words) {
    const float w = swatch_w + sp + text_size(FontRole::Small, words).x;
    if (x + w > width) return;
    const ImVec2 a(x, std::round((h - sw) * 0.5f) + 1), b(x + swatch_w, a.y + sw);
    swatch(a, b);
    sc.text(ImVec2(x + swatch_w + sp, 0), words, t.text_dim, FontRole::Small);
    x += w + sp * 3;
  };
  // Lanes: eight of the 32 colours, 0 to 31.
  entry(sw * 4, [&](ImVec2 a, ImVec2 b) {
    for (int k = 0; k < 8; ++k)
      sc.fill(ImVec2(a.x + float(k) * sw * 0.5f, a.y), ImVec2(a.x + float(k + 1) * sw * 0.5f, b.y), lane_color(k * 4 + 2));
  }, lane_numbers ? "lane 0 … 31 (number in the cell)" : "lane 0 … 31");
  // A shared tile's cells shaded by bank, even and odd: its stripes (or checkerboard).
  if ((rv.site && rv.shared) || st.shared_shown)
    entry(sw * 2, [&](ImVec2 a, ImVec2 b) {
      const float m = std::round((a.x + b.x) * 0.5f);
      sc.fill(a, ImVec2(m, b.y), t.cell_empty);
      sc.fill(ImVec2(m, a.y), b, t.cell_tinted);
      sc.rect(a, b, t.grid_line, 1.0f);
    }, "even / odd bank");
  if (rv.site && !rv.shared) {
    if (st.sectors)
      entry(sw * 2, [&](ImVec2 a, ImVec2 b) { sc.rect(a, b, t.sector, 2.0f); }, "32-byte sector fetched");
    if (st.lines)
      entry(sw * 2, [&](ImVec2 a, ImVec2 b) { sc.rect(a, b, t.line128, 2.0f, 2); }, "128-byte line");
  }
  if (rv.site && rv.shared && st.conflicts && rv.s.max_way > 1)
    entry(sw, [&](ImVec2 a, ImVec2 b) { sc.rect(a, b, t.bad, 2.0f, 3); }, "word in an n-way bank conflict");
  if (st.heat && st.heat_map)
    entry(sw, [&](ImVec2 a, ImVec2 b) { sc.fill(a, b, with_alpha(t.accent, 90), 2); }, "shade: traffic so far");
  sc.size = ImVec2(width, memory_legend_height());
  return sc.size.y;
}

std::vector<SceneChunk> memory_chunks(ImVec2 area, const Session& m, const RequestFigures& rv,
                                      const MemoryViewState& st, const MemoryLayout& layout) {
  std::vector<SceneChunk> out;
  for (const auto& s : layout.slots) {
    Scene canvas, labels;
    memory_slot_scene(canvas, labels, m, rv, st, layout, s);
    const ImVec2 sa(area.x + s.min.x, area.y + s.min.y);
    // The canvas clipped to the canvas, the labels to the slot.
    SceneChunk c;
    c.scene.append(canvas, sa);
    c.clip_min = ImVec2(sa.x + s.clip_min.x, sa.y + s.clip_min.y);
    c.clip_max = ImVec2(sa.x + s.clip_max.x, sa.y + s.clip_max.y);
    out.push_back(std::move(c));
    SceneChunk l;
    l.scene.append(labels, sa);
    l.clip_min = sa;
    l.clip_max = ImVec2(sa.x + s.size.x, sa.y + s.size.y);
    out.push_back(std::move(l));
  }
  return out;
}

void draw_memory(ImDrawList* dl, ImVec2 area, const Session& m, const RequestFigures& rv, const MemoryViewState& st,
                 const MemoryLayout& layout, GridPainter* painter) {
  for (const SceneChunk& c : memory_chunks(area, m, rv, st, layout)) {
    dl->PushClipRect(c.clip_min, c.clip_max, true);
    draw_scene(dl, c.scene, ImVec2(0, 0), painter);
    dl->PopClipRect();
  }
}

}  // namespace ws::ui
