// src/ui/timeline_view.cpp — Timeline: play / pause, step one request, one warp or one epoch back and forth, scrub,
// speed. Under the buttons, a strip of the whole trace: one bar per pixel column, as tall
// and as red as the costliest request there (sectors or wavefronts over the ideal), with
// the barrier epochs of each block as bands, the deck's slides of this launch as
// numbered flags, and the async copies' commit and wait points (and, lightly, the mmas).
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cfloat>
#include <cstring>
#include <set>
#include <vector>

#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

namespace {

// Height of a cost bar as a fraction of the strip, by log2 of cost / ideal: 1× is a short
// stub, 32× (a 32-way bank conflict) fills it.
float bar_fraction(float ratio) { return std::clamp((std::log2(std::max(1.0f, ratio)) + 1) / 6.0f, 0.08f, 1.0f); }

// Cost over ideal of one request (1 = ideal).
float ratio_of(const Session& m, const trace::Record& r) {
  const auto& tr = m.trace();
  if (r.site >= tr.sites.size()) return 1;
  const auto& site = tr.sites[r.site];
  if (!analysis::cost_modelled(site.space)) return 1;  // no cost: drawn as ideal
  if (site.space == trace::Space::Shared) return float(analysis::cost_ratio(analysis::shared_cost(site, r)));
  return float(analysis::cost_ratio(analysis::global_cost(site, r)));
}

void build_strip(Pane& p, int width) {
  p.strip.assign(size_t(width), 0);
  p.strip_width = width;
  p.strip_model = p.model;
  p.strip_done = 0;
}

// Computes the strip's next columns, left to right, for at most `budget_ms` of this frame:
// each column costs up to 24 requests' analysis, so a wide strip over a large trace takes a
// few frames to fill in rather than one frame over its time.
void advance_strip(Pane& p, double budget_ms) {
  const Session& m = *p.model;
  const uint64_t n = m.size();
  const int width = p.strip_width;
  if (!n) {
    p.strip_done = width;
    return;
  }
  const auto& recs = m.trace().records;
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                           std::chrono::duration<double, std::milli>(budget_ms));
  for (int x = p.strip_done; x < width; ++x) {
    uint64_t a = uint64_t(x) * n / uint64_t(width), b = std::max(a + 1, uint64_t(x + 1) * n / uint64_t(width));
    b = std::min(b, n);
    // Every record when few, else 24 evenly spread: the strip is a picture, not a statistic.
    uint64_t stride = std::max<uint64_t>(1, (b - a) / 24);
    float worst = 0;
    for (uint64_t i = a; i < b; i += stride) worst = std::max(worst, ratio_of(m, recs[i]));
    p.strip[size_t(x)] = worst;
    p.strip_done = x + 1;
    if ((x & 15) == 15 && clock::now() >= deadline) break;
  }
}

// A button with a drawn icon: 'R' right triangle, 'L' left triangle, '|' bar, 'P' pause.
bool icon_button(const char* id, const char* icon, const char* tip, float w, bool on = false) {
  const Theme& t = theme();
  ImVec2 sz(w, ImGui::GetFrameHeight());
  if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::ColorConvertU32ToFloat4(IM_COL32(48, 82, 130, 255)));
  bool pressed = ImGui::Button(id, sz);
  if (on) ImGui::PopStyleColor();
  if (ImGui::IsItemHovered() && tip) ImGui::SetTooltip("%s", tip);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  const float h = (b.y - a.y) * 0.42f, u = h * 0.8f;
  size_t n = std::strlen(icon);
  float total = 0;
  for (size_t i = 0; i < n; ++i) total += icon[i] == '|' ? u * 0.35f : icon[i] == 'P' ? u : u * 0.9f;
  float x = (a.x + b.x - total) * 0.5f, cy = (a.y + b.y) * 0.5f;
  for (size_t i = 0; i < n; ++i) {
    switch (icon[i]) {
      case 'R':
        dl->AddTriangleFilled(ImVec2(x, cy - h * 0.5f), ImVec2(x + u * 0.8f, cy), ImVec2(x, cy + h * 0.5f), t.text);
        x += u * 0.9f;
        break;
      case 'L':
        dl->AddTriangleFilled(ImVec2(x + u * 0.8f, cy - h * 0.5f), ImVec2(x, cy), ImVec2(x + u * 0.8f, cy + h * 0.5f), t.text);
        x += u * 0.9f;
        break;
      case '|':
        dl->AddRectFilled(ImVec2(x, cy - h * 0.5f), ImVec2(x + u * 0.2f, cy + h * 0.5f), t.text);
        x += u * 0.35f;
        break;
      case 'P':
        dl->AddRectFilled(ImVec2(x + u * 0.1f, cy - h * 0.5f), ImVec2(x + u * 0.38f, cy + h * 0.5f), t.text);
        dl->AddRectFilled(ImVec2(x + u * 0.58f, cy - h * 0.5f), ImVec2(x + u * 0.86f, cy + h * 0.5f), t.text);
        x += u;
        break;
      default: break;
    }
  }
  return pressed;
}

// The strip's place on screen and the record under each x.
struct StripGeom {
  ImVec2 a;          // top-left
  int width = 1;     // pixels
  float h = 0;       // height
  uint64_t n = 1;    // records
  float x_of(uint64_t i) const { return a.x + float(double(i) / double(n) * width); }
  // The record under screen x (clamped to the strip).
  uint64_t at(float x) const {
    const float f = std::clamp((x - a.x) / float(width), 0.0f, 1.0f);
    return std::min<uint64_t>(n - 1, uint64_t(double(f) * double(n)));
  }
};

// A slide of the launch on the pane, flagged at its step.
struct Flag {
  int slide;
  float x;
};

// Step and play buttons, and (outside presentation) speed, unit and loop.
void transport_row(Ui& ui, Pane& p) {
  UiState& s = ui.state;
  const Session* m = p.model.get();
  const float bw = ImGui::GetFrameHeight() * 1.7f;
  auto go = [&](StepUnit unit, int dir) {
    if (!m) return;
    s.playing = false;
    ui.set_step(m->next(p.step, unit, dir));
  };
  ImGui::BeginGroup();
  if (icon_button("##pe", "|LL", "Previous epoch (Ctrl+←, Page Up)", bw)) go(StepUnit::Epoch, -1);
  ImGui::SameLine(0, 4);
  if (icon_button("##pw", "LL", "Previous warp (Shift+←, ↑)", bw)) go(StepUnit::Warp, -1);
  ImGui::SameLine(0, 4);
  if (icon_button("##pr", "L", "Previous request (←)", bw)) go(StepUnit::Request, -1);
  ImGui::SameLine(0, 8);
  if (icon_button("##play", s.playing ? "P" : "R", s.playing ? "Pause (Space)" : "Play (Space)", bw * 1.4f, s.playing))
    s.playing = !s.playing;
  ImGui::SameLine(0, 8);
  if (icon_button("##nr", "R", "Next request (→)", bw)) go(StepUnit::Request, +1);
  ImGui::SameLine(0, 4);
  if (icon_button("##nw", "RR", "Next warp (Shift+→, ↓)", bw)) go(StepUnit::Warp, +1);
  ImGui::SameLine(0, 4);
  if (icon_button("##ne", "RR|", "Next epoch (Ctrl+→, Page Down)", bw)) go(StepUnit::Epoch, +1);
  ImGui::EndGroup();

  // Speed, unit and loop are in the Playback menu too; a class's layouts keep the timeline
  // to one row of buttons and the strip.
  if (!s.present) {
    ImGui::SameLine(0, 20);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("speed");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
    ImGui::SliderFloat("##speed", &s.timeline.speed, 0.25f, 10000.0f, "%.4g / s", ImGuiSliderFlags_Logarithmic);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    const char* units[] = {"requests", "warps", "epochs"};
    int unit = int(s.timeline.play_unit);
    if (ImGui::Combo("##unit", &unit, units, 3)) s.timeline.play_unit = StepUnit(unit);
    ImGui::SameLine();
    ImGui::Checkbox("loop", &s.timeline.loop);
  }
}

// Where we are, in words: beside the buttons, or on a line of its own below them.
void where_line(Ui& ui, Pane& p) {
  const Session* m = p.model.get();
  if (!m || !m->size()) return;
  const RequestFigures& rv = p.request();
  auto c = m->trace().launch().block_coords(rv.rec->block);
  // Beside the buttons, or on a line of its own below them. A class's compact timeline
  // has no room for that line: there it keeps as much as fits beside the buttons (the
  // request, then its source line; the inspector's header names the block and warp).
  const std::string req = "request " + fmt_count(session::request_number(p.step)) + " of " + fmt_count(m->size());
  char place[120];
  std::snprintf(place, sizeof place, "   ·   block (%u,%u)  warp %u  epoch %u", c.x, c.y, unsigned(rv.rec->warp),
                rv.rec->epoch);
  const std::string line = "   ·   line " + std::to_string(rv.site ? rv.site->line : 0);
  ImGui::SameLine(0, 20);
  ImGui::PushFont(font_for(FontRole::Bold));
  const float right = ImGui::GetWindowContentRegionMax().x, x = ImGui::GetCursorPosX();
  std::string where = req + place + line;
  if (ui.state.present)
    for (const std::string& shorter : {req + line, req})
      if (x + ImGui::CalcTextSize(where.c_str()).x >= right) where = shorter;
  const float w = ImGui::CalcTextSize(where.c_str()).x;
  if (x + w < right)
    ImGui::SetCursorPosX(right - w);
  else
    ImGui::NewLine();  // not even the request beside the buttons: its own line, above the strip
  ImGui::TextUnformatted(where.c_str());
  ImGui::PopFont();
}

// The strip's background as build_strip lays it out: odd epochs shaded, block boundaries
// with their ids where there is room. Laid out once per trace and width (a large trace has
// tens of thousands of epochs: walking them every frame cost more than the frame).
void layout_strip_background(Pane& p, int width) {
  const Session& m = *p.model;
  const uint64_t n = m.size();
  p.strip_bands.clear();
  p.strip_blocks.clear();
  if (!n) return;
  auto x_of = [&](uint64_t i) { return float(double(i) / double(n) * width); };
  for (size_t k = 0; k < m.epoch_starts().size(); ++k) {
    uint64_t e0 = m.epoch_starts()[k], e1 = k + 1 < m.epoch_starts().size() ? m.epoch_starts()[k + 1] : n;
    float xa = x_of(e0), xb = x_of(e1);
    if (xb - xa < 3) continue;
    if (m.trace().records[e0].epoch % 2) p.strip_bands.emplace_back(xa, xb);
  }
  float last_end = -1e9f;  // where the last label ends
  uint32_t prev_block = ~0u;
  // A cluster's CTAs run together, their records interleaved: the strip names clusters,
  // each once where it starts (it named 'block 0,0' at every turn of the cluster's CTAs).
  const trace::Launch& launch = m.trace().launch();
  const trace::Dim3 cl = launch.cluster;
  const bool clustered = cl.x * cl.y * cl.z > 1;
  std::set<uint64_t> named;
  for (uint32_t e0 : m.epoch_starts()) {
    uint32_t b = m.trace().records[e0].block;
    if (b == prev_block) continue;
    prev_block = b;
    auto c = launch.block_coords(b);
    if (clustered) c = {c.x / std::max(1u, cl.x), c.y / std::max(1u, cl.y), c.z / std::max(1u, cl.z)};
    const uint64_t key = (uint64_t(c.z) << 42) | (uint64_t(c.y) << 21) | c.x;
    if (!named.insert(key).second) continue;
    const float x = x_of(e0);
    if (x + 3 < last_end + 8) continue;  // no room: the text is not even made
    char lbl[40];
    std::snprintf(lbl, sizeof lbl, clustered ? "cluster %u,%u" : "block %u,%u", c.x, c.y);
    // Labels apart by their measured widths (two-digit blocks are wider than "block 1,0").
    last_end = x + 3 + text_size(FontRole::Small, lbl).x;
    p.strip_blocks.emplace_back(x, lbl);
  }
}

void strip_background(ImDrawList* dl, const Pane& p, const StripGeom& g) {
  const Theme& t = theme();
  const ImVec2 a = g.a;
  const float strip_h = g.h;
  for (const auto& [xa, xb] : p.strip_bands)
    dl->AddRectFilled(ImVec2(a.x + xa, a.y), ImVec2(a.x + xb, a.y + strip_h), IM_COL32(255, 255, 255, 12));
  for (const auto& [x, lbl] : p.strip_blocks) {
    dl->AddLine(ImVec2(a.x + x, a.y), ImVec2(a.x + x, a.y + strip_h), IM_COL32(255, 255, 255, 40), 1);
  }
}

// The slides of the launch on pane `p`, flagged at their steps (the A pane's are noted for
// the Slides menu).
std::vector<Flag> slide_flags(Ui& ui, Pane& p, const StripGeom& g) {
  std::vector<Flag> flags;
  for (size_t i = 0; i < ui.slides.deck.slides.size(); ++i) {
    const session::Slide& sl = ui.slides.deck.slides[i];
    if (!ui.slides.on(sl, p) || sl.step >= g.n) continue;
    flags.push_back({int(i), g.x_of(sl.step) + 0.5f * std::max(1.0f, float(g.width) / float(g.n))});
  }
  if (&p == &ui.pane)
    for (const Flag& f : flags) ui.slides.state.marked.push_back(f.slide);
  return flags;
}

void draw_flags(ImDrawList* dl, const std::vector<Flag>& flags, const StripGeom& g) {
  const Theme& t = theme();
  const ImVec2 a = g.a;
  const float strip_h = g.h;
  ImFont* small = font_for(FontRole::Small);
  for (const Flag& f : flags) {
    char num[16];
    std::snprintf(num, sizeof num, "%d", f.slide + 1);
    const ImVec2 ts = small->CalcTextSizeA(small->FontSize, FLT_MAX, 0, num);
    const float tag_h = ts.y + 2, tag_w = ts.x + 6;
    // The number hangs at the foot of the strip, clear of the block labels along its top.
    const float y1 = a.y + strip_h, y0 = y1 - tag_h;
    dl->AddLine(ImVec2(f.x, a.y), ImVec2(f.x, y1), with_alpha(t.warn, 220), 2);
    dl->AddRectFilled(ImVec2(f.x, y0), ImVec2(f.x + tag_w, y1), t.warn, 3, ImDrawFlags_RoundCornersRight);
    dl->AddText(small, small->FontSize, ImVec2(f.x + 3, y0 + 1), IM_COL32(20, 20, 20, 255), num);
  }
}

// Commits and waits as ticks down from the strip's top (a wait the full height: the copies
// land there), mmas as short light ticks.
void draw_marks(ImDrawList* dl, const std::vector<TimelineMark>& marks, const StripGeom& g) {
  const Theme& t = theme();
  for (const TimelineMark& mk : marks) {
    const float x = g.a.x + mk.x;
    if (mk.kind == trace::Form::Wait)
      dl->AddLine(ImVec2(x, g.a.y), ImVec2(x, g.a.y + g.h), with_alpha(t.accent, 220), 2);
    else if (mk.kind == trace::Form::Commit)
      dl->AddLine(ImVec2(x, g.a.y), ImVec2(x, g.a.y + g.h * 0.45f), with_alpha(t.accent, 160), 1.5f);
    else
      dl->AddLine(ImVec2(x, g.a.y), ImVec2(x, g.a.y + g.h * 0.2f), with_alpha(t.text_dim, 120), 1);
  }
}

// The blocks' names over everything drawn on the strip, each on a patch of the strip's
// ground, so that a kernel's many waits (a TMA ring's) never run through them.
void strip_labels(ImDrawList* dl, const Pane& p, const StripGeom& g) {
  const Theme& t = theme();
  ImFont* f = font_for(FontRole::Small);
  for (const auto& [x, lbl] : p.strip_blocks) {
    const ImVec2 at(g.a.x + x + 3, g.a.y + 1);
    const ImVec2 size = f->CalcTextSizeA(f->FontSize, FLT_MAX, 0, lbl.c_str());
    dl->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + size.x + 2, at.y + size.y), with_alpha(t.canvas, 230), 2);
    dl->AddText(f, f->FontSize, at, t.text_dim, lbl.c_str());
  }
}

// The marks within a few pixels of the pointer, as lines of a tooltip ("" : none).
std::string marks_tip(const Session& m, const std::vector<TimelineMark>& marks, const StripGeom& g, float mx) {
  std::string tip;
  int shown = 0;
  for (const TimelineMark& mk : marks) {
    if (std::abs(g.a.x + mk.x - mx) > 3) continue;
    if (++shown > 6) break;  // a pixel column of many warps' waits: the first few tell it
    const trace::Event& e = m.trace().events[mk.event];
    const auto c = m.trace().launch().block_coords(e.block);
    char where[120];
    std::snprintf(where, sizeof where, " · block (%u,%u) warp %u · at request %s", c.x, c.y, e.warp,
                  fmt_count(session::request_number(mk.step)).c_str());
    tip += (tip.empty() ? "" : "\n") + analysis::event_text(m.trace(), e) + where;
  }
  return tip;
}

// What the pointer is over: a slide's flag (its caption), else the request there.
void strip_tooltip(Ui& ui, const Session& m, const std::vector<Flag>& flags, const StripGeom& g, bool veiled,
                   const std::vector<TimelineMark>& marks) {
  ImGuiIO& io = ImGui::GetIO();
  if (const std::string tip = marks_tip(m, marks, g, io.MousePos.x); !tip.empty()) {
    ImGui::SetTooltip("%s", tip.c_str());
    return;
  }
  // Over a slide's flag: its caption.
  for (const Flag& fl : flags)
    if (std::abs(io.MousePos.x - fl.x) <= 5) {
      const session::Slide& sl = ui.slides.deck.slides[size_t(fl.slide)];
      ImGui::SetTooltip("slide %d · request %s · %s view\n%s", fl.slide + 1,
                        fmt_count(session::request_number(sl.step)).c_str(),
                        sl.view.c_str(), sl.caption.empty() ? "(no caption)" : sl.caption.c_str());
      return;
    }
  uint64_t i = g.at(io.MousePos.x);
  const auto& r = m.trace().records[i];
  const auto& site = m.trace().sites[r.site];
  float ratio = ratio_of(m, r);
  if (veiled)
    ImGui::SetTooltip("request %s · line %u · %s %s", fmt_count(session::request_number(i)).c_str(), site.line,
                      trace::to_string(site.space), trace::to_string(site.op));
  else
    ImGui::SetTooltip("request %s · line %u · %s %s · %.1f× the ideal", fmt_count(session::request_number(i)).c_str(),
                      site.line, trace::to_string(site.space), trace::to_string(site.op), ratio);
}

}  // namespace

void timeline_view(Ui& ui, Pane& p) {
  const Theme& t = theme();
  UiState& s = ui.state;
  const Session* m = p.model.get();
  if (&p == &ui.pane) ui.slides.state.marked.clear();
  transport_row(ui, p);
  where_line(ui, p);

  // The strip.
  ImGui::Spacing();
  ImVec2 a = ImGui::GetCursorScreenPos();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  const float strip_h = std::max(20.0f, avail.y - 4);
  const int width = std::max(1, int(avail.x));
  ImGui::InvisibleButton("##strip", ImVec2(float(width), strip_h));
  if (!m || m->size() == 0) return;
  const uint64_t n = m->size();
  const StripGeom g{a, width, strip_h, n};
  const float label_font = font_for(FontRole::Small)->FontSize;
  if (p.strip_model != p.model || p.strip_width != width || p.strip_font != label_font) {
    build_strip(p, width);
    layout_strip_background(p, width);
    p.strip_font = label_font;
  }
  if (p.strip_done < p.strip_width) advance_strip(p, 4.0);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float x1 = a.x + float(width);
  dl->AddRectFilled(a, ImVec2(x1, a.y + strip_h), t.canvas, 4);
  auto x_of = [&](uint64_t i) { return g.x_of(i); };
  strip_background(dl, p, g);
  // Cost bars: height by log2 of cost / ideal (1 = a short stub, 32 = full height).
  const float base = a.y + strip_h - 2, top = a.y + font_for(FontRole::Small)->FontSize + 3;
  // While a lesson waits for a prediction the bars carry no cost: one grey height (for every
  // request: the step's own line is among them, wherever the student steps to).
  const bool veiled = ui.lessons.question_waits(p);
  for (int x = 0; x < width; ++x) {
    float r = p.strip[size_t(x)];
    if (r <= 0) continue;
    float y = base - (base - top) * (veiled ? 0.3f : bar_fraction(r));
    dl->AddLine(ImVec2(a.x + float(x) + 0.5f, base), ImVec2(a.x + float(x) + 0.5f, y),
                veiled ? with_alpha(t.text_dim, 110) : with_alpha(cost_color(r), 200), 1);
  }
  // Heat progress: where the heat layer has caught up to.
  if (s.memory.heat && p.heat.covered() < std::min<uint64_t>(p.step + 1, n)) {
    float xc = x_of(p.heat.covered());
    dl->AddRectFilled(ImVec2(xc, base + 0.5f), ImVec2(x_of(p.step + 1), base + 2), t.warn);
  }
  const std::vector<TimelineMark> marks = timeline_marks(*m, float(width));
  draw_marks(dl, marks, g);
  strip_labels(dl, p, g);
  // Slides of the launch on this pane: a numbered flag at each one's step.
  const std::vector<Flag> flags = slide_flags(ui, p, g);
  draw_flags(dl, flags, g);
  // The playhead's line, then where the program stopped or raced — a line the strip's
  // height, tagged "!" (to its left at the strip's right end), drawn over the playhead's
  // line since the two meet when the fault is the request shown — then the playhead's
  // triangle on top.
  auto mid_of = [&](uint64_t i) { return x_of(i) + 0.5f * std::max(1.0f, float(width) / float(n)); };  // request i's middle
  const float px = mid_of(p.step);
  dl->AddLine(ImVec2(px, a.y), ImVec2(px, a.y + strip_h), t.playhead, 2);
  const int64_t stop_at = ui.problem_step_on(p);
  float stop_x = -1e9f;
  if (stop_at >= 0 && uint64_t(stop_at) < n) {
    stop_x = std::min(mid_of(uint64_t(stop_at)), x1 - 1);
    ImFont* small = font_for(FontRole::Small);
    const ImVec2 ts = small->CalcTextSizeA(small->FontSize, FLT_MAX, 0, "!");
    const float tag = ts.x + 8;
    const bool left = stop_x + tag > x1;
    const float t0 = left ? stop_x - tag : stop_x;
    dl->AddLine(ImVec2(stop_x, a.y), ImVec2(stop_x, a.y + strip_h), t.stop, 2);
    dl->AddRectFilled(ImVec2(t0, a.y + 9), ImVec2(t0 + tag, a.y + 9 + ts.y + 2), t.stop, 3,
                      left ? ImDrawFlags_RoundCornersLeft : ImDrawFlags_RoundCornersRight);
    dl->AddText(small, small->FontSize, ImVec2(t0 + 4, a.y + 10), IM_COL32(255, 255, 255, 255), "!");
  }
  dl->AddTriangleFilled(ImVec2(px - 6, a.y), ImVec2(px + 6, a.y), ImVec2(px, a.y + 8), t.playhead);

  // Scrub by clicking or dragging; hover shows what is there.
  ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsItemActive()) {
    s.playing = false;
    ui.set_step(g.at(io.MousePos.x));
  } else if (ImGui::IsItemHovered()) {
    if (std::abs(io.MousePos.x - stop_x) <= 5)
      ImGui::SetTooltip("request %s: %s here", fmt_count(session::request_number(uint64_t(stop_at))).c_str(),
                        program::problem_title(ui.status.problem).c_str());
    else
      strip_tooltip(ui, *m, flags, g, veiled, marks);
  }
}

std::vector<TimelineMark> timeline_marks(const Session& m, float width) {
  std::vector<TimelineMark> out;
  const uint64_t n = m.size();
  const auto& events = m.copies().events;
  if (!n || events.empty() || width < 1) return out;
  const int w = int(width);
  std::vector<uint8_t> taken(size_t(w) * 3, 0);  // per pixel column: commit, wait, mma
  for (int pass = 0; pass < 2; ++pass)            // waits and commits first: mmas must not hide them
    for (const analysis::EventMark& em : events) {
      const trace::Event& e = m.trace().events[em.event];
      const trace::Form kind = m.trace().event_sites[e.site].form;
      const int k = kind == trace::Form::Commit ? 0 : kind == trace::Form::Wait ? 1 : kind == trace::Form::Mma ? 2 : -1;
      const uint64_t at = em.when();  // in time, among every warp's requests
      if (k < 0 || (k == 2) != (pass == 1) || at >= n) continue;
      const float x = float(double(at) / double(n) * width) + 0.5f * std::max(1.0f, width / float(n));
      const int col = std::clamp(int(x), 0, w - 1);
      if (taken[size_t(col) * 3 + size_t(k)]++) continue;
      out.push_back({x, kind, em.event, at});
    }
  return out;
}

float timeline_legend(Scene& sc, float room, float height, bool slides, bool waits) {
  const Theme& t = theme();
  const float kRatios[] = {1, 2, 4, 8, 32};
  const char* kLabels[] = {"1×", "2×", "4×", "8×", "32×"};
  // The words give way first, then the slide key; the swatches stay.
  for (int level = 0; level < 3; ++level) {
    const bool words = level == 0, slide_key = slides && level < 2;
    Scene s;
    const float bar_h = height - 6, y1 = height - 3;
    float x = 0;
    if (words) {
      s.text(ImVec2(x, height * 0.5f), "bars: cost ÷ ideal", t.text_dim, FontRole::Small, 0, 0.5f);
      x += text_size(FontRole::Small, "bars: cost ÷ ideal").x + 8;
    }
    for (int i = 0; i < 5; ++i) {
      const float h = std::max(3.0f, bar_h * bar_fraction(kRatios[i]));
      s.fill(ImVec2(x, y1 - h), ImVec2(x + 4, y1), cost_color(kRatios[i]));
      x += 6;
      s.text(ImVec2(x, height * 0.5f), kLabels[i], t.text_dim, FontRole::Small, 0, 0.5f);
      x += text_size(FontRole::Small, kLabels[i]).x + 8;
    }
    if (waits) {  // the blue marks across the strip: a wait (a commit: a shorter one)
      x += 4;
      s.fill(ImVec2(x, 3), ImVec2(x + 2, y1), with_alpha(t.accent, 220));
      x += 6;
      s.text(ImVec2(x, height * 0.5f), "wait", t.text_dim, FontRole::Small, 0, 0.5f);
      x += text_size(FontRole::Small, "wait").x + 4;
    }
    if (slide_key) {
      x += 4;
      s.fill(ImVec2(x, 3), ImVec2(x + 2, y1), t.warn);
      s.fill(ImVec2(x, y1 - 8), ImVec2(x + 9, y1), t.warn, 2);
      x += 13;
      s.text(ImVec2(x, height * 0.5f), "slide", t.text_dim, FontRole::Small, 0, 0.5f);
      x += text_size(FontRole::Small, "slide").x;
    }
    if (x <= room || level == 2) {
      if (x > room) return 0;
      sc.append(s, ImVec2(0, 0));
      return x;
    }
  }
  return 0;
}

}  // namespace ws::ui
