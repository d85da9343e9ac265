// kernels/basics.h — the first lesson: how a warp's 32 addresses become memory traffic.
//
//   copy            out[i] = in[i]: consecutive lanes, consecutive words — 4 sectors a request
//   strided_copy    thread i copies element i*stride: the same work spread over stride×
//                   as many sectors
//   offset_copy     thread i copies element i+offset: a misaligned start makes each warp
//                   straddle one more sector
//   pmpp_exercise   the textbook's coalescing exercise (foo_kernel): which of its accesses
//                   are coalesced, which are not, and why
#pragma once
#include "catalog.h"
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

// ---------------------------------------------------------------------------------------
// Catalog entries (host code).

constexpr int kBasicsBlock = 256;

struct BasicsFamily {
  static catalog::KernelInfo base(const char* id, const char* title, const char* lesson) {
    // Timed at 64M elements: 256 MiB an array.
    return {.id = id, .family = "basics", .title = title, .lesson = lesson,
            .source_file = "basics.h", .teach_size = 4096, .bench_size = int64_t(1) << 26,
            .size_max = int64_t(1) << 28, .params = {}};
  }
  static dim3 grid(const catalog::Params& p) {
    return dim3(unsigned((p.size() + kBasicsBlock - 1) / kBasicsBlock));
  }
};

// The three copies: thread t (t < size) copies element t*stride + offset of in to out.
struct CopyFamily : BasicsFamily {
  static int64_t stride(const catalog::Params& p) { return p["stride"] > 0 ? p["stride"] : 1; }
  static int64_t elements(const catalog::Params& p) { return p.size() * stride(p) + p["offset"]; }
  static catalog::KernelInfo copy_base(const char* id, const char* title, const char* lesson,
                                       std::vector<catalog::ParamSpec> params = {});
};

template <class Op>
struct CopyEntry : CopyFamily {
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    CopyArgs args{l.template buf<const float>(0), l.template buf<float>(1), int(p.size()),
                  int(stride(p)), int(p["offset"])};
    l.template launch<Op>(grid(p), dim3(kBasicsBlock), 0, args);
  }
};

inline catalog::KernelInfo CopyFamily::copy_base(const char* id, const char* title, const char* lesson,
                                                 std::vector<catalog::ParamSpec> params) {
  auto k = base(id, title, lesson);
  k.params = std::move(params);
  k.buffers = [](const catalog::Params& p) {
    uint64_t n = uint64_t(elements(p));
    return std::vector<catalog::BufferSpec>{{"in", 1, n, false, catalog::Role::In},
                                            {"out", 1, n, false, catalog::Role::Out}};
  };
  k.reference = [](const catalog::Params& p, catalog::HostArrays& a) {
    for (int64_t t = 0; t < p.size(); ++t) {
      int64_t i = t * stride(p) + p["offset"];
      a[1][i] = a[0][i];
    }
  };
  // Indices are ints: size*stride must stay well inside their range.
  k.check = [](const catalog::Params& p) -> std::string {
    if (elements(p) <= (int64_t(1) << 30)) return "";
    return "strided_copy needs size*stride <= 2^30 elements: got " + std::to_string(p.size()) + "*" +
           std::to_string(stride(p));
  };
  k.flops = [](const catalog::Params&) { return 0.0; };
  k.bytes = [](const catalog::Params& p) { return 2.0 * 4.0 * double(p.size()); };
  return k;
}

struct copy : CopyEntry<Copy> {
  static catalog::KernelInfo info() {
    return copy_base("copy", "coalesced copy", R"(
      The baseline every other kernel is measured against. Lane k of a warp touches word k of
      a 128-byte line: one request, 4 sectors, every byte fetched is a byte used (efficiency
      100%). A GPU reaches its memory bandwidth only with accesses like these.)");
  }
};

struct strided_copy : CopyEntry<StridedCopy> {
  static catalog::KernelInfo info() {
    return copy_base("strided_copy", "strided copy", R"(
      Thread i copies element i*stride, so the lanes of a warp are stride words apart. Memory
      moves whole 32-byte sectors: with stride 2 each request touches 8 sectors for the same
      128 useful bytes (50%); from stride 8 on, every lane needs a sector of its own (32
      sectors, 12.5%). Watch sectors per request grow while the useful bytes stay the same.)",
                     {{"stride", 2, {1, 2, 4, 8, 16, 32}, 1, 32, "elements between neighbouring threads"}});
  }
};

struct offset_copy : CopyEntry<OffsetCopy> {
  static catalog::KernelInfo info() {
    return copy_base("offset_copy", "misaligned copy", R"(
      The copy starts `offset` elements into the arrays, so a warp's 128 bytes no longer begin
      on a 32-byte sector boundary: each request touches 5 sectors instead of 4 (80%), unless
      the offset is a multiple of 8 elements. One extra sector per warp: misalignment costs
      far less than a stride, because memory moves in 32-byte sectors, not whole lines.)",
                     {{"offset", 1, {}, 0, 32, "elements skipped at the start of the arrays"}});
  }
};

struct pmpp_exercise : BasicsFamily {
  static catalog::KernelInfo info() {
    auto k = base("pmpp_exercise", "the textbook's coalescing exercise (foo_kernel)", R"(
      Go through the accesses one by one. a[i], b[j*blockDim.x*gridDim.x + i] and d[i + 8]
      are coalesced: consecutive lanes, consecutive words (d[i + 8] is shifted by 32 bytes,
      still aligned to a sector). c[i*4 + j] has lanes 4 words apart: 16 sectors a request,
      each reused by the next j only if a cache keeps it. e[i*8] has lanes 8 words apart:
      every lane its own sector. The shared accesses are not coalescing questions at all:
      a_s and bc_s[j*256 + threadIdx.x] are conflict-free, bc_s[threadIdx.x*4] is a 4-way
      bank conflict.)");
    k.size_min = kBasicsBlock;
    k.teach_size = 1024;
    k.bench_size = int64_t(1) << 24;
    k.size_max = int64_t(1) << 26;
    k.check = [](const catalog::Params& p) -> std::string {
      if (p.size() % kBasicsBlock == 0) return "";
      return "pmpp_exercise needs a size (total threads) that is a multiple of 256, the block size: got " +
             std::to_string(p.size());
    };
    k.buffers = [](const catalog::Params& p) {
      uint64_t n = uint64_t(p.size());
      return std::vector<catalog::BufferSpec>{{"a", 1, n, false, catalog::Role::In},
                                              {"b", 4, n, false, catalog::Role::In},
                                              {"c", n, 4, false, catalog::Role::In},
                                              {"d", 1, n + 8, false, catalog::Role::Out},
                                              {"e", n, 8, false, catalog::Role::Out}};
    };
    k.reference = &reference;
    k.flops = [](const catalog::Params& p) { return 4.0 * double(p.size()); };
    k.bytes = [](const catalog::Params& p) { return 11.0 * 4.0 * double(p.size()); };
    return k;
  }
  static void reference(const catalog::Params& p, catalog::HostArrays& arr) {
    const auto &a = arr[0], &b = arr[1], &c = arr[2];
    auto &d = arr[3], &e = arr[4];
    const int64_t N = p.size(), B = kBasicsBlock;
    for (int64_t i = 0; i < N; ++i) {
      d[i + 8] = a[i];
      // e[i*8] = bc_s[4t] of i's block, written by thread 4t % B of that block at j = 4t / B.
      int64_t t = i % B, src = i - t + (4 * t) % B, j = (4 * t) / B;
      e[i * 8] = b[j * N + src] + c[src * 4 + j];
    }
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    PmppArgs args{l.template buf<const float>(0), l.template buf<const float>(1),
                  l.template buf<const float>(2), l.template buf<float>(3), l.template buf<float>(4)};
    l.template launch<FooKernel>(grid(p), dim3(kBasicsBlock), 0, args);
  }
};

}  // namespace ws::kernels
