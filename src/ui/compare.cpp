// src/ui/compare.cpp — Side-by-side A/B: a second variant recorded beside the first, another launch of the same
// program, or the program as it was before its file was saved; stepped in lock-step with the main pane
// (session::StepMatch finds the matching request), and a strip of the figures that differ.
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <ctime>

#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts)
    if (!p.empty()) s += (s.empty() ? "" : " · ") + p;
  return s;
}

// One figure of both sides, and which is better.
struct AbRow {
  const char* what;
  std::string va, vb;
  double ca = 0, cb = 0;              // lower is better; both 0: no verdict
  std::string short_a = "", short_b = "";  // for the one-line strip (empty: va, vb)
  bool request = false;                    // the request on screen (the one-line strip puts it after the launch's)
  const char* verdict_at = nullptr;        // no verdict of its own: the row that judges it ("per 128 B")
};

// The figures the strip compares: this request, then the launch's totals and times.
std::vector<AbRow> ab_rows(Ui& ui, const Session& a, const Session& b) {
  const RequestFigures& ra = ui.side_pane(false).request();
  const RequestFigures& rb = ui.side_pane(true).request();
  const session::Totals& ta = a.totals(), &tb = b.totals();
  auto time_of = [&](const Session& m) -> std::string {
    if (!m.kernel()) return "—";
    std::map<std::string, int64_t> params = m.trace().launch().params;
    params.erase("size");
    const TimingTable* table = nullptr;
    const TimingSample* s = ui.timing.find(m.kernel()->id, params, &table);
    if (!s || s->ms <= 0) return "—";
    return fmt("%.3f ms", s->ms);
  };
  auto now = [](const RequestFigures& r) -> std::string {
    if (!r.rec) return "—";
    if (!r.modelled) return "another CTA's (no cost)";
    if (r.shared)
      return std::to_string(r.s.max_way) + "-way (" + std::to_string(r.s.wavefronts) +
             (r.s.wavefronts == 1 ? " wavefront)" : " wavefronts)");
    return std::to_string(r.g.sectors) + " sectors (ideal " + std::to_string(r.g.ideal_sectors) + ")";
  };
  auto per = [](uint64_t x, uint64_t n) { return n ? double(x) / double(n) : 0.0; };
  std::vector<AbRow> rows;
  // A request's cost per byte its lanes asked for: a float4 request's 16 sectors for 512
  // bytes are as good as a float request's 4 for 128.
  auto per_byte = [](const RequestFigures& r) {
    if (!r.rec || !r.site || !r.active_lanes || !r.site->bytes || !r.modelled) return 0.0;
    const double used = double(r.active_lanes) * double(r.site->bytes);
    return (r.shared ? double(r.s.wavefronts) : double(r.g.sectors)) / used;
  };
  auto brief = [](const RequestFigures& r) -> std::string {
    if (!r.rec) return "—";
    if (!r.modelled) return std::string("no cost");
    return r.shared ? std::to_string(r.s.max_way) + "-way" : std::to_string(r.g.sectors) + " sectors";
  };
  rows.push_back({"this request", now(ra), now(rb), per_byte(ra), per_byte(rb), brief(ra), brief(rb), true});
  rows.push_back({"requests", fmt_count(ta.global_requests + ta.shared_requests),
                  fmt_count(tb.global_requests + tb.shared_requests), double(ta.global_requests + ta.shared_requests),
                  double(tb.global_requests + tb.shared_requests)});
  // Costs per request are shown, not judged: a float4 request rightly moves four times the
  // bytes. The verdict is per 128 bytes the lanes asked for (what the kernel needed).
  if (ta.global_requests || tb.global_requests) {
    rows.push_back({"sectors / request", fmt("%.2f", per(ta.sectors, ta.global_requests)),
                    fmt("%.2f", per(tb.sectors, tb.global_requests)), 0, 0, "", "", false, "judged per 128 B used"});
    rows.push_back({"sectors / 128 B used (ideal 4)", fmt("%.2f", 128 * per(ta.sectors, ta.global_bytes)),
                    fmt("%.2f", 128 * per(tb.sectors, tb.global_bytes)), per(ta.sectors, ta.global_bytes),
                    per(tb.sectors, tb.global_bytes)});
  }
  if (ta.shared_requests || tb.shared_requests) {
    // The worst conflict is named, not judged: 32-way -> 1-way is not "32x better" unless
    // every request was that one (the wavefronts per 128 B used below are the verdict).
    rows.push_back({"worst n-way (shared)", std::to_string(ta.max_way) + "-way", std::to_string(tb.max_way) + "-way", 0, 0,
                    "", "", false, "judged per 128 B used"});
    rows.push_back({"wavefronts / request", fmt("%.2f", per(ta.wavefronts, ta.shared_requests)),
                    fmt("%.2f", per(tb.wavefronts, tb.shared_requests)), 0, 0, "", "", false, "judged per 128 B used"});
    rows.push_back({"wavefronts / 128 B used (ideal 1)", fmt("%.2f", 128 * per(ta.wavefronts, ta.shared_bytes)),
                    fmt("%.2f", 128 * per(tb.wavefronts, tb.shared_bytes)), per(ta.wavefronts, ta.shared_bytes),
                    per(tb.wavefronts, tb.shared_bytes)});
  }
  rows.push_back({"bytes L1 ↔ L2 (sectors × 32)", fmt_bytes(ta.sectors * 32), fmt_bytes(tb.sectors * 32),
                  double(ta.sectors), double(tb.sectors)});
  const std::string ma = time_of(a), mb = time_of(b);
  rows.push_back({"time (replay pack)", ma, mb, ma == "—" ? 0 : std::atof(ma.c_str()), mb == "—" ? 0 : std::atof(mb.c_str())});
  return rows;
}

// The strip as one line of the figures that differ, largest change first (where not even
// the table's header and two rows fit).
void verdict_line(const std::vector<AbRow>& rows) {
  const Theme& th = theme();
  struct Verdict {
    double x;  // B's cost ÷ A's, as a factor ≥ 1
    const AbRow* row;
  };
  std::vector<Verdict> vs;
  for (const AbRow& r : rows)
    if (r.ca > 0 && r.cb > 0 && std::abs(r.ca / r.cb - 1) > 0.05)
      vs.push_back({std::max(r.ca / r.cb, r.cb / r.ca), &r});
  // The whole launch's figures first, largest change first; the request on screen after
  // them (one request's 32 -> 1 wavefronts must not read as the kernel's gain).
  std::stable_sort(vs.begin(), vs.end(), [](const Verdict& p, const Verdict& q) {
    if (p.row->request != q.row->request) return !p.row->request;
    return p.x > q.x;
  });
  Scene sc;
  const float w = ImGui::GetContentRegionAvail().x;
  float x = 0;
  const float y = 0;
  auto put = [&](const std::string& text, ImU32 col, FontRole f) {
    sc.text(ImVec2(x, y), text, col, f);
    x += text_size(f, text).x;
  };
  put("B vs A   ", th.text, FontRole::Bold);
  if (vs.empty()) put("the same cost on every figure", th.text_dim, FontRole::Ui);
  for (const Verdict& v : vs) {
    const AbRow& r = *v.row;
    const bool better = r.ca > r.cb;
    const std::string what = std::string(r.what) + "  ", nums = (r.short_a.empty() ? r.va : r.short_a) + " → " + (r.short_b.empty() ? r.vb : r.short_b) + "  ",
                      verdict = fmt("%.2g× ", v.x) + (better ? "better" : "worse");
    const std::string sep = &v != &vs.front() ? "   ·   " : "";
    const float need = text_size(FontRole::Ui, sep + what + nums).x + text_size(FontRole::Bold, verdict).x;
    if (x + need > w) break;
    put(sep, th.text_dim, FontRole::Ui);
    put(what, th.text_dim, FontRole::Ui);
    put(nums, th.text, FontRole::Ui);
    put(verdict, better ? th.good : th.bad, FontRole::Bold);
  }
  const ImVec2 at = ImGui::GetCursorScreenPos();
  sc.size = ImVec2(w, text_size(FontRole::Ui, "Ag").y);
  draw_scene(ImGui::GetWindowDrawList(), sc, at, nullptr);
  ImGui::Dummy(sc.size);
}

// A figure the table lists: where A and B differ (the request on screen too: where it
// costs the same on both it is named with the others under the table).
bool listed(const AbRow& r) { return r.va != r.vb; }

// The strip as a table: each figure of A and B that differs, and the verdict; the figures
// both sides share named under it in one line.
void ab_table(const std::vector<AbRow>& rows, const AbTitles& names) {
  const Theme& th = theme();
  if (ImGui::BeginTable("##ab", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.3f);
    ImGui::TableSetupColumn(("A · " + names.a).c_str(), ImGuiTableColumnFlags_WidthStretch, 1.5f);
    ImGui::TableSetupColumn(("B · " + names.b).c_str(), ImGuiTableColumnFlags_WidthStretch, 1.5f);
    ImGui::TableSetupColumn("B vs A", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableHeadersRow();
    for (const AbRow& r : rows) {
      if (!listed(r)) continue;
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(th.text_dim), "%s", r.what);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(r.va.c_str());
      ImGui::TableSetColumnIndex(2);
      ImGui::TextUnformatted(r.vb.c_str());
      ImGui::TableSetColumnIndex(3);
      if (r.ca > 0 && r.cb > 0) {
        const double x = r.ca / r.cb;
        ImU32 c = x > 1.05 ? th.good : x < 0.95 ? th.bad : th.text_dim;
        std::string v = x > 1.05 ? fmt("%.2g× better", x) : x < 0.95 ? fmt("%.2g× worse", 1 / x) : "same";
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(c), "%s", v.c_str());
      } else {
        ImGui::TextDisabled("%s", r.verdict_at ? r.verdict_at : "—");  // a cost per request is judged per byte below
      }
    }
    ImGui::EndTable();
  }
  std::string same;
  for (const AbRow& r : rows)
    if (!listed(r)) same += (same.empty() ? "" : " · ") + std::string(r.what) + " " + r.va;
  if (!same.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("the same on both: %s", same.c_str());
    ImGui::PopTextWrapPos();
  }
}

// The wall-clock time now, "14:02:11" (when a build arrived).
std::string clock_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char b[16];
  std::strftime(b, sizeof b, "%H:%M:%S", &tm);
  return b;
}

// "launch 3" -> 2 (from 0); false when `spec` is not of that form.
bool launch_spec(const std::string& spec, int64_t& k) {
  if (spec.rfind("launch ", 0) != 0) return false;
  if (!session::parse_whole(spec.substr(7), k)) k = 0;
  return true;
}

}  // namespace

AbTitles Ui::ab_names() const {
  const Session* a = side_pane(false).model.get();
  const Session* b = side_pane(true).model.get();
  if (!a || !b) return {};
  if (ab.source != AbSource::PreviousBuild) return ab_titles(*a, *b);
  // Both builds have the same kernel and launch: what tells them apart is the edit.
  const std::string title = b->title();
  // The edit first, so a cut subtitle still says which is which; the build times last.
  return {"before your edit · " + a->title() + " · built " + ab.built_a,
          "after your edit · " + title + " · built " + ab.built_b, "before vs after your edit · " + title};
}

AbTitles ab_titles(const Session& a, const Session& b) {
  const std::vector<std::string> pa = a.title_parts(), pb = b.title_parts();
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  // Kernel first; then the parts only this side has; then the parts both share.
  std::vector<std::string> only_a, only_b, common;
  for (size_t i = 1; i < pa.size(); ++i) (has(pb, pa[i]) ? common : only_a).push_back(pa[i]);
  for (size_t i = 1; i < pb.size(); ++i)
    if (!has(pa, pb[i])) only_b.push_back(pb[i]);
  const std::string ka = pa.empty() ? "" : pa[0], kb = pb.empty() ? "" : pb[0];
  AbTitles t;
  std::vector<std::string> va{ka}, vb{kb};
  va.insert(va.end(), only_a.begin(), only_a.end());
  vb.insert(vb.end(), only_b.begin(), only_b.end());
  t.a = join(va) + (common.empty() ? "" : " · " + join(common));
  t.b = join(vb) + (common.empty() ? "" : " · " + join(common));
  std::string diff;
  if (ka == kb) {
    const std::string da = only_a.empty() ? "as is" : join(only_a), db = only_b.empty() ? "as is" : join(only_b);
    diff = only_a.empty() && only_b.empty() ? ka : ka + " · " + da + " vs " + db;
  } else {
    diff = join(va) + " vs " + join(vb);
  }
  t.both = diff + (common.empty() ? "" : " · " + join(common));
  return t;
}

bool Ui::set_compare(const std::string& spec, std::string& error) {
  if (spec.empty()) {
    state.compare.clear();
    ab.pane = Pane{};
    ab.source = AbSource::Catalog;
    ab.derived_from = nullptr;
    step_match_ = session::StepMatch{};
    ab.error.clear();
    return true;
  }
  if (int64_t k = 0; launch_spec(spec, k)) {
    if (k < 1) {
      error = "compare: '" + spec + "': launches are numbered from 1 (\"launch 3\")";
      return false;
    }
    if (pane.model && size_t(k) > pane.model->launches()) {
      error = "compare: launch " + std::to_string(k) + " is out of range: allowed 1.." + std::to_string(pane.model->launches());
      return false;
    }
    set_compare("", error);
    ab.source = AbSource::Launch;
    ab.launch = uint32_t(k - 1);
    state.compare = "launch " + std::to_string(k);
    derive_launch_side();  // now, or once the main pane's trace arrives
    return ab.error.empty() || !pane.model;
  }
  Job job;
  job.kind = Job::Record;
  try {
    job.spec = session::parse_compact(spec);
    const catalog::KernelInfo* k = catalog::find(job.spec.kernel);
    const catalog::KernelInfo* ka = catalog::find(state.kernel);
    // The B side keeps A's problem size where it is the same family (so the grids match).
    if (!job.spec.size && k && ka && ka->family == k->family && state.size) job.spec.size = state.size;
    job.spec.blocks = state.blocks;
    job.spec.block_default = session::BlockDefault::FewWhenLarge;
    job.spec.max_records = state.max_records;
    job.spec.dram = state.dram.preset;
    job.launch = session::resolve(job.spec);
  } catch (const session::InputError& e) {
    error = std::string("compare: ") + e.what();
    return false;
  }
  job.label = "recording " + job.launch.kernel->id + " (B)";
  if (ab.source != AbSource::Catalog) set_compare("", error);
  ab.recorder.submit(std::move(job));
  state.compare = spec;
  ab.error.clear();
  return true;
}

void Ui::derive_launch_side() {
  if (ab.source != AbSource::Launch || !pane.model || ab.derived_from == &pane.model->whole_trace()) return;
  ab.derived_from = &pane.model->whole_trace();
  ab.pane = Pane{};
  ab.error.clear();
  if (ab.launch >= pane.model->launches()) {
    ab.error = "compare: launch " + std::to_string(ab.launch + 1) + " is out of range: " + pane.model->title() +
               " has " + std::to_string(pane.model->launches()) + (pane.model->launches() == 1 ? " launch" : " launches");
    message(ab.error, true);
    return;
  }
  try {
    ab.pane.model = pane.model->of_launch(ab.launch, pane.model->report().dram);
  } catch (const std::exception& e) {
    ab.error = std::string("compare: ") + e.what();
    message(ab.error, true);
    return;
  }
  ab.pane.heat.reset(ab.pane.model);
  ab.pane.grids.assign(ab.pane.model->shapes().size(), GridView{});
  synced_a_ = ~uint64_t(0);
}

void Ui::program_arrived(bool rebuilt) {
  std::string unused;
  if (!rebuilt || !pane.model) {
    // Another program or launch: a comparison with an earlier build no longer applies.
    if (ab.source == AbSource::PreviousBuild) set_compare("", unused);
    program_built_at_ = clock_now();
    return;
  }
  const std::shared_ptr<const Session> previous = pane.model;
  const uint64_t step = pane.step;
  set_compare("", unused);
  ab.source = AbSource::PreviousBuild;
  ab.built_a = program_built_at_.empty() ? "earlier" : program_built_at_;
  ab.built_b = program_built_at_ = clock_now();
  ab.pane.model = previous;
  ab.pane.step = step;
  ab.pane.heat.reset(previous);
  ab.pane.grids.assign(previous->shapes().size(), GridView{});
  state.compare = "previous build";
  synced_a_ = ~uint64_t(0);
}

void Ui::poll_b() {
  derive_launch_side();
  while (auto o = ab.recorder.take()) {
    if (!o->error.empty()) {
      ab.error = o->error;
      message("B side: " + o->error, true);
      continue;
    }
    if (!o->session || !comparing() || ab.source != AbSource::Catalog) continue;
    ab.pane.model = o->session;
    ab.pane.heat.reset(ab.pane.model);
    ab.pane.grids.assign(ab.pane.model->shapes().size(), GridView{});
    synced_a_ = ~uint64_t(0);
  }
}

void Ui::sync_b() {
  poll_b();
  if (!comparing() || !pane.model || !ab.pane.model) return;
  if (!step_match_.built_for(pane.model, ab.pane.model)) {
    step_match_ = session::StepMatch(pane.model, ab.pane.model);
    synced_a_ = ~uint64_t(0);
  }
  if (synced_a_ != pane.step) {
    ab.pane.step = step_match_.match(pane.step);
    synced_a_ = pane.step;
  }
  if (state.memory.heat) ab.pane.heat.update(std::min<uint64_t>(ab.pane.step + 1, ab.pane.model->size()));
}

AbSplit Ui::ab_split() {
  AbSplit out;
  const Session* a = side_pane(false).model.get();
  const Session* b = side_pane(true).model.get();
  if (!a || !b) return out;
  for (const AbRow& r : ab_rows(*this, *a, *b)) (listed(r) ? out.listed : out.same).push_back(r.what);
  return out;
}

std::string ab_stopped(const Session& a, const Session& b) {
  std::string out;
  // A program's problem is a side's where that side shows the launch it happened in (two
  // launches of one program share it; a clean launch beside the faulting one did not stop).
  auto owns = [](const Session& s) {
    const program::Problem& p = s.problem();
    return !p.empty() && (p.launch == 0 || p.launch - 1 == s.launch());
  };
  const bool both = owns(a) && owns(b) && a.problem() == b.problem();
  for (auto [side, s] : {std::pair{both ? "A and B" : "A", &a}, std::pair{"B", &b}}) {
    const program::Problem& p = s->problem();
    if (!owns(*s) || (both && s == &b)) continue;
    const bool race = p.kind == "race";
    const bool store = s->problem_store();  // a store or a load: what the faulting request did, as the banner says
    out += (out.empty() ? "" : "   ·   ") + std::string(side) + (race ? " races: " : " stopped: ") + program::problem_title(p, store) +
           (p.launch ? " (launch " + std::to_string(p.launch) + ")" : "") +
           (race ? "" : ": no cost is compared past it");
  }
  return out;
}

void compare_strip(Ui& ui) {
  const Session* a = ui.side_pane(false).model.get();
  const Session* b = ui.side_pane(true).model.get();
  if (!a || !b) {
    ImGui::TextDisabled("%s", !ui.ab.error.empty() ? ui.ab.error.c_str() : "recording the B side…");
    return;
  }
  // A side that faulted or raced is said first: its figures are not a version's cost.
  if (const std::string stopped = ab_stopped(*a, *b); !stopped.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, theme().bad);
    ImGui::PushFont(font_for(FontRole::Bold));
    ImGui::TextWrapped("%s", stopped.c_str());
    ImGui::PopFont();
    ImGui::PopStyleColor();
    if (!a->problem().empty() && a->problem().kind != "race") return;
    if (!b->problem().empty() && b->problem().kind != "race") return;
    // A race's line filled the strip (one line on a projector or a short screen): the
    // verdict would be cut in half under it; the race is said, the figures wait for room.
    if (ImGui::GetContentRegionAvail().y < ImGui::GetTextLineHeight()) return;
  }
  const std::vector<AbRow> rows = ab_rows(ui, *a, *b);
  // The table (scrolling where it is taller than the strip); where not even its header and
  // two rows fit, one line of the figures that differ, largest change first (presentation
  // mode's large type at 1280×720).
  const float row_h = ImGui::GetTextLineHeightWithSpacing() + 4;
  if (ImGui::GetContentRegionAvail().y < row_h * 2.5f)
    verdict_line(rows);
  else
    ab_table(rows, ui.ab_names());
}

}  // namespace ws::ui
