// src/ptx/parse.cpp — PTX text read into ptx::Module: module-level declarations, kernel
// and function headers with their parameters, declarations of registers and shared and
// local arrays, and the instructions with their operands resolved to register numbers,
// immediates, addresses and symbols. The same reader, told to skip instruction bodies,
// serves every other reader of PTX's declarations (parse_declarations).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "ptx/reader.h"
#include "trace/toolkit.h"

namespace ws::ptx {

const Kernel* Module::kernel(const std::string& n) const {
  for (const Kernel& k : kernels)
    if (k.name == n) return &k;
  return nullptr;
}

namespace {

using trace::toolkit_file;

// A recursive-descent reader over the token list. With `declarations` it reads what a
// module declares and passes over instruction bodies (not decoded, so that PTX built for
// any architecture reads), and a statement it cannot read is skipped instead of refused.
class Parser {
 public:
  Parser(const std::string& text, const std::string& name, bool declarations)
      : t_(tokenize(text)), declarations_(declarations) {
    m_.name = name;
  }

  Module run() {
    // .file comes after the code that names it: read the table first.
    for (size_t i = 0; i + 2 < t_.size(); ++i) {
      int64_t n = 0;
      if (t_[i].kind == Tok::Ident && t_[i].text == ".file" && parse_int(t_[i + 1].text, n) && t_[i + 2].kind == Tok::String)
        m_.files[uint32_t(n)] = t_[i + 2].text;
    }
    while (peek().kind != Tok::End) {
      if (!declarations_) {
        top_level();
        continue;
      }
      const size_t at = p_;
      try {
        top_level();
      } catch (const Error&) {  // passed over: what follows is still read
        kernel_ = nullptr;
        if (p_ == at) next();  // an unexpected word: the next one may start a declaration
        else skip_statement();
      }
    }
    if (!declarations_)
      for (Kernel& k : m_.kernels) {
        try {
          link(m_, k);
        } catch (const Error& e) {  // a call the interpreter cannot make: this kernel only
          if (k.refused.empty()) k.refused = e.what();
        }
      }
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
  // Directives such as .version end at the line's end, not at a ';'.
  void skip_line() {
    const uint32_t line = peek().line;
    while (peek().kind != Tok::End && peek().line == line) next();
  }
  void skip_statement() {
    while (peek().kind != Tok::End && !is(";")) next();
    if (is(";")) next();
  }
  // A .section's {...}: DWARF data nvcc emits with -G, of no use to the interpreter.
  void skip_braces() {
    int depth = 0;
    while (peek().kind != Tok::End) {
      if (is("{")) ++depth;
      if (is("}") && --depth == 0) { next(); return; }
      next();
    }
  }

  // One module-level statement. Linkage words (.visible, .weak) carry nothing the device
  // needs, so they are passed over and the declaration that follows decides.
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

  // .file N "path" [, timestamp, size]: the rest of the line is the optional metadata.
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
        const Tok t = next();
        if (t.kind == Tok::Ident && funcs_.count(t.text)) {  // a function's address: a vtable, a table of pointers
          vals.push_back(int64_t(function_address(t.text)));
          return;
        }
        if (t.kind == Tok::Ident && v.refused.empty()) {
          v.refused = m_.name + ":" + std::to_string(line) + ": " + v.name + " holds the address of " + t.text +
                      ": an initializer of addresses of variables is not implemented";
          return;
        }
        if (t.kind == Tok::Ident) return;
        if (!parse_number(t.text, x, f)) fail("bad initializer for " + v.name, line);
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


  // A parameter list `( .param .type name[, ...] )`, laid out as the launch ABI packs it.
  // `closed`: the list ended with its ')'; only a declarations reader accepts one cut short
  // (at the first word that is not a parameter), for PTX pasted without the rest.
  uint32_t param_list(std::vector<Param>& out, bool* closed = nullptr) {
    expect("(");
    uint32_t off = 0;
    while (!is(")") && peek().kind != Tok::End) {
      if (is(",")) { next(); continue; }
      if (closed && declarations_ && !is(".param")) {
        *closed = false;
        return off;
      }
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
    if (function) funcs_.insert(k.name);
    local_.clear();
    regs_.clear();
    slots_ = 0;
    scopes_.clear();
    preds_.clear();
    labels_.clear();
    fixups_.clear();
    bool closed = true;
    k.param_bytes = param_list(k.params, &closed);
    // Performance directives (.maxntid 256, 1, 1 / .reqntid / .minnctapersm / .maxnreg),
    // of which the cluster a kernel requires (.reqnctapercluster 2, 1, 1) is kept.
    while (closed && peek().kind != Tok::End && !is("{") && !is(";")) {
      if (next().text != ".reqnctapercluster") continue;
      for (int d = 0; d < 3 && peek().kind == Tok::Number; ++d) {
        int64_t v = 1;
        parse_int(next().text, v);
        k.cluster[d] = uint32_t(std::clamp<int64_t>(v, 1, 1 << 16));
        if (is(",")) next();
      }
      for (uint32_t& c : k.cluster) c = std::max(c, 1u);
    }
    if (closed && is(";")) {
      next();
      return;
    }
    if (closed) expect("{");
    kernel_ = &k;
    body(k);
    // Symbols: labels resolved, shared/local arrays bound.
    // A label is found in the innermost { } block around the branch that defines it (two
    // expansions of one inline asm each have their own LAB_WAIT), else the kernel's.
    for (const Fixup& f : fixups_) {
      auto it = labels_.end();
      for (size_t i = f.scopes.size() + 1; i-- > 0 && it == labels_.end();)
        it = labels_.find({i ? f.scopes[i - 1] : 0, f.label});
      if (it == labels_.end()) {  // a name the reader does not know (%envreg0, a texture): this kernel only
        if (k.refused.empty())
          k.refused = m_.name + ":" + std::to_string(k.code[f.pc].text_line) + ": " + k.code[f.pc].opcode + ": the name " +
                      f.label + " is not implemented";
        continue;
      }
      k.code[f.pc].o[f.slot].imm = it->second;
    }
    k.registers = slots_;
    (function ? m_.functions : m_.kernels).push_back(std::move(k));
    kernel_ = nullptr;
  }


  // A kernel's or function's statements up to its closing brace: .loc sets the source
  // position the next instructions carry, declarations add registers and arrays, labels
  // mark the next instruction's index (resolved once the body is read).
  void body(Kernel& k) {
    int depth = 1;
    while (peek().kind != Tok::End) {
      const Tok& tk = peek();
      const std::string& w = tk.text;
      if (w == "}") {
        next();
        if (--depth == 0) return;
        // A block's registers and labels are its own: the outer names are back.
        for (auto r = scopes_.back().regs.rbegin(); r != scopes_.back().regs.rend(); ++r)
          if (r->second < 0) regs_.erase(r->first);
          else regs_[r->first] = uint32_t(r->second);
        scopes_.pop_back();
        continue;
      }
      if (w == "{") {
        next();
        ++depth;
        scopes_.push_back({++scope_count_, {}});
        continue;
      }
      // A declarations reader whose kernel never closed (PTX cut short) stops at the next
      // module-level word.
      if (declarations_ && (w == ".entry" || w == ".func" || w == ".visible" || w == ".weak")) return;
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
      if (w == ".extern" && is(".shared", 1)) { variable(&k, true); continue; }
      if (w == ".pragma") { skip_statement(); continue; }
      if (w == ".param") { call_param(k); continue; }
      if (tk.kind == Tok::Ident && is(":", 1)) {
        labels_[{scopes_.empty() ? 0 : scopes_.back().id, w}] = uint32_t(k.code.size());
        next();
        next();
        continue;
      }
      if (declarations_) skip_statement();
      else instruction(k);
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
    const bool indirect = regs_.count(callee.text) != 0;
    if (indirect) {  // through a register: its value says which function (Module::taken)
      in.o[1].kind = Operand::Reg;
      in.o[1].reg = regs_[callee.text];
      in.nops = 2;
    } else {
      c.callee = callee.text;
    }
    if (is(",")) next();
    if (is("(")) slots(c.args);
    if (is(",")) {  // the prototype (or target list) of a call through a register
      if (!indirect) fail("a prototype list on a direct call", in.text_line);
      next();
      next();
    } else if (indirect) {
      fail("a call through a register without its prototype", in.text_line);
    }
    expect(";");
    in.op = Opc::Call;
    in.o[0].kind = Operand::Imm;
    in.o[0].imm = int64_t(k.calls.size());
    k.calls.push_back(std::move(c));
  }

  // .reg .type %r<N>; declares %r0..%r(N-1). The type is not kept: every register is a
  // 64-bit slot, and each instruction says how wide it reads it. Only predicates are known
  // apart (preds_): cp.async's fourth operand is ignore-src when it is one.
  void reg_decl() {
    next();
    const bool pred = next().text == ".pred";
    while (!is(";") && peek().kind != Tok::End) {
      if (is(",")) { next(); continue; }
      const std::string name = next().text;
      if (is("<")) {
        next();
        int64_t n = 0;
        const uint32_t at = peek().line;
        parse_int(next().text, n);
        expect(">");
        // A register is a 64-bit slot in every lane: a kernel past this many is not nvcc's.
        constexpr int64_t kMaxRegisters = 1 << 16;
        if (n < 0 || n > kMaxRegisters - int64_t(slots_))
          fail("a kernel with more than " + std::to_string(kMaxRegisters) + " registers (" + name + "<" +
                   std::to_string(n) + ">)",
               at);
        for (int64_t i = 0; i < n; ++i) {
          const uint32_t id = reg(name + std::to_string(i));
          if (pred) preds_.insert(id);
        }
      } else {
        const uint32_t id = reg(name);
        if (pred) preds_.insert(id);
      }
    }
    skip_statement();
  }

  // A register's slot number, given on first declaration; inside a { } block a declaration
  // is the block's own (a new slot, the outer name back at its `}`), as in inline asm that
  // declares `.reg .pred P1;` each time it is expanded.
  uint32_t reg(const std::string& name) {
    auto it = regs_.find(name);
    if (it != regs_.end() && scopes_.empty()) return it->second;
    if (!scopes_.empty()) scopes_.back().regs.push_back({name, it == regs_.end() ? -1 : int64_t(it->second)});
    const uint32_t id = slots_++;
    regs_[name] = id;
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
        if (!m_.globals[i].refused.empty()) throw Error(m_.globals[i].refused);  // refuses the instruction's kernel
        if (m_.globals[i].space == Space::Shared) {  // module-scope shared: a copy per kernel that uses it
          Variable v = m_.globals[i];
          add_shared(k, std::move(v));
          return add({Kernel::Sym::Shared, uint32_t(k.shared.size() - 1)});
        }
        return add({Kernel::Sym::Global, uint32_t(i)});
      }
    return false;
  }

  // One operand, resolved now so that execution never looks a name up: an address
  // [reg+sym+imm], a vector {a, b}, an immediate (float bits as written), a register, a
  // special register, a symbol, else a label fixed up at the body's end (`fix_slot`).
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
        if (is(",") && o.count == 0) {  // [tensorMap, {c0, c1}]: a TMA copy's coordinates, kept in vec
          next();
          expect("{");
          while (!is("}") && peek().kind != Tok::End) {
            if (is(",")) { next(); continue; }
            if (o.count >= 5) fail("more than 5 coordinates", line);
            o.vec[o.count++] = reg_or_fail(next().text, line);
          }
          expect("}");
          continue;
        }
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
    if (is("{")) return vector_operand(line);
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
    if (t.text == "_") return o;  // a result nobody reads (mbarrier.arrive _, [bar]): no operand
    if (t.text == "WARP_SZ") {  // the warp's width, a constant of the language
      o.kind = Operand::Imm;
      o.imm = 32;
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
        {"%dynamic_smem_size", Sreg::DynamicSmemSize}, {"%total_smem_size", Sreg::TotalSmemSize},
        {"%nsmid", Sreg::Nsmid},        {"%gridid", Sreg::Gridid},      {"%globaltimer", Sreg::Globaltimer},
        {"%globaltimer_lo", Sreg::GlobaltimerLo}, {"%globaltimer_hi", Sreg::GlobaltimerHi},
        {"%envreg1", Sreg::Envreg1},    {"%envreg2", Sreg::Envreg2},
        {"%cluster_ctarank", Sreg::ClusterCtarank}, {"%cluster_nctarank", Sreg::ClusterNctarank},
        {"%cluster_ctaid.x", Sreg::ClusterCtaidX}, {"%cluster_ctaid.y", Sreg::ClusterCtaidY},
        {"%cluster_ctaid.z", Sreg::ClusterCtaidZ}, {"%cluster_nctaid.x", Sreg::ClusterNctaidX},
        {"%cluster_nctaid.y", Sreg::ClusterNctaidY}, {"%cluster_nctaid.z", Sreg::ClusterNctaidZ},
        {"%clusterid.x", Sreg::ClusteridX}, {"%clusterid.y", Sreg::ClusteridY}, {"%clusterid.z", Sreg::ClusteridZ},
        {"%nclusterid.x", Sreg::NclusteridX}, {"%nclusterid.y", Sreg::NclusteridY},
        {"%nclusterid.z", Sreg::NclusteridZ}, {"%is_explicit_cluster", Sreg::IsExplicitCluster}};
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
    if (funcs_.count(t.text)) {  // a function's address (mov %rd, f): what a call through a register maps back
      o.kind = Operand::Imm;
      o.imm = int64_t(function_address(t.text));
      return o;
    }
    // A branch target, resolved once the body is read.
    o.kind = Operand::Label;
    label = true;
    Fixup f{uint32_t(kernel_->code.size()), fix_slot.second, t.text, {}};
    for (const Scope& sc : scopes_) f.scopes.push_back(sc.id);
    fixups_.push_back(std::move(f));
    return o;
  }

  // {%r1, _, %r2}: up to eight registers in the operand, a longer list in the kernel's lists
  // (only wgmma takes one: read_instruction checks).
  Operand vector_operand(uint32_t line) {
    expect("{");
    Operand o;
    o.kind = Operand::Vec;
    std::vector<uint32_t> regs;
    while (!is("}") && peek().kind != Tok::End) {
      if (is(",")) { next(); continue; }
      const std::string n = next().text;
      regs.push_back(n == "_" ? kSink : reg_or_fail(n, line));
    }
    expect("}");
    if (regs.size() > 255) fail("vector of more than 255 registers", line);
    o.count = uint8_t(regs.size());
    if (regs.size() <= o.vec.size()) {
      std::copy(regs.begin(), regs.end(), o.vec.begin());
    } else {
      o.has_reg = true;
      o.reg = uint32_t(kernel_->lists.size());
      kernel_->lists.insert(kernel_->lists.end(), regs.begin(), regs.end());
    }
    return o;
  }

  uint32_t reg_or_fail(const std::string& n, uint32_t line) {
    auto it = regs_.find(n);
    if (it == regs_.end()) fail("unknown register " + n, line);
    return it->second;
  }

  // [@[!]%p] opcode operands; — a call is read apart (its parameter lists), everything
  // else decoded from its dotted opcode (decode.cpp) after its operands. An instruction
  // the interpreter refuses stays in the code as a Nop (the labels after it keep their
  // places) and marks the kernel: only its launch fails, with the refusal's line.
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
    if (in.opcode == ".callprototype" && in.guard == kSink) {  // a signature the calls through registers name
      skip_statement();
      return;
    }
    const size_t fixups = fixups_.size();
    try {
      read_instruction(k, in);
    } catch (const Error& e) {
      fixups_.resize(fixups);
      if (k.refused.empty()) k.refused = e.what();
      if (t_[p_ - 1].text != ";" || t_[p_ - 1].kind == Tok::String) skip_statement();  // decode reads after the ';'
      Insn nop;
      nop.text_line = in.text_line;
      nop.file = in.file, nop.line = in.line, nop.column = in.column;
      nop.opcode = in.opcode;
      k.code.push_back(std::move(nop));
      return;
    }
    k.code.push_back(std::move(in));
  }

  void read_instruction(Kernel& k, Insn& in) {
    if (!in.opcode.empty() && in.opcode[0] == '.') fail("the directive " + in.opcode + " is not implemented", in.text_line);
    if (in.opcode == "call" || in.opcode.rfind("call.", 0) == 0) {
      if (const std::string why = refusal(split_dots(in.opcode)); !why.empty())
        fail(in.opcode + ": " + why, in.text_line);
      call(k, in);
      return;
    }
    {
      const std::string base = in.opcode.substr(0, in.opcode.find('.'));
      if (!known_opcode(base)) fail(in.opcode + ": the instruction " + base + " is not implemented", in.text_line);
    }
    std::vector<Operand> ops;
    while (!is(";") && peek().kind != Tok::End) {
      if (is(",")) { next(); continue; }
      if (is("|")) {  // a second destination: setp p|q, shfl d|p
        next();
        in.dst2 = reg_or_fail(next().text, in.text_line);
        continue;
      }
      bool label = false;
      ops.push_back(operand(in.text_line, {0, uint32_t(ops.size())}, label));
    }
    expect(";");
    // wgmma's immediates past its fourth operand (scale-a, scale-b, the transposes) are read
    // into its decoded form, not kept as operands.
    std::vector<int64_t> wg_imms;
    if (in.opcode.rfind("wgmma.", 0) == 0)
      while (ops.size() > 4 && ops.back().kind == Operand::Imm) {
        wg_imms.insert(wg_imms.begin(), ops.back().imm);
        ops.pop_back();
      }
    if (ops.size() > in.o.size()) fail("too many operands", in.text_line);
    for (size_t i = 0; i < ops.size(); ++i) in.o[i] = ops[i];
    in.nops = uint8_t(ops.size());
    decode(in, m_.name);
    if (const std::string why = decode_matrix(in, split_dots(in.opcode)); !why.empty()) fail(in.opcode + ": " + why, in.text_line);
    if (const std::string why = decode_wgmma(in, split_dots(in.opcode), wg_imms); !why.empty()) fail(in.opcode + ": " + why, in.text_line);
    if (in.op == Opc::CpAsync || in.op == Opc::Mbarrier) {
      decode_async(in, split_dots(in.opcode), m_.name);
      // cp.async's fourth operand is ignore-src when it is a predicate, else src-size.
      if (in.nops == 4 && in.o[3].kind == Operand::Reg && preds_.count(in.o[3].reg)) in.type2 = Type::Pred;
    }
    for (size_t i = 0; i < in.nops; ++i)
      if (in.o[i].kind == Operand::Vec && in.o[i].has_reg && in.op != Opc::Wgmma)
        fail(in.opcode + ": a vector of more than " + std::to_string(in.o[i].vec.size()) + " registers", in.text_line);
    if (in.dst2 != kSink && in.op != Opc::Setp && in.op != Opc::Shfl && in.op != Opc::Elect && !(in.op == Opc::Match && in.sub == 1))
      fail(in.opcode + ": a second destination is not implemented here", in.text_line);
  }


  // The address a function's name stands for (kFunctionBase + 16 * its place in Module::taken).
  uint64_t function_address(const std::string& name) {
    size_t i = 0;
    while (i < m_.taken.size() && m_.taken[i] != name) ++i;
    if (i == m_.taken.size()) m_.taken.push_back(name);
    return kFunctionBase + kFunctionStride * i;
  }

  std::vector<Tok> t_;
  size_t p_ = 0;
  std::set<std::string> funcs_;  // functions declared so far (.func, prototypes and bodies)
  bool declarations_ = false;
  Module m_;
  Kernel* kernel_ = nullptr;
  std::vector<Variable> local_;
  std::unordered_map<std::string, uint32_t> regs_;
  std::set<uint32_t> preds_;  // the registers declared .pred
  std::map<std::pair<uint32_t, std::string>, uint32_t> labels_;  // (block, name): pc; block 0 the body
  // The { } blocks open inside the body, innermost last: an id each, and the registers its
  // declarations shadow (name, the outer slot or -1).
  struct Scope {
    uint32_t id;
    std::vector<std::pair<std::string, int64_t>> regs;
  };
  std::vector<Scope> scopes_;
  uint32_t scope_count_ = 0, slots_ = 0;
  struct Fixup {
    uint32_t pc, slot;
    std::string label;
    std::vector<uint32_t> scopes;  // the blocks open where the label is named
  };
  std::vector<Fixup> fixups_;
  std::array<uint32_t, 3> loc_{0, 0, 0};
};

}  // namespace

Module parse(const std::string& text, const std::string& name) { return Parser(text, name, false).run(); }

Module parse_declarations(const std::string& text, const std::string& name) {
  return Parser(text, name, true).run();
}

}  // namespace ws::ptx