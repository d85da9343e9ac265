// src/lesson/text.cpp — lessons as terminal text: wrapped paragraphs, one step, the reveal,
// and the whole walkthrough (answers shown, or a worksheet without them).
#include <istream>
#include <ostream>
#include <sstream>

#include "catalog.h"
#include "lesson/lesson.h"

namespace ws::lesson {
namespace {

// Characters, not UTF-8 bytes.
size_t width_of(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> w;
  std::istringstream in(s);
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

// One paragraph, the first line after `first`, the others after `rest`.
void wrap_paragraph(std::string& out, const std::string& para, int width, const std::string& first,
                    const std::string& rest) {
  std::string line = first;
  size_t used = width_of(first);
  bool empty = true;
  for (const auto& w : words(para)) {
    size_t ww = width_of(w);
    if (!empty && used + 1 + ww > size_t(width)) {
      out += line + "\n";
      line = rest;
      used = width_of(rest);
      empty = true;
    }
    if (!empty) {
      line += ' ';
      ++used;
    }
    line += w;
    used += ww;
    empty = false;
  }
  out += line + "\n";
}

std::string labelled(const std::string& label, const std::string& text, int width, int indent) {
  std::string pad(size_t(indent), ' ');
  std::string lab = pad + label;
  std::string out;
  std::istringstream in(text);
  bool first = true;
  for (std::string para; std::getline(in, para);) {
    std::string head = first ? lab : pad + std::string(width_of(label), ' ');
    wrap_paragraph(out, para, width, head, pad + std::string(width_of(label), ' '));
    first = false;
  }
  if (first) out += lab + "\n";
  return out;
}

}  // namespace

std::vector<std::string> paragraphs(const std::string& text) {
  std::vector<std::string> out;
  bool open = false;  // the last paragraph or bullet takes continuation lines
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) {
      if (open || (!out.empty() && !out.back().empty())) out.push_back("");
      open = false;
    } else if (line.rfind("    ", 0) == 0) {
      out.push_back(line);  // code, as written
      open = false;
    } else {
      size_t b = line.find_first_not_of(' ');
      std::string body = line.substr(b);
      if (body.rfind("- ", 0) == 0) {
        out.push_back(body);
        open = true;
      } else if (open) {
        out.back() += " " + body;
      } else {
        out.push_back(body);
        open = true;
      }
    }
  }
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

std::string wrap(const std::string& text, int width, int indent) {
  std::string out;
  const std::string pad(size_t(std::max(indent, 0)), ' ');
  for (const std::string& p : paragraphs(text)) {
    if (p.empty()) out += "\n";
    else if (p.rfind("    ", 0) == 0) out += pad + p + "\n";
    else if (p.rfind("- ", 0) == 0) wrap_paragraph(out, p.substr(2), width, pad + "- ", pad + "  ");
    else wrap_paragraph(out, p, width, pad, pad);
  }
  return out;
}

std::string launch_text(const StepLaunch& l) {
  if (l.is_program()) {
    std::string s;
    for (const auto& a : l.args) s += (s.empty() ? "" : " ") + a;
    return (s.empty() ? "" : s + ", ") + "launch " + std::to_string(l.launch + 1);
  }
  int64_t size = l.size;
  if (!size)
    if (const auto* k = catalog::find(l.kernel)) size = k->teach_size;
  std::string s = "size=" + std::to_string(size);
  for (const auto& [name, v] : l.params) s += " " + name + "=" + std::to_string(v);
  if (!l.blocks.empty()) {
    s += " blocks=";
    for (size_t i = 0; i < l.blocks.size(); ++i) s += (i ? "," : "") + std::to_string(l.blocks[i]);
  }
  return s;
}

std::string format_step(const Lesson& lesson, size_t i, const Resolved& r, int width) {
  const Step& s = lesson.steps.at(i);
  std::string out;
  std::string head = "Step " + std::to_string(i + 1) + "/" + std::to_string(lesson.steps.size()) + " · " + s.title;
  out += head + "\n" + std::string(std::min<size_t>(width_of(head), size_t(width)), '-') + "\n";
  out += (s.launch.is_program() ? "program " + s.launch.program : "kernel  " + s.launch.kernel) + "  " + launch_text(s.launch) + "\n";
  if (r.record != Resolved::kNone) {
    out += "focus   " + r.focus + "\n";
    out += "        " + r.code + "\n";
  }
  out += "\n" + wrap(s.text, width);
  if (r.question) {
    out += "\n" + labelled("Predict: ", r.question->prompt, width, 0);
    if (r.question->is_choice()) {
      std::string opts;
      for (size_t c = 0; c < r.question->choices.size(); ++c)
        opts += (c ? "   " : "") + std::string("(") + std::to_string(c + 1) + ") " + r.question->choices[c];
      out += "         " + opts + "\n";
    }
  }
  return out;
}

std::string format_reveal(const Resolved& r, int width) {
  std::string out;
  if (r.question) {
    out += labelled("Answer:  ", r.answer.text, width, 0);
    out += labelled("Why:     ", r.why, width, 0);
  } else if (r.record != Resolved::kNone) {
    out += labelled("Look:    ", r.why, width, 0);
  }
  if (!r.after.empty()) out += "\n" + wrap(r.after, width);
  return out;
}

std::string walkthrough(const Lesson& lesson, const RunReport& rep, bool reveal, int width) {
  std::string out = lesson.title + "\n" + std::string(std::min<size_t>(width_of(lesson.title), size_t(width)), '=') + "\n";
  if (!lesson.summary.empty()) out += wrap(lesson.summary, width);
  for (const StepRun& sr : rep.steps) {
    out += "\n";
    if (!sr.error.empty() && sr.resolved.record == Resolved::kNone && !sr.resolved.question) {
      const Step& s = lesson.steps.at(sr.step);
      out += "Step " + std::to_string(sr.step + 1) + "/" + std::to_string(lesson.steps.size()) + " · " + s.title + "\n";
      out += "error: " + sr.error + "\n";
      continue;
    }
    out += format_step(lesson, sr.step, sr.resolved, width);
    if (reveal) {
      out += "\n" + format_reveal(sr.resolved, width);
    } else if (sr.resolved.question) {
      out += "         Your answer: ____________\n";
    }
    if (!sr.error.empty()) out += "error: " + sr.error + "\n";
  }
  if (reveal) {
    out += "\n";
    if (rep.ok)
      out += wrap("Checked: " + std::to_string(rep.questions) + " question" + (rep.questions == 1 ? "" : "s") +
                      ", every answer computed from the trace; each accepts the right answer and rejects a wrong one.",
                  width);
    else
      out += "Some steps failed: see the errors above.\n";
  }
  return out;
}

TeachResult teach(const Lesson& lesson, const Recorder& rec, std::istream& in, std::ostream& out, int width) {
  TeachResult res;
  Traces traces(rec);
  bool interactive = true;  // false once the input has ended
  auto read = [&](const char* prompt, std::string& line) {
    if (!interactive) return false;
    out << prompt << std::flush;
    if (std::getline(in, line)) return true;
    interactive = false;
    out << "\n";
    return false;
  };
  out << lesson.title << "\n" << std::string(std::min<size_t>(width_of(lesson.title), size_t(width)), '=') << "\n";
  if (!lesson.summary.empty()) out << wrap(lesson.summary, width);
  for (size_t i = 0; i < lesson.steps.size(); ++i) {
    const Step& s = lesson.steps[i];
    out << "\n";
    Resolved r;
    try {
      r = resolve_step(s, traces.get(s.launch));
    } catch (const std::exception& e) {
      ++res.errors;
      out << "Step " << i + 1 << "/" << lesson.steps.size() << " · " << s.title << "\n";
      std::string msg = e.what();
      out << "error: " << (msg.rfind(s.where, 0) == 0 ? msg : s.where + ": " + msg) << "\n";
      continue;
    }
    out << format_step(lesson, i, r, width);
    if (r.question) {
      ++res.questions;
      // Scored on the first understood answer; a wrong one is told where to look and may
      // try once more; the answer comes with a right answer, after two wrong ones, or on Enter.
      std::string line;
      bool said = false;  // a right answer's verdict gave the answer and why
      int answers = 0;
      for (int unclear = 0; unclear < 3 && answers < 2 &&
                            read(answers ? "Try again (Enter to reveal): " : "Your answer (Enter to reveal): ", line);) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) break;
        Verdict v = r.check(line);
        if (!v.understood) {
          out << v.explanation << "\n";
          ++unclear;
          continue;
        }
        if (answers++ == 0) {
          ++res.answered;
          res.right += v.correct;
        }
        out << "\n" << wrap(v.explanation, width);
        if (v.correct) {
          if (!r.after.empty()) out << "\n" << wrap(r.after, width);
          said = true;
          break;
        }
      }
      if (!said) out << "\n" << format_reveal(r, width);
    } else {
      out << "\n" << format_reveal(r, width);
    }
    std::string line;
    if (i + 1 < lesson.steps.size()) read("\n[Enter: next step] ", line);
  }
  out << "\n";
  if (res.answered)
    out << "You answered " << res.answered << " of " << res.questions << " questions: " << res.right
        << " right on the first try.\n";
  else
    out << res.questions << " question" << (res.questions == 1 ? "" : "s") << ", every answer computed from the trace.\n";
  return res;
}

}  // namespace ws::lesson
