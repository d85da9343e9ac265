// src/ui/figure/warp_scene.cpp — Warp inspector: the 32 lanes of the current request and where their bytes land.
// Global: lanes → 32-byte sectors (requested bytes vs bytes fetched). Shared: lanes → the
// 32 banks, one box per distinct word, so an n-way conflict is a column n boxes tall and
// a broadcast is several lanes pointing at one box. 8- and 16-byte accesses are split
// into their phases (16 or 8 lanes each); an ldmatrix / stmatrix into its four 8x8
// matrices, lane → row → the 4 banks of its 16 bytes. The figures come from analysis::*_cost
// and analysis::matrix_phases.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <map>

#include "ui/figure/theme.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

float matrix_min_height(uint32_t cols);
// The least width at which an ldmatrix's matrices go in two columns (32 banks of 5 px each).
constexpr float kMatrixTwoColumns = 360;

namespace {

constexpr ImU32 kInactive = IM_COL32(70, 76, 90, 255);
constexpr ImU32 kWaste = IM_COL32(64, 70, 84, 255);

// Label every n-th of 32 columns `w` pixels wide (1, 2, 4 or 8) so two-digit numbers
// never touch.
int label_every(float w) {
  const float need = text_size(FontRole::Small, "88").x + 6;
  for (int n : {1, 2, 4}) if (w * float(n) >= need) return n;
  return 8;
}

// A row of numbers under or over a diagram whose first number carries the axis title
// ("lane 0", "bank 0", "sector #4"), left-aligned; later numbers that would touch the
// text before them are left out.
struct NumberRow {
  float right = -1e9f;
  float left = 0;  // where the row's axis word may start (a second column's own edge)
  bool titled = false;
  // Where the axis word has no room before the first number and would push the title past
  // its own box (`half_box` each side of the number: over the next number), the first
  // number alone: the caller's key names the axis instead.
  float half_box = 0;  // 0: the title always
  bool bare = false;
  void put(Scene& sc, const char* axis, const std::string& number, float cx, float y, float ay) {
    const Theme& t = theme();
    const float title_w = text_size(FontRole::Small, std::string(axis) + " " + number).x;
    if (!titled && half_box > 0 &&
        std::max(left, cx - text_size(FontRole::Small, number).x * 0.5f - text_size(FontRole::Small, std::string(axis) + " ").x) +
                title_w > cx + half_box - 4) {
      titled = bare = true;
      const float x = std::max(left, cx - text_size(FontRole::Small, number).x * 0.5f);
      sc.text(ImVec2(x, y), number, t.text_dim, FontRole::Small, 0, ay);
      right = x + text_size(FontRole::Small, number).x;
      return;
    }
    if (!titled) {
      titled = true;
      const std::string text = std::string(axis) + " " + number;
      const float x = std::max(left, cx - text_size(FontRole::Small, number).x * 0.5f -
                                         text_size(FontRole::Small, std::string(axis) + " ").x);
      sc.text(ImVec2(x, y), text, t.text_dim, FontRole::Small, 0, ay);
      right = x + text_size(FontRole::Small, text).x;
      return;
    }
    const float w = text_size(FontRole::Small, number).x;
    if (cx - w * 0.5f < right + 8) return;
    sc.text(ImVec2(cx, y), number, t.text_dim, FontRole::Small, 0.5f, ay);
    right = cx + w * 0.5f;
  }
};

// Whether the byte at `address` (a sector's slot, as analysis::sector_bytes numbers them)
// lies past the end of lane `lane`'s array: a fault's lane drawn as such.
bool slot_past_end(const RequestFigures& rv, int lane, uint64_t address) {
  if (!((rv.past_end >> lane) & 1u) || !rv.trace) return false;
  const uint32_t b = rv.rec->buffer_of(lane);
  if (b >= rv.trace->buffers.size()) return false;
  return (address & ((uint64_t(1) << 40) - 1)) >= rv.trace->buffers[b].size_bytes;
}

// Lane boxes across [x0, x1) at height y, numbered along `axis` ("lane"; "piece" for one
// thread's bulk copy, whose record's 16-byte pieces stand where lanes would); returns each
// lane's box.
std::vector<std::pair<ImVec2, ImVec2>> lane_row(Scene& sc, const trace::Record& r, int first, int count, float x0,
                                                float x1, float y, float h, bool numbers = true,
                                                const char* axis = "lane") {
  std::vector<std::pair<ImVec2, ImVec2>> boxes(static_cast<size_t>(count));
  float w = (x1 - x0) / float(count);
  float gap = w > 10 ? 2 : 1;
  const int every = label_every(w);
  NumberRow row;
  for (int i = 0; i < count; ++i) {
    int lane = first + i;
    ImVec2 a(x0 + float(i) * w, y), b(x0 + float(i + 1) * w - gap, y + h);
    boxes[size_t(i)] = {a, b};
    if (r.lane_active(lane))
      sc.fill(a, b, lane_color(lane), 3);
    else
      sc.rect(a, b, kInactive, 1, 3);
    if (numbers && lane % every == 0) row.put(sc, axis, std::to_string(lane), (a.x + b.x) * 0.5f, a.y - 2, 1);
  }
  return boxes;
}

// A request into other CTAs' shared memory (distributed shared memory): its lanes, and
// under them a box per CTA of the cluster they reached (its rank and array), each lane's
// line to its CTA. No cost is drawn: none is modelled.
void cluster_diagram(Scene& sc, const RequestFigures& rv, const trace::Trace& tr, ImVec2 size) {
  const Theme& t = theme();
  const trace::Record& r = *rv.rec;
  const float lab = font_for(FontRole::Small)->FontSize + 4;
  const float lane_h = std::clamp(size.y * 0.08f, 14.0f, 26.0f);
  auto lanes = lane_row(sc, r, 0, 32, 0, size.x, lab, lane_h);
  std::map<uint32_t, std::string> ctas;  // buffer -> its box's label
  for (int l = 0; l < 32; ++l)
    if (r.lane_active(l) && r.buffer_of(l) < tr.buffers.size()) ctas.emplace(r.buffer_of(l), tr.buffers[r.buffer_of(l)].name);
  if (ctas.empty()) return;
  const float top = lab + lane_h + std::clamp(size.y * 0.25f, 30.0f, 110.0f), box_h = lab * 2;
  const float w = size.x / float(ctas.size());
  std::map<uint32_t, ImVec2> at;
  float x = 0;
  for (const auto& [buf, name] : ctas) {
    sc.fill(ImVec2(x + 6, top), ImVec2(x + w - 6, top + box_h), t.cell_empty, 4);
    sc.rect(ImVec2(x + 6, top), ImVec2(x + w - 6, top + box_h), t.accent, 1.5f, 4);
    sc.text(ImVec2(x + w * 0.5f, top + box_h * 0.5f), fit_text(FontRole::Small, name, w - 16), t.text, FontRole::Small, 0.5f, 0.5f);
    at[buf] = ImVec2(x + w * 0.5f, top);
    x += w;
  }
  for (int l = 0; l < 32; ++l)
    if (r.lane_active(l) && at.count(r.buffer_of(l))) {
      const auto& [a, b] = lanes[size_t(l)];
      sc.line(ImVec2((a.x + b.x) * 0.5f, b.y), at[r.buffer_of(l)], with_alpha(lane_color(l), 170), 1.2f);
    }
  sc.text(ImVec2(0, top + box_h + 8),
          fit_text(FontRole::Small, "another CTA's shared memory: no sectors or bank wavefronts are modelled for it", size.x),
          t.text_dim, FontRole::Small);
}

// The global diagram's key at `ly`: swatches and words placed by their measured widths,
// as many as fit `width`: lanes past their array's end (a fault) first, where there are.
void sector_legend(Scene& sc, float ly, float width, bool past, bool bare_numbers) {
  const Theme& t = theme();
  const float lab = font_for(FontRole::Small)->FontSize + 4;
  const float sw = std::round(lab * 0.7f), sp = std::round(lab * 0.4f);
  float lx = 0;
  auto entry = [&](int kind, const char* words) {
    const float w = (kind == 2 ? sw * 2 : sw) + sp + text_size(FontRole::Small, words).x;
    if (lx + w > width) return;
    const float cy = ly + lab * 0.5f - 2;
    if (kind == 2) {
      sc.line(ImVec2(lx, cy), ImVec2(lx + sw * 2, cy), t.line128, 3);
    } else if (kind == 4) {
      sc.rect(ImVec2(lx, cy - sw * 0.5f), ImVec2(lx + sw, cy + sw * 0.5f), t.text_dim, 1.5f, 2);
    } else if (kind == 3) {
      sc.fill(ImVec2(lx, cy - sw * 0.5f), ImVec2(lx + sw, cy + sw * 0.5f), lane_color(8), 2);
      sc.line(ImVec2(lx, cy + sw * 0.5f), ImVec2(lx + sw, cy - sw * 0.5f), t.bad, 2);
      sc.rect(ImVec2(lx - 1, cy - sw * 0.5f - 1), ImVec2(lx + sw + 1, cy + sw * 0.5f + 1), t.bad, 1.5f, 2);
    } else {
      sc.fill(ImVec2(lx, cy - sw * 0.5f), ImVec2(lx + sw, cy + sw * 0.5f), kind == 0 ? lane_color(8) : kWaste, 2);
    }
    sc.text(ImVec2(lx + (kind == 2 ? sw * 2 : sw) + sp, ly), words, t.text_dim, FontRole::Small);
    lx += w + sp * 3;
  };
  if (past) entry(3, "past the array's end");
  entry(0, "requested");
  entry(1, "fetched, not used");
  entry(2, "one 128-byte line");
  if (bare_numbers) entry(4, "#n: sector n");
}

void global_diagram(Scene& sc, const RequestFigures& rv, ImVec2 size) {
  const Theme& t = theme();
  const trace::Record& r = *rv.rec;
  const float lab = font_for(FontRole::Small)->FontSize + 4;
  const float lane_h = std::clamp(size.y * 0.08f, 14.0f, 26.0f);
  const bool phased = rv.phases > 1;
  float y = lab + (phased ? lab + 6 : 0);
  const bool bulk = rv.site && (rv.site->form == trace::Form::BulkRead || rv.site->form == trace::Form::BulkWrite);
  auto lanes = lane_row(sc, r, 0, 32, 0, size.x, y, lane_h, true, bulk ? "piece" : "lane");
  if (phased) {
    // float4: each quarter-warp fills one 128-byte line on its own.
    const int lpp = 32 / int(rv.phases);
    for (int ph = 0; ph < int(rv.phases); ++ph) {
      float a = lanes[size_t(ph * lpp)].first.x, b = lanes[size_t(ph * lpp + lpp - 1)].second.x;
      float by = lab + 2;
      sc.line(ImVec2(a, by + 4), ImVec2(b, by + 4), t.text_dim, 1.5f);
      sc.line(ImVec2(a, by + 4), ImVec2(a, by + 9), t.text_dim, 1.5f);
      sc.line(ImVec2(b, by + 4), ImVec2(b, by + 9), t.text_dim, 1.5f);
      sc.text(ImVec2((a + b) * 0.5f, by + 2), "phase " + std::to_string(ph), t.text_dim, FontRole::Small, 0.5f, 1);
    }
  }
  y += lane_h;

  const auto& sectors = rv.sectors;
  if (sectors.empty()) return;
  const int n = int(sectors.size());
  const int per_row = std::clamp(n, 4, 16);
  const int rows = (n + per_row - 1) / per_row;
  // A row of sectors needs a box, its numbers under it and the next row's line bracket
  // above that: where two rows do not fit so, the lane connectors give up height first,
  // then every row but the last goes without its numbers.
  const float need = 10 + 3 + lab + 6;
  float conn = std::clamp(size.y * 0.22f, 40.0f, 110.0f);
  if (rows > 1 && (size.y - y - conn - 2 * lab) / float(rows) < need)
    conn = std::max(24.0f, size.y - y - 2 * lab - float(rows) * need);
  const float top = y + conn;
  const float row_h = std::min(84.0f, (size.y - top - 2 * lab) / float(rows));
  const bool numbered_rows = rows == 1 || row_h >= need;
  const float box_h = std::max(10.0f, numbered_rows ? row_h - lab - 4 : row_h - 9);
  const float bw = size.x / float(per_row);
  const float slot_w = (bw - 6) / 8;  // a slot per 4 bytes

  // Where each lane's first byte landed, for the connector.
  std::vector<ImVec2> target(32, ImVec2(-1, -1));
  float line_start = 0;
  bool any_past = false, bare_numbers = false;
  NumberRow sector_numbers;
  for (int i = 0; i < n; ++i) {
    const analysis::SectorBytes& sector = sectors[size_t(i)];
    int row = i / per_row, col = i % per_row;
    float x = float(col) * bw, yy = top + float(row) * row_h;
    // A lane's colour where requested, grey where fetched for nothing; a slot past the end
    // of its lane's array (a fault) struck through in red, its sector rimmed in red.
    bool past = false;
    for (int s = 0; s < 8; ++s) {
      int lane = sector.lane[size_t(s * 4)];
      ImVec2 a(x + 3 + float(s) * slot_w, yy), b(x + 3 + float(s + 1) * slot_w - 1, yy + box_h);
      sc.fill(a, b, lane >= 0 ? lane_color(lane) : kWaste, 2);
      if (lane >= 0 && slot_past_end(rv, lane, sector.sector * analysis::kSectorBytes + uint64_t(s) * 4)) {
        past = true;
        sc.line(ImVec2(a.x, b.y), ImVec2(b.x, a.y), t.bad, 2);
      }
    }
    sc.rect(ImVec2(x + 2, yy - 1), ImVec2(x + bw - 2, yy + box_h + 1), past ? t.bad : t.sector, past ? 2.5f : 1.5f, 3);
    any_past |= past;
    char lbl[32];
    std::snprintf(lbl, sizeof lbl, "#%llu", (unsigned long long)sector.sector);
    if (col == 0) {
      bare_numbers |= sector_numbers.bare;
      sector_numbers = NumberRow{};
      sector_numbers.half_box = bw * 0.5f;
    }
    if ((numbered_rows || row == rows - 1) && (text_size(FontRole::Small, lbl).x + 4 <= bw || col % 4 == 0))
      sector_numbers.put(sc, "sector", lbl, x + bw * 0.5f, yy + box_h + 3, 0);
    for (int lane : sector.lane) {
      if (lane < 0 || target[size_t(lane)].x >= 0) continue;
      const uint64_t first = r.offset[lane];
      if (analysis::sector_of(first) == sector.sector)
        target[size_t(lane)] = ImVec2(x + 3 + (float(first % analysis::kSectorBytes) / 4 + 0.5f) * slot_w, yy);
    }
    // 128-byte lines: a bracket under runs of sectors of one line on one row.
    const uint64_t line = analysis::line_of_sector(sector.sector);
    if (col == 0 || i == 0 || analysis::line_of_sector(sectors[size_t(i - 1)].sector) != line) line_start = x;
    const bool last_of_line =
        i + 1 == n || analysis::line_of_sector(sectors[size_t(i + 1)].sector) != line || col == per_row - 1;
    if (last_of_line) sc.line(ImVec2(line_start + 3, yy - 5), ImVec2(x + bw - 3, yy - 5), t.line128, 3);
  }
  for (int lane = 0; lane < 32; ++lane) {
    if (!r.lane_active(lane) || target[size_t(lane)].x < 0) continue;
    const auto& box = lanes[size_t(lane)];
    ImVec2 from((box.first.x + box.second.x) * 0.5f, box.second.y + 1);
    sc.line(from, ImVec2(target[size_t(lane)].x, target[size_t(lane)].y - 6), lane_color(lane, 170), 1.5f);
  }
  // Legend right under the sectors it explains.
  bare_numbers |= sector_numbers.bare;
  const float last_label = top + float(rows - 1) * row_h + box_h + 3 + font_for(FontRole::Small)->FontSize;
  sector_legend(sc, std::min(size.y - lab + 2, last_label + 6), size.x, any_past, bare_numbers);
}

void shared_diagram(Scene& sc, const RequestFigures& rv, ImVec2 size) {
  const Theme& t = theme();
  const trace::Record& r = *rv.rec;
  const int phases = int(rv.phases);
  const int lpp = 32 / phases;  // lanes per phase
  const float lab = font_for(FontRole::Small)->FontSize + 4;
  const float region_h = size.y / float(phases);
  // Phases stacked in a short diagram lose numbers before they lose shapes: first the
  // lane numbers (the phase's title names its lanes), then the bank numbers of every
  // phase but the last (every phase has the same 32 banks).
  const float lane_h = std::clamp(region_h * 0.07f, 12.0f, 24.0f);
  const float shapes = lane_h + 26 + 8;  // lanes, the least connectors, a low box
  const bool lane_numbers = phases == 1 || region_h >= 3 * lab + shapes + 4;
  const bool every_bank_row = phases == 1 || region_h >= (lane_numbers ? 3 : 2) * lab + shapes + 4;
  // The last row's numbers, too, need the connectors and boxes to keep some room above them.
  const bool last_bank_row = phases == 1 || region_h - (lane_numbers ? 2 : 1) * lab - lane_h - 4 - lab >= 16;
  auto word = rv.banks.begin();  // sorted by phase, bank, word
  for (int ph = 0; ph < phases; ++ph) {
    const float y0 = float(ph) * region_h;
    const bool bank_numbers = every_bank_row || (ph == phases - 1 && last_bank_row);
    float y = y0 + (lane_numbers ? lab : 0) + (phases > 1 ? lab : 0);
    float title_end = 0;  // where the phase's title ends (its n-way may follow it)
    if (phases > 1) {
      char b[64];
      std::snprintf(b, sizeof b, "phase %d · lanes %d–%d", ph, ph * lpp, ph * lpp + lpp - 1);
      sc.text(ImVec2(0, y0), b, t.text, FontRole::Small);
      title_end = text_size(FontRole::Small, b).x;
    }
    const float lanes_top = y;
    // Lanes above the banks they would hit in a conflict-free pattern: a phase's lanes
    // cover 128 bytes, so each sits over its own 4 (float4) or 2 (8-byte) banks.
    const bool bulk = rv.site && (rv.site->form == trace::Form::BulkRead || rv.site->form == trace::Form::BulkWrite);
    auto lanes = lane_row(sc, r, ph * lpp, lpp, 0, size.x, y, lane_h, lane_numbers, bulk ? "piece" : "lane");
    y += lane_h;
    // This phase's distinct words, and the n-way of each bank.
    const auto first = word;
    while (word != rv.banks.end() && int(word->phase) == ph) ++word;
    const auto last = word;
    uint32_t way = 1;
    std::array<uint32_t, 32> in_bank{};
    for (auto w = first; w != last; ++w) {
      way = std::max(way, w->way);
      in_bank[w->bank] = w->way;
    }
    const float bottom = y0 + region_h - (bank_numbers ? lab : 0) - 4;
    const float conn = std::min(std::clamp(region_h * 0.22f, 26.0f, 90.0f), std::max(8.0f, bottom - y - 8));
    const float top = y + conn;
    const float bw = size.x / 32.0f;
    const float box_h = std::clamp((bottom - top) / float(way), 2.0f, 22.0f);
    // Bank columns, the worst ones tinted.
    NumberRow bank_row;
    for (uint32_t b = 0; b < 32; ++b) {
      float x = float(b) * bw;
      if (way > 1 && in_bank[b] == way) sc.fill(ImVec2(x, top - 2), ImVec2(x + bw - 1, bottom + 2), with_alpha(t.bad, 50), 2);
      sc.line(ImVec2(x + 1, bottom + 2), ImVec2(x + bw - 2, bottom + 2), t.text_dim, 1);
      if (bank_numbers && b % uint32_t(label_every(bw)) == 0)
        bank_row.put(sc, "bank", std::to_string(b), x + bw * 0.5f, bottom + 4, 0);
    }
    std::vector<ImVec2> target(32, ImVec2(-1, -1));
    int k = 0;  // the word's place in its bank's column
    for (auto w = first; w != last; ++w) {
      k = w != first && std::prev(w)->bank == w->bank ? k + 1 : 0;
      const float x = float(w->bank) * bw;
      // Stack from the bottom: the column's height is the n-way.
      ImVec2 a(x + 2, bottom - float(k + 1) * box_h + 1), c(x + bw - 3, bottom - float(k) * box_h - 1);
      sc.fill(a, c, lane_color(std::countr_zero(w->lanes)), box_h >= 6 ? 2 : 0);
      const int readers = std::popcount(w->lanes);
      if (readers > 1) {
        sc.rect(a, c, IM_COL32(255, 255, 255, 230), 1.5f, 2);
        const std::string n = "×" + std::to_string(readers);
        const ImVec2 ns = text_size(FontRole::Small, n);
        if (ns.x <= c.x - a.x && ns.y <= c.y - a.y + 2)  // only where it fits inside the box
          sc.text(ImVec2((a.x + c.x) * 0.5f, (a.y + c.y) * 0.5f), n, IM_COL32(10, 12, 16, 255), FontRole::Small, 0.5f, 0.5f);
      }
      for (uint32_t bits = w->lanes; bits; bits &= bits - 1) {
        const int lane = std::countr_zero(bits);
        if (target[size_t(lane)].x < 0) target[size_t(lane)] = ImVec2((a.x + c.x) * 0.5f, a.y);
      }
    }
    for (int lane = ph * lpp; lane < ph * lpp + lpp; ++lane) {
      if (!r.lane_active(lane) || target[size_t(lane)].x < 0) continue;
      const auto& box = lanes[size_t(lane - ph * lpp)];
      ImVec2 from((box.first.x + box.second.x) * 0.5f, box.second.y + 1);
      sc.line(from, target[size_t(lane)], lane_color(lane, 150), 1.5f);
    }
    if (way > 1) {
      // Name the conflict above the first worst column; where that would climb over the
      // lanes and the phase's title (phases stacked in a short diagram), after the title.
      const std::string label = std::to_string(way) + "-way";
      const ImVec2 ls = text_size(FontRole::Bold, label);
      const float label_y = bottom - float(way) * box_h - 3;
      if (label_y - ls.y < lanes_top + lane_h && phases > 1) {
        sc.text(ImVec2(title_end + 8, y0), label, t.bad, FontRole::Small);
      } else {
        for (auto w = first; w != last; ++w)
          if (w->way == way) {
            float x = float(w->bank) * bw + bw * 0.5f;
            const float half = ls.x * 0.5f + 2;
            sc.text(ImVec2(std::clamp(x, half, std::max(half, size.x - half)), std::max(label_y, lanes_top + lane_h + ls.y)),
                    label, t.bad, FontRole::Bold, 0.5f, 1);
            break;
          }
      }
    }
  }
}

// An ldmatrix / stmatrix: its four 8x8 matrices one above the other, each a phase of 8
// lanes. A lane names one 16-byte row of its matrix, which covers 4 banks: each row is a
// bar over its banks, and rows whose banks meet are stacked (the stack's height is the
// matrix's wavefronts) and rimmed in red.
void matrix_diagram(Scene& sc, const RequestFigures& rv, ImVec2 size) {
  const Theme& t = theme();
  const float lab = font_for(FontRole::Small)->FontSize + 4;
  // Four matrices one over another; where that would not keep their lanes (a short panel,
  // 1280x720), two columns of two, each over its own 32 banks.
  const uint32_t n = uint32_t(rv.matrix.size());
  const uint32_t cols = n == 4 && size.y < matrix_min_height(1) && size.x >= kMatrixTwoColumns ? 2 : 1;
  const float col_gap = cols > 1 ? 18.0f : 0.0f;
  const float rw = (size.x - col_gap * float(cols - 1)) / float(cols);
  const float region_h = size.y / float((n + cols - 1) / cols);
  const float bw = rw / 32.0f;
  // A short region keeps the bars (the answer) and gives up first the bank numbers of all
  // but the last matrix, then the lane boxes and their connectors.
  const float head = std::max(lab, font_for(FontRole::Bold)->FontSize + 4);
  const bool every_bank_row = region_h >= head + 64 + lab;
  // The last matrix carries the bank numbers where the others do not; the lane boxes go
  // for all four or none, by the last one's room, so no matrix loses its lanes alone.
  const bool last_numbers = every_bank_row || region_h >= head + 24 + lab;
  const float last_room = region_h - (last_numbers ? lab : 0) - 3 - head;
  // One lane height for all four, tall enough for a lane's name ("L24") at any type size.
  const float lane_min = font_for(FontRole::Small)->FontSize + 2;
  const bool lanes = last_room >= lane_min + 20;
  const float lane_h = lanes ? std::clamp(last_room * 0.22f, lane_min, std::max(lane_min, 20.0f)) : 0.0f;
  for (const analysis::MatrixPhase& p : rv.matrix) {
    const float x0 = float(p.matrix % cols) * (rw + col_gap), y0 = float(p.matrix / cols) * region_h;
    char title[96], brief[96], least[64];
    if (p.wavefronts == 0) {
      std::snprintf(title, sizeof title, "matrix %u · lanes %u–%u · not read", p.matrix, 8 * p.matrix, 8 * p.matrix + 7);
      std::snprintf(brief, sizeof brief, "%s", title);
      std::snprintf(least, sizeof least, "matrix %u · not read", p.matrix);
    } else {
      const char* unit = p.wavefronts == 1 ? "wavefront" : "wavefronts";
      std::snprintf(title, sizeof title, "matrix %u · lanes %u–%u → rows 0–7 · %u %s", p.matrix, 8 * p.matrix,
                    8 * p.matrix + 7, p.wavefronts, unit);
      // (in a column of two, without the rows: every ldmatrix row is a lane's)
      std::snprintf(brief, sizeof brief, "matrix %u · lanes %u–%u · %u %s", p.matrix, 8 * p.matrix, 8 * p.matrix + 7,
                    p.wavefronts, unit);
      std::snprintf(least, sizeof least, "matrix %u · %u %s", p.matrix, p.wavefronts, unit);
    }
    const std::string way = p.wavefronts > 1 ? std::to_string(p.wavefronts) + "-way" : "";
    const float way_w = way.empty() ? 0 : text_size(FontRole::Bold, way).x + 12;
    if (text_size(FontRole::Small, title).x > rw - way_w) std::snprintf(title, sizeof title, "%s", brief);
    if (text_size(FontRole::Small, title).x > rw - way_w) std::snprintf(title, sizeof title, "%s", least);
    if (text_size(FontRole::Small, title).x > rw - way_w) std::snprintf(title, sizeof title, "matrix %u", p.matrix);
    sc.text(ImVec2(x0, y0), fit_text(FontRole::Small, title, rw - way_w), p.wavefronts > 1 ? t.bad : t.text,
            FontRole::Small);
    if (!way.empty()) sc.text(ImVec2(x0 + rw, y0), way, t.bad, FontRole::Bold, 1, 0);
    // Lanes: one box per row of the matrix, over the banks a conflict-free row would take.
    // Every matrix keeps the numbers' room, drawn or not, so that all four stacks have one
    // scale (a matrix's wavefronts are compared by their height).
    const bool bank_numbers = every_bank_row || (p.matrix + cols >= n && last_numbers);
    const float bottom = y0 + region_h - (last_numbers ? lab : 0) - 3;
    const float room = bottom - y0 - head;
    const float lane_y = y0 + head;
    const float lw = rw / 8.0f;
    const float top = lane_y + lane_h + (lanes ? std::clamp(room * 0.2f, 8.0f, 40.0f) : 0.0f);
    const float bar_h = std::min(20.0f, std::max(1.0f, bottom - top) / float(std::max(1u, p.wavefronts)));
    NumberRow bank_row;
    bank_row.left = x0;
    for (uint32_t b = 0; b < 32; ++b) {
      const float x = x0 + float(b) * bw;
      sc.line(ImVec2(x + 1, bottom + 2), ImVec2(x + bw - 2, bottom + 2), t.text_dim, 1);
      if (bank_numbers && b % 4 == 0) bank_row.put(sc, "bank", std::to_string(b), x + bw * 0.5f, bottom + 4, 0);
    }
    std::map<uint32_t, ImVec4> stacks;  // by first bank: the box of a stack of thin bars that meet
    for (uint32_t row = 0; row < 8; ++row) {
      const analysis::MatrixRow& mr = p.rows[row];
      const ImVec2 la(x0 + float(row) * lw + 1, lane_y), lb(x0 + float(row + 1) * lw - 2, lane_y + lane_h);
      if (!mr.active) {
        if (lanes) sc.rect(la, lb, kInactive, 1, 3);
        continue;
      }
      if (lanes) sc.fill(la, lb, lane_color(int(mr.lane)), 3);
      const std::string name = "lane " + std::to_string(mr.lane) + " · row " + std::to_string(row);
      // The name as long as the box holds: "lane 9 · row 1", "L9", or the number alone, the
      // same form for every lane ("L10" and up overflowed a narrow box: they were left out,
      // matrices 2 and 3 bare).
      const float box_w = lb.x - la.x;
      const bool prefixed = text_size(FontRole::Small, "L31").x + 4 <= box_w;
      const std::string shorter = (prefixed ? "L" : "") + std::to_string(mr.lane);
      const std::string& fits = text_size(FontRole::Small, name).x + 6 <= box_w ? name : shorter;
      if (lanes && text_size(FontRole::Small, fits).x + 4 <= lb.x - la.x && text_size(FontRole::Small, fits).y <= lane_h + 2)
        sc.text(ImVec2((la.x + lb.x) * 0.5f, (la.y + lb.y) * 0.5f), fits, IM_COL32(10, 12, 16, 255), FontRole::Small, 0.5f, 0.5f);
      // The row's bar: its 4 banks, stacked above the rows before it that meet it.
      const uint32_t level = uint32_t(std::popcount(mr.shares & ((1u << row) - 1)));
      const float yb = bottom - float(level) * bar_h;
      const bool wraps = mr.first_bank + 4 > 32;  // a misaligned row runs past bank 31
      const float xa = x0 + float(mr.first_bank) * bw + 2, xb = x0 + float(wraps ? 32 : mr.first_bank + 4) * bw - 3;
      const float gap = bar_h >= 4 ? 1.0f : 0.0f;
      sc.fill(ImVec2(xa, yb - bar_h + gap), ImVec2(xb, yb - gap), lane_color(int(mr.lane)), bar_h >= 6 ? 2 : 0);
      // Each row that meets another rimmed; bars too thin for a rim of their own share one
      // around their stack, drawn once its top is known.
      if (mr.shares && bar_h >= 6) sc.rect(ImVec2(xa, yb - bar_h + gap), ImVec2(xb, yb - gap), t.bad, 1.5f, 2);
      if (mr.shares && bar_h < 6) {
        auto& box = stacks[mr.first_bank];
        box = box.z == 0 ? ImVec4(xa, yb - bar_h, xb, yb) : ImVec4(box.x, std::min(box.y, yb - bar_h), box.z, box.w);
      }
      const std::string r = "row " + std::to_string(row);
      if (text_size(FontRole::Small, r).x + 4 <= xb - xa && text_size(FontRole::Small, r).y <= bar_h + 2)
        sc.text(ImVec2((xa + xb) * 0.5f, yb - bar_h * 0.5f), r, IM_COL32(10, 12, 16, 255), FontRole::Small, 0.5f, 0.5f);
      if (lanes)
        sc.line(ImVec2((la.x + lb.x) * 0.5f, lb.y + 1), ImVec2((xa + xb) * 0.5f, yb - bar_h), lane_color(int(mr.lane), 150), 1.5f);
    }
    for (const auto& [bank, box] : stacks)
      sc.rect(ImVec2(box.x - 1, box.y - 1), ImVec2(box.z + 1, box.w + 1), t.bad, 1.5f, 2);
  }
}

}  // namespace

namespace {

std::vector<Card> cards_of(const RequestFigures& rv) {
  const Theme& t = theme();
  char v[64], c[96];
  std::vector<Card> hl;
  if (!rv.modelled) {
    // Another CTA's shared memory: what the request did, never a cost.
    std::snprintf(v, sizeof v, "%d", rv.active_lanes);
    hl.push_back({v, "lanes into another CTA", t.accent});
    const uint64_t bytes = uint64_t(rv.active_lanes) * (rv.site ? std::max<uint32_t>(1, rv.site->bytes) : 1);
    hl.push_back({fmt_bytes(bytes), "asked for", t.text});
    hl.push_back({"—", "no cost model", t.text_dim});
  } else if (rv.shared) {
    const auto& s = rv.s;
    std::snprintf(v, sizeof v, "%u-way", s.max_way);
    hl.push_back({v, s.max_way <= 1 ? "no bank conflict" : "bank conflict",
                  s.max_way <= 1 ? t.good : s.max_way <= 4 ? t.warn : t.bad});
    std::snprintf(v, sizeof v, "%u", s.wavefronts);
    std::snprintf(c, sizeof c, "wavefronts (ideal %u)", s.ideal_wavefronts);
    hl.push_back({v, c, cost_color(analysis::cost_ratio(s))});
    const int shared_lanes = std::popcount(rv.broadcast);
    std::snprintf(v, sizeof v, "%d", shared_lanes);
    hl.push_back({v, shared_lanes ? "lanes share a word" : "no broadcast", shared_lanes ? t.accent : t.text_dim});
  } else {
    const auto& g = rv.g;
    std::snprintf(v, sizeof v, "%u", g.sectors);
    std::snprintf(c, sizeof c, "%s (ideal %u) · %u %s", g.sectors == 1 ? "sector" : "sectors", g.ideal_sectors, g.lines,
                  g.lines == 1 ? "line" : "lines");
    hl.push_back({v, c, cost_color(analysis::cost_ratio(g))});
    // As lessons and reports round it: a whole number, or one decimal (12.5%).
    const double pct = g.efficiency * 100;
    std::snprintf(v, sizeof v, std::abs(pct - std::round(pct)) < 0.05 ? "%.0f%%" : "%.1f%%", pct);
    // Coloured by sectors against the ideal: a broadcast uses 4 of 32 bytes and is still
    // the best any pattern could do.
    hl.push_back({v, "efficiency", cost_color(analysis::cost_ratio(g))});
    std::snprintf(v, sizeof v, "%s", fmt_bytes(uint64_t(g.sectors) * 32).c_str());
    std::snprintf(c, sizeof c, "moved for %s used", fmt_bytes(g.bytes_requested).c_str());
    hl.push_back({v, c, t.text});
  }
  return hl;
}

// How much of the panel's text a layout keeps; the diagram takes what is left.
struct Detail {
  int code_lines;   // the instruction's source text
  bool detail;      // "line 60 · array tile · 4 B per lane · …"
  bool cards;       // big figures with captions (else one line of them)
  bool compact;     // the one line of figures
  int why_lines;    // the plain-language reason
};
constexpr Detail kDetails[] = {
    {2, true, true, false, 3}, {1, true, true, false, 2}, {1, false, true, false, 2}, {1, false, false, true, 2},
    {1, false, false, true, 1}, {1, false, false, true, 0}, {0, false, false, true, 0},
};

// Lays the text part of the panel out from y = 0 with detail `d`; returns its height.
float panel_text(Scene* sc, const RequestFigures& rv, float w, const Detail& d) {
  const Theme& t = theme();
  const trace::Site& site = *rv.site;
  const float gap = std::round(font_for(FontRole::Small)->FontSize * 0.5f);
  float y = 0;
  if (d.code_lines > 0) {
    const std::string kind = std::string(trace::to_string(site.space)) + " " + trace::to_string(site.op);
    const float kw = text_size(FontRole::Mono, kind + "  ").x;
    const float lh = font_for(FontRole::Mono)->FontSize + 2;
    auto code = wrap_text(FontRole::Mono, site.code.empty() ? "(no source)" : site.code, std::max(40.0f, w - kw),
                          d.code_lines);
    if (sc) sc->text(ImVec2(0, y), kind, t.accent, FontRole::Mono);
    for (const auto& l : code) {
      if (sc) sc->text(ImVec2(kw, y), l, t.text, FontRole::Mono);
      y += lh;
    }
    if (code.empty()) y += lh;
    y += gap * 0.5f;
  }
  if (d.detail) {
    char b[200];
    const bool bulk = site.form == trace::Form::BulkRead || site.form == trace::Form::BulkWrite;
    if (bulk)  // one thread's TMA or bulk copy: its box kept 512 bytes a record, in pieces, not lanes
      std::snprintf(b, sizeof b, "line %u · array %s · one thread's bulk copy: %u bytes of it here, as %d pieces of %u B",
                    site.line, rv.buffer ? rv.buffer->name.c_str() : "?", unsigned(site.bytes) * unsigned(rv.active_lanes),
                    rv.active_lanes, unsigned(site.bytes));
    else
      std::snprintf(b, sizeof b, "line %u · array %s · %u B per lane · %d of 32 lanes active%s", site.line,
                    rv.buffer ? rv.buffer->name.c_str() : "?", unsigned(site.bytes), rv.active_lanes,
                    rv.past_end ? (", " + std::to_string(std::popcount(rv.past_end)) + " past its end").c_str() : "");
    if (sc) sc->text(ImVec2(0, y), fit_text(FontRole::Ui, b, w), rv.past_end ? t.bad : t.text_dim, FontRole::Ui);
    y += font_for(FontRole::Ui)->FontSize + gap;
    // An async copy's two halves in time: where the other one is.
    if (const std::string pt = partner_text(rv); !pt.empty()) {
      if (sc) sc->text(ImVec2(0, y), fit_text(FontRole::Ui, pt, w), t.accent, FontRole::Ui);
      y += font_for(FontRole::Ui)->FontSize + gap;
    }
  }
  const auto cards = cards_of(rv);
  if (d.cards) {
    y += cards_scene(sc, cards, y, w) + gap;
  } else if (d.compact) {
    // value caption · value caption …, as many as fit.
    float x = 0;
    for (size_t i = 0; i < cards.size(); ++i) {
      const Card& c = cards[i];
      const std::string sep = i ? " · " : "";
      const float vw = text_size(FontRole::Bold, sep + c.value + " ").x, cw = text_size(FontRole::Ui, c.caption).x;
      if (x + vw + cw > w) break;
      if (sc) {
        sc->text(ImVec2(x, y), sep + c.value + " ", c.color, FontRole::Bold);
        sc->text(ImVec2(x + vw, y + 1), c.caption, t.text_dim, FontRole::Ui);
      }
      x += vw + cw;
    }
    y += font_for(FontRole::Bold)->FontSize + gap;
  }
  if (d.why_lines > 0 && !rv.why.empty()) {
    const float pad = gap, lh = font_for(FontRole::Ui)->FontSize + 2;
    auto lines = wrap_text(FontRole::Ui, rv.why, std::max(40.0f, w - 3 * pad - 3), d.why_lines);
    const float h = float(lines.size()) * lh + 2 * pad;
    if (sc) {
      sc->fill(ImVec2(0, y), ImVec2(w, y + h), with_alpha(t.accent, 28), 4);
      sc->fill(ImVec2(0, y), ImVec2(3, y + h), t.accent);
      for (size_t i = 0; i < lines.size(); ++i)
        sc->text(ImVec2(3 + 1.5f * pad, y + pad + float(i) * lh), lines[i], t.text, FontRole::Ui);
    }
    y += h + gap;
  }
  return std::ceil(y);
}

}  // namespace


void warp_veil_scene(Scene& sc, const RequestFigures& rv, const std::string& prompt, ImVec2 size) {
  const Theme& t = theme();
  sc.size = size;
  // The instruction's line and its code over the box, where the box still fits under them
  // (a short panel keeps the box, then the line, then nothing but "Predict first").
  const float bold_h = font_for(FontRole::Bold)->FontSize + 4, code_h = font_for(FontRole::Mono)->FontSize + 10;
  const float least_box = 12 * 2 + font_for(FontRole::Big)->FontSize + 6;
  const bool with_code = rv.site && bold_h + code_h + least_box <= size.y, with_what = rv.site && bold_h + least_box <= size.y;
  if (!with_what && size.y < least_box) {
    if (size.y >= bold_h - 4) sc.text(ImVec2(0, 0), fit_text(FontRole::Bold, "Predict first", size.x), t.accent, FontRole::Bold);
    return;
  }
  float y = 0;
  if (with_what) {
    const std::string what = std::string(rv.buffer ? rv.buffer->name : "?") + " " + trace::to_string(rv.site->op) +
                             " (" + trace::to_string(rv.site->space) + ") · line " + std::to_string(rv.site->line);
    sc.text(ImVec2(0, y), fit_text(FontRole::Bold, what, size.x), t.text, FontRole::Bold);
    y += bold_h;
  }
  if (with_code) {
    sc.text(ImVec2(0, y), fit_text(FontRole::Mono, rv.site->code, size.x), t.text_dim, FontRole::Mono);
    y += code_h;
  }
  // The question in a box, the rest of the panel kept for the answer.
  const float pad = 12, inner = std::max(20.0f, size.x - 2 * pad);
  std::vector<std::string> lines = wrap_text(FontRole::Ui, prompt, inner, 6);
  const float line_h = font_for(FontRole::Ui)->FontSize + 3;
  const float big = font_for(FontRole::Big)->FontSize;
  std::vector<std::string> foot = wrap_text(
      FontRole::Small, "Answer in the lesson panel: the lanes, sectors and banks appear here then.", inner, 3);
  const float small_h = font_for(FontRole::Small)->FontSize + 2;
  auto height = [&] { return pad * 2 + big + 6 + line_h * float(lines.size()) + 6 + small_h * float(foot.size()); };
  // A short panel (a lesson in presentation, beside the lesson's own question) keeps the
  // box whole: the question goes first, then the footnote shortens.
  if (y + height() > size.y) lines.clear();
  if (y + height() > size.y) foot = {fit_text(FontRole::Small, "Answer in the lesson panel.", inner)};
  if (y + height() > size.y) foot.clear();
  const float box_h = height();
  const float y0 = std::max(y, std::round((size.y - box_h) * 0.4f));
  sc.fill(ImVec2(0, y0), ImVec2(size.x, y0 + box_h), with_alpha(t.accent, 28), 6);
  sc.rect(ImVec2(0, y0), ImVec2(size.x, y0 + box_h), with_alpha(t.accent, 160), 1.5f, 6);
  float yy = y0 + pad;
  sc.text(ImVec2(pad, yy), "Predict first", t.accent, FontRole::Big);
  yy += big + 6;
  for (const std::string& l : lines) {
    sc.text(ImVec2(pad, yy), l, t.text, FontRole::Ui);
    yy += line_h;
  }
  yy += 6;
  for (const std::string& l : foot) {
    sc.text(ImVec2(pad, yy), l, t.text_dim, FontRole::Small);
    yy += small_h;
  }
}

float warp_panel_min_height() {
  // The tightest of kDetails that keeps a source line (one line of code, one of figures),
  // and the least diagram.
  const float gap = std::round(font_for(FontRole::Small)->FontSize * 0.5f);
  const float text = font_for(FontRole::Mono)->FontSize + 2 + gap * 0.5f + font_for(FontRole::Bold)->FontSize + gap;
  return std::ceil(text) + font_for(FontRole::Small)->FontSize * 9.5f + 8;
}

float warp_min_diagram_height(ImVec2 size) {
  return std::min(size.y, std::max(size.y * 0.45f, font_for(FontRole::Small)->FontSize * 9.5f));
}

// The least height of an ldmatrix's four matrices with their lanes named, their bars and
// the bank numbers under the last row (matrix_diagram's measures), in `cols` columns: the
// words above give way to it first.
float matrix_min_height(uint32_t cols) {
  const float lab = font_for(FontRole::Small)->FontSize + 4;
  const float head = std::max(lab, font_for(FontRole::Bold)->FontSize + 4);
  const float lanes = font_for(FontRole::Small)->FontSize + 2;
  return float(4 / cols) * (head + lanes + 24 + 3 + lab);  // (each region as tall as the last, which has the numbers)
}

SceneBox warp_panel_scene(Scene& sc, const RequestFigures& rv, ImVec2 size) {
  sc.size = size;
  if (!rv.rec || !rv.site) return {};
  // An ldmatrix asks for its whole picture where the panel can give it with the least text.
  float want = warp_min_diagram_height(size);
  if (!rv.matrix.empty()) {
    const float room = size.y - panel_text(nullptr, rv, size.x, kDetails[std::size(kDetails) - 1]);
    if (room >= matrix_min_height(1)) want = std::max(want, matrix_min_height(1));
    else if (size.x >= kMatrixTwoColumns && room >= matrix_min_height(2)) want = std::max(want, matrix_min_height(2));
  }
  const Detail* pick = &kDetails[std::size(kDetails) - 1];
  for (const Detail& d : kDetails)
    if (size.y - panel_text(nullptr, rv, size.x, d) >= want) {
      pick = &d;
      break;
    }
  const float top = panel_text(&sc, rv, size.x, *pick);
  const ImVec2 dsize(size.x, std::max(1.0f, size.y - top));
  Scene d;
  warp_scene(d, rv, dsize);
  sc.append(d, ImVec2(0, top));
  return {ImVec2(0, top), ImVec2(size.x, size.y)};
}

void warp_scene(Scene& sc, const RequestFigures& rv, ImVec2 size) {
  if (!rv.rec || !rv.site) return;
  sc.size = size;
  if (!rv.modelled && rv.trace)
    cluster_diagram(sc, rv, *rv.trace, size);
  else if (!rv.matrix.empty())
    matrix_diagram(sc, rv, size);
  else if (rv.shared)
    shared_diagram(sc, rv, size);
  else
    global_diagram(sc, rv, size);
}

}  // namespace ws::ui
