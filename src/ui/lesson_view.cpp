// Lessons in the app: the lesson panel walks a lesson of assets/lessons step by step. Each
// step opens its kernel, parameters and request on screen; a question asks for a prediction
// while the views that would give the answer away are veiled; the answer is then checked
// against the figure the analysis computes from the trace on screen, and the panel that
// shows it is pointed out. What the student did is kept between runs (lesson/progress.h).
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "session/lesson.h"
#include "ui/theme.h"
#include "ui/ui.h"

namespace ws::ui {

namespace {

// Seconds the panel that shows an answer stays outlined once the answer is out.
constexpr double kPointOut = 4.0;

bool request_metric(lesson::Metric m) {
  using M = lesson::Metric;
  return m == M::Sectors || m == M::Lines || m == M::IdealSectors || m == M::Efficiency || m == M::Wavefronts ||
         m == M::Way || m == M::Conflicts || m == M::Coalescing || m == M::BankConflict;
}

const char* panel_phrase(Panel p) {
  switch (p) {
    case Panel::Warp: return "The warp inspector shows it: each lane's address and where it lands.";
    case Panel::Source: return "The source gutter shows it: the figures of every line, averaged over its requests.";
    case Panel::Timeline: return "The timeline shows it: one bar per request.";
    default: return "";
  }
}

// Lesson text as ImGui paragraphs: prose wrapped, bullets indented, code in the mono font.
// A paragraph wrapped to the panel, its `code` spans in the code font without their
// backticks. Words wrap at spaces; a code span wraps at its own spaces.
void rich_text(const std::string& text) {
  struct Word {
    std::string text;
    bool code, space_before;
  };
  std::vector<Word> words;
  bool code = false, space = false;
  std::string cur;
  auto flush = [&](bool next_space) {
    if (!cur.empty()) words.push_back({cur, code, space}), cur.clear(), space = next_space;
    else space = space || next_space;
  };
  for (char c : text) {
    if (c == '`') {
      flush(false);
      code = !code;
    } else if (c == ' ') {
      flush(true);
    } else {
      cur += c;
    }
  }
  flush(false);
  const float x0 = ImGui::GetCursorPosX(), right = x0 + ImGui::GetContentRegionAvail().x;
  const float space_w = ImGui::CalcTextSize(" ").x;
  // Lines as close as a wrapped text's; the paragraph's own spacing after the last.
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 1));
  float x = x0;
  bool first = true;
  for (const Word& w : words) {
    ImGui::PushFont(font_for(w.code ? FontRole::Mono : FontRole::Ui));
    const float ww = ImGui::CalcTextSize(w.text.c_str()).x;
    const float gap = w.space_before ? space_w : 0.0f;
    if (!first && x + gap + ww <= right) {
      ImGui::SameLine(0, gap);
      x += gap;
    } else {
      x = x0;
    }
    ImGui::TextUnformatted(w.text.c_str());
    x += ww;
    first = false;
    ImGui::PopFont();
  }
  ImGui::PopStyleVar();
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + spacing - 1);
}

void paragraphs(const std::string& text) {
  for (const std::string& p : lesson::paragraphs(text)) {
    if (p.empty()) {
      ImGui::Spacing();
    } else if (p.rfind("    ", 0) == 0) {
      ImGui::PushFont(font_for(FontRole::Mono));
      ImGui::TextUnformatted(p.c_str() + 4);
      ImGui::PopFont();
    } else if (p.rfind("- ", 0) == 0) {
      ImGui::Bullet();
      ImGui::BeginGroup();
      rich_text(p.substr(2));
      ImGui::EndGroup();
    } else {
      rich_text(p);
    }
  }
}

// A row of dots, one per step: filled when done, ringed for the step on screen. Clicking one
// goes there.
void step_dots(Ui& ui) {
  const Theme& t = theme();
  const lesson::Lesson& l = *ui.lessons.lesson;
  const float r = std::round(ImGui::GetFontSize() * 0.32f), gap = r * 1.2f;
  const float w = ImGui::GetContentRegionAvail().x;
  const int per_row = std::max(1, int((w + gap) / (2 * r + gap)));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (size_t i = 0; i < l.steps.size(); ++i) {
    if (i % size_t(per_row)) ImGui::SameLine(0, gap);
    const ImVec2 a = ImGui::GetCursorScreenPos();
    ImGui::PushID(int(i));
    if (ImGui::InvisibleButton("##dot", ImVec2(2 * r, 2 * r))) ui.goto_lesson_step(i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("step %zu · %s", i + 1, l.steps[i].title.c_str());
    ImGui::PopID();
    const ImVec2 c(a.x + r, a.y + r);
    const bool done = ui.lessons.progress.done(l, i);
    const bool asks = l.steps[i].question.has_value();
    if (done) dl->AddCircleFilled(c, r - 1, asks ? t.good : t.text_dim);
    else dl->AddCircle(c, r - 1.5f, t.text_dim, 0, 1.5f);
    if (i == ui.lessons.step) dl->AddCircle(c, r + 2, t.accent, 0, 2.5f);
  }
}

// The lessons of the lessons folder, each a button with its progress.
void lesson_list(Ui& ui) {
  LessonRun& L = ui.lessons;
  if (L.available.empty()) L.available = lesson::list();
  ImGui::TextWrapped("Each lesson asks you to predict a figure before it shows you, then checks your answer "
                     "against the recorded trace.");
  ImGui::Spacing();
  if (L.available.empty()) ImGui::TextDisabled("No lessons found in %s.", lesson::lessons_dir().c_str());
  for (const lesson::Entry& e : L.available) {
    ImGui::PushID(e.id.c_str());
    if (!e.error.empty()) {
      ImGui::TextDisabled("%s: cannot be used (%s)", e.id.c_str(), e.error.c_str());
      ImGui::PopID();
      continue;
    }
    std::string label = e.title;
    size_t done = 0;
    if (auto it = L.progress.lessons.find(e.id); it != L.progress.lessons.end())
      for (const auto& [i, s] : it->second.steps) done += s.seen ? 1 : 0;
    if (ImGui::Button(label.c_str(), ImVec2(-1, 0))) ui.open_lesson(e.id);
    ImGui::TextDisabled("  %zu steps%s", e.steps,
                        done ? (" · " + std::to_string(std::min(done, e.steps)) + " visited").c_str() : "");
    ImGui::PopID();
  }
}

// The step's launch is the trace on screen.
bool on_screen_step(const Ui& ui) {
  const LessonRun& L = ui.lessons;
  if (!L.lesson || !ui.pane.model) return false;
  const auto& tl = ui.pane.model->trace().launch();
  return session::shows_launch(L.lesson->steps[L.step].launch, tl.kernel, tl.params);
}

// The question, the answer box and, once answered or revealed, the answer with the view.
void question_box(Ui& ui) {
  const Theme& t = theme();
  LessonRun& L = ui.lessons;
  const lesson::Resolved& r = *L.resolved;
  const lesson::Question& q = *r.question;
  ImGui::Spacing();
  ImGui::PushFont(font_for(FontRole::Bold));
  ImGui::TextWrapped("Predict: %s", q.prompt.c_str());
  ImGui::PopFont();
  if (!L.open()) {
    if (q.is_choice()) {
      const ImGuiStyle& style = ImGui::GetStyle();
      float x = 0;
      const float room = ImGui::GetContentRegionAvail().x;
      for (size_t c = 0; c < q.choices.size(); ++c) {
        // Side by side while they fit, else on the next line.
        const float w = ImGui::CalcTextSize(q.choices[c].c_str()).x + style.FramePadding.x * 2;
        if (c && x + style.ItemSpacing.x + w <= room) {
          ImGui::SameLine();
          x += style.ItemSpacing.x + w;
        } else {
          x = w;
        }
        ImGui::PushID(int(c));
        if (ImGui::Button(q.choices[c].c_str())) ui.check_lesson_answer(q.choices[c]);
        ImGui::PopID();
      }
    } else {
      const float bw = ImGui::CalcTextSize("Check").x + ImGui::GetStyle().FramePadding.x * 2;
      ImGui::SetNextItemWidth(std::max(60.0f, ImGui::GetContentRegionAvail().x - bw - ImGui::GetStyle().ItemSpacing.x));
      const bool enter = ImGui::InputTextWithHint("##answer", L.verdict ? "try again" : "your prediction (a number)", &L.input,
                                                  ImGuiInputTextFlags_EnterReturnsTrue);
      ImGui::SameLine();
      if ((ImGui::Button("Check") || enter) && !L.input.empty()) ui.check_lesson_answer(L.input);
    }
    if (!L.unclear.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, t.warn);
      ImGui::TextWrapped("%s", L.unclear.c_str());
      ImGui::PopStyleColor();
    }
  }
  if (L.verdict) {
    ImGui::PushStyleColor(ImGuiCol_Text, L.verdict->correct ? t.good : t.warn);
    ImGui::TextWrapped("%s", L.verdict->explanation.c_str());
    ImGui::PopStyleColor();
  }
  if (!L.open()) {
    if (ImGui::SmallButton(L.verdict ? "Show me the answer" : "I don't know: show me")) ui.reveal_lesson_answer();
    return;
  }
  // The answer, computed from the trace on screen, and where to see it.
  ImGui::Spacing();
  ImGui::PushFont(font_for(FontRole::Big));
  ImGui::PushStyleColor(ImGuiCol_Text, t.accent);
  ImGui::TextWrapped("%s", r.answer.text.c_str());
  ImGui::PopStyleColor();
  ImGui::PopFont();
  // Once, when the answer comes out: scroll it into view.
  if (L.scroll_to_answer) {
    ImGui::SetScrollHereY(0.2f);
    L.scroll_to_answer = false;
  }
  const bool said = L.verdict && L.verdict->correct;  // the verdict line gave the why already
  if (!r.why.empty() && !said) ImGui::TextWrapped("%s", r.why.c_str());
  if (!r.after.empty()) {
    ImGui::Spacing();
    paragraphs(r.after);
  }
  if (const char* where = panel_phrase(ui.lesson_answer_panel()); *where) {
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, t.text_dim);
    ImGui::TextWrapped("%s", where);
    ImGui::PopStyleColor();
  }
}

}  // namespace

// ---- the controller's lesson half --------------------------------------------------------

bool Ui::open_lesson(const std::string& name) {
  lesson::Lesson l;
  try {
    l = lesson::load(lesson::find(name));
  } catch (const lesson::LessonError& e) {
    message(e.what(), true);
    return false;
  }
  if (lessons.progress_path.empty() && !env_.settings_path.empty()) {
    lessons.progress_path = (std::filesystem::path(env_.settings_path).parent_path() / "lesson-progress.json").string();
    std::string msg;
    lessons.progress = lesson::load_progress(lessons.progress_path, msg);
    if (!msg.empty()) message(msg, true);
  }
  if (comparing()) {
    std::string err;
    set_compare("", err);  // a lesson shows one launch at a time
  }
  state.lesson = name;
  lessons.panel = true;
  const size_t at = std::min(lessons.progress.of(l.id).current, l.steps.size() - 1);
  lessons.lesson = std::move(l);
  lessons.step = at;
  // The lesson panel takes the catalog's place; an enlarged panel gives way to it.
  if (state.enlarged >= 0 && state.enlarged != int(Panel::Lesson)) state.enlarged = -1;
  message("lesson: " + lessons.lesson->title);
  goto_lesson_step(at);
  return true;
}

void Ui::close_lesson() {
  lessons.panel = false;
  lessons.lesson.reset();
  lessons.resolved.reset();
  lessons.resolved_for.reset();
  lessons.pending = false;
  state.lesson.clear();
  if (state.enlarged == int(Panel::Lesson)) state.enlarged = -1;
}

void Ui::goto_lesson_step(size_t i) {
  if (!lessons.lesson || i >= lessons.lesson->steps.size()) return;
  LessonRun& L = lessons;
  const lesson::Lesson& l = *L.lesson;
  L.step = i;
  L.resolved.reset();
  L.resolved_for.reset();
  L.error.clear();
  L.input.clear();
  L.verdict.reset();
  L.unclear.clear();
  L.reveal_time = -1;
  L.revealed = false;
  L.pending = false;
  state.playing = false;
  L.progress.seen(l, i);
  save_lesson_progress();
  const lesson::StepLaunch& launch = l.steps[i].launch;
  if (pane.model && recorder.idle() && record_due_ < 0 &&
      session::shows_launch(launch, pane.model->trace().launch().kernel, pane.model->trace().launch().params)) {
    lesson_model_arrived();
    return;
  }
  // Another launch: the catalog shows the step's, and the step follows the recording.
  const catalog::KernelInfo* k = catalog::find(launch.kernel);
  if (!k) {
    L.error = "kernel '" + launch.kernel + "' is not in this build's catalog";
    return;
  }
  state.kernel = launch.kernel;
  state.size = launch.size;
  for (const auto& p : k->params) state.params.erase(p.name);  // unset: the kernel's default
  for (const auto& [name, v] : launch.params) state.params[name] = v;
  state.blocks.clear();
  for (uint32_t b : launch.blocks) state.blocks += (state.blocks.empty() ? "" : ",") + std::to_string(b);
  L.pending = true;
  record();
  if (!status.record_error.empty()) {
    L.pending = false;
    L.error = status.record_error;
  }
}

void Ui::lesson_model_arrived() {
  LessonRun& L = lessons;
  if (!L.lesson || !pane.model) return;
  const lesson::Step& st = L.lesson->steps[L.step];
  const auto& tl = pane.model->trace().launch();
  if (!session::shows_launch(st.launch, tl.kernel, tl.params)) {
    if (L.pending && recorder.idle()) L.pending = false;  // another launch was asked for since
    return;
  }
  const bool first = !L.resolved;
  L.pending = false;
  try {
    L.resolved = lesson::resolve_step(st, pane.model->trace());
    L.resolved_for = pane.model;
    L.error.clear();
  } catch (const lesson::LessonError& e) {
    L.resolved.reset();
    L.resolved_for = pane.model;
    L.error = e.what();
    return;
  }
  if (!first) return;  // the same trace analysed again: the student's place stays
  if (L.resolved->record != lesson::Resolved::kNone) set_step(L.resolved->record);
  // What the student did here before: their right answer, or the answer they asked for.
  if (const lesson::StepProgress* sp = L.progress.step(*L.lesson, L.step); sp && L.resolved->question) {
    if (sp->correct && !sp->answer.empty()) L.verdict = L.resolved->check(sp->answer);
    // Shown as it was left, without pointing at the panel again.
    L.revealed = sp->revealed;
    L.scroll_to_answer = L.open();
  }
}

void Ui::check_lesson_answer(const std::string& answer) {
  LessonRun& L = lessons;
  if (!L.lesson || !L.resolved || !L.resolved->question) return;
  const lesson::Verdict v = L.resolved->check(answer);
  if (!v.understood) {
    L.unclear = v.explanation.empty() ? "Answer with a number, or pick one of the choices." : v.explanation;
    return;
  }
  L.unclear.clear();
  L.verdict = v;
  L.progress.answered(*L.lesson, L.step, answer, v.correct);
  const lesson::StepProgress* sp = L.progress.step(*L.lesson, L.step);
  if (v.correct) {
    L.reveal_time = time_;
    L.scroll_to_answer = true;
  } else if (sp && sp->tries >= 2) {
    // Two wrong answers: the answer is shown (and the step scores as not right first).
    L.revealed = true;
    L.reveal_time = time_;
    L.scroll_to_answer = true;
    L.progress.revealed(*L.lesson, L.step);
  }
  L.input.clear();
  save_lesson_progress();
}

void Ui::reveal_lesson_answer() {
  LessonRun& L = lessons;
  if (!L.lesson || !L.resolved || !L.resolved->question) return;
  L.revealed = true;
  L.reveal_time = time_;
  L.scroll_to_answer = true;
  L.progress.revealed(*L.lesson, L.step);
  save_lesson_progress();
}

bool Ui::lesson_veiled() const {
  const LessonRun& L = lessons;
  if (!L.waiting()) return false;
  // Not in an A/B view: it has no lesson panel to answer in.
  if (comparing()) return false;
  if (L.resolved_for != pane.model || !pane.model || L.resolved->site < 0) return false;
  // Any request of the asked-about site: they all share the answer of a site metric, and
  // their figures would hint at a request metric's.
  const auto& t = pane.model->trace();
  return pane.step < t.records.size() && t.records[pane.step].site == uint32_t(L.resolved->site);
}

int Ui::lesson_gutter_site() const {
  const LessonRun& L = lessons;
  if (!L.lesson || !L.panel || comparing() || !pane.model || L.resolved_for != pane.model) return -1;
  if (L.resolved && L.resolved->question && L.open() && L.resolved->site >= 0) return L.resolved->site;
  return -2;
}

Panel Ui::lesson_answer_panel() const {
  const LessonRun& L = lessons;
  if (!L.resolved || !L.resolved->question) return Panel::Count;
  const lesson::Metric m = L.resolved->question->ask;
  if (request_metric(m)) return Panel::Warp;
  return Panel::Source;  // site figures and request counts: the gutter
}

void Ui::save_lesson_progress() {
  if (lessons.progress_path.empty()) return;
  std::string err;
  if (!lesson::save_progress(lessons.progress, lessons.progress_path, err)) message(err, true);
}

// ---- the panel ---------------------------------------------------------------------------

void lesson_view(Ui& ui) {
  const Theme& t = theme();
  LessonRun& L = ui.lessons;
  if (!L.lesson) {
    lesson_list(ui);
    ImGui::Spacing();
    if (ImGui::SmallButton("Back to the kernels")) L.panel = false;
    return;
  }
  const lesson::Lesson& l = *L.lesson;
  const lesson::Step& st = l.steps[L.step];
  const bool on_screen = on_screen_step(ui);
  // A trace of the step's launch on screen that the step has not met yet (re-analysed, or
  // recorded again): resolve it now.
  if (on_screen && !L.pending && L.resolved_for != ui.pane.model && ui.recorder.idle()) ui.lesson_model_arrived();

  const bool present = ui.state.present;
  const lesson::Tally tally = L.progress.tally(l);
  // The text scrolls; Back and Next stay at the panel's foot.
  const float nav_h = ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y * 2 + 2;
  ImGui::BeginChild("##lesson_text", ImVec2(0, -nav_h));
  if (!present) {
    ImGui::PushStyleColor(ImGuiCol_Text, t.text_dim);
    ImGui::TextWrapped("%s", l.title.c_str());
    ImGui::PopStyleColor();
    step_dots(ui);
    ImGui::TextDisabled("step %zu of %zu · %zu of %zu right on the first try", L.step + 1, l.steps.size(), tally.right,
                        tally.questions);
    ImGui::Separator();
  }
  ImGui::PushFont(font_for(FontRole::Bold));
  if (present)
    ImGui::TextWrapped("%zu/%zu · %s", L.step + 1, l.steps.size(), st.title.c_str());
  else
    ImGui::TextWrapped("%s", st.title.c_str());
  ImGui::PopFont();
  const bool asks = on_screen && L.resolved && L.resolved->question;
  // On a projector the question comes first, under the title; the explanation follows.
  if (present && asks) question_box(ui);
  if (L.step == 0 && !l.summary.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, t.text_dim);
    paragraphs(l.summary);
    ImGui::PopStyleColor();
    ImGui::Spacing();
  }

  if (L.pending || (!on_screen && ui.recorder.busy())) {
    ImGui::TextDisabled("recording %s %s…", st.launch.kernel.c_str(), lesson::launch_text(st.launch).c_str());
  } else if (!on_screen) {
    // The student went elsewhere (the catalog, a file): one click back.
    ImGui::TextWrapped("This step shows %s %s.", st.launch.kernel.c_str(), lesson::launch_text(st.launch).c_str());
    if (ImGui::Button("Back to this step")) ui.goto_lesson_step(L.step);
  } else if (L.resolved && L.resolved->record != lesson::Resolved::kNone) {
    ImGui::PushStyleColor(ImGuiCol_Text, t.text_dim);
    ImGui::TextWrapped("%s", L.resolved->focus.c_str());
    ImGui::PopStyleColor();
    if (ui.pane.step != L.resolved->record) {
      ImGui::SameLine();
      if (ImGui::SmallButton("go there")) ui.set_step(L.resolved->record);
    }
  }
  if (!L.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, t.warn);
    ImGui::TextWrapped("%s", L.error.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::Spacing();
  paragraphs(st.text);
  if (!present && asks) question_box(ui);
  // The end of the lesson says how it went.
  if (L.step + 1 == l.steps.size()) {
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, t.good);
    ImGui::TextWrapped("End of the lesson: %zu of %zu questions right on the first try, %zu right later, %zu answers "
                       "shown.",
                       tally.right, tally.questions, tally.later, tally.revealed);
    ImGui::PopStyleColor();
  }
  ImGui::EndChild();

  // Back, next.
  ImGui::Separator();
  if (L.step > 0) {
    if (ImGui::Button("< Back")) ui.goto_lesson_step(L.step - 1);
    ImGui::SameLine();
  }
  if (L.step + 1 < l.steps.size()) {
    if (ImGui::Button(L.waiting() ? "Skip >" : "Next >")) ui.goto_lesson_step(L.step + 1);
    ImGui::SameLine();
  }
  if (ImGui::Button("Other lessons")) {
    ui.close_lesson();
    L.panel = true;  // the list, in the same place
  }
}

void lessons_menu(Ui& ui) {
  if (!ImGui::BeginMenu("Lessons")) return;
  LessonRun& L = ui.lessons;
  if (L.available.empty()) L.available = lesson::list();
  for (const lesson::Entry& e : L.available) {
    if (!e.error.empty()) continue;
    const bool open = L.lesson && L.lesson->id == e.id;
    if (ImGui::MenuItem(e.title.c_str(), nullptr, open)) ui.open_lesson(e.id);
  }
  if (L.available.empty()) ImGui::TextDisabled("no lessons in %s", lesson::lessons_dir().c_str());
  ImGui::Separator();
  if (ImGui::MenuItem("Start this lesson again", nullptr, false, L.lesson.has_value())) {
    L.progress.reset(L.lesson->id);
    ui.goto_lesson_step(0);
  }
  if (ImGui::MenuItem("All lessons…", nullptr, L.panel && !L.lesson)) {
    ui.close_lesson();
    L.panel = true;
  }
  if (ImGui::MenuItem("Close the lesson panel", nullptr, false, L.panel)) ui.close_lesson();
  ImGui::EndMenu();
}

void lesson_links(Ui& ui, const std::string& kernel) {
  LessonRun& L = ui.lessons;
  if (L.available.empty()) L.available = lesson::list();
  for (const lesson::Entry& e : L.available) {
    if (!e.error.empty()) continue;
    auto it = L.kernels.find(e.id);
    if (it == L.kernels.end()) {
      std::vector<std::string> ks;
      try {
        for (const lesson::Step& s : lesson::load(e.path).steps)
          if (std::find(ks.begin(), ks.end(), s.launch.kernel) == ks.end()) ks.push_back(s.launch.kernel);
      } catch (const lesson::LessonError&) {
      }
      it = L.kernels.emplace(e.id, std::move(ks)).first;
    }
    if (std::find(it->second.begin(), it->second.end(), kernel) == it->second.end()) continue;
    ImGui::PushID(e.id.c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, theme().accent);
    if (ImGui::Selectable(("Lesson: " + e.id + " · " + std::to_string(e.steps) + " steps").c_str())) ui.open_lesson(e.id);
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\npredict, then see", e.title.c_str());
    ImGui::PopID();
  }
}

float lesson_pointing(const Ui& ui, Panel p) {
  const LessonRun& L = ui.lessons;
  if (!L.lesson || L.reveal_time < 0 || ui.lesson_answer_panel() != p) return 0;
  return float(std::max(0.0, 1.0 - (ui.now() - L.reveal_time) / kPointOut));
}

}  // namespace ws::ui
