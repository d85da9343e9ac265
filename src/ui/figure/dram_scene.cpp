// src/ui/figure/dram_scene.cpp — DRAM view: channels × banks of the teaching model for the current barrier epoch (a
// tiled kernel's phase), with the current request's bursts outlined. The model is named
// and labelled as a model: real GPUs hash addresses in undocumented ways.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui/figure/theme.h"
#include "ui/figure/scenes.h"

namespace ws::ui {


float cards_scene(Scene* sc, const std::vector<Card>& cards, float y, float w) {
  const Theme& t = theme();
  const float bh = font_for(FontRole::Big)->FontSize, ch = font_for(FontRole::Ui)->FontSize;
  const float col_gap = ch * 1.6f, row_gap = std::round(font_for(FontRole::Small)->FontSize * 0.5f);
  const float y0 = y;
  float x = 0;
  for (const Card& c : cards) {
    const std::string cap = fit_text(FontRole::Ui, c.caption, w);
    const float cw = std::max(text_size(FontRole::Big, c.value).x, text_size(FontRole::Ui, cap).x);
    if (x > 0 && x + cw > w) {
      x = 0;
      y += bh + ch + 2 + row_gap;
    }
    if (sc) {
      sc->text(ImVec2(x, y), c.value, c.color, FontRole::Big);
      sc->text(ImVec2(x, y + bh + 2), cap, t.text_dim, FontRole::Ui);
    }
    x += cw + col_gap;
  }
  return cards.empty() ? 0.0f : y - y0 + bh + ch + 2;
}

void dram_panel_scene(Scene& sc, const Session& m, const RequestFigures& rv, session::DramChoice array, ImVec2 size) {
  const Theme& t = theme();
  sc.size = size;
  const analysis::DramModel& d = m.report().dram;
  const float gap = std::round(font_for(FontRole::Small)->FontSize * 0.6f);
  // Always say this is a model, and which one.
  const char* tag = "MODEL";
  const ImVec2 ts = text_size(FontRole::Ui, tag);
  sc.fill(ImVec2(0, 0), ImVec2(ts.x + 12, ts.y + 2), with_alpha(t.warn, 200), 3);
  sc.text(ImVec2(6, 1), tag, IM_COL32(30, 24, 10, 255), FontRole::Ui);
  const auto& tr = m.trace();
  char desc[160];
  std::snprintf(desc, sizeof desc, "%s: %u channels × %u banks, %u-byte interleave%s", d.preset.c_str(), d.channels,
                d.banks, d.burst_bytes, d.xor_hash ? ", hashed" : "");
  sc.text(ImVec2(ts.x + 12 + gap, 1), fit_text(FontRole::Ui, desc, size.x - ts.x - 12 - gap), t.text_dim, FontRole::Ui);
  float y = ts.y + 2 + std::round(gap * 0.5f);
  // The array whose traffic is shown, and why that one.
  session::DramArray shown;
  const session::DramFigures f = session::dram_view_figures(m, rv, array, &shown);
  std::string which = "every global array";
  if (!shown.all()) {
    which = "array " + tr.buffers[shown.buffer].name;
    if (shown.other_request)
      which += shown.from < rv.step ? ", the last global request's (this one is shared)"
                                    : ", the next global request's (this one is shared)";
    else if (shown.followed)
      which += ", the request's";
  }
  sc.text(ImVec2(0, y), fit_text(FontRole::Small, which, size.x), shown.other_request ? t.warn : t.text_dim,
          FontRole::Small);
  y += font_for(FontRole::Small)->FontSize + gap;

  const uint32_t C = f.channels;
  char v[64], cap[96];
  std::vector<Card> cards;
  std::snprintf(v, sizeof v, "%u / %u", f.busy, C);
  std::snprintf(cap, sizeof cap, "channels busy, epoch %u", f.epoch);
  cards.push_back({v, cap, f.busy == C ? t.good : f.busy * 2 >= C ? t.warn : t.bad});
  if (f.shared) {
    cards.push_back({"—", "shared: no DRAM traffic", t.text_dim});
  } else {
    const size_t hc = f.hit_channels.size();
    std::snprintf(v, sizeof v, "%llu → %zu", (unsigned long long)f.request_bursts, hc);
    cards.push_back({v, hc == 1 ? "bursts → channel (request)" : "bursts → channels (request)",
                     hc * 2 >= std::min<uint64_t>(C, f.request_bursts) ? t.text : t.warn});
  }
  y += cards_scene(&sc, cards, y, size.x) + gap;
  if (size.y - y < 60) return;
  Scene g;
  dram_scene(g, f, ImVec2(size.x, size.y - y));
  sc.append(g, ImVec2(0, y));
}

void dram_scene(Scene& sc, const session::DramFigures& f, ImVec2 avail) {
  const Theme& t = theme();
  const uint32_t C = f.channels, B = f.banks;
  sc.size = avail;
  // Grid: a column per channel, a row per bank.
  const float lab = font_for(FontRole::Small)->FontSize + 4;
  const float lab_w = text_size(FontRole::Small, "channel").x + 10;
  const float bars_h = std::clamp(avail.y * 0.2f, 24.0f, 80.0f);
  // Cells are as wide and as tall as the panel allows (not necessarily square), within
  // limits that keep them readable.
  const float cell = std::clamp((avail.x - lab_w - 8) / float(C), 3.0f, 200.0f);  // width
  const float chh = std::clamp((avail.y - 3 * lab - bars_h - 12) / float(B), 3.0f, std::min(140.0f, cell));
  const float gx = lab_w, gy = lab;
  for (uint32_t b = 0; b < B; ++b) {
    if (chh >= 14 || b % 4 == 0)
      sc.text(ImVec2(lab_w - 6, gy + (float(b) + 0.5f) * chh), "bank " + std::to_string(b), t.text_dim, FontRole::Small, 1, 0.5f);
    for (uint32_t c = 0; c < C; ++c) {
      uint64_t n = f.cells[size_t(b) * C + c];
      ImVec2 a(gx + float(c) * cell + 1, gy + float(b) * chh + 1), z(gx + float(c + 1) * cell - 1, gy + float(b + 1) * chh - 1);
      sc.fill(a, z, n ? heat_color(f.max_cell ? float(n) / float(f.max_cell) : 0) : t.cell_empty, std::min(cell, chh) >= 10 ? 3 : 0);
      if (n && cell >= 40 && chh >= 18)
        sc.text(ImVec2((a.x + z.x) * 0.5f, (a.y + z.y) * 0.5f), fmt_compact(n), IM_COL32(10, 12, 16, 255), FontRole::Small, 0.5f, 0.5f);
      if (f.hits(c, b)) sc.rect(ImVec2(a.x - 1, a.y - 1), ImVec2(z.x + 1, z.y + 1), t.sector, 2.5f, 3);
    }
  }
  // Channel numbers, as many as fit.
  uint32_t every = 1;
  const float need = text_size(FontRole::Small, std::to_string(C - 1)).x + 6;
  while (float(every) * cell < need) every *= 2;
  for (uint32_t c = 0; c < C; c += every)
    sc.text(ImVec2(gx + (float(c) + 0.5f) * cell, gy - 2), std::to_string(c), t.text_dim, FontRole::Small, 0.5f, 1);
  sc.text(ImVec2(lab_w - 6, gy - 2), "channel", t.text_dim, FontRole::Small, 1, 1);
  // Bursts per channel.
  uint64_t cmx = 1;
  for (uint64_t x : f.per_channel) cmx = std::max(cmx, x);
  float by = gy + float(B) * chh + 10 + bars_h;
  for (uint32_t c = 0; c < C; ++c) {
    float h = bars_h * float(f.per_channel[c]) / float(cmx);
    ImU32 col = f.hits_channel(c) ? t.accent : with_alpha(t.accent, 120);
    sc.fill(ImVec2(gx + float(c) * cell + 2, by - h), ImVec2(gx + float(c + 1) * cell - 2, by), col, 2);
  }
  sc.line(ImVec2(gx, by), ImVec2(gx + float(C) * cell, by), t.text_dim, 1);
  sc.text(ImVec2(lab_w - 6, by - bars_h * 0.5f), "bursts", t.text_dim, FontRole::Small, 1, 0.5f);
  sc.text(ImVec2(gx, by + 3),
          fit_text(FontRole::Small, fmt_count(f.total) + " bursts in epoch " + std::to_string(f.epoch) + " · " + f.recorded,
                   avail.x - gx),
          t.text_dim, FontRole::Small, 0, 0);
}

}  // namespace ws::ui
