// tests/ptx/diff/cpu_run.cpp — the PTX differential test's cases on the interpreter, by hand:
//
//   ptx_diff_cpu PTX CASES --report FIXTURE        every case's verdict against FIXTURE, the
//                                                   first differing thread of each (exit 1 if any)
//   ptx_diff_cpu PTX CASES --report FIXTURE NAME   every differing thread of the case NAME
//   ptx_diff_cpu PTX CASES --coverage OPCODES_DEF  what the cases leave unexercised of the forms
//                                                   an opcodes.def (any version of it) accepts
//   ptx_diff_cpu PTX CASES --write-fixture FILE    the interpreter's own results as a fixture,
//                                                   for trying the pipeline without a GPU; its
//                                                   device line says "interpreter", and the test
//                                                   refuses it: only a GPU's results belong in
//                                                   tests/ptx/fixtures/diff/
#include <algorithm>
#include <cstdio>
#include <fstream>

#include "diff_check.h"
#include "diff_forms.h"

using namespace ws::ptxdiff;

namespace {

int report(const std::string& ptx, const std::vector<Case>& cases, const char* path, const char* only) {
  std::string text;
  if (!read_file(path, text)) {
    std::fprintf(stderr, "ptx_diff_cpu: cannot read %s\n", path);
    return 2;
  }
  const Fixture f = read_fixture(text, path);
  if (!f.from_gpu) std::printf("note: %s was not made on a GPU (device %s)\n", path, f.device.c_str());
  if (only) {
    auto c = std::find_if(cases.begin(), cases.end(), [&](const Case& k) { return k.name == only; });
    auto g = f.cases.find(only);
    if (c == cases.end() || g == f.cases.end() || g->second.hash != c->hash) {
      std::fprintf(stderr, "ptx_diff_cpu: no case '%s' with GPU results in %s\n", only, path);
      return 2;
    }
    const std::vector<std::string> lines = differing_threads(ptx, *c, g->second);
    for (const std::string& l : lines) std::printf("%s\n", l.c_str());
    if (lines.size() == 1 && lines[0].rfind("refused: ", 0) == 0) return 1;
    std::printf("%s: %zu of %u threads differ\n", only, lines.size(), c->threads);
    return lines.empty() ? 0 : 1;
  }
  size_t counts[4] = {};
  for (const Verdict& v : check_all(ptx, cases, f)) {
    ++counts[size_t(v.outcome)];
    if (v.outcome != Outcome::Matched) std::printf("%s | %s | %s\n", v.name.c_str(), outcome_name(v.outcome), v.detail.c_str());
  }
  std::printf("%zu cases against %s: %zu matched, %zu differ, %zu refused, %zu without results\n", cases.size(),
              f.device.c_str(), counts[0], counts[1], counts[2], counts[3]);
  return counts[0] == cases.size() ? 0 : 1;
}

int write(const std::string& ptx, std::vector<Case> cases, const char* path) {
  const Module m = split_module(ptx);
  size_t refused = 0;
  std::vector<Case> ran;
  for (Case& c : cases) {
    const Run r = run_on_interpreter(m.header, m.cases.at(c.name), c);
    if (r.refused) {  // no results to record: the case stays out, and is named
      std::printf("refused: %s: %s\n", c.name.c_str(), r.why.c_str());
      ++refused;
      continue;
    }
    c.outputs = r.outputs;
    ran.push_back(std::move(c));
  }
  std::ofstream f(path, std::ios::binary);
  f << write_fixture("interpreter | warpscope's PTX interpreter (not a GPU: for local tries only)", ran);
  if (!f.flush()) {
    std::fprintf(stderr, "ptx_diff_cpu: cannot write %s\n", path);
    return 2;
  }
  std::printf("%zu cases written to %s, %zu refused\n", ran.size(), path, refused);
  return 0;
}

int coverage(const std::vector<Case>& cases, const char* path) {
  std::string text;
  if (!read_file(path, text)) {
    std::fprintf(stderr, "ptx_diff_cpu: cannot read %s\n", path);
    return 2;
  }
  const Accepted a = read_accepted(text, path);
  const std::vector<std::string> lines = uncovered(a, cases);
  for (const std::string& l : lines) std::printf("%s\n", l.c_str());
  std::printf("%zu opcodes, %zu forms in %s: %zu gaps\n", a.opcodes.size(), a.forms.size(), path, lines.size());
  return lines.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc == 5 || argc == 6 ? argv[3] : "";
  if ((mode != "--report" && mode != "--write-fixture" && mode != "--coverage") || (argc == 6 && mode != "--report")) {
    std::fprintf(stderr,
                 "usage: ptx_diff_cpu PTX CASES --report FIXTURE [NAME] | --coverage OPCODES_DEF | --write-fixture FILE\n");
    return 2;
  }
  std::string ptx, text;
  if (!read_file(argv[1], ptx) || !read_file(argv[2], text)) {
    std::fprintf(stderr, "ptx_diff_cpu: cannot read %s or %s\n", argv[1], argv[2]);
    return 2;
  }
  try {
    const std::vector<Case> cases = read_cases(text, argv[2]);
    if (mode == "--coverage") return coverage(cases, argv[4]);
    return mode == "--report" ? report(ptx, cases, argv[4], argc == 6 ? argv[5] : nullptr) : write(ptx, cases, argv[4]);
  } catch (const FormatError& e) {
    std::fprintf(stderr, "ptx_diff_cpu: %s\n", e.what());
    return 2;
  }
}
