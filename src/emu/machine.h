// src/emu/machine.h — runs a kernel launch on the CPU: blocks one after another (the CTAs
// of a thread block cluster together, each with its own shared memory), each block's
// threads as fibers that run to the next barrier, each warp's 32 lane logs grouped into
// warp-level records by the trace builder at every barrier. In a cluster, a block barrier
// waits for the whole cluster, as the cluster barrier does: a schedule the hardware allows
// for the catalog's cluster kernel, whose only block barriers are its cluster barriers.
// Engine: a catalog kernel on the CPU (the 2×2 of engines: session/capture.h).
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "trace/builder.h"

namespace ws::emu {

// What to keep of a launch.
struct CaptureOptions {
  std::vector<uint32_t> blocks;  // linear block ids to run and record; empty = all
  uint64_t max_records = ~uint64_t(0);  // records past this are counted, not kept
  bool keep_records = true;             // false: run and count only
  uint64_t max_lane_accesses = ~uint64_t(0);  // refuse launches that would emulate more
};

// A kernel failed in the emulator (out-of-bounds access, barrier misuse).
struct KernelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Machine {
 public:
  Machine();
  ~Machine();
  // Runs thread_fn(arg) once for every thread of the selected blocks, as the builder's
  // current launch (grid and block set). The builder's trace must already list the
  // launch's global buffers (ids 0..n-1, sizes set); shared arrays, sites and records are
  // added through the builder. Returns the number of lane-level accesses executed.
  uint64_t run(uint32_t dynamic_shared_bytes, void (*thread_fn)(void*), void* arg, const CaptureOptions& opt,
               trace::Builder& out);

 public:
  struct Impl;  // public so the emulator's free functions can reach the running machine

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ws::emu
