// src/emu/record.h — records a catalog kernel launch in the CPU emulator.
#pragma once
#include "catalog.h"
#include "emu/machine.h"
#include "trace/trace.h"

namespace ws::emu {

// Runs kernel `k` with `p` on `arrays` (from catalog::make_arrays); fills `out` with the
// launch, buffers, sites and records. Returns the lane-level accesses executed.
// Throws KernelError if the kernel misbehaves, std::invalid_argument for a bad block list.
uint64_t record(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
                const CaptureOptions& opt, trace::Trace& out);

}  // namespace ws::emu
