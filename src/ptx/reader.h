// src/ptx/reader.h — the parts of the PTX reader (parse.cpp) that live in files of their
// own: the tokenizer and number syntax (lexer.cpp), the decoding of a dotted opcode
// (decode.cpp) after the check of its words against the declared forms (forms.cpp), and
// the linking of device functions into the kernels that call them (link.cpp). Private to
// src/ptx.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ptx/ptx.h"

namespace ws::ptx {

// One token. The tokenizer keeps each token's line: .loc and .file end at the line's end,
// and every error names the PTX line.
struct Tok {
  enum Kind : uint8_t { Ident, Number, String, Punct, End } kind = End;
  std::string text;
  uint32_t line = 0;
};

// The tokens of `text`, comments dropped, ending with one End token.
std::vector<Tok> tokenize(const std::string& text);
// PTX type words without their dot: "u32" -> Type::U32.
const std::map<std::string, Type>& type_names();
// A decimal or 0x integer (a trailing U allowed). False when `t` is not one.
bool parse_int(const std::string& t, int64_t& v);
// An integer, or a float's bits as PTX writes them (0f3F800000, 0d3FF0000000000000);
// `is_f32bits` says which of the float forms it was.
bool parse_number(const std::string& t, int64_t& v, bool& is_f32bits);
// "ld.global.v4.f32" -> {"ld", "global", "v4", "f32"}.
std::vector<std::string> split_dots(const std::string& s);

// A matrix instruction (ldmatrix, stmatrix, movmatrix, mma, wmma) read into Insn::matrix,
// its operands checked, and cvt to the tensor cores' tf32 made its own row (matrix.cpp);
// why it is refused, "" when it runs (or is none of these).
std::string decode_matrix(Insn& in, const std::vector<std::string>& parts);
// wgmma (wgmma.cpp): its part, shape, types and where A comes from read into Insn::matrix,
// with `imms` the immediates after its fourth operand (imm-scale-a, imm-scale-b, the
// transposes), which Insn has no slots for; why it is refused, "" when it runs (or is not wgmma).
std::string decode_wgmma(Insn& in, const std::vector<std::string>& parts, const std::vector<int64_t>& imms);
// Whether the interpreter runs an opcode whose first word is `base` (opcodes.def).
bool known_opcode(const std::string& base);
// Why an opcode split at its dots ({"cvt", "rn", "bf16", "f32"}) is refused ("the type bf16
// is not implemented"), "" when some form of opcodes.def takes all of its words.
std::string refusal(const std::vector<std::string>& parts);
// Fills `in`'s Opc, types, state space and modifiers from its dotted opcode (in.opcode).
// Throws Error naming `module`, the line and the opcode for an instruction the interpreter
// refuses (refusal()).
void decode(Insn& in, const std::string& module);
// The cp.async and mbarrier families (async_copy.cpp): which of them `in` is (Insn::sub, an
// AsyncOp), its state space and width, checked against its operands. Throws Error as
// decode() does.
void decode_async(Insn& in, const std::vector<std::string>& parts, const std::string& module);
// Its stores to global memory (bulk_store.cpp): cp.async.bulk(.tensor) and
// cp.reduce.async.bulk(.tensor) of the bulk_group, cp.async.bulk.commit_group and wait_group.
void decode_bulk_store(Insn& in, const std::vector<std::string>& parts, const std::string& module);

// Places shared array `v` in kernel `k`'s window: static arrays one after another at
// their alignment, an unsized (extern) one as the dynamic part.
void add_shared(Kernel& k, Variable v);
// Makes every function `k` calls part of its code (see link.cpp). Throws Error for a
// call whose body is not in the PTX.
void link(Module& m, Kernel& k);

}  // namespace ws::ptx
