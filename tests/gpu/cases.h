// tests/gpu/cases.h — the launches the GPU checks run: every catalog kernel at its
// teaching size, plus the variants and awkward sizes that exercise edges (sizes that are
// not multiples of the tile, tiny tiles, padding on and off).
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "catalog.h"

namespace ws::gpu_test {

struct Case {
  std::string kernel;
  int64_t size = 0;  // 0: teaching size
  std::map<std::string, int64_t> set;
  std::string name() const {
    std::string s = kernel + " size=" + std::to_string(size);
    for (const auto& [k, v] : set) s += " " + k + "=" + std::to_string(v);
    return s;
  }
};

// Whether the GPU's instrumented modes record the entry: not one launched in thread block
// clusters (they refuse it in one line; the emulated device records it).
inline bool instrumented(const catalog::KernelInfo& k) {
  catalog::Params p;
  return catalog::resolve(k, 0, {}, p) != "" || catalog::launch_cluster(k, p) == 1;
}

// Every catalog kernel at its teaching size, then the extra variants (`plain`: with the
// kernels the instrumented modes refuse, and their own variants).
inline std::vector<Case> teaching_cases(bool plain = false) {
  std::vector<Case> v;
  for (const auto& k : catalog::all())
    if (plain || instrumented(k)) v.push_back({k.id, 0, {}});
  if (plain) {
    v.push_back({"tc_wgmma_cluster", 512, {{"grid", 0}, {"group", 1}}});  // a cluster a pair of tiles
    v.push_back({"tc_wgmma_cluster", 768, {{"bn", 128}, {"stages", 3}, {"grid", 4}}});  // 36 tiles on 2 clusters
  }
  const std::vector<Case> extra = {
      {"strided_copy", 1000, {{"stride", 8}}},
      {"tma_copy", 0, {{"store", 1}}},
      {"tma_copy", 256, {{"swizzle", 0}, {"box_rows", 64}, {"box_cols", 16}}},
      {"tma_transpose", 96, {{"m", 64}, {"swizzle", 0}, {"order", 0}}},
      {"tma_transpose", 64, {{"m", 160}}},
      {"offset_copy", 1000, {{"offset", 3}}},
      {"transpose_read_coalesced", 70, {}},
      {"transpose_write_coalesced", 33, {{"m", 47}}},
      {"transpose_tiled", 64, {{"pad", 1}}},
      {"transpose_tiled", 70, {{"m", 40}}},
      {"transpose_tiled_dynamic", 64, {{"pad", 1}}},
      {"transpose_tiled_dynamic", 50, {{"tile", 16}}},
      {"transpose_tiled_dynamic", 20, {{"tile", 8}, {"pad", 1}}},
      {"matmul_naive", 70, {}},
      {"matmul_naive_uncoalesced", 40, {}},
      {"matmul_tiled", 4, {{"tile", 2}}},
      {"matmul_tiled", 70, {{"tile", 32}}},
      {"matmul_tiled", 64, {{"tile", 8}}},
      {"matmul_corner_turning", 70, {{"tile", 16}}},
      {"matmul_coarse1d", 100, {{"coarse", 2}}},
      {"matmul_coarse1d", 64, {{"coarse", 8}}},
      {"matmul_coarse2d", 100, {{"bm", 64}}},
      {"matmul_coarse2d_vec", 132, {{"bm", 64}}},
      {"transpose_tiled", 70, {{"pad", 1}, {"tile", 64}, {"rows", 4}, {"order", 1}}},
      {"transpose_tiled", 50, {{"m", 90}, {"pad", 1}, {"tile", 32}, {"rows", 32}}},
      {"transpose_tiled", 100, {{"m", 36}, {"tile", 64}, {"rows", 8}, {"order", 1}}},
      {"matmul_siboehm5", 256, {}},
      {"matmul_siboehm6", 256, {}},
      {"matmul_xgemm6", 100, {}},
      {"matmul_xgemm6", 132, {}},
      {"matmul_warptile", 200, {}},
      {"matmul_double_buffer", 132, {}},
      {"matmul_tuned", 200, {{"wn", 32}, {"group", 2}}},
      {"matmul_tuned", 260, {{"wn", 64}, {"group", 16}}},
      {"matmul_tuned", 132, {{"bk", 16}, {"wn", 32}, {"group", 1}}},
      {"swizzle_plain", 128, {}},
      {"swizzle_xor", 128, {}},
      {"async_copy_tiles", 576, {}},
      {"tc_mma_plain", 136, {}},
      {"tc_mma_swizzled", 72, {}},
      {"tc_mma_pipelined", 200, {{"stages", 2}}},
      {"tc_mma_pipelined", 136, {{"stages", 3}}},
      {"tc_mma_tuned", 200, {{"warps", 8}}},
      {"tc_mma_tuned", 136, {{"warps", 4}, {"stages", 4}}},
      {"tc_mma_tuned", 320, {{"warps", 8}, {"stages", 4}}},  // 5 k tiles: every stage refilled
      {"tc_wgmma", 384, {{"bn", 128}, {"stages", 3}}},       // 6 k tiles in 3 stages, 9 blocks
      {"tc_wgmma", 512, {{"group", 1}, {"grid", 0}}},         // 8 k tiles in 4 stages, a block a tile
      {"tc_wgmma", 384, {{"bn", 128}, {"stages", 3}, {"grid", 2}}},  // 9 tiles on 2 blocks: 5 and 4, the ring running on
  };
  for (const auto& c : extra)
    if (catalog::find(c.kernel)) v.push_back(c);
  return v;
}

// Larger launches for the hardware-counter comparison (one launch each, seconds in all).
inline std::vector<Case> validation_cases() {
  std::vector<Case> v;
  for (const auto& k : catalog::all()) {
    if (!instrumented(k)) continue;
    int64_t n = k.family == "sgemm" || k.family == "hgemm" ? 512
                : k.family == "transpose" || k.family == "swizzle" ? 2048
                : int64_t(1) << 22;
    if (k.id == "pmpp_exercise") n = int64_t(1) << 20;
    v.push_back({k.id, n, {}});
  }
  const std::vector<Case> extra = {
      {"strided_copy", int64_t(1) << 22, {{"stride", 8}}},
      {"transpose_tiled", 2048, {{"pad", 1}}},
      {"transpose_tiled", 2048, {{"pad", 1}, {"tile", 32}, {"rows", 32}}},
      {"transpose_tiled", 2048, {{"pad", 1}, {"tile", 64}, {"rows", 4}, {"order", 1}}},
      {"transpose_tiled_dynamic", 2048, {{"pad", 1}}},
      {"matmul_tiled", 512, {{"tile", 32}}},
      {"matmul_corner_turning", 512, {{"tile", 32}}},
  };
  for (const auto& c : extra)
    if (catalog::find(c.kernel)) v.push_back(c);
  return v;
}

// Resolves a case; throws std::invalid_argument with the catalog's message.
inline catalog::Params resolve(const Case& c, const catalog::KernelInfo*& k) {
  k = catalog::find(c.kernel);
  if (!k) throw std::invalid_argument("unknown kernel " + c.kernel);
  catalog::Params p;
  std::string e = catalog::resolve(*k, c.size, c.set, p);
  if (!e.empty()) throw std::invalid_argument(e);
  return p;
}

}  // namespace ws::gpu_test
