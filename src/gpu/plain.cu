// src/gpu/plain.cu — the catalog at full speed: every kernel instantiated with PlainCtx.
#include "gpu/launch.cuh"

namespace ws::gpu::detail {
namespace {

class PlainLauncher {
 public:
  PlainLauncher(const catalog::KernelInfo& k, DeviceArrays& a) : k_(k), a_(a) {}

  template <class T>
  Buf<T> buf(int index) {
    return Buf<T>{static_cast<T*>(a_.ptr(size_t(index))), uint32_t(index)};
  }

  template <class Op, class Args>
  void launch(dim3 grid, dim3 block, uint32_t dyn_bytes, const Args& args) {
    flat::apply(
        [&](const auto&... f) {
          auto kernel = &device_kernel_plain<Op, Args, typename flat::Param<std::decay_t<decltype(f)>>::type...>;
          allow_dynamic_shared(reinterpret_cast<const void*>(kernel), dyn_bytes, k_.id);
          kernel<<<grid, block, dyn_bytes, cudaStream_t(stream())>>>(
              flat::Param<std::decay_t<decltype(f)>>::pass(f)...);
        },
        args);
    check(cudaGetLastError(), "launching " + k_.id);
  }

 private:
  const catalog::KernelInfo& k_;
  DeviceArrays& a_;
};

class PlainRunner : public Runner {
 public:
  PlainRunner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a)
      : p_(p), launcher_(k, a), run_(find_run<PlainLauncher>(k.id)) {
    if (!run_) throw Error("no GPU entry for kernel " + k.id);
  }
  void launch() override { run_(launcher_, p_); }

 private:
  catalog::Params p_;
  PlainLauncher launcher_;
  RunFn<PlainLauncher> run_;
};

}  // namespace

std::unique_ptr<Runner> plain_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a) {
  return std::make_unique<PlainRunner>(k, p, a);
}

}  // namespace ws::gpu::detail
