// src/ui/timing_view.cpp — Timing: the plain kernels of the family on screen, timed at a realistic size — live on
// this machine's GPU when there is one, else from the replay pack (labelled with the
// device and date it was recorded on). Every variant the table timed gets a bar on one
// fixed scale, 0–100 % of the reference measured in the same run, so bars compare across
// families and runs. Says so plainly when there are no timings at all. A program shows its
// own launches' times only (the same code's), marked when the file was edited since.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>

#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

namespace {

void banner(const char* text, ImU32 color) {
  ImVec2 a = ImGui::GetCursorScreenPos();
  float w = ImGui::GetContentRegionAvail().x;
  ImGui::SetCursorScreenPos(ImVec2(a.x + 10, a.y + 5));
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w - 20);
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextUnformatted(text);
  ImGui::PopStyleColor();
  ImGui::PopTextWrapPos();
  float h = ImGui::GetItemRectMax().y - a.y + 5;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(a, ImVec2(a.x + w, a.y + h), with_alpha(color, 30), 4);
  dl->AddRect(a, ImVec2(a.x + w, a.y + h), with_alpha(color, 140), 4);
  ImGui::SetCursorScreenPos(ImVec2(a.x, a.y + h + 6));
}

std::string number(double v) {
  char b[32];
  std::snprintf(b, sizeof b, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
  return b;
}

std::string percent(double p) {
  char b[32];
  std::snprintf(b, sizeof b, p >= 10 || p == 0 ? "%.0f%%" : "%.1f%%", p);
  return b;
}

}  // namespace

std::string timing_value_text(const LadderRow& r) {
  if (!r.sample) return "not timed";
  std::string v = r.value > 0 ? number(r.value) : number(r.sample->ms) + " ms";
  if (r.pct >= 0) v += " · " + percent(r.pct);
  if (r.published) v += " · published code";
  return v;
}

float timing_scene(Scene& sc, const TimingLadder& l, float width, float height, std::vector<SceneBox>* rows) {
  const Theme& t = theme();
  if (rows) rows->clear();
  const float small_h = font_for(FontRole::Small)->FontSize;
  const float gap = std::round(small_h * 0.5f);
  // Rows in body type; in small type when that is what lets every row fit `height`.
  const float scale_h = small_h + 3;
  float row_h = std::round(font_for(FontRole::Ui)->FontSize + 7);
  bool compact = height > 0 && scale_h + float(l.rows.size()) * (row_h + 2) > height;
  if (compact) row_h = std::round(small_h + 6);
  const FontRole body = compact ? FontRole::Small : FontRole::Ui;
  // Names left, bars right; the names get what they need up to half the width.
  auto name_font = [&](const LadderRow& r) { return r.here && !compact ? FontRole::Bold : body; };
  float name_w = 0;
  for (const auto& r : l.rows) {
    float w = text_size(name_font(r), r.name).x;
    if (!r.variant.empty()) w += text_size(body, " " + r.variant).x;
    name_w = std::max(name_w, w);
  }
  const float label_w = std::round(std::clamp(name_w + gap * 2, width * 0.3f, width * 0.5f));
  const float bar_x = label_w, bar_w = std::max(20.0f, width - label_w - 2);

  // Bands and tracks go behind the scale's lines, bars and figures in front of them.
  Scene back, front;
  // The scale: 0, 50 and 100 % of the reference.
  float y = 0;
  const std::string full = "100% " + std::string(l.compute ? "cuBLAS" : "copy");
  front.text(ImVec2(bar_x, y), "0", t.text_dim, FontRole::Small);
  front.text(ImVec2(bar_x + bar_w * 0.5f, y), "50%", t.text_dim, FontRole::Small, 0.5f);
  front.text(ImVec2(bar_x + bar_w, y), text_size(FontRole::Small, full).x + 4 < bar_w * 0.5f ? full : "100%",
             t.text_dim, FontRole::Small, 1);
  y += scale_h;
  const float rows_top = y;
  // Each row's span, and where its figures are printed (the scale's lines pass them by).
  struct Span {
    float y0, y1, x0 = 0, x1 = 0;
  };
  std::vector<Span> spans;

  for (const auto& r : l.rows) {
    const ImVec2 a(0, y), z(width, y + row_h);
    if (rows) rows->push_back({a, z});
    if (r.here) back.fill(a, z, with_alpha(t.accent, 46), 3);
    // Name, then the variant; where the column is narrow the variant gives way first (its
    // last settings), keeping the name whole or most of the room ('… warps=4 group=1' lost
    // which kernel it was).
    const FontRole nf = name_font(r);
    const ImU32 nc = r.published ? t.text_dim : r.here || r.same_kernel ? t.text : t.text_dim;
    const float room = std::max(12.0f, label_w - gap - 4);
    std::string variant = r.variant.empty() ? "" : " " + r.variant;
    const float name_full = text_size(nf, r.name).x;
    if (!variant.empty() && name_full + text_size(body, variant).x > room)
      variant = fit_text(body, variant, std::max(0.0f, room - std::min(name_full, room * 0.6f)));
    const std::string name = fit_text(nf, r.name, std::max(12.0f, room - text_size(body, variant).x));
    const float mid = y + row_h * 0.5f;
    front.text(ImVec2(4, mid), name, nc, nf, 0, 0.5f);
    if (!variant.empty())
      front.text(ImVec2(4 + text_size(nf, name).x, mid), variant, r.here ? t.text : t.accent, body, 0, 0.5f);
    // The bar on the fixed scale; past 100 % it stops at the edge with a marker, and the
    // figure printed says how far past.
    const float inset = compact ? 2 : 3;
    const ImVec2 b0(bar_x, y + inset), b1(bar_x + bar_w, y + row_h - inset);
    back.fill(b0, b1, t.cell_empty, 3);
    float len = 0;
    const ImU32 fill = r.published ? with_alpha(t.text_dim, 170) : r.here ? t.accent : with_alpha(t.accent, 150);
    if (r.sample && r.pct >= 0) {
      len = std::max(2.0f, bar_w * float(std::min(r.pct, 100.0) / 100.0));
      front.fill(b0, ImVec2(bar_x + len, b1.y), fill, 3);
      if (r.pct > 100) front.fill(ImVec2(b1.x - 4, b0.y - 2), ImVec2(b1.x, b1.y + 2), t.warn, 1);
    }
    // The figures after the bar where they fit (a published row's "· published code" goes
    // first: its name says whose code it is), else inside the bar where they fit there,
    // else the percentage alone (what the scale is of) after the bar or inside it, else cut
    // to the room after the bar: never across the bar's end.
    std::string value = timing_value_text(r);
    const float after = bar_w - len - 9;
    if (text_size(FontRole::Small, value).x > after && r.published) value = value.substr(0, value.rfind(" · published code"));
    float vw = text_size(FontRole::Small, value).x;
    bool inside = len > 0 && vw > after && vw + 10 <= len;
    if (!inside && vw > after && r.sample && r.pct >= 0) {
      const std::string pc = percent(r.pct);
      const float pw = text_size(FontRole::Small, pc).x;
      if (pw <= after || pw + 10 <= len) {
        value = pc;
        vw = pw;
        inside = pw > after;
      }
    }
    if (!inside) value = fit_text(FontRole::Small, value, std::max(after, 24.0f));
    if (inside) {  // in a colour that reads on the fill
      const ImVec4 f = ImGui::ColorConvertU32ToFloat4(fill), u = ImGui::ColorConvertU32ToFloat4(t.cell_empty);
      auto lum = [](const ImVec4& c) { return 0.3f * c.x + 0.59f * c.y + 0.11f * c.z; };
      const float seen = lum(f) * f.w + lum(u) * (1 - f.w);  // the fill over the track
      front.text(ImVec2(bar_x + 5, mid), value, seen > 0.5f ? IM_COL32(16, 20, 26, 255) : IM_COL32_WHITE,
                 FontRole::Small, 0, 0.5f);
    } else {
      front.text(ImVec2(bar_x + len + 5, mid), value, r.sample ? t.text : t.text_dim, FontRole::Small, 0, 0.5f);
    }
    const float at = inside ? bar_x + 5 : bar_x + len + 5;
    spans.push_back({y, y + row_h + 2, at - 2, at + 2 + text_size(FontRole::Small, value).x});
    y += row_h + 2;
  }
  // Tick lines at 50 and 100 % through the rows, under the bars, never through a row's
  // figures.
  sc.append(back, ImVec2(0, 0));
  for (float f : {0.5f, 1.0f}) {
    const float x = std::round(bar_x + bar_w * f) - (f == 1.0f ? 1 : 0);
    for (const Span& s : spans)
      if (x < s.x0 || x > s.x1) sc.line(ImVec2(x, std::max(rows_top, s.y0) - 1), ImVec2(x, s.y1 - 1), with_alpha(t.text_dim, 110), 1);
  }
  sc.append(front, ImVec2(0, 0));
  sc.size = ImVec2(width, y);
  return y;
}

void flow_pieces(const std::vector<std::string>& pieces, ImU32 color, float indent) {
  const float left = ImGui::GetCursorPosX() + indent;
  const float right = ImGui::GetWindowContentRegionMax().x;
  const float space = ImGui::CalcTextSize(" ").x;
  float x = left;
  bool first = true;
  auto place = [&](const std::string& piece) {
    const float w = ImGui::CalcTextSize(piece.c_str()).x;
    if (!first && x + space + w <= right) {
      ImGui::SameLine(0, space);
      x += space;
    } else {
      ImGui::SetCursorPosX(left);
      x = left;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    ImGui::TextUnformatted(piece.c_str());
    ImGui::PopStyleColor();
    x += w;
    first = false;
  };
  for (const std::string& p : pieces) {
    if (ImGui::CalcTextSize(p.c_str()).x <= right - left) {
      place(p);
      continue;
    }
    std::istringstream words(p);
    for (std::string w; words >> w;) place(w);
  }
}

static void flow_text(const std::string& text, ImU32 color, float indent) {
  flow_pieces(unbroken_pieces(text), color, indent);
}

// A program's own launches timed on a GPU: this run's times, else those of the replay pack's
// run of the same code. A program never gets the catalog's ladder: without times of its
// own the panel says there are none, and why.
static void program_times_view(Ui& ui, const Session& m) {
  const Theme& t = theme();
  const std::optional<ProgramTimes> times = ui.timing.program_times(m);
  const float indent = ImGui::GetFontSize();
  if (!times) {
    ImGui::PushFont(font_for(FontRole::Bold));
    ImGui::TextWrapped("No GPU times of this program");  // wrapped: a narrow panel cut it ("… progra")
    ImGui::PopFont();
    const std::string& edited = ui.timing.edited(m);
    flow_text(m.from_gpu() ? "This run did not time its launches."
                           : "It ran on the emulated device (exact steps, no measured time), and the replay pack "
                             "holds no GPU run of this code: the pack's runs are matched by the hash of a "
                             "program's sources and flags, never by its name.",
              ImGui::GetColorU32(ImGuiCol_TextDisabled), 0);
    if (!edited.empty()) flow_text("Shown: " + edited + ".", t.warn, 0);
    return;
  }
  const bool edited = !times->edited.empty();
  // After an edit, what a GPU measured is of the text before it: said first, in the warning colour.
  if (edited)
    flow_text(times->device + " ran " + times->edited + ": these times are not the new text's.", t.warn, 0);
  std::vector<std::string> from{times->from, "· " + times->device + ","};
  for (auto& p : unbroken_pieces("each launch alone, nothing patched: median of its runs")) from.push_back(std::move(p));
  flow_pieces(from, edited ? t.text_dim : times->from == "this run" ? t.good : t.accent, 0);
  const ImU32 body = edited ? t.text_dim : t.text;
  for (const ProgramTimeRow& r : times->rows) {
    ImGui::PushFont(font_for(FontRole::Bold));
    flow_pieces({r.head}, body, 0);
    ImGui::PopFont();
    flow_pieces(r.figures, body, indent);
    if (!r.caveat.empty()) flow_text(r.caveat, t.warn, indent);
    for (const std::string& n : r.notes) flow_text(n, ImGui::GetColorU32(ImGuiCol_TextDisabled), indent);
  }
  for (const auto& y : times->yardsticks) flow_pieces(y, ImGui::GetColorU32(ImGuiCol_TextDisabled), 0);
  if (!times->hint.empty()) flow_text(times->hint, ImGui::GetColorU32(ImGuiCol_TextDisabled), 0);
}

namespace {

// The ladder's bars with a tooltip per row, what 100% is, the row on screen and its history.
void timing_ladder_body(Ui& ui, const TimingLadder& l) {
  const Theme& t = theme();
  const TimingTable& src = *l.table;
  // The ladder's bars, and a tooltip per row.
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x;
  // What 100% is: its line stays in view under the ladder, all of it where it wraps.
  std::string ref = "100% = " + l.ref;
  if (!l.ref_size.empty()) ref += " " + l.ref_size;
  // Rows each timed against the reference on their own arrays in the same rounds: their
  // percentages are of those times, not of the one figure measured first.
  double lo = 0, hi = 0;
  for (const LadderRow& r : l.rows)
    if (r.sample && r.pct >= 0 && r.sample->yardstick_ms > 0) {
      lo = lo > 0 ? std::min(lo, r.sample->yardstick_ms) : r.sample->yardstick_ms;
      hi = std::max(hi, r.sample->yardstick_ms);
    }
  if (hi > 0) {
    char b[96];
    std::snprintf(b, sizeof b, " timed beside each row, %.3f – %.3f ms", lo, hi);
    ref += b;
    if (l.ref_value > 0) ref += " (" + fmt_count(uint64_t(std::llround(l.ref_value))) + " " + l.unit + " timed first)";
  } else if (l.ref_value > 0) {
    ref += ", " + fmt_count(uint64_t(std::llround(l.ref_value))) + " " + l.unit;
  }
  const float below = ImGui::CalcTextSize(ref.c_str(), nullptr, false, w).y + ImGui::GetStyle().ItemSpacing.y + 2;
  Scene sc;
  std::vector<SceneBox> boxes;
  const float h = timing_scene(sc, l, w, ImGui::GetContentRegionAvail().y - below, &boxes);
  // The scale (0, 50 %, 100 % cuBLAS) stays at the top of the list as it scrolls, on the
  // panel's ground; the rows pass under it (it scrolled away with a long ladder, and the
  // top row sat half under the header).
  const float rows_top = boxes.empty() ? 0.0f : boxes[0].min.y;
  Scene scale, body;
  scale.size = ImVec2(w, rows_top);
  body.size = sc.size;
  for (const auto& it : sc.items) (it.kind == Scene::Kind::Text && it.a.y < rows_top - 1 ? scale : body).items.push_back(it);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (rows_top > 0 && ImGui::GetScrollY() > 0) {
    const ImVec2 pin(o.x, ImGui::GetWindowPos().y);
    const ImVec2 win_max(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x, ImGui::GetWindowPos().y + ImGui::GetWindowSize().y);
    dl->PushClipRect(ImVec2(pin.x - 4, pin.y + rows_top), win_max, true);  // the rows below the scale only
    draw_scene(dl, body, o, nullptr);
    dl->PopClipRect();
    draw_scene(dl, scale, pin, nullptr);
  } else {
    draw_scene(dl, body, o, nullptr);
    draw_scene(dl, scale, o, nullptr);
  }
  for (size_t i = 0; i < boxes.size(); ++i) {
    const LadderRow& r = l.rows[i];
    ImGui::SetCursorScreenPos(ImVec2(o.x + boxes[i].min.x, o.y + boxes[i].min.y));
    ImGui::PushID(int(i));
    ImGui::InvisibleButton("##row", ImVec2(boxes[i].max.x - boxes[i].min.x, boxes[i].max.y - boxes[i].min.y));
    ImGui::PopID();
    if (!r.sample || !ImGui::IsItemHovered()) continue;
    ImGui::BeginTooltip();
    ImGui::Text("%s%s%s: median %.3f ms", r.kernel->id.c_str(), r.variant.empty() ? "" : " ", r.variant.c_str(),
                r.sample->ms);
    if (r.value > 0) ImGui::TextDisabled("%s %s", number(r.value).c_str(), l.unit.c_str());
    if (r.pct >= 0) ImGui::TextDisabled("%s of %s", percent(r.pct).c_str(), l.ref.c_str());
    if (r.sample->runs) ImGui::TextDisabled("%d runs, %.3f – %.3f ms", r.sample->runs, r.sample->ms_min, r.sample->ms_max);
    ImGui::TextDisabled("size: %s", r.size.c_str());
    if (!r.sample->note.empty()) ImGui::TextDisabled("%s", r.sample->note.c_str());
    ImGui::EndTooltip();
  }
  // A panel too short for the ladder scrolls to the row on screen when it changes.
  if (l.here >= 0) {
    const LadderRow& r = l.rows[size_t(l.here)];
    const ImGuiID key = ImGui::GetID("##here");
    const int id = int(std::hash<std::string>{}(r.kernel->id + " " + r.variant) & 0x7fffffff) | 1;
    ImGuiStorage* st = ImGui::GetStateStorage();
    if (st->GetInt(key, 0) != id) {
      st->SetInt(key, id);
      const ImVec2 a(o.x + boxes[size_t(l.here)].min.x, o.y + boxes[size_t(l.here)].min.y);
      const ImVec2 z(o.x + boxes[size_t(l.here)].max.x, o.y + boxes[size_t(l.here)].max.y);
      if (!ImGui::IsRectVisible(a, ImVec2(a.x + 1, a.y + 1)) || !ImGui::IsRectVisible(ImVec2(z.x - 1, z.y - 1), z))
        ImGui::SetScrollFromPosY((a.y + z.y) * 0.5f - ImGui::GetWindowPos().y, 0.5f);
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(o.x, o.y + h + 2));

  // What 100 % is, the row on screen in words, and its history.
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", ref.c_str());
  const LadderRow* here = l.here >= 0 ? &l.rows[size_t(l.here)] : nullptr;
  if (here && here->sample) {
    const TimingSample& s = *here->sample;
    const std::string name = here->kernel->id + (here->variant.empty() ? "" : " " + here->variant);
    if (s.runs)
      ImGui::TextDisabled("%s: median %.3f ms of %d runs (%.3f – %.3f)", name.c_str(), s.ms, s.runs, s.ms_min, s.ms_max);
    else
      ImGui::TextDisabled("%s: %.3f ms", name.c_str(), s.ms);
    if (!s.note.empty()) ImGui::TextDisabled("%s", s.note.c_str());
  } else {
    ImGui::TextDisabled("%s with these parameters was not timed in this %s", ui.state.kernel.c_str(),
                        src.origin == "live" ? "run" : "pack");
  }
  ImGui::PopTextWrapPos();
  std::vector<float> hist;
  auto live_h = ui.timing.store().live_history.find(ui.state.kernel);
  if (live_h != ui.timing.store().live_history.end())
    for (double x : live_h->second) hist.push_back(float(x));
  else if (here && here->sample) {
    for (double x : here->sample->history) hist.push_back(float(x));
    if (hist.empty() || hist.back() != float(here->sample->ms)) hist.push_back(float(here->sample->ms));
  }
  if (hist.size() >= 2) {
    ImGui::Spacing();
    ImGui::TextDisabled("history of %s (ms)", ui.state.kernel.c_str());
    ImGui::PlotLines("##hist", hist.data(), int(hist.size()), 0, nullptr, 0, FLT_MAX,
                     ImVec2(-1, std::max(30.0f, std::min(70.0f, ImGui::GetContentRegionAvail().y - 8))));
  }
  if (!ui.timing.message().empty()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.warn), "%s", ui.timing.message().c_str());
}

}  // namespace

void timing_view(Ui& ui) {
  if (const Session* m = ui.pane.model.get(); m && m->origin() == "program") {
    program_times_view(ui, *m);
    return;
  }
  const Theme& t = theme();
  const TimingLadder l = ui.timing.ladder(ui.state.kernel, ui.state.params);
  if (!l.table) {
    const Session* m = ui.pane.model.get();
    if (m && !m->from_gpu()) banner("Trace emulated on CPU: exact steps, no measured time.", t.warn);
    ImGui::PushFont(font_for(FontRole::Bold));
    ImGui::TextUnformatted("No timings yet");
    ImGui::PopFont();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", ui.timing.live_available()
                                  ? (ui.timing.live_busy() ? "timing the plain kernels on this GPU…" : "waiting for the GPU")
                                  : "No GPU here and no replay pack with this family. `warpscope bench --out FILE.json` "
                                    "on a machine with a GPU writes the figures a replay pack holds (--replay-dir).");
    ImGui::PopTextWrapPos();
    if (!ui.timing.message().empty()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.warn), "%s", ui.timing.message().c_str());
    return;
  }
  const TimingTable& src = *l.table;

  // Where the figures come from (the panel's subtitle says live or replay pack), at what size.
  ImGui::PushTextWrapPos(0);
  const std::string date = src.date.substr(0, 10);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(src.origin == "live" ? t.good : t.accent), "%s%s%s%s",
                     src.origin == "live" ? "live · " : "", src.device.c_str(), date.empty() ? "" : " · ", date.c_str());
  ImGui::TextDisabled("%s%s%s", l.size.c_str(), l.size.empty() ? "" : " · ", l.unit.c_str());
  ImGui::PopTextWrapPos();
  // The rest scrolls under those lines: the GPU and date stay on screen whatever row is shown.
  ImGui::BeginChild("##ladder", ImVec2(0, 0), false);
  timing_ladder_body(ui, l);
  ImGui::EndChild();
}

}  // namespace ws::ui
