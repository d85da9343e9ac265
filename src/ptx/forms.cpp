// src/ptx/forms.cpp — the forms the interpreter implements (opcodes.def's PTX_FORM rows)
// read into a table, and the check every decoded instruction passes: each of its type
// words and modifiers must be taken by one form of its opcode, else it is refused with a
// line naming the word. Nothing in an opcode is ever passed over unread.
#include <algorithm>
#include <set>
#include <sstream>

#include "ptx/reader.h"

namespace ws::ptx {

namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// "a b | c d" -> {{a, b}, {c, d}}; "" -> {}.
std::vector<std::vector<std::string>> type_slots(const std::string& s) {
  std::vector<std::vector<std::string>> out;
  size_t at = 0;
  if (words(s).empty()) return out;
  for (;;) {
    const size_t bar = s.find('|', at);
    out.push_back(words(s.substr(at, bar == std::string::npos ? std::string::npos : bar - at)));
    if (bar == std::string::npos) return out;
    at = bar + 1;
  }
}

bool has(const std::vector<std::string>& v, const std::string& w) { return std::find(v.begin(), v.end(), w) != v.end(); }

// Type words PTX has that no form takes: read as types so that a refusal names them so.
bool type_word(const std::string& w) {
  static const std::set<std::string> other{"bf16", "f16x2", "bf16x2", "tf32", "e4m3", "e5m2",
                                           "e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2", "b128", "s4", "u4", "b4", "u2",
                                           "s2", "f8x4", "f16x4", "f8x8"};
  return type_names().count(w) || other.count(w);
}

}  // namespace

const std::vector<Form>& accepted_forms() {
  static const std::vector<Form> forms = [] {
    std::vector<Form> f;
#define PTX_FORM(N, T, M) f.push_back({N, type_slots(T), words(M)});
#include "ptx/opcodes.def"
    return f;
  }();
  return forms;
}

std::string refusal(const std::vector<std::string>& parts) {
  if (parts.empty()) return "an empty instruction";
  const std::string& base = parts[0];
  std::vector<std::string> types, mods;
  for (size_t i = 1; i < parts.size(); ++i) (type_word(parts[i]) ? types : mods).push_back(parts[i]);
  std::vector<const Form*> mine;
  for (const Form& f : accepted_forms())
    if (f.opcode == base) mine.push_back(&f);
  if (mine.empty()) return "the instruction " + base + " is not implemented";
  auto types_fit = [&](const Form& f) {
    if (f.types.size() != types.size()) return false;
    for (size_t i = 0; i < types.size(); ++i)
      if (!has(f.types[i], types[i])) return false;
    return true;
  };
  for (const Form* f : mine) {
    if (!types_fit(*f)) continue;
    if (std::all_of(mods.begin(), mods.end(), [&](const std::string& m) { return has(f->modifiers, m); })) return "";
  }
  // Refused: name the first word no form of this opcode takes, else the combination.
  for (const std::string& t : types)
    if (std::none_of(mine.begin(), mine.end(), [&](const Form* f) {
          return std::any_of(f->types.begin(), f->types.end(), [&](const auto& slot) { return has(slot, t); });
        }))
      return "the type " + t + " is not implemented";
  for (const std::string& m : mods)
    if (std::none_of(mine.begin(), mine.end(), [&](const Form* f) { return has(f->modifiers, m); }))
      return "the modifier ." + m + " is not implemented";
  for (const Form* f : mine) {
    if (!types_fit(*f)) continue;
    for (const std::string& m : mods)
      if (!has(f->modifiers, m)) return "the modifier ." + m + " is not implemented with these types";
  }
  return types.empty() ? "a type is needed" : "these types together are not implemented";
}

}  // namespace ws::ptx
