// src/ptx/link.cpp — device functions (.func) made part of the kernels that call them:
// the interpreter then runs one flat instruction stream per kernel, and a call is a jump
// with its arguments copied through the thread's call area.
#include <algorithm>
#include <map>

#include "ptx/reader.h"

namespace ws::ptx {

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

namespace {

Kernel::Builtin builtin_of(const std::string& name) {
  return name == "vprintf"        ? Kernel::Builtin::Printf
         : name == "__assertfail" ? Kernel::Builtin::AssertFail
         : name == "malloc"       ? Kernel::Builtin::Malloc
         : name == "free"         ? Kernel::Builtin::Free
                                  : Kernel::Builtin::None;
}

// The linking of one kernel. A part is the kernel itself (part 0) or one function it
// reaches, with where its code starts in the kernel and where its parameters, return
// values and call sites' slots lie in the thread's call area.
class Linker {
 public:
  Linker(Module& m, Kernel& k) : m_(m), k_(k) {}

  void run() {
    parts_.push_back({&k_, 0, uint32_t(k_.code.size()), {}, {}, place(k_.call_params)});
    for (Kernel::Sym& sym : k_.symbols)
      if (sym.kind == Kernel::Sym::CallParam) sym = {Kernel::Sym::Call, parts_[0].cp_off[sym.index]};
    for (const Insn& in : k_.code)
      if (in.op == Opc::Call) need(k_.calls[size_t(in.o[0].imm)].callee, in.text_line);
    for (size_t pi = 1; pi < parts_.size(); ++pi) append(pi);  // grows as callees call further
    reach_ = reachable();
    for (size_t pi = 0; pi < parts_.size(); ++pi) bind_calls(pi);
    k_.call_bytes = area_;
    for (const Kernel::Linked& l : k_.linked)
      if (l.recursive) {  // every activation gets a copy of the whole frame, up to the stack's size
        k_.frame_bytes = (k_.local_bytes + 15) / 16 * 16;
        k_.max_recursion = k_.frame_bytes ? uint32_t(std::min<uint64_t>(kMaxRecursion, kStackBytes / k_.frame_bytes))
                                          : kMaxRecursion;
        k_.local_bytes = k_.frame_bytes * (1 + k_.max_recursion);
        break;
      }
  }

  // Recursive calls a thread may be inside at once, and the local memory they may take
  // together: the emulated device's stack (the GPU's is 1 KiB a thread by default, which
  // holds fewer).
  static constexpr uint32_t kMaxRecursion = 1000;
  static constexpr uint64_t kStackBytes = 16 * 1024;

 private:
  struct Part {
    const Kernel* f;
    uint32_t pc_base, size;
    std::vector<uint32_t> param_off, ret_off, cp_off;
    uint32_t reg_base = 0, area_lo = 0, area_hi = 0;  // its registers and call-area bytes
  };

  // Room in the call area for each of `ps`, at its alignment.
  std::vector<uint32_t> place(const std::vector<Param>& ps) {
    std::vector<uint32_t> off;
    for (const Param& p : ps) {
      const uint32_t a = std::max<uint32_t>(1, p.align);
      area_ = (area_ + a - 1) / a * a;
      off.push_back(area_);
      area_ += std::max<uint32_t>(1, p.bytes);
    }
    return off;
  }

  // A callee becomes a part once (the device's builtins are none). A call through a
  // register may reach any function whose address the module takes: each with a body
  // becomes a part (one without cannot be called, which its entry says).
  void need(const std::string& name, uint32_t line) {
    if (name.empty()) {
      for (const std::string& t : m_.taken)
        if (body_of(t)) need(t, line);
      return;
    }
    if (part_of_.count(name) || builtin_of(name) != Kernel::Builtin::None) return;
    const Kernel* f = body_of(name);
    if (!f) throw Error(m_.name + ":" + std::to_string(line) + ": call to " + name + ", whose body is not in the PTX");
    if (!f->refused.empty() && k_.refused.empty()) k_.refused = f->refused;  // its refusal is the caller's
    part_of_[name] = parts_.size();
    parts_.push_back({f, 0, 0, {}, {}, {}});
  }

  // Part `pi`'s code appended to the kernel's: its registers, symbols, local frame and
  // labels moved past the kernel's own, its parameters to their call-area slots.
  void append(size_t pi) {
    const Kernel& f = *parts_[pi].f;
    const uint32_t pc_base = uint32_t(k_.code.size());
    parts_[pi].pc_base = pc_base;
    parts_[pi].size = uint32_t(f.code.size());
    const uint32_t reg_base = k_.registers;
    k_.registers += f.registers;
    parts_[pi].reg_base = reg_base;
    const uint64_t local_base = (k_.local_bytes + 7) / 8 * 8;
    k_.local_bytes = local_base + f.local_bytes;
    parts_[pi].area_lo = area_;
    parts_[pi].param_off = place(f.params);
    parts_[pi].ret_off = place(f.rets);
    parts_[pi].cp_off = place(f.call_params);
    parts_[pi].area_hi = area_;
    const Part p = parts_[pi];  // a copy: need() may grow `parts_` below
    const uint32_t sym_base = uint32_t(k_.symbols.size());
    for (const Kernel::Sym& sym : f.symbols) k_.symbols.push_back(moved(sym, f, p, local_base));
    for (Insn in : f.code) {
      auto reg = [&](uint32_t& r) {
        if (r != kSink) r += reg_base;
      };
      reg(in.guard);
      for (Operand& o : in.o) {
        if (o.kind == Operand::Reg || (o.kind == Operand::Addr && o.has_reg)) o.reg += reg_base;
        if (o.kind == Operand::Vec && o.has_reg) {  // a long vector: its registers into the kernel's lists
          const uint32_t at = uint32_t(k_.lists.size());
          for (uint32_t i = 0; i < o.count; ++i) {
            uint32_t r = f.lists[o.reg + i];
            reg(r);
            k_.lists.push_back(r);
          }
          o.reg = at;
        } else if (o.kind == Operand::Vec) {
          for (int i = 0; i < o.count; ++i) reg(o.vec[size_t(i)]);
        }
        if (o.kind == Operand::Symbol || (o.kind == Operand::Addr && o.has_symbol)) o.symbol += sym_base;
        if (o.kind == Operand::Label) o.imm += pc_base;
      }
      if (in.op == Opc::Call) need(f.calls[size_t(in.o[0].imm)].callee, in.text_line);
      k_.code.push_back(std::move(in));
    }
  }

  // Function `f`'s symbol as the kernel sees it: parameters and return values in the call
  // area, locals past the kernel's frame, shared arrays the kernel's own (added once).
  Kernel::Sym moved(const Kernel::Sym& sym, const Kernel& f, const Part& p, uint64_t local_base) {
    Kernel::Sym t = sym;
    switch (sym.kind) {
      case Kernel::Sym::Param: t = {Kernel::Sym::Call, p.param_off[sym.index]}; break;
      case Kernel::Sym::Ret: t = {Kernel::Sym::Call, p.ret_off[sym.index]}; break;
      case Kernel::Sym::CallParam: t = {Kernel::Sym::Call, p.cp_off[sym.index]}; break;
      case Kernel::Sym::Local: t.index = uint32_t(sym.index + local_base); break;
      case Kernel::Sym::Shared: {
        const Variable& v = f.shared[sym.index];
        size_t i = 0;
        while (i < k_.shared.size() && k_.shared[i].name != v.name) ++i;
        if (i == k_.shared.size()) add_shared(k_, v);
        t.index = uint32_t(i);
        break;
      }
      default: break;
    }
    return t;
  }

  const Kernel* body_of(const std::string& name) const {
    for (const Kernel& g : m_.functions)
      if (g.name == name && !g.code.empty()) return &g;
    return nullptr;
  }

  // The parts each part's calls lead to, directly or not.
  std::vector<std::vector<bool>> reachable() const {
    const size_t n = parts_.size();
    std::vector<std::vector<bool>> r(n, std::vector<bool>(n, false));
    for (size_t pi = 0; pi < n; ++pi)
      for (const Kernel::CallSite& c : parts_[pi].f->calls) {
        if (!c.callee.empty()) {
          if (auto it = part_of_.find(c.callee); it != part_of_.end()) r[pi][it->second] = true;
          continue;
        }
        for (const std::string& t : m_.taken)
          if (auto it = part_of_.find(t); it != part_of_.end()) r[pi][it->second] = true;
      }
    for (size_t via = 0; via < n; ++via)  // closed over paths (Warshall)
      for (size_t a = 0; a < n; ++a)
        if (r[a][via])
          for (size_t b = 0; b < n; ++b)
            if (r[via][b]) r[a][b] = true;
    return r;
  }

  // A call from part `pi` to `callee` (a function name): where it starts, what it copies
  // in and out, and whether it may re-enter a function the thread is inside. `why`: a
  // call through a register, which says what it cannot reach.
  Kernel::Linked bind(size_t pi, const Kernel::CallSite& c, const std::string& callee, bool through_register) {
    const Part& p = parts_[pi];
    Kernel::Linked l;
    if (const Kernel::Builtin b = builtin_of(callee); b != Kernel::Builtin::None) {
      if (through_register) {
        l.refused = "a call through a pointer to " + callee + " (a function the device provides) is not implemented";
        return l;
      }
      l.builtin = b;
      for (uint32_t a : c.args) l.in.push_back({p.cp_off[a], 0, p.f->call_params[a].bytes});
      if (!c.rets.empty()) l.ret_slot = p.cp_off[c.rets[0]];
      return l;
    }
    auto it = part_of_.find(callee);
    if (it == part_of_.end()) {
      l.refused = "a call through a pointer to " + callee + ", whose body is not in the PTX";
      return l;
    }
    const Part& q = parts_[it->second];
    if (through_register && (c.args.size() != q.f->params.size() || c.rets.size() != q.f->rets.size())) {
      l.refused = "a call through a pointer with " + std::to_string(c.args.size()) + " argument(s) to " + callee +
                  ", which takes " + std::to_string(q.f->params.size());
      return l;
    }
    l.entry = q.pc_base;
    for (size_t i = 0; i < c.args.size() && i < q.param_off.size(); ++i)
      l.in.push_back({p.cp_off[c.args[i]], q.param_off[i], q.f->params[i].bytes});
    for (size_t j = 0; j < c.rets.size() && j < q.ret_off.size(); ++j)
      l.out.push_back({q.ret_off[j], p.cp_off[c.rets[j]], q.f->rets[j].bytes});
    if (reach_[it->second][pi]) {
      l.recursive = true;
      l.reg_base = q.reg_base;
      l.reg_count = q.f->registers;
      l.area_lo = q.area_lo;
      l.area_hi = q.area_hi;
    }
    return l;
  }

  // Every call site of part `pi`: one entry, or for a call through a register one per
  // function whose address the module takes.
  void bind_calls(size_t pi) {
    const Part& p = parts_[pi];
    std::vector<uint32_t> first;  // per call site: its first entry
    for (const Kernel::CallSite& c : p.f->calls) {
      first.push_back(uint32_t(k_.linked.size()));
      if (!c.callee.empty()) {
        k_.linked.push_back(bind(pi, c, c.callee, false));
        continue;
      }
      for (const std::string& t : m_.taken) {
        k_.linked.push_back(bind(pi, c, t, true));
        k_.linked.back().targets = uint32_t(m_.taken.size());
      }
      if (m_.taken.empty()) {  // no function's address is ever taken: every pointer is wrong
        Kernel::Linked none;
        none.refused = "a call through a pointer, but the program takes no function's address";
        k_.linked.push_back(std::move(none));
        k_.linked.back().targets = 1;
      }
    }
    for (uint32_t pc = p.pc_base; pc < p.pc_base + p.size; ++pc)
      if (k_.code[pc].op == Opc::Call) k_.code[pc].o[0].imm = first[size_t(k_.code[pc].o[0].imm)];
  }

  Module& m_;
  Kernel& k_;
  uint32_t area_ = 0;  // the call area per thread so far
  std::vector<Part> parts_;
  std::map<std::string, size_t> part_of_;
  std::vector<std::vector<bool>> reach_;  // reach_[a][b]: part a's calls lead to part b
};

}  // namespace

// Makes every function `k` calls (transitively) part of its code, each with registers,
// symbols, labels and a frame of its own, and lays out the thread's call area: a call
// copies its arguments into the callee's parameters, a return copies the return value
// back (Kernel::linked). A call that may re-enter a running function is marked so that
// the machine gives the new activation registers and frames of its own.
void link(Module& m, Kernel& k) {
  if (!k.calls.empty()) Linker(m, k).run();
}

}  // namespace ws::ptx
