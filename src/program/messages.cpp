// src/program/messages.cpp — what a run's tools said, read back: the compiler's messages as
// diagnostics (file, line, column), and the emulated device's lines on the program's stderr
// as the run's ending (a fault, a loop stopped).
#include <regex>
#include <sstream>

#include "program/program.h"

namespace ws::program {

std::vector<Diagnostic> parse_diagnostics(const std::string& log) {
  static const std::regex nvcc(R"(^(.+)\((\d+)\): (error|warning)[^:]*: (.*)$)");
  static const std::regex gcc(R"(^(.+?):(\d+):(\d+): (?:fatal )?(error|warning): (.*)$)");
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<Diagnostic> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    Diagnostic d;
    if (std::regex_match(lines[i], m, nvcc)) {
      d.file = m[1];
      d.line = uint32_t(std::stoul(m[2]));
      d.severity = m[3];
      d.message = m[4];
      // The quoted source line, then a caret under the place: both indented by two.
      if (i + 2 < lines.size()) {
        const size_t caret = lines[i + 2].find('^');
        if (caret != std::string::npos && lines[i + 2].find_first_not_of(" ^") == std::string::npos && caret >= 2)
          d.column = uint32_t(caret - 2 + 1);
      }
    } else if (std::regex_match(lines[i], m, gcc)) {
      d.file = m[1];
      d.line = uint32_t(std::stoul(m[2]));
      d.column = uint32_t(std::stoul(m[3]));
      d.severity = m[4];
      d.message = m[5];
    } else {
      continue;
    }
    out.push_back(std::move(d));
  }
  return out;
}

Ending ending_of(const std::string& text) {
  Ending e;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    const bool ours = l.rfind("warpscope: ", 0) == 0;
    const std::string m = ours ? l.substr(11) : l;
    if (ours && (m.find("warp instructions (an endless loop?)") != std::string::npos ||
                 m.find(" is in an endless loop: ") != std::string::npos)) {
      e.kind = "stopped";
    } else if ((ours && (m.find("out-of-bounds access") != std::string::npos || m.find("not supported yet") != std::string::npos ||
                         m.find("recursion (") != std::string::npos || m.find("nested more than") != std::string::npos)) ||
               (l.find("] Assertion `") != std::string::npos && l.find("` failed.") != std::string::npos)) {
      e.kind = "fault";
    } else {
      continue;
    }
    e.message = m;
    break;  // the first: a fault is sticky, later launches fail on it
  }
  return e;
}

}  // namespace ws::program
