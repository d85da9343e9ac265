// tests/ptx/diff/diff_forms.h — what the interpreter accepts, read from the text of
// src/ptx/opcodes.def (its PTX_OP and PTX_ALIAS names, and its PTX_FORM rows where it has
// them: per opcode, the type words of each type position and the modifiers), and which of
// those words no generated case exercises. Reading the file rather than linking its
// tables lets the check run against any version of it (`ptx_diff_cpu --coverage`).
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "diff_cases.h"

namespace ws::ptxdiff {

struct Form {
  std::string opcode;
  std::vector<std::vector<std::string>> types;  // per type position (cvt: destination, source)
  std::vector<std::string> modifiers;
};

struct Accepted {
  std::set<std::string> opcodes;  // every PTX_OP name ("" rows aside) and PTX_ALIAS name
  std::vector<Form> forms;        // the PTX_FORM rows (none in a file without them)
};

// Reads opcodes.def's text. Throws FormatError naming the line of a row it cannot read.
Accepted read_accepted(const std::string& opcodes_def, const std::string& file);

// An instruction's dotted words split into types and modifiers ("add.rz.ftz.f32" ->
// {f32}, {rz, ftz}); the first word is the opcode.
struct Spelling {
  std::string opcode;
  std::vector<std::string> types, modifiers;
};
Spelling spell(const std::string& instruction);

// What no case exercises, one line each: an accepted opcode without a case, or a word of a
// form (a type at its position, a modifier) that no case of a fitting form uses. A case's
// instruction is the first word of its name. Opcodes and words that cannot be tested on
// the GPU are left out (untestable()).
std::vector<std::string> uncovered(const Accepted& accepted, const std::vector<Case>& cases);

// The exemptions, with their reasons: "trap" (a whole opcode), "ld.wb" (a word of every form
// of an opcode), "atom.min/f32" (a word of the forms whose first type position begins f32),
// "bar/u32" (every word of those forms).
const std::map<std::string, std::string>& untestable();

}  // namespace ws::ptxdiff
