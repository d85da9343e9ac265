#include "ui/ui.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "ui/settings.h"
#include "ui/theme.h"

namespace ws::ui {

// ---- panels ------------------------------------------------------------------------------

namespace {
struct PanelInfo {
  const char* name;
  const char* key;
};
constexpr PanelInfo kPanels[] = {
    {"Catalog & parameters", "catalog"}, {"Memory view", "memory"}, {"Warp inspector", "warp"},
    {"DRAM view", "dram"},               {"Source", "source"},      {"Timeline", "timeline"},
    {"Timing", "timing"},
};
}  // namespace

const char* panel_name(Panel p) { return kPanels[int(p)].name; }
const char* panel_key(Panel p) { return kPanels[int(p)].key; }
bool panel_from_key(const std::string& key, Panel& out) {
  for (int i = 0; i < int(Panel::Count); ++i)
    if (key == kPanels[i].key) {
      out = Panel(i);
      return true;
    }
  return false;
}

// ---- small shared widgets ----------------------------------------------------------------

std::string fmt_count(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  s.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) s.push_back(',');
    s.push_back(digits[i]);
  }
  return s;
}

std::string fmt_compact(uint64_t n) {
  char b[32];
  if (n < 10000) return std::to_string(n);
  if (n < 1000000) std::snprintf(b, sizeof b, "%.1fk", double(n) / 1e3);
  else if (n < 1000000000) std::snprintf(b, sizeof b, "%.1fM", double(n) / 1e6);
  else std::snprintf(b, sizeof b, "%.1fG", double(n) / 1e9);
  return b;
}

std::string fmt_bytes(uint64_t n) {
  char b[32];
  if (n < 1024)
    std::snprintf(b, sizeof b, "%llu B", (unsigned long long)n);
  else if (n < (1u << 20))
    std::snprintf(b, sizeof b, "%.1f KiB", double(n) / 1024);
  else if (n < (1ull << 30))
    std::snprintf(b, sizeof b, "%.1f MiB", double(n) / (1 << 20));
  else
    std::snprintf(b, sizeof b, "%.2f GiB", double(n) / (1ull << 30));
  return b;
}

void headline(const char* value, const char* caption, ImU32 color) {
  ImGui::BeginGroup();
  ImGui::PushFont(fonts().big ? fonts().big : ImGui::GetFont());
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextUnformatted(value);
  ImGui::PopStyleColor();
  ImGui::PopFont();
  ImGui::PushStyleColor(ImGuiCol_Text, theme().text_dim);
  ImGui::TextUnformatted(caption);
  ImGui::PopStyleColor();
  ImGui::EndGroup();
}

void headlines(const std::vector<Headline>& items) {
  ImFont* big = fonts().big ? fonts().big : ImGui::GetFont();
  const float gap = ImGui::GetFontSize() * 1.6f;
  const float x0 = ImGui::GetCursorPosX();
  const float right = x0 + ImGui::GetContentRegionAvail().x;
  float x = x0;
  for (size_t i = 0; i < items.size(); ++i) {
    const auto& h = items[i];
    float w = std::max(big->CalcTextSizeA(big->FontSize, 1e9f, 0, h.value.c_str()).x, ImGui::CalcTextSize(h.caption.c_str()).x);
    if (i > 0) {
      if (x + gap + w > right)
        x = x0;  // wrap
      else {
        ImGui::SameLine(x + gap);
        x += gap;
      }
    }
    headline(h.value.c_str(), h.caption.c_str(), h.color);
    x += w;
  }
}

void help_marker(const char* text) {
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

// ---- Pane --------------------------------------------------------------------------------

const RequestFigures& Pane::request() {
  if (!model) {
    rv_ = RequestFigures{};
    rv_model_.reset();
    return rv_;
  }
  if (rv_model_ != model || rv_step_ != step) {
    rv_ = model->request(step);
    rv_model_ = model;
    rv_step_ = step;
  }
  return rv_;
}

// ---- Ui ----------------------------------------------------------------------------------

Ui::Ui(Environment e) : env(std::move(e)), live_timer(env.live) {
  std::string msg;
  if (!env.settings_path.empty() && !load_settings(env.settings_path, state, msg) && !msg.empty())
    message(msg, true);
  std::string pack_msg;
  timings.replay = load_replay_pack(env.replay_dir, pack_msg);
  if (!pack_msg.empty()) timings.message = "replay pack: " + pack_msg;
  state.playing = false;
  state.show_help = false;
  if (!catalog::find(state.kernel)) state.kernel = UiState{}.kernel;  // a kernel this build lacks
}

Ui::~Ui() = default;

void Ui::message(const std::string& text, bool error) {
  status = text;
  status_error = error;
  status_time = time;
}

void Ui::save_settings() {
  if (env.settings_path.empty()) return;
  std::string err;
  if (!ws::ui::save_settings(env.settings_path, state, err)) message(err, true);
}

std::string Ui::take_screenshot_request() {
  std::string s = std::move(screenshot_request_);
  screenshot_request_.clear();
  return s;
}

bool Ui::settled() const {
  const bool a = pane.model && recorder.idle() && record_due_ < 0 &&
                 (!state.heat || pane.heat.converged(std::min<uint64_t>(pane.step + 1, pane.model->size())));
  if (!a || !comparing() || !compare_error.empty()) return a;
  // A/B: the B side is recorded, locked to A's step, and its heat has caught up too.
  return pane_b.model && recorder_b.idle() && synced_a_ == pane.step &&
         (!state.heat || pane_b.heat.converged(std::min<uint64_t>(pane_b.step + 1, pane_b.model->size())));
}

float Ui::font_scale_for(float display_h) const {
  if (!state.present) return state.font_scale;
  // Presentation: about 26 px body text at 720 rows, growing with the window (4K: ~75 px).
  return state.font_scale * std::max(1.5f, 1.5f * display_h / 720.0f);
}

int Ui::theme_index() const { return state.present ? kThemePresentation : state.theme; }

session::LaunchSpec Ui::spec() const {
  session::LaunchSpec spec;
  spec.kernel = state.kernel;
  if (state.size) spec.size = state.size;
  // The panel keeps values of every kernel shown so far: hand on this kernel's own.
  if (const catalog::KernelInfo* k = catalog::find(state.kernel))
    for (const auto& p : k->params)
      if (auto it = state.params.find(p.name); it != state.params.end()) spec.params[p.name] = it->second;
  spec.blocks = state.blocks;
  spec.block_default = session::BlockDefault::FewWhenLarge;  // every change re-records: keep it quick
  spec.max_records = state.max_records;
  spec.dram = state.dram_preset;
  return spec;
}

void Ui::record() {
  record_due_ = -1;
  record_error.clear();
  Job job;
  job.kind = Job::Record;
  job.spec = spec();
  try {
    job.launch = session::resolve(job.spec);
  } catch (const session::InputError& e) {
    record_error = e.what();
    return;
  }
  job.label = "recording " + job.launch.kernel->id;
  recorder.submit(std::move(job));
}

static analysis::DramModel dram_or_textbook(const std::string& preset) {
  try {
    return session::dram_model(preset);
  } catch (const session::InputError&) {
    return session::dram_model("textbook");  // a preset from an older settings file
  }
}

void Ui::open_file(const std::string& path) {
  Job job;
  job.kind = Job::Open;
  job.path = path;
  job.dram = dram_or_textbook(state.dram_preset);
  job.label = "opening " + path;
  recorder.submit(std::move(job));
  state.last_file = path;
}

void Ui::save_file(const std::string& path) {
  if (!pane.model) {
    message("nothing to save yet", true);
    return;
  }
  Job job;
  job.kind = Job::Save;
  job.path = path;
  job.session = pane.model;
  job.bookmarks = bookmarks;
  job.label = "saving " + path;
  recorder.submit(std::move(job));
  state.last_file = path;
}

void Ui::request_reanalyze() {
  if (!pane.model) return;
  Job job;
  job.kind = Job::Reanalyze;
  job.session = pane.model;
  job.dram = dram_or_textbook(state.dram_preset);
  job.label = "analysing with DRAM model " + state.dram_preset;
  recorder.submit(std::move(job));
}

void Ui::set_step(uint64_t step) {
  pane.step = step;
  if (pane.model && pane.model->size()) pane.step = std::min<uint64_t>(step, pane.model->size() - 1);
  pane.play_accum = 0;
}

void Ui::enlarge(Panel p) { state.enlarged = state.enlarged == int(p) ? -1 : int(p); }

void Ui::show_model(std::shared_ptr<const Session> m, bool keep_step) {
  bool same_shapes = pane.model && pane.model->shapes.size() == m->shapes.size();
  if (same_shapes)
    for (size_t i = 0; i < m->shapes.size(); ++i)
      same_shapes &= pane.model->shapes[i].rows == m->shapes[i].rows && pane.model->shapes[i].cols == m->shapes[i].cols;
  pane.model = std::move(m);
  pane.heat.reset(pane.model);
  if (!same_shapes) pane.grids.assign(pane.model->shapes.size(), GridView{});
  set_step(keep_step ? pane.step : 0);
}

void Ui::poll() {
  while (auto o = recorder.take()) {
    if (!o->error.empty()) {
      if (o->kind == Job::Record || (o->kind == Job::Open && !pane.model)) record_error = o->error;
      message(o->error, true);
      continue;
    }
    if (!o->message.empty()) message(o->message);
    if (!o->session) continue;
    if (o->kind == Job::Reanalyze) {
      // Same trace, new DRAM figures: step and heat stay as they are. A result for a trace
      // no longer on screen is dropped.
      if (pane.model && o->session->shared_trace == pane.model->shared_trace) pane.model = o->session;
      continue;
    }
    if (o->kind == Job::Record) {
      record_error.clear();
      if (o->session->few_blocks) message(o->session->note);
      // Bookmarks name steps of this launch: they stay when the same launch is recorded again.
      if (!pane.model || pane.model->trace().launch.kernel != o->session->trace().launch.kernel ||
          pane.model->trace().launch.params != o->session->trace().launch.params)
        bookmarks.clear();
    }
    if (o->kind == Job::Open) {
      bookmarks = o->session->trace().bookmarks;
      std::sort(bookmarks.begin(), bookmarks.end(), [](const auto& x, const auto& y) { return x.record < y.record; });
      // Show the opened launch in the catalog, without re-recording it.
      const auto& l = o->session->trace().launch;
      if (catalog::find(l.kernel)) {
        state.kernel = l.kernel;
        for (const auto& [k, v] : l.params)
          if (k == "size")
            state.size = v;
          else
            state.params[k] = v;
      }
    }
    show_model(o->session, o->kind == Job::Record);
  }
  // The DRAM preset changed while a recording with the old one was under way.
  if (pane.model && !recorder.busy() && pane.model->report.dram.preset != state.dram_preset) {
    const auto presets = analysis::dram_presets();
    if (std::find(presets.begin(), presets.end(), state.dram_preset) != presets.end()) request_reanalyze();
  }
  std::string err;
  if (auto t = live_timer.take(err)) timings.add_live(std::move(*t));
  if (!err.empty()) timings.message = err;
}

void Ui::advance_playback(float dt) {
  if (!state.playing || !pane.model || pane.model->size() == 0) return;
  const uint64_t last = pane.model->size() - 1;
  pane.play_accum += double(dt) * state.speed;
  int guard = 0;
  while (pane.play_accum >= 1.0 && guard++ < 200000) {
    pane.play_accum -= 1.0;
    if (pane.step >= last) {
      if (state.loop) {
        pane.step = 0;
        continue;
      }
      state.playing = false;
      pane.play_accum = 0;
      break;
    }
    pane.step = pane.model->next(pane.step, int(state.play_unit), +1);
  }
}

void Ui::shortcuts() {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k), true); };
  auto native = [](int k) { return k >= 0 && ImGui::IsKeyPressed(k, false); };
  auto step_by = [&](int unit, int dir) {
    if (!pane.model) return;
    state.playing = false;
    set_step(pane.model->next(pane.step, unit, dir));
  };
  const bool shift = io.KeyShift, ctrl = io.KeyCtrl;
  if (pressed(ImGuiKey_RightArrow)) step_by(ctrl ? 2 : shift ? 1 : 0, +1);
  if (pressed(ImGuiKey_LeftArrow)) step_by(ctrl ? 2 : shift ? 1 : 0, -1);
  if (pressed(ImGuiKey_DownArrow)) step_by(1, +1);
  if (pressed(ImGuiKey_UpArrow)) step_by(1, -1);
  if (pressed(ImGuiKey_PageDown)) step_by(2, +1);
  if (pressed(ImGuiKey_PageUp)) step_by(2, -1);
  if (pressed(ImGuiKey_Home)) set_step(0);
  if (pressed(ImGuiKey_End) && pane.model) set_step(pane.model->size());
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space), false)) state.playing = !state.playing;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) {
    if (state.show_help)
      state.show_help = false;
    else
      state.enlarged = -1;
  }
  if (native(env.keys.f1)) state.show_help = !state.show_help;
  if (native(env.keys.f5)) toggle_presentation();
  if (native(env.keys.f11)) fullscreen_toggle_ = true;
  if (native(env.keys.f12)) {
    char name[64];
    std::time_t now = std::time(nullptr);
    std::strftime(name, sizeof name, "warpscope-%Y%m%d-%H%M%S.png", std::localtime(&now));
    screenshot_request_ = name;
  }
  if (ctrl && ImGui::IsKeyPressed('Q', false)) quit_ = true;
  if (ctrl && ImGui::IsKeyPressed('O', false)) {
    open_dialog = true;
    dialog_path = state.last_file;
  }
  if (ctrl && ImGui::IsKeyPressed('S', false)) {
    save_dialog = true;
    dialog_path = state.last_file.empty() ? state.kernel + ".wstrace" : state.last_file;
  }
  if (ctrl && (native('=') || native(env.keys.kp_add))) state.font_scale = std::min(2.5f, state.font_scale + 0.125f);
  if (ctrl && (native('-') || native(env.keys.kp_subtract)))
    state.font_scale = std::max(0.75f, state.font_scale - 0.125f);
  if (ctrl && ImGui::IsKeyPressed('0', false)) state.font_scale = 1.0f;
  if (ctrl) return;  // Ctrl combinations are not typed characters
  for (ImWchar c : io.InputQueueCharacters) {
    switch (c) {
      case '?': state.show_help = !state.show_help; break;
      case '+': case '=': state.speed = std::min(10000.0f, state.speed * 2); break;
      case '-': state.speed = std::max(0.25f, state.speed / 2); break;
      case 'h': state.heat = !state.heat; break;
      case 'f': state.follow = !state.follow; break;
      case 'l': state.loop = !state.loop; break;
      case 'b':
      case 'B':
        if (pane.model) {
          bookmark_dialog = true;
          const trace::Bookmark* b = bookmark_at(pane.step);
          bookmark_caption = b ? b->caption : "";
        }
        break;
      case 'n': case 'N': goto_bookmark(+1); break;
      case 'p': case 'P': goto_bookmark(-1); break;
      case 'c': case 'C': compare_dialog = true; compare_spec = state.compare; break;
      case '1': enlarge(Panel::Catalog); break;
      case '2': enlarge(Panel::Memory); break;
      case '3': enlarge(Panel::Warp); break;
      case '4': enlarge(Panel::Dram); break;
      case '5': enlarge(Panel::Source); break;
      case '6': enlarge(Panel::Timing); break;
      case '0': state.enlarged = -1; break;
      default: break;
    }
  }
}

namespace {

// The header of a panel: title, a short subtitle, and an enlarge / restore button.
// Double-clicking the header does the same as the button.
void panel_header(Ui& ui, Panel p, const std::string& subtitle, const std::string& title_text = "") {
  const Theme& t = theme();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 wp = ImGui::GetWindowPos();
  float w = ImGui::GetWindowWidth();
  ImFont* bold = fonts().bold ? fonts().bold : ImGui::GetFont();
  float h = std::round(bold->FontSize + 12);
  dl->AddRectFilled(wp, ImVec2(wp.x + w, wp.y + h), t.panel_header);
  dl->AddRectFilled(wp, ImVec2(wp.x + 3, wp.y + h), t.accent);
  dl->PushClipRect(wp, ImVec2(wp.x + w - h - 2, wp.y + h), true);
  const char* title = title_text.empty() ? panel_name(p) : title_text.c_str();
  dl->AddText(bold, bold->FontSize, ImVec2(wp.x + 12, wp.y + 6), t.text, title);
  dl->PopClipRect();
  float tx = wp.x + 12 + bold->CalcTextSizeA(bold->FontSize, 1e9f, 0, title).x + 14;
  if (!subtitle.empty()) {
    ImFont* f = ImGui::GetFont();
    ImVec2 clip_max(wp.x + w - h - 4, wp.y + h);
    dl->PushClipRect(ImVec2(tx, wp.y), clip_max, true);
    dl->AddText(f, f->FontSize, ImVec2(tx, wp.y + (h - f->FontSize) * 0.5f), t.text_dim, subtitle.c_str());
    dl->PopClipRect();
  }
  if (p != Panel::Timeline && p != Panel::Count) {
    // Enlarge / restore: four corner ticks, pointing out (enlarge) or in (restore).
    ImGui::SetCursorScreenPos(ImVec2(wp.x + w - h, wp.y));
    ImGui::InvisibleButton("##enlarge", ImVec2(h, h));
    bool hovered = ImGui::IsItemHovered();
    if (ImGui::IsItemClicked()) ui.enlarge(p);
    if (hovered) ImGui::SetTooltip(ui.state.enlarged == int(p) ? "Restore the layout (Esc)" : "Enlarge this panel");
    ImVec2 c(wp.x + w - h * 0.5f, wp.y + h * 0.5f);
    float r = h * 0.22f, k = h * 0.12f;
    ImU32 col = hovered ? t.text : t.text_dim;
    bool in = ui.state.enlarged == int(p);
    for (int sx : {-1, 1})
      for (int sy : {-1, 1}) {
        ImVec2 corner(c.x + sx * r, c.y + sy * r);
        float dx = in ? float(sx) * k : -float(sx) * k, dy = in ? float(sy) * k : -float(sy) * k;
        dl->AddLine(corner, ImVec2(corner.x + dx, corner.y), col, 2);
        dl->AddLine(corner, ImVec2(corner.x, corner.y + dy), col, 2);
      }
    ImGui::SetCursorScreenPos(wp);
    ImGui::InvisibleButton("##header", ImVec2(std::max(1.0f, w - h), h));
    if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(0)) ui.enlarge(p);
  }
  ImGui::SetCursorScreenPos(ImVec2(wp.x, wp.y + h));
}

std::string subtitle_of(Ui& ui, Panel p, Pane& pane) {
  const Session* m = pane.model.get();
  char b[160];
  switch (p) {
    case Panel::Catalog: return "";
    case Panel::Memory: return ui.state.heat ? "colour = lane · shade = traffic so far" : "colour = lane";
    case Panel::Warp: {
      const RequestFigures& rv = pane.request();
      if (!m || !rv.rec) return "";
      auto c = m->trace().block_coords(rv.rec->block);
      std::snprintf(b, sizeof b, "block (%u,%u) · warp %u · epoch %u", c.x, c.y, unsigned(rv.rec->warp),
                    rv.rec->epoch);
      return b;
    }
    case Panel::Dram: return "model: " + ui.state.dram_preset;
    case Panel::Source: return m ? m->trace().source_name + " · gutter: sectors per request, n-way conflicts" : "";
    case Panel::Timeline:
      if (!m) return "";
      std::snprintf(b, sizeof b, "%s requests · %u %s per block", fmt_count(m->size()).c_str(), m->max_epoch + 1,
                    m->max_epoch ? "barrier epochs" : "barrier epoch");
      return b;
    case Panel::Timing:
      return ui.live_timer.available() ? "live on this GPU" : ui.timings.replay.empty() ? "no GPU here" : "replay pack";
    default: return "";
  }
}

}  // namespace

void Ui::layout_and_draw() {
  ImGuiIO& io = ImGui::GetIO();
  drawn_.clear();
  float menu_h = 0;
  menu_bar(*this, menu_h);
  const float W = io.DisplaySize.x, H = io.DisplaySize.y;
  const float gap = 6;
  const float status_h = std::round(ImGui::GetFontSize() + 12);
  const float timeline_h = std::round(ImGui::GetFontSize() * 6.6f + 24);
  const float top = menu_h + gap, bottom = H - status_h - gap;
  const float tl_top = bottom - timeline_h;
  const float area_bottom = tl_top - gap;
  const float lw = std::round(W * state.left_frac), rw = std::round(W * state.right_frac);
  const float lx1 = gap + lw, rx0 = W - gap - rw;
  const float area_h = area_bottom - top;

  struct Rect {
    Panel p;  // Panel::Count: the A/B strip
    ImVec2 a, b;
    Pane* pn = nullptr;      // null: the A pane
    const char* side = "";   // "A" / "B" in an A/B view
  };
  std::vector<Rect> rects;
  auto split = [&](float frac) { return std::round(top + area_h * frac); };
  const bool ab = comparing() && state.enlarged < 0;
  if (state.enlarged >= 0 && state.enlarged != int(Panel::Timeline)) {
    rects.push_back({Panel(state.enlarged), ImVec2(gap, top), ImVec2(W - gap, area_bottom)});
  } else if (ab) {
    // A/B: the differences on top, then A and B side by side (memory over warp inspector).
    const float rows = state.present ? 4.2f : 7.2f;  // presentation type is large: fewer rows fit
    const float strip_h = std::round(std::min(area_h * 0.34f, ImGui::GetFontSize() * 1.55f * rows + 30));
    const float y0 = top + strip_h + gap, mid = std::round(W * 0.5f);
    const float ym = std::round(y0 + (area_bottom - y0) * (state.present ? 0.56f : 0.6f));
    rects.push_back({Panel::Count, ImVec2(gap, top), ImVec2(W - gap, top + strip_h)});
    rects.push_back({Panel::Memory, ImVec2(gap, y0), ImVec2(mid - gap * 0.5f, ym), &pane, "A"});
    rects.push_back({Panel::Warp, ImVec2(gap, ym + gap), ImVec2(mid - gap * 0.5f, area_bottom), &pane, "A"});
    rects.push_back({Panel::Memory, ImVec2(mid + gap * 0.5f, y0), ImVec2(W - gap, ym), &pane_b, "B"});
    rects.push_back({Panel::Warp, ImVec2(mid + gap * 0.5f, ym + gap), ImVec2(W - gap, area_bottom), &pane_b, "B"});
  } else if (state.present) {
    // Presentation: the panels a class looks at, large; 1 … 6 still enlarge any panel.
    const float mx = std::round(W * 0.6f), my = split(0.64f);
    rects.push_back({Panel::Memory, ImVec2(gap, top), ImVec2(mx - gap * 0.5f, my)});
    rects.push_back({Panel::Source, ImVec2(gap, my + gap), ImVec2(mx - gap * 0.5f, area_bottom)});
    rects.push_back({Panel::Warp, ImVec2(mx + gap * 0.5f, top), ImVec2(W - gap, area_bottom)});
  } else {
    float ly = split(state.left_split), cy = split(state.center_split), ry = split(state.right_split);
    rects.push_back({Panel::Catalog, ImVec2(gap, top), ImVec2(lx1, ly)});
    rects.push_back({Panel::Timing, ImVec2(gap, ly + gap), ImVec2(lx1, area_bottom)});
    rects.push_back({Panel::Memory, ImVec2(lx1 + gap, top), ImVec2(rx0 - gap, cy)});
    rects.push_back({Panel::Source, ImVec2(lx1 + gap, cy + gap), ImVec2(rx0 - gap, area_bottom)});
    rects.push_back({Panel::Warp, ImVec2(rx0, top), ImVec2(W - gap, ry)});
    rects.push_back({Panel::Dram, ImVec2(rx0, ry + gap), ImVec2(W - gap, area_bottom)});
  }
  rects.push_back({Panel::Timeline, ImVec2(gap, tl_top), ImVec2(W - gap, bottom)});

  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoScrollbar |
                                 ImGuiWindowFlags_NoScrollWithMouse;
  for (const Rect& r : rects) {
    ImGui::SetNextWindowPos(r.a);
    ImGui::SetNextWindowSize(ImVec2(r.b.x - r.a.x, r.b.y - r.a.y));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    Pane& pn = r.pn ? *r.pn : pane;
    const std::string base = r.p == Panel::Count ? "A/B comparison" : panel_name(r.p);
    const std::string title = *r.side ? std::string(r.side) + " · " + base : base;
    bool open = ImGui::Begin((title + "##" + base + r.side).c_str(), nullptr, flags);
    ImGui::PopStyleVar();
    if (open) {
      std::string sub = r.p == Panel::Count ? "both sides locked to the same block, warp and step"
                                            : subtitle_of(*this, r.p, pn);
      if (*r.side && pn.model) sub = pn.model->title() + (sub.empty() ? "" : " · " + sub);
      panel_header(*this, r.p, sub, title);
      ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(10, 8));
      ImGuiWindowFlags body = ImGuiWindowFlags_AlwaysUseWindowPadding;
      if (r.p == Panel::Memory || r.p == Panel::Timeline || r.p == Panel::Source)
        body |= ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;
      ImGui::BeginChild("##body", ImVec2(0, 0), false, body);
      switch (r.p) {
        case Panel::Catalog: catalog_view(*this); break;
        case Panel::Memory: memory_view(*this, pn); break;
        case Panel::Warp: warp_view(*this, pn); break;
        case Panel::Dram: dram_view(*this, pane); break;
        case Panel::Source: source_view(*this, pane); break;
        case Panel::Timeline: timeline_view(*this, pane); break;
        case Panel::Timing: timing_view(*this); break;
        case Panel::Count: compare_strip(*this); break;
        default: break;
      }
      ImGui::EndChild();
      ImGui::PopStyleVar();
    }
    ImGui::End();
    if (r.p != Panel::Count) drawn_.push_back({r.p, r.a, r.b});
  }

  // Splitters in the gaps between panels (not while one panel is enlarged).
  if (state.enlarged < 0 && !ab && !state.present) {
    struct Splitter {
      const char* id;
      ImVec2 a, b;
      bool vertical;
      float* value;
      float lo, hi, origin, span;
    };
    float ly = split(state.left_split), cy = split(state.center_split), ry = split(state.right_split);
    Splitter sp[] = {
        {"##split_left", ImVec2(lx1, top), ImVec2(lx1 + gap, area_bottom), true, &state.left_frac, 0.12f, 0.40f, 0, W},
        {"##split_right", ImVec2(rx0 - gap, top), ImVec2(rx0, area_bottom), true, &state.right_frac, 0.15f, 0.48f, W, -W},
        {"##split_lv", ImVec2(gap, ly), ImVec2(lx1, ly + gap), false, &state.left_split, 0.2f, 0.85f, top, area_h},
        {"##split_cv", ImVec2(lx1 + gap, cy), ImVec2(rx0 - gap, cy + gap), false, &state.center_split, 0.2f, 0.85f, top, area_h},
        {"##split_rv", ImVec2(rx0, ry), ImVec2(W - gap, ry + gap), false, &state.right_split, 0.2f, 0.85f, top, area_h},
    };
    ImGui::PushStyleVar(ImGuiStyleVar_WindowMinSize, ImVec2(1, 1));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    for (auto& s : sp) {
      ImGui::SetNextWindowPos(s.a);
      ImGui::SetNextWindowSize(ImVec2(s.b.x - s.a.x, s.b.y - s.a.y));
      ImGui::Begin(s.id, nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoBackground |
                                      ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                      ImGuiWindowFlags_NoBringToFrontOnFocus);
      ImGui::InvisibleButton("##drag", ImVec2(s.b.x - s.a.x, s.b.y - s.a.y));
      if (ImGui::IsItemHovered() || ImGui::IsItemActive())
        ImGui::SetMouseCursor(s.vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
      if (ImGui::IsItemActive()) {
        float pos = s.vertical ? io.MousePos.x : io.MousePos.y;
        float v = s.span > 0 ? (pos - s.origin) / s.span : (s.origin - pos) / -s.span;
        *s.value = std::clamp(v, s.lo, s.hi);
      }
      ImGui::End();
    }
    ImGui::PopStyleVar(2);
  }

  status_bar(*this, ImVec2(0, H - status_h), ImVec2(W, H));
  help_overlay(*this);
  file_dialogs(*this);
  classroom_dialogs(*this);
}

void Ui::frame(float dt) {
  time += dt;
  poll();
  if (record_due_ >= 0 && time >= record_due_) record();
  shortcuts();
  advance_playback(dt);
  if (pane.model && state.heat) pane.heat.update(std::min<uint64_t>(pane.step + 1, pane.model->size()));
  sync_b();
  // Live timings follow the family and the parameters on screen.
  if (live_timer.available() && pane.model && pane.model->kernel) {
    std::map<std::string, int64_t> params = state.params;
    std::string key = pane.model->kernel->family;
    for (const auto& [k, v] : params) key += " " + k + "=" + std::to_string(v);
    if (key != live_family_) {
      live_family_ = key;
      std::vector<std::string> ids;
      for (const auto& k : catalog::all())
        if (k.family == pane.model->kernel->family) ids.push_back(k.id);
      live_timer.request(ids, params);
    }
  }
  layout_and_draw();
}

std::string Ui::describe_json() const {
  nlohmann::json j;
  j["kernel"] = state.kernel;
  j["step"] = pane.step;
  j["settled"] = settled();
  nlohmann::json panels = nlohmann::json::array();
  for (const auto& d : drawn_)
    panels.push_back({{"key", panel_key(d.panel)},
                      {"title", panel_name(d.panel)},
                      {"rect", {d.min.x, d.min.y, d.max.x - d.min.x, d.max.y - d.min.y}}});
  j["panels"] = panels;
  auto rgb = [](ImU32 c) { return nlohmann::json::array({int(c & 255), int((c >> 8) & 255), int((c >> 16) & 255)}); };
  j["display"] = {int(ImGui::GetIO().DisplaySize.x), int(ImGui::GetIO().DisplaySize.y)};
  j["accent"] = rgb(theme().accent);
  j["background"] = rgb(theme().bg);
  j["cell_empty"] = rgb(theme().cell_empty);
  j["enlarged"] = state.enlarged >= 0 ? panel_key(Panel(state.enlarged)) : "";
  j["present"] = state.present;
  j["font_size"] = ImGui::GetFontSize();
  j["theme"] = theme().light ? "light" : "dark";
  nlohmann::json bms = nlohmann::json::array();
  for (const auto& b : bookmarks) bms.push_back({{"record", b.record}, {"caption", b.caption}});
  j["bookmarks"] = bms;
  if (comparing()) {
    nlohmann::json c;
    c["spec"] = state.compare;
    c["step_a"] = pane.step;
    if (pane_b.model) {
      c["title_b"] = pane_b.model->title();
      c["step_b"] = pane_b.step;
      c["records_b"] = pane_b.model->size();
      RequestFigures ra = pane.model ? pane.model->request(pane.step) : RequestFigures{};
      RequestFigures rb = pane_b.model->request(pane_b.step);
      if (ra.rec && rb.rec && ra.site && rb.site) {
        c["locked"] = ra.rec->block == rb.rec->block && ra.rec->warp == rb.rec->warp && ra.site->line == rb.site->line;
        c["block"] = rb.rec->block;
        c["warp"] = rb.rec->warp;
        c["a"] = ra.shared ? nlohmann::json{{"max_way", ra.s.max_way}} : nlohmann::json{{"sectors", ra.g.sectors}};
        c["b"] = rb.shared ? nlohmann::json{{"max_way", rb.s.max_way}} : nlohmann::json{{"sectors", rb.g.sectors}};
      }
    }
    j["compare"] = c;
  }
  if (pane.model) {
    const Session& m = *pane.model;
    j["title"] = m.title();
    j["provenance"] = m.provenance();
    j["records"] = m.size();
    RequestFigures rv = m.request(pane.step);
    if (rv.rec && rv.site) {
      nlohmann::json r;
      r["space"] = rv.shared ? "shared" : "global";
      r["op"] = trace::to_string(rv.site->op);
      r["line"] = rv.site->line;
      r["buffer"] = rv.buffer ? rv.buffer->name : "";
      r["active_lanes"] = rv.active_lanes;
      if (rv.shared) {
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
    }
  }
  return j.dump(2);
}

}  // namespace ws::ui
