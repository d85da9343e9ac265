// src/ui/layout.cpp — the main window's panels: their places (panel_layout, pure geometry)
// and the frame that puts each view of the panel table (panels.h) in its place, with panel
// headers and splitters.
#include "ui/layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

PanelLayout panel_layout(UiState& s, bool comparing, ImVec2 display, float menu_h, float font_size, bool lesson,
                         Panel focus, bool program) {
  PanelLayout L;
  const float W = display.x, H = display.y;
  const float gap = 6;
  const float F = font_size;
  const float status_h = std::round(F + 12);
  const float header_h = panel_header_height();
  // A class's layouts keep the timeline to one row of buttons over the strip.
  const float timeline_h = s.present ? std::round(header_h + F * 3.5f + 24) : std::round(F * 6.6f + 24);
  const float top = menu_h + gap, bottom = H - status_h - gap;
  const float tl_top = bottom - timeline_h;
  const float area_bottom = tl_top - gap;
  // A lesson's text needs a wider left column than the catalog's controls.
  const float lw = std::round(W * (lesson ? std::max(s.left_frac, 0.27f) : s.left_frac)), rw = std::round(W * s.right_frac);
  const float lx1 = gap + lw, rx0 = W - gap - rw;
  const float area_h = area_bottom - top;
  auto split = [&](float frac) { return std::round(top + area_h * frac); };
  auto& r = L.panels;
  const bool ab = comparing && s.enlarged < 0;
  if (s.enlarged >= 0 && s.enlarged != int(Panel::Timeline)) {
    r.push_back({Panel(s.enlarged), ImVec2(gap, top), ImVec2(W - gap, area_bottom)});
  } else if (ab) {
    // A/B: the differences on top, then A and B side by side, each the warp inspector (the
    // lane diagram) over the memory view. The differences table is the first thing to go
    // when the inspectors would get too short to draw their diagrams.
    const float warp_frac = s.present ? 0.56f : 0.58f;
    float need = warp_need_height();  // inspector height that keeps its diagram
    // The table where there is room; else one line of its verdicts under the header (the
    // projector's large type at 1280×720), the lane diagrams a little shorter (the view
    // drops its details to keep the diagram; it stays above the legible least); else nothing.
    const float rows = s.present ? 2.6f : 4.6f;
    float strip_h = std::round(std::min(area_h * 0.3f, F * 1.55f * rows + 24));
    bool bare = false;
    if ((area_h - strip_h - gap) * warp_frac < need) {
      strip_h = std::round(F * 1.5f + 16);
      bare = true;
      const float tight = need - 2.5f * font_for(FontRole::Small)->FontSize;
      if (area_h - strip_h - gap - tight < 5 * F)
        strip_h = 0;  // the memory views keep a band of cells
      else
        need = tight;
    }
    const float y0 = strip_h > 0 ? top + strip_h + gap : top, mid = std::round(W * 0.5f);
    const float body = area_bottom - y0;
    const float ym = std::round(y0 + std::min(body - 4 * F, std::max(body * warp_frac, need)));
    if (strip_h > 0) r.push_back({Panel::Count, ImVec2(gap, top), ImVec2(W - gap, top + strip_h), false, "", bare});
    r.push_back({Panel::Warp, ImVec2(gap, y0), ImVec2(mid - gap * 0.5f, ym), false, "A"});
    r.push_back({Panel::Memory, ImVec2(gap, ym + gap), ImVec2(mid - gap * 0.5f, area_bottom), false, "A"});
    r.push_back({Panel::Warp, ImVec2(mid + gap * 0.5f, y0), ImVec2(W - gap, ym), true, "B"});
    r.push_back({Panel::Memory, ImVec2(mid + gap * 0.5f, ym + gap), ImVec2(W - gap, area_bottom), true, "B"});
  } else if ((s.present && (focus == Panel::Memory ||
                             (lesson && (focus == Panel::Source || focus == Panel::Pipeline || focus == Panel::Cluster)))) ||
             (!lesson && focus == Panel::Memory && area_h < 36 * F)) {
    // (The same for a program that stopped or raced on a short screen in the normal layout:
    // at 1280x720 the memory view's share of the middle column left one row of cells.)
    // On a projector, the view the class looks at large on the left. A lesson: while a
    // question waits that is the memory view (the lanes' cells to reason from), the lesson
    // above the veiled inspector on the right; once answered by the source gutter, the
    // source panel (or the pipeline or cluster view that shows a copy's bytes), with the
    // memory and the lesson on the right. A program that stopped or
    // raced: its cells (the banner over them, the lanes past the array's end in view), the
    // inspector and the source line on the right.
    // While the question waits the inspector is only its veil: the lesson takes the whole
    // right column, wider, so its text reads above the question (it kept about four lines).
    const bool asking = lesson && focus == Panel::Memory;
    const float mx = std::round(W * (asking ? 0.52f : 0.57f));
    const float my = asking ? area_bottom : split(!lesson ? 0.56f : 0.38f);
    const Panel upper = !lesson ? Panel::Warp : asking ? Panel::Lesson : Panel::Memory;
    r.push_back({focus, ImVec2(gap, top), ImVec2(mx - gap * 0.5f, area_bottom)});
    r.push_back({upper, ImVec2(mx + gap * 0.5f, top), ImVec2(W - gap, my)});
    if (!asking) r.push_back({!lesson ? Panel::Source : Panel::Lesson, ImVec2(mx + gap * 0.5f, my + gap), ImVec2(W - gap, area_bottom)});
  } else if (s.present) {
    // Presentation: the warp inspector (the point of the step) large on the left, the memory
    // and the source line on the right; 1 … 6 still enlarge any panel.
    // A lesson takes the source panel's place (the inspector shows the line) and more room.
    const float mx = std::round(W * 0.57f), my = split(lesson ? 0.38f : 0.56f);
    r.push_back({Panel::Warp, ImVec2(gap, top), ImVec2(mx - gap * 0.5f, area_bottom)});
    r.push_back({Panel::Memory, ImVec2(mx + gap * 0.5f, top), ImVec2(W - gap, my)});
    r.push_back({lesson ? Panel::Lesson : Panel::Source, ImVec2(mx + gap * 0.5f, my + gap), ImVec2(W - gap, area_bottom)});
  } else {
    // A program's source panel keeps ten lines of code under its header and its row of
    // controls (at 1280×720 the memory view's share left it four), taking up to 58% of the
    // column (eight lines at 1280×720): the student edits that text.
    const float code_h = 10 * std::round(font_for(FontRole::Mono)->FontSize + 4);
    const float source_need = header_h + 16 + std::round(F * 1.9f) + code_h;
    const float ly = split(s.left_split), ry = split(s.right_split);
    const float cy = program ? std::min(split(s.center_split), std::max(split(0.42f), std::round(area_bottom - gap - source_need)))
                             : split(s.center_split);
    if (lesson) {
      // A lesson's text and question take the whole left column (6 still shows the timing).
      r.push_back({Panel::Lesson, ImVec2(gap, top), ImVec2(lx1, area_bottom)});
    } else {
      r.push_back({Panel::Catalog, ImVec2(gap, top), ImVec2(lx1, ly)});
      r.push_back({Panel::Timing, ImVec2(gap, ly + gap), ImVec2(lx1, area_bottom)});
    }
    r.push_back({Panel::Memory, ImVec2(lx1 + gap, top), ImVec2(rx0 - gap, cy)});
    r.push_back({Panel::Source, ImVec2(lx1 + gap, cy + gap), ImVec2(rx0 - gap, area_bottom)});
    r.push_back({Panel::Warp, ImVec2(rx0, top), ImVec2(W - gap, ry)});
    r.push_back({s.cluster ? Panel::Cluster : s.pipeline ? Panel::Pipeline : s.fragments ? Panel::Fragments : Panel::Dram, ImVec2(rx0, ry + gap),
                 ImVec2(W - gap, area_bottom)});
    // Splitters in the gaps between panels (not while one panel is enlarged).
    if (s.enlarged < 0) {
      L.splitters = {
        {"##split_left", ImVec2(lx1, top), ImVec2(lx1 + gap, area_bottom), true, &s.left_frac, 0.12f, 0.40f, 0, W},
        {"##split_right", ImVec2(rx0 - gap, top), ImVec2(rx0, area_bottom), true, &s.right_frac, 0.15f, 0.48f, W, -W},
        {"##split_cv", ImVec2(lx1 + gap, cy), ImVec2(rx0 - gap, cy + gap), false, &s.center_split, 0.2f, 0.85f, top, area_h},
        {"##split_rv", ImVec2(rx0, ry), ImVec2(W - gap, ry + gap), false, &s.right_split, 0.2f, 0.85f, top, area_h},
      };
      if (!lesson)
        L.splitters.push_back(
            {"##split_lv", ImVec2(gap, ly), ImVec2(lx1, ly + gap), false, &s.left_split, 0.2f, 0.85f, top, area_h});
    }
  }
  r.push_back({Panel::Timeline, ImVec2(gap, tl_top), ImVec2(W - gap, bottom)});
  L.status_min = ImVec2(0, H - status_h);
  L.status_max = ImVec2(W, H);
  return L;
}

float panel_header_height() { return std::round(font_for(FontRole::Bold)->FontSize + 12); }

float warp_need_height() {
  // Header, the body's padding (8 above and below) and the inspector's least body.
  return std::round(panel_header_height() + 16 + warp_panel_min_height());
}

namespace {

// The header of a panel: title, a short subtitle, and an enlarge / restore button.
// Double-clicking the header does the same as the button.
void panel_header(Ui& ui, Panel p, const std::string& subtitle, const std::string& title_text = "") {
  const Theme& t = theme();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 wp = ImGui::GetWindowPos();
  float w = ImGui::GetWindowWidth();
  const float h = panel_header_height();
  dl->AddRectFilled(wp, ImVec2(wp.x + w, wp.y + h), t.panel_header);
  dl->AddRectFilled(wp, ImVec2(wp.x + 3, wp.y + h), t.accent);
  // Title and subtitle cut with "…" to the room left of the enlarge button, never clipped.
  Scene sc;
  float room = w - h - 16;
  if (p == Panel::Timeline) {
    // The strip's key at the right end of the header, where the enlarge button would be.
    Scene key;
    const bool waits = ui.pane.model && !ui.pane.model->trace().events.empty();
    const float kw = timeline_legend(key, std::max(0.0f, w * 0.5f), h - 8, !ui.slides.deck.slides.empty(), waits);
    if (kw > 0) sc.append(key, ImVec2(w - 12 - kw, 4));
    room = w - 16 - (kw > 0 ? kw + 24 : 0);
  }
  const std::string title = fit_text(FontRole::Bold, title_text.empty() ? panel_name(p) : title_text, room);
  sc.text(ImVec2(12, 6), title, t.text, FontRole::Bold);
  const float tx = 12 + text_size(FontRole::Bold, title).x + 14;
  if (!subtitle.empty() && room - tx > 20) {
    const std::string sub = fit_text(FontRole::Ui, subtitle, room - tx + 8);
    if (!sub.empty()) sc.text(ImVec2(tx, h * 0.5f), sub, t.text_dim, FontRole::Ui, 0, 0.5f);
  }
  draw_scene(dl, sc, wp, nullptr);
  if (p != Panel::Timeline && p != Panel::Count) {
    // Enlarge / restore: four corner ticks, pointing out (enlarge) or in (restore).
    ImGui::SetCursorScreenPos(ImVec2(wp.x + w - h, wp.y));
    ImGui::InvisibleButton("##enlarge", ImVec2(h, h));
    bool hovered = ImGui::IsItemHovered();
    if (ImGui::IsItemClicked()) ui.enlarge(p);
    if (hovered) ImGui::SetTooltip(ui.state.enlarged == int(p) ? "Restore the layout (Esc)" : "Enlarge this panel");
    ImVec2 c(wp.x + w - h * 0.5f, wp.y + h * 0.5f);
    float r = h * 0.22f, k = h * 0.12f;
    ImU32 col = hovered ? t.text : t.text_dim;
    bool in = ui.state.enlarged == int(p);
    for (int sx : {-1, 1})
      for (int sy : {-1, 1}) {
        ImVec2 corner(c.x + sx * r, c.y + sy * r);
        float dx = in ? float(sx) * k : -float(sx) * k, dy = in ? float(sy) * k : -float(sy) * k;
        dl->AddLine(corner, ImVec2(corner.x + dx, corner.y), col, 2);
        dl->AddLine(corner, ImVec2(corner.x, corner.y + dy), col, 2);
      }
    ImGui::SetCursorScreenPos(wp);
    ImGui::InvisibleButton("##header", ImVec2(std::max(1.0f, w - h), h));
    if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(0)) ui.enlarge(p);
  }
  ImGui::SetCursorScreenPos(ImVec2(wp.x, wp.y + h));
}

void drag_splitters(const std::vector<Splitter>& splitters) {
  if (splitters.empty()) return;
  ImGuiIO& io = ImGui::GetIO();
  ImGui::PushStyleVar(ImGuiStyleVar_WindowMinSize, ImVec2(1, 1));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  for (const auto& s : splitters) {
    ImGui::SetNextWindowPos(s.min);
    ImGui::SetNextWindowSize(ImVec2(s.max.x - s.min.x, s.max.y - s.min.y));
    ImGui::Begin(s.id, nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoBackground |
                                    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                    ImGuiWindowFlags_NoBringToFrontOnFocus);
    ImGui::InvisibleButton("##drag", ImVec2(s.max.x - s.min.x, s.max.y - s.min.y));
    if (ImGui::IsItemHovered() || ImGui::IsItemActive())
      ImGui::SetMouseCursor(s.vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
    if (ImGui::IsItemActive()) {
      float pos = s.vertical ? io.MousePos.x : io.MousePos.y;
      float v = s.span > 0 ? (pos - s.origin) / s.span : (s.origin - pos) / -s.span;
      *s.value = std::clamp(v, s.lo, s.hi);
    }
    ImGui::End();
  }
  ImGui::PopStyleVar(2);
}

}  // namespace

void Ui::layout_and_draw() {
  drawn_.clear();
  float menu_h = 0;
  menu_bar(*this, menu_h);
  const PanelLayout layout =
      panel_layout(state, comparing(), ImGui::GetIO().DisplaySize, menu_h, ImGui::GetFontSize(), lessons.run.panel,
                   lessons.run.panel && lessons.run.waiting() && !comparing() ? Panel::Memory
                   : !lessons.run.panel && problem_step_on(pane) >= 0          ? Panel::Memory  // what stopped the program
                                                                               : lessons.answer_panel(),
                   // (a program that stopped or raced leaves the memory view its room: the fault's cells)
                   pane.model && pane.model->origin() == "program" && status.problem.empty());
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoScrollbar |
                                 ImGuiWindowFlags_NoScrollWithMouse;
  for (const PanelRect& r : layout.panels) {
    ImGui::SetNextWindowPos(r.min);
    ImGui::SetNextWindowSize(ImVec2(r.max.x - r.min.x, r.max.y - r.min.y));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    Pane& pn = side_pane(r.b_side);
    const std::string base = r.panel == Panel::Count ? "A/B comparison" : panel_name(r.panel);
    const std::string title = *r.side ? std::string(r.side) + " · " + base : base;
    diagram_min_ = diagram_max_ = ImVec2(0, 0);
    bool open = ImGui::Begin((title + "##" + base + r.side).c_str(), nullptr, flags);
    ImGui::PopStyleVar();
    if (open) {
      const PanelSpec* spec = r.panel != Panel::Count ? &panel_spec(r.panel) : nullptr;
      std::string sub = spec ? spec->caption(*this, pn)
                        : pane.model && ab.pane.model ? ab_names().both +
                                                             " · locked to the same block, warp and step"
                                                       : "both sides locked to the same block, warp and step";
      if (*r.side && pn.model) {
        // Each side named by what tells it from the other first ("transpose_tiled · pad=1 ·
        // size 64 …"), so a cut subtitle still says which is which.
        const Pane& other = side_pane(!r.b_side);
        const std::string name = other.model ? (r.b_side ? ab_names().b : ab_names().a) : pn.model->title();
        sub = name + (sub.empty() ? "" : " · " + sub);
      }
      if (!r.bare) panel_header(*this, r.panel, sub, title);
      ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(10, 8));
      ImGuiWindowFlags body = ImGuiWindowFlags_AlwaysUseWindowPadding;
      if (spec && !spec->scrolls) body |= ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;
      ImGui::BeginChild("##body", ImVec2(0, 0), false, body);
      if (spec)
        spec->draw(*this, pn);
      else
        compare_strip(*this);
      ImGui::EndChild();
      ImGui::PopStyleVar();
    }
    ImGui::End();
    if (const float a = r.panel != Panel::Count && !r.b_side ? lesson_pointing(*this, r.panel) : 0; a > 0) {
      // The panel that shows the answer just given: outlined, fading.
      ImGui::GetForegroundDrawList()->AddRect(ImVec2(r.min.x - 2, r.min.y - 2), ImVec2(r.max.x + 2, r.max.y + 2),
                                              with_alpha(theme().accent, int(255 * std::max(a, 0.2f))), 6, 0, 4);
    }
    if (r.panel != Panel::Count) drawn_.push_back({r.panel, r.min, r.max, r.b_side, diagram_min_, diagram_max_});
  }
  drag_splitters(layout.splitters);
  status_bar(*this, layout.status_min, layout.status_max);
  help_overlay(*this);
  file_dialogs(*this);
  build_errors_window(*this);
  program_output_window(*this);
  classroom_dialogs(*this);
  export_dialog(*this);
}

}  // namespace ws::ui
