// src/ui/figure/copies_scene.cpp — the memory view's layers of copies into shared memory: each
// shared cell tinted by where its value came from (the 16-byte chunk of its global row,
// eight tints under the lanes' solid colours), so an XOR-swizzled tile shows its pattern where a plain one shows stripes;
// and an async copy's other half (the global read a landed write came from, or the shared
// write a read became) outlined in its lanes' colours. The figures come from
// Session::copies() (analysis::follow_copies).
#include <algorithm>
#include <cstdio>

#include "ui/figure/theme.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

ImU32 source_chunk_color(int32_t column, uint32_t elem_bytes, int alpha) {
  const int chunk = int(uint64_t(std::max(0, column)) * elem_bytes / 16 % 8);
  return lane_color(chunk * 31 / 7, alpha);
}

bool has_source_columns(const Session& m) { return !m.copies().shared.empty(); }

void copies_scene(Scene& sc, const Session& m, const RequestFigures& rv, const MemoryViewState& st,
                  const MemoryLayout::Slot& s) {
  if (s.tile) return;
  const GridShape& g = m.shapes()[s.buffer];
  const analysis::SourceColumns* src = st.source_columns ? m.copies().columns_of(uint32_t(s.buffer)) : nullptr;
  if (src) {
    // Cells copied so far (up to the current request), tinted by their source chunk.
    const float inset = s.cell >= 8 ? 1.0f : 0.0f;
    for (uint32_t r = s.row0; r < s.row1; ++r)
      for (uint32_t c = s.col0; c < s.col1; ++c) {
        // The cell's element as the copies counted the array's (the view's type may differ).
        const uint64_t e = g.element(r, c) * g.elem_bytes / std::max<uint32_t>(1, src->elem_bytes);
        if (e >= src->column.size() || src->column[e] < 0 || src->written_at[e] > rv.step) continue;
        // (a tile of 128-byte rows in a grid cut into bands: each band's own place)
        slot_rects(s, g, CellBox{float(c), float(r), float(c + 1), float(r + 1)}, [&](ImVec2 a, ImVec2 z) {
          sc.fill(ImVec2(a.x + inset, a.y + inset), ImVec2(z.x - inset, z.y - inset),
                  source_chunk_color(src->column[e], src->from_elem_bytes, 140));
        });
      }
  }
  // The other half of an async copy: its lanes' cells rimmed in their colours.
  if (rv.partner == analysis::kNoRecord || rv.partner >= m.trace().records.size()) return;
  const trace::Record& o = m.trace().records[rv.partner];
  const trace::Site& os = m.trace().sites[o.site];
  for (int l = 0; l < trace::kWarpSize; ++l) {
    if (!o.lane_active(l) || o.buffer_of(l) != s.buffer) continue;
    const uint64_t e0 = o.offset[size_t(l)] / g.elem_bytes, e1 = (o.offset[size_t(l)] + os.bytes) / g.elem_bytes;
    for_each_run(g, e0, std::max(e1, e0 + 1), [&](const CellBox& b) {
      slot_rects(s, g, b, [&](ImVec2 a, ImVec2 z) {
        sc.rect(ImVec2(a.x + 1, a.y + 1), ImVec2(z.x - 1, z.y - 1), lane_color(l), s.cell >= 8 ? 2.0f : 1.0f, 2);
      });
    });
  }
}

std::string partner_text(const RequestFigures& rv) {
  if (!rv.site || rv.partner == analysis::kNoRecord) return "";
  const bool read = rv.site->form == trace::Form::AsyncRead || rv.site->form == trace::Form::BulkRead;
  const uint64_t issued = read ? rv.step : rv.partner, landed = read ? rv.partner : rv.step;
  char b[128];
  std::snprintf(b, sizeof b, "copy issued at request %s, landed at request %s",
                fmt_count(session::request_number(issued)).c_str(), fmt_count(session::request_number(landed)).c_str());
  return b;
}


}  // namespace ws::ui
