// Decoding PTX text into ptx::Module: a tokenizer that keeps line numbers (.loc and
// .file end at the line's end), a statement parser, and one decode step per instruction
// that turns its dotted opcode into an Opc with typed modifiers and its operands into
// register numbers, immediates, addresses and symbols.
#include "ptx/ptx.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <sstream>

#include "trace/toolkit.h"

namespace ws::ptx {

const Kernel* Module::kernel(const std::string& n) const {
  for (const Kernel& k : kernels)
    if (k.name == n) return &k;
  return nullptr;
}

namespace {

struct Tok {
  enum Kind : uint8_t { Ident, Number, String, Punct, End } kind = End;
  std::string text;
  uint32_t line = 0;
};

std::vector<Tok> tokenize(const std::string& s) {
  std::vector<Tok> out;
  uint32_t line = 1;
  size_t i = 0, n = s.size();
  auto ident_start = [](char c) { return std::isalpha((unsigned char)c) || c == '.' || c == '%' || c == '$' || c == '_'; };
  auto ident_char = [](char c) { return std::isalnum((unsigned char)c) || c == '.' || c == '_' || c == '$'; };
  while (i < n) {
    char c = s[i];
    if (c == '\n') { ++line; ++i; continue; }
    if (std::isspace((unsigned char)c)) { ++i; continue; }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') { while (i < n && s[i] != '\n') ++i; continue; }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) { if (s[i] == '\n') ++line; ++i; }
      i += 2;
      continue;
    }
    Tok t;
    t.line = line;
    if (ident_start(c)) {
      size_t j = i + 1;
      while (j < n && ident_char(s[j])) ++j;
      t.kind = Tok::Ident;
      t.text = s.substr(i, j - i);
      i = j;
    } else if (std::isdigit((unsigned char)c)) {
      size_t j = i + 1;
      while (j < n && (std::isalnum((unsigned char)s[j]) || s[j] == '.')) ++j;
      t.kind = Tok::Number;
      t.text = s.substr(i, j - i);
      i = j;
    } else if (c == '"') {
      size_t j = i + 1;
      while (j < n && s[j] != '"') ++j;
      t.kind = Tok::String;
      t.text = s.substr(i + 1, j - i - 1);
      i = j + 1;
    } else {
      t.kind = Tok::Punct;
      t.text = std::string(1, c);
      ++i;
    }
    out.push_back(std::move(t));
  }
  Tok end;
  end.line = line;
  out.push_back(end);
  return out;
}

const std::map<std::string, Type>& type_names() {
  static const std::map<std::string, Type> m{
      {"pred", Type::Pred}, {"b8", Type::B8},   {"b16", Type::B16}, {"b32", Type::B32}, {"b64", Type::B64},
      {"u8", Type::U8},     {"u16", Type::U16}, {"u32", Type::U32}, {"u64", Type::U64}, {"s8", Type::S8},
      {"s16", Type::S16},   {"s32", Type::S32}, {"s64", Type::S64}, {"f16", Type::F16}, {"f32", Type::F32},
      {"f64", Type::F64}};
  return m;
}

bool parse_int(const std::string& t, int64_t& v) {
  if (t.empty()) return false;
  std::string s = t;
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.pop_back();
  try {
    size_t used = 0;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      v = int64_t(std::stoull(s.substr(2), &used, 16));
      return used == s.size() - 2;
    }
    v = int64_t(std::stoull(s, &used, 10));
    return used == s.size();
  } catch (...) {
    return false;
  }
}

// 0f3F800000 / 0d3FF0000000000000 (bits), or a plain integer.
bool parse_number(const std::string& t, int64_t& v, bool& is_f32bits) {
  is_f32bits = false;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'f' || t[1] == 'F')) {
    v = int64_t(std::stoull(t.substr(2), nullptr, 16));
    is_f32bits = true;
    return true;
  }
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'd' || t[1] == 'D')) {
    v = int64_t(std::stoull(t.substr(2), nullptr, 16));
    return true;
  }
  return parse_int(t, v);
}

// Opcodes the interpreter runs, by their first word (bar/barrier are decided apart).
const std::map<std::string, Opc>& opcodes() {
  static const std::map<std::string, Opc> ops{
        {"mov", Opc::Mov},     {"cvta", Opc::Cvta},   {"ld", Opc::Ld},       {"ldu", Opc::Ld},       {"st", Opc::St},
        {"cvt", Opc::Cvt},     {"add", Opc::Add},     {"sub", Opc::Sub},      {"mul", Opc::Mul},
        {"mad", Opc::Mad},     {"fma", Opc::Fma},     {"div", Opc::Div},      {"rem", Opc::Rem},
        {"min", Opc::Min},     {"max", Opc::Max},     {"neg", Opc::Neg},      {"abs", Opc::Abs},
        {"and", Opc::And},     {"or", Opc::Or},       {"xor", Opc::Xor},      {"not", Opc::Not},
        {"shl", Opc::Shl},     {"shr", Opc::Shr},     {"setp", Opc::Setp},    {"selp", Opc::Selp},
        {"set", Opc::Set},     {"bra", Opc::Bra},     {"ret", Opc::Ret},      {"exit", Opc::Exit},
        {"rcp", Opc::Rcp},     {"sqrt", Opc::Sqrt},   {"rsqrt", Opc::Rsqrt},  {"ex2", Opc::Ex2},
        {"lg2", Opc::Lg2},     {"sin", Opc::Sin},     {"cos", Opc::Cos},      {"shfl", Opc::Shfl},
        {"vote", Opc::Vote},   {"activemask", Opc::Activemask},               {"atom", Opc::Atom},
        {"red", Opc::Red},     {"membar", Opc::Membar}, {"fence", Opc::Membar}, {"bfe", Opc::Bfe},
        {"bfi", Opc::Bfi},     {"popc", Opc::Popc},   {"clz", Opc::Clz},      {"brev", Opc::Brev},
        {"prmt", Opc::Prmt},   {"copysign", Opc::Copysign}, {"mul24", Opc::Mul24}, {"mad24", Opc::Mad24},
        {"sad", Opc::Sad},     {"testp", Opc::Testp}, {"prefetch", Opc::Nop}, {"prefetchu", Opc::Nop},
        {"nanosleep", Opc::Nop}, {"pmevent", Opc::Nop}, {"trap", Opc::Exit}, {"brkpt", Opc::Nop}};
  return ops;
}

using trace::toolkit_file;

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == '.') {
      if (i > start) out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& name) : t_(tokenize(text)) { m_.name = name; }

  Module run() {
    // .file comes after the code that names it: read the table first.
    for (size_t i = 0; i + 2 < t_.size(); ++i) {
      int64_t n = 0;
      if (t_[i].kind == Tok::Ident && t_[i].text == ".file" && parse_int(t_[i + 1].text, n) && t_[i + 2].kind == Tok::String)
        m_.files[uint32_t(n)] = t_[i + 2].text;
    }
    while (peek().kind != Tok::End) top_level();
    for (Kernel& k : m_.kernels) link(k);
    return std::move(m_);
  }

 private:
  [[noreturn]] void fail(const std::string& what, uint32_t line) {
    throw Error(m_.name + ":" + std::to_string(line) + ": " + what);
  }
  const Tok& peek(size_t k = 0) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  Tok next() { return t_[p_ < t_.size() - 1 ? p_++ : p_]; }
  bool is(const char* text, size_t k = 0) const { return peek(k).text == text && peek(k).kind != Tok::String; }
  void expect(const char* text) {
    if (!is(text)) fail(std::string("expected '") + text + "', found '" + peek().text + "'", peek().line);
    next();
  }
  void skip_line() {
    const uint32_t line = peek().line;
    while (peek().kind != Tok::End && peek().line == line) next();
  }
  void skip_statement() {
    while (peek().kind != Tok::End && !is(";")) next();
    if (is(";")) next();
  }
  void skip_braces() {
    int depth = 0;
    while (peek().kind != Tok::End) {
      if (is("{")) ++depth;
      if (is("}") && --depth == 0) { next(); return; }
      next();
    }
  }

  void top_level() {
    const Tok& tk = peek();
    const std::string& w = tk.text;
    if (w == ".version" || w == ".target" || w == ".address_size") { skip_line(); return; }
    if (w == ".file") { file_directive(); return; }
    if (w == ".visible" || w == ".weak" || w == ".extern" || w == ".common") {
      // A linkage prefix: what follows decides.
      if (w == ".extern" && (is(".shared", 1) || is(".global", 1) || is(".const", 1))) { variable(nullptr, true); return; }
      next();
      return;
    }
    if (w == ".entry") { entry(); return; }
    if (w == ".func") { entry(); return; }  // a device function nvcc did not inline
    if (w == ".global" || w == ".const" || w == ".shared") { variable(nullptr, false); return; }
    if (w == ".pragma" || w == ".section") {
      if (w == ".section") { next(); next(); skip_braces(); return; }
      skip_statement();
      return;
    }
    if (w == ";") { next(); return; }
    fail("unexpected '" + w + "' at module level", tk.line);
  }

  void file_directive() {
    const uint32_t line = peek().line;
    next();
    int64_t n = 0;
    if (peek().kind != Tok::Number || !parse_int(peek().text, n)) fail(".file without a number", line);
    next();
    if (peek().kind != Tok::String) fail(".file without a name", line);
    m_.files[uint32_t(n)] = next().text;
    while (peek().kind != Tok::End && peek().line == line) next();
  }

  // The words of a declaration before its name: `.align N` sets `align`, a type word is
  // the type (B8 when none); pointer attributes (.ptr .global ...) are skipped.
  Type declared_type(uint32_t& align, uint32_t line) {
    Type ty = Type::B8;
    while (peek().kind == Tok::Ident && peek().text[0] == '.') {
      const std::string d = next().text;
      if (d == ".align") {
        int64_t a = 1;
        parse_int(next().text, a);
        align = uint32_t(a);
      } else if (d == ".v2" || d == ".v4") {
        fail("vector variables are not supported", line);
      } else if (auto it = type_names().find(d.substr(1)); it != type_names().end()) {
        ty = it->second;
      }
    }
    return ty;
  }

  // The element count of `name[A][B]...` (1 without brackets, 0 for `name[]`).
  uint64_t array_count(const std::string& name, uint32_t line) {
    uint64_t count = 1;
    while (is("[")) {
      next();
      if (is("]")) {  // name[]: unsized (extern shared)
        count = 0;
        next();
        continue;
      }
      int64_t c = 0;
      if (!parse_int(next().text, c)) fail("bad array size for " + name, line);
      count *= uint64_t(c);
      expect("]");
    }
    return count;
  }

  // [.space] [.align N] .type name[[N]] [= init] ;  (`k` null: module scope)
  void variable(Kernel* k, bool external) {
    const uint32_t line = peek().line;
    if (external) next();
    Variable v;
    v.external = external;
    const std::string sp = next().text;
    v.space = sp == ".shared" ? Space::Shared : sp == ".const" ? Space::Const : sp == ".local" ? Space::Local : Space::Global;
    const Type ty = declared_type(v.align, line);
    v.elem_bytes = std::max<uint32_t>(1, type_bytes(ty));
    v.name = next().text;
    const uint64_t count = array_count(v.name, line);
    v.bytes = count * v.elem_bytes;
    v.init.assign(size_t(v.bytes), 0);
    if (is("=")) {
      next();
      std::vector<int64_t> vals;
      auto one = [&] {
        bool neg = false;
        if (is("-")) { neg = true; next(); }
        int64_t x = 0;
        bool f = false;
        if (!parse_number(next().text, x, f)) fail("bad initializer for " + v.name, line);
        vals.push_back(neg ? -x : x);
      };
      if (is("{")) {
        next();
        while (!is("}") && peek().kind != Tok::End) {
          if (is(",")) { next(); continue; }
          if (is("{")) { next(); continue; }
          one();
          while (is("}") && is(",", 1)) { next(); }
        }
        while (is("}")) next();
      } else {
        one();
      }
      for (size_t i = 0; i < vals.size() && (i + 1) * v.elem_bytes <= v.init.size(); ++i)
        std::memcpy(v.init.data() + i * v.elem_bytes, &vals[i], v.elem_bytes);
    }
    skip_statement();
    if (k) {
      if (v.space == Space::Shared) {
        add_shared(*k, std::move(v));
      } else if (v.space == Space::Local) {
        k->local_bytes = (k->local_bytes + v.align - 1) / v.align * v.align;
        v.offset = k->local_bytes;
        k->local_bytes += v.bytes;
        local_.push_back(std::move(v));
      }
      return;
    }
    m_.globals.push_back(std::move(v));
  }

  void add_shared(Kernel& k, Variable v) {
    if (v.external || v.bytes == 0) {
      v.external = true;
      v.bytes = 0;
    } else {
      k.static_shared = (k.static_shared + v.align - 1) / v.align * v.align;
      v.offset = k.static_shared;
      k.static_shared += v.bytes;
    }
    k.shared.push_back(std::move(v));
  }

  // A parameter list `( .param .type name[, ...] )`, laid out as the launch ABI packs it.
  uint32_t param_list(std::vector<Param>& out) {
    expect("(");
    uint32_t off = 0;
    while (!is(")") && peek().kind != Tok::End) {
      if (is(",")) { next(); continue; }
      expect(".param");
      Param p;
      const Type ty = declared_type(p.align, peek().line);
      p.name = next().text;
      const uint64_t count = array_count(p.name, peek().line);
      p.bytes = uint32_t(count * std::max<uint32_t>(1, type_bytes(ty)));
      if (p.align < type_bytes(ty)) p.align = type_bytes(ty);
      off = (off + p.align - 1) / p.align * p.align;
      p.offset = off;
      off += p.bytes;
      out.push_back(std::move(p));
    }
    expect(")");
    return off;
  }

  // `.entry name (params) {body}` or `.func [(ret)] name (params) {body}` (a prototype,
  // `.func ... ;`, declares nothing to keep).
  void entry() {
    const bool function = next().text == ".func";
    Kernel k;
    k.is_function = function;
    if (function && is("(")) param_list(k.rets);
    k.name = next().text;
    local_.clear();
    regs_.clear();
    labels_.clear();
    fixups_.clear();
    k.param_bytes = param_list(k.params);
    // Performance directives (.maxntid 256, 1, 1 / .reqntid / .minnctapersm / .maxnreg).
    while (peek().kind != Tok::End && !is("{") && !is(";")) next();
    if (is(";")) {
      next();
      return;
    }
    expect("{");
    kernel_ = &k;
    body(k);
    // Symbols: labels resolved, shared/local arrays bound.
    for (auto& [pc, name] : fixups_) {
      auto it = labels_.find(name.second);
      if (it == labels_.end()) fail("unknown label " + name.second, k.code[pc].text_line);
      k.code[pc].o[name.first].imm = it->second;
    }
    k.registers = uint32_t(regs_.size());
    (function ? m_.functions : m_.kernels).push_back(std::move(k));
    kernel_ = nullptr;
  }

  // Makes every function `k` calls (transitively) part of its code, each with registers,
  // symbols, labels and a frame of its own, and lays out the thread's call area: a call
  // copies its arguments into the callee's parameters, a return copies the return value
  // back (Kernel::linked). Recursion shares one frame, so the machine refuses it.
  void link(Kernel& k) {
    if (k.calls.empty()) return;
    uint32_t area = 0;
    auto place = [&](const std::vector<Param>& ps) {
      std::vector<uint32_t> off;
      for (const Param& p : ps) {
        const uint32_t a = std::max<uint32_t>(1, p.align);
        area = (area + a - 1) / a * a;
        off.push_back(area);
        area += std::max<uint32_t>(1, p.bytes);
      }
      return off;
    };
    struct Part {
      const Kernel* f;
      uint32_t pc_base, size;
      std::vector<uint32_t> param_off, ret_off, cp_off;
    };
    std::vector<Part> parts;
    std::map<std::string, size_t> part_of;
    parts.push_back({&k, 0, uint32_t(k.code.size()), {}, {}, place(k.call_params)});
    for (Kernel::Sym& sym : k.symbols)
      if (sym.kind == Kernel::Sym::CallParam) sym = {Kernel::Sym::Call, parts[0].cp_off[sym.index]};
    auto builtin = [](const std::string& name) {
      return name == "vprintf" ? Kernel::Builtin::Printf
             : name == "__assertfail" ? Kernel::Builtin::AssertFail
                                      : Kernel::Builtin::None;
    };
    auto need = [&](const std::string& name, uint32_t line) {
      if (part_of.count(name) || builtin(name) != Kernel::Builtin::None) return;
      const Kernel* f = nullptr;
      for (const Kernel& g : m_.functions)
        if (g.name == name) f = &g;
      if (!f) fail("call to " + name + ", whose body is not in the PTX", line);
      part_of[name] = parts.size();
      parts.push_back({f, 0, 0, {}, {}, {}});
    };
    for (const Insn& in : k.code)
      if (in.op == Opc::Call) need(k.calls[size_t(in.o[0].imm)].callee, in.text_line);
    for (size_t pi = 1; pi < parts.size(); ++pi) {  // grows as callees call further
      const Kernel& f = *parts[pi].f;
      const uint32_t pc_base = uint32_t(k.code.size());
      parts[pi].pc_base = pc_base;
      parts[pi].size = uint32_t(f.code.size());
      const uint32_t reg_base = k.registers;
      k.registers += f.registers;
      const uint64_t local_base = (k.local_bytes + 7) / 8 * 8;
      k.local_bytes = local_base + f.local_bytes;
      parts[pi].param_off = place(f.params);
      parts[pi].ret_off = place(f.rets);
      parts[pi].cp_off = place(f.call_params);
      const Part p = parts[pi];  // a copy: need() may grow `parts` below
      const uint32_t sym_base = uint32_t(k.symbols.size());
      for (const Kernel::Sym& sym : f.symbols) {
        Kernel::Sym t = sym;
        switch (sym.kind) {
          case Kernel::Sym::Param: t = {Kernel::Sym::Call, p.param_off[sym.index]}; break;
          case Kernel::Sym::Ret: t = {Kernel::Sym::Call, p.ret_off[sym.index]}; break;
          case Kernel::Sym::CallParam: t = {Kernel::Sym::Call, p.cp_off[sym.index]}; break;
          case Kernel::Sym::Local: t.index = uint32_t(sym.index + local_base); break;
          case Kernel::Sym::Shared: {
            const Variable& v = f.shared[sym.index];
            size_t i = 0;
            while (i < k.shared.size() && k.shared[i].name != v.name) ++i;
            if (i == k.shared.size()) add_shared(k, v);
            t.index = uint32_t(i);
            break;
          }
          default: break;
        }
        k.symbols.push_back(t);
      }
      for (Insn in : f.code) {
        auto reg = [&](uint32_t& r) {
          if (r != kSink) r += reg_base;
        };
        reg(in.guard);
        for (Operand& o : in.o) {
          if (o.kind == Operand::Reg || (o.kind == Operand::Addr && o.has_reg)) o.reg += reg_base;
          if (o.kind == Operand::Vec)
            for (int i = 0; i < o.count; ++i) reg(o.vec[size_t(i)]);
          if (o.kind == Operand::Symbol || (o.kind == Operand::Addr && o.has_symbol)) o.symbol += sym_base;
          if (o.kind == Operand::Label) o.imm += pc_base;
        }
        if (in.op == Opc::Call) need(f.calls[size_t(in.o[0].imm)].callee, in.text_line);
        k.code.push_back(std::move(in));
      }
    }
    // Every call site: where its callee starts and what it copies in and out.
    for (size_t pi = 0; pi < parts.size(); ++pi) {
      const Part& p = parts[pi];
      const uint32_t base = uint32_t(k.linked.size());
      for (const Kernel::CallSite& c : p.f->calls) {
        if (const Kernel::Builtin b = builtin(c.callee); b != Kernel::Builtin::None) {
          Kernel::Linked l;
          l.builtin = b;
          for (uint32_t a : c.args) l.in.push_back({p.cp_off[a], 0, p.f->call_params[a].bytes});  // the arguments' slots
          if (!c.rets.empty()) l.ret_slot = p.cp_off[c.rets[0]];
          k.linked.push_back(std::move(l));
          continue;
        }
        const Part& q = parts[part_of.at(c.callee)];
        Kernel::Linked l;
        l.entry = q.pc_base;
        l.function = uint32_t(part_of.at(c.callee));
        for (size_t i = 0; i < c.args.size() && i < q.param_off.size(); ++i)
          l.in.push_back({p.cp_off[c.args[i]], q.param_off[i], q.f->params[i].bytes});
        for (size_t j = 0; j < c.rets.size() && j < q.ret_off.size(); ++j)
          l.out.push_back({q.ret_off[j], p.cp_off[c.rets[j]], q.f->rets[j].bytes});
        k.linked.push_back(std::move(l));
      }
      for (uint32_t pc = p.pc_base; pc < p.pc_base + p.size; ++pc)
        if (k.code[pc].op == Opc::Call) k.code[pc].o[0].imm += base;
    }
    k.call_bytes = area;
  }

  void body(Kernel& k) {
    int depth = 1;
    while (peek().kind != Tok::End) {
      const Tok& tk = peek();
      const std::string& w = tk.text;
      if (w == "}") {
        next();
        if (--depth == 0) return;
        continue;
      }
      if (w == "{") { next(); ++depth; continue; }
      if (w == ".loc") {
        const uint32_t line = tk.line;
        next();
        int64_t f = 0, l = 0, c = 0;
        parse_int(next().text, f);
        parse_int(next().text, l);
        if (peek().kind == Tok::Number && peek().line == line) parse_int(next().text, c);
        loc_ = {uint32_t(f), uint32_t(l), uint32_t(c)};
        // Code inlined from the toolkit's headers (__shfl_down_sync, atomicAdd) belongs to
        // the line of the program that called it: `inlined_at F L C`.
        while (peek().kind != Tok::End && peek().line == line) {
          if (next().text != "inlined_at") continue;
          int64_t cf = 0, cl = 0, cc = 0;
          if (peek().line == line) parse_int(next().text, cf);
          if (peek().line == line) parse_int(next().text, cl);
          if (peek().line == line && peek().kind == Tok::Number) parse_int(next().text, cc);
          auto fi = m_.files.find(uint32_t(f));
          if (fi == m_.files.end() || toolkit_file(fi->second)) loc_ = {uint32_t(cf), uint32_t(cl), uint32_t(cc)};
        }
        continue;
      }
      if (w == ".reg") { reg_decl(); continue; }
      if (w == ".shared" || w == ".local") { variable(&k, false); continue; }
      if (w == ".pragma") { skip_statement(); continue; }
      if (w == ".param") { call_param(k); continue; }
      if (tk.kind == Tok::Ident && is(":", 1)) {
        labels_[w] = uint32_t(k.code.size());
        next();
        next();
        continue;
      }
      instruction(k);
    }
  }

  // `.param .b64 param0;` in a call sequence: a slot the call's arguments pass through
  // (the same name in the next call sequence reuses it).
  void call_param(Kernel& k) {
    next();
    Param p;
    const Type ty = declared_type(p.align, peek().line);
    p.name = next().text;
    p.bytes = uint32_t(array_count(p.name, peek().line) * std::max<uint32_t>(1, type_bytes(ty)));
    skip_statement();
    for (Param& q : k.call_params)
      if (q.name == p.name) {
        q.bytes = std::max(q.bytes, p.bytes);
        q.align = std::max(q.align, p.align);
        return;
      }
    k.call_params.push_back(std::move(p));
  }

  // call[.uni] [(ret, ...),] name, (arg, ...);
  void call(Kernel& k, Insn& in) {
    auto slot = [&](const std::string& n) {
      for (size_t i = 0; i < k.call_params.size(); ++i)
        if (k.call_params[i].name == n) return uint32_t(i);
      fail("call through an undeclared parameter '" + n + "'", in.text_line);
    };
    // `( name, name, ... )`: the slots named.
    auto slots = [&](std::vector<uint32_t>& out) {
      next();
      while (!is(")") && peek().kind != Tok::End) {
        if (is(",")) { next(); continue; }
        out.push_back(slot(next().text));
      }
      expect(")");
    };
    Kernel::CallSite c;
    if (is("(")) {
      slots(c.rets);
      if (is(",")) next();
    }
    const Tok callee = next();
    if (regs_.count(callee.text)) fail("calls through a function pointer are not supported", in.text_line);
    c.callee = callee.text;
    if (is(",")) next();
    if (is("(")) slots(c.args);
    if (is(",")) fail("calls with a prototype list (indirect calls) are not supported", in.text_line);
    expect(";");
    in.op = Opc::Call;
    in.o[0].kind = Operand::Imm;
    in.o[0].imm = int64_t(k.calls.size());
    k.calls.push_back(std::move(c));
  }

  void reg_decl() {
    next();
    next();  // the type: every register is one 64-bit slot
    while (!is(";") && peek().kind != Tok::End) {
      if (is(",")) { next(); continue; }
      const std::string name = next().text;
      if (is("<")) {
        next();
        int64_t n = 0;
        parse_int(next().text, n);
        expect(">");
        for (int64_t i = 0; i < n; ++i) reg(name + std::to_string(i));
      } else {
        reg(name);
      }
    }
    skip_statement();
  }

  uint32_t reg(const std::string& name) {
    auto it = regs_.find(name);
    if (it != regs_.end()) return it->second;
    const uint32_t id = uint32_t(regs_.size());
    regs_.emplace(name, id);
    return id;
  }

  // Symbol operand: a kernel parameter, a shared/local array or a module variable.
  bool symbol(const std::string& name, uint32_t& out) {
    Kernel& k = *kernel_;
    auto add = [&](Kernel::Sym s) {
      for (size_t i = 0; i < k.symbols.size(); ++i)
        if (k.symbols[i].kind == s.kind && k.symbols[i].index == s.index) return out = uint32_t(i), true;
      k.symbols.push_back(s);
      out = uint32_t(k.symbols.size() - 1);
      return true;
    };
    for (size_t i = 0; i < k.params.size(); ++i)
      if (k.params[i].name == name) return add({Kernel::Sym::Param, uint32_t(i)});
    for (size_t i = 0; i < k.rets.size(); ++i)
      if (k.rets[i].name == name) return add({Kernel::Sym::Ret, uint32_t(i)});
    for (size_t i = 0; i < k.call_params.size(); ++i)
      if (k.call_params[i].name == name) return add({Kernel::Sym::CallParam, uint32_t(i)});
    for (size_t i = 0; i < k.shared.size(); ++i)
      if (k.shared[i].name == name) return add({Kernel::Sym::Shared, uint32_t(i)});
    for (size_t i = 0; i < local_.size(); ++i)
      if (local_[i].name == name) return add({Kernel::Sym::Local, uint32_t(local_[i].offset)});
    for (size_t i = 0; i < m_.globals.size(); ++i)
      if (m_.globals[i].name == name) {
        if (m_.globals[i].space == Space::Shared) {  // module-scope shared: a copy per kernel that uses it
          Variable v = m_.globals[i];
          add_shared(k, std::move(v));
          return add({Kernel::Sym::Shared, uint32_t(k.shared.size() - 1)});
        }
        return add({Kernel::Sym::Global, uint32_t(i)});
      }
    return false;
  }

  Operand operand(uint32_t line, std::pair<uint32_t, uint32_t> fix_slot, bool& label) {
    Operand o;
    label = false;
    if (is("!")) { next(); o.negate = true; }
    if (is("[")) {
      next();
      o.kind = Operand::Addr;
      bool neg = false;
      while (!is("]") && peek().kind != Tok::End) {
        if (is("+")) { next(); continue; }
        if (is("-")) { next(); neg = true; continue; }
        const Tok t = next();
        if (t.kind == Tok::Number) {
          int64_t v = 0;
          parse_int(t.text, v);
          o.imm += neg ? -v : v;
          neg = false;
        } else if (regs_.count(t.text)) {
          o.has_reg = true;
          o.reg = regs_[t.text];
        } else if (symbol(t.text, o.symbol)) {
          o.has_symbol = true;
        } else {
          fail("unknown name '" + t.text + "' in an address", line);
        }
      }
      expect("]");
      return o;
    }
    if (is("{")) {
      next();
      o.kind = Operand::Vec;
      while (!is("}") && peek().kind != Tok::End) {
        if (is(",")) { next(); continue; }
        const std::string n = next().text;
        if (o.count >= 4) fail("vector of more than 4", line);
        o.vec[o.count++] = n == "_" ? kSink : reg_or_fail(n, line);
      }
      expect("}");
      return o;
    }
    bool neg = false;
    if (is("-")) { next(); neg = true; }
    const Tok t = next();
    if (t.kind == Tok::Number) {
      o.kind = Operand::Imm;
      bool f32 = false;
      if (!parse_number(t.text, o.imm, f32)) fail("bad number '" + t.text + "'", line);
      if (neg) {
        if (f32) o.imm ^= 0x80000000ll;
        else o.imm = -o.imm;
      }
      return o;
    }
    auto rit = regs_.find(t.text);
    if (rit != regs_.end()) {
      o.kind = Operand::Reg;
      o.reg = rit->second;
      return o;
    }
    static const std::map<std::string, Sreg> sregs{
        {"%tid.x", Sreg::TidX},         {"%tid.y", Sreg::TidY},         {"%tid.z", Sreg::TidZ},
        {"%ntid.x", Sreg::NtidX},       {"%ntid.y", Sreg::NtidY},       {"%ntid.z", Sreg::NtidZ},
        {"%ctaid.x", Sreg::CtaidX},     {"%ctaid.y", Sreg::CtaidY},     {"%ctaid.z", Sreg::CtaidZ},
        {"%nctaid.x", Sreg::NctaidX},   {"%nctaid.y", Sreg::NctaidY},   {"%nctaid.z", Sreg::NctaidZ},
        {"%laneid", Sreg::Laneid},      {"%warpid", Sreg::Warpid},      {"%lanemask_lt", Sreg::LanemaskLt},
        {"%lanemask_le", Sreg::LanemaskLe}, {"%lanemask_eq", Sreg::LanemaskEq}, {"%lanemask_ge", Sreg::LanemaskGe},
        {"%lanemask_gt", Sreg::LanemaskGt}, {"%clock", Sreg::Clock},     {"%clock64", Sreg::Clock64},
        {"%nwarpid", Sreg::Nwarpid},    {"%smid", Sreg::Smid},
        {"%reserved_smem_offset_0", Sreg::ReservedSmem}, {"%reserved_smem_offset_1", Sreg::ReservedSmem},
        {"%reserved_smem_offset_begin", Sreg::ReservedSmem}, {"%reserved_smem_offset_end", Sreg::ReservedSmem},
        {"%dynamic_smem_size", Sreg::DynamicSmemSize}, {"%total_smem_size", Sreg::TotalSmemSize}};
    auto sit = sregs.find(t.text);
    if (sit != sregs.end()) {
      o.kind = Operand::Special;
      o.sreg = sit->second;
      return o;
    }
    if (symbol(t.text, o.symbol)) {
      o.kind = Operand::Symbol;
      return o;
    }
    // A branch target, resolved once the body is read.
    o.kind = Operand::Label;
    label = true;
    fixups_.push_back({uint32_t(kernel_->code.size()), {fix_slot.second, t.text}});
    return o;
  }

  uint32_t reg_or_fail(const std::string& n, uint32_t line) {
    auto it = regs_.find(n);
    if (it == regs_.end()) fail("unknown register " + n, line);
    return it->second;
  }

  void instruction(Kernel& k) {
    Insn in;
    in.text_line = peek().line;
    in.file = loc_[0];
    in.line = loc_[1];
    in.column = loc_[2];
    if (is("@")) {
      next();
      if (is("!")) { next(); in.guard_neg = true; }
      in.guard = reg_or_fail(next().text, in.text_line);
    }
    in.opcode = next().text;
    if (in.opcode == "call" || in.opcode.rfind("call.", 0) == 0) {
      call(k, in);
      k.code.push_back(std::move(in));
      return;
    }
    {
      const std::string base = in.opcode.substr(0, in.opcode.find('.'));
      if (!opcodes().count(base) && base != "bar" && base != "barrier")
        fail("unsupported instruction '" + in.opcode + "'", in.text_line);
    }
    std::vector<Operand> ops;
    while (!is(";") && peek().kind != Tok::End) {
      if (is(",")) { next(); continue; }
      if (is("|")) { next(); next(); continue; }  // second destination (setp p|q, shfl d|p): not kept
      bool label = false;
      ops.push_back(operand(in.text_line, {0, uint32_t(ops.size())}, label));
    }
    expect(";");
    if (ops.size() > in.o.size()) fail("too many operands", in.text_line);
    for (size_t i = 0; i < ops.size(); ++i) in.o[i] = ops[i];
    in.nops = uint8_t(ops.size());
    decode(in);
    k.code.push_back(std::move(in));
  }

  void decode(Insn& in) {
    std::vector<std::string> parts = split_dots(in.opcode);
    const std::string base = parts.empty() ? "" : parts[0];
    std::vector<Type> types;
    for (size_t i = 1; i < parts.size(); ++i) {
      const std::string& m = parts[i];
      auto it = type_names().find(m);
      if (it != type_names().end()) { types.push_back(it->second); continue; }
      if (m == "global") in.space = Space::Global;
      else if (m == "shared" || m == "shared::cta") in.space = Space::Shared;
      else if (m == "local") in.space = Space::Local;
      else if (m == "const") in.space = Space::Const;
      else if (m == "param") in.space = Space::Param;
      else if (m == "wide") in.mods |= kWide;
      else if (m == "lo") in.mods |= kLo;
      else if (m == "hi") in.mods |= kHi;
      else if (m == "uni") in.mods |= kUni;
      else if (m == "approx") in.mods |= kApprox;
      else if (m == "ftz") in.mods |= kFtz;
      else if (m == "sat") in.mods |= kSat;
      else if (m == "nc") in.mods |= kNc;
      else if (m == "clamp") in.mods |= kShiftClamp;
      else if (m == "v2") in.vec = 2;
      else if (m == "v4") in.vec = 4;
      else if (m == "rn") in.rnd = Rnd::Rn;
      else if (m == "rz") in.rnd = Rnd::Rz;
      else if (m == "rm") in.rnd = Rnd::Rm;
      else if (m == "rp") in.rnd = Rnd::Rp;
      else if (m == "rni") in.rnd = Rnd::Rni;
      else if (m == "rzi") in.rnd = Rnd::Rzi;
      else if (m == "rmi") in.rnd = Rnd::Rmi;
      else if (m == "rpi") in.rnd = Rnd::Rpi;
      else if (base == "setp" || base == "set") {
        static const std::map<std::string, Cmp> cmps{{"eq", Cmp::Eq},   {"ne", Cmp::Ne},   {"lt", Cmp::Lt},
                                                     {"le", Cmp::Le},   {"gt", Cmp::Gt},   {"ge", Cmp::Ge},
                                                     {"lo", Cmp::Lo},   {"ls", Cmp::Ls},   {"hi", Cmp::Hi},
                                                     {"hs", Cmp::Hs},   {"equ", Cmp::Equ}, {"neu", Cmp::Neu},
                                                     {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu},
                                                     {"geu", Cmp::Geu}, {"num", Cmp::Num}, {"nan", Cmp::Nan}};
        auto c = cmps.find(m);
        if (c != cmps.end()) in.cmp = c->second;
        else if (m == "and") in.mods |= kCmpAnd;
        else if (m == "or") in.mods |= kCmpOr;
        else if (m == "xor") in.mods |= kCmpXor;
      } else if (base == "shfl") {
        if (m == "up") in.sub = uint8_t(ShflMode::Up);
        else if (m == "down") in.sub = uint8_t(ShflMode::Down);
        else if (m == "bfly") in.sub = uint8_t(ShflMode::Bfly);
        else if (m == "idx") in.sub = uint8_t(ShflMode::Idx);
      } else if (base == "vote") {
        if (m == "all") in.sub = uint8_t(VoteMode::All);
        else if (m == "any") in.sub = uint8_t(VoteMode::Any);
        else if (m == "uni") in.sub = uint8_t(VoteMode::Uni);
        else if (m == "ballot") in.sub = uint8_t(VoteMode::Ballot);
      } else if (base == "atom" || base == "red") {
        static const std::map<std::string, AtomOp> aops{{"add", AtomOp::Add}, {"min", AtomOp::Min},
                                                        {"max", AtomOp::Max}, {"exch", AtomOp::Exch},
                                                        {"cas", AtomOp::Cas}, {"and", AtomOp::And},
                                                        {"or", AtomOp::Or},   {"xor", AtomOp::Xor},
                                                        {"inc", AtomOp::Inc}, {"dec", AtomOp::Dec}};
        auto a = aops.find(m);
        if (a != aops.end()) in.sub = uint8_t(a->second);
      }
      // Everything else (.volatile, .relaxed, .gpu, .cta, .sync, .aligned, .L1::..., .full,
      // .ca, .cg, .cs, .lu, .cv, .wb, .wt, .NaN, .u64 of cvta...) changes nothing here.
    }
    const bool to = std::find(parts.begin(), parts.end(), "to") != parts.end();
    in.type = types.empty() ? Type::None : types[0];
    if (types.size() > 1) in.type2 = types[1];
    const auto& ops = opcodes();

    if (base == "bar" || base == "barrier") {
      // bar.warp.sync: every lane of the warp runs in lock step here already.
      in.op = std::find(parts.begin(), parts.end(), "warp") != parts.end() ? Opc::Nop : Opc::Bar;
      if (std::find(parts.begin(), parts.end(), "arrive") != parts.end())
        throw Error(m_.name + ":" + std::to_string(in.text_line) + ": unsupported instruction '" + in.opcode + "'");
      return;
    }
    auto it = ops.find(base);
    if (it == ops.end())
      throw Error(m_.name + ":" + std::to_string(in.text_line) + ": unsupported instruction '" + in.opcode + "'");
    in.op = it->second;
    if (in.op == Opc::Cvta && to) in.op = Opc::CvtaTo;
    if (in.op == Opc::Ld || in.op == Opc::St) {
      if (in.type == Type::None) throw Error(m_.name + ":" + std::to_string(in.text_line) + ": " + in.opcode + " without a type");
    }
    if (in.op == Opc::Cvt && in.rnd >= Rnd::Rni) in.mods |= kRzi;
  }

  std::vector<Tok> t_;
  size_t p_ = 0;
  Module m_;
  Kernel* kernel_ = nullptr;
  std::vector<Variable> local_;
  std::unordered_map<std::string, uint32_t> regs_;
  std::unordered_map<std::string, uint32_t> labels_;
  std::vector<std::pair<uint32_t, std::pair<uint32_t, std::string>>> fixups_;  // pc, (operand, label)
  std::array<uint32_t, 3> loc_{0, 0, 0};
};

}  // namespace

Module parse(const std::string& text, const std::string& name) { return Parser(text, name).run(); }

}  // namespace ws::ptx
