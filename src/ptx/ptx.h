// src/ptx/ptx.h — a PTX module as nvcc wrote it, decoded once into a compact form the
// interpreter (machine.h) executes: its files (.file), kernels (.entry) with their
// parameters, registers, shared and local arrays and instructions, each instruction with
// the source position of its .loc. Depends on nothing else in warpscope.
#pragma once
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace ws::ptx {

// PTX the decoder cannot read ("prog.ptx:3: expected ')', found '{'"), or an instruction
// the interpreter does not implement ("prog.ptx:41: tex.2d.v4.f32.f32: the instruction tex
// is not implemented"), which parse() keeps as its kernel's refusal (Kernel::refused).
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Operand types. Float types keep their IEEE bits in a register's low bits.
// Half precision: f16 (IEEE binary16) and bf16 (bfloat16) in a register's low 16 bits, their
// pairs (.f16x2, .bf16x2) in its low 32, element 0 in the low half.
enum class Type : uint8_t { None, Pred, B8, B16, B32, B64, U8, U16, U32, U64, S8, S16, S32, S64, F16, F32, F64,
                            BF16, F16X2, BF16X2,
                            E4M3X2, E5M2X2 };  // two 8-bit floats in 16 bits (cvt's only)
constexpr uint32_t type_bytes(Type t) {
  switch (t) {
    case Type::B8: case Type::U8: case Type::S8: return 1;
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: case Type::BF16: case Type::E4M3X2:
    case Type::E5M2X2: return 2;
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: case Type::Pred: case Type::F16X2: case Type::BF16X2:
      return 4;
    case Type::B64: case Type::U64: case Type::S64: case Type::F64: return 8;
    case Type::None: return 0;
  }
  return 0;
}
constexpr bool is_signed(Type t) { return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64; }
constexpr bool is_half(Type t) { return t == Type::F16 || t == Type::BF16 || t == Type::F16X2 || t == Type::BF16X2; }
constexpr bool is_float(Type t) { return t == Type::F32 || t == Type::F64 || is_half(t); }
constexpr bool is_fp8x2(Type t) { return t == Type::E4M3X2 || t == Type::E5M2X2; }

// State spaces of ld/st/atom/cvta and of declared variables. Generic: an address whose
// window says where it goes, as on the GPU.
enum class Space : uint8_t { Generic, Global, Shared, Local, Const, Param };

// The instructions the interpreter runs: one per row of opcodes.def.
enum class Opc : uint8_t {
#define PTX_OP(E, N, K, F) E,
#include "ptx/opcodes.def"
};

// How the interpreter runs an instruction (opcodes.def explains each kind).
enum class Kind : uint8_t { Alu, Move, Memory, Warp, Control, Nothing };
inline constexpr Kind kKindOf[] = {
#define PTX_OP(E, N, K, F) Kind::K,
#include "ptx/opcodes.def"
};
constexpr Kind kind_of(Opc op) { return kKindOf[size_t(op)]; }

enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };

// Special registers read by mov.
enum class Sreg : uint8_t { TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY,
                            NctaidZ, Laneid, Warpid, LanemaskLt, LanemaskLe, LanemaskEq, LanemaskGe, LanemaskGt,
                            Clock, Clock64, Nwarpid, Smid, ReservedSmem, DynamicSmemSize, TotalSmemSize, Nsmid,
                            Gridid, Globaltimer, GlobaltimerLo, GlobaltimerHi,
                            Envreg1, Envreg2,  // the grid's sync workspace, high and low halves
                            // A thread block cluster's: the CTA's rank and place in it, the
                            // cluster's size, its place in the grid (a launch without
                            // clusters has clusters of one CTA).
                            ClusterCtarank, ClusterNctarank, ClusterCtaidX, ClusterCtaidY, ClusterCtaidZ,
                            ClusterNctaidX, ClusterNctaidY, ClusterNctaidZ, ClusteridX, ClusteridY, ClusteridZ,
                            NclusteridX, NclusteridY, NclusteridZ, IsExplicitCluster };

struct Operand {
  enum Kind : uint8_t { None, Reg, Imm, Addr, Vec, Special, Symbol, Label } kind = None;
  bool negate = false;      // !%p (selp / setp's predicate inputs)
  uint32_t reg = 0;         // Reg; Addr: base register when has_reg; long Vec: its first in Kernel::lists
  bool has_reg = false;     // Addr; Vec: a long one (below)
  uint32_t symbol = 0;      // Symbol / Addr with a symbol base: index into Kernel::symbols
  bool has_symbol = false;  // Addr
  int64_t imm = 0;          // Imm (bits, for floats); Addr: the offset; Label: target pc
  Sreg sreg = Sreg::TidX;   // Special
  uint8_t count = 0;        // Vec: elements; Addr: coordinates after the address ([map, {x, y}])
  std::array<uint32_t, 8> vec{};   // Vec: registers (kSink for "_"), eight for a wmma fragment; Addr: the coordinates' registers
  // A Vec of more than eight registers (wgmma's accumulators, up to 128) sets has_reg: its
  // `count` registers are Kernel::lists[reg] onwards (vec_reg reads either kind).
};
constexpr uint32_t kSink = 0xffffffffu;

// Modifier bits of an instruction.
enum Mod : uint16_t {
  kWide = 1, kLo = 2, kHi = 4, kUni = 8, kApprox = 16, kFtz = 32, kSat = 64, kRound = 128,  // .rn etc. seen
  kRzi = 256,   // cvt.rzi / .rmi / .rpi / .rni: round float to integer (kind in `rnd`)
  kNc = 512,    // ld.global.nc
  kCmpAnd = 1024, kCmpOr = 2048, kCmpXor = 4096,  // setp's boolean combination
  kShiftClamp = 8192,
  kShiftAmt = 16384,  // bfind.shiftamt
  kNaN = 32768,       // min.NaN / max.NaN: a NaN operand makes the result NaN
  kMulticast = kCmpAnd,  // cp.async.bulk(.tensor).multicast::cluster: to the CTAs of a mask
};

enum class Rnd : uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi };
enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { All, Any, Uni, Ballot };
enum class AtomOp : uint8_t { Add, Min, Max, Exch, Cas, And, Or, Xor, Inc, Dec };
enum class TestpKind : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };
enum class PrmtMode : uint8_t { Default, F4e, B4e, Rc8, Ecl, Ecr, Rc16 };
// What a tensormap instruction does: replace one field of a map, or copy a map to global memory.
enum class TensormapOp : uint8_t { GlobalAddress, GlobalDim, GlobalStride, Copy };
enum class BarRed : uint8_t { None, Popc, And, Or,  // bar.red: what the block's predicates make
                              Arrive,                        // bar.arrive: counted in, no wait
                              ClusterArrive, ClusterWait };  // barrier.cluster's two halves
// What a cp.async or mbarrier instruction does (its words read by decode_async).
enum class AsyncOp : uint8_t { Copy, Commit, WaitGroup, WaitAll, CopyArrive, CopyArriveNoinc, Bulk, Tensor,
                               Init, Arrive, ArriveDrop, ExpectTx, CompleteTx, TestWait, TryWait, Inval,
                               PendingCount,
                               // shared to global (bulk_store.cpp): cp.async.bulk(.tensor) and
                               // cp.reduce.async.bulk(.tensor) of the bulk_group, its commit and wait
                               BulkStore, TensorStore, BulkCommit, BulkWait };

struct Insn {
  Opc op = Opc::Nop;
  Type type = Type::None;   // the operation's type (cvt: destination)
  Type type2 = Type::None;  // cvt: source; set: destination
  Space space = Space::Generic;
  uint16_t mods = 0;
  Rnd rnd = Rnd::None;
  Cmp cmp = Cmp::Eq;
  uint8_t sub = 0;          // ShflMode / VoteMode / AtomOp / TestpKind / PrmtMode / BarRed / AsyncOp / TensormapOp
  uint8_t vec = 1;          // ld/st .v2 / .v4
  uint8_t nops = 0;
  std::array<Operand, 5> o{};
  uint32_t dst2 = kSink;    // a second destination (setp p|q, shfl d|p), kSink: none
  uint32_t guard = kSink;   // predicate register, kSink: none
  uint32_t matrix = 0;      // ldmatrix / mma / wmma: shape, part, layouts and types (matrix.h)
  bool guard_neg = false;
  uint8_t reduce = 0;       // cp.reduce.async.bulk(.tensor): 1 + its AtomOp; 0: a copy
  // red, or an atom (not cas) of global memory whose old value nothing reads: a pure
  // reduction, which the device may apply later in the same order (mark_reductions).
  bool reduces = false;
  // Where it came from: .loc file (index into Module::files), line, column; the text.
  uint32_t file = 0, line = 0, column = 0;
  uint32_t text_line = 0;   // line in the PTX text
  std::string opcode;       // "ld.global.f32" as written
};

// A variable of a state space: a kernel's shared array, a module's __device__ or
// __constant__ variable, the local depot.
struct Variable {
  std::string name;         // as in the PTX (mangled)
  Space space = Space::Global;
  uint32_t align = 1;
  uint64_t bytes = 0;       // 0 with `external`: dynamic shared memory
  uint32_t elem_bytes = 1;  // the declared element type's width
  bool external = false;
  std::vector<uint8_t> init;  // initial value (zeros when none given)
  uint64_t offset = 0;      // shared / local: its offset in the block's window (set by the decoder)
  std::string refused;      // why a kernel naming it cannot run ("" when it can): an initializer of function addresses
};

struct Param {
  std::string name;
  uint32_t bytes = 0, align = 1;
  uint32_t offset = 0;      // in the parameter buffer, as the launch ABI packs it
};

struct Kernel {
  std::string name;         // mangled, as __cudaRegisterFunction names it
  std::vector<Param> params;
  uint32_t param_bytes = 0;
  uint32_t registers = 0;   // every register gets one 64-bit slot per lane
  std::vector<Variable> shared;   // static shared arrays (offsets from 0), then the extern one
  uint64_t static_shared = 0;     // bytes of static shared memory
  // __cluster_dims__ (.reqnctapercluster x, y, z): the cluster every launch of it has; 0s
  // when the kernel names none (a launch may still give one, cudaLaunchKernelEx).
  uint32_t cluster[3] = {0, 0, 0};
  uint64_t local_bytes = 0;       // the local depot per thread
  std::vector<Insn> code;
  std::vector<uint32_t> lists;    // the registers of vectors longer than Operand::vec holds
  // Symbols an operand names: index into Module::globals (kind Global), this kernel's
  // shared arrays or parameters; Local: the offset in the thread's frame; Call: the offset
  // in the thread's call area (set when functions are linked in); CallParam / Ret: a
  // call site's `.param` slot, a function's return value (before linking).
  struct Sym {
    enum Kind : uint8_t { Global, Shared, Local, Param, Call, CallParam, Ret } kind;
    uint32_t index;
  };
  std::vector<Sym> symbols;

  // ---- device functions (.func) and calls; what linking makes of them --------------------
  bool is_function = false;
  std::vector<Param> rets;         // a function's return value(s): func_retval0
  std::vector<Param> call_params;  // the `.param` slots its call sites declare
  struct CallSite {
    std::string callee;                // "" for a call through a register (o[1])
    std::vector<uint32_t> args, rets;  // call_params slots
  };
  std::vector<CallSite> calls;     // a Call instruction's o[0].imm indexes this (before linking)
  // After linking (kernels only): every function the kernel calls is part of its code.
  struct Copy {
    uint32_t from, to, bytes;      // offsets in the call area
  };
  enum class Builtin : uint8_t { None, Printf, AssertFail, Malloc, Free };  // functions the device provides
  struct Linked {
    Builtin builtin = Builtin::None;  // vprintf (printf), __assertfail (assert), malloc, free: run by the machine
    uint32_t ret_slot = 0;            // a builtin's: where its return value goes
    uint32_t entry = 0;            // the callee's first instruction
    std::vector<Copy> in, out;     // arguments in, return values out
    // A call that may enter a function already running in the thread (the callee reaches
    // the caller): the callee's registers [reg_base, +reg_count) and call-area bytes
    // [area_lo, area_hi) are kept for the return, and the thread's local frames move on
    // by Kernel::frame_bytes, so that every activation has its own.
    bool recursive = false;
    uint32_t reg_base = 0, reg_count = 0, area_lo = 0, area_hi = 0;
    // A call through a register: the first of `targets` entries, one per Module::taken
    // function in its order. `refused`: why this target cannot be called ("" when it can).
    uint32_t targets = 0;
    std::string refused;
  };
  std::vector<Linked> linked;      // a Call instruction's o[0].imm indexes this
  uint32_t call_bytes = 0;         // the call area per thread
  // A kernel that recurses: its local frame (local_bytes then counts every activation's),
  // and how many recursive calls a thread may be inside at once (the emulated stack).
  uint64_t frame_bytes = 0;
  uint32_t max_recursion = 0;

  // Why the kernel cannot run, "" when it can: the first instruction of its own or of a
  // function it calls that the interpreter refuses ("prog.ptx:57: cvt.rn.bf16.f32: the
  // type bf16 is not implemented"). The rest of the module runs; launching this kernel
  // throws Refused (machine.h) with this line.
  std::string refused;
};

// Register j of a vector operand of kernel k (kSink for "_").
inline uint32_t vec_reg(const Kernel& k, const Operand& o, uint32_t j) { return o.has_reg ? k.lists[o.reg + j] : o.vec[j]; }
// The registers an operand names: a vector's count, 1 for a register, 0 for anything else.
inline uint32_t register_count(const Operand& o) { return o.kind == Operand::Vec ? o.count : o.kind == Operand::Reg ? 1 : 0; }

struct Module {
  std::string name;  // the PTX file's name, for messages
  std::vector<Kernel> functions;  // device functions nvcc did not inline (linked into kernels)
  std::unordered_map<uint32_t, std::string> files;  // .file number -> path
  std::vector<Variable> globals;  // __device__ (Global) and __constant__ (Const) variables, and module-scope __shared__
  std::vector<Kernel> kernels;
  // Functions whose address the module takes (an initializer such as a vtable, or a mov):
  // function i's address is kFunctionBase + 16 * i.
  std::vector<std::string> taken;
  const Kernel* kernel(const std::string& name) const;
};

// Where function addresses lie: outside every memory window, so that a call through a
// pointer maps the value back to its function and a load through it faults.
constexpr uint64_t kFunctionBase = 0x0000'0b40'0000'0000ull;
constexpr uint64_t kFunctionStride = 16;

// One form the interpreter implements (a PTX_FORM row of opcodes.def): the opcode's first
// word, the type words each type position takes (cvt: destination, then source; none for
// bar), and the modifiers it accepts with them. An instruction whose words all fit one form
// runs; any other is refused, never run approximately.
struct Form {
  std::string opcode;
  std::vector<std::vector<std::string>> types;
  std::vector<std::string> modifiers;
};
// Every form the interpreter accepts: what a test against the GPU enumerates.
const std::vector<Form>& accepted_forms();

// Decodes PTX text. Throws Error naming the PTX line for what it cannot read; an instruction
// the interpreter does not implement does not throw but marks its kernel (Kernel::refused),
// and every kernel that calls a function holding one.
Module parse(const std::string& text, const std::string& name = "module.ptx");

// What PTX text declares, for readers that do not run it: kernels (.entry) and functions
// with their parameters and the shared and local arrays their bodies declare, module
// variables, .file entries. Instructions are passed over undecoded, so PTX for any
// architecture reads, and kernels' code stays empty. Never throws: a statement it cannot
// read is skipped.
Module parse_declarations(const std::string& text, const std::string& name = "module.ptx");

}  // namespace ws::ptx
