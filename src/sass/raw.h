// src/sass/raw.h — what the GPU tracer (tools/gpu_tracer, a Compute Sanitizer API tool
// injected into the user's program) writes, read back by warpscope (sass/import.h). One
// file per traced process, little-endian, a sequence of chunks:
//
//   FileHead: "WSGPUTR\0", uint32 version, uint32 0
//   chunk: ChunkHead (uint32 type, uint32 0, uint64 payload bytes), payload (padded to 8 bytes)
//     Module  uint64 module id, then the module's cubin (an ELF file; the chunk's padding follows it)
//     Alloc   AllocChunk: uint64 address, uint64 size, uint64 flags (AllocFlags)
//     ProgramAlloc  uint64 address: the allocation there was made by the program's own
//             cudaMalloc* call (returned to it), not by the runtime or driver for themselves;
//             then, where the tracer could read it, the name the program's line of that call
//             gives it (NUL-terminated, padded; absent in older files)
//     Launch  LaunchHead, the kernel's name (name_bytes, padded to 8), then `kept`
//             DeviceRecords in the order the GPU wrote them
//     WarpCounts  WarpCountsHead (uint32 warps per block, uint32 warps), then each warp's executed warp
//             instructions (uint32, the warps of blocks [block_lo, block_hi) in order): of the
//             Launch chunk before it. Past the record cap they tell which blocks were kept whole.
//     LaunchNote  LaunchNoteChunk: what the tracer left out of the Launch chunk before it
//             (absent in older files: every space recorded, every launch patched)
//
// A DeviceRecord is one warp instruction: the lanes that executed it together (its active
// mask) and each one's address (global: the virtual address; shared: the offset in the
// block's shared window).
#pragma once
#include <cstdint>

namespace ws::sass {

constexpr char kRawMagic[8] = {'W', 'S', 'G', 'P', 'U', 'T', 'R', '\0'};
constexpr uint32_t kRawVersion = 1;

enum class ChunkType : uint32_t { Module = 1, Alloc = 2, Launch = 3, ProgramAlloc = 4, WarpCounts = 5, LaunchNote = 6 };

struct FileHead {
  char magic[8] = {'W', 'S', 'G', 'P', 'U', 'T', 'R', '\0'};  // kRawMagic
  uint32_t version = kRawVersion;
  uint32_t zero = 0;
};
static_assert(sizeof(FileHead) == 16);

struct ChunkHead {
  uint32_t type = 0;          // ChunkType
  uint32_t zero = 0;
  uint64_t bytes = 0;         // the payload's, padded to 8
};
static_assert(sizeof(ChunkHead) == 16);

struct AllocChunk {
  uint64_t address = 0, size = 0;
  uint64_t flags = 0;         // AllocFlags
};
static_assert(sizeof(AllocChunk) == 24);

struct WarpCountsHead {
  uint32_t warps_per_block = 0;
  uint32_t warps = 0;         // the counts (uint32 each) that follow
};
static_assert(sizeof(WarpCountsHead) == 8);

struct LaunchNoteChunk {
  uint32_t spaces = 0;      // the spaces recorded: bit 1 << RawSpace (kRawSpaceGlobal...)
  uint32_t unrecorded = 0;  // 1: the launch ran unpatched, not recorded (its kernel's first launches were)
};
static_assert(sizeof(LaunchNoteChunk) == 8);

// An allocation's flags: a module's own data (its __device__ and __constant__ variables).
enum AllocFlags : uint64_t { kAllocModule = 1 };

enum RawSpace : uint8_t { kRawGlobal = 0, kRawShared = 1, kRawLocal = 2 };
// LaunchNoteChunk::spaces, and the patches' own test of what to record.
enum RawSpaceBits : uint32_t { kRawSpaceGlobal = 1u << kRawGlobal, kRawSpaceShared = 1u << kRawShared };
// DeviceRecord::flags (the Sanitizer API's memory flags).
enum RawFlags : uint16_t { kRawRead = 1, kRawWrite = 2, kRawAtomic = 4 };
// DeviceRecord::form: what the instruction was, beyond a plain access (0 in files written
// before the tracer told them apart). An async copy (LDGSTS) writes two records: its global
// read, then its shared write, both at issue. Commit and Wait carry no address; a Wait's
// `flags` holds the groups it lets stay in flight (0: all must land).
enum RawForm : uint8_t {
  kRawPlain = 0,
  kRawMatrix = 1,      // LDSM / STSM: each lane one 16-byte row; `count` matrices
  kRawAsyncRead = 2,   // LDGSTS, its global side
  kRawAsyncWrite = 3,  // LDGSTS, its shared side
  kRawCommit = 4,      // LDGDEPBAR (cp.async.commit_group)
  kRawWait = 5,        // DEPBAR (cp.async.wait_group)
};

struct LaunchHead {
  uint64_t module = 0;        // the module's id (as its Module chunk)
  uint64_t function_pc = 0;   // the kernel's first instruction: a record's pc minus this is its SASS offset
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint32_t block_lo = 0, block_hi = 0;  // linear blocks [lo, hi) were recorded
  uint64_t executed = 0;      // warp instructions of those blocks that touched memory
  uint64_t kept = 0;          // records that follow (executed beyond the cap are counted only)
  uint32_t name_bytes = 0;
  uint32_t dynamic_shared = 0;
  uint64_t nanoseconds = 0;   // from the launch to its end, the patches' work included
};
static_assert(sizeof(LaunchHead) == 80);

struct DeviceRecord {
  uint64_t pc = 0;            // absolute; minus LaunchHead::function_pc: the SASS offset
  uint32_t block = 0;         // linear block id
  uint32_t warp = 0;          // warp within the block (linear thread id / 32)
  uint32_t mask = 0;          // lanes that executed it
  uint32_t epoch = 0;         // barriers the warp had passed
  uint8_t space = 0;          // RawSpace
  uint8_t size = 0;           // bytes a lane: 1, 2, 4, 8, 16
  uint16_t flags = 0;         // RawFlags (kRawWait: groups left in flight)
  uint8_t form = 0;           // RawForm
  uint8_t count = 0;          // kRawMatrix: matrices (1, 2 or 4)
  uint16_t pad = 0;
  uint64_t address[32] = {};  // per lane; meaningful where `mask` has the lane
};
static_assert(sizeof(DeviceRecord) == 288);

}  // namespace ws::sass
