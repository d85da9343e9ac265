// tests/ptx/diff/diff_check.h — the PTX differential test's interpreter side: runs a
// generated case on the emulated device (ptx::parse, ptx::Device) with a fixture's inputs,
// compares its results with the GPU's (bit for bit, or within the PTX ISA's bound for an
// .approx form), and sorts every case into matched, differs, refused or missing, against
// the list of known differences kept beside the fixture.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "diff_cases.h"

namespace ws::ptxdiff {

// A case run on the interpreter: its results, or why it refused (the parser's or the
// machine's one line).
struct Run {
  bool refused = false;
  std::string why;
  std::vector<std::vector<uint64_t>> outputs;  // [thread][result]
};
Run run_on_interpreter(const std::string& module_header, const std::string& case_text, const Case& c);

// Whether the interpreter's result `mine` for result `i` of a thread agrees with the GPU's
// `gpu` under the case's tolerance ("exact"; "ulp:N"; "ulp:N:divisor", the bound holding only
// for a divisor (operand 1) of magnitude in [2^-126, 2^126]; "abs:E:angle", the bound holding
// only for an operand 0 in [-pi, pi]; "rel:E", relative error 2^E;
// "abs:E", absolute error 2^E; several joined by '|': any of them). `inputs` are the thread's
// operands. Throws FormatError for a tolerance it cannot read.
bool agrees(const Case& c, size_t i, uint64_t gpu, uint64_t mine, const std::vector<uint64_t>& inputs);

// How a case came out.
enum class Outcome { Matched, Differs, Refused, Missing };
const char* outcome_name(Outcome o);

struct Verdict {
  std::string name;
  Outcome outcome = Outcome::Matched;
  std::string detail;   // the first differing thread, or the refusal, or why it is missing
  size_t threads_differing = 0;
};

// Every case of the generated module against the fixture: Missing for a case the fixture
// lacks or holds in another version (its hash differs: the GPU must run it again).
std::vector<Verdict> check_all(const std::string& ptx, const std::vector<Case>& cases, const Fixture& fixture);

// Every thread of one case where the interpreter differs from the fixture's results, one line
// each ("thread 3 (operands): gpu ..., interpreter ..."), or the one line of its refusal.
std::vector<std::string> differing_threads(const std::string& ptx, const Case& c, const Case& fixture_case);

// The known differences: "NAME<TAB>differs|refused<TAB>reason" lines ('#' comments). Throws
// FormatError on a line without its outcome.
std::map<std::string, Outcome> read_known(const std::string& text, const std::string& file);

// What disagrees with the known list, one line each: a case without GPU results, an
// unlisted difference, a listed case that now matches (remove it) or comes out otherwise.
// An unlisted refusal is not among them: the test names refusals without failing.
std::vector<std::string> unexpected(const std::vector<Verdict>& verdicts, const std::map<std::string, Outcome>& known);

}  // namespace ws::ptxdiff
