// src/ui/controls.h — the panels and windows that drive the controllers: the catalog and a
// program's panel, the lesson panel, the timing ladder, the timeline's transport, the menus,
// the dialogs and the banner of what stopped a program. Each takes the Ui it drives; the
// panels that only draw the trace are in ui/views (a ViewContext each).
#pragma once
#include <string>
#include <vector>

#include "ui/ui.h"
#include "ui/views/views.h"

namespace ws::ui {

// ---- timeline ---------------------------------------------------------------------------

// A commit, wait or mma of the launch on the timeline's strip.
struct TimelineMark {
  float x = 0;                     // pixels from the strip's left end
  trace::Form kind = trace::Form::Wait;
  uint32_t event = 0;              // index into the trace's events
  uint64_t step = 0;               // the request it is marked at (analysis::EventMark::when: in time)
};
// The marks of the launch's events on a strip `width` pixels wide, in the order of the
// events: one a kind per pixel column (the first there), waits and commits before mmas.
std::vector<TimelineMark> timeline_marks(const Session& m, float width);

// The Launch menu's item for launch `k` (from 0) of `m`: its number, kernel and shape, and
// what stopped the program there when `p` is of that launch ("stopped here: ..." / "races
// here: ...": marked where the user looks for it); "" for a launch `m` does not have.
std::string launch_label(const Session& m, uint32_t k, const program::Problem& p);

// The timeline's key, laid out in `sc` from x = 0 in a row `height` tall: what the bars'
// height and colour mean, the waits' marks (when `waits`: a launch with async copies,
// mbarriers or mma) and the slide flag (when `slides`). Words give way first when `room` is
// short; returns the width used (0: nothing fits).
float timeline_legend(Scene& sc, float room, float height, bool slides, bool waits = false);

// ---- timing panel -----------------------------------------------------------------------

struct TimingLadder;  // ui/timing.h
struct LadderRow;
// The timing panel's bars in `width`, from y = 0: the scale (0, 50 and 100 % of the
// reference), then one row per ladder row (name and variant, a bar on the fixed scale,
// value and percentage printed as measured), the row on screen lit; in small type when
// that is what fits the rows in `height` (0: no limit). Returns the height; `rows` gets
// each row's box.
float timing_scene(Scene& sc, const TimingLadder& l, float width, float height = 0,
                   std::vector<SceneBox>* rows = nullptr);
// A row's figures as its bar prints them: "3520 · 86%", "0.153 ms", "not timed".
std::string timing_value_text(const LadderRow& r);

// ---- the panels and windows that are a controller's controls -------------------------
void catalog_view(Ui& ui);
// The catalog panel while a program is open: its kernels, launches and arrays (program_panel.cpp).
void program_panel(Ui& ui);
void timeline_view(Ui& ui, Pane& p);
void timing_view(Ui& ui);
void lesson_view(Ui& ui);
void lessons_menu(Ui& ui);        // the Lessons menu (lesson_view.cpp)
// Buttons opening the lessons that show `kernel` (the catalog draws them under its ladder).
void lesson_links(Ui& ui, const std::string& kernel);
// The published texts kernel `k` reproduces (book chapter, blog post, kernel number), what
// each claims, and a button that sets the parameters reproducing it (catalog_view.cpp).
void source_refs(Ui& ui, const catalog::KernelInfo& k);
// How strongly panel `p` is outlined as the one that shows the answer just given: 1 when
// the answer comes out, fading to 0 over a few seconds (0: not that panel, or no answer).
float lesson_pointing(const Ui& ui, Panel p);
inline bool lesson_points_at(const Ui& ui, Panel p) { return lesson_pointing(ui, p) > 0; }
void help_overlay(Ui& ui);
void menu_bar(Ui& ui, float& height);
void status_bar(Ui& ui, ImVec2 min, ImVec2 max);
void file_dialogs(Ui& ui);
// The compiler's messages of a program that did not build, with the lines they point at.
void build_errors_window(Ui& ui);
// What the shown program printed (File → Program output).
void program_output_window(Ui& ui);
// The banner of what stopped the program (ui.status.problem) at the cursor, across the
// window, the cursor moved below it; nothing when nothing did (problem_banner.cpp).
void problem_banner(Ui& ui, const Pane& p, bool foot);
void classroom_dialogs(Ui& ui);   // slide caption, compare picker (slides.cpp)
void slides_menu(Ui& ui);         // the Slides menu (slides.cpp)
void export_dialog(Ui& ui);       // File → Export figure… (export_dialog.cpp)
// Writes the figure the dialog's fields describe (view, size, caption, path) of the step on
// screen; false and `error` when it cannot.
bool export_figure(Ui& ui, std::string& error);
void compare_strip(Ui& ui);       // A/B differences (compare.cpp)
// A side of an A/B that a fault stopped or a race marked, a line each ("" when neither):
// what the strip says instead of comparing costs (compare.cpp).
std::string ab_stopped(const Session& a, const Session& b);
AbTitles ab_titles(const Session& a, const Session& b);

// Draws `pieces` one after another, wrapping only between them (a figure never breaks
// across lines); a piece wider than the panel goes word by word (timing_view.cpp).
void flow_pieces(const std::vector<std::string>& pieces, ImU32 color, float indent = 0);

}  // namespace ws::ui
