// kernels/basics.h — the first lesson: how a warp's 32 addresses become memory traffic.
//
//   copy            out[i] = in[i]: consecutive lanes, consecutive words — 4 sectors a request;
//                   with vec=2 or 4 each thread moves a float2 or float4: a quarter of the
//                   requests for the same sectors
//   strided_copy    thread i copies element i*stride: the same work spread over stride×
//                   as many sectors
//   offset_copy     thread i copies element i+offset: a misaligned start makes each warp
//                   straddle one more sector
//   pmpp_exercise   the textbook's coalescing exercise (foo_kernel): which of its accesses
//                   are coalesced, which are not, and why
#pragma once
#include <cstdint>
#include <type_traits>
#include "contract.h"

namespace ws::kernels {

struct CopyArgs {
  Buf<const float> in;
  Buf<float> out;
  int n;       // threads that copy one element each
  int stride;  // strided_copy
  int offset;  // offset_copy
};

struct Copy {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const CopyArgs& a) const {
    auto in = ctx.global(a.in);
    auto out = ctx.global(a.out);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.n) out[i] = in[i];
  }
};

// copy with vec=V (2 or 4): thread i moves floats V*i .. V*i+V-1 as one float2 / float4
// access; the last n % V floats, when n is not a multiple of V, one a thread after them.
template <int V>
struct VecCopy {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const CopyArgs& a) const {
    using Vec = std::conditional_t<V == 4, float4, float2>;
    auto in = ctx.global(a.in.template as<const Vec>());
    auto out = ctx.global(a.out.template as<Vec>());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int whole = a.n / V;  // vectors
    if (i < whole) {
      out[i] = in[i];
    } else if (i < whole + a.n % V) {  // the tail
      auto in1 = ctx.global(a.in);
      auto out1 = ctx.global(a.out);
      int j = whole * V + (i - whole);
      out1[j] = in1[j];
    }
  }
};

struct StridedCopy {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const CopyArgs& a) const {
    auto in = ctx.global(a.in);
    auto out = ctx.global(a.out);
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * a.stride;  // lanes stride words apart
    if (i < a.n * a.stride) out[i] = in[i];
  }
};

struct OffsetCopy {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const CopyArgs& a) const {
    auto in = ctx.global(a.in);
    auto out = ctx.global(a.out);
    int i = blockIdx.x * blockDim.x + threadIdx.x + a.offset;  // shifted by offset words
    if (i < a.n + a.offset) out[i] = in[i];
  }
};

struct PmppArgs {
  Buf<const float> a, b, c;
  Buf<float> d, e;
};

// The exercise's kernel as printed (256 threads per block).
struct FooKernel {
  template <class Ctx>
  WS_KERNEL void operator()(Ctx& ctx, const PmppArgs& args) const {
    auto a = ctx.global(args.a);
    auto b = ctx.global(args.b);
    auto c = ctx.global(args.c);
    auto d = ctx.global(args.d);
    auto e = ctx.global(args.e);
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    WS_SHARED(float, a_s, [256]);
    WS_SHARED(float, bc_s, [4 * 256]);
    a_s[threadIdx.x] = a[i];
    for (unsigned int j = 0; j < 4; ++j) {
      bc_s[j * 256 + threadIdx.x] = b[j * blockDim.x * gridDim.x + i] + c[i * 4 + j];
    }
    __syncthreads();
    d[i + 8] = a_s[threadIdx.x];
    e[i * 8] = bc_s[threadIdx.x * 4];
  }
};

// CPU references, the results the kernels above must produce, one element at a time.

// Copy, StridedCopy and OffsetCopy: thread t < n copies element t*stride + offset.
inline void copy_reference(const float* in, float* out, int64_t n, int64_t stride, int64_t offset) {
  for (int64_t t = 0; t < n; ++t) {
    int64_t i = t * stride + offset;
    out[i] = in[i];
  }
}

// FooKernel with n threads: a is (n), b (4, n), c (n, 4), d (n + 8), e (n, 8).
inline void foo_kernel_reference(const float* a, const float* b, const float* c, float* d, float* e,
                                 int64_t n) {
  const int64_t B = 256;  // threads a block, as the kernel's shared arrays are sized
  for (int64_t i = 0; i < n; ++i) {
    d[i + 8] = a[i];
    // e[i*8] = bc_s[4t] of i's block, written by thread 4t % B of that block at j = 4t / B.
    int64_t t = i % B, src = i - t + (4 * t) % B, j = (4 * t) / B;
    e[i * 8] = b[j * n + src] + c[src * 4 + j];
  }
}

}  // namespace ws::kernels
