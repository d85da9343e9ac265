// Timing: the plain kernels of the family on screen, timed at a realistic size — live on
// this machine's GPU when there is one, else from the replay pack (labelled with the
// device and date it was recorded on). Says so plainly when there are no timings at all.
#include <algorithm>
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
  const Model* m = ui.pane.model.get();
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
    const TimingTable* tbl = nullptr;
    const TimingSample* s = ui.timings.find(k.id, ui.state.params, &tbl);
    rows.push_back({&k, s, tbl});
    if (s && !source) source = tbl;
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
  const bool compute = cur && cur->flops && cur->flops(catalog::Params{}) > 0;
  ImGui::TextDisabled("%s, plain kernels at a realistic size", compute ? "GFLOP/s" : "GB/s");
  ImGui::Spacing();

  // Bars: one per variant of the family, the current one highlighted.
  double mx = 0;
  for (const auto& r : rows)
    if (r.s) mx = std::max(mx, compute ? r.s->gflops : r.s->gbps);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float w = ImGui::GetContentRegionAvail().x;
  ImFont* small = font_for(FontRole::Small);
  for (const auto& r : rows) {
    const bool here = r.k->id == ui.state.kernel;
    ImVec2 a = ImGui::GetCursorScreenPos();
    const float lh = ImGui::GetTextLineHeight();
    ImGui::PushStyleColor(ImGuiCol_Text, here ? t.text : t.text_dim);
    ImGui::TextUnformatted(r.k->id.c_str());
    ImGui::PopStyleColor();
    ImVec2 b(a.x, a.y + lh + 2);
    const float bar_h = lh * 0.9f;
    if (r.s) {
      double v = compute ? r.s->gflops : r.s->gbps;
      float len = mx > 0 ? float(v / mx) * (w - 4) : 0;
      dl->AddRectFilled(b, ImVec2(b.x + w - 4, b.y + bar_h), IM_COL32(44, 50, 63, 255), 3);
      dl->AddRectFilled(b, ImVec2(b.x + std::max(2.0f, len), b.y + bar_h), here ? t.accent : with_alpha(t.accent, 110), 3);
      char txt[128];
      int n = std::snprintf(txt, sizeof txt, "%.0f %s · %.3f ms", v, compute ? "GFLOP/s" : "GB/s", r.s->ms);
      if (r.s->pct_ref >= 0 && n > 0)
        std::snprintf(txt + n, sizeof txt - size_t(n), " · %.0f%% of %s", r.s->pct_ref,
                      r.s->ref.empty() ? (compute ? "cuBLAS" : "device copy") : r.s->ref.c_str());
      dl->AddText(small, small->FontSize, ImVec2(b.x + 6, b.y + (bar_h - small->FontSize) * 0.5f), t.text, txt);
    } else {
      dl->AddText(small, small->FontSize, ImVec2(b.x, b.y), t.text_dim, "not timed");
    }
    ImGui::Dummy(ImVec2(w, bar_h + 6));
  }

  // History of the current kernel.
  std::vector<float> hist;
  auto lh = ui.timings.live_history.find(ui.state.kernel);
  if (lh != ui.timings.live_history.end())
    for (double x : lh->second) hist.push_back(float(x));
  else
    for (const auto& r : rows)
      if (r.k->id == ui.state.kernel && r.s) {
        for (double x : r.s->history) hist.push_back(float(x));
        if (hist.empty() || hist.back() != float(r.s->ms)) hist.push_back(float(r.s->ms));
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
