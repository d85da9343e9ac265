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

// Makes every function `k` calls (transitively) part of its code, each with registers,
// symbols, labels and a frame of its own, and lays out the thread's call area: a call
// copies its arguments into the callee's parameters, a return copies the return value
// back (Kernel::linked). Recursion shares one frame, so the machine refuses it.
void link(Module& m, Kernel& k) {
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
    for (const Kernel& g : m.functions)
      if (g.name == name) f = &g;
    if (!f) throw Error(m.name + ":" + std::to_string(line) + ": call to " + name + ", whose body is not in the PTX");
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

}  // namespace ws::ptx
