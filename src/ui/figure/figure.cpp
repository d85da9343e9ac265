#include "ui/figure/figure.h"

#include <algorithm>
#include <cmath>

#include "session/heat.h"
#include "ui/figure/theme.h"

namespace ws::ui {

namespace {

struct ViewKey {
  const char* key;
  FigureView view;
};
constexpr ViewKey kViews[] = {{"memory", FigureView::Memory},
                              {"warp", FigureView::Warp},
                              {"banks", FigureView::Banks},
                              {"dram", FigureView::Dram},
                              {"source", FigureView::Source},
                              {"pipeline", FigureView::Pipeline},
                              {"cluster", FigureView::Cluster}};

}  // namespace

bool figure_view_from_key(const std::string& key, FigureView& out) {
  for (const auto& v : kViews)
    if (key == v.key) {
      out = v.view;
      return true;
    }
  return false;
}

const char* figure_view_keys() { return "memory, warp, banks, dram, source, pipeline, cluster"; }

namespace {
// A scene drawn at `origin` and clipped to [clip_min, clip_max], as a chunk in figure
// coordinates.
void add_chunk(Figure& f, const Scene& sc, ImVec2 origin, ImVec2 clip_min, ImVec2 clip_max) {
  SceneChunk c;
  c.scene.size = sc.size;
  c.scene.append(sc, origin);
  c.clip_min = clip_min;
  c.clip_max = clip_max;
  f.chunks.push_back(std::move(c));
}
}  // namespace

Figure render_figure(const std::shared_ptr<const Session>& model, uint64_t step, FigureView view, int width,
                     int height, const std::string& caption, HeatMap* heat, session::DramChoice dram_array,
                     const std::string* veil) {
  Figure f;
  f.width = width;
  f.height = height;
  const Theme& t = theme();
  f.background = t.panel;
  const bool any = model && model->size();
  HeatMap own;
  if (!heat) heat = &own;
  if (any) {
    if (heat->model() != model) heat->reset(model);
    heat->update(std::min<uint64_t>(step + 1, model->size()), 0);
  }
  const RequestFigures rv = any ? model->request(step) : RequestFigures{};
  MemoryViewState memory;  // the app's defaults: heat, sectors, lines, labels; every grid fits
  memory.heat_map = heat;
  if (veil) memory.conflicts = memory.sectors = memory.lines = false;

  // The view's scenes in the figure less a margin and the caption band: the same builders
  // the app's panels call, with nothing of the panels' controls.
  const float cap_font = font_for(FontRole::Ui)->FontSize;
  const float cap_h = caption.empty() ? 0.0f : std::round(cap_font + 12);
  const float pad = std::round(font_for(FontRole::Small)->FontSize * 0.75f);
  const ImVec2 o(pad, pad);
  const ImVec2 size(float(width) - 2 * pad, float(height) - cap_h - 2 * pad);
  const ImVec2 body_max(float(width), float(height) - cap_h);
  if (any && rv.rec && rv.site && size.x > 40 && size.y > 40) {
    Scene sc;
    switch (view) {
      case FigureView::Memory: {
        // The key right under the grids it explains (not at the foot of empty space), drawn
        // after them: it names lane numbers only where the grids drew some.
        const float key_h = memory_legend_height();
        const ImVec2 grids(size.x, std::max(40.0f, size.y - key_h - 8));
        float bottom = o.y;
        bool numbered = false;
        const MemoryLayout layout = memory_layout(*model, rv, memory, grids);
        place_bank_key(memory, *model, layout, true);
        for (const SceneChunk& c : memory_chunks(o, *model, rv, memory, layout)) {
          for (const auto& i : c.scene.items) {
            bottom = std::max(bottom, std::min(c.clip_max.y, i.kind == Scene::Kind::Text ? i.a.y + text_size(i.font, i.text).y
                                                                                          : std::max(i.a.y, i.b.y)));
            numbered |= i.kind == Scene::Kind::Text && is_lane_number_ink(i.color);
          }
          f.chunks.push_back(c);
        }
        Scene key;
        memory_legend_scene(key, rv, memory, size.x, numbered);
        add_chunk(f, key, ImVec2(o.x, std::min(bottom + 8, o.y + size.y - key_h)), ImVec2(0, 0), body_max);
        break;
      }
      case FigureView::Dram:
        dram_panel_scene(sc, *model, rv, dram_array, size);
        add_chunk(f, sc, o, ImVec2(0, 0), body_max);
        break;
      case FigureView::Pipeline:
        pipeline_scene(sc, *model, step, size);
        add_chunk(f, sc, o, ImVec2(0, 0), body_max);
        break;
      case FigureView::Cluster:
        cluster_scene(sc, *model, step, size);
        add_chunk(f, sc, o, ImVec2(0, 0), body_max);
        break;
      case FigureView::Warp:
      case FigureView::Banks:
        if (veil)
          warp_veil_scene(sc, rv, *veil, size);
        else
          warp_panel_scene(sc, rv, size);
        add_chunk(f, sc, o, ImVec2(0, 0), body_max);
        break;
      case FigureView::Source: {
        // The current line a third of the way down, as the app scrolls to it; long lines
        // wrapped to the figure's width (a figure cannot scroll), anything still too long
        // cut with "…".
        const int rows = std::max(1, int(size.y / source_row_height()));
        const SourceText* src = model->source_of(rv.site->file);
        if (!src) src = &model->main_source();
        const float ch = text_size(FontRole::Mono, "0").x;
        const float gutter = source_gutter_width(*src, size.x, true);
        const int wrap = std::max(12, int((size.x - gutter - ch * 5) / ch) - 1);
        const std::vector<SourceRow> lines = source_rows(*src, [](uint32_t) { return false; }, wrap);
        const int n = int(lines.size());
        int at = 0;
        while (at < n && lines[size_t(at)].line != rv.site->line) ++at;
        const int first = std::clamp(at - rows / 3, 0, std::max(0, n - rows));
        source_scene(sc, *model, *src, lines, rv, first, rows, size.x, gutter, veil ? -2 : -1);
        for (auto& i : sc.items)
          if (i.kind == Scene::Kind::Text && i.a.x + text_size(i.font, i.text).x > size.x)
            i.text = fit_text(i.font, i.text, size.x - i.a.x);
        add_chunk(f, sc, o, ImVec2(0, 0), body_max);
        break;
      }
    }
  }
  if (!caption.empty()) {
    Scene cs;
    cs.fill(ImVec2(0, 0), ImVec2(float(width), cap_h), t.panel_header);
    cs.line(ImVec2(0, 0), ImVec2(float(width), 0), t.accent, 2);
    cs.text(ImVec2(10, cap_h * 0.5f), fit_text(FontRole::Ui, caption, float(width) - 20), t.text, FontRole::Ui, 0, 0.5f);
    add_chunk(f, cs, ImVec2(0, float(height) - cap_h), ImVec2(0, float(height) - cap_h),
              ImVec2(float(width), float(height)));
  }
  return f;
}

}  // namespace ws::ui
