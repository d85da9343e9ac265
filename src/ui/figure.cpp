#include "ui/figure.h"

#include <algorithm>
#include <cmath>

#include "session/heat.h"
#include "ui/theme.h"

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
                              {"source", FigureView::Source}};

}  // namespace

bool figure_view_from_key(const std::string& key, FigureView& out) {
  for (const auto& v : kViews)
    if (key == v.key) {
      out = v.view;
      return true;
    }
  return false;
}

const char* figure_view_keys() { return "memory, warp, banks, dram, source"; }

Figure render_figure(const std::shared_ptr<const Session>& model, uint64_t step, FigureView view, int width,
                     int height, const std::string& caption, HeatMap* heat) {
  Figure f;
  f.width = width;
  f.height = height;
  const Theme& t = theme();
  f.background = t.panel;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(float(width), float(height));
  io.DeltaTime = 1.0f / 60;
  io.MousePos = ImVec2(-1e6f, -1e6f);  // nothing hovered
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
  CpuGridPainter painter;

  const float cap_font = font_for(FontRole::Ui)->FontSize;
  const float cap_h = caption.empty() ? 0.0f : std::round(cap_font + 12);
  // Two frames: windows settle in the first, the second is kept.
  for (int frame = 0; frame < 2; ++frame) {
    f.chunks.clear();
    ImGui::NewFrame();
    set_scene_sink(&f.chunks);
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(float(width), float(height) - cap_h));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImGui::ColorConvertU32ToFloat4(t.panel));
    ImGui::Begin("##figure", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoScrollWithMouse);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const ImVec2 size = ImGui::GetContentRegionAvail();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (any && rv.rec && rv.site) {
      Scene sc;
      switch (view) {
        case FigureView::Memory:
          draw_memory(dl, o, *model, rv, memory, memory_layout(*model, rv, memory, size), &painter);
          break;
        case FigureView::Warp: warp_panel(rv); break;
        case FigureView::Dram: dram_panel(*model, rv, -1); break;
        case FigureView::Banks:
          banks_scene(sc, rv, size);
          draw_scene(dl, sc, o, &painter);
          break;
        case FigureView::Source: {
          // The current line a third of the way down, as the app scrolls to it.
          const int rows = std::max(1, int(size.y / source_row_height()));
          const int n = int(model->source_lines.size());
          const int first = std::clamp(int(rv.site->line) - 1 - rows / 3, 0, std::max(0, n - rows));
          source_scene(sc, *model, rv, first, rows, size.x, source_gutter_width(*model, size.x));
          draw_scene(dl, sc, o, &painter);
          break;
        }
      }
    }
    ImGui::End();
    ImGui::PopStyleColor();
    if (!caption.empty()) {
      Scene cs;
      cs.fill(ImVec2(0, 0), ImVec2(float(width), cap_h), t.panel_header);
      cs.line(ImVec2(0, 0), ImVec2(float(width), 0), t.accent, 2);
      cs.text(ImVec2(10, cap_h * 0.5f), caption, t.text, FontRole::Ui, 0, 0.5f);
      draw_scene(ImGui::GetForegroundDrawList(), cs, ImVec2(0, float(height) - cap_h), nullptr);
    }
    set_scene_sink(nullptr);
    ImGui::Render();
  }
  return f;
}

}  // namespace ws::ui
