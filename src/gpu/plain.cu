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
  template <class T>
  Tma2D<T> tma(int index, int rows, int cols, int box_rows, int box_cols, int swizzle) {
    return Tma2D<T>{a_.tma_map(size_t(index), uint32_t(sizeof(T)), rows, cols, box_rows, box_cols, swizzle),
                    buf<T>(index), rows, cols, box_rows, box_cols, swizzle};
  }

  template <class Op, class Args>
  void launch(dim3 grid, dim3 block, uint32_t dyn_bytes, const Args& args) {
    check_target<Op>(k_.id);
    flat::apply(
        [&](const auto&... f) {
          auto kernel = plain_entry<Op, Args, typename flat::Param<std::decay_t<decltype(f)>>::type...>();
          allow_dynamic_shared(reinterpret_cast<const void*>(kernel), dyn_bytes, k_.id);
          if constexpr (cluster_size<Op>() > 1) {  // thread block clusters of kCluster blocks along x
            cudaLaunchAttribute cluster[1];
            cluster[0].id = cudaLaunchAttributeClusterDimension;
            cluster[0].val.clusterDim.x = cluster_size<Op>();
            cluster[0].val.clusterDim.y = 1;
            cluster[0].val.clusterDim.z = 1;
            cudaLaunchConfig_t cfg{};
            cfg.gridDim = grid;
            cfg.blockDim = block;
            cfg.dynamicSmemBytes = dyn_bytes;
            cfg.stream = cudaStream_t(stream());
            cfg.attrs = cluster;
            cfg.numAttrs = 1;
            check(cudaLaunchKernelEx(&cfg, kernel, flat::Param<std::decay_t<decltype(f)>>::pass(f)...),
                  "launching " + k_.id + " in clusters of " + std::to_string(cluster_size<Op>()));
          } else {
            kernel<<<grid, block, dyn_bytes, cudaStream_t(stream())>>>(
                flat::Param<std::decay_t<decltype(f)>>::pass(f)...);
          }
        },
        args);
    check(cudaGetLastError(), "launching " + k_.id);
  }

 private:
  const catalog::KernelInfo& k_;
  DeviceArrays& a_;
};

}  // namespace

std::unique_ptr<Runner> plain_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a) {
  return std::make_unique<CatalogRunner<PlainLauncher>>(k, p, a);
}

}  // namespace ws::gpu::detail
