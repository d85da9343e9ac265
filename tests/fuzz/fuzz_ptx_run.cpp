// A PTX module run on the emulated device: every kernel it declares is launched on a small
// grid, its pointer parameters given arrays and the rest bytes of the input, under a small
// instruction budget. The interpreter ends each launch, refuses it (ptx::Fault) or stops it
// at the budget; a crash, a hang or a sanitizer report is a finding. Some inputs (one in
// 512 by their hash while fuzzing, every one when the tests replay the corpus) run on the
// compiling engine too: a difference in the arrays, the traces or the faults, or a module
// the host compiler refuses, is a finding.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#if defined(WS_FUZZ_ENTRY)
#define WS_FUZZ_BOTH_ALWAYS 1  // the corpus replay of the ordinary tests
#else
#define WS_FUZZ_BOTH_ALWAYS 0
#endif

#include "fuzz.h"
#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "trace/builder.h"

namespace {

using namespace ws;

// What a module's launches leave: the arrays' bytes, each launch's trace, each fault's line.
struct Outcome {
  std::vector<std::vector<uint8_t>> arrays;
  std::vector<trace::Trace> traces;
  std::vector<std::string> faults;
  std::string engine_note;
  bool operator==(const Outcome& o) const { return arrays == o.arrays && traces == o.traces && faults == o.faults; }
};

Outcome run(const ptx::Module& m, const std::string& text, bool compiled) {
  Outcome out;
  ptx::Device dev;
  if (compiled) {
    ptx::EngineOptions o;
    o.cache_dir = (std::filesystem::temp_directory_path() / "ws-fuzz-engine").string();
    o.wait = true;
    dev.engine(ptx::Engine::Compiled, o);
  }
  dev.load(m);
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
  for (const ptx::Kernel& k : m.kernels) {
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
    } catch (const ptx::Fault& f) {
      out.faults.push_back(f.what());  // refused or stopped: the next kernel runs on the same device
    }
    for (trace::Launch& l : t.launches) {  // how long and on what it ran are the engines' own
      l.seconds = 0;
      l.engine.clear();
    }
    out.traces.push_back(std::move(t));
  }
  for (uint64_t at : arrays) {
    out.arrays.emplace_back(fill.size());
    dev.to_host(out.arrays.back().data(), at, fill.size());
  }
  out.engine_note = dev.engine_note();
  return out;
}

bool sampled(const std::string& text) {
  if (WS_FUZZ_BOTH_ALWAYS) return true;
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h % 512 == 0;
}

}  // namespace

WS_FUZZ_TARGET(text) {
  ptx::Module m = ptx::parse(text, "fuzz.ptx");
  if (m.kernels.empty()) return;
  const Outcome interpreted = run(m, text, false);
  if (!sampled(text)) return;
  const Outcome compiled = run(m, text, true);
  if (!compiled.engine_note.empty()) {
    std::fprintf(stderr, "the compiling engine refused a module the interpreter runs: %s\n", compiled.engine_note.c_str());
    std::abort();
  }
  if (!(compiled == interpreted)) {
    std::fprintf(stderr, "the compiling engine and the interpreter differ on this module\n");
    std::abort();
  }
}
