// src/ui/lesson_view.cpp — the lesson panel and the Lessons menu: a lesson of
// assets/lessons step by step, as LessonController (lesson_controller.h) plays it. Each
// step opens its kernel, parameters and request on screen; a question asks for a
// prediction while the views that would give the answer away are veiled; the answer is then
// checked against the figure the analysis computes from the trace on screen, and the panel
// that shows it is pointed out.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "session/lesson.h"
#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::ui {

namespace {

// Seconds the panel that shows an answer stays outlined once the answer is out.
constexpr double kPointOut = 4.0;

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
  const lesson::Lesson& l = *ui.lessons.run.lesson;
  const float r = std::round(ImGui::GetFontSize() * 0.32f), gap = r * 1.2f;
  const float w = ImGui::GetContentRegionAvail().x;
  const int per_row = std::max(1, int((w + gap) / (2 * r + gap)));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (size_t i = 0; i < l.steps.size(); ++i) {
    if (i % size_t(per_row)) ImGui::SameLine(0, gap);
    const ImVec2 a = ImGui::GetCursorScreenPos();
    ImGui::PushID(int(i));
    if (ImGui::InvisibleButton("##dot", ImVec2(2 * r, 2 * r))) ui.lessons.go_to(i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("step %zu · %s", i + 1, l.steps[i].title.c_str());
    ImGui::PopID();
    const ImVec2 c(a.x + r, a.y + r);
    const bool done = ui.lessons.run.progress.done(l, i);
    const bool asks = l.steps[i].question.has_value();
    if (done) dl->AddCircleFilled(c, r - 1, asks ? t.good : t.text_dim);
    else dl->AddCircle(c, r - 1.5f, t.text_dim, 0, 1.5f);
    if (i == ui.lessons.run.step) dl->AddCircle(c, r + 2, t.accent, 0, 2.5f);
  }
}

// The lessons of the lessons folder, each a button with its progress.
void lesson_list(Ui& ui) {
  LessonRun& L = ui.lessons.run;
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
    if (ImGui::Button(label.c_str(), ImVec2(-1, 0))) ui.lessons.open(e.id);
    ImGui::TextDisabled("  %zu steps%s", e.steps,
                        done ? (" · " + std::to_string(std::min(done, e.steps)) + " visited").c_str() : "");
    ImGui::PopID();
  }
}

// The step's launch is the trace on screen.
bool on_screen_step(const Ui& ui) { return ui.lessons.shows_step(); }

// What a step shows, by name: its catalog kernel, or its example program's file.
std::string shown_name(const lesson::StepLaunch& l) { return l.is_program() ? l.program : l.kernel; }

// The question, the answer box and, once answered or revealed, the answer with the view.
void question_box(Ui& ui) {
  const Theme& t = theme();
  LessonRun& L = ui.lessons.run;
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
        if (ImGui::Button(q.choices[c].c_str())) ui.lessons.check(q.choices[c]);
        ImGui::PopID();
      }
    } else {
      const float bw = ImGui::CalcTextSize("Check").x + ImGui::GetStyle().FramePadding.x * 2;
      ImGui::SetNextItemWidth(std::max(60.0f, ImGui::GetContentRegionAvail().x - bw - ImGui::GetStyle().ItemSpacing.x));
      const bool enter = ImGui::InputTextWithHint("##answer", L.verdict ? "try again" : "your prediction (a number)", &L.input,
                                                  ImGuiInputTextFlags_EnterReturnsTrue);
      ImGui::SameLine();
      if ((ImGui::Button("Check") || enter) && !L.input.empty()) ui.lessons.check(L.input);
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
    if (ImGui::SmallButton(L.verdict ? "Show me the answer" : "I don't know: show me")) ui.lessons.reveal();
    // Once, when the question comes up or an answer was wrong: its box, hint and buttons in
    // view (a short panel, 1280x720, would leave them below its fold).
    if (L.scroll_to_question) {
      ImGui::SetScrollHereY(1.0f);
      --L.scroll_to_question;
    }
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
    --L.scroll_to_answer;
  }
  const bool said = L.verdict && L.verdict->correct;  // the verdict line gave the why already
  if (!r.why.empty() && !said) ImGui::TextWrapped("%s", r.why.c_str());
  if (!r.after.empty()) {
    ImGui::Spacing();
    paragraphs(r.after);
  }
  if (const char* where = panel_phrase(ui.lessons.answer_panel()); *where) {
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, t.text_dim);
    ImGui::TextWrapped("%s", where);
    ImGui::PopStyleColor();
  }
}

}  // namespace

// ---- the panel ---------------------------------------------------------------------------

void lesson_view(Ui& ui) {
  const Theme& t = theme();
  LessonRun& L = ui.lessons.run;
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
  if (on_screen && !L.pending && L.resolved_for != ui.pane.model && ui.recorder.idle()) ui.lessons.model_arrived();

  const bool present = ui.state.present;
  const lesson::Tally tally = L.progress.tally(l);
  // The step's title stays at the top, whole, however far the text under it has scrolled
  // (to the question, on a short panel); the text scrolls; Back and Next stay at the foot.
  ImGui::PushFont(font_for(FontRole::Bold));
  ImGui::TextWrapped("%zu/%zu · %s", L.step + 1, l.steps.size(), st.title.c_str());
  ImGui::PopFont();
  // A rule under the pinned title: the text under it scrolls (a line half under the rule is
  // read as scrolled, not as drawn over the title).
  ImGui::Separator();
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
  // The question follows the explanation, in every mode (the box scrolls itself into view
  // when it comes up, on a short panel).
  const bool asks = on_screen && L.resolved && L.resolved->question;
  if (L.step == 0 && !l.summary.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, t.text_dim);
    paragraphs(l.summary);
    ImGui::PopStyleColor();
    ImGui::Spacing();
  }

  if (L.pending || (!on_screen && ui.recorder.busy())) {
    ImGui::TextDisabled("%s %s %s…", st.launch.is_program() ? "compiling and running" : "recording", shown_name(st.launch).c_str(),
                        lesson::launch_text(st.launch).c_str());
  } else if (!on_screen) {
    // The student went elsewhere (the catalog, a file): one click back.
    ImGui::TextWrapped("This step shows %s %s.", shown_name(st.launch).c_str(), lesson::launch_text(st.launch).c_str());
    if (ImGui::Button("Back to this step")) ui.lessons.go_to(L.step);
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
  if (asks) question_box(ui);
  // The end of the lesson says how it went, once its last step is shown and answered.
  if (L.step + 1 == l.steps.size() && on_screen && !L.pending && !L.waiting()) {
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
    if (ImGui::Button("< Back")) ui.lessons.go_to(L.step - 1);
    ImGui::SameLine();
  }
  if (L.step + 1 < l.steps.size()) {
    if (ImGui::Button(L.waiting() ? "Skip >" : "Next >")) ui.lessons.go_to(L.step + 1);
    ImGui::SameLine();
  }
  if (ImGui::Button("Other lessons")) {
    ui.lessons.close();
    L.panel = true;  // the list, in the same place
  }
}

void lessons_menu(Ui& ui) {
  if (!ImGui::BeginMenu("Lessons")) return;
  LessonRun& L = ui.lessons.run;
  if (L.available.empty()) L.available = lesson::list();
  for (const lesson::Entry& e : L.available) {
    if (!e.error.empty()) continue;
    const bool open = L.lesson && L.lesson->id == e.id;
    if (ImGui::MenuItem(e.title.c_str(), nullptr, open)) ui.lessons.open(e.id);
  }
  if (L.available.empty()) ImGui::TextDisabled("no lessons in %s", lesson::lessons_dir().c_str());
  ImGui::Separator();
  if (ImGui::MenuItem("Start this lesson again", nullptr, false, L.lesson.has_value())) {
    L.progress.reset(L.lesson->id);
    ui.lessons.go_to(0);
  }
  if (ImGui::MenuItem("All lessons…", nullptr, L.panel && !L.lesson)) {
    ui.lessons.close();
    L.panel = true;
  }
  if (ImGui::MenuItem("Close the lesson panel", nullptr, false, L.panel)) ui.lessons.close();
  ImGui::EndMenu();
}

void lesson_links(Ui& ui, const std::string& kernel) {
  LessonRun& L = ui.lessons.run;
  if (L.available.empty()) L.available = lesson::list();
  for (const lesson::Entry& e : L.available) {
    if (!e.error.empty()) continue;
    auto it = L.kernels.find(e.id);
    if (it == L.kernels.end()) {
      std::vector<std::string> ks;
      try {
        for (const lesson::Step& s : lesson::load(e.path).steps)
          if (!s.launch.is_program() && std::find(ks.begin(), ks.end(), s.launch.kernel) == ks.end())
            ks.push_back(s.launch.kernel);
      } catch (const lesson::LessonError&) {
      }
      it = L.kernels.emplace(e.id, std::move(ks)).first;
    }
    if (std::find(it->second.begin(), it->second.end(), kernel) == it->second.end()) continue;
    ImGui::PushID(e.id.c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, theme().accent);
    if (ImGui::Selectable(("Lesson: " + e.id + " · " + std::to_string(e.steps) + " steps").c_str())) ui.lessons.open(e.id);
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\npredict, then see", e.title.c_str());
    ImGui::PopID();
  }
}

float lesson_pointing(const Ui& ui, Panel p) {
  const LessonRun& L = ui.lessons.run;
  if (!L.lesson || L.reveal_time < 0 || ui.lessons.answer_panel() != p) return 0;
  return float(std::max(0.0, 1.0 - (ui.now() - L.reveal_time) / kPointOut));
}

}  // namespace ws::ui
