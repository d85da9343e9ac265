// src/ptx/compiled.h — what the compiling engine's native code and the machine share: the
// context a compiled kernel runs one warp in (Ctx), and the few helpers the generated C++
// is written with. The generated code is the kernel's instructions, each one the semantic
// function of its opcodes.def row (arith.h) over the warp's lanes, with the warp's control
// flow as jumps; whatever it does not run itself it hands back through Ctx::execute (the
// interpreter's own execute) or leaves to the scheduler by returning (barriers, calls,
// divergent branches, exits). Included by block_run.h and by every generated module, so it
// depends on ptx.h and value.h alone. Private to src/ptx.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "ptx/ptx.h"
#include "ptx/value.h"

#if defined(__AVX2__)  // the generated modules, built for the machine they run on
#include <immintrin.h>
#endif

namespace ws::ptx::compiled {

// The generated code's contract version: a module compiled for another is never loaded.
inline constexpr uint32_t kAbi = 10;

// The allocation instruction `pc` reached last ([base, end) and its bytes), kept per
// instruction and launch: global loads and stores check their lanes against it.
struct GlobalSlot {
  uint64_t base = 0, end = 0;
  uint8_t* ptr = nullptr;
  void* alloc = nullptr;  // the machine's own record of it (its trace array)
  bool counted = false;   // past the record cap (Ctx::quick), its array known: an access is only counted
};

// One entry into a kernel's compiled code: the warp's lanes `active` stand at `pc`; the
// code runs them until it meets what it leaves to the scheduler, reaches `stop` (where the
// warp's other lanes wait, to reconverge) or has run `budget` instructions, and says where
// it stopped.
struct Ctx {
  // ---- in: the warp
  uint64_t* regs = nullptr;        // register r of lane l at regs[r * 32 + l]
  const Insn* code = nullptr;      // the kernel's instructions (what the semantic functions read)
  uint32_t warp = 0;
  uint32_t pc = 0, active = 0;     // in: where the lanes stand; out: where they stand now
  uint32_t stop = ~0u;             // a pc the code must not run (the other lanes' lowest)
  uint64_t budget = 0;             // instructions it may run
  // ---- in: the block and launch
  uint8_t* shared = nullptr;       // the block's shared window
  uint64_t shared_bytes = 0;
  const uint8_t* params = nullptr; // the kernel's parameter bytes
  uint64_t param_bytes = 0;
  const uint64_t* symbols = nullptr;  // per Kernel::symbols entry: its value (as the interpreter's symval)
  const uint32_t* place = nullptr;    // the block's place (kPlaceWords: ntid, ctaid, nctaid, warps)
  GlobalSlot* globals = nullptr;   // per instruction
  bool record = false;             // a recorded block: every memory access goes through note or execute
  bool loops_yield = false;        // a cooperative launch: a jump back returns, with yield set
  // ---- the machine
  void* machine = nullptr;
  // Runs instruction `pc` (not control flow) for the lanes of `exec` as the interpreter
  // does, after `n` instructions of this entry; returns the lane accesses it made and sets
  // `yield` when the warp must let the others run (an mbarrier wait not complete).
  uint64_t (*execute)(Ctx& c, uint32_t pc, uint32_t exec) = nullptr;
  // Fills globals[pc] with the global allocation that holds [addr, addr + bytes) (noted as
  // read or written by the launch); false when none does.
  bool (*find)(Ctx& c, uint32_t pc, uint64_t addr, uint32_t bytes) = nullptr;
  // In a recorded block, before the generated code moves the bytes of instruction pc (a
  // load or store whose lanes' addresses `at` it checked): the interpreter's bookkeeping of
  // the access (its race check and record); false, with nothing recorded, when it is not
  // an access of one array (then execute runs it whole).
  bool (*note)(Ctx& c, uint32_t pc, uint32_t exec, const uint64_t* at) = nullptr;
  // Whether the window offsets [lo, hi) lie in one shared array (then note takes every
  // access whose lanes lie there).
  bool (*one_shared)(Ctx& c, uint64_t lo, uint64_t hi) = nullptr;
  // ---- past the record cap, on a worker (quick): what is left of an access is counting it
  // and the race check, which a block that repeats its reference settles here (races.cpp)
  bool quick = false;
  const uint32_t* memo = nullptr;  // while the block repeats the race check's reference: it; else null
  const uint32_t* patterns = nullptr;  // the reference's lane patterns (kMemoHead)
  size_t memo_at = 0, memo_size = 0;  // the reference's words repeated so far; its length
  const uint32_t* epoch = nullptr;    // the block's barrier epoch
  uint64_t dropped = 0;            // records counted here, for the machine to take
  // ---- out
  uint64_t n = 0;                  // instructions run (budget and clock move on by as many)
  uint64_t lanes = 0;              // lane accesses made
  bool yield = false;
};
using Entry = void (*)(Ctx&);

// The race check's reference, access by access: pc, warp, lanes, bytes | kind << 24, epoch,
// the first lane's window offset b, and where its lanes' pattern starts in the reference's
// patterns: each lane's offset from b (mod 2^32), the lanes of the mask in order. A block's
// accesses fall into a few patterns (a tile's row, a column), so the reference streams
// seven words an access and the patterns stay in the cache.
inline constexpr size_t kMemoHead = 7;
// Whether the lanes `ex` of warp `w`, at window offsets `at`, repeat the reference's next
// access (`head2`: bytes | kind << 24); then the cursor moves past it. The one test, for the
// interpreter (BlockRun::memo_match) and the generated code: each lane's offset equals the
// reference's b plus its pattern's, as the 32-bit window offset the reference kept.
// (`off`: a further offset of every lane's, as a block's accesses through one register give it.)
// `seen`: what a whole warp's accesses through one register's spread (compiled::Spread) have
// matched already: a pattern and the reference's b less the access's offset. Every lane of
// such an access lies inside the shared window (fits, checked first), so another access
// through the spread with the same pattern and the same b - off matches lane for lane
// without looking at the lanes again.
struct Seen {
  uint32_t pattern = ~0u;
  uint64_t delta = 0;
};
// Whether a whole warp's lanes at `at` (each plus `off`) lie as the reference's access `r`
// says: each lane's offset its first lane's b (r[5]) plus its pattern's (r[6]), as the
// 32-bit window offsets the reference kept. Its pattern has 32 entries (r[2], its lanes,
// the whole warp: checked here before the pattern is read).
[[gnu::always_inline]] inline bool warp_repeats(const Ctx& c, const uint32_t* r, const uint64_t* at, uint64_t off) {
  if (r[2] != ~0u) return false;
  const uint32_t b = r[5];
  const uint32_t* d = c.patterns + r[6];
  uint64_t diff = 0;
#if defined(__AVX512F__)
  __m512i x = _mm512_setzero_si512();
  const __m512i o = _mm512_set1_epi64((long long)off);
  const __m256i bb = _mm256_set1_epi32(int(b));
  for (int g = 0; g < 32; g += 8) {
    const __m256i v = _mm256_add_epi32(bb, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d + g)));
    x = _mm512_or_si512(x, _mm512_xor_si512(_mm512_add_epi64(_mm512_loadu_si512(at + g), o), _mm512_cvtepu32_epi64(v)));
  }
  diff = _mm512_test_epi64_mask(x, x);
#else
  for (int l = 0; l < 32; ++l) diff |= (at[l] + off) ^ uint64_t(uint32_t(b + d[l]));
#endif
  return diff == 0;
}
// The reference's next `words` words, or null when it holds fewer.
[[gnu::always_inline]] inline const uint32_t* memo_ahead(const Ctx& c, size_t words) {
  return c.memo && c.memo_at + words <= c.memo_size ? c.memo + c.memo_at : nullptr;
}
[[gnu::always_inline]] inline bool repeats(Ctx& c, uint32_t pc, uint32_t w, uint32_t ex, const uint64_t* at, uint32_t head2,
                                           uint64_t off = 0, Seen* seen = nullptr) {
  const uint32_t* r = memo_ahead(c, kMemoHead);
  if (!r) return false;
  if (r[0] != pc || r[1] != w || r[2] != ex || r[3] != head2 || r[4] != *c.epoch) return false;
  const uint32_t b = r[5];
  if (seen && seen->pattern == r[6] && seen->delta == uint64_t(b) - off) {
    c.memo_at += kMemoHead;
    return true;
  }
  if (ex == ~0u) {
    if (!warp_repeats(c, r, at, off)) return false;
  } else {
    const uint32_t* d = c.patterns + r[6];
    uint64_t diff = 0;
    for (uint32_t m = ex; m; m &= m - 1) diff |= (at[std::countr_zero(m)] + off) ^ uint64_t(uint32_t(b + *d++));
    if (diff) return false;
  }
  if (seen) *seen = {r[6], uint64_t(b) - off};
  c.memo_at += kMemoHead;
  return true;
}

// A fused block's load that note did not take after the block's first was noted: its
// checks at the entry promise that none fails, so this is the engine's own error, said
// rather than recorded wrong.
[[noreturn]] inline void fused_note_failed(uint32_t pc) {
  throw std::logic_error("compiling engine: instruction " + std::to_string(pc) +
                         " of a block run as one loop was not an access of one array after the block's first access was recorded");
}

// ---- a fused block's shared accesses against the reference, all at once --------------------
// A block run as one loop over the lanes (codegen.cpp, Writer::fused) makes its shared
// accesses through one or two spreads, each at offsets the block names: the reference's
// entries for them differ only in what the warp, its epoch and each spread's pattern and b
// make of them. So the block's first access through each spread is compared lane by lane
// (warp_repeats: its Seen), and then every entry word for word against the block's words T
// plus, for each word, one of the values V: V[0] 0, V[1] the warp, V[2] the epoch, then
// each spread's b less its offset (low half), then each spread's pattern.
// Whether b less an offset `s.delta` names, with any offset in [lo, hi] (each below 2^31),
// a first lane's window offset as the reference keeps it (below 2^32): the entries' b words
// are then the 32-bit sums that same_words compares.
[[gnu::always_inline]] inline bool seen_range(const Seen& s, uint64_t lo, uint64_t hi) {
  const int64_t d = int64_t(s.delta);
  return d + int64_t(lo) >= 0 && d + int64_t(hi) <= int64_t(0xffffffffll);
}
// Whether r[j] == T[j] + V[I[j]] for each of `words` words (I: indices below 16).
[[gnu::always_inline]] inline bool same_words(const uint32_t* r, const uint32_t* T, const uint32_t* I, const uint32_t* V,
                                              size_t words) {
#if defined(__AVX512F__)
  const __m512i v = _mm512_loadu_si512(V);
  __mmask16 bad = 0;
  size_t j = 0;
  for (; j + 16 <= words; j += 16) {
    const __m512i e = _mm512_add_epi32(_mm512_loadu_si512(T + j), _mm512_permutexvar_epi32(_mm512_loadu_si512(I + j), v));
    bad |= _mm512_cmpneq_epi32_mask(_mm512_loadu_si512(r + j), e);
  }
  if (j < words) {
    const __mmask16 m = __mmask16((1u << (words - j)) - 1);
    const __m512i e = _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, T + j), _mm512_permutexvar_epi32(_mm512_maskz_loadu_epi32(m, I + j), v));
    bad |= _mm512_mask_cmpneq_epi32_mask(m, _mm512_maskz_loadu_epi32(m, r + j), e);
  }
  return bad == 0;
#else
  uint32_t diff = 0;
  for (size_t j = 0; j < words; ++j) diff |= r[j] ^ (T[j] + V[I[j]]);
  return diff == 0;
#endif
}

// An instruction's form as constants: the fields of Insn that the semantic functions
// (arith.h) read, so that the generated code's calls decide the form's branches when they
// are compiled.
struct FixedOperand {
  bool negate = false;
};
struct Fixed {
  Opc op = Opc::Nop;
  Type type2 = Type::None;
  Space space = Space::Generic;
  uint16_t mods = 0;
  Rnd rnd = Rnd::None;
  Cmp cmp = Cmp::Eq;
  uint8_t sub = 0;
  uint32_t dst2 = kSink;
  FixedOperand o[5] = {};
};

// ---- helpers of the generated code ---------------------------------------------------------

// The statement after EX for each lane `l` of the mask EX: a whole warp's plain count lets
// the compiler vectorize. (A macro, not a lambda: in a kernel's one large function the
// compiler stops inlining lambdas long before it runs out of instructions.)
#define WS_EACH(EX, ...)                                                                                     \
  do {                                                                                                       \
    const uint32_t ws_ex_ = (EX);                                                                            \
    if (ws_ex_ == ~0u) {                                                                                     \
      for (int l = 0; l < 32; ++l) { __VA_ARGS__; }                                                          \
    } else {                                                                                                 \
      for (uint32_t ws_m_ = ws_ex_; ws_m_; ws_m_ &= ws_m_ - 1) {                                             \
        const int l = std::countr_zero(ws_m_);                                                               \
        __VA_ARGS__;                                                                                         \
      }                                                                                                      \
    }                                                                                                        \
  } while (0)

// D[l] = the expression, for each lane `l` of the mask EX: computed for every lane and kept
// for those of EX, so that one loop of 32 serves any mask (the semantic functions are pure
// and never trap, whatever an idle lane's registers hold).
#define WS_LANES(EX, D, ...)                                                                                 \
  do {                                                                                                       \
    const uint32_t ws_ex_ = (EX);                                                                            \
    for (int l = 0; l < 32; ++l) {                                                                           \
      const uint64_t ws_v_ = (__VA_ARGS__);                                                                  \
      if ((ws_ex_ >> l) & 1u) (D)[l] = ws_v_;                                                                \
    }                                                                                                        \
  } while (0)

// An Alu or Move row over a warp: D[l] = F(form, T, A[l], B[l], C[l], E[l]) for the lanes of
// `ex`, the results gathered first, so that D may be a source too. Two of each helper: one
// inlined where it is called (a module of few instructions: the fastest code), one called
// (a long module: each row, type and form compiled once, not once an instruction, which
// keeps the host compiler's time in proportion).
#define WS_ALU(NAME, ATTR)                                                                                        \
  template <auto F, Type T, const Fixed& Form>                                                                    \
  ATTR void NAME(uint64_t* D, uint32_t ex, const uint64_t* A, const uint64_t* B, const uint64_t* C, const uint64_t* E) { \
    uint64_t r[32];                                                                                               \
    for (int l = 0; l < 32; ++l) r[l] = F(Form, std::integral_constant<Type, T>{}, A[l], B[l], C[l], E[l]);      \
    if (ex == ~0u) std::memcpy(D, r, sizeof r);                                                                   \
    else WS_LANES(ex, D, r[l]);                                                                                   \
  }
WS_ALU(alu, [[gnu::noinline]])
WS_ALU(alu_inline, [[gnu::always_inline]] inline)
#undef WS_ALU

// The lanes of `active` whose predicate (a register's 32 lanes) holds, or fails with `neg`.
[[gnu::always_inline]] inline uint32_t guard(const uint64_t* p, bool neg, uint32_t active) {
  uint32_t m = 0;
#if defined(__AVX512F__)
  const __m512i one = _mm512_set1_epi64(1);
  for (int g = 0; g < 4; ++g) m |= uint32_t(_mm512_test_epi64_mask(_mm512_loadu_si512(p + 8 * g), one)) << (8 * g);
#else
  for (int l = 0; l < 32; ++l) m |= uint32_t(p[l] & 1) << l;
#endif
  return (neg ? ~m : m) & active;
}

// Whether `bytes` at `a` lie inside [lo, hi); and the same for every lane of `exec`.
[[gnu::always_inline]] inline bool within(uint64_t a, uint32_t bytes, uint64_t lo, uint64_t hi) {
  return hi >= bytes && a >= lo && a <= hi - bytes;
}
[[gnu::always_inline]] inline bool inside(const uint64_t* at, uint32_t exec, uint32_t bytes, uint64_t lo, uint64_t hi) {
  if (exec == ~0u) {  // the whole warp: its lowest and highest address, in vectors
    uint64_t mn = ~0ull, mx = 0;
    for (int l = 0; l < 32; ++l) mn = at[l] < mn ? at[l] : mn, mx = at[l] > mx ? at[l] : mx;
    return within(mn, bytes, lo, hi) && within(mx, bytes, lo, hi);
  }
  bool ok = true;
  WS_EACH(exec, ok &= within(at[l], bytes, lo, hi));
  return ok;
}
// The lanes' addresses: a register's 32 values plus the instruction's offset.
[[gnu::always_inline]] inline void addresses(uint64_t* __restrict at, const uint64_t* __restrict r, uint64_t base) {
  for (int l = 0; l < 32; ++l) at[l] = base + r[l];
}

// A little-endian element of width sizeof(E) at p, zero-extended; and stored.
template <class E>
[[gnu::always_inline]] inline uint64_t load(const uint8_t* p) {
  E v;
  std::memcpy(&v, p, sizeof(E));
  return uint64_t(v);
}
template <class E>
[[gnu::always_inline]] inline void store(uint8_t* p, uint64_t v) {
  const E e = E(v);
  std::memcpy(p, &e, sizeof(E));
}

// One lane's element, sign-extended for a signed type T.
template <class E, Type T>
[[gnu::always_inline]] inline uint64_t lane_load(const uint8_t* p) {
  uint64_t v = load<E>(p);
  if constexpr (is_signed(T)) v = uint64_t(sext(T, v));
  return v;
}

// How eight lanes' byte offsets o[0..8) lie for elements of S bytes: one run of consecutive
// elements, all on one element, or neither.
enum class Eight : uint8_t { Run, One, Apart };
template <long long S>
[[gnu::always_inline]] inline Eight eight(const uint64_t* o) {
#if defined(__AVX512F__)
  const __m512i a = _mm512_loadu_si512(o), first = _mm512_set1_epi64((long long)o[0]);
  if (_mm512_cmpeq_epi64_mask(a, _mm512_add_epi64(first, _mm512_set_epi64(7 * S, 6 * S, 5 * S, 4 * S, 3 * S, 2 * S, S, 0))) ==
      0xff)
    return Eight::Run;
  return _mm512_cmpeq_epi64_mask(a, first) == 0xff ? Eight::One : Eight::Apart;
#else
  bool run = true, one = true;
  for (int i = 1; i < 8; ++i) run &= o[i] == o[0] + uint64_t(i * S), one &= o[i] == o[0];
  return run ? Eight::Run : one ? Eight::One : Eight::Apart;
#endif
}

// Whether the warp's active lanes are all of its threads: a whole warp, or the block's last
// warp where the block's threads are not a multiple of 32 (its missing lanes never run).
inline bool whole_warp(const Ctx& c) {
  const uint32_t threads = c.place[0] * c.place[1] * c.place[2], first = c.warp * 32;
  const uint32_t n = threads > first ? std::min(32u, threads - first) : 0;
  return n && c.active == (n == 32 ? ~0u : (1u << n) - 1);
}
// A register's lanes as a fused block's spread takes them: as they are for a whole warp
// (`r`); for a warp of fewer lanes (whole_warp), in `buf` with each missing lane given the
// first lane's value, so that its loads read words the first lane reads.
inline const uint64_t* existing_lanes(const Ctx& c, const uint64_t* r, uint64_t* buf) {
  if (c.active == ~0u) return r;
  for (int l = 0; l < 32; ++l) buf[l] = (c.active >> l) & 1 ? r[l] : r[0];
  return buf;
}

// Eight lanes' windows of W consecutive 32-bit words, lane i's at P + (o[i] + d) (modulo
// 2^64, as addresses add up), transposed: T[k][i] = word k of lane i's window. The loads of a
// fused block whose lanes lie apart, through one address register at nearby offsets (a
// naive product's row, unrolled), read their words from T where each would gather alone:
// a window is one plain load a lane (W of 4 or 8, every word inside the array or shared
// window the block's bounds checks covered).
template <int W>
[[gnu::always_inline]] inline void window(uint32_t (*T)[8], const uint8_t* P, uint64_t d, const uint64_t* o) {
#if defined(__AVX2__)
  if constexpr (W % 4 == 0) {
    for (int h = 0; h < W / 4; ++h) {
      __m128i r[8];
      for (int i = 0; i < 8; ++i) r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(P + (o[i] + d) + 16 * h));
      const __m256i a0 = _mm256_inserti128_si256(_mm256_castsi128_si256(r[0]), r[4], 1);
      const __m256i a1 = _mm256_inserti128_si256(_mm256_castsi128_si256(r[1]), r[5], 1);
      const __m256i a2 = _mm256_inserti128_si256(_mm256_castsi128_si256(r[2]), r[6], 1);
      const __m256i a3 = _mm256_inserti128_si256(_mm256_castsi128_si256(r[3]), r[7], 1);
      const __m256i t0 = _mm256_unpacklo_epi32(a0, a1), t1 = _mm256_unpackhi_epi32(a0, a1);
      const __m256i t2 = _mm256_unpacklo_epi32(a2, a3), t3 = _mm256_unpackhi_epi32(a2, a3);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(T[4 * h + 0]), _mm256_unpacklo_epi64(t0, t2));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(T[4 * h + 1]), _mm256_unpackhi_epi64(t0, t2));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(T[4 * h + 2]), _mm256_unpacklo_epi64(t1, t3));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(T[4 * h + 3]), _mm256_unpackhi_epi64(t1, t3));
    }
    return;
  }
#endif
  for (int i = 0; i < 8; ++i) {
    uint32_t w[W];
    std::memcpy(w, P + (o[i] + d), sizeof w);
    for (int k = 0; k < W; ++k) T[k][i] = w[k];
  }
}

// Eight lanes' elements at byte offsets o[i] + d of P (modulo 2^64, as addresses add up),
// lying as `how` says, into D (a load) or from V (a store): where the eight are one run of
// consecutive elements (a tile's row) or all one element (a broadcast), one vector access
// serves them; else lane by lane (a gather). The same bytes move either way, and a store's
// lanes land in order (of lanes on one element, the last).
template <class E, Type T>
[[gnu::always_inline]] inline void load_eight(uint64_t* D, const uint8_t* P, const uint64_t* o, uint64_t d, Eight how) {
  const uint8_t* const q = P + (o[0] + d);
#if defined(__AVX512F__)
  if constexpr (sizeof(E) == 4 || sizeof(E) == 8) {
    if constexpr (sizeof(E) == 4) {
      const __m256i v = how == Eight::Run   ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q))
                        : how == Eight::One ? _mm256_set1_epi32(int(load<uint32_t>(q)))
                                            : _mm512_i64gather_epi32(_mm512_add_epi64(_mm512_loadu_si512(o), _mm512_set1_epi64((long long)d)), P, 1);
      _mm512_storeu_si512(D, is_signed(T) ? _mm512_cvtepi32_epi64(v) : _mm512_cvtepu32_epi64(v));
    } else {
      const __m512i v = how == Eight::Run   ? _mm512_loadu_si512(q)
                        : how == Eight::One ? _mm512_set1_epi64((long long)load<uint64_t>(q))
                                            : _mm512_i64gather_epi64(_mm512_add_epi64(_mm512_loadu_si512(o), _mm512_set1_epi64((long long)d)), P, 1);
      _mm512_storeu_si512(D, v);
    }
    return;
  }
#endif
  if (how == Eight::One) {
    const uint64_t v = lane_load<E, T>(q);
    for (int i = 0; i < 8; ++i) D[i] = v;
  } else {
    for (int i = 0; i < 8; ++i) D[i] = lane_load<E, T>(P + (o[i] + d));
  }
}
template <class E>
[[gnu::always_inline]] inline void store_eight(uint8_t* P, const uint64_t* o, uint64_t d, const uint64_t* V, Eight how) {
  uint8_t* const q = P + (o[0] + d);
  if (how == Eight::One) {
    store<E>(q, V[7]);
    return;
  }
#if defined(__AVX512F__)
  if constexpr (sizeof(E) == 4 || sizeof(E) == 8)
    if (how == Eight::Run) {
      const __m512i v = _mm512_loadu_si512(V);
      if constexpr (sizeof(E) == 4) _mm256_storeu_si256(reinterpret_cast<__m256i*>(q), _mm512_cvtepi64_epi32(v));
      else _mm512_storeu_si512(q, v);
      return;
    }
#endif
  for (int i = 0; i < 8; ++i) store<E>(P + (o[i] + d), V[i]);
}
// The same for eight lanes whose offsets are looked at here.
template <class E, Type T>
[[gnu::always_inline]] inline void load8(uint64_t* D, const uint8_t* P, const uint64_t* o) {
  load_eight<E, T>(D, P, o, 0, eight<sizeof(E)>(o));
}
template <class E>
[[gnu::always_inline]] inline void store8(uint8_t* P, const uint64_t* o, const uint64_t* V) {
  store_eight<E>(P, o, 0, V, eight<sizeof(E)>(o));
}

// A load's element i for the lanes of `ex`: the sizeof(E) bytes at P + (at[l] - B) + off into
// D[l], sign-extended for a signed type T; and a store's, V[l] written there (lanes in
// order, as the interpreter writes them). Inlined and called, as alu.
#define WS_MOVES(GATHER, SCATTER, ATTR)                                                                         \
  template <class E, Type T>                                                                                    \
  ATTR void GATHER(uint64_t* D, uint32_t ex, const uint8_t* P, uint64_t B, const uint64_t* at, uint32_t off) {  \
    if (ex == ~0u) { /* eight lanes at a time (load8) */                                                      \
      uint64_t o[32];                                                                                           \
      for (int l = 0; l < 32; ++l) o[l] = at[l] - B + off;                                                      \
      for (int g = 0; g < 32; g += 8) load8<E, T>(D + g, P, o + g);                                             \
    } else {                                                                                                    \
      WS_EACH(ex, D[l] = lane_load<E, T>(P + (at[l] - B) + off));                                               \
    }                                                                                                           \
  }                                                                                                             \
  template <class E>                                                                                            \
  ATTR void SCATTER(uint8_t* P, uint64_t B, const uint64_t* at, uint32_t off, uint32_t ex, const uint64_t* V) { \
    if (ex == ~0u) {                                                                                            \
      uint64_t o[32];                                                                                           \
      for (int l = 0; l < 32; ++l) o[l] = at[l] - B + off;                                                      \
      for (int g = 0; g < 32; g += 8) store8<E>(P, o + g, V + g);                                               \
    } else {                                                                                                    \
      WS_EACH(ex, store<E>(P + (at[l] - B) + off, V[l]));                                                       \
    }                                                                                                           \
  }
WS_MOVES(gather, scatter, [[gnu::noinline]])
WS_MOVES(gather_inline, scatter_inline, [[gnu::always_inline]] inline)
#undef WS_MOVES

// ---- a block's own 32-bit copies of registers (live.cpp, codegen.cpp) ----------------------
// A block may keep a register that its instructions read and write only as 32 bits in an
// array of its own: filled from the register file's low halves where first read, written
// back (zero-extended, as the interpreter writes such a value) only for the lanes it wrote
// and only where the register is live when the block leaves. `m`: the lanes written.
[[gnu::always_inline]] inline void narrow(uint32_t* __restrict L, const uint64_t* __restrict r) {
  for (int l = 0; l < 32; ++l) L[l] = uint32_t(r[l]);
}
[[gnu::always_inline]] inline void widen(uint64_t* __restrict r, uint32_t m, const uint32_t* __restrict L) {
  if (m == ~0u) {
    for (int l = 0; l < 32; ++l) r[l] = L[l];
  } else {
    for (uint32_t k = m; k; k &= k - 1) r[std::countr_zero(k)] = L[std::countr_zero(k)];
  }
}
// alu over such copies: D[l] = the low half of F(...) for the lanes of `ex` (the row reads
// only its sources' low halves and writes a zero-extended value: low_half_alu).
#define WS_ALU32(NAME, ATTR)                                                                                        \
  template <auto F, Type T, const Fixed& Form>                                                                      \
  ATTR void NAME(uint32_t* D, uint32_t ex, const uint32_t* A, const uint32_t* B, const uint32_t* C, const uint32_t* E) { \
    uint32_t r[32];                                                                                                 \
    for (int l = 0; l < 32; ++l) r[l] = uint32_t(F(Form, std::integral_constant<Type, T>{}, A[l], B[l], C[l], E[l])); \
    if (ex == ~0u) std::memcpy(D, r, sizeof r);                                                                     \
    else for (uint32_t k = ex; k; k &= k - 1) D[std::countr_zero(k)] = r[std::countr_zero(k)];                      \
  }
WS_ALU32(alu32, [[gnu::noinline]])
WS_ALU32(alu32_inline, [[gnu::always_inline]] inline)
#undef WS_ALU32

// ---- a block's whole-warp accesses through one register ------------------------------------
// A register's 32 lanes as the addresses of the loads and stores of one block that go through
// it (each adding its own offset), looked at once, where the block first needs them: their
// lowest and highest, and how each eight lie for elements of S bytes. An offset moves every
// lane alike, so these hold for each access unless it carries some lanes past 2^64 and not
// the others (fits).
// `all`: how every eight lies when the four lie alike (a tile's row: four runs; a broadcast
// or a row of a tile read by each half-warp: four ones), else Apart; an access then moves
// its four eights with no test between them.
struct Spread {
  uint64_t at[32];
  uint64_t lo, hi;
  Eight how[4];
  Eight all;
};
template <uint32_t S>
[[gnu::always_inline]] inline void spread(Spread& s, const uint64_t* r) {
  uint64_t mn = ~0ull, mx = 0;
  for (int l = 0; l < 32; ++l) s.at[l] = r[l], mn = r[l] < mn ? r[l] : mn, mx = r[l] > mx ? r[l] : mx;
  s.lo = mn, s.hi = mx;
  for (int g = 0; g < 4; ++g) s.how[g] = eight<S>(s.at + 8 * g);
  s.all = s.how[0] == s.how[1] && s.how[0] == s.how[2] && s.how[0] == s.how[3] ? s.how[0] : Eight::Apart;
}
// A spread moved on by `d` bytes, every lane alike (a loop's pointer stepped at its end, for
// the loop's next turn): its eights lie as they did, its lowest and highest moved. False
// where some lanes would carry past 2^64 and not the others (the order of the lanes lost):
// where neither the lowest nor the highest carries, no lane between them does.
[[gnu::always_inline]] inline bool step(Spread& s, uint64_t d) {
  if ((s.lo + d < s.lo) != (s.hi + d < s.hi)) return false;
#if defined(__AVX512F__)
  for (int g = 0; g < 4; ++g)
    _mm512_storeu_si512(s.at + 8 * g, _mm512_add_epi64(_mm512_loadu_si512(s.at + 8 * g), _mm512_set1_epi64((long long)d)));
#else
  for (int l = 0; l < 32; ++l) s.at[l] += d;
#endif
  s.lo += d, s.hi += d;
  return true;
}
// Whether every lane's `bytes` at its address plus `off` (modulo 2^64, as an address adds
// up: a negative offset is a large one) lie inside [lo, hi). The lanes keep their order
// unless the offset carries some of them past 2^64 and not the others; then the lowest
// would come out above the highest, and the access goes the general way.
[[gnu::always_inline]] inline bool fits(const Spread& s, uint64_t off, uint32_t bytes, uint64_t lo, uint64_t hi) {
  const uint64_t a = s.lo + off, b = s.hi + off;
  return a <= b && within(a, bytes, lo, hi) && within(b, bytes, lo, hi);
}
// The same for every offset in [a, b] (a <= b), checked at the two ends: where adding a to
// the lowest lane and b to the highest carries neither past 2^64, any offset between moves
// every lane to within those two ends' lanes. (Else false: the accesses go the general way.)
[[gnu::always_inline]] inline bool fits_range(const Spread& s, uint64_t a, uint64_t b, uint32_t bytes, uint64_t lo, uint64_t hi) {
  return s.lo + a >= s.lo && s.hi + b >= s.hi && fits(s, a, bytes, lo, hi) && fits(s, b, bytes, lo, hi);
}
// A whole warp's elements at byte offsets at[l] + d of P, into D (a load) or from V (a store),
// eight lanes at a time as the spread found them lying.
// (Each way written out with its `how` a constant, so that the four eights move unrolled.)
template <class E, Type T>
[[gnu::always_inline]] inline void load_spread(uint64_t* D, const uint8_t* P, const Spread& s, uint64_t d) {
  if (s.all == Eight::Run) {
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) load_eight<E, T>(D + 8 * g, P, s.at + 8 * g, d, Eight::Run);
  } else if (s.all == Eight::One) {
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) load_eight<E, T>(D + 8 * g, P, s.at + 8 * g, d, Eight::One);
  } else {
    for (int g = 0; g < 4; ++g) load_eight<E, T>(D + 8 * g, P, s.at + 8 * g, d, s.how[g]);
  }
}
template <class E>
[[gnu::always_inline]] inline void store_spread(uint8_t* P, const Spread& s, uint64_t d, const uint64_t* V) {
  if (s.all == Eight::Run) {
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) store_eight<E>(P, s.at + 8 * g, d, V + 8 * g, Eight::Run);
  } else {
    for (int g = 0; g < 4; ++g) store_eight<E>(P, s.at + 8 * g, d, V + 8 * g, s.how[g]);
  }
}

// A whole warp's 4-byte elements (zero-extended types) into a block's 32-bit copy D.
template <Eight How>
[[gnu::always_inline]] inline void load_eight32(uint32_t* D, const uint8_t* P, const uint64_t* o, uint64_t d, Eight how) {
  const Eight h = How == Eight::Apart ? how : How;  // Apart: the eight's own
#if defined(__AVX512F__)
  const uint8_t* const q = P + (o[0] + d);
  const __m256i v = h == Eight::Run   ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q))
                    : h == Eight::One ? _mm256_set1_epi32(int(load<uint32_t>(q)))
                                      : _mm512_i64gather_epi32(_mm512_add_epi64(_mm512_loadu_si512(o), _mm512_set1_epi64((long long)d)), P, 1);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(D), v);
#else
  (void)h;
  for (int i = 0; i < 8; ++i) D[i] = uint32_t(load<uint32_t>(P + (o[i] + d)));
#endif
}
[[gnu::always_inline]] inline void load_spread32(uint32_t* D, const uint8_t* P, const Spread& s, uint64_t d) {
  if (s.all == Eight::Run) {
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) load_eight32<Eight::Run>(D + 8 * g, P, s.at + 8 * g, d, Eight::Run);
  } else if (s.all == Eight::One) {
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) load_eight32<Eight::One>(D + 8 * g, P, s.at + 8 * g, d, Eight::One);
  } else {
    for (int g = 0; g < 4; ++g) load_eight32<Eight::Apart>(D + 8 * g, P, s.at + 8 * g, d, s.how[g]);
  }
}

}  // namespace ws::ptx::compiled
