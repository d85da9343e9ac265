// tests/ptx/diff/diff_forms.cpp — opcodes.def's rows read from its text, and the coverage
// of its forms by the generated cases (diff_forms.h).
#include "diff_forms.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace ws::ptxdiff {

namespace {

std::vector<std::string> words(const std::string& s, char sep = ' ') {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + sep) {
    if (c == sep || (sep == ' ' && std::isspace(static_cast<unsigned char>(c)))) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

// A C expression of string literals and macro names side by side ("PTX_INT \" | \" PTX_INT8"),
// concatenated as the preprocessor would.
std::string evaluate(const std::string& expr, const std::map<std::string, std::string>& macros, bool& ok) {
  std::string out;
  for (size_t i = 0; i < expr.size();) {
    const char c = expr[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '"') {
      const size_t end = expr.find('"', i + 1);
      if (end == std::string::npos) { ok = false; return out; }
      out += expr.substr(i + 1, end - i - 1);
      i = end + 1;
    } else {
      size_t end = i;
      while (end < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[end])) || expr[end] == '_')) ++end;
      auto m = macros.find(expr.substr(i, end - i));
      if (end == i || m == macros.end()) { ok = false; return out; }
      out += m->second;
      i = end;
    }
  }
  return out;
}

// The arguments of "NAME(a, b, c)" split at commas outside string literals.
std::vector<std::string> arguments(const std::string& row) {
  std::vector<std::string> args;
  const size_t open = row.find('('), close = row.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return args;
  std::string cur;
  bool quoted = false;
  for (size_t i = open + 1; i < close; ++i) {
    const char c = row[i];
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  args.push_back(cur);
  return args;
}

std::string unquote(const std::string& s) {
  const size_t a = s.find('"'), b = s.rfind('"');
  return a == std::string::npos || b == a ? "" : s.substr(a + 1, b - a - 1);
}

bool has(const std::vector<std::string>& v, const std::string& w) { return std::find(v.begin(), v.end(), w) != v.end(); }

bool type_word(const std::string& w) {
  static const std::set<std::string> types{
      "pred", "b8",   "b16",    "b32",    "b64",  "b128", "u8",     "u16",    "u32",    "u64",    "s8",
      "s16",  "s32",  "s64",    "f16",    "f32",  "f64",  "bf16",   "f16x2",  "bf16x2", "tf32",   "e4m3",
      "e5m2", "e4m3x2", "e5m2x2", "s4",   "u4",   "b4",   "u2",     "s2",     "f8x4",   "f16x4",  "f8x8"};
  return types.count(w) != 0;
}

}  // namespace

Accepted read_accepted(const std::string& text, const std::string& file) {
  Accepted a;
  std::map<std::string, std::string> macros;
  std::istringstream in(text);
  std::string l, row;
  size_t line = 0, first = 0;
  while (std::getline(in, l)) {
    ++line;
    if (row.empty()) first = line;
    if (!l.empty() && l.back() == '\\') {  // a continued line: read it whole
      row += l.substr(0, l.size() - 1) + " ";
      continue;
    }
    row += l;
    const std::string r = row.substr(0, row.find("//"));
    row.clear();
    const std::vector<std::string> w = words(r);
    if (w.empty()) continue;
    bool ok = true;
    if (w[0] == "#define" && w.size() >= 3 && w[1].rfind("PTX_", 0) == 0 && w[1].find('(') == std::string::npos) {
      const size_t at = r.find(w[1]) + w[1].size();
      macros[w[1]] = evaluate(r.substr(at), macros, ok);
    } else if (r.rfind("PTX_OP(", 0) == 0) {
      const auto args = arguments(r);
      ok = args.size() == 4;
      if (ok && !unquote(args[1]).empty()) a.opcodes.insert(unquote(args[1]));
    } else if (r.rfind("PTX_ALIAS(", 0) == 0) {
      const auto args = arguments(r);
      ok = args.size() == 2 && !unquote(args[0]).empty();
      if (ok) a.opcodes.insert(unquote(args[0]));
    } else if (r.rfind("PTX_FORM(", 0) == 0) {
      const auto args = arguments(r);
      ok = args.size() == 3;
      Form f;
      if (ok) {
        f.opcode = evaluate(args[0], macros, ok);
        for (const std::string& slot : words(evaluate(args[1], macros, ok), '|')) {
          if (!words(slot).empty()) f.types.push_back(words(slot));
        }
        f.modifiers = words(evaluate(args[2], macros, ok));
      }
      if (ok) a.forms.push_back(f);
    }
    if (!ok) throw FormatError(file + ":" + std::to_string(first) + ": a row this reader cannot follow");
  }
  return a;
}

Spelling spell(const std::string& instruction) {
  Spelling s;
  const std::vector<std::string> parts = words(instruction.substr(0, instruction.find(' ')), '.');
  if (parts.empty()) return s;
  s.opcode = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) (type_word(parts[i]) ? s.types : s.modifiers).push_back(parts[i]);
  return s;
}

const std::map<std::string, std::string>& untestable() {
  static const std::map<std::string, std::string> m{
      {"trap", "ends the GPU's kernel with an error, which leaves the context unusable for the cases after it"},
      {"brkpt", "stops the GPU's kernel at a breakpoint, an error without a debugger attached"},
      {"setmaxnreg", "moves a warpgroup's register budget: nothing a kernel can read changes"},
      {"cp.multicast::cluster", "needs a cluster of several CTAs, which a case's launch is not: "
                                "tests/programs/cluster_dsmem.cu holds it to the H200"},
      // Words a form lists that ptxas (CUDA 13.0, sm_90) refuses on that opcode: no kernel
      // can hold them, so the interpreter accepting them is harmless.
      {"ld.wb", "not PTX: ld takes no .wb"},
      {"ld.wt", "not PTX: ld takes no .wt"},
      {"ld.release", "not PTX: ld takes no .release"},
      {"st.ca", "not PTX: st takes no .ca"},
      {"st.lu", "not PTX: st takes no .lu"},
      {"st.cv", "not PTX: st takes no .cv"},
      {"st.nc", "not PTX: st takes no .nc"},
      {"st.acquire", "not PTX: st takes no .acquire"},
      {"st.const", "not PTX: the constant space is read-only"},
      {"st.param::entry", "not PTX: a kernel's parameters are read-only"},
      {"st.L2::64B", "not PTX: st takes no L2 prefetch size"},
      {"st.L2::128B", "not PTX: st takes no L2 prefetch size"},
      {"st.L2::256B", "not PTX: st takes no L2 prefetch size"},
      {"ld.L2::evict_normal", "ptxas takes it only on 256-bit vectors (.v8.b32, .v4.b64)"},
      {"ld.L2::evict_first", "ptxas takes it only on 256-bit vectors (.v8.b32, .v4.b64)"},
      {"ld.L2::evict_last", "ptxas takes it only on 256-bit vectors (.v8.b32, .v4.b64)"},
      {"st.L2::evict_normal", "ptxas takes it only on 256-bit vectors (.v8.b32, .v4.b64)"},
      {"st.L2::evict_first", "ptxas takes it only on 256-bit vectors (.v8.b32, .v4.b64)"},
      {"st.L2::evict_last", "ptxas takes it only on 256-bit vectors (.v8.b32, .v4.b64)"},
      {"cvta.u32", "32-bit addresses: sm_90 has only the 64-bit ABI"},
      {"bar.aligned", "not PTX: bar is aligned already, only barrier spells it"},
      {"cvt.rm/f16x2", "not PTX: the pair conversions round only .rn or .rz"},
      {"cvt.rp/f16x2", "not PTX: the pair conversions round only .rn or .rz"},
      {"atom.min/f32", "not PTX: atom.min takes no f32 or f64"},
      {"atom.max/f32", "not PTX: atom.max takes no f32 or f64"},
      {"atom.exch/f32", "not PTX: atom.exch takes only bit types"},
      {"red.min/f32", "not PTX: red.min takes no f32 or f64"},
      {"red.max/f32", "not PTX: red.max takes no f32 or f64"},
      {"red.acquire", "not PTX: a reduction returns nothing to acquire"},
      {"red.acq_rel", "not PTX: a reduction returns nothing to acquire"},
      {"bar.sync/u32", "not PTX: bar.red takes no .sync (it synchronises already)"},
      {"bar.sync/pred", "not PTX: bar.red takes no .sync (it synchronises already)"},
      {"barrier.sync/u32", "not PTX: barrier.red takes no .sync (it synchronises already)"},
      {"barrier.sync/pred", "not PTX: barrier.red takes no .sync (it synchronises already)"},
      // The tensor copy reads a CUtensorMap that only the driver encodes on the GPU; the
      // emulated one is checked by tests/ptx/test_tensor_copy.cpp and tests/programs/tma_box.cu.
      {"cp.tensor", "needs a tensor map the driver encodes (tests/programs/tma_box.cu runs on both)"},
      {"cp.1d", "needs a tensor map the driver encodes (tests/programs/tma_box.cu runs on both)"},
      {"cp.2d", "needs a tensor map the driver encodes (tests/programs/tma_box.cu runs on both)"},
      {"cp.3d", "needs a tensor map the driver encodes (tests/programs/tma_box3d.cu runs on both)"},
      {"cp.4d", "needs a tensor map the driver encodes (tests/programs/tma_box3d.cu's rank-5 map covers the form)"},
      {"cp.5d", "needs a tensor map the driver encodes (tests/programs/tma_box3d.cu runs on both)"},
      {"cp.tile", "needs a tensor map the driver encodes (tests/programs/tma_box.cu runs on both)"},
      {"prefetch.tensormap", "a hint about a tensor map the driver encodes (CUTLASS's Hopper GEMMs issue it)"},
      {"tensormap", "rewrites a tensor map the driver encodes (tests/programs/tma_replace.cu passes on both)"},
      {"prefetch.param", "a hint about a tensor map the driver encodes, passed as a kernel parameter"},
      {"prefetch.const", "a hint about a tensor map the driver encodes, in constant memory"},
      // The tensor reduction takes its element type from the map: its form has none.
      {"cp.reduce/", "the tensor form needs a tensor map the driver encodes (tests/programs/tma_store.cu runs on both)"},
      {"cp.add/", "the tensor form needs a tensor map the driver encodes (tests/programs/tma_store.cu runs on both)"},
      {"cp.min/", "the tensor form needs a tensor map the driver encodes"},
      {"cp.max/", "the tensor form needs a tensor map the driver encodes"},
      {"cp.and/", "the tensor form needs a tensor map the driver encodes"},
      {"cp.or/", "the tensor form needs a tensor map the driver encodes"},
      {"cp.xor/", "the tensor form needs a tensor map the driver encodes"},
      {"cp.inc/", "the tensor form needs a tensor map the driver encodes"},
      {"cp.dec/", "the tensor form needs a tensor map the driver encodes"},
      // Warp-collective: no lane's result is a function of its own operands, which is what a
      // case compares. Their fragments are checked on an H100 by tests/programs/matrix/
      // fragments.cu and by hand in tests/ptx/test_matrix.cpp.
      {"ldmatrix", "warp-collective: tests/programs/matrix/fragments.cu holds it to the GPU"},
      {"stmatrix", "warp-collective: tests/programs/matrix/fragments.cu holds it to the GPU"},
      {"movmatrix", "warp-collective: tests/programs/matrix/fragments.cu holds it to the GPU"},
      {"mma", "warp-collective: tests/programs/matrix/fragments.cu holds it to the GPU"},
      {"wmma", "warp-collective: tests/programs/matrix/wmma.cu and NVIDIA's tensor-core samples check it"},
  };
  return m;
}

std::vector<std::string> uncovered(const Accepted& accepted, const std::vector<Case>& cases) {
  std::vector<Spelling> spelled;
  for (const Case& c : cases) spelled.push_back(spell(c.name));
  std::vector<std::string> out;
  for (const std::string& op : accepted.opcodes) {
    const bool any = std::any_of(spelled.begin(), spelled.end(), [&](const Spelling& s) { return s.opcode == op; });
    if (!any && !untestable().count(op)) out.push_back(op + ": no case");
  }
  std::set<std::string> said;
  for (const Form& f : accepted.forms) {
    const std::string first = f.types.empty() ? "" : f.types[0][0];
    if (untestable().count(f.opcode) || untestable().count(f.opcode + "/" + first)) continue;
    std::vector<const Spelling*> fit;
    for (const Spelling& s : spelled) {
      if (s.opcode != f.opcode || s.types.size() != f.types.size()) continue;
      bool ok = std::all_of(s.modifiers.begin(), s.modifiers.end(), [&](const auto& m) { return has(f.modifiers, m); });
      for (size_t i = 0; ok && i < s.types.size(); ++i) ok = has(f.types[i], s.types[i]);
      if (ok) fit.push_back(&s);
    }
    // "atom f32,f64": the form, by its types (the first few of each position).
    std::string form = f.opcode;
    for (size_t i = 0; i < f.types.size(); ++i) {
      form += i ? "|" : " ";
      for (size_t k = 0; k < f.types[i].size() && k < 3; ++k) form += (k ? "," : "") + f.types[i][k];
      if (f.types[i].size() > 3) form += ",+" + std::to_string(f.types[i].size() - 3);
    }
    auto report = [&](const std::string& word, const std::string& what) {
      if (untestable().count(f.opcode + "." + word) || untestable().count(f.opcode + "." + word + "/" + first)) return;
      const std::string line = form + ": " + what;
      if (said.insert(line).second) out.push_back(line);
    };
    for (size_t i = 0; i < f.types.size(); ++i)
      for (const std::string& t : f.types[i])
        if (std::none_of(fit.begin(), fit.end(), [&](const Spelling* s) { return s->types[i] == t; }))
          report(t, "no case of type ." + t + (f.types.size() > 1 ? " at position " + std::to_string(i + 1) : ""));
    for (const std::string& m : f.modifiers)
      if (std::none_of(fit.begin(), fit.end(), [&](const Spelling* s) { return has(s->modifiers, m); }))
        report(m, "no case with ." + m);
  }
  return out;
}

}  // namespace ws::ptxdiff
