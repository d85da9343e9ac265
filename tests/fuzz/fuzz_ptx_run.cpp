// A PTX module run on the emulated device: every kernel it declares is launched on a small
// grid, its pointer parameters given arrays and the rest bytes of the input, under a small
// instruction budget. The interpreter ends each launch, refuses it (ptx::Fault) or stops it
// at the budget; a crash, a hang or a sanitizer report is a finding.
#include <algorithm>
#include <cstring>

#include "fuzz.h"
#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "trace/builder.h"

WS_FUZZ_TARGET(text) {
  using namespace ws;
  ptx::Module m = ptx::parse(text, "fuzz.ptx");
  if (m.kernels.empty()) return;
  std::vector<ptx::Kernel> kernels = m.kernels;
  ptx::Device dev;
  dev.load(std::move(m));
  dev.threads(1);
  // Four arrays of 4 KiB the pointer parameters point into, filled with a pattern.
  uint64_t arrays[4];
  std::vector<uint8_t> fill(4096);
  for (size_t i = 0; i < fill.size(); ++i) fill[i] = uint8_t(i * 7 + 1);
  for (int i = 0; i < 4; ++i) {
    arrays[i] = dev.malloc(fill.size(), "a" + std::to_string(i));
    dev.to_device(arrays[i], fill.data(), fill.size());
  }
  size_t cursor = 0;
  auto next_byte = [&]() -> uint8_t { return text.empty() ? 0 : uint8_t(text[cursor++ % text.size()]); };
  for (const ptx::Kernel& k : kernels) {
    if (k.param_bytes > 4096) continue;  // a refused kernel is launched too: its refusal is the path
    ptx::KernelLaunch a;
    a.kernel = k.name;
    a.grid = {1u + next_byte() % 2, 1, 1};
    a.block = {1u + next_byte() % 64, 1, 1};
    a.dynamic_shared = 16u * (next_byte() % 16);
    a.params.assign(k.param_bytes, 0);
    int pointer = 0;
    for (const ptx::Param& p : k.params) {
      if (p.offset + p.bytes > a.params.size()) continue;
      if (p.bytes == 8) {
        const uint64_t v = arrays[pointer++ % 4];
        std::memcpy(a.params.data() + p.offset, &v, 8);
      } else {
        for (uint32_t b = 0; b < p.bytes; ++b) a.params[p.offset + b] = next_byte() % 64;
      }
    }
    trace::Trace t;
    trace::Builder b(t);
    try {
      dev.launch(a, b, 200'000);
    } catch (const ptx::Fault&) {
      // refused or stopped: the next kernel runs on the same device
    }
  }
}
