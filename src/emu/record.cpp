// src/emu/record.cpp — a catalog launch on the CPU emulator: the entry's run() with the
// emulator's launcher, over the launch's arrays (half arrays as 16-bit copies of the host's
// floats, converted back after the run).
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
  Launcher(catalog::HostArrays& arrays, std::vector<std::vector<half>>& halves, const CaptureOptions& opt,
           trace::Builder& out)
      : arrays_(arrays), halves_(halves), opt_(opt), out_(out) {}

  template <class T>
  Buf<T> buf(int index) {
    const trace::Buffer& b = out_.trace().buffers.at(size_t(index));
    if ((b.elem_bytes == 2) != (sizeof(T) == 2))
      throw std::invalid_argument("array '" + b.name + "' holds " + std::to_string(b.elem_bytes) +
                                  "-byte elements: the entry passes it as " + std::to_string(sizeof(T)) + "-byte ones");
    if (b.elem_bytes == 2) return Buf<T>{reinterpret_cast<T*>(halves_.at(size_t(index)).data()), uint32_t(index)};
    return Buf<T>{reinterpret_cast<T*>(arrays_.at(size_t(index)).data()), uint32_t(index)};
  }

  // A TMA map of array `index` (contract.h): the CPU copies from the description itself.
  template <class T>
  Tma2D<T> tma(int index, int rows, int cols, int box_rows, int box_cols, int swizzle) {
    return Tma2D<T>{nullptr, buf<T>(index), rows, cols, box_rows, box_cols, swizzle};
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
    l.cluster = {cluster_size<Op>(), 1, 1};
    l.dynamic_shared_bytes = dyn_bytes;
    accesses += machine_.run(dyn_bytes, &Closure::thread, &c, opt_, out_);
  }

  uint64_t accesses = 0;

 private:
  catalog::HostArrays& arrays_;
  std::vector<std::vector<half>>& halves_;
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
  // Half arrays run on 16-bit copies; the outputs come back as floats.
  std::vector<std::vector<half>> halves(arrays.size());
  const auto specs = k.buffers(p);
  for (size_t i = 0; i < arrays.size() && i < specs.size(); ++i)
    if (specs[i].elem_bytes == 2) halves[i].assign(arrays[i].begin(), arrays[i].end());
  Launcher l(arrays, halves, opt, b);
  run(l, p);
  for (size_t i = 0; i < arrays.size() && i < specs.size(); ++i)
    if (specs[i].elem_bytes == 2 && catalog::is_output(specs[i].role))
      for (size_t j = 0; j < arrays[i].size(); ++j) arrays[i][j] = float(halves[i][j]);
  return l.accesses;
}

}  // namespace ws::emu
