// src/ui/catalog_view.cpp — Catalog & parameters: pick a kernel of a family, set its parameters; every change
// re-records in the background while the previous trace stays on screen. While a program is
// open the panel is the program's (program_panel.cpp).
#include <algorithm>
#include <cstdio>
#include <imgui.h>
#include <imgui_stdlib.h>
#include <set>

#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

namespace {

// Sizes offered in the size combo: powers of two (and the teaching size) in range.
std::vector<int64_t> size_choices(const catalog::KernelInfo& k) {
  std::set<int64_t> s;
  catalog::Params p;
  for (int64_t v = 16; v <= 4096; v *= 2)
    if (catalog::resolve(k, v, {}, p).empty()) s.insert(v);  // sizes the kernel (or its source) allows
  s.insert(k.teach_size);
  return {s.begin(), s.end()};
}

void section(const char* title) {
  ImGui::Spacing();
  ImGui::PushFont(fonts().bold ? fonts().bold : ImGui::GetFont());
  ImGui::TextUnformatted(title);
  ImGui::PopFont();
  ImGui::Separator();
}

// Families, then the variants of the chosen family as a ladder (a click records one).
void family_ladder(Ui& ui, const catalog::KernelInfo* cur) {
  UiState& s = ui.state;
  const Theme& t = theme();
  std::vector<std::string> families;
  for (const auto& k : catalog::all())
    if (std::find(families.begin(), families.end(), k.family) == families.end()) families.push_back(k.family);
  std::string family = cur ? cur->family : (families.empty() ? "" : families[0]);
  if (families.size() > 1) {
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##family", ("family: " + family).c_str())) {
      for (const auto& f : families)
        if (ImGui::Selectable(f.c_str(), f == family)) {
          for (const auto& k : catalog::all())
            if (k.family == f) {
              s.kernel = k.id;
              break;
            }
          ui.request_record();
        }
      ImGui::EndCombo();
    }
  } else {
    ImGui::TextDisabled("family: %s", family.c_str());
  }
  int rung = 0, family_size = 0;
  for (const auto& k : catalog::all()) family_size += k.family == family;
  const bool compact = family_size > 4;  // one line per kernel, so the parameters stay in view
  for (const auto& k : catalog::all()) {
    if (k.family != family) continue;
    ++rung;
    bool selected = k.id == s.kernel;
    ImGui::PushID(k.id.c_str());
    char label[16];
    std::snprintf(label, sizeof label, "%d", rung);
    ImVec2 p = ImGui::GetCursorScreenPos();
    float h = compact ? ImGui::GetTextLineHeight() + 6 : ImGui::GetTextLineHeight() * 2 + 8;
    if (ImGui::Selectable("##k", selected, 0, ImVec2(0, h))) {
      if (s.kernel != k.id) {
        s.kernel = k.id;
        ui.request_record();
      }
    }
    if (ImGui::IsItemHovered() && !k.lesson.empty()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
      ImGui::TextDisabled("%s", k.title.c_str());
      ImGui::TextUnformatted(k.lesson.c_str());
      for (const auto& src : k.sources)
        ImGui::TextDisabled("as taught: %s%s%s", src.text.c_str(), src.setting.empty() ? "" : ", with ",
                            src.setting.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    float r = ImGui::GetTextLineHeight() * (compact ? 0.45f : 0.62f);
    ImVec2 c(p.x + r + 2, p.y + h * 0.5f);
    dl->AddCircleFilled(c, r, selected ? t.accent : IM_COL32(60, 68, 84, 255), 20);
    ImFont* small = fonts().small ? fonts().small : ImGui::GetFont();
    ImFont* num = compact ? small : ImGui::GetFont();
    ImVec2 ls = num->CalcTextSizeA(num->FontSize, 1e9f, 0, label);
    dl->AddText(num, num->FontSize, ImVec2(c.x - ls.x * 0.5f, c.y - ls.y * 0.5f), t.text, label);
    float x = p.x + 2 * r + 12;
    ImFont* bold = fonts().bold ? fonts().bold : ImGui::GetFont();
    dl->AddText(bold, ImGui::GetFontSize(), ImVec2(x, p.y + 3), t.text, k.id.c_str());
    if (!compact) {
      dl->PushClipRect(ImVec2(x, p.y), ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowWidth() - 8, p.y + h), true);
      dl->AddText(ImVec2(x, p.y + 4 + ImGui::GetTextLineHeight()), t.text_dim, k.title.c_str());
      dl->PopClipRect();
    }
    ImGui::PopID();
  }
}

// The size, the kernel's own parameters and the blocks to record (a change re-records).
void parameters(Ui& ui, const catalog::KernelInfo* cur) {
  UiState& s = ui.state;
  const float label_w = ImGui::CalcTextSize("blocks ").x + 16;
  // size
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("size");
  ImGui::SameLine(label_w);
  int64_t size = s.size ? s.size : cur->teach_size;
  char cur_size[32];
  std::snprintf(cur_size, sizeof cur_size, "%lld", (long long)size);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##size", cur_size)) {
    for (int64_t v : size_choices(*cur)) {
      char b[48];
      std::snprintf(b, sizeof b, "%lld%s", (long long)v, v == cur->teach_size ? "  (teaching size)" : "");
      if (ImGui::Selectable(b, v == size)) {
        s.size = v == cur->teach_size ? 0 : v;
        ui.request_record();
      }
    }
    ImGui::EndCombo();
  }
  // the kernel's own parameters
  for (const auto& p : cur->params) {
    ImGui::PushID(p.name.c_str());
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(p.name.c_str());
    if (ImGui::IsItemHovered() && !p.help.empty()) ImGui::SetTooltip("%s", p.help.c_str());
    ImGui::SameLine(label_w);
    int64_t v = s.params.count(p.name) ? s.params[p.name] : p.def;
    if (!p.allowed.empty() && p.allowed.size() <= 6) {
      // A segmented choice: one click, and the values are visible.
      for (size_t i = 0; i < p.allowed.size(); ++i) {
        if (i) ImGui::SameLine(0, 4);
        bool on = p.allowed[i] == v;
        if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::ColorConvertU32ToFloat4(IM_COL32(48, 82, 130, 255)));
        char b[32];
        std::snprintf(b, sizeof b, "%lld", (long long)p.allowed[i]);
        if (ImGui::Button(b, ImVec2(ImGui::GetFrameHeight() * 1.6f, 0)) && !on) {
          s.params[p.name] = p.allowed[i];
          ui.request_record();
        }
        if (on) ImGui::PopStyleColor();
      }
      if (!p.help.empty()) {
        ImGui::SameLine();
        help_marker(p.help.c_str());
      }
    } else {
      int iv = int(v);
      ImGui::SetNextItemWidth(-1);
      if (ImGui::InputInt("##v", &iv, 1, 16, ImGuiInputTextFlags_EnterReturnsTrue)) {
        iv = int(std::clamp<int64_t>(iv, p.min, p.max));
        s.params[p.name] = iv;
        ui.request_record();
      }
      if (ImGui::IsItemHovered() && !p.help.empty()) ImGui::SetTooltip("%s", p.help.c_str());
    }
    ImGui::PopID();
  }
  // blocks
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("blocks");
  ImGui::SameLine(label_w);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputTextWithHint("##blocks", "every block (or e.g. 0-3,7)", &s.blocks, ImGuiInputTextFlags_EnterReturnsTrue))
    ui.request_record();
  if (ImGui::IsItemDeactivatedAfterEdit()) ui.request_record();
}

// What happened to the last recording: under way, failed (why), or what it holds.
void last_recording(Ui& ui) {
  const Theme& t = theme();
  // What happened to the last recording.
  ImGui::Spacing();
  if (ui.recorder.busy()) {
    const char* spin = "|/-\\";
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.accent), "%c recording… %.1f s", spin[int(ui.now() * 8) & 3],
                       ui.recorder.running_seconds());
  } else if (!ui.status.record_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, t.warn);
    ImGui::TextWrapped("%s", ui.status.record_error.c_str());
    ImGui::PopStyleColor();
  } else if (const Session* m = ui.pane.model.get()) {
    char b[200];
    std::snprintf(b, sizeof b, "%s requests · %s blocks · %s in %.2f s", fmt_count(m->size()).c_str(),
                  fmt_count(m->trace().launch().blocks.size()).c_str(), m->from_gpu() ? "recorded" : "emulated",
                  m->capture_seconds());
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", b);
    if (m->checked())
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.good), "✓ output matches the CPU reference");
    if (m->trace().launch().dropped_records)
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.warn), "%s records past the cap were dropped",
                         fmt_count(m->trace().launch().dropped_records).c_str());
    if (!m->note().empty()) ImGui::TextDisabled("%s", m->note().c_str());
    ImGui::PopTextWrapPos();
  }
}

}  // namespace

void catalog_view(Ui& ui) {
  // While a program is open the panel is the program's: a catalog kernel opens only when asked.
  if (ui.open_program_spec()) {
    program_panel(ui);
    return;
  }
  UiState& s = ui.state;
  const Theme& t = theme();
  const catalog::KernelInfo* cur = catalog::find(s.kernel);
  family_ladder(ui, cur);
  if (!cur) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.warn), "unknown kernel '%s'", s.kernel.c_str());
    return;
  }
  // The lessons that walk through this kernel, one click away.
  lesson_links(ui, cur->id);
  // The texts this kernel reproduces, what they claim, and the setting that matches them.
  source_refs(ui, *cur);

  section("Parameters");
  parameters(ui, cur);
  last_recording(ui);

  if (!cur->lesson.empty()) {
    section("What to look at");
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(cur->lesson.c_str());
    ImGui::PopTextWrapPos();
  }
}

void source_refs(Ui& ui, const catalog::KernelInfo& k) {
  if (k.sources.empty()) return;
  UiState& s = ui.state;
  const Theme& t = theme();
  section("As taught");
  // The launch the panel asks for (spec(): this kernel's own values), to tell which setting is on screen.
  catalog::Params now;
  const bool resolved = catalog::resolve(k, s.size, ui.spec().params, now).empty();
  ImGui::PushTextWrapPos(0);
  for (size_t i = 0; i < k.sources.size(); ++i) {
    const catalog::SourceRef& src = k.sources[i];
    ImGui::PushID(int(i));
    if (i) ImGui::Spacing();
    ImGui::TextUnformatted(src.text.c_str());
    // The setting that reproduces it: on screen now, or one click away.
    int64_t size = 0;
    const auto set = catalog::setting_values(src, size);
    const bool shown = resolved && catalog::reproduces(src, now);
    if (!src.setting.empty()) {
      if (shown) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.good), "✓ on screen: %s", src.setting.c_str());
      } else if (ImGui::SmallButton(("Show it: " + src.setting).c_str())) {
        for (const auto& [name, v] : set) s.params[name] = v;
        if (size) s.size = size == k.teach_size ? 0 : size;
        ui.request_record();
      }
    }
    if (!src.sizes.empty()) ImGui::TextDisabled("sizes: %s", src.sizes.c_str());
    if (!src.claim.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, t.accent);
      ImGui::TextWrapped("The source says: %s", src.claim.c_str());
      ImGui::PopStyleColor();
    }
    ImGui::PopID();
  }
  ImGui::PopTextWrapPos();
}

}  // namespace ws::ui
