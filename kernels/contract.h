// kernels/contract.h — the one header a kernel includes.
//
// A kernel is a functor with a templated call operator
//     template <class Ctx> WS_KERNEL void operator()(Ctx& ctx, const Args& a) const;
// and its body reads like the textbook: `threadIdx`, `blockIdx`, `__syncthreads()`,
// `tile[threadIdx.x][threadIdx.y] = in[i * n + j];`. The context decides what an access
// costs: the plain GPU context hands back raw pointers (zero cost), the instrumented GPU
// context and the CPU emulator hand back wrappers that record every access together with
// the kernel source line it came from.
//
// Conventions a kernel body follows:
//   auto in = ctx.global(a.in);                 // global array, from a Buf<T> argument
//   WS_SHARED(float, tile, [TILE][TILE + PAD]); // static __shared__ float tile[..][..]
//   WS_DYNAMIC_SHARED(float, tile);             // extern __shared__ float tile[]
//   __syncthreads();                            // the context must be named `ctx`
//
// What 2026 kernels do beyond loads and stores, also through the context (warp-wide
// where the hardware instruction is: every lane of the warp makes the call):
//   ctx.ldmatrix_x4(r, As[row][col]);      // ldmatrix .x4 (.x2, .x1, and _trans): this
//                                          // lane's 16-byte row of a shared half array
//   ctx.mma_m16n8k16(d, a, b);             // d += A·B, f16 in, f32 accumulate, .row.col
//   ctx.cp_async16(tile[r][c], in[i]);     // cp.async, 16 (or cp_async4: 4) bytes,
//   ctx.cp_async_commit();                 // global to shared; commit_group;
//   ctx.template cp_async_wait<1>();       // wait_group 1: all but the newest group land
// Hopper's tensor memory accelerator (TMA) and its mbarriers (warp-wide: every lane of the
// warp calls; one lane acts on the GPU, each lane records its share of a box):
//   ctx.mbarrier_init(full[0], 1);         // an mbarrier (a shared uint64_t) expecting 1 arrival
//   ctx.mbarrier_arrive_expect_tx(full[0], bytes);  // arrive, and expect `bytes` to land on it
//   ctx.mbarrier_arrive(empty[0]);         // arrive (a consumer done with a stage)
//   ctx.tma_load(tile[0], map, x, y, full[0]);  // the box at column x, row y of the map's array
//                                          // into a tile aligned to 1024 bytes
//                                          // (WS_DYNAMIC_SHARED_TMA), swizzled as the map says
// and per thread:
//   ctx.mbarrier_wait(full[0], parity);    // until the phase of that parity has completed
// Thread block clusters (a functor with `static constexpr int kCluster = 2;` is launched in
// clusters of that many blocks along x, which run at the same time on neighbouring SMs):
//   uint32_t r = ctx.cluster_rank();       // this block's rank in its cluster
//   ctx.cluster_sync();                    // every thread of every CTA of the cluster meets
//   ctx.tma_load_multicast(tile[0], map, x, y, full[0], 0b11);  // one box, landing in the same
//                                          // tile of each CTA of the mask, counted on each
//                                          // one's mbarrier at the same place (warp-wide)
//   ctx.mbarrier_arrive_cluster(empty[0], 0);  // arrive on the mbarrier at this place in CTA
//                                          // rank 0's shared memory (warp-wide, lane 0 acts)
// Hopper's warpgroup product (warpgroup-wide: all 128 threads of warps 4g .. 4g+3 call):
//   uint64_t da = ctx.wgmma_desc(tile[i]);  // descriptor of a K-major tile under the 128-byte
//                                          // swizzle starting at element i (1024-aligned)
//   ctx.wgmma_fence(d);                    // d and the tiles are ready for the product
//   ctx.wgmma(d, da + 2 * j, db + 2 * j);  // d += A·B, m64nNk16 f16 -> f32, N = 2 · size of d
//                                          // (+2: the k16 step j starts 32 bytes further)
//   ctx.wgmma_commit();                    // the products since the last commit: a group
//   ctx.template wgmma_wait<1>(d);         // all but the newest group are done
//   ctx.template setmaxnreg_dec<40>();     // this warpgroup's registers a thread, from here
//   ctx.template setmaxnreg_inc<232>();    // on: fewer (given back) or more (taken)
// The plain GPU context compiles each to its instruction; the instrumented contexts and
// the emulator record them (an ldmatrix as one shared 16-byte-a-lane load of its rows, a
// copy as its global read at issue and its shared write when it lands — for a TMA box, when
// the lane's next mbarrier wait —, mma, wgmma, commit and wait as events).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define WS_HD __host__ __device__ __forceinline__
#define WS_KERNEL __device__ __forceinline__
#else
#define WS_HD inline
#define WS_KERNEL inline
// Host stand-ins for the CUDA built-in types, so kernel bodies compile with the host
// compiler. The emulator sets the per-thread index variables before running a thread.
struct alignas(8) float2 {
  float x, y;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3() = default;
  constexpr dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
// constinit: no dynamic initialization, so accesses need no TLS init wrapper.
extern constinit thread_local uint3 threadIdx, blockIdx;
extern constinit thread_local dim3 blockDim, gridDim;
#endif

namespace ws {

// A global array handed to a kernel: its pointer and its id in the trace's buffer table.
// Ids keep GPU and CPU traces comparable: records hold (buffer id, byte offset), never
// raw pointers.
template <class T>
struct Buf {
  T* ptr = nullptr;
  uint32_t id = 0;
  // The same array seen as another element type (float -> float4 for 128-bit accesses).
  template <class U>
  WS_HD Buf<U> as() const {
    return Buf<U>{reinterpret_cast<U*>(ptr), id};
  }
};

// The same 2-D shared array seen as another element type, for wide accesses: with
// `WS_SHARED(float, As, [BK][BM])`, `view_as<float4>(As)[k][j]` is one 16-byte access to
// As[k][4j .. 4j+3]. The plain GPU context gets the array itself (a reference to it as
// U[R][C']); the instrumented contexts get a view of the same buffer, so the trace shows
// the same array, read 16 bytes a lane.
template <class U, class T, int R, int C>
WS_HD auto view_as(T (&a)[R][C]) -> U (&)[R][C * sizeof(T) / sizeof(U)] {
  static_assert((C * sizeof(T)) % sizeof(U) == 0, "rows must hold whole elements of the new type");
  return reinterpret_cast<U(&)[R][C * sizeof(T) / sizeof(U)]>(a);
}
template <class U, class View>
WS_HD auto view_as(const View& v) -> decltype(v.template as<U>()) {
  return v.template as<U>();
}

// The blocks of a cluster a kernel functor is launched in (`kCluster`; 1: no clusters).
template <class Op>
constexpr unsigned cluster_size() {
  if constexpr (requires { Op::kCluster; })
    return unsigned(Op::kCluster);
  else
    return 1u;
}

// Tile `id` of a gy × gx grid of C tiles (row `by`, column `bx`) when the tiles are taken in
// bands of g > 1 tile rows, down each band's columns one after another: the blocks that run
// at once then share a few tiles of A and of B in L2.
WS_KERNEL void band_tile(int g, int id, int gx, int gy, int& by, int& bx) {
  int band = g * gx, first = id / band * g;
  int rows = gy - first < g ? gy - first : g;
  by = first + id % band % rows;
  bx = id % band / rows;
}
// The tile of C (row `by`, column `bx`) that this block computes when the blocks walk C in
// bands of `group` block rows (band_tile); group 1 keeps the grid's own order.
WS_KERNEL void band_order(int group, int& by, int& bx) {
  by = blockIdx.y;
  bx = blockIdx.x;
  if (group > 1) band_tile(group, by * int(gridDim.x) + bx, int(gridDim.x), int(gridDim.y), by, bx);
}

// A 2-D tensor map for TMA copies: a row-major global array of rows × cols elements,
// moved a box of box_rows × box_cols at a time, landing in shared memory under a swizzle
// of 0, 32, 64 or 128 bytes. The launcher makes it (`l.template tma<T>(array index, rows,
// cols, box_rows, box_cols, swizzle)`): on the GPU `map` is the driver's CUtensorMap, in
// global memory; the CPU emulator copies from the description.
template <class T>
struct Tma2D {
  const void* map = nullptr;
  Buf<T> array;
  int rows = 0, cols = 0;
  int box_rows = 0, box_cols = 0;
  int swizzle = 0;
};

// ---- 16-bit floats -----------------------------------------------------------------------

// IEEE binary16 bits of a float, rounded to nearest even (host code: array upload, the
// emulator, references); and back, exactly.
inline uint16_t half_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return uint16_t(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));  // inf, NaN
  if (ax >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // 65520 and up round to infinity
  const uint32_t exp = ax >> 23, mant = (ax & 0x7fffffu) | 0x800000u;
  uint32_t h, rem, halfway;
  if (exp < 113) {  // below 2^-14: a subnormal half, in units of 2^-24
    const uint32_t shift = 126 - exp;
    if (shift > 25) return uint16_t(sign);
    h = mant >> shift;
    rem = mant & ((1u << shift) - 1u);
    halfway = 1u << (shift - 1);
  } else {
    h = ((exp - 112) << 10) | ((ax & 0x7fffffu) >> 13);
    rem = ax & 0x1fffu;
    halfway = 0x1000u;
  }
  if (rem > halfway || (rem == halfway && (h & 1u))) ++h;  // a carry moves to the exponent
  return uint16_t(sign | h);
}
inline float half_value(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float v = float(m) * 0x1p-24f;
    return sign ? -v : v;
  }
  const uint32_t x = sign | (e == 31 ? 0x7f800000u | (m << 13) : ((e + 112) << 23) | (m << 13));
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

#if defined(__CUDACC__)
using half = __half;
// Two halves in one 32-bit register, `lo` in the low 16 bits (an mma fragment's order).
WS_HD uint32_t pack_half2(half lo, half hi) {
  return uint32_t(__half_as_ushort(lo)) | uint32_t(__half_as_ushort(hi)) << 16;
}
#else
// 16-bit float storage on the host: the same bits as __half, read and written as float.
struct half {
  uint16_t bits = 0;
  half() = default;
  half(float f) : bits(half_bits(f)) {}
  operator float() const { return half_value(bits); }
};
inline uint32_t pack_half2(half lo, half hi) { return uint32_t(lo.bits) | uint32_t(hi.bits) << 16; }
#endif

}  // namespace ws

// The barrier goes through the context so that instrumented runs can count epochs.
#define __syncthreads() ctx.barrier()

#if defined(__CUDACC__)
#include <type_traits>
namespace ws {
// One static shared array per kernel functor and source line (WS_SHARED's storage),
// 16-byte aligned, so that a view_as<float4> of it is aligned too.
template <class Op, int Line, class A>
__device__ __forceinline__ A& shared_storage() {
  __shared__ __align__(16) A storage;
  return storage;
}
}  // namespace ws
// `auto&&`: the plain context hands back the __shared__ array itself (a reference, so the
// compiler indexes the array as a hand-written kernel does, never a decayed generic
// pointer); the instrumented contexts hand back a view, kept alive by the reference.
// The storage belongs to the kernel's functor and the line, not to the context: a launch
// that records some blocks and runs the others plainly instantiates the body twice, and
// both instantiations name one array instead of declaring two.
#define WS_SHARED(T, name, dims)                                                                   \
  auto& name##_storage =                                                                           \
      ::ws::shared_storage<::std::remove_cv_t<::std::remove_reference_t<decltype(*this)>>, __LINE__, \
                           T dims>();                                                              \
  auto&& name = ctx.shared(name##_storage, #name)
#define WS_DYNAMIC_SHARED(T, name)   \
  extern __shared__ T name##_storage[]; \
  auto name = ctx.dynamic_shared(name##_storage, #name)
// Dynamic shared memory that a TMA box lands in: aligned to 1024 bytes, where the 128-byte
// swizzle's pattern repeats.
#define WS_DYNAMIC_SHARED_TMA(T, name)                \
  extern __shared__ __align__(1024) T name##_storage[]; \
  auto name = ctx.dynamic_shared(name##_storage, #name)
#else
#define WS_SHARED(T, name, dims) auto name = ctx.template shared<T dims>(#name)
#define WS_DYNAMIC_SHARED(T, name) auto name = ctx.template dynamic_shared<T>(#name)
#define WS_DYNAMIC_SHARED_TMA(T, name) WS_DYNAMIC_SHARED(T, name)  // the emulator's arena: 1024-aligned
#endif
