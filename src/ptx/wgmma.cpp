// src/ptx/wgmma.cpp — Hopper's warpgroup product, wgmma.mma_async: D (64 x N) = A (64 x 16)
// x B (16 x N) (+ D), run by the four warps of a warpgroup (warps 4g .. 4g+3 of the block),
// warp q holding rows 16q .. 16q+15 of A and D. A comes from registers (each warp its 16 x 16
// slice, laid out as mma.sync's m16n8k16 A fragment) or from shared memory through a matrix
// descriptor; B always through a descriptor. Since warp q's rows of D depend only on its rows
// of A and on B, each warp computes its slice once all four have reached the instruction
// (a warp that comes first waits there); the group's completion (commit_group, wait_group)
// then has nothing left to wait for, which is one of the orders the asynchronous
// instruction allows.
//
// A descriptor (64 bits): the start address >> 4 (bits 0-13), the leading and the stride
// byte offsets >> 4 (16-29, 32-45), a base offset (49-51) and the swizzle (62-63: 0 none,
// 1 128-byte, 2 64-byte, 3 32-byte). An operand is read K-major: row r (of M or N) and byte
// b along K lie at
//   no swizzle   start + (r / 8) * SBO + (b / 16) * LBO + (r % 8) * 16 + b % 16
//                (core matrices of 8 rows x 16 bytes);
//   swizzled     start + (r / 8) * SBO + (r % 8) * W + b, W = 32, 64 or 128 bytes a row,
//                and then the address's 16-byte chunk bits [4, 4 + s) XOR its bits [7, 7 + s)
//                (s = 1, 2, 3): the pattern TMA writes with the same mode.
// A transposed operand (imm-trans 1) is read MN-major, element (r, k) of 2 bytes at
//   no swizzle   start + (r / 8) * SBO + (k / 8) * LBO + (k % 8) * 16 + (r % 8) * 2
//                (core matrices of 8 K rows x 16 bytes along MN);
//   swizzled     start + (r / 8 % C) * 16 + (r / 8 / C) * LBO + (k % 8) * W + (k / 8) * SBO
//                + (r % 8) * 2, C = W / 16 chunks a row, then the same XOR
// (CUTLASS's canonical layouts: LBO steps along MN past a swizzle row, SBO along K past 8).
// A non-zero base offset is refused in one line. Integer operands (s8, u8: K 32, bytes along
// K) are K-major only; their products and the old D sum exactly, wrapping in s32 (clamped to
// its range with .satfinite); A from registers is mma.sync's m16n8k32 A fragment.
//
// Rounding, as the H200 does it (fitted to its results, tests/programs/wgmma_tile.cu dump):
// into an f32 accumulator, the 16 exact products and the old value (when scale-d keeps it)
// are aligned at the largest exponent E among them (a product's exponent is the sum of its
// factors', its significand left in [1, 4)), each cut toward zero at 2^(E - 25), added
// exactly, and the sum cut toward zero to f32. Into f16, the exact sum rounded to nearest.
// tf32 inputs (K 8) the same. 8-bit floats (e4m3, e5m2: K 32) keep 13 bits of each term below
// E and 14 of the sum; into f16, 13 of each term and the whole sum, rounded to nearest.
// (H200, CUDA 13.0: 17,408 results of narrow-range and 17,408 of wide-range inputs, and a
// 256 x 256 GEMM, equal bit for bit.)
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>

#include "ptx/block_run.h"
#include "ptx/matrix.h"
#include "ptx/reader.h"
#include "ptx/value.h"

namespace ws::ptx {

namespace {

// What Insn::matrix holds for wgmma.
enum class WgPart : uint32_t { Mma = 0, Fence = 1, Commit = 2, Wait = 3 };
struct WgInfo {
  WgPart part = WgPart::Mma;
  uint32_t n = 0;             // the shape's N
  bool d_f16 = false;         // the accumulator: f16 (else f32)
  bool bf16 = false;          // A and B: bf16 (else f16)
  bool a_regs = false;        // A from registers (else a descriptor)
  bool neg_a = false, neg_b = false;  // imm-scale-a / -b of -1
  bool mn_a = false, mn_b = false;    // imm-trans-a / -b of 1: the operand is MN-major
  bool integer = false;               // s32 from s8 / u8 (K 32)
  bool u8_a = false, u8_b = false;    // an integer operand unsigned
  bool satfinite = false;             // an integer D clamped to the s32 range
  uint32_t fa = 0, fb = 0;            // float inputs other than f16 / bf16: 1 tf32 (K 8), 2 e4m3, 3 e5m2 (K 32)
};

uint32_t pack(const WgInfo& i) {
  return uint32_t(i.part) | (i.n << 2) | (uint32_t(i.d_f16) << 11) | (uint32_t(i.bf16) << 12) | (uint32_t(i.a_regs) << 13) |
         (uint32_t(i.neg_a) << 14) | (uint32_t(i.neg_b) << 15) | (uint32_t(i.mn_a) << 16) | (uint32_t(i.mn_b) << 17) |
         (uint32_t(i.integer) << 18) | (uint32_t(i.u8_a) << 19) | (uint32_t(i.u8_b) << 20) | (uint32_t(i.satfinite) << 21) |
         (i.fa << 22) | (i.fb << 24);
}
WgInfo unpack(uint32_t v) {
  WgInfo i;
  i.part = WgPart(v & 3);
  i.n = (v >> 2) & 0x1ff;
  i.d_f16 = (v >> 11) & 1;
  i.bf16 = (v >> 12) & 1;
  i.a_regs = (v >> 13) & 1;
  i.neg_a = (v >> 14) & 1;
  i.neg_b = (v >> 15) & 1;
  i.mn_a = (v >> 16) & 1;
  i.mn_b = (v >> 17) & 1;
  i.integer = (v >> 18) & 1;
  i.u8_a = (v >> 19) & 1;
  i.u8_b = (v >> 20) & 1;
  i.satfinite = (v >> 21) & 1;
  i.fa = (v >> 22) & 3;
  i.fb = (v >> 24) & 3;
  return i;
}

// A float input kind's code (WgInfo::fa), 0 for f16 / bf16, -1 for none.
int float_kind(const std::string& t) {
  return t == "f16" || t == "bf16" ? 0 : t == "tf32" ? 1 : t == "e4m3" ? 2 : t == "e5m2" ? 3 : -1;
}

// The byte address in the shared window of the element (of `bytes` bytes: 2, or 1 for an
// integer) at row `r` (of M or N) and `k` along K of an operand that descriptor `desc`
// describes, K-major or MN-major (the header says how; 16-bit elements only).
uint64_t operand_byte(uint64_t desc, uint32_t r, uint32_t k, bool mn_major, uint32_t bytes = 2) {
  const uint64_t start = (desc & 0x3fff) << 4, lbo = ((desc >> 16) & 0x3fff) << 4, sbo = ((desc >> 32) & 0x3fff) << 4;
  const uint32_t mode = uint32_t(desc >> 62), b = bytes * k;
  if (mode == 0)
    return mn_major ? start + (r / 8) * sbo + (k / 8) * lbo + (k % 8) * 16 + (r % 8) * 2
                    : start + (r / 8) * sbo + (b / 16) * lbo + (r % 8) * 16 + b % 16;
  const uint32_t s = mode == 1 ? 3 : mode == 2 ? 2 : 1, width = 16u << s, chunks = 1u << s;
  const uint64_t a = mn_major ? start + (r / 8 % chunks) * 16 + (r / 8 / chunks) * lbo + (k % 8) * width + (k / 8) * sbo + (r % 8) * 2
                              : start + (r / 8) * sbo + (r % 8) * width + b;
  return a ^ (((a >> 7) & ((1u << s) - 1)) << 4);
}

// The tensor core's f32 sum of `n` terms (each exact in a double), as the header says:
// `lead[i]` is term i's alignment exponent (a product's: the sum of its factors' exponents,
// its significand left unnormalized in [1, 4)).
// f16, bf16 and tf32 inputs: each term kept to 25 bits below the largest alignment exponent,
// the sum cut to f32's 24. 8-bit floats (e4m3, e5m2): to 13 bits, the sum to 14 into f32
// (fitted to the H200's results: every one of the differential test's, 2026-12-02).
struct SumBits {
  int kept = 25, sum = 24;
};
constexpr SumBits kFp8Sum{13, 14};
constexpr SumBits kFp8SumF16{13, 64};  // into f16: the terms cut alike, their sum whole, then rounded
// The exact-in-double sum the tensor core makes (as SumBits says), as a double.
double tensor_sum(const double* terms, const int* lead, uint32_t n, SumBits bits_of) {
  bool nan = false, inf = false;
  int top = INT32_MIN;
  for (uint32_t i = 0; i < n; ++i) {
    nan |= std::isnan(terms[i]);
    inf |= std::isinf(terms[i]);
    if (terms[i] != 0) top = std::max(top, lead[i]);
  }
  if (nan) return std::nan("");
  if (inf || top == INT32_MIN) {  // infinities of one sign (a NaN from opposite ones), or zeros as IEEE adds them
    double s = 0;
    for (uint32_t i = 0; i < n; ++i) s += terms[i];
    return s;
  }
  const int scale = bits_of.kept - top;
  int64_t sum = 0;  // in units of 2^-scale: each term cut toward zero to a whole unit
  for (uint32_t i = 0; i < n; ++i) sum += int64_t(std::trunc(std::ldexp(terms[i], scale)));
  if (sum == 0) return 0;
  const uint64_t mag = uint64_t(sum < 0 ? -sum : sum);
  const int width = 64 - std::countl_zero(mag);
  const uint64_t kept = width > bits_of.sum ? (mag >> (width - bits_of.sum)) << (width - bits_of.sum) : mag;
  const double v = std::ldexp(double(kept), -scale);
  return sum < 0 ? -v : v;
}
uint32_t tensor_sum_f32(const double* terms, const int* lead, uint32_t n, SumBits bits_of = {}) {
  const double s = tensor_sum(terms, lead, n, bits_of);
  return std::isnan(s) ? 0x7fffffffu : bits(float(s));
}
// One warp's share of a wgmma follows mma.sync's m16n8k16 fragments: A in registers is its
// A fragment, and accumulator e of a lane is element e % 4 of its C fragment in the n8 block e / 4.
matrix::Info m16n8k16() {
  matrix::Info mi;
  mi.shape = matrix::Shape::M16N8K16;
  mi.a = mi.b = matrix::Elem::F16;
  return mi;
}
matrix::At accumulator_at(int lane, uint32_t e) {
  matrix::At p = matrix::mma_c(m16n8k16(), lane, e % 4);
  p.col += 8 * (e / 4);
  return p;
}

// floor(log2 |x|) of a finite non-zero x (0 for zero: it never leads).
int exponent_of(double x) {
  if (x == 0 || !std::isfinite(x)) return 0;
  int e = 0;
  std::frexp(x, &e);
  return e - 1;
}

}  // namespace

std::string decode_wgmma(Insn& in, const std::vector<std::string>& parts, const std::vector<int64_t>& imms) {
  if (in.op != Opc::Wgmma) return "";
  WgInfo wi;
  uint32_t k = 0;
  bool fence = false, commit = false, wait = false, mma = false;
  std::vector<std::string> types;
  for (size_t p = 1; p < parts.size(); ++p) {
    const std::string& w = parts[p];
    if (w == "fence") fence = true;
    else if (w == "commit_group") commit = true;
    else if (w == "wait_group") wait = true;
    else if (w == "mma_async") mma = true;
    else if (w.rfind("m64n", 0) == 0) {
      wi.n = uint32_t(std::stoul(w.substr(4, w.find('k') - 4)));
      k = uint32_t(std::stoul(w.substr(w.find('k') + 1)));
    }
    else if (w == "f32" || w == "f16" || w == "bf16" || w == "s32" || w == "s8" || w == "u8" || w == "tf32" || w == "e4m3" ||
             w == "e5m2")
      types.push_back(w);
    else if (w == "satfinite") wi.satfinite = true;
  }
  if (int(fence) + int(commit) + int(wait) + int(mma) != 1) return "one of .mma_async, .fence, .commit_group, .wait_group is needed";
  if (!mma) {
    wi.part = fence ? WgPart::Fence : commit ? WgPart::Commit : WgPart::Wait;
    if (!imms.empty()) return "too many operands";
    if (wait != (in.nops == 1 && in.o[0].kind == Operand::Imm)) return wait ? "wait_group takes one constant" : "takes no operand";
    in.matrix = pack(wi);
    return "";
  }
  if (types.size() != 3) return "wgmma needs .dtype.atype.btype";
  if (in.nops != 4) return "wgmma needs d, a (or a-desc), b-desc, scale-d and its immediates";
  wi.a_regs = in.o[1].kind == Operand::Vec;
  // imm-scale-a and imm-scale-b (float inputs), then imm-trans-a (a descriptor's A only) and
  // imm-trans-b (f16 and bf16 only).
  auto scales = [&]() -> std::string {
    for (size_t i = 0; i < 2; ++i)
      if (imms[i] != 1 && imms[i] != -1) return "imm-scale-a and imm-scale-b are 1 or -1";
    wi.neg_a = imms[0] == -1;
    wi.neg_b = imms[1] == -1;
    return "";
  };
  const int fa = float_kind(types[1]), fb = float_kind(types[2]);
  std::string why;
  if (types[0] == "s32") {  // s8 / u8: d, a or a-desc, b-desc, scale-d alone
    wi.integer = true;
    if ((types[1] != "s8" && types[1] != "u8") || (types[2] != "s8" && types[2] != "u8")) return "s32 accumulates s8 or u8 inputs";
    if (k != 32) return "s8 and u8 inputs need a K of 32 (.m64nNk32)";
    wi.u8_a = types[1] == "u8";
    wi.u8_b = types[2] == "u8";
    if (!imms.empty()) return "an integer wgmma takes d, a (or a-desc), b-desc and scale-d only";
  } else if (wi.satfinite) {
    return ".satfinite is for s32 accumulators";
  } else if (fa < 0 || fb < 0) {
    return "wgmma needs .dtype.atype.btype";
  } else if (fa >= 1 || fb >= 1) {  // tf32 (K 8, into f32), e4m3 / e5m2 (K 32, either, into f32 or f16)
    if ((fa == 1) != (fb == 1) || fa == 0 || fb == 0) return "tf32 pairs with tf32, and e4m3 / e5m2 with either";
    if (fa == 1 && types[0] != "f32") return "tf32 inputs accumulate in f32 only";
    if (k != (fa == 1 ? 8u : 32u)) return fa == 1 ? "tf32 inputs need a K of 8 (.m64nNk8)" : "8-bit floats need a K of 32 (.m64nNk32)";
    wi.fa = uint32_t(fa);
    wi.fb = uint32_t(fb);
    wi.d_f16 = types[0] == "f16";
    if (imms.size() != 2) return "tf32 and 8-bit float inputs take imm-scale-a and imm-scale-b alone (no transposes)";
    if (!(why = scales()).empty()) return why;
  } else {  // f16 / bf16
    if (k != 16) return "f16 and bf16 inputs need a K of 16 (.m64nNk16)";
    if (types[1] != types[2]) return "wgmma needs .dtype.atype.btype with A and B of one type";
    wi.d_f16 = types[0] == "f16";
    wi.bf16 = types[1] == "bf16";
    if (wi.bf16 && wi.d_f16) return "bf16 inputs accumulate in f32 only";
    const size_t want = wi.a_regs ? 3 : 4;
    if (imms.size() != want && imms.size() != 2) return "wgmma needs its immediates (scale-a, scale-b, transposes)";
    if (!(why = scales()).empty()) return why;
    for (size_t i = 2; i < imms.size(); ++i)
      if (imms[i] != 0 && imms[i] != 1) return "the transposes are 0 or 1";
    if (imms.size() == want) {
      wi.mn_a = !wi.a_regs && imms[2] == 1;
      wi.mn_b = imms.back() == 1;
    }
  }
  const uint32_t dregs = wi.d_f16 ? wi.n / 4 : wi.n / 2;
  if (in.o[0].kind != Operand::Vec || register_count(in.o[0]) != dregs)
    return "d must be " + std::to_string(dregs) + " registers for .m64n" + std::to_string(wi.n) + "k" + std::to_string(k);
  if (wi.a_regs && register_count(in.o[1]) != 4) return "a from registers must be 4 registers";
  if (!wi.a_regs && in.o[1].kind != Operand::Reg) return "a-desc must be a 64-bit register";
  if (in.o[2].kind != Operand::Reg) return "b-desc must be a 64-bit register";
  if (in.o[3].kind != Operand::Reg && in.o[3].kind != Operand::Imm) return "scale-d must be a predicate or a constant";
  in.matrix = pack(wi);
  return "";
}

uint64_t BlockRun::wgmma_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  const WgInfo wi = unpack(in.matrix);
  whole_warp(in, w, exec);
  if (wi.part != WgPart::Mma) return 0;  // the product was made at issue: nothing is left in flight
  // The warpgroup's instruction starts once its four warps have reached it, and reads its
  // operands then, for all four at once (on the GPU too: what each warp did before, such as
  // waiting for its own cp.async copies, is done by then, and none of them runs past it
  // before the product has read them). A warp that arrives first waits at it while the
  // others run; the last to arrive makes every warp's share.
  if (!wg_waiting_[w]) {
    ++wg_arrived_[w];
    wg_waiting_[w] = 1;
  }
  const uint32_t c = wg_arrived_[w], first = w & ~3u, last = std::min(nwarps_, first + 4);
  if (wg_computed_[w] < c) {
    for (uint32_t v = first; v < last; ++v)
      if (v != w && warps_[v].live && wg_arrived_[v] < c) {
        stall_ = true;
        return 0;
      }
    for (uint32_t v = first; v < last; ++v) {
      if (!warps_[v].live || wg_computed_[v] >= c) continue;
      if (v != w && warps_[v].pc[std::countr_zero(warps_[v].live)] != pc) {
        Fault f("kernel " + kernel_name(k_.name) + ": the warps of a warpgroup reached different wgmma.mma_async instructions (line " +
                std::to_string(in.line) + ")");
        place(f, in, w, 0);
        throw f;
      }
      wgmma_share(in, v);
      wg_computed_[v] = c;
    }
  }
  wg_waiting_[w] = 0;
  mma_event(pc, in, w, exec);
  return 0;
}

// Warp w's share of wgmma `in`: its 16 rows of D from its rows of A and all of B.
void BlockRun::wgmma_share(const Insn& in, uint32_t w) {
  const WgInfo wi = unpack(in.matrix);
  const uint32_t q = w % 4, n = wi.n;
  // Each input's width and value (exact in a double): f16 / bf16 (2 bytes), tf32 (an f32's 4
  // bytes, its low 13 bits not read), e4m3 / e5m2 and s8 / u8 (1 byte); K 16, 8 or 32.
  const uint32_t bytes_a = wi.integer ? 1 : wi.fa == 0 ? 2 : wi.fa == 1 ? 4 : 1;
  const uint32_t bytes_b = wi.integer ? 1 : wi.fb == 0 ? 2 : wi.fb == 1 ? 4 : 1;
  const uint32_t K = wi.integer ? 32 : wi.fa == 0 ? 16 : wi.fa == 1 ? 8 : 32;
  auto value = [&](uint32_t v, bool of_b) {
    const uint32_t kind = of_b ? wi.fb : wi.fa;
    if (wi.integer) return (of_b ? wi.u8_b : wi.u8_a) ? double(uint8_t(v)) : double(int8_t(uint8_t(v)));
    if (kind == 0) return half_to_double(v & 0xffff, wi.bf16);
    if (kind == 1) return double(f32(v & ~0x1fffu));
    return fp8_value(uint8_t(v), kind == 3);
  };
  // A: this warp's 16 x K slice; B: K x n (k by column).
  static thread_local double A[16][32], B[32][256];
  auto fault = [&](const std::string& what) {
    Fault f(in.opcode + ": " + what + " (in " + kernel_name(k_.name) + ")");
    place(f, in, w, 0);
    throw f;
  };
  auto smem = [&](uint64_t a, uint32_t bytes) -> uint32_t {
    if (a + bytes > shared_.size()) fault("the descriptor reaches past the block's " + std::to_string(shared_.size()) + " bytes of shared memory");
    uint32_t h = 0;
    std::memcpy(&h, shared_.data() + a, bytes);
    return h;
  };
  auto check_desc = [&](uint64_t desc, const char* which) {
    if ((desc >> 49) & 7) fault(std::string(which) + "'s descriptor has a base offset, which is not implemented");
  };
  const double sa = wi.neg_a ? -1 : 1, sb = wi.neg_b ? -1 : 1;
  if (wi.a_regs) {  // mma.sync's A fragment of the same K: m16n8k16 (f16), m16n8k8 (tf32), m16n8k32 (8-bit)
    matrix::Info mi;
    mi.shape = K == 16 ? matrix::Shape::M16N8K16 : K == 8 ? matrix::Shape::M16N8K8 : matrix::Shape::M16N8K32;  // (8-bit: the s8 layout)
    mi.a = mi.b = K == 16 ? matrix::Elem::F16 : K == 8 ? matrix::Elem::TF32 : matrix::Elem::S8;
    const uint32_t per_reg = 4 / bytes_a, elems = 4 * per_reg;
    for (int l = 0; l < 32; ++l)
      for (uint32_t e = 0; e < elems; ++e) {
        const matrix::At p = matrix::mma_a(mi, l, e);
        const uint64_t r = reg(w, vec_reg(k_, in.o[1], e / per_reg), l);
        A[p.row][p.col] = sa * value(uint32_t(r >> (8 * bytes_a * (e % per_reg))), false);
      }
  } else {
    const uint64_t da = reg(w, in.o[1].reg, 0);
    check_desc(da, "A");
    for (uint32_t r = 0; r < 16; ++r)
      for (uint32_t k = 0; k < K; ++k) A[r][k] = sa * value(smem(operand_byte(da, 16 * q + r, k, wi.mn_a, bytes_a), bytes_a), false);
  }
  const uint64_t db = reg(w, in.o[2].reg, 0);
  check_desc(db, "B");
  for (uint32_t c = 0; c < n; ++c)
    for (uint32_t k = 0; k < K; ++k) B[k][c] = sb * value(smem(operand_byte(db, c, k, wi.mn_b, bytes_b), bytes_b), true);
  const Operand& d = in.o[0];
  for (int l = 0; l < 32; ++l) {
    const bool keep = in.o[3].kind == Operand::Imm ? in.o[3].imm != 0 : (reg(w, in.o[3].reg, l) & 1) != 0;
    for (uint32_t e = 0; e < n / 2; ++e) {
      const matrix::At p = accumulator_at(l, e);
      // The old value: f16 in the half e % 2 of register e / 2, else register e.
      uint64_t& r = reg(w, vec_reg(k_, d, wi.d_f16 ? e / 2 : e), l);
      const uint32_t shift = wi.d_f16 ? 16 * (e % 2) : 0;
      const double old = !keep ? 0.0 : wi.d_f16 ? half_to_double(uint32_t(r >> shift) & 0xffff, false)
                                 : wi.integer ? double(int32_t(uint32_t(r))) : double(f32(r));
      // The K products and the old value, each with its alignment exponent.
      double terms[33];
      int lead[33];
      for (uint32_t k = 0; k < K; ++k) {
        terms[k] = A[p.row][k] * B[k][p.col];
        lead[k] = exponent_of(A[p.row][k]) + exponent_of(B[k][p.col]);
      }
      terms[K] = old;
      lead[K] = exponent_of(old);
      if (wi.integer) {  // exact (32 products of bytes and an s32 are far inside a double's 53 bits)
        double s = old;
        for (uint32_t k = 0; k < K; ++k) s += terms[k];
        const int64_t x = int64_t(s);
        r = uint32_t(wi.satfinite ? std::clamp<int64_t>(x, INT32_MIN, INT32_MAX) : x);
      } else if (wi.d_f16) {  // the exact sum (8-bit floats: the tensor core's narrow one), rounded to nearest
        double s = old;  // (in the order it always was: the old value, then the products)
        if (wi.fa >= 2) s = tensor_sum(terms, lead, K + 1, kFp8SumF16);
        else
          for (uint32_t k = 0; k < K; ++k) s += terms[k];
        r = (r & ~(uint64_t(0xffff) << shift)) | (uint64_t(double_to_half(s, false, Rnd::Rn)) << shift);
      } else {
        r = tensor_sum_f32(terms, lead, K + 1, wi.fa >= 2 ? kFp8Sum : SumBits{});
      }
    }
  }
}

// setmaxnreg.{inc,dec}.sync.aligned.u32 n: the warp's threads now own n registers each, a
// warpgroup's budget moved between its producer and its consumers. Every register is kept
// here, so only the trace changes: an event of the warp with n, the one the catalog's
// ctx.setmaxnreg_dec / _inc make. A count the hardware cannot give is a fault.
uint64_t BlockRun::setmaxnreg_op(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
  const int64_t n = in.o[0].imm;
  if (in.o[0].kind != Operand::Imm || !trace::register_count_ok(n))
    insn_fault(in, "the count must be a constant of 24 to 256 registers, a multiple of 8");
  async_event(pc, in, w, exec, trace::Form::Registers, uint32_t(n));
  return 0;
}

}  // namespace ws::ptx
