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
#pragma once
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
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

}  // namespace ws

// The barrier goes through the context so that instrumented runs can count epochs.
#define __syncthreads() ctx.barrier()

#if defined(__CUDACC__)
// 16-byte aligned, so that a view_as<float4> of it is aligned too.
// `auto&&`: the plain context hands back the __shared__ array itself (a reference, so the
// compiler indexes the array as a hand-written kernel does, never a decayed generic
// pointer); the instrumented contexts hand back a view, kept alive by the reference.
#define WS_SHARED(T, name, dims)                \
  __shared__ __align__(16) T name##_storage dims; \
  auto&& name = ctx.shared(name##_storage, #name)
#define WS_DYNAMIC_SHARED(T, name)   \
  extern __shared__ T name##_storage[]; \
  auto name = ctx.dynamic_shared(name##_storage, #name)
#else
#define WS_SHARED(T, name, dims) auto name = ctx.template shared<T dims>(#name)
#define WS_DYNAMIC_SHARED(T, name) auto name = ctx.template dynamic_shared<T>(#name)
#endif
