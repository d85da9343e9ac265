// The emulated device's argument checks, as the emulated CUDA runtime calls them for a
// program: a stream of allocations, frees, copies and memsets at addresses and counts the
// input picks (inside, across, past and far from the arrays, counts near 2^64), and launches
// of a small kernel with any grid, block, dynamic shared memory and parameter bytes. Each
// call succeeds or refuses (false, or ptx::Fault); a copy that lands outside memory, a
// crash or a sanitizer report is a finding.
#include <cstring>

#include "fuzz.h"
#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "trace/builder.h"

namespace {

// out[i] = in[i] + s[i % 32], through a static shared array and the dynamic one.
const char* kModule = R"(.version 8.3
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 pin, .param .u64 pout, .param .u32 n)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  and.b32 %r6, %r2, 31;
  mul.wide.u32 %rd3, %r6, 4;
  mov.u64 %rd4, s;
  add.u64 %rd4, %rd4, %rd3;
  st.shared.u32 [%rd4], %r6;
  mov.u64 %rd5, dyn;
  st.shared.u32 [%rd5], %r6;
  bar.sync 0;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra END;
  mul.wide.u32 %rd6, %r5, 4;
  add.u64 %rd7, %rd1, %rd6;
  ld.global.u32 %r7, [%rd7];
  ld.shared.u32 %r6, [%rd4];
  add.u32 %r7, %r7, %r6;
  add.u64 %rd7, %rd2, %rd6;
  st.global.u32 [%rd7], %r7;
END:
  ret;
}
)";

struct Reader {
  const std::string& t;
  size_t at = 0;
  bool more() const { return at < t.size(); }
  uint64_t bytes(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(at < t.size() ? uint8_t(t[at++]) : 0) << (8 * i);
    return v;
  }
};

}  // namespace

WS_FUZZ_TARGET(text) {
  using namespace ws;
  ptx::Device dev;
  dev.load(ptx::parse(kModule, "runtime.ptx"));
  dev.threads(1);
  std::vector<uint64_t> arrays;
  std::vector<uint8_t> host(1 << 16);
  trace::Trace t;
  trace::Builder b(t);
  Reader in{text};
  // An address: one of the arrays (or a wild one) plus an offset the input picks.
  auto address = [&]() -> uint64_t {
    const uint64_t pick = in.bytes(1);
    const uint64_t base = arrays.empty() || pick == 255 ? ptx::kGlobalBase : arrays[pick % arrays.size()];
    switch (in.bytes(1) % 4) {
      case 0: return base + in.bytes(2);
      case 1: return base - in.bytes(2);
      case 2: return base + (uint64_t(1) << (in.bytes(1) % 64));
      default: return in.bytes(8);
    }
  };
  // A count: small, up to 64 KiB, or near 2^64.
  auto count = [&]() -> uint64_t {
    switch (in.bytes(1) % 3) {
      case 0: return in.bytes(1);
      case 1: return in.bytes(2);
      default: return ~uint64_t(0) - in.bytes(1);
    }
  };
  for (int ops = 0; in.more() && ops < 64; ++ops) {
    switch (in.bytes(1) % 7) {
      case 0:
        if (arrays.size() < 16) arrays.push_back(dev.malloc(in.bytes(2), "a"));
        break;
      case 1: (void)dev.free(address()); break;
      // Arrays hold at most 64 KiB, the host buffer as much: a count the device accepts
      // fits it, and one past it that passes the check is read or written out of bounds.
      case 2: (void)dev.to_device(address(), host.data(), count()); break;
      case 3: (void)dev.to_host(host.data(), address(), count()); break;
      case 4: (void)dev.device_to_device(address(), address(), count()); break;
      case 5: (void)dev.memset(address(), int(in.bytes(1)), count()); break;
      default: {
        ptx::KernelLaunch a;
        a.kernel = "k";
        a.grid = {uint32_t(in.bytes(1) % 4), 1, 1};
        a.block = {uint32_t(in.bytes(2) % 1100), uint32_t(1 + in.bytes(1) % 2), 1};
        a.dynamic_shared = uint32_t(in.bytes(4));
        a.params.resize(in.bytes(1) % 24);
        for (size_t i = 0; i + 8 <= a.params.size(); i += 8) {
          const uint64_t p = address();
          std::memcpy(a.params.data() + i, &p, 8);
        }
        if (a.params.size() >= 20) {
          const uint32_t n = uint32_t(in.bytes(2));
          std::memcpy(a.params.data() + 16, &n, 4);
        }
        try {
          dev.launch(a, b, 100'000);
        } catch (const ptx::Fault&) {
        }
      }
    }
  }
}
