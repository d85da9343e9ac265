// src/lesson/lesson.h — guided lessons that make students predict before they see.
//
// A lesson is a JSON file under assets/lessons/ (format in assets/lessons/README.md): a
// title and ordered steps. Each step names a catalog launch (or a launch of an example
// program of examples/, run on the emulated device), optionally focuses one access
// (a site picked by array and op, source text or line; a block, warp and request), shows
// a short text and may ask a question. The answer is never written in the file: it is
// computed from the recorded trace through the analysis, so a change in a kernel changes
// the answer.
//
// Typical use (GUI or CLI):
//   Lesson l = load(find("transpose"));
//   for each step s:  trace = record s.launch (session/lesson.h: lesson_recorder())
//                     Resolved r = resolve_step(s, trace);   // focus record, answer
//                     Verdict v = r.check(student_text);     // right or wrong, and why
// Pure C++: depends on the catalog, the trace and the analysis only.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace ws::lesson {

// A lesson file that cannot be used, or a step that does not fit its trace. The message
// is one line naming the file (and step) and the problem.
struct LessonError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What to record for a step: a catalog kernel, or one launch of an example program (a
// CUDA file of examples/, run on the emulated device with its arguments).
struct StepLaunch {
  std::string kernel;                      // catalog id ("" for a program)
  int64_t size = 0;                        // 0: the kernel's teaching size
  std::map<std::string, int64_t> params;   // kernel parameters besides size
  std::vector<uint32_t> blocks;            // blocks to record; empty: every block
  std::string program;                     // "tma_ring.cu": a file of examples/ instead of a kernel
  std::vector<std::string> args;           // the program's arguments
  uint32_t launch = 0;                     // the program's launch the step shows, from 0 (files: from 1)
  bool is_program() const { return !program.empty(); }
  bool operator==(const StepLaunch&) const = default;
};

// The access a step points at. Site selectors left empty match anything; among several
// matching sites the one with the lowest source line (then the lowest index) is taken.
struct Focus {
  std::string array;            // buffer name ("tile", "A"); "" = any
  std::optional<trace::Op> op;  // load / store / atomic; none = any
  std::string code;             // text the site's source line contains (blanks ignored)
  uint32_t line = 0;            // source line of the kernel file; 0 = any
  uint32_t block = 0;           // linear block id
  uint32_t warp = 0;            // warp within the block
  uint32_t request = 0;         // n-th request of that warp at the site, from 0 (files count from 1)
  // True when the focus names a site (array, op, code or line), not just a warp.
  bool names_site() const { return !array.empty() || op || !code.empty() || line; }
};

// What a question asks. Request metrics are about the focused request; site metrics
// average over every recorded request of the focused site; choices are mapped from the
// metrics (coalescing: global and sectors == ideal sectors → "coalesced").
enum class Metric {
  Sectors,        // 32-byte sectors of the request (global)
  Lines,          // 128-byte lines of the request (global)
  IdealSectors,   // fewest sectors that could hold its bytes (global)
  Efficiency,     // bytes requested / bytes moved, in % (global)
  Wavefronts,     // shared wavefronts of the request (shared)
  Way,            // n-way bank conflict of the request: 1 = conflict free (shared)
  Conflicts,      // bank conflicts of the request = wavefronts - ideal (shared)
  Requests,       // requests the focused warp issues at the site (any)
  SiteSectors,    // sectors per request at the site (global)
  SiteEfficiency, // % at the site (global)
  SiteWavefronts, // wavefronts per request at the site (shared)
  SiteConflicts,  // bank conflicts per request at the site (shared)
  SiteWay,        // worst n-way at the site (shared)
  CopyBytes,      // bytes one bulk (TMA) copy instruction moves: every record of its issue
  StagesFit,      // copies of the focused bulk copy's size that fit in 227 KiB of shared memory
  MulticastBytes, // bytes a multicast bulk copy landed in the cluster's other CTAs, unasked by them
  RegistersGiven, // registers the focused warp's warpgroup gives back with setmaxnreg.dec
  Coalescing,     // choice: coalesced / uncoalesced / n/a (shared memory)
  BankConflict,   // choice: conflict-free / bank conflict / n/a (global memory)
};

// What a wrong answer's feedback points at instead of the figure: how to work it out.
std::string where_to_look(Metric m);

struct MetricInfo {
  Metric metric;
  const char* name;         // as written in lesson files: "sectors", "site_way", ...
  const char* description;  // one line, for lesson authors
  std::vector<std::string> choices;  // choice metrics: the options, in order; else empty
  double tolerance = 0;     // default accepted distance from the answer (numbers)
};
// Every metric, in the order above.
const std::vector<MetricInfo>& metrics();
// The metric's entry.
const MetricInfo& info(Metric m);

struct Question {
  Metric ask = Metric::Sectors;
  std::string prompt;               // what the student is asked
  double tolerance = 0;             // numbers: |answer - expected| <= tolerance is right
  std::vector<std::string> choices; // choice questions: the options (from the metric)
  bool is_choice() const { return !choices.empty(); }
};

struct Step {
  std::string title;
  StepLaunch launch;
  std::optional<Focus> focus;
  std::string text;                 // shown before the question; markdown-ish (see paragraphs())
  std::optional<Question> question;
  std::string after;                // shown with the answer; may use {answer}, {why} and
                                    // metric placeholders ({sectors}, {way}, ...)
  std::string where;                // "basics.json, step 3", for messages
};

struct Lesson {
  std::string id;       // file name without .json
  std::string path;
  std::string title;
  std::string summary;
  int order = 100;      // position in the lesson list (lower first)
  std::vector<Step> steps;
};

// ---- files ---------------------------------------------------------------------------

// Parses lesson JSON `text`; `name` (a file name) prefixes error messages and gives the id.
// Throws LessonError.
Lesson parse(const std::string& text, const std::string& name);
// Reads and parses a lesson file. Throws LessonError.
Lesson load(const std::string& path);

// The bundled lessons folder: $WARPSCOPE_LESSONS when set, else lessons/ of the assets
// (trace::find_asset: beside the binary, installed, or the source tree).
std::string lessons_dir();

struct Entry {
  std::string id, path, title;
  int order = 100;
  size_t steps = 0;
  std::string error;  // non-empty: the file does not load, and why
};
// The lessons in `dir`, by order then id; files that fail to load are listed with their
// error rather than dropped.
std::vector<Entry> list(const std::string& dir = lessons_dir());

// A lesson file from a path, or a name in `dir` ("basics" → dir/basics.json). Throws
// LessonError naming the lessons available.
std::string find(const std::string& name_or_path, const std::string& dir = lessons_dir());

// ---- steps against traces -------------------------------------------------------------

// A computed answer.
struct Answer {
  double value = 0;   // numbers (and, for choices, the index into the choices)
  std::string text;   // "32 sectors", "32-way", "12.5%", "coalesced"
};

// The outcome of checking a student's answer.
struct Verdict {
  bool understood = false;  // the answer parsed (a number, or one of the choices)
  bool correct = false;
  // One line. Right: the answer and why (analysis::why). Wrong: what was said and where to
  // look — never the answer, which is shown only when the student asks or has tried twice.
  std::string explanation;
};

struct Resolved {
  static constexpr uint64_t kNone = ~uint64_t(0);
  uint64_t record = kNone;  // index into Trace::records of the focused request
  int32_t site = -1;        // index into Trace::sites of its site
  std::string focus;        // "line 60 · tile store · block 0 warp 0 request 0"
  std::string code;         // the site's source line
  std::string why;          // analysis' line for the request (site line for site metrics)
  std::optional<Question> question;
  Answer answer;            // meaningful when question is set
  std::string after;        // the step's `after` text with its placeholders filled
  // Checks a student's answer ("32", "32-way", "12.5%", "coalesced", "n/a", "2" for the
  // second choice). An empty or unparsable answer is not understood, and not correct.
  Verdict check(const std::string& student) const;
};

// Finds the step's focus in `t` and computes the answer. Throws LessonError when the focus
// is not in the trace or the question does not apply to the focused access.
Resolved resolve_step(const Step& step, const trace::Trace& t);

// A plausible answer that check() must reject (for tests and self-checks).
std::string wrong_answer(const Resolved& r);

// ---- running a lesson headless ----------------------------------------------------------

// Records a launch (session/lesson.h has one over the capture). May throw.
using Recorder = std::function<trace::Trace(const StepLaunch&)>;

// Remembers the traces already recorded, so steps sharing a launch share a trace.
class Traces {
 public:
  explicit Traces(Recorder rec) : rec_(std::move(rec)) {}
  // The trace of `l`, recorded on first use; the reference stays valid while *this lives.
  const trace::Trace& get(const StepLaunch& l);

 private:
  Recorder rec_;
  std::deque<std::pair<StepLaunch, trace::Trace>> cache_;
};

struct StepRun {
  size_t step = 0;
  Resolved resolved;
  std::string error;      // recording or resolving failed
  Verdict right, wrong;   // the computed answer and wrong_answer() put through check()
  bool ok = false;        // no error; when there is a question: right accepted, wrong rejected
};

struct RunReport {
  std::vector<StepRun> steps;
  size_t questions = 0;
  bool ok = false;        // every step ok
};

// Records every step, computes every answer, answers each question right and wrong and
// verifies the checks. Never throws for a step: failures land in StepRun::error.
RunReport run(const Lesson& lesson, const Recorder& rec);

// ---- text --------------------------------------------------------------------------------

// Step `i` as a terminal shows it before the answer: header, launch, focus, text, question.
std::string format_step(const Lesson& lesson, size_t i, const Resolved& r, int width = 80);
// The answer part: answer, why, and the `after` text.
std::string format_reveal(const Resolved& r, int width = 80);
// The whole lesson as a text walkthrough with every answer revealed (`reveal` false: a
// worksheet with the questions only).
std::string walkthrough(const Lesson& lesson, const RunReport& rep, bool reveal = true, int width = 80);
// A lesson in a terminal, one step at a time: prints each step, reads the student's answer
// from `in` (an empty line reveals it; a number or choice is checked and explained; end of
// input reveals the rest without waiting), and waits for Enter between steps.
struct TeachResult {
  size_t questions = 0;  // questions shown
  size_t answered = 0;   // questions the student answered (not just revealed)
  size_t right = 0;
  size_t errors = 0;     // steps that could not be recorded or resolved
};
TeachResult teach(const Lesson& lesson, const Recorder& rec, std::istream& in, std::ostream& out, int width = 80);

// Lesson text as display paragraphs: consecutive lines join into one paragraph, a blank
// line separates paragraphs (kept as ""), a line starting with "- " starts a bullet (kept
// with its "- "), a line indented by four spaces is code (kept as written). `code` spans
// stay in the text.
std::vector<std::string> paragraphs(const std::string& text);
// The paragraphs wrapped to `width` columns, every line after `indent` spaces.
std::string wrap(const std::string& text, int width, int indent = 0);
// "size=64 pad=1" (size first; size 0 shown as the kernel's teaching size).
std::string launch_text(const StepLaunch& l);

}  // namespace ws::lesson
