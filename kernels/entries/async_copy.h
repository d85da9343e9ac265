// kernels/entries/async_copy.h — the catalog entry of kernels/async_copy.h: id, arrays,
// lesson and launch shape. Host code, kept apart from the kernels so that the source panel
// shows only what runs on the GPU.
#pragma once
#include <string>
#include <vector>

#include "../async_copy.h"
#include "../catalog.h"

namespace ws::kernels {

struct async_copy_tiles {
  static constexpr float kScale = 2.0f;
  static catalog::KernelInfo info() {
    catalog::KernelInfo k;
    k.id = "async_copy_tiles";
    k.family = "async";
    k.title = "double-buffered tile loop with cp.async";
    k.lesson = R"(
      Each block walks 8 tiles of 256 bytes. Before computing on tile k it issues the copy of
      tile k+1 (cp.async, 16 bytes from each of 16 lanes: 8 sectors read), commits it as a
      group and waits with wait<1>: every group but the newest must have landed, so tile k is
      in shared memory while tile k+1 is still on its way. The copy's shared write (2
      wavefronts) is recorded where it lands, at the wait, not where it was issued; the time
      between the two is what the double buffer hides.)";
    k.source_file = "async_copy.h";
    k.teach_size = 1024;
    k.bench_size = int64_t(1) << 26;
    k.size_min = kAsyncTile;
    k.size_max = int64_t(1) << 28;
    k.check = [](const catalog::Params& p) -> std::string {
      if (p.size() % kAsyncTile == 0) return "";
      return "async_copy_tiles copies whole tiles of 64 floats: size must be a multiple of 64, got " +
             std::to_string(p.size());
    };
    k.buffers = [](const catalog::Params& p) {
      const uint64_t n = uint64_t(p.size());
      return std::vector<catalog::BufferSpec>{{"in", 1, n, false, catalog::Role::In},
                                              {"out", 1, n, false, catalog::Role::Out}};
    };
    k.reference = [](const catalog::Params& p, catalog::HostArrays& a) {
      async_copy_reference(a[0].data(), a[1].data(), p.size(), kScale);
    };
    k.flops = [](const catalog::Params& p) { return double(p.size()); };
    k.bytes = [](const catalog::Params& p) { return 2.0 * 4.0 * double(p.size()); };
    return k;
  }
  template <class L>
  static void run(L& l, const catalog::Params& p) {
    const int64_t per_block = int64_t(kAsyncTile) * kAsyncTilesPerBlock;
    AsyncCopyArgs a{l.template buf<const float>(0), l.template buf<float>(1), int(p.size()), kScale};
    l.template launch<AsyncCopyTiles>(dim3(unsigned((p.size() + per_block - 1) / per_block)), dim3(32), 0, a);
  }
};

}  // namespace ws::kernels
