// Side-by-side A/B: a second variant recorded beside the first, stepped in lock-step with
// it, and a strip of the figures that differ.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "ui/theme.h"
#include "ui/ui.h"

namespace ws::ui {

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

bool Ui::set_compare(const std::string& spec, std::string& error) {
  if (spec.empty()) {
    state.compare.clear();
    pane_b = Pane{};
    b_index_model_.reset();
    b_index_model_a_.reset();
    compare_error.clear();
    return true;
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
    job.spec.dram = state.dram_preset;
    job.launch = session::resolve(job.spec);
  } catch (const session::InputError& e) {
    error = std::string("compare: ") + e.what();
    return false;
  }
  job.label = "recording " + job.launch.kernel->id + " (B)";
  recorder_b.submit(std::move(job));
  state.compare = spec;
  compare_error.clear();
  return true;
}

void Ui::poll_b() {
  while (auto o = recorder_b.take()) {
    if (!o->error.empty()) {
      compare_error = o->error;
      message("B side: " + o->error, true);
      continue;
    }
    if (!o->session || !comparing()) continue;
    pane_b.model = o->session;
    pane_b.heat.reset(pane_b.model);
    pane_b.grids.assign(pane_b.model->shapes.size(), GridView{});
    synced_a_ = ~uint64_t(0);
  }
}

uint64_t Ui::matching_step(uint64_t step_a) const {
  if (!pane.model || !pane_b.model || pane_b.model->size() == 0) return 0;
  const uint64_t last = pane_b.model->size() - 1;
  if (b_index_model_ != pane_b.model || b_index_model_a_ != pane.model || step_a >= occ_a_.size())
    return std::min(step_a, last);
  const trace::Trace& ta = pane.model->trace();
  const trace::Record& r = ta.records[step_a];
  const trace::Site& s = ta.sites[r.site];
  const int bb = s.buffer < a_to_b_buffer_.size() ? a_to_b_buffer_[s.buffer] : -1;
  auto it = b_index_.find({r.block, r.warp, s.line, uint32_t(bb), int(s.op), occ_a_[step_a]});
  if (it != b_index_.end()) return it->second;
  // The variants differ here (another line, another array): the first request of the same
  // block and warp at or after this point in the B trace, else the same index.
  const auto& rb = pane_b.model->trace().records;
  for (uint64_t i = std::min(step_a, last); i < rb.size(); ++i)
    if (rb[i].block == r.block && rb[i].warp == r.warp) return i;
  return std::min(step_a, last);
}

void Ui::sync_b() {
  poll_b();
  if (!comparing() || !pane.model || !pane_b.model) return;
  if (b_index_model_ != pane_b.model || b_index_model_a_ != pane.model) {
    // Index both traces by (block, warp, line, array, op, occurrence).
    const trace::Trace& ta = pane.model->trace();
    const trace::Trace& tb = pane_b.model->trace();
    a_to_b_buffer_.assign(ta.buffers.size(), -1);
    for (size_t i = 0; i < ta.buffers.size(); ++i)
      for (size_t j = 0; j < tb.buffers.size(); ++j)
        if (ta.buffers[i].name == tb.buffers[j].name) a_to_b_buffer_[i] = int(j);
    using Key = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, int>;
    std::map<Key, uint32_t> count;
    occ_a_.resize(ta.records.size());
    for (size_t i = 0; i < ta.records.size(); ++i) {
      const auto& r = ta.records[i];
      const auto& s = ta.sites[r.site];
      const int bb = s.buffer < a_to_b_buffer_.size() ? a_to_b_buffer_[s.buffer] : -1;
      occ_a_[i] = count[Key{r.block, r.warp, s.line, uint32_t(bb), int(s.op)}]++;
    }
    count.clear();
    b_index_.clear();
    for (size_t i = 0; i < tb.records.size(); ++i) {
      const auto& r = tb.records[i];
      const auto& s = tb.sites[r.site];
      const uint32_t occ = count[Key{r.block, r.warp, s.line, s.buffer, int(s.op)}]++;
      b_index_.emplace(std::make_tuple(r.block, uint32_t(r.warp), s.line, uint32_t(s.buffer), int(s.op), occ), uint32_t(i));
    }
    b_index_model_ = pane_b.model;
    b_index_model_a_ = pane.model;
    synced_a_ = ~uint64_t(0);
  }
  if (synced_a_ != pane.step) {
    pane_b.step = matching_step(pane.step);
    synced_a_ = pane.step;
  }
  if (state.heat) pane_b.heat.update(std::min<uint64_t>(pane_b.step + 1, pane_b.model->size()));
}

void compare_strip(Ui& ui) {
  const Theme& th = theme();
  const Session* a = ui.pane.model.get();
  const Session* b = ui.pane_b.model.get();
  if (!a || !b) {
    ImGui::TextDisabled("%s", !ui.compare_error.empty() ? ui.compare_error.c_str() : "recording the B side…");
    return;
  }
  const RequestFigures& ra = ui.pane.request();
  const RequestFigures& rb = ui.pane_b.request();
  const session::Totals& ta = a->totals, &tb = b->totals;
  auto time_of = [&](const Session& m) -> std::string {
    if (!m.kernel) return "—";
    std::map<std::string, int64_t> params = m.trace().launch.params;
    params.erase("size");
    const TimingTable* table = nullptr;
    const TimingSample* s = ui.timings.find(m.kernel->id, params, &table);
    if (!s || s->ms <= 0) return "—";
    return fmt("%.3f ms", s->ms);
  };
  auto now = [](const RequestFigures& r) -> std::string {
    if (!r.rec) return "—";
    if (r.shared) return std::to_string(r.s.max_way) + "-way (" + std::to_string(r.s.wavefronts) + " wavefronts)";
    return std::to_string(r.g.sectors) + " sectors (ideal " + std::to_string(r.g.ideal_sectors) + ")";
  };
  auto per = [](uint64_t x, uint64_t n) { return n ? double(x) / double(n) : 0.0; };
  struct Row {
    const char* what;
    std::string va, vb;
    double ca, cb;  // lower is better; both 0: no verdict
  };
  std::vector<Row> rows;
  rows.push_back({"this request", now(ra), now(rb), ra.rec ? (ra.shared ? double(ra.s.max_way) : double(ra.g.sectors)) : 0,
                  rb.rec ? (rb.shared ? double(rb.s.max_way) : double(rb.g.sectors)) : 0});
  if (ta.global_requests || tb.global_requests)
    rows.push_back({"sectors / request", fmt("%.2f", per(ta.sectors, ta.global_requests)),
                    fmt("%.2f", per(tb.sectors, tb.global_requests)), per(ta.sectors, ta.global_requests),
                    per(tb.sectors, tb.global_requests)});
  if (ta.shared_requests || tb.shared_requests)
    rows.push_back({"worst n-way (shared)", std::to_string(ta.max_way) + "-way", std::to_string(tb.max_way) + "-way",
                    double(ta.max_way), double(tb.max_way)});
  rows.push_back({"bytes moved (sectors × 32)", fmt_bytes(ta.sectors * 32), fmt_bytes(tb.sectors * 32),
                  double(ta.sectors), double(tb.sectors)});
  const std::string ma = time_of(*a), mb = time_of(*b);
  rows.push_back({"time (replay pack)", ma, mb, ma == "—" ? 0 : std::atof(ma.c_str()), mb == "—" ? 0 : std::atof(mb.c_str())});

  if (ImGui::BeginTable("##ab", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.3f);
    ImGui::TableSetupColumn(("A · " + a->title()).c_str(), ImGuiTableColumnFlags_WidthStretch, 1.5f);
    ImGui::TableSetupColumn(("B · " + b->title()).c_str(), ImGuiTableColumnFlags_WidthStretch, 1.5f);
    ImGui::TableSetupColumn("B vs A", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableHeadersRow();
    for (const Row& r : rows) {
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
        ImGui::TextDisabled("—");
      }
    }
    ImGui::EndTable();
  }
}

}  // namespace ws::ui
