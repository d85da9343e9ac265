// src/ui/program_panel.cpp — the catalog panel while a program is open: the program owns it.
// Its kernels, its launches (grid, block, and the GPU's time where the same code was timed;
// a click shows one), its arrays with their element types and shapes (a 1-D array's shape
// set here is kept beside the program), and the one explicit way to a catalog kernel.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <imgui.h>
#include <map>

#include "session/arrays.h"
#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

namespace {

void heading(const char* title) {
  ImGui::Spacing();
  ImGui::PushFont(fonts().bold ? fonts().bold : ImGui::GetFont());
  ImGui::TextUnformatted(title);
  ImGui::PopFont();
  ImGui::Separator();
}

std::string dim3_text(const trace::Dim3& d) {
  std::string s = "(" + std::to_string(d.x);
  if (d.y > 1 || d.z > 1) s += "," + std::to_string(d.y);
  if (d.z > 1) s += "," + std::to_string(d.z);
  return s + ")";
}

// The program's file, and the confirmed way back to the catalog (never a silent swap).
void program_head(Ui& ui, const session::LaunchSpec& spec) {
  ImGui::PushFont(fonts().bold ? fonts().bold : ImGui::GetFont());
  ImGui::TextUnformatted(std::filesystem::path(spec.program.source).filename().string().c_str());
  ImGui::PopFont();
  ImGui::PushTextWrapPos(0);
  std::string how;
  for (const auto& f : spec.program.nvcc_flags) how += " " + f;
  if (!spec.program.args.empty()) how += " --";
  for (const auto& a : spec.program.args) how += " " + a;
  ImGui::TextDisabled("%s%s", spec.program.source.c_str(), how.c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::SmallButton("Open a catalog kernel…")) ImGui::OpenPopup("##leave");
  if (ImGui::BeginPopup("##leave")) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 22);
    ImGui::Text("Close %s and record the catalog's %s?",
                std::filesystem::path(spec.program.source).filename().string().c_str(), ui.state.kernel.c_str());
    ImGui::TextDisabled("File → Open program… opens the program again.");
    ImGui::PopTextWrapPos();
    if (ImGui::Button("Open the catalog")) {
      ui.close_program();
      ui.request_record();
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
}

// Each launch: its kernel, grid and block, the GPU's time where the same code was timed
// (hidden once the file was edited since); a click shows it.
void launches(Ui& ui, const Session& m) {
  const Theme& t = theme();
  const trace::Trace& w = m.whole_trace();
  std::map<uint32_t, std::string> times;
  if (const std::optional<ProgramTimes> pt = ui.timing.program_times(m); pt && pt->edited.empty())
    for (const ProgramTimeRow& r : pt->rows)
      if (r.launch && !r.figures.empty()) times[r.launch] = r.figures.front();
  std::map<std::string, int> kernels;
  std::vector<std::string> order;
  for (const auto& l : w.launches)
    if (kernels[l.kernel]++ == 0) order.push_back(l.kernel);
  heading("Kernels");
  for (const auto& k : order)
    ImGui::Text("%s%s", k.c_str(), kernels[k] > 1 ? (" ×" + std::to_string(kernels[k])).c_str() : "");
  heading("Launches");
  for (uint32_t i = 0; i < w.launches.size(); ++i) {
    const trace::Launch& l = w.launches[i];
    // Wrapped between its parts, never inside one: number and kernel, shape, time.
    std::vector<std::string> parts{std::to_string(i + 1) + "  " + l.kernel,
                                   "<<<" + dim3_text(l.grid) + ", " + dim3_text(l.block) + ">>>"};
    if (auto it = times.find(i + 1); it != times.end()) parts.push_back(it->second);
    else if (!l.recorded) parts.push_back("(run, not recorded)");
    // The launch where the program stopped, or one that raced: marked as the Launch menu
    // marks it, in the stop colour (a click goes to what happened there).
    const program::Problem& p = ui.status.problem;
    const bool stopped = !p.empty() && p.kind != "race" && p.launch == i + 1;
    const bool raced = std::any_of(m.races().races.begin(), m.races().races.end(),
                                   [&](const program::Race& r) { return r.launch == i; });
    if (stopped) parts.push_back("· stopped here");
    else if (raced) parts.push_back("· races here");
    const ImVec2 a = ImGui::GetCursorScreenPos();
    ImGui::BeginGroup();
    flow_pieces(parts, stopped || raced ? t.bad : i == m.launch() ? t.text : t.text_dim);
    ImGui::EndGroup();
    const ImVec2 z(a.x + ImGui::GetContentRegionAvail().x, ImGui::GetItemRectMax().y);
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (i == m.launch()) dl->AddRectFilled(a, z, with_alpha(t.accent, 46), 3);
    else if (hovered) dl->AddRectFilled(a, z, with_alpha(t.accent, 24), 3);
    if (hovered && ImGui::IsMouseClicked(0) && stopped) ui.show_problem();
    else if (hovered && ImGui::IsMouseClicked(0) && i != m.launch()) ui.show_launch(i);
  }
  if (!ui.timing.edited(m).empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(t.warn), "The file changed since this run: shown is %s.",
                       ui.timing.edited(m).c_str());
    ImGui::PopTextWrapPos();
  }
}

// The shape editor of a 1-D array: ROWS x COLS, kept beside the program, and run again.
void shape_editor(Ui& ui, const session::LaunchSpec& spec, const session::ArrayRow& a) {
  static char text[48] = "";
  static std::string error;
  if (ImGui::SmallButton("shape…")) {
    std::snprintf(text, sizeof text, "%s", "");
    error.clear();
    ImGui::OpenPopup("##shape");
  }
  if (!ImGui::BeginPopup("##shape")) return;
  ImGui::Text("%s: rows x columns", a.name.c_str());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  const bool enter = ImGui::InputTextWithHint("##rc", "e.g. 64 x 64", text, sizeof text, ImGuiInputTextFlags_EnterReturnsTrue);
  if (!error.empty()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme().bad), "%s", error.c_str());
  if (ImGui::Button("Set") || enter) {
    unsigned long long r = 0, c = 0;
    char extra = 0;
    const uint32_t each = session::element_bytes(a.type);
    const uint64_t elements = a.size_bytes / (each ? each : 4);
    if (std::sscanf(text, " %llu x %llu %c", &r, &c, &extra) != 2 || !r || !c) {
      error = "write ROWS x COLS, e.g. 64 x 64";
    } else if (r * c != elements) {
      error = std::to_string(r) + " x " + std::to_string(c) + " is " + std::to_string(r * c) + " elements; " + a.name +
              " holds " + std::to_string(elements);
    } else if (!session::save_shape(spec.program.source, a.name, r, c, error)) {
    } else {
      ui.message(a.name + " is " + std::to_string(r) + " x " + std::to_string(c) + " (kept in " +
                 std::filesystem::path(session::shapes_file(spec.program.source)).filename().string() +
                 "): running the program again");
      ui.rerun_program();
      ImGui::CloseCurrentPopup();
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

// Each array once: name, element type, shape and where it came from, space and size.
void arrays(Ui& ui, const Session& m, const session::LaunchSpec& spec) {
  heading("Arrays");
  const std::vector<session::ArrayRow> rows = session::array_rows(m, ui.state.show_internal_arrays);
  ImGui::PushTextWrapPos(0);
  for (size_t i = 0; i < rows.size(); ++i) {
    const session::ArrayRow& a = rows[i];
    ImGui::PushID(int(i));
    ImGui::PushFont(fonts().bold ? fonts().bold : ImGui::GetFont());
    ImGui::TextUnformatted(a.name.c_str());
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::Text("%s%s%s", a.type.c_str(), a.type.empty() ? "" : " ", a.shape.c_str());
    std::string more = a.space + " · " + fmt_bytes(a.size_bytes);
    more += a.from.empty() ? (a.shape.find(" × ") == std::string::npos ? " · 1-D" : "") : " · shape: " + a.from;
    ImGui::TextDisabled("%s", more.c_str());
    // A 1-D global array (or one shaped here): its shape is the user's to set.
    const bool settable = a.space == "global" && !a.internal && (a.from.empty() || a.from == "set in the app");
    if (settable) {
      ImGui::SameLine();
      shape_editor(ui, spec, a);
    }
    ImGui::PopID();
  }
  ImGui::PopTextWrapPos();
  ImGui::Checkbox("the toolkit's buffers too", &ui.state.show_internal_arrays);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("printf's format strings ($str) and the threads' local frames");
}

// The emulated device's engine: the one the shown launch ran on, its time, and the choice
// (run again on the other; both give the same trace).
void engine(Ui& ui, const Session& m, const session::LaunchSpec& spec) {
  if (spec.backend == "gpu") return;
  heading("Engine");
  const trace::Launch& l = m.trace().launch();
  ImGui::PushTextWrapPos(0);
  if (!l.engine.empty() && l.seconds > 0)
    ImGui::TextDisabled("launch %u ran on the %s engine: %llu lane accesses in %.3f s", m.launch() + 1, l.engine.c_str(),
                        static_cast<unsigned long long>(l.lane_accesses), l.seconds);
  if (spec.program.engine == "compiled" && l.engine == "interpreter")
    ImGui::TextDisabled("(a module is compiled once its launches have run 0.3 s on the interpreter, then kept)");
  ImGui::PopTextWrapPos();
  for (const char* e : {"compiled", "interpreter"}) {
    if (ImGui::RadioButton(e, spec.program.engine == e) && spec.program.engine != e) ui.set_program_engine(e);
    ImGui::SameLine();
  }
  ImGui::NewLine();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("compiled: each module compiled to native code once (in the background, then cached);\n"
                      "interpreter: decoded PTX run an instruction at a time. Both give the same trace.");
}

}  // namespace

void program_panel(Ui& ui) {
  const session::LaunchSpec* spec = ui.open_program_spec();
  if (!spec) return;
  program_head(ui, *spec);
  const Session* m = ui.pane.model.get();
  if (ui.recorder.busy()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme().accent), "compiling and running… %.1f s",
                       ui.recorder.running_seconds());
  } else if (!ui.status.record_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, theme().warn);
    ImGui::TextWrapped("%s", ui.status.record_error.c_str());
    ImGui::PopStyleColor();
  }
  if (!m || m->origin() != "program") return;
  launches(ui, *m);
  arrays(ui, *m, *spec);
  engine(ui, *m, *spec);
  if (!m->note().empty()) {
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", m->note().c_str());
    ImGui::PopTextWrapPos();
  }
}

}  // namespace ws::ui
