// Timing: the plain kernels of the family on screen, timed at a realistic size — live on
// this machine's GPU when there is one, else from the replay pack (labelled with the
// device and date it was recorded on). Says so plainly when there are no timings at all.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ui/theme.h"
#include "ui/ui.h"

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

}  // namespace

void timing_view(Ui& ui) {
  const Theme& t = theme();
  const Session* m = ui.pane.model.get();
  if (m && !m->from_gpu) banner("Trace emulated on CPU: exact steps, no measured time.", t.warn);

  const catalog::KernelInfo* cur = catalog::find(ui.state.kernel);
  std::string family = cur ? cur->family : "";
  struct Row {
    const catalog::KernelInfo* k;
    const TimingSample* s;
    const TimingTable* table;
  };
  std::vector<Row> rows;
  const TimingTable* source = nullptr;
  for (const auto& k : catalog::all()) {
    if (k.family != family) continue;
    // The parameters this variant would run with (pad, tile, ... as on screen).
    std::map<std::string, int64_t> set;
    for (const auto& p : k.params)
      if (auto it = ui.state.params.find(p.name); it != ui.state.params.end()) set[p.name] = it->second;
    catalog::Params resolved;
    if (!catalog::resolve(k, 0, set, resolved).empty()) resolved.values = set;
    const TimingTable* tbl = nullptr;
    const TimingSample* s = ui.timings.find(k.id, resolved.values, &tbl);
    rows.push_back({&k, s, tbl});
    if (s && (!source || k.id == ui.state.kernel)) source = tbl;
  }

  if (!source) {
    ImGui::PushFont(font_for(FontRole::Bold));
    ImGui::TextUnformatted("No timings yet");
    ImGui::PopFont();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled(ui.live_timer.available()
                            ? (ui.live_timer.busy() ? "timing the plain kernels on this GPU…" : "waiting for the GPU")
                            : "No GPU here and no replay pack in assets/replay/ for this family. `warpscope bench` "
                              "on a machine with a GPU writes the figures a replay pack holds.");
    ImGui::PopTextWrapPos();
    if (!ui.timings.message.empty()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.warn), "%s", ui.timings.message.c_str());
    return;
  }

  // Where the figures come from.
  if (source->origin == "live")
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.good), "live · %s", source->device.c_str());
  else
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.accent), "replayed · %s · %s", source->device.c_str(),
                       source->date.substr(0, 10).c_str());
  // Compute kernels are measured against cuBLAS, memory kernels against a device copy.
  bool compute = false;
  for (const auto& r : rows) compute |= r.s && r.s->ref == "cuBLAS";
  if (compute && source->cublas_gflops > 0)
    ImGui::TextDisabled("GFLOP/s · cuBLAS SGEMM: %s GFLOP/s", fmt_count(uint64_t(source->cublas_gflops)).c_str());
  else if (!compute && source->copy_gbs > 0)
    ImGui::TextDisabled("GB/s · device-to-device copy: %s GB/s", fmt_count(uint64_t(source->copy_gbs)).c_str());
  else
    ImGui::TextDisabled("%s, plain kernels at a realistic size", compute ? "GFLOP/s" : "GB/s");
  ImGui::Spacing();

  // Bars: one per variant of the family, the current one highlighted.
  double mx = 0;
  for (const auto& r : rows)
    if (r.s) mx = std::max(mx, compute ? r.s->gflops : r.s->gbs);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float w = ImGui::GetContentRegionAvail().x;
  ImFont* small = font_for(FontRole::Small);
  // One line per variant: its name without the family's common prefix, then its bar.
  size_t prefix = std::string::npos;
  for (const auto& r : rows) {
    const std::string& id = r.k->id;
    size_t n = prefix == std::string::npos ? id.size() : std::min(prefix, id.size());
    size_t k = 0;
    while (k < n && id[k] == rows[0].k->id[k]) ++k;
    prefix = k;
  }
  if (prefix == std::string::npos || rows.size() < 2) prefix = 0;
  while (prefix > 0 && rows[0].k->id[prefix - 1] != '_') --prefix;
  const float label_w = std::round(w * 0.42f);
  const float lh = ImGui::GetTextLineHeight();
  for (const auto& r : rows) {
    const bool here = r.k->id == ui.state.kernel;
    ImVec2 a = ImGui::GetCursorScreenPos();
    std::string label = r.k->id.substr(prefix);
    if (r.s && !r.s->variant.empty()) label += " " + r.s->variant;
    ImGui::InvisibleButton(r.k->id.c_str(), ImVec2(w, lh + 4));
    if (r.s && ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::Text("%s%s%s: median %.3f ms", r.k->id.c_str(), r.s->variant.empty() ? "" : " ", r.s->variant.c_str(), r.s->ms);
      if (r.s->runs) ImGui::TextDisabled("%d runs, %.3f – %.3f ms", r.s->runs, r.s->ms_min, r.s->ms_max);
      if (auto it = r.s->params.find("size"); it != r.s->params.end()) ImGui::TextDisabled("size %lld", (long long)it->second);
      if (!r.s->note.empty()) ImGui::TextDisabled("%s", r.s->note.c_str());
      ImGui::EndTooltip();
    }
    dl->PushClipRect(a, ImVec2(a.x + label_w - 6, a.y + lh + 4), true);
    dl->AddText(ImVec2(a.x, a.y + 2), here ? t.text : t.text_dim, label.c_str());
    dl->PopClipRect();
    ImVec2 b(a.x + label_w, a.y + 2);
    const float bar_w = w - label_w - 4, bar_h = lh;
    if (r.s) {
      double v = compute ? r.s->gflops : r.s->gbs;
      float len = mx > 0 ? float(v / mx) * bar_w : 0;
      dl->AddRectFilled(b, ImVec2(b.x + bar_w, b.y + bar_h), IM_COL32(44, 50, 63, 255), 3);
      dl->AddRectFilled(b, ImVec2(b.x + std::max(2.0f, len), b.y + bar_h), here ? t.accent : with_alpha(t.accent, 110), 3);
      char txt[96];
      if (r.s->pct_ref >= 0)
        std::snprintf(txt, sizeof txt, "%.0f · %.0f%%", v, r.s->pct_ref);
      else
        std::snprintf(txt, sizeof txt, "%.0f", v);
      dl->AddText(small, small->FontSize, ImVec2(b.x + 5, b.y + (bar_h - small->FontSize) * 0.5f), t.text, txt);
    } else {
      dl->AddText(small, small->FontSize, ImVec2(b.x, b.y + (bar_h - small->FontSize) * 0.5f), t.text_dim, "not timed");
    }
  }
  ImGui::TextDisabled("bars: %s · %% of %s", compute ? "GFLOP/s" : "GB/s", compute ? "cuBLAS" : "device copy");

  // History of the current kernel.
  std::vector<float> hist;
  auto live_h = ui.timings.live_history.find(ui.state.kernel);
  if (live_h != ui.timings.live_history.end())
    for (double x : live_h->second) hist.push_back(float(x));
  else
    for (const auto& r : rows)
      if (r.k->id == ui.state.kernel && r.s) {
        for (double x : r.s->history) hist.push_back(float(x));
        if (hist.empty() || hist.back() != float(r.s->ms)) hist.push_back(float(r.s->ms));
      }
  for (const auto& r : rows)
    if (r.k->id == ui.state.kernel && r.s) {
      char b[160];
      if (r.s->runs)
        std::snprintf(b, sizeof b, "%s: %d runs, %.3f – %.3f ms", r.k->id.c_str(), r.s->runs, r.s->ms_min, r.s->ms_max);
      else
        std::snprintf(b, sizeof b, "%s: %.3f ms", r.k->id.c_str(), r.s->ms);
      ImGui::TextDisabled("%s", b);
      if (!r.s->note.empty()) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextDisabled("%s", r.s->note.c_str());
        ImGui::PopTextWrapPos();
      }
    }
  if (hist.size() >= 2) {
    ImGui::Spacing();
    ImGui::TextDisabled("history of %s (ms)", ui.state.kernel.c_str());
    ImGui::PlotLines("##hist", hist.data(), int(hist.size()), 0, nullptr, 0, FLT_MAX,
                     ImVec2(-1, std::max(30.0f, std::min(70.0f, ImGui::GetContentRegionAvail().y - 8))));
  }
  if (!ui.timings.message.empty()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.warn), "%s", ui.timings.message.c_str());
}

}  // namespace ws::ui
