// src/gpu/published.cpp — the published kernels that faithful catalog entries reproduce,
// launched as their sources' own benchmarks launch them, so that `warpscope bench` times
// each beside its entry in the same rounds. Their code is never part of this repository:
// a build given -DWARPSCOPE_PUBLISHED_DIR=DIR (DIR holding checkouts of SGEMM_CUDA and
// xGeMM; scripts/bench-published.sh makes one) compiles them from DIR into
// src/gpu/published/kernels.cu's launchers; any other build has none to time.
#include "gpu/internal.h"

#if defined(WS_HAVE_PUBLISHED)
#include <cuda_runtime.h>

#include "gpu/published/kernels.h"
#endif

namespace ws::gpu::detail {
namespace {

#if defined(WS_HAVE_PUBLISHED)
class PublishedRunner : public Runner {
 public:
  PublishedRunner(published::Launcher f, DeviceArrays& a, void* c, int n, float alpha, float beta)
      : f_(f), A_(static_cast<const float*>(a.ptr(0))), B_(static_cast<const float*>(a.ptr(1))),
        C_(static_cast<float*>(c)), n_(n), alpha_(alpha), beta_(beta) {}
  void launch() override {
    f_(n_, alpha_, A_, B_, beta_, C_);
    check(cudaGetLastError(), "launching a published kernel");
  }

 private:
  published::Launcher f_;
  const float *A_, *B_;
  float* C_;
  int n_;
  float alpha_, beta_;
};
#endif

}  // namespace

#if defined(WS_HAVE_PUBLISHED)
namespace {
const published::Kernel* find_published(const catalog::KernelInfo& k) {
  for (const auto& e : published::all())
    if (k.id == e.entry) return &e;
  return nullptr;
}
}  // namespace
#endif

std::string published_kernel(const catalog::KernelInfo& k) {
#if defined(WS_HAVE_PUBLISHED)
  if (const published::Kernel* e = find_published(k)) return e->name;
#else
  (void)k;
#endif
  return "";
}

std::unique_ptr<Runner> published_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a,
                                         void* c) {
#if defined(WS_HAVE_PUBLISHED)
  if (const published::Kernel* e = find_published(k))
    return std::make_unique<PublishedRunner>(e->launch, a, c, int(p.size()), k.alpha, k.beta);
#else
  (void)k, (void)p, (void)a, (void)c;
#endif
  return nullptr;
}

}  // namespace ws::gpu::detail
