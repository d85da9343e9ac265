// src/ui/figure/fragment_scene.cpp — Fragment view: for the mma.sync the current request's warp
// ran nearest it, which lane holds which element of A (16×K), B (K×8) and C/D (16×8), the
// picture of the PTX ISA's fragment figures; for a wgmma, the warpgroup's product over its
// four warps (64 rows of D, each warp's 16 in a band, their first 32 columns; the mma's
// own warp at full strength), the operands the tensor core reads from shared memory
// through descriptors drawn without lanes. A warp that ran no mma (a warp-specialized
// kernel's producer) shows the block's mma nearest in time. Each cell is coloured by its lane (the app's
// lane colours) and names the lane and its register; one lane is lit (the one under the
// pointer, else the one last clicked). The layouts come from analysis::mma_fragments, the
// mma from analysis::nearest_mma.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/copies.h"
#include "analysis/fragments.h"
#include "ui/figure/theme.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

namespace {

constexpr ImU32 kInk = kInkDark;

// Where each operand's grid goes: A, B and C side by side, one cell size for all three
// so that a row of A lines up with the same row of C.
struct GridPlace {
  const analysis::FragmentGrid* g = nullptr;
  ImVec2 at;  // top-left of cell (0, 0)
};

// The grid's title as long as `room` allows: "A: 16×16 · .f16 · 4 registers a lane", then
// without the registers, then the name alone.
std::string grid_title(const analysis::FragmentGrid& g, float room) {
  const char* name = g.name == 'C' ? "C/D" : g.name == 'A' ? "A" : "B";
  char shape[64], full[128];
  std::snprintf(shape, sizeof shape, "%s: %u×%u · .%s", name, g.rows, g.cols, g.type.c_str());
  if (g.shared) std::snprintf(full, sizeof full, "%s · shared memory, by descriptor", shape);
  else std::snprintf(full, sizeof full, "%s · %u %s a lane", shape, g.regs, g.regs == 1 ? "register" : "registers");
  for (const char* t : {full, shape})
    if (text_size(FontRole::Small, t).x <= room) return t;
  return fit_text(FontRole::Small, name, room);
}

// One grid: cells coloured by lane, the lit lane full strength, its lane and register inside.
// Of a warpgroup's grid (cells with a warp), the cells of warp `own` (0-3) are at full
// strength and a line parts each warp's 16 rows; `warp0`: the block's warp of band 0.
void draw_grid(Scene& sc, const GridPlace& p, float cell, int lit, uint32_t own, int warp0, ImVec2 mouse, FragmentHit& hit) {
  const Theme& t = theme();
  const analysis::FragmentGrid& g = *p.g;
  const float small = font_for(FontRole::Small)->FontSize;
  const bool two_lines = cell >= 2 * small && text_size(FontRole::Small, "31").x + 4 <= cell;
  const bool one_line = !two_lines && text_size(FontRole::Small, "31").x + 2 <= cell && small <= cell;
  for (uint32_t r = 0; r < g.rows; ++r)
    for (uint32_t c = 0; c < g.cols; ++c) {
      const analysis::FragmentCell& fc = g.at(r, c);
      const ImVec2 a(p.at.x + float(c) * cell, p.at.y + float(r) * cell), b(a.x + cell - 1, a.y + cell - 1);
      if (fc.lane == analysis::kSharedCell) {  // no lane holds it: the tensor core reads it from shared memory
        sc.fill(a, b, t.text_dim & 0x60ffffffu, cell >= 8 ? 2 : 0);
        continue;
      }
      const bool mine = fc.warp == own;
      const bool on = int(fc.lane) == lit && mine;
      const ImU32 fill = lane_color(fc.lane, !mine ? 70 : lit < 0 || on ? 255 : 110), ink = ink_on(fill);
      sc.fill(a, b, fill, cell >= 8 ? 2 : 0);
      if (on) sc.rect(a, b, t.text, 2, 2);
      const std::string lane = std::to_string(fc.lane);
      if (two_lines) {
        sc.text(ImVec2((a.x + b.x) * 0.5f, a.y + cell * 0.5f), lane, ink, FontRole::Small, 0.5f, 1);
        sc.text(ImVec2((a.x + b.x) * 0.5f, a.y + cell * 0.5f), "r" + std::to_string(fc.reg), ink, FontRole::Small, 0.5f, 0);
      } else if (one_line) {
        sc.text(ImVec2((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f), lane, ink, FontRole::Small, 0.5f, 0.5f);
      }
      if (mouse.x >= a.x && mouse.x < a.x + cell && mouse.y >= a.y && mouse.y < a.y + cell)
        hit = {int(fc.lane), g.name, r, c, fc, g.regs, warp0 < 0 ? -1 : warp0 + int(fc.warp)};
    }
  if (warp0 >= 0 && g.rows == 64)  // the warps' bands, D's named on its right
    for (uint32_t w = 0; w < 4; ++w) {
      const float y = p.at.y + float(16 * w) * cell - 1;
      if (w) sc.line(ImVec2(p.at.x - 1, y), ImVec2(p.at.x + float(g.cols) * cell, y), t.text, 2);
      if (g.name == 'C')
        sc.text(ImVec2(p.at.x + float(g.cols) * cell + 6, y + 8 * cell), "warp " + std::to_string(warp0 + int(w)),
                w == own ? t.text : t.text_dim, FontRole::Small, 0, 0.5f);
    }
  sc.rect(ImVec2(p.at.x - 1, p.at.y - 1), ImVec2(p.at.x + float(g.cols) * cell, p.at.y + float(g.rows) * cell),
          t.text_dim, 1);
}

}  // namespace

bool has_mma(const Session& m) {
  for (const trace::Site& s : m.trace().event_sites)
    if (s.form == trace::Form::Mma) return true;
  return false;
}

FragmentHit fragment_scene(Scene& sc, const Session& m, uint64_t step, int lane, ImVec2 size, ImVec2 mouse) {
  const Theme& t = theme();
  sc.size = size;
  FragmentHit hit;
  const trace::Trace& tr = m.trace();
  const float gap = std::round(font_for(FontRole::Small)->FontSize * 0.5f);
  float y = 0;
  auto line = [&](const std::string& s, ImU32 c, FontRole f) {
    sc.text(ImVec2(0, y), fit_text(f, s, size.x), c, f);
    y += font_for(f)->FontSize + gap;
  };
  bool later = false, other = false;
  const int64_t k = analysis::nearest_mma(tr, step, &later, &other);
  if (k < 0) {
    line(has_mma(m) ? "this block ran no mma" : "no mma in this launch", t.text_dim, FontRole::Ui);
    line("The fragment view shows the mma the current warp (else its block) ran nearest the current request.", t.text_dim,
         FontRole::Small);
    return hit;
  }
  const trace::Event& e = tr.events[size_t(k)];
  const trace::Site& site = tr.event_sites[e.site];
  line(site.instruction.empty() ? "mma" : site.instruction, t.text, FontRole::Mono);
  const auto c = tr.launch().block_coords(e.block);
  char where[200];
  const uint32_t own_warp = step < tr.records.size() ? tr.records[step].warp : e.warp;
  if (other)
    std::snprintf(where, sizeof where, "block (%u,%u) · warp %u · line %u · the block's mma nearest this request (warp %u ran none)",
                  c.x, c.y, e.warp, site.line, own_warp);
  else
    std::snprintf(where, sizeof where, "block (%u,%u) · warp %u · line %u · %s", c.x, c.y, e.warp, site.line,
                  later ? "the warp's next mma after this request" : "the warp's last mma before this request");
  line(where, t.text_dim, FontRole::Small);
  analysis::Fragments f;
  std::string error;
  if (!analysis::mma_fragments(site.instruction, f, error)) {
    for (const std::string& l : wrap_text(FontRole::Ui, error, size.x, 3)) line(l, t.warn, FontRole::Ui);
    return hit;
  }
  const uint32_t q = f.full_n ? e.warp % 4 : 0;         // the mma's warp within its warpgroup
  const int warp0 = f.full_n ? int(e.warp - q) : -1;  // the warpgroup's first warp
  if (f.full_n) {  // wgmma: the warpgroup's product over its four warps
    char share[240];
    std::snprintf(share, sizeof share,
                  "warps %d–%d hold D's rows in bands of 16 (warp %d: 0–15 … warp %d: 48–63), each as mma.sync's m16 layout; "
                  "warp %u drawn strong; columns 0–%u of %u drawn (the layout repeats every 8)",
                  warp0, warp0 + 3, warp0, warp0 + 3, e.warp, f.n - 1, f.full_n);
    for (const std::string& l : wrap_text(FontRole::Small, share, size.x, 2)) line(l, t.text_dim, FontRole::Small);
  }
  // Cells: as large as the width and height allow, the three grids two cells apart.
  const float title_h = font_for(FontRole::Small)->FontSize + 4;
  const uint32_t label = f.full_n ? uint32_t(std::ceil((text_size(FontRole::Small, "warp 15").x + 8) / 8)) : 0;  // cells of 8 px or more
  auto cell_for = [&](const analysis::Fragments& g) {
    const uint32_t cols = g.a.cols + g.b.cols + g.c.cols + 4 + label, rows = std::max({g.a.rows, g.b.rows, g.c.rows});
    return std::floor(std::min(size.x / float(cols), (size.y - y - title_h - 2) / float(rows)));
  };
  float cell = cell_for(f);
  if (f.warps == 4 && cell < 8) {
    // Too little height for four warps' bands at legible cells (a projector's large type):
    // the mma's own warp's 16 rows alone, as mma.sync's figure draws them.
    auto own_band = [&](analysis::FragmentGrid& g) {
      if (g.rows != 64) return;
      g.cells = std::vector<analysis::FragmentCell>(g.cells.begin() + long(16 * q * g.cols), g.cells.begin() + long((16 * q + 16) * g.cols));
      g.rows = 16;
    };
    own_band(f.a);
    own_band(f.c);
    char alone[160];
    std::snprintf(alone, sizeof alone, "warp %u's rows %u–%u alone: enlarge the panel for all four warps", e.warp, 16 * q, 16 * q + 15);
    line(alone, t.text_dim, FontRole::Small);
    cell = cell_for(f);
  }
  if (cell < 4) {
    line("too small to draw the fragments: enlarge the panel", t.text_dim, FontRole::Small);
    return hit;
  }
  const int lit = lane;
  GridPlace places[3] = {{&f.a, ImVec2(0, y + title_h)}, {&f.b, ImVec2(float(f.a.cols + 2) * cell, y + title_h)},
                         {&f.c, ImVec2(float(f.a.cols + f.b.cols + 4) * cell, y + title_h)}};
  for (const GridPlace& p : places) {
    const float room = float(p.g->cols + (p.g == &f.c ? 0 : 2)) * cell - 4;
    sc.text(ImVec2(p.at.x, y), grid_title(*p.g, room), t.text_dim, FontRole::Small);
    draw_grid(sc, p, cell, lit, q, warp0, mouse, hit);
  }
  return hit;
}


}  // namespace ws::ui
