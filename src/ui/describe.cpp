// src/ui/describe.cpp — The current request and the panels on screen as JSON: the app prints it with
// --windows-json, and the tests check it beside the screenshot.
#include <nlohmann/json.hpp>

#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

std::string Ui::describe_json() const {
  nlohmann::json j;
  j["kernel"] = state.kernel;
  j["step"] = session::request_number(pane.step);  // as the timeline and --step count
  j["settled"] = settled();
  nlohmann::json panels = nlohmann::json::array();
  for (const auto& d : drawn_) {
    nlohmann::json p = {{"key", panel_key(d.panel)},
                        {"title", panel_name(d.panel)},
                        {"side", d.b_side ? "B" : "A"},
                        {"rect", {d.min.x, d.min.y, d.max.x - d.min.x, d.max.y - d.min.y}}};
    if (d.diagram_max.x > d.diagram_min.x)
      p["diagram"] = {d.diagram_min.x, d.diagram_min.y, d.diagram_max.x - d.diagram_min.x,
                      d.diagram_max.y - d.diagram_min.y};
    panels.push_back(p);
  }
  j["panels"] = panels;
  auto rgb = [](ImU32 c) { return nlohmann::json::array({int(c & 255), int((c >> 8) & 255), int((c >> 16) & 255)}); };
  j["display"] = {int(ImGui::GetIO().DisplaySize.x), int(ImGui::GetIO().DisplaySize.y)};
  j["accent"] = rgb(theme().accent);
  j["background"] = rgb(theme().bg);
  j["cell_empty"] = rgb(theme().cell_empty);
  j["enlarged"] = state.enlarged >= 0 ? panel_key(Panel(state.enlarged)) : "";
  j["dram_preset"] = pane.model ? pane.model->report().dram.preset : state.dram.preset;
  j["present"] = state.present;
  j["font_size"] = ImGui::GetFontSize();
  j["theme"] = theme().light ? "light" : "dark";
  nlohmann::json slides_j = nlohmann::json::array();
  for (const auto& sl : slides.deck.slides)
    slides_j.push_back({{"kernel", sl.kernel}, {"variant", sl.variant_text()}, {"step", session::request_number(sl.step)}, {"view", sl.view},
                        {"caption", sl.caption}, {"on_screen", slides.on(sl, pane)}});
  j["slides"] = slides_j;
  j["slide_here"] = slides.at(pane);
  if (comparing()) {
    nlohmann::json c;
    c["spec"] = state.compare;
    const Pane &pa = side_pane(false), &pb = side_pane(true);  // beside a previous build, A is that build
    c["step_a"] = pa.step;
    if (pa.model && pb.model) {
      c["title_a"] = ab_names().a;
      c["title_b"] = ab_names().b;
      c["step_b"] = pb.step;
      c["records_b"] = pb.model->size();
      RequestFigures ra = pa.model->request(pa.step);
      RequestFigures rb = pb.model->request(pb.step);
      if (ra.rec && rb.rec && ra.site && rb.site) {
        c["locked"] = ra.rec->block == rb.rec->block && ra.rec->warp == rb.rec->warp && ra.site->line == rb.site->line;
        c["block"] = rb.rec->block;
        c["warp"] = rb.rec->warp;
        auto cost = [](const RequestFigures& r) {
          return !r.modelled ? nlohmann::json(nullptr)
                 : r.shared  ? nlohmann::json{{"max_way", r.s.max_way}}
                             : nlohmann::json{{"sectors", r.g.sectors}};
        };
        c["a"] = cost(ra);
        c["b"] = cost(rb);
      }
    }
    j["compare"] = c;
  }
  if (!status.problem.empty()) {
    const int64_t at = problem_step_on(pane);
    j["problem"] = {{"kind", status.problem.kind},
                    {"launch", status.problem.launch},
                    {"marked_request", at >= 0 ? nlohmann::json(session::request_number(uint64_t(at))) : nlohmann::json()}};
  }
  // The timing panel's ladder, as it draws it.
  const TimingLadder ladder = timing.ladder(state.kernel, state.params);
  if (ladder.table) {
    std::string rows, here;
    for (size_t i = 0; i < ladder.rows.size(); ++i) {
      const LadderRow& r = ladder.rows[i];
      const std::string label = r.name + (r.variant.empty() ? "" : " " + r.variant);
      rows += (rows.empty() ? "" : " | ") + label;
      if (int(i) == ladder.here) here = label;
    }
    j["timing"] = {{"origin", ladder.table->origin}, {"device", ladder.table->device}, {"date", ladder.table->date},
                   {"size", ladder.size},           {"unit", ladder.unit},             {"reference", ladder.ref},
                   {"rows", rows},                  {"here", here}};
  }
  if (pane.model) {
    const Session& m = *pane.model;
    j["title"] = m.title();
    j["provenance"] = m.provenance();
    j["records"] = m.size();
    RequestFigures rv = m.request(pane.step);
    if (rv.rec && rv.site) {
      nlohmann::json r;
      r["space"] = trace::to_string(rv.site->space);
      r["op"] = trace::to_string(rv.site->op);
      r["line"] = rv.site->line;
      r["buffer"] = rv.buffer ? rv.buffer->name : "";
      r["active_lanes"] = rv.active_lanes;
      if (!rv.modelled) {
        // (another CTA's shared memory: no cost figures)
      } else if (rv.shared) {
        r["max_way"] = rv.s.max_way;
        r["wavefronts"] = rv.s.wavefronts;
        r["conflicts"] = rv.s.conflicts;
      } else {
        r["sectors"] = rv.g.sectors;
        r["ideal_sectors"] = rv.g.ideal_sectors;
        r["efficiency"] = rv.g.efficiency;
      }
      r["why"] = rv.why;
      j["request"] = r;
      // The DRAM view's figures, for the array it shows (following the request by default).
      session::DramArray shown;
      const session::DramFigures f = session::dram_view_figures(m, rv, state.dram.array, &shown);
      j["dram"] = {{"array", !shown.all() ? m.trace().buffers[shown.buffer].name : std::string("all")},
                   {"epoch", f.epoch},
                   {"busy", f.busy},
                   {"channels", f.channels},
                   {"recorded", f.recorded}};
    }
  }
  return j.dump(2);
}

}  // namespace ws::ui
