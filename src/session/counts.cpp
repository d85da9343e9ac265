#include "session/detail/counts.h"

#include <stdexcept>

namespace ws::session {

analysis::Report report_from_counts(const gpu::Counts& c, const analysis::DramModel& dram) {
  analysis::Report rep;
  rep.dram = dram;
  trace::Trace one = c.meta;  // a one-record trace per example, for why()
  for (size_t i = 0; i < c.sites.size() && i < c.meta.sites.size(); ++i) {
    const gpu::SiteCounts& g = c.sites[i];
    analysis::SiteStats s;
    s.site = uint32_t(i);
    s.requests = g.requests;
    s.lane_accesses = g.lane_accesses;
    s.sectors = g.sectors;
    s.lines = g.lines;
    s.ideal_sectors = g.ideal_sectors;
    s.bytes_requested = g.bytes_requested;
    s.wavefronts = g.wavefronts;
    s.ideal_wavefronts = g.ideal_wavefronts;
    s.bank_conflicts = g.bank_conflicts;
    s.max_way = g.max_way;
    if (g.requests) {
      const double r = double(g.requests);
      s.sectors_per_request = double(g.sectors) / r;
      s.ideal_sectors_per_request = double(g.ideal_sectors) / r;
      s.wavefronts_per_request = double(g.wavefronts) / r;
      s.conflicts_per_request = double(g.bank_conflicts) / r;
    }
    if (g.sectors) s.efficiency = double(g.bytes_requested) / (double(g.sectors) * 32.0);
    if (g.has_example) s.why = analysis::why_site(one, g.example, s);
    rep.records += g.requests;
    rep.sites.push_back(std::move(s));
  }
  const uint32_t C = c.dram.channels, B = c.dram.banks;
  for (const gpu::EpochCounts& g : c.epochs) {
    analysis::EpochStats e;
    e.epoch = g.epoch;
    e.requests = g.requests;
    e.lane_accesses = g.lane_accesses;
    e.sectors = g.sectors;
    e.ideal_sectors = g.ideal_sectors;
    e.bytes_requested = g.bytes_requested;
    e.wavefronts = g.wavefronts;
    e.ideal_wavefronts = g.ideal_wavefronts;
    e.bank_conflicts = g.bank_conflicts;
    for (const auto& ga : g.arrays) {
      analysis::ArrayEpochStats a;
      a.buffer = ga.buffer;
      a.requests = ga.requests;
      a.bursts = ga.bursts;
      a.per_channel.assign(C, 0);
      a.per_bank.assign(C, std::vector<uint64_t>(B, 0));
      for (uint32_t ch = 0; ch < C; ++ch)
        for (uint32_t b = 0; b < B; ++b) {
          uint64_t v = size_t(ch) * B + b < ga.cells.size() ? ga.cells[size_t(ch) * B + b] : 0;
          a.per_bank[ch][b] = v;
          a.per_channel[ch] += v;
        }
      for (uint64_t v : a.per_channel) a.channels_used += v ? 1 : 0;
      e.arrays.push_back(std::move(a));
    }
    rep.epochs.push_back(std::move(e));
  }
  return rep;
}

uint64_t count_on_gpu(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
                      const analysis::DramModel& dram, trace::Trace& meta, analysis::Report& report) {
#ifdef WS_HAVE_CUDA
  gpu::Counts c = gpu::counts(k, p, arrays, dram);  // its trace head names the kernel file, its sites their code
  report = report_from_counts(c, dram);
  meta = std::move(c.meta);
  return c.lane_accesses;
#else
  (void)k, (void)p, (void)arrays, (void)dram, (void)meta, (void)report;
  throw std::runtime_error("counts mode needs the GPU backend, which this build does not have");
#endif
}

}  // namespace ws::session
