// src/gpu/counts.cu — counts mode: the catalog instantiated with CountsCtx, whole grid,
// per-site and per-epoch statistics summed on the device.
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>

#include "gpu/launch.cuh"
#include "trace/builder.h"

namespace ws::gpu {
namespace detail {
namespace {

constexpr uint32_t kMaxEpochs = 1u << 14;
constexpr uint64_t kEpochTableBytes = uint64_t(256) << 20;

struct Control {
  unsigned long long epochs_seen;
  unsigned long long lost_writes;  // cp.async writes past a lane's tracked copies
  abi::Fault fault;
  abi::SharedDesc shared[abi::kMaxShared];
};

abi::Dram device_dram(const analysis::DramModel& d) {
  auto pow2 = [](uint32_t v) { return v && !(v & (v - 1)); };
  if (!pow2(d.burst_bytes))
    throw std::invalid_argument("counts mode needs a power-of-two DRAM burst: got " + std::to_string(d.burst_bytes));
  if (!d.channels || !d.banks) throw std::invalid_argument("the DRAM model needs at least one channel and one bank");
  abi::Dram r{};
  r.channels = d.channels;
  r.banks = d.banks;
  r.burst_bytes = d.burst_bytes;
  r.xor_hash = d.xor_hash ? 1u : 0u;
  auto log2_or_none = [&](uint32_t v) { return pow2(v) ? uint32_t(__builtin_ctz(v)) : 0xffu; };
  r.burst_shift = uint32_t(__builtin_ctz(d.burst_bytes));
  r.channel_shift = log2_or_none(d.channels);
  r.bank_shift = log2_or_none(d.banks);
  // A request's cells depend on its offsets modulo 128 only when the interleave repeats
  // within 128 bytes and no hash mixes in higher address bits.
  uint64_t period = uint64_t(d.burst_bytes) * d.channels * d.banks;
  r.cacheable = !d.xor_hash && r.cells() <= 8 && 128 % period == 0 ? 1u : 0u;
  return r;
}

class CountsLauncher {
 public:
  // `out` null: timing only.
  CountsLauncher(const catalog::KernelInfo& k, DeviceArrays& a, const analysis::DramModel& dram, Counts* out)
      : k_(k),
        a_(a),
        dram_(device_dram(dram)),
        out_(out),
        control_(sizeof(Control), "the counters"),
        sites_(sizeof(abi::SiteSlot) * abi::kSiteSlots, "the site table"),
        empty_sites_(sizeof(abi::SiteSlot) * abi::kSiteSlots, "the site table") {
    words_ = abi::counts_epoch_words(uint32_t(a.size()), dram_.cells());
    max_epochs_ = uint32_t(std::min<uint64_t>(kMaxEpochs, kEpochTableBytes / (uint64_t(words_) * 8 * abi::kParts)));
    max_epochs_ = std::max<uint32_t>(max_epochs_, 1);
    epochs_ = std::make_unique<DeviceMemory>(uint64_t(max_epochs_) * abi::kParts * words_ * 8, "the epoch table");
    // Site slots as a launch starts: keys empty (all ones), sums zero, `first` all ones.
    std::vector<abi::SiteSlot> empty(abi::kSiteSlots);
    for (auto& slot : empty) {
      std::memset(&slot, 0, sizeof slot);
      slot.key = abi::kEmptyKey;
      slot.first = ~0ull;
    }
    check(cudaMemcpy(empty_sites_.get(), empty.data(), sites_.bytes(), cudaMemcpyHostToDevice), "preparing the site table");
  }

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
    if constexpr (instrumented_launch_refused<Op>())
      throw clusters_refused(k_.id, "counts");
    else
      launch_counted<Op>(grid, block, dyn_bytes, args);
  }

 private:
  template <class Op, class Args>
  void launch_counted(dim3 grid, dim3 block, uint32_t dyn_bytes, const Args& args) {
    check_target<Op>(k_.id);
    auto kernel = entry<Op, CountsCtx, Args>(block);
    const uint32_t offset = (dyn_bytes + 15u) & ~15u;
    const uint32_t warps = (block.x * block.y * block.z + abi::kWarp - 1) / abi::kWarp;
    const uint32_t total =
        offset + abi::counts_layout(uint32_t(a_.size()), dram_.cells(), warps, dram_.cacheable != 0).total;
    // The tables live in dynamic shared memory next to the kernel's static arrays; the
    // two together may pass the 48 KiB every launch gets, so always ask for what is used.
    int limit = 0;
    cudaFuncAttributes attr{};
    check(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), "reading the shared memory limit");
    check(cudaFuncGetAttributes(&attr, kernel), "reading a kernel's attributes");
    if (attr.sharedSizeBytes + total > size_t(limit))
      throw Error("counts mode needs " + std::to_string(attr.sharedSizeBytes + total) +
                  " bytes of shared memory per block for " + k_.id + " with this DRAM model; the device allows " +
                  std::to_string(limit) + " (use a smaller model)");
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(total)),
          "asking for " + std::to_string(total) + " bytes of shared memory for " + k_.id + " (counts mode)");
    prepare(dyn_bytes, offset);
    kernel<<<grid, block, total, cudaStream_t(stream())>>>(args);
    check(cudaGetLastError(), "launching " + k_.id + " (counts mode)");
    if (!out_) return;
    sync(k_.id + " (counts mode)");
    collect(grid, block, dyn_bytes);
  }

  void prepare(uint32_t dyn_bytes, uint32_t offset) {
    abi::CountsState st{};
    auto* ctl = static_cast<Control*>(control_.get());
    st.info = launch_info(a_, dyn_bytes, ctl->shared, &ctl->fault);
    st.dram = dram_;
    st.sites = static_cast<abi::SiteSlot*>(sites_.get());
    st.epochs = static_cast<unsigned long long*>(epochs_->get());
    st.max_epochs = max_epochs_;
    st.epochs_seen = &ctl->epochs_seen;
    st.lost_writes = &ctl->lost_writes;
    st.shared_offset = offset;
    check(cudaMemsetAsync(control_.get(), 0, sizeof(Control), cudaStream_t(stream())), "resetting the counters");
    check(cudaMemsetAsync(epochs_->get(), 0, epochs_->bytes(), cudaStream_t(stream())), "resetting the epoch table");
    check(cudaMemcpyAsync(sites_.get(), empty_sites_.get(), sites_.bytes(), cudaMemcpyDeviceToDevice,
                          cudaStream_t(stream())),
          "resetting the site table");
    if (!state_set_ || std::memcmp(&st, &state_, sizeof st) != 0) {
      check(cudaMemcpyToSymbol(g_counts_state, &st, sizeof st), "setting up counts mode");
      state_ = st;
      state_set_ = true;
    }
  }

  void collect(dim3 grid, dim3 block, uint32_t dyn_bytes) {
    Counts& c = *out_;
    trace::Trace& meta = c.meta;
    Control ctl;
    check(cudaMemcpy(&ctl, control_.get(), sizeof ctl, cudaMemcpyDeviceToHost), "reading the counters");
    meta.launch().grid = dim(grid);
    meta.launch().block = dim(block);
    meta.launch().dynamic_shared_bytes = dyn_bytes;
    if (ctl.fault.flag) throw Error(fault_text(ctl.fault, meta.buffers));
    if (ctl.lost_writes)
      throw Error("counts mode lost " + std::to_string(ctl.lost_writes) + " cp.async writes of " + k_.id +
                  ": a lane had more than " + std::to_string(trace::kCopiesInFlight) + " copies in flight");
    trace::Builder b(meta);
    add_shared_buffers(ctl.shared, b);

    // Sites in the emulator's order of first execution.
    std::vector<abi::SiteSlot> slots(abi::kSiteSlots);
    check(cudaMemcpy(slots.data(), sites_.get(), sizeof(abi::SiteSlot) * abi::kSiteSlots, cudaMemcpyDeviceToHost),
          "reading the site table");
    std::vector<const abi::SiteSlot*> used;
    for (const auto& s : slots)
      if (s.key != abi::kEmptyKey) used.push_back(&s);
    std::sort(used.begin(), used.end(), [](const abi::SiteSlot* a, const abi::SiteSlot* b) {
      return a->first != b->first ? a->first < b->first : a->key < b->key;
    });
    for (const abi::SiteSlot* s : used) {
      const uint32_t i = b.key_site(s->key).site;  // adds the site to meta the first time
      c.report.sites.resize(meta.sites.size());    // parallel to meta.sites
      examples_.resize(meta.sites.size());
      analysis::SiteStats& ss = c.report.sites[i];
      ss.site = i;
      unsigned long long sums[abi::kSiteSums] = {};
      for (uint32_t q = 0; q < abi::kParts; ++q)
        for (uint32_t k = 0; k < abi::kSiteSums; ++k) sums[k] += s->sums[q][k];
      ss.requests += sums[abi::kRequests];
      ss.lane_accesses += sums[abi::kLanes];
      ss.sectors += sums[abi::kSectors];
      ss.lines += sums[abi::kLines];
      ss.ideal_sectors += sums[abi::kIdealSectors];
      ss.bytes_requested += sums[abi::kBytes];
      ss.wavefronts += sums[abi::kWavefronts];
      ss.ideal_wavefronts += sums[abi::kIdealWavefronts];
      ss.bank_conflicts = ss.wavefronts - ss.ideal_wavefronts;
      ss.max_way = std::max(ss.max_way, s->max_way);
      c.report.records += sums[abi::kRequests];
      c.lane_accesses += sums[abi::kLanes];
      if (s->example_taken && !examples_[i]) {
        const abi::Record& d = s->example;
        trace::Record r;
        r.block = d.block;
        r.warp = d.warp;
        r.site = i;
        r.epoch = d.epoch;
        r.active = d.active;
        r.buffer = meta.sites[i].buffer;
        for (int l = 0; l < trace::kWarpSize; ++l) r.offset[l] = (d.active >> l) & 1u ? d.offset[l] : 0u;
        examples_[i] = r;
      }
    }
    c.sites_overflow |= used.size() >= abi::kSiteSlots;

    // Epoch rows, summed over the launches of the run.
    uint64_t seen = std::min<uint64_t>(ctl.epochs_seen, max_epochs_);
    if (ctl.epochs_seen > max_epochs_) c.epochs_merged += uint32_t(ctl.epochs_seen - max_epochs_);
    std::vector<unsigned long long> parts(seen * abi::kParts * words_), rows(seen * words_, 0);
    if (seen)
      check(cudaMemcpy(parts.data(), epochs_->get(), parts.size() * 8, cudaMemcpyDeviceToHost),
            "reading the epoch table");
    for (uint64_t e = 0; e < seen; ++e)
      for (uint32_t q = 0; q < abi::kParts; ++q)
        for (uint32_t w = 0; w < words_; ++w) rows[e * words_ + w] += parts[(e * abi::kParts + q) * words_ + w];
    const uint32_t cells = dram_.cells();
    for (uint64_t e = 0; e < seen; ++e) {
      const unsigned long long* w = &rows[e * words_];
      if (!w[abi::kERequests]) continue;
      EpochSums& es = epochs_sums_[uint32_t(e)];
      analysis::EpochStats& t = es.totals;
      t.epoch = uint32_t(e);
      t.requests += w[abi::kERequests];
      t.lane_accesses += w[abi::kELanes];
      t.sectors += w[abi::kESectors];
      t.ideal_sectors += w[abi::kEIdealSectors];
      t.bytes_requested += w[abi::kEBytes];
      t.wavefronts += w[abi::kEWavefronts];
      t.ideal_wavefronts += w[abi::kEIdealWavefronts];
      t.bank_conflicts = t.wavefronts - t.ideal_wavefronts;
      for (uint32_t buf = 0; buf < a_.size(); ++buf) {
        const unsigned long long* row = w + abi::kEpochSums + buf * (cells + 1);
        if (!row[cells]) continue;
        ArraySums& a = es.arrays[buf];
        a.cells.resize(cells, 0);
        a.requests += row[cells];
        for (uint32_t x = 0; x < cells; ++x) a.cells[x] += row[x];
      }
    }
  }

 public:
  // The report once every launch of the run is collected: the sites' averages and lines,
  // the epochs' DRAM spread.
  void finish(const analysis::DramModel& dram) {
    Counts& c = *out_;
    c.report.sites.resize(c.meta.sites.size());
    examples_.resize(c.meta.sites.size());
    for (size_t i = 0; i < c.report.sites.size(); ++i) {
      c.report.sites[i].site = uint32_t(i);
      analysis::finish_site(c.meta, examples_[i] ? &*examples_[i] : nullptr, c.report.sites[i]);
    }
    c.report.epochs.clear();
    for (auto& [e, es] : epochs_sums_) {
      analysis::EpochStats t = std::move(es.totals);
      for (const auto& [buf, a] : es.arrays) t.arrays.push_back(analysis::array_spread(buf, a.requests, a.cells, dram));
      c.report.epochs.push_back(std::move(t));
    }
  }

 private:
  struct ArraySums {
    uint64_t requests = 0;
    std::vector<uint64_t> cells;  // [channel * banks + bank] bursts
  };
  struct EpochSums {
    analysis::EpochStats totals;
    std::map<uint32_t, ArraySums> arrays;  // by buffer id
  };
  std::vector<std::optional<trace::Record>> examples_;  // per site: one request from block 0
  std::map<uint32_t, EpochSums> epochs_sums_;

  const catalog::KernelInfo& k_;
  DeviceArrays& a_;
  abi::Dram dram_;
  Counts* out_;
  DeviceMemory control_, sites_, empty_sites_;
  abi::CountsState state_{};
  bool state_set_ = false;
  std::unique_ptr<DeviceMemory> epochs_;
  uint32_t words_ = 0, max_epochs_ = 1;
};

}  // namespace

std::unique_ptr<Runner> counts_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a,
                                      const analysis::DramModel& dram) {
  return std::make_unique<CatalogRunner<CountsLauncher>>(k, p, a, dram, nullptr);
}

}  // namespace detail

Counts counts(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
              const analysis::DramModel& dram) {
  using namespace detail;
  require_device();
  auto run = find_run<CountsLauncher>(k.id);
  if (!run) throw std::invalid_argument("no GPU entry for kernel " + k.id);
  Counts c;
  c.report.dram = dram;
  start_trace(k, p, c.meta);
  DeviceArrays dev(k, p);
  dev.upload(arrays);
  CountsLauncher l(k, dev, dram, &c);
  run(l, p);
  l.finish(dram);
  dev.download_outputs(arrays);
  for (uint64_t b = 0; b < c.meta.launch().grid.count(); ++b) c.meta.launch().blocks.push_back(uint32_t(b));
  return c;
}

}  // namespace ws::gpu
