// kernels/entries/basics.h — the catalog entries of kernels/basics.h: ids, parameters,
// arrays, lessons and launch shapes. Host code, kept apart from the kernels so that the
// source panel shows only what runs on the GPU.
#pragma once
#include <string>
#include <vector>

#include "../basics.h"
#include "../catalog.h"

namespace ws::kernels {

// The block FooKernel's shared arrays are printed for; the copies use it too.
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
    copy_reference(a[0].data(), a[1].data(), p.size(), stride(p), p["offset"]);
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

struct copy : CopyFamily {
  static catalog::KernelInfo info() {
    return copy_base("copy", "coalesced copy", R"(
      The baseline every other kernel is measured against. Lane k of a warp touches word k of
      a 128-byte line: one request, 4 sectors, every byte fetched is a byte used (efficiency
      100%). A GPU reaches its memory bandwidth only with accesses like these. With vec=4
      each thread moves a float4: a warp's request covers 512 bytes, 16 sectors, all used —
      a quarter of the requests for the same sectors per useful byte (vec=2: float2, half).)",
                     {{"vec", 1, {1, 2, 4}, 1, 4, "floats a thread moves at once: 1, 2 (float2) or 4 (float4)"}});
  }
  // vec=V: n/V threads move a vector each, then n%V threads a float each.
  static int64_t vec(const catalog::Params& p) { return p["vec"] > 1 ? p["vec"] : 1; }
  static dim3 grid(const catalog::Params& p) {
    const int64_t threads = p.size() / vec(p) + p.size() % vec(p);
    return dim3(unsigned((threads + kBasicsBlock - 1) / kBasicsBlock));
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    CopyArgs args{l.template buf<const float>(0), l.template buf<float>(1), int(p.size()), 1, 0};
    if (vec(p) == 1) {
      l.template launch<Copy>(grid(p), dim3(kBasicsBlock), 0, args);
      return;
    }
    catalog::with_constant<2, 4>(vec(p), [&](auto v) {
      l.template launch<VecCopy<decltype(v)::value>>(grid(p), dim3(kBasicsBlock), 0, args);
    });
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
    k.reference = [](const catalog::Params& p, catalog::HostArrays& a) {
      foo_kernel_reference(a[0].data(), a[1].data(), a[2].data(), a[3].data(), a[4].data(), p.size());
    };
    k.sources.push_back({"PMPP 4th ed., ch. 6, exercise 3: foo_kernel", "", "multiples of 256 (the block size)",
                         "a, b, d coalesced; c (4 floats apart) and e (8 apart) not; a_s and bc_s: not applicable", "PMPP ch. 6, exercise 3"});
    k.flops = [](const catalog::Params& p) { return 4.0 * double(p.size()); };
    k.bytes = [](const catalog::Params& p) { return 11.0 * 4.0 * double(p.size()); };
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    PmppArgs args{l.template buf<const float>(0), l.template buf<const float>(1),
                  l.template buf<const float>(2), l.template buf<float>(3), l.template buf<float>(4)};
    l.template launch<FooKernel>(grid(p), dim3(kBasicsBlock), 0, args);
  }
};

}  // namespace ws::kernels
