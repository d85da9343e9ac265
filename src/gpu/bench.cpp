// src/gpu/bench.cpp — timing the catalog on the GPU against the yardsticks measured in the
// same run: cuBLAS SGEMM (HGEMM for the half-input tensor-core kernels) and a
// device-to-device cudaMemcpy. A kernel's figures are shown only once its result has been
// checked.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <memory>

#include "gpu/internal.h"

namespace ws::gpu {
namespace {

using detail::DeviceArrays;
using detail::DeviceMemory;
using detail::Runner;

// The ladder's variants besides each kernel's defaults.
const std::map<std::string, std::vector<std::map<std::string, int64_t>>>& ladder_variants() {
  static const std::map<std::string, std::vector<std::map<std::string, int64_t>>> v = {
      {"copy", {{{"vec", 2}}, {{"vec", 4}}}},  // float2 and float4 copies
      {"strided_copy", {{{"stride", 8}}}},
      {"transpose_tiled", {{{"pad", 1}},
                           {{"pad", 1}, {"tile", 32}, {"rows", 32}},                  // the blog's TILE×TILE
                           {{"pad", 1}, {"tile", 64}, {"rows", 4}, {"order", 1}}}},  // the fastest shape
      {"transpose_tiled_dynamic", {{{"pad", 1}}}},
      {"matmul_tiled", {{{"tile", 32}}}},
      {"matmul_corner_turning", {{{"tile", 32}}}},
      {"matmul_tuned", {{{"lanes", 0}}}},  // the lanes row by row: what pairing them gained
      {"tc_mma_tuned", {{{"warps", 8}}, {{"group", 1}}}},  // the 128×256 tile; row-by-row blocks
      {"tc_wgmma", {{{"grid", 0}}}},  // one block a tile: what running on from tile to tile gained
      // the box with no swizzle; taller boxes (16 and 32 KiB); 256-byte rows, unswizzled; the
      // box written back by a TMA store
      {"tma_copy",
       {{{"swizzle", 0}}, {{"box_rows", 128}}, {{"box_rows", 256}}, {{"box_cols", 64}, {"swizzle", 0}}, {{"store", 1}}}},
      // the blocks along the rows of in's boxes; a warp reading a column (4-way); no swizzle (8-way)
      {"tma_transpose", {{{"order", 0}}, {{"lanes", 0}}, {{"swizzle", 0}}}},
  };
  return v;
}

constexpr uint64_t kCopyBytes = uint64_t(256) << 20;  // the reference copy: 256 MiB each way
constexpr double kSgemmTolerance = 1e-4;               // relative to the largest |C|
// The same halves in, f32 sums on both sides: only the order and the tensor cores' own
// rounding of the sums differ (a misplaced fragment is off by the size of C itself).
constexpr double kHgemmTolerance = 1e-3;
const std::vector<uint32_t> kRecordBlocks = {0, 1, 2, 3};

std::string variant_text(const std::map<std::string, int64_t>& set) {
  std::string s;
  for (const auto& [k, v] : set) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return s;
}

struct Yardsticks {
  std::map<int64_t, double> cublas_gflops;  // by SGEMM size
  std::map<int64_t, double> cublas_ms;
  std::map<int64_t, double> hgemm_gflops;   // by HGEMM size
  std::map<int64_t, double> hgemm_ms;
  double copy_gbs = 0, copy_ms = 0;
};

// Runs/warm-up for a runner whose single launch takes `ms`.
void plan_runs(double ms, const BenchOptions& opt, int& warmup, int& min_runs) {
  warmup = ms > 100 ? 1 : opt.warmup;
  min_runs = ms > 100 ? std::max(3, opt.min_runs / 3) : opt.min_runs;
}

// Median milliseconds of cudaMemcpy device to device of `each` bytes (read, and as many written).
double copy_ms(uint64_t each, const BenchOptions& opt, const std::function<void(const std::string&)>& say) {
  if (say) say("timing cudaMemcpy device to device, " + detail::size_text(double(each)));
  auto copy = detail::memcpy_runner(each);
  copy->launch();
  detail::sync("cudaMemcpy");
  auto t = detail::time_runners({copy.get()}, opt.warmup, opt.min_runs, opt.max_runs, opt.seconds);
  return detail::median(t[0]);
}

double one_launch_ms(Runner& r) {
  auto t = detail::time_runners({&r}, 0, 1, 1, 0);
  return t[0].empty() ? 0 : t[0][0];
}

// Whether GEMM kernel `k` reads half A and B (at any size: its teaching size says): its
// yardstick is then cuBLAS HGEMM.
bool half_gemm(const catalog::KernelInfo& k) {
  catalog::Params p;
  if (k.yardstick != catalog::Yardstick::Cublas || !k.buffers || !catalog::resolve(k, k.teach_size, {}, p).empty())
    return false;
  const auto specs = k.buffers(p);
  return !specs.empty() && specs[0].elem_bytes == 2;
}

// Times the cuBLAS routine that is GEMM kernel `like`'s yardstick at size n, once per run:
// HGEMM on `like`'s own half arrays, or SGEMM on matmul_naive's (one SGEMM for every float
// kernel, whatever its layouts).
void measure_cublas(const catalog::KernelInfo& like, int64_t n, const BenchOptions& opt, Yardsticks& y,
                    const std::function<void(const std::string&)>& say) {
  catalog::Params p;
  if (!catalog::resolve(like, n, {}, p).empty()) return;
  const bool half = half_gemm(like);
  auto& gflops = half ? y.hgemm_gflops : y.cublas_gflops;
  if (gflops.count(n)) return;
  const catalog::KernelInfo* k = half ? &like : catalog::find("matmul_naive");
  if (!k || (!half && !catalog::resolve(*k, n, {}, p).empty())) return;
  const std::string routine = half ? "cuBLAS HGEMM" : "cuBLAS SGEMM";
  if (say) say("timing " + routine + " at " + std::to_string(n));
  auto arrays = catalog::make_arrays(*k, p, 7);
  DeviceArrays dev(*k, p);
  dev.upload(arrays);
  DeviceMemory c(dev.bytes(2), "cuBLAS's C");
  auto r = detail::cublas_runner(*k, p, dev, c.get());
  int warmup, min_runs;
  r->launch();
  detail::sync(routine);
  plan_runs(one_launch_ms(*r), opt, warmup, min_runs);
  auto t = detail::time_runners({r.get()}, warmup, min_runs, opt.max_runs, opt.seconds);
  double ms = detail::median(t[0]);
  (half ? y.hgemm_ms : y.cublas_ms)[n] = ms;
  gflops[n] = ms > 0 ? k->flops(p) / (ms * 1e-3) / 1e9 : 0;
}

// Compares the plain kernel's outputs `got` (from inputs `arrays`) with cuBLAS's SGEMM
// (HGEMM for half inputs) or the CPU reference, as the entry's yardstick says: sets the
// row's error and verdict.
void check_row(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& dev,
               const catalog::HostArrays& arrays, const catalog::HostArrays& got, BenchRow& row) {
  if (k.yardstick == catalog::Yardstick::Cublas) {
    DeviceMemory ref(dev.bytes(2), "cuBLAS's C");
    detail::copy_to_device(ref.get(), arrays[2].data(), dev.bytes(2));  // the C the kernel started from
    auto blas = detail::cublas_runner(k, p, dev, ref.get());
    blas->launch();
    row.checked_against = row.vs_hgemm ? "cuBLAS HGEMM" : "cuBLAS";
    detail::sync(row.vs_hgemm ? "cuBLAS HGEMM" : "cuBLAS SGEMM");
    catalog::HostArrays want = arrays;
    detail::copy_to_host(want[2].data(), ref.get(), dev.bytes(2));
    row.max_rel_error = catalog::max_rel_error(k, p, got, want);
    row.ok = row.max_rel_error <= (row.vs_hgemm ? kHgemmTolerance : kSgemmTolerance);
  } else {
    catalog::HostArrays want = arrays;
    k.reference(p, want);
    row.max_rel_error = catalog::max_rel_error(k, p, got, want);
    row.checked_against = "CPU reference";
    row.ok = row.max_rel_error == 0.0;
  }
}

// The row's rates from its median time: GFLOP/s, GB/s, and their share of the yardsticks.
void rates(const catalog::KernelInfo& k, const catalog::Params& p, Yardsticks& y, BenchRow& row) {
  const double s = row.ms * 1e-3;
  if (k.flops && k.flops(p) > 0) row.gflops = k.flops(p) / s / 1e9;
  if (k.bytes) row.gbs = k.bytes(p) / s / 1e9;
  auto& blas = row.vs_hgemm ? y.hgemm_gflops : y.cublas_gflops;
  if (k.yardstick == catalog::Yardstick::Cublas && row.yardstick_ms > 0)
    row.pct_cublas = 100.0 * row.yardstick_ms / row.ms;  // the same product: the same flops
  else if (k.yardstick == catalog::Yardstick::Cublas && blas.count(p.size()) && blas[p.size()] > 0)
    row.pct_cublas = 100.0 * row.gflops / blas[p.size()];
  if (y.copy_gbs > 0) row.pct_copy = 100.0 * row.gbs / y.copy_gbs;
}

// The GPU's own counters beside them: the wall time of one profiled launch (CUPTI replays
// the kernel for each pass and restores its memory between) over the row's plain median.
// Where the counters cannot be read (no CUPTI, no permission) the row says why and keeps
// its other figures.
void time_counters(const catalog::KernelInfo& k, Runner& plain, BenchRow& row,
                   const std::function<void(const std::string&)>& say) {
  try {
    if (say) say("timing " + k.id + " under the GPU's counters (CUPTI range profiler)");
    detail::Profiler& prof = detail::profiler();
    std::vector<uint64_t> values;
    int kernels = 0;
    row.counters_ms = prof.profiled_ms([&] { plain.launch(); }, values, kernels);
    row.counters_passes = prof.passes();
    if (row.ms > 0) row.counters_ratio = row.counters_ms / row.ms;
  } catch (const Error& e) {
    row.counters_ms = row.counters_ratio = 0;
    row.error += (row.error.empty() ? "" : "; ") + std::string(e.what());
  }
}

// The instrumented builds' times beside the plain one (record mode on the first blocks,
// counts mode on the whole grid); a failure leaves the plain figures and says why.
void time_instrumented(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& dev, Runner& plain,
                       int min_runs, const BenchOptions& opt, BenchRow& row,
                       const std::function<void(const std::string&)>& say) {
  if (catalog::launch_cluster(k, p) > 1) {  // refused by both modes (launch.cuh): nothing to time
    row.note = "no instrumented times: the GPU's record and counts modes do not run a kernel in clusters";
    time_counters(k, plain, row, say);
    return;
  }
  try {
    if (say) say("timing " + k.id + " instrumented (record mode, blocks 0-3; counts mode, whole grid)");
    CaptureOptions ropt;
    ropt.blocks = kRecordBlocks;
    auto rec = detail::record_runner(k, p, dev, ropt);
    auto cnt = detail::counts_runner(k, p, dev, analysis::DramModel{});
    rec->launch();
    cnt->launch();
    detail::sync(k.id + " (instrumented)");
    auto o = detail::time_runners({&plain, rec.get(), cnt.get()}, 1, std::max(3, min_runs / 2), opt.max_runs,
                                  opt.seconds);
    double base = detail::median(o[0]);
    row.record_ms = detail::median(o[1]);
    row.counts_ms = detail::median(o[2]);
    if (base > 0) {
      row.record_ratio = row.record_ms / base;
      row.counts_ratio = row.counts_ms / base;
    }
  } catch (const Error& e) {  // the plain figures stand; the instrumented ones are missing
    row.record_ms = row.counts_ms = row.record_ratio = row.counts_ratio = 0;
    row.error = std::string("instrumented timing failed: ") + e.what();
  }
  time_counters(k, plain, row, say);
}

BenchRow bench_one(const catalog::KernelInfo& k, const catalog::Params& p, const std::string& variant,
                   const BenchOptions& opt, Yardsticks& y, const std::function<void(const std::string&)>& say) {
  BenchRow row;
  row.kernel = k.id;
  row.family = k.family;
  row.vs_cublas = k.yardstick == catalog::Yardstick::Cublas;
  row.vs_hgemm = half_gemm(k);
  row.variant = variant;
  row.params = p.values;
  row.size = p.size();
  if (say) say("checking " + k.id + (variant.empty() ? "" : " (" + variant + ")") + " at size " + std::to_string(p.size()));

  catalog::HostArrays arrays = catalog::make_arrays(k, p, 3);
  DeviceArrays dev(k, p);
  dev.upload(arrays);
  auto plain = detail::plain_runner(k, p, dev);
  plain->launch();
  detail::sync(k.id);

  // Check before any number is shown.
  catalog::HostArrays got = arrays;
  dev.download_outputs(got);
  check_row(k, p, dev, arrays, got, row);
  // The published kernel the entry reproduces (only in a build given the sources' code).
  row.published = detail::published_kernel(k);
  catalog::HostArrays first = row.published.empty() ? catalog::HostArrays{} : got;  // the entry's result
  got.clear();
  if (!row.ok) {
    row.error = "result differs from the " + row.checked_against + ": max relative error " + std::to_string(row.max_rel_error);
    return row;
  }

  if (say) say("timing " + k.id + (variant.empty() ? "" : " (" + variant + ")"));
  int warmup, min_runs;
  plan_runs(one_launch_ms(*plain), opt, warmup, min_runs);
  std::unique_ptr<Runner> raw = opt.zero_cost ? detail::raw_runner(k, p, dev) : nullptr;
  if (raw) {  // the hand-written twin must compute the same result before it is timed
    // Each from the same inputs: an output that is read too (C of C = alpha·A·B + beta·C)
    // has moved on with every launch.
    catalog::HostArrays plain_out = arrays, raw_out = arrays;
    dev.upload(arrays);
    plain->launch();
    detail::sync(k.id);
    dev.download_outputs(plain_out);
    dev.upload(arrays);
    raw->launch();
    detail::sync(k.id + " (hand-written version)");
    dev.download_outputs(raw_out);
    if (catalog::max_rel_error(k, p, raw_out, plain_out) != 0.0) {
      row.error = "the hand-written raw-pointer version computes a different result";
      raw.reset();
    }
  }
  // The published kernel the entry reproduces, from the same A, B and starting C: its result
  // must be the entry's before the two are timed side by side.
  std::unique_ptr<DeviceMemory> pub_c;
  std::unique_ptr<Runner> pub;
  if (!row.published.empty()) {
    pub_c = std::make_unique<DeviceMemory>(dev.bytes(2), "the published kernel's C");
    detail::copy_to_device(pub_c->get(), arrays[2].data(), dev.bytes(2));
    pub = detail::published_runner(k, p, dev, pub_c->get());
  }
  if (pub) {
    pub->launch();
    detail::sync(row.published);
    catalog::HostArrays theirs = first;
    detail::copy_to_host(theirs[2].data(), pub_c->get(), dev.bytes(2));
    row.published_error = catalog::max_rel_error(k, p, theirs, first);
    if (row.published_error > kSgemmTolerance) {
      row.error = "the published kernel computes a different result: max relative error " +
                  std::to_string(row.published_error);
      pub.reset();
    }
  }
  // The yardstick beside the row: cuBLAS on the row's own arrays (into a C of its own), in
  // the same rounds, so that both are timed with the GPU as warm and as loaded; the run's
  // first cuBLAS figure was taken before the ladder had heated the GPU.
  std::unique_ptr<DeviceMemory> blas_c;
  std::unique_ptr<Runner> blas;
  if (k.yardstick == catalog::Yardstick::Cublas) {
    blas_c = std::make_unique<DeviceMemory>(dev.bytes(2), "cuBLAS's C");
    detail::copy_to_device(blas_c->get(), arrays[2].data(), dev.bytes(2));
    blas = detail::cublas_runner(k, p, dev, blas_c->get());
  }
  std::vector<Runner*> runners = {plain.get()};
  for (Runner* r : {raw.get(), pub.get(), blas.get()})
    if (r) runners.push_back(r);
  auto t = detail::time_runners(runners, warmup, min_runs, opt.max_runs, opt.seconds);
  row.runs = int(t[0].size());
  row.ms = detail::median(t[0]);
  row.ms_min = *std::min_element(t[0].begin(), t[0].end());
  row.ms_max = *std::max_element(t[0].begin(), t[0].end());
  size_t next = 1;
  if (raw) {
    row.raw_ms = detail::median(t[next++]);
    row.raw_ratio = row.raw_ms > 0 ? row.ms / row.raw_ms : 0;
  }
  if (pub) {
    row.published_ms = detail::median(t[next++]);
    row.published_ratio = row.published_ms > 0 ? row.ms / row.published_ms : 0;
  }
  if (blas) row.yardstick_ms = detail::median(t[next++]);
  rates(k, p, y, row);

  if (opt.overhead) time_instrumented(k, p, dev, *plain, min_runs, opt, row, say);
  return row;
}

}  // namespace

void run_plain(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays) {
  if (std::string why; !available(&why)) throw Error(why);
  DeviceArrays dev(k, p);
  dev.upload(arrays);
  auto plain = detail::plain_runner(k, p, dev);
  plain->launch();
  detail::sync(k.id);
  dev.download_outputs(arrays);
}

void yardsticks(BenchResult& r, const std::function<void(const std::string&)>& say) {
  if (!available()) return;
  const BenchOptions opt;
  double flops = 0, bytes = 0;  // the largest launch's work
  for (const BenchRow& w : r.rows) {
    if (!w.ok || w.ms <= 0) continue;
    flops = std::max(flops, w.gflops * w.ms * 1e6);
    bytes = std::max(bytes, w.gbs * w.ms * 1e6);
  }
  const std::string name = r.device.name;
  r.device = device_info();
  if (r.device.name.empty()) r.device.name = name;
  Yardsticks y;
  if (flops > 0) {
    // The square SGEMM of the same work: 2·n³ flops.
    const int64_t n = std::clamp<int64_t>(std::llround(std::cbrt(flops / 2)), 16, 1 << 14);
    if (const catalog::KernelInfo* naive = catalog::find("matmul_naive")) measure_cublas(*naive, n, opt, y, say);
    r.cublas_size = n;
    r.cublas_ms = y.cublas_ms[n];
    r.cublas_gflops = y.cublas_gflops[n];
  }
  if (bytes > 0) {
    // A copy of the same traffic: half the bytes read, half written.
    const uint64_t each = std::max<uint64_t>(256, uint64_t(std::llround(bytes / 2)) / 256 * 256);
    r.copy_ms = copy_ms(each, opt, say);
    r.copy_bytes = 2 * each;
    r.copy_gbs = r.copy_ms > 0 ? double(r.copy_bytes) / (r.copy_ms * 1e-3) / 1e9 : 0;
  }
  for (BenchRow& w : r.rows) {
    if (w.gflops > 0 && r.cublas_gflops > 0) w.pct_cublas = 100.0 * w.gflops / r.cublas_gflops;
    if (w.gbs > 0 && r.copy_gbs > 0) w.pct_copy = 100.0 * w.gbs / r.copy_gbs;
  }
}

BenchResult bench(const BenchOptions& opt, const std::function<void(const std::string&)>& say) {
  detail::require_device();
  BenchResult res;
  res.device = device_info();
  res.date = trace::utc_now();
  res.record_blocks = "0-3";
  Yardsticks y;

  // Which kernels, and their variants.
  std::vector<std::pair<const catalog::KernelInfo*, std::map<std::string, int64_t>>> work;
  for (const auto& k : catalog::all()) {
    if (!opt.kernels.empty() && std::find(opt.kernels.begin(), opt.kernels.end(), k.id) == opt.kernels.end()) continue;
    std::map<std::string, int64_t> set;
    for (const auto& ps : k.params)
      if (opt.set.count(ps.name)) set[ps.name] = opt.set.at(ps.name);
    work.push_back({&k, set});
    if (opt.variants && opt.set.empty()) {
      auto it = ladder_variants().find(k.id);
      if (it != ladder_variants().end())
        for (const auto& v : it->second) work.push_back({&k, v});
    }
  }
  for (const auto& id : opt.kernels)
    if (!catalog::find(id)) throw std::invalid_argument("unknown kernel '" + id + "': allowed " + catalog::ids());

  // The yardsticks.
  {
    y.copy_ms = copy_ms(kCopyBytes, opt, say);
    res.copy_bytes = 2 * kCopyBytes;
    res.copy_ms = y.copy_ms;
    y.copy_gbs = y.copy_ms > 0 ? double(res.copy_bytes) / (y.copy_ms * 1e-3) / 1e9 : 0;
    res.copy_gbs = y.copy_gbs;
  }

  for (const auto& [k, set] : work) {
    catalog::Params p;
    int64_t size = opt.size ? opt.size : k->bench_size;
    std::string e = catalog::resolve(*k, size, set, p);
    BenchRow row;
    if (!e.empty()) {
      row.kernel = k->id;
      row.family = k->family;
      row.vs_cublas = k->yardstick == catalog::Yardstick::Cublas;
      row.vs_hgemm = half_gemm(*k);
      row.variant = variant_text(set);
      row.size = size;
      row.error = e;
      res.rows.push_back(row);
      res.all_ok = false;
      continue;
    }
    try {
      if (k->yardstick == catalog::Yardstick::Cublas) {
        measure_cublas(*k, p.size(), opt, y, say);
        if (half_gemm(*k) && !res.hgemm_size) {
          res.hgemm_size = p.size();
          res.hgemm_ms = y.hgemm_ms[p.size()];
          res.hgemm_gflops = y.hgemm_gflops[p.size()];
        } else if (!half_gemm(*k) && !res.cublas_size) {
          res.cublas_size = p.size();
          res.cublas_ms = y.cublas_ms[p.size()];
          res.cublas_gflops = y.cublas_gflops[p.size()];
        }
      }
      std::string variant;
      for (const auto& [name, v] : set)
        if (!opt.set.count(name)) variant += (variant.empty() ? "" : ",") + name + "=" + std::to_string(v);
      row = bench_one(*k, p, variant, opt, y, say);
    } catch (const std::exception& ex) {
      row.kernel = k->id;
      row.family = k->family;
      row.vs_cublas = k->yardstick == catalog::Yardstick::Cublas;
      row.vs_hgemm = half_gemm(*k);
      row.variant = variant_text(set);
      row.size = size;
      row.error = ex.what();
    }
    res.all_ok &= row.ok && row.error.empty();
    res.rows.push_back(row);
  }
  res.device = device_info();  // clocks as they were at the end, under load
  return res;
}

}  // namespace ws::gpu
