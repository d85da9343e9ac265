// src/ptx/uniform.h — which registers of a kernel hold one value for every lane of a warp
// by construction (the compiler can see it), and what that makes of an atomic: ptxas
// combines the warp's updates to such an address into one, and turns an add of 1 in
// shared memory into ATOMS.POPC.INC. Read from the decoded kernel alone, conservatively:
// a register not proven uniform is not.
#pragma once
#include <cstdint>
#include <vector>

#include "ptx/ptx.h"
#include "trace/trace.h"

namespace ws::ptx {

// Per register of `k` (index = register number): 1 when every definition of it is computed
// only from immediates, %ctaid, %nctaid, %ntid, symbols' addresses, kernel parameters,
// ld.param / ld.const of uniform addresses and other uniform registers, each definition
// unguarded or guarded by a uniform predicate, and — when it has several definitions —
// the kernel branches on no divergent predicate. 0 otherwise, and for a register nothing
// defines.
std::vector<uint8_t> uniform_registers(const Kernel& k);

// Whether address operand `a` is the same for every lane (no base register, or a uniform one).
bool uniform_address(const Operand& a, const std::vector<uint8_t>& uniform);

// Whether any instruction of `k` reads the old value atom `in` hands back (false for red,
// and for an atom whose destination is `_` or a register nothing reads).
bool old_value_read(const Kernel& k, const Insn& in);

// Sets Insn::reduces on each instruction of `k` that only reduces into global memory: red,
// or an atom other than cas whose old value nothing reads.
void mark_reductions(Kernel& k);

// How ptxas carries out atom / red `in` of `k` on sm_80 and later (`uniform` from
// uniform_registers(k)): Combined for a 32-bit integer add to a uniform address whose
// per-lane result is not needed (red, an unused atom result, or an add of a constant),
// Increment for an add of the constant 1 to .shared memory, PerLane for everything else
// and for any other instruction.
trace::AtomicPath atomic_path(const Kernel& k, const Insn& in, const std::vector<uint8_t>& uniform);

}  // namespace ws::ptx
