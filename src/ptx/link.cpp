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
    for (size_t pi = 0; pi < parts_.size(); ++pi) bind_calls(parts_[pi]);
    k_.call_bytes = area_;
  }

 private:
  struct Part {
    const Kernel* f;
    uint32_t pc_base, size;
    std::vector<uint32_t> param_off, ret_off, cp_off;
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

  // A callee becomes a part once (the device's builtins are none).
  void need(const std::string& name, uint32_t line) {
    if (part_of_.count(name) || builtin_of(name) != Kernel::Builtin::None) return;
    const Kernel* f = nullptr;
    for (const Kernel& g : m_.functions)
      if (g.name == name) f = &g;
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
    const uint64_t local_base = (k_.local_bytes + 7) / 8 * 8;
    k_.local_bytes = local_base + f.local_bytes;
    parts_[pi].param_off = place(f.params);
    parts_[pi].ret_off = place(f.rets);
    parts_[pi].cp_off = place(f.call_params);
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
        if (o.kind == Operand::Vec)
          for (int i = 0; i < o.count; ++i) reg(o.vec[size_t(i)]);
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

  // Every call site of part `p`: where its callee starts and what it copies in and out
  // (a builtin: where its arguments and return value lie).
  void bind_calls(const Part& p) {
    const uint32_t base = uint32_t(k_.linked.size());
    for (const Kernel::CallSite& c : p.f->calls) {
      Kernel::Linked l;
      if (const Kernel::Builtin b = builtin_of(c.callee); b != Kernel::Builtin::None) {
        l.builtin = b;
        for (uint32_t a : c.args) l.in.push_back({p.cp_off[a], 0, p.f->call_params[a].bytes});
        if (!c.rets.empty()) l.ret_slot = p.cp_off[c.rets[0]];
        k_.linked.push_back(std::move(l));
        continue;
      }
      const Part& q = parts_[part_of_.at(c.callee)];
      l.entry = q.pc_base;
      l.function = uint32_t(part_of_.at(c.callee));
      for (size_t i = 0; i < c.args.size() && i < q.param_off.size(); ++i)
        l.in.push_back({p.cp_off[c.args[i]], q.param_off[i], q.f->params[i].bytes});
      for (size_t j = 0; j < c.rets.size() && j < q.ret_off.size(); ++j)
        l.out.push_back({q.ret_off[j], p.cp_off[c.rets[j]], q.f->rets[j].bytes});
      k_.linked.push_back(std::move(l));
    }
    for (uint32_t pc = p.pc_base; pc < p.pc_base + p.size; ++pc)
      if (k_.code[pc].op == Opc::Call) k_.code[pc].o[0].imm += base;
  }

  Module& m_;
  Kernel& k_;
  uint32_t area_ = 0;  // the call area per thread so far
  std::vector<Part> parts_;
  std::map<std::string, size_t> part_of_;
};

}  // namespace

// Makes every function `k` calls (transitively) part of its code, each with registers,
// symbols, labels and a frame of its own, and lays out the thread's call area: a call
// copies its arguments into the callee's parameters, a return copies the return value
// back (Kernel::linked). Recursion shares one frame, so the machine refuses it.
void link(Module& m, Kernel& k) {
  if (!k.calls.empty()) Linker(m, k).run();
}

}  // namespace ws::ptx
