// src/gpu/record.h — the GPU recorder in the shape the capture layer asks for: the
// contract of emu::record (same trace, record for record) with the capture's options.
#pragma once
#include "gpu/gpu.h"

namespace ws::gpu {

inline uint64_t record(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
                       const std::vector<uint32_t>& blocks, uint64_t max_records, trace::Trace& out) {
  CaptureOptions opt;
  opt.blocks = blocks;
  opt.max_records = max_records;
  return record(k, p, arrays, opt, out);
}

}  // namespace ws::gpu
