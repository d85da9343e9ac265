// src/session/detail/counts.h — private to src/session: counts mode: the GPU's whole-grid per-site
// and per-epoch sums turned into the same analysis::Report the views and the CLI read.
#pragma once
#include "analysis/analysis.h"
#include "catalog.h"
#include "gpu/gpu.h"
#include "trace/trace.h"

namespace ws::session {

// The report of a counts-mode run; `meta` holds the launch, buffers and sites (no
// records), the example requests of `c` give each site its plain-language line.
analysis::Report report_from_counts(const gpu::Counts& c, const analysis::DramModel& dram);

// Runs `k` in counts mode on the GPU (whole grid, outputs left in `arrays`); fills `meta`
// and `report`. Returns the lane accesses. Throws std::runtime_error without a GPU backend.
uint64_t count_on_gpu(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
                      const analysis::DramModel& dram, trace::Trace& meta, analysis::Report& report);

}  // namespace ws::session
