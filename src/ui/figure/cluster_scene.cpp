// src/ui/figure/cluster_scene.cpp — Cluster view: the thread block cluster of the current
// request's block, its CTAs as boxes by rank (x across, y and z down), and between them
// arrows for what each CTA read, wrote or updated in another's shared memory (distributed
// shared memory, over the recorded requests: how many requests, how many bytes), the
// current request's own arrow drawn bold with its lanes, and the TMA boxes multicast into
// a CTA that did not issue them, fanned out from the CTAs that did. No cost is drawn for
// distributed shared memory: the key says so.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "analysis/cluster.h"
#include "ui/figure/theme.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

namespace {

// "lanes 0–31", "lanes 0–15, 20".
std::string lane_list(uint32_t mask) {
  std::string s;
  for (int l = 0; l < 32;) {
    if (!((mask >> l) & 1u)) {
      ++l;
      continue;
    }
    int e = l;
    while (e + 1 < 32 && ((mask >> (e + 1)) & 1u)) ++e;
    s += (s.empty() ? "" : ", ") + std::to_string(l) + (e > l ? "–" + std::to_string(e) : "");
    l = e + 1;
  }
  return (std::popcount(mask) == 1 ? "lane " : "lanes ") + s;
}

// An arrow from a to b (its head at b), `offset` pixels to the left of its direction (two
// arrows between one pair of boxes do not overlap), from the edge of the box (half-size
// `half`) around a to that around b. Returns its middle; `side` the unit normal on its
// offset's side.
ImVec2 arrow(Scene& sc, ImVec2 a, ImVec2 b, float offset, ImVec2 half, ImU32 c, float width, ImVec2* side = nullptr) {
  const float dx = b.x - a.x, dy = b.y - a.y, len = std::max(1.0f, std::sqrt(dx * dx + dy * dy));
  const float ux = dx / len, uy = dy / len, nx = -uy, ny = ux;
  const float gap = std::min(std::abs(ux) > 1e-3f ? half.x / std::abs(ux) : 1e9f, std::abs(uy) > 1e-3f ? half.y / std::abs(uy) : 1e9f) + 6;
  if (side) *side = offset < 0 ? ImVec2(-nx, -ny) : ImVec2(nx, ny);
  const ImVec2 p(a.x + ux * gap + nx * offset, a.y + uy * gap + ny * offset);
  const ImVec2 q(b.x - ux * gap + nx * offset, b.y - uy * gap + ny * offset);
  sc.line(p, q, c, width);
  const float h = 6 + width * 2;
  sc.line(q, ImVec2(q.x - ux * h + nx * h * 0.6f, q.y - uy * h + ny * h * 0.6f), c, width);
  sc.line(q, ImVec2(q.x - ux * h - nx * h * 0.6f, q.y - uy * h - ny * h * 0.6f), c, width);
  return ImVec2((p.x + q.x) * 0.5f, (p.y + q.y) * 0.5f);
}

// `text` beside an arrow's middle on its `side`, `away` pixels out.
void label(Scene& sc, ImVec2 mid, ImVec2 side, float away, const std::string& text, float width, ImU32 c) {
  const ImVec2 p(mid.x + side.x * away, mid.y + side.y * away);
  sc.text(p, fit_text(FontRole::Small, text, width), c, FontRole::Small, 0.5f, side.y < -0.5f ? 1.0f : side.y > 0.5f ? 0.0f : 0.5f);
}

// "12 loads · 3 stores · 1.5 KiB".
std::string link_text(const analysis::ClusterLink& k) {
  std::string s;
  auto part = [&](uint64_t n, const char* one, const char* many) {
    if (n) s += (s.empty() ? "" : " · ") + fmt_count(n) + " " + (n == 1 ? one : many);
  };
  part(k.loads, "load", "loads");
  part(k.stores, "store", "stores");
  part(k.atomics, "atomic", "atomics");
  return s + " · " + fmt_bytes(k.bytes);
}

// One cluster drawn into a scene: the heading, the boxes, the arrows and their words, the key.
class ClusterDrawing {
 public:
  ClusterDrawing(Scene& sc, const trace::Trace& tr, uint64_t step, ImVec2 size)
      : sc_(sc), tr_(tr), size_(size), cur_(tr.records[step]), c_(analysis::cluster_of(tr, cur_.block, step)) {
    small_ = font_for(FontRole::Small)->FontSize;
  }

  void draw() {
    heading();
    layout();
    boxes();
    arrows();
    words();
    key();
  }

 private:
  struct Words {
    uint32_t a, b;
    ImVec2 mid, side;
    float base;
    std::string text;
    ImU32 colour;
  };

  // Which cluster, its shape, the current request's CTA and where its lanes went.
  void heading() {
    char head[160];
    std::snprintf(head, sizeof head, "cluster %u of %u · %u×%u×%u CTAs · this request: rank %u (block %u)", c_.index + 1,
                  c_.clusters, c_.dims.x, c_.dims.y, c_.dims.z, analysis::cluster_rank(tr_.launch(), cur_.block), cur_.block);
    std::string h = head;
    for (uint32_t to = 0; to < c_.lanes_to.size(); ++to)
      if (c_.lanes_to[to]) h += " → rank " + std::to_string(to) + ", " + lane_list(c_.lanes_to[to]);
    sc_.text(ImVec2(0, 0), fit_text(FontRole::Small, h, size_.x), theme().text_dim, FontRole::Small);
    const Theme& t = theme();
    keys_.clear();  // each key where the view draws its kind (a multicast alone draws no DSM arrow)
    if (!c_.links.empty())
      keys_.push_back({"another CTA's shared memory (distributed shared memory): requests and bytes; no cost model", t.accent});
    if (!c_.fanouts.empty()) keys_.push_back({"TMA boxes multicast into a CTA from the CTAs that issued them", t.warn});
    if (std::any_of(c_.lanes_to.begin(), c_.lanes_to.end(), [](uint32_t m) { return m != 0; }))
      keys_.push_back({"this request's lanes", t.playhead});
  }

  // The boxes: x across, y and z down, as large as the room allows; a row too long for the
  // width wraps, rank after rank. In one row, an arrow between CTAs that are not neighbours
  // goes over the boxes between them, at a level of its own per direction and kind.
  void layout() {
    const float ui = font_for(FontRole::Ui)->FontSize;
    key_h_ = float(keys_.size()) * (small_ + 4) + 6;
    y_ = small_ + 8;
    float room_h = std::max(40.0f, size_.y - y_ - key_h_);
    cols_ = c_.dims.x, rows_ = c_.dims.y * c_.dims.z;
    const float least_box = 96, least_gap = 150;
    if (const uint32_t fit = std::max(1u, uint32_t((size_.x + least_gap) / (least_box + least_gap))); cols_ > fit) {
      cols_ = fit;
      rows_ = uint32_t((c_.ctas.size() + cols_ - 1) / cols_);
    }
    // Several rows list the arrows' words under the boxes: room for a few of those lines.
    size_t nwords = c_.links.size() + size_t(std::count_if(c_.lanes_to.begin(), c_.lanes_to.end(), [](uint32_t m) { return m; }));
    for (const analysis::ClusterFanout& f : c_.fanouts) nwords += f.from.size();
    gap_y_ = rows_ > 1 ? 40 : 0;
    const float list_room = rows_ > 1 ? float(std::min<size_t>(nwords, 4)) * (small_ + 3) + 12 : 0;
    // Short of height, the rows of boxes come closer, then the key gives its room up (the
    // boxes and their arrows are the figure; at 1280x720 they ran into the key).
    const float least_bh = ui + small_ + 10;
    auto boxes_need = [&] { return least_bh * float(rows_) + gap_y_ * float(rows_ - 1) + list_room; };
    if (rows_ > 1 && boxes_need() > room_h) gap_y_ = std::max(small_ + 8, gap_y_ - (boxes_need() - room_h) / float(rows_ - 1));
    if (boxes_need() > room_h && !keys_.empty()) {
      room_h = std::max(40.0f, room_h + key_h_);
      keys_.clear();
      key_h_ = 0;
    }
    // Two CTAs side by side (the common cluster): a wider gap, so that the words of the
    // arrows between them fit on one line.
    gap_x_ = cols_ > 2 ? std::clamp(size_.x * 0.22f, least_gap, 320.0f)
             : cols_ == 2 ? std::clamp(size_.x * 0.4f, least_gap, 640.0f)
                          : 0;
    bw_ = std::clamp((size_.x - gap_x_ * float(cols_ - 1)) / float(cols_), least_box * 0.6f, 220.0f);
    bh_ = std::clamp((room_h - list_room - gap_y_ * float(rows_ - 1)) / float(rows_), ui + small_ + 10, 100.0f);
    for (const analysis::ClusterLink& k : c_.links)
      if (over(k.from, k.to)) level_.emplace(std::tuple{k.from, k.to, 0}, int(level_.size()));
    for (const analysis::ClusterFanout& f : c_.fanouts)
      for (uint32_t from : f.from)
        if (over(from, f.to)) level_.emplace(std::tuple{from, f.to, 1}, int(level_.size()));
    level_h_ = small_ + 12;
    const float levels_h = float(level_.size()) * level_h_;
    const float boxes_h = bh_ * float(rows_) + gap_y_ * float(rows_ - 1);
    y_ += std::max(0.0f, (room_h - list_room - boxes_h - levels_h) * 0.4f) + levels_h;
    list_y_ = y_ + boxes_h + 10;
  }

  bool over(uint32_t a, uint32_t b) const { return rows_ == 1 && (a > b ? a - b : b - a) > 1; }

  void boxes() {
    const Theme& t = theme();
    const float total_w = bw_ * float(cols_) + gap_x_ * float(cols_ - 1), x0 = std::max(0.0f, (size_.x - total_w) * 0.5f);
    centre_.assign(c_.ctas.size(), ImVec2(0, 0));
    const uint32_t own = analysis::cluster_rank(tr_.launch(), cur_.block);
    for (const analysis::ClusterCta& cta : c_.ctas) {
      const float bx = x0 + float(cta.rank % cols_) * (bw_ + gap_x_), by = y_ + float(cta.rank / cols_) * (bh_ + gap_y_);
      centre_[cta.rank] = ImVec2(bx + bw_ * 0.5f, by + bh_ * 0.5f);
      sc_.fill(ImVec2(bx, by), ImVec2(bx + bw_, by + bh_), cta.recorded ? t.cell_empty : t.canvas, 4);
      sc_.rect(ImVec2(bx, by), ImVec2(bx + bw_, by + bh_), cta.rank == own ? t.accent : with_alpha(t.text_dim, 120),
               cta.rank == own ? 2.0f : 1.0f, 4);
      const trace::Dim3 b = tr_.launch().block_coords(cta.block);
      char sub[64];
      std::snprintf(sub, sizeof sub, "block (%u,%u,%u)%s", b.x, b.y, b.z, cta.recorded ? "" : " · not recorded");
      sc_.text(ImVec2(bx + bw_ * 0.5f, by + bh_ * 0.5f - 2), "rank " + std::to_string(cta.rank), t.text, FontRole::Ui, 0.5f,
               1.0f);
      sc_.text(ImVec2(bx + bw_ * 0.5f, by + bh_ * 0.5f + 2), fit_text(FontRole::Small, sub, bw_ - 6), t.text_dim,
               FontRole::Small, 0.5f, 0.0f);
    }
  }

  // A bracket from a over the row down into b at level `lv`; its words over its middle.
  void bracket(uint32_t a, uint32_t b, int lv, ImU32 colour, float width, const std::string& what, ImU32 text) {
    const float dir = b > a ? 1.0f : -1.0f, top = y_;
    const float xa = centre_[a].x + dir * bw_ * 0.22f, xb = centre_[b].x - dir * bw_ * 0.22f;
    const float yl = top - 10 - float(lv) * level_h_;
    sc_.line(ImVec2(xa, top), ImVec2(xa, yl), colour, width);
    sc_.line(ImVec2(xa, yl), ImVec2(xb, yl), colour, width);
    sc_.line(ImVec2(xb, yl), ImVec2(xb, top - 1), colour, width);
    const float h = 6 + width * 2;
    sc_.line(ImVec2(xb, top - 1), ImVec2(xb - h * 0.6f, top - 1 - h), colour, width);
    sc_.line(ImVec2(xb, top - 1), ImVec2(xb + h * 0.6f, top - 1 - h), colour, width);
    if (!what.empty())
      sc_.text(ImVec2((xa + xb) * 0.5f, yl - 2), fit_text(FontRole::Small, what, std::abs(xb - xa) - 8), text,
               FontRole::Small, 0.5f, 1.0f);
  }

  // The recorded requests between CTAs, then the multicasts, then this request (drawn over
  // its link, its lanes in the heading).
  void arrows() {
    const Theme& t = theme();
    const ImVec2 half(bw_ * 0.5f, bh_ * 0.5f);
    float widest = 1;
    for (const analysis::ClusterLink& k : c_.links) widest = std::max(widest, float(k.loads + k.stores + k.atomics));
    for (const analysis::ClusterLink& k : c_.links) {
      const float wdt = 1.5f + 3.0f * std::log1p(float(k.loads + k.stores + k.atomics)) / std::log1p(widest);
      if (over(k.from, k.to)) {
        bracket(k.from, k.to, level_[{k.from, k.to, 0}], with_alpha(t.accent, 210), wdt, link_text(k), t.text);
        continue;
      }
      ImVec2 side;
      const ImVec2 mid = arrow(sc_, centre_[k.from], centre_[k.to], 8, half, with_alpha(t.accent, 210), wdt, &side);
      words_.push_back({k.from, k.to, mid, side, 6 + wdt, link_text(k), t.text});
    }
    for (const analysis::ClusterFanout& f : c_.fanouts)
      for (uint32_t from : f.from) {
        char what[128];
        // Over the launch: its boxes and their bytes ("4 boxes of 4.0 KiB"), not one copy's.
        if (f.copies > 1 && f.bytes % f.copies == 0)
          std::snprintf(what, sizeof what, "TMA multicast, line %u · %llu boxes of %s", f.line,
                        static_cast<unsigned long long>(f.copies), fmt_bytes(f.bytes / f.copies).c_str());
        else
          std::snprintf(what, sizeof what, "TMA multicast, line %u · %s", f.line, fmt_bytes(f.bytes).c_str());
        if (over(from, f.to)) {
          bracket(from, f.to, level_[{from, f.to, 1}], t.warn, 2, what, t.warn);
          continue;
        }
        ImVec2 side;
        const ImVec2 mid = arrow(sc_, centre_[from], centre_[f.to], -8, half, t.warn, 2, &side);
        words_.push_back({from, f.to, mid, side, 8, what, t.warn});
      }
    for (uint32_t to = 0; to < c_.lanes_to.size(); ++to)
      if (c_.lanes_to[to]) {
        if (auto lv = level_.find({c_.request_from, to, 0}); lv != level_.end())
          bracket(c_.request_from, to, lv->second, t.playhead, 3, "", t.playhead);
        else
          arrow(sc_, centre_[c_.request_from], centre_[to], 8, half, t.playhead, 3);
      }
  }

  // In one row, each arrow's words beside it (each further out than the last one on the
  // same side of the same pair of CTAs, as wide as the gap); in several, where arrows cross
  // rows, the words are a list under the boxes, each line in its arrow's colour.
  void words() {
    const Theme& t = theme();
    if (rows_ == 1) {
      std::map<std::tuple<uint32_t, uint32_t, int>, int> stacked;
      for (const Words& w : words_) {
        const int k = stacked[{std::min(w.a, w.b), std::max(w.a, w.b), w.side.y > 0 ? 1 : -1}]++;
        const float width = std::max(60.0f, std::abs(centre_[w.b].x - centre_[w.a].x) - bw_ - 8);
        label(sc_, w.mid, w.side, w.base + float(k) * (small_ + 3), w.text, width, w.colour);
      }
    } else {
      const float bottom = size_.y - key_h_;
      for (size_t i = 0; i < words_.size(); ++i) {
        if (list_y_ + small_ > bottom) break;  // (no room even to say how many more)
        if (list_y_ + 2 * small_ + 3 > bottom && i + 1 < words_.size()) {
          sc_.text(ImVec2(0, list_y_), "… " + std::to_string(words_.size() - i) + " more (enlarge the panel)", t.text_dim,
                   FontRole::Small);
          break;
        }
        const Words& w = words_[i];
        const std::string line = "rank " + std::to_string(w.a) + " → rank " + std::to_string(w.b) + ": " + w.text;
        sc_.line(ImVec2(0, list_y_ + small_ * 0.5f), ImVec2(18, list_y_ + small_ * 0.5f),
                 w.colour == t.text ? t.accent : w.colour, 2);
        sc_.text(ImVec2(24, list_y_), fit_text(FontRole::Small, line, size_.x - 24), w.colour, FontRole::Small);
        list_y_ += small_ + 3;
      }
    }
    // Nothing between the CTAs: said under the boxes where it clears the key (at 1280x720 it
    // was drawn over it), else left to the key and the boxes.
    if (c_.links.empty() && c_.fanouts.empty() && list_y_ + small_ + 2 <= size_.y - key_h_)
      sc_.text(ImVec2(size_.x * 0.5f, list_y_ + small_ * 0.5f),
               fit_text(FontRole::Small, "no CTA of this cluster reached another's shared memory in the recorded requests",
                        size_.x),
               t.text_dim, FontRole::Small, 0.5f, 0.5f);
  }

  void key() {
    float ky = size_.y - key_h_ + 6;
    for (const auto& [what, colour] : keys_) {
      sc_.line(ImVec2(0, ky + small_ * 0.5f), ImVec2(18, ky + small_ * 0.5f), colour, 2);
      sc_.text(ImVec2(24, ky), fit_text(FontRole::Small, what, size_.x - 24), theme().text_dim, FontRole::Small);
      ky += small_ + 4;
    }
  }

  Scene& sc_;
  const trace::Trace& tr_;
  ImVec2 size_;
  const trace::Record& cur_;
  analysis::Cluster c_;
  float small_ = 0, key_h_ = 0, y_ = 0, list_y_ = 0;
  uint32_t cols_ = 1, rows_ = 1;
  float gap_x_ = 0, gap_y_ = 0, bw_ = 0, bh_ = 0, level_h_ = 0;
  std::vector<std::pair<std::string, ImU32>> keys_;
  std::map<std::tuple<uint32_t, uint32_t, int>, int> level_;
  std::vector<ImVec2> centre_;
  std::vector<Words> words_;
};

}  // namespace

bool has_cluster(const Session& m) { return m.trace().launch().cluster.count() > 1; }

void cluster_scene(Scene& sc, const Session& m, uint64_t step, ImVec2 size) {
  sc.size = size;
  const trace::Trace& tr = m.trace();
  if (!has_cluster(m) || tr.records.empty()) {
    sc.text(ImVec2(0, 0), "this launch has no thread block clusters", theme().text_dim, FontRole::Small);
    return;
  }
  ClusterDrawing(sc, tr, std::min<uint64_t>(step, tr.records.size() - 1), size).draw();
}


}  // namespace ws::ui
