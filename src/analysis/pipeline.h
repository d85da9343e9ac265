// src/analysis/pipeline.h — a block's shared ring as TMA fills it and its warps wait and
// compute: each bulk (tensor) copy of the block as one box with the request that issued it
// and the one where it landed, the boxes grouped by where they land in shared memory (a
// stage of the ring, one slot per array and offset), and the block's waits and mma /
// wgmma instructions placed among the requests, and each mbarrier's phases as they completed
// with the waits that named it. What the pipeline view draws; depends on
// trace and copies only.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/copies.h"
#include "trace/trace.h"

namespace ws::analysis {

// One bulk copy: the records of one instruction of one warp (a box's 512-byte pieces).
struct PipelineBox {
  uint64_t issued = kNoRecord;  // its first read record (the request that issued it)
  uint64_t landed = kNoRecord;  // its first write record (the wait that saw it land); kNoRecord: never waited for
  uint32_t warp = 0;            // the warp that issued it
  uint64_t bytes = 0;           // the bytes it wrote (a store: it read from its slot)
};

// Where boxes land: one shared array at one byte offset (a stage of the ring). A TMA
// store's slot is the shared bytes its boxes are read from; `to` the global array they
// are written to (landed: written there, at the wait that covered them).
struct PipelineSlot {
  uint32_t buffer = 0;             // the shared array (index into Trace::buffers)
  uint64_t offset = 0, bytes = 0;  // the bytes [offset, offset + bytes) its boxes cover
  uint32_t to = trace::kNoBuffer;  // a store's global array; kNoBuffer: boxes that land here
  uint32_t from = trace::kNoBuffer;  // the global array every box landing here came from
                                     // (kNoBuffer: a store's slot, or boxes of several arrays)
  std::vector<PipelineBox> boxes;  // in issue order
};

// A wait or an mma / wgmma of one of the block's warps, at its place among the requests.
struct PipelineTick {
  uint64_t step = 0;  // the requests of the launch made before it
  uint32_t warp = 0;
  trace::Form form = trace::Form::Wait;
  uint32_t event = 0;  // index into Trace::events
};

// One mbarrier of the block: each phase as it completed (the arrival or the bulk copy whose
// bytes completed it, and the transaction bytes it carried) and the waits that named it.
struct PipelinePhase {
  uint64_t step = 0;   // the requests of the launch made before it completed
  uint32_t warp = 0;   // the warp whose instruction completed it
  uint32_t bytes = 0;  // its transaction bytes (0: arrivals only)
  uint32_t event = 0;  // index into Trace::events
};
struct PipelineBarrier {
  uint32_t offset = 0;                // its byte offset in the block's shared memory
  std::vector<PipelinePhase> phases;  // in order
  std::vector<PipelineTick> waits;    // in order
};

struct Pipeline {
  uint32_t block = 0;
  uint64_t first = kNoRecord, last = 0;  // the block's first and last records
  std::vector<PipelineSlot> slots;       // by array, then offset
  std::vector<uint32_t> warps;           // the warps of the ticks, in order
  std::vector<PipelineTick> ticks;       // by step
  std::vector<PipelineBarrier> barriers; // by offset (from a file of format 6 on)
  bool empty() const { return slots.empty(); }
};

// Block `block`'s pipeline in a one-launch trace (trace::launch_trace) whose copies `c`
// followed; empty when the block made no bulk copy.
Pipeline pipeline_of(const trace::Trace& t, const Copies& c, uint32_t block);

}  // namespace ws::analysis
