// src/ui/panels.cpp — the table of the main window's panels (panels.h) and the captions
// their headers show.
#include "ui/panels.h"

#include <cstdio>

#include "ui/figure/figure.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

namespace {

std::string no_caption(Ui&, Pane&) { return ""; }

std::string memory_caption(Ui& ui, Pane& pane) {
  // Copied shared cells carry the tint of their source chunk under the lanes' colours.
  const bool tint = ui.state.memory.source_columns && pane.model && has_source_columns(*pane.model);
  return std::string(ui.state.memory.heat ? "colour = lane · shade = traffic so far" : "colour = lane") +
         (tint ? " · tint = source chunk of a copy" : "");
}

std::string warp_caption(Ui&, Pane& pane) {
  const RequestFigures& rv = pane.request();
  if (!pane.model || !rv.rec) return "";
  auto c = pane.model->trace().launch().block_coords(rv.rec->block);
  char b[160];
  std::snprintf(b, sizeof b, "block (%u,%u) · warp %u · epoch %u", c.x, c.y, unsigned(rv.rec->warp), rv.rec->epoch);
  return b;
}

std::string dram_caption(Ui& ui, Pane&) { return "model: " + ui.state.dram.preset; }

std::string source_caption(Ui&, Pane& pane) {
  const Session* m = pane.model.get();
  if (!m) return "";
  const session::SourceText* f = m->source_of(pane.source_file);
  return (f ? f->name : m->main_source().name) +
         " · gutter: sectors per request, n-way conflicts · click a line for its instructions";
}

std::string timeline_caption(Ui&, Pane& pane) {
  const Session* m = pane.model.get();
  if (!m) return "";
  char b[160];
  std::snprintf(b, sizeof b, "%s requests · %u %s per block", fmt_count(m->size()).c_str(), m->max_epoch() + 1,
                m->max_epoch() ? "barrier epochs" : "barrier epoch");
  return b;
}

std::string timing_caption(Ui& ui, Pane&) {
  // A program's own times only: where they come from, or that there are none of this code.
  if (const Session* m = ui.pane.model.get(); m && m->origin() == "program") {
    const auto t = ui.timing.program_times(*m);
    return !t ? "no GPU times of this code" : t->edited.empty() ? t->from : t->from + ", before your edit";
  }
  return ui.timing.caption();
}

std::string lesson_caption(Ui& ui, Pane&) { return ui.lessons.run.lesson ? "predict, then see" : "choose a lesson"; }

std::string fragments_caption(Ui&, Pane&) { return "cell = the lane holding it · r = its register · click a lane"; }

std::string pipeline_caption(Ui&, Pane&) { return "the shared ring TMA fills, over the block's requests"; }

std::string cluster_caption(Ui&, Pane&) { return "the request's cluster: CTAs by rank, arrows into another's shared memory"; }

// A panel that draws the trace, handed its context (ui/views/context.h), not the Ui.
template <void (*View)(ViewContext&)>
void drawn_by(Ui& ui, Pane& p) {
  ViewContext c = ui.view_context(p);
  View(c);
}

const PanelSpec kPanels[] = {
    {.panel = Panel::Catalog, .title = "Catalog & parameters", .key = "catalog", .number = 1,
     .caption = no_caption, .draw = [](Ui& ui, Pane&) { catalog_view(ui); }},
    {.panel = Panel::Memory, .title = "Memory view", .key = "memory", .number = 2, .scrolls = false,
     .figure = FigureView::Memory, .caption = memory_caption, .draw = drawn_by<memory_view>},
    {.panel = Panel::Warp, .title = "Warp inspector", .key = "warp", .number = 3, .figure = FigureView::Warp,
     .caption = warp_caption, .draw = drawn_by<warp_view>},
    {.panel = Panel::Dram, .title = "DRAM view", .key = "dram", .number = 4, .figure = FigureView::Dram,
     .caption = dram_caption, .draw = drawn_by<dram_view>},
    {.panel = Panel::Source, .title = "Source", .key = "source", .number = 5, .scrolls = false,
     .figure = FigureView::Source, .caption = source_caption, .draw = drawn_by<source_view>},
    {.panel = Panel::Timeline, .title = "Timeline", .key = "timeline", .scrolls = false,
     .caption = timeline_caption, .draw = timeline_view},
    {.panel = Panel::Timing, .title = "Timing", .key = "timing", .number = 6, .caption = timing_caption,
     .draw = [](Ui& ui, Pane&) { timing_view(ui); }},
    {.panel = Panel::Lesson, .title = "Lesson", .key = "lesson", .number = 7,
     .available = [](const Ui& ui) { return ui.lessons.run.panel; }, .caption = lesson_caption,
     .draw = [](Ui& ui, Pane&) { lesson_view(ui); }},
    {.panel = Panel::Fragments, .title = "Fragments", .key = "fragments", .number = 8,
     .available = [](const Ui& ui) { return ui.state.fragments; }, .caption = fragments_caption,
     .draw = drawn_by<fragment_view>},
    {.panel = Panel::Pipeline, .title = "Pipeline", .key = "pipeline", .number = 9,
     .available = [](const Ui& ui) { return ui.state.pipeline && !ui.state.cluster; }, .figure = FigureView::Pipeline,
     .caption = pipeline_caption, .draw = drawn_by<pipeline_view>},
    {.panel = Panel::Cluster, .title = "Cluster", .key = "cluster", .number = 9,
     .available = [](const Ui& ui) { return ui.state.cluster; }, .figure = FigureView::Cluster,
     .caption = cluster_caption, .draw = drawn_by<cluster_view>},
};
static_assert(std::size(kPanels) == size_t(Panel::Count), "one row per panel");

}  // namespace


std::span<const PanelSpec> panels() { return kPanels; }

const PanelSpec& panel_spec(Panel p) { return kPanels[int(p)]; }
const char* panel_name(Panel p) { return kPanels[int(p)].title; }
const char* panel_key(Panel p) { return kPanels[int(p)].key; }

bool panel_from_key(const std::string& key, Panel& out) {
  for (const PanelSpec& s : kPanels)
    if (key == s.key) {
      out = s.panel;
      return true;
    }
  return false;
}

const PanelSpec* panel_numbered(int number, const Ui* ui) {
  const PanelSpec* first = nullptr;
  for (const PanelSpec& s : kPanels)
    if (number > 0 && s.number == number) {
      if (!ui || !s.available || s.available(*ui)) return &s;
      if (!first) first = &s;
    }
  return first;
}

}  // namespace ws::ui
