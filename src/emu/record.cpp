#include "emu/record.h"

#include <stdexcept>

#include "dispatch.h"
#include "emu/context.h"
#include "trace_header.h"

namespace ws::emu {
namespace {

// The launcher that catalog entries' run() talks to on the CPU.
class Launcher {
 public:
  Launcher(catalog::HostArrays& arrays, const CaptureOptions& opt, trace::Builder& out)
      : arrays_(arrays), opt_(opt), out_(out) {}

  template <class T>
  Buf<T> buf(int index) {
    return Buf<T>{reinterpret_cast<T*>(arrays_.at(size_t(index)).data()), uint32_t(index)};
  }

  template <class Op, class Args>
  void launch(dim3 grid, dim3 block, uint32_t dyn_bytes, const Args& a) {
    struct Closure {
      Args args;
      static void thread(void* p) {
        Ctx ctx;
        Op{}(ctx, static_cast<Closure*>(p)->args);
      }
    } c{a};
    trace::Launch& l = out_.launch();
    l.grid = {grid.x, grid.y, grid.z};
    l.block = {block.x, block.y, block.z};
    l.dynamic_shared_bytes = dyn_bytes;
    accesses += machine_.run(dyn_bytes, &Closure::thread, &c, opt_, out_);
  }

  uint64_t accesses = 0;

 private:
  catalog::HostArrays& arrays_;
  const CaptureOptions& opt_;
  trace::Builder& out_;
  Machine machine_;
};

}  // namespace

uint64_t record(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
                const CaptureOptions& opt, trace::Trace& out) {
  auto run = catalog::find_run<Launcher>(k.id);
  if (!run) throw std::invalid_argument("no emulator entry for kernel " + k.id);
  out = catalog::trace_header(k, p, "emulator", "CPU emulator");
  trace::Builder b(out, opt.max_records, opt.keep_records);
  Launcher l(arrays, opt, b);
  run(l, p);
  return l.accesses;
}

}  // namespace ws::emu
