// src/gpu/device_abi.h — the fixed-size structures that the instrumented kernels write on
// the device and the host reads back. Both nvcc and the host compiler include this file,
// so it holds plain data and integer arithmetic only.
#pragma once
#include <cstdint>

#include "trace/site_key.h"  // the site key every table and record holds

#if defined(__CUDACC__)
#define WS_ABI __host__ __device__ __forceinline__
#else
#define WS_ABI inline
#endif

namespace ws::gpu::abi {

constexpr uint32_t kWarp = 32;
constexpr uint32_t kMaxGlobals = 8;   // global arrays of one launch
constexpr uint32_t kMaxShared = 8;    // shared arrays of one launch
constexpr uint32_t kNameBytes = 32;   // a shared array's name, NUL-terminated
constexpr uint32_t kSiteSlots = 64;   // distinct sites a launch may have (counts mode)
// No key: a free table slot, an unused record slot, a refused (out-of-bounds) access.
constexpr uint32_t kEmptyKey = trace::kNoKey;

// Keys are trace::make_key's (trace/site_key.h), the emulator's too.
WS_ABI uint32_t key_hash(uint32_t k) { return (k * 2654435761u) >> 26; }  // 0..63

// One warp-level access as the record context writes it: the header by the leading lane,
// one offset by each lane of the record (other lanes' offsets are left as they were and
// cleared on the host).
struct Record {
  uint32_t key;
  uint32_t block;                       // linear block id
  uint32_t warp;                        // warp within the block
  uint32_t seq;                         // per-warp dynamic index
  uint32_t epoch;                       // barriers passed by the block
  uint32_t active;                      // lanes that took part
  uint32_t offset[kWarp];
};
static_assert(sizeof(Record) == 152, "record layout is part of the device ABI");

// A shared array of the launch, described once by thread 0 of block 0.
struct SharedDesc {
  char name[kNameBytes];
  uint32_t elem_bytes;
  uint32_t used;                        // 1 once written
  uint64_t rows, cols, size_bytes;
};

// The first out-of-bounds access an instrumented launch saw (flag 0: none).
struct Fault {
  uint32_t flag;
  uint32_t line, buffer, pad;
  int64_t offset;
  uint64_t size;
  uint32_t block[3], thread[3];
};

// What every instrumented launch knows about its arrays. The launch-state structures
// live in __constant__ memory, so they are plain aggregates: the host value-initialises
// them ({}) and sets every field it needs.
struct LaunchInfo {
  uint64_t global_bytes[kMaxGlobals];   // by buffer id
  uint32_t n_global;
  uint32_t dyn_bytes;                   // the kernel's own dynamic shared memory
  SharedDesc* shared;                   // [kMaxShared]
  Fault* fault;
};

// ---- record mode ---------------------------------------------------------------------------

// Recording is two kernels. The instrumented kernel does not make its lanes meet: every
// thread of a recorded warp appends its accesses, (key, offset) in 8 bytes, to its own log
// (a barrier appends kBarrierKey), which costs one coalesced store per access. A second
// kernel, one warp per recorded warp, replays the lanes' logs through the emulator's
// meeting (the lowest waiting lane leads; the lanes at its site form one record) and
// writes the records.
struct RecordState {
  LaunchInfo info;
  Record* records;
  uint64_t capacity;                    // record slots in `records`
  unsigned long long* cursor;           // slots handed out, kRecordChunk at a time to a warp
  unsigned long long* total;            // records asked for (kept + dropped)
  const uint32_t* block_bits;           // bit per linear block; null: every block
  uint32_t block_lo, block_n;           // block_n > 0: the recorded blocks are block_lo .. + block_n - 1
  uint32_t warp_bits;                   // warps to record
  uint32_t* dropped_keys;               // [kSiteSlots] keys of dropped records
  unsigned long long* dropped_lanes;    // lane accesses of dropped records
  // The logs: entry e of thread t of the s-th recorded block at (s * log_cap + e) * threads + t.
  unsigned long long* log;
  uint32_t log_cap;                     // entries a thread's log holds
  uint32_t log_blocks;                  // blocks the logs hold
  uint32_t* log_cursor;                 // blocks that took a log slot
  uint32_t* log_block;                  // [log_blocks] the linear block id of each slot
  uint32_t* log_count;                  // [log_blocks * threads][2] entries made, barriers passed
  uint32_t* log_max;                    // the most entries any thread made (to size the next run)
};
// A warp takes record slots in chunks, so that one global atomic serves many records;
// the slots of its last chunk that it does not use are marked with kEmptyKey.
constexpr uint32_t kRecordChunk = 32;
constexpr uint32_t kBarrierKey = 0xfffffffdu;  // a log entry: the thread passed a barrier
WS_ABI unsigned long long log_entry(uint32_t key, uint32_t off) { return (unsigned long long)key << 32 | off; }

// ---- counts mode -------------------------------------------------------------------------

// Per-site statistics over the whole grid, summed on the device.
enum SiteStat : uint32_t {
  kRequests, kLanes, kSectors, kLines, kIdealSectors, kBytes, kWavefronts, kIdealWavefronts,
  kSiteSums  // number of summed statistics
};
// Per-epoch totals of all sites.
enum EpochStat : uint32_t {
  kERequests, kELanes, kESectors, kEIdealSectors, kEBytes, kEWavefronts, kEIdealWavefronts,
  kEpochSums
};

// Every block adds its sums to global memory when it ends; with tens of thousands of
// blocks, one address per sum would serialise their atomics. So the global sums come in
// kParts partitions (a block uses the one of the SM it runs on), added up by the host.
constexpr uint32_t kParts = 8;

struct SiteSlot {
  uint32_t key;                         // kEmptyKey when free
  uint32_t max_way;
  unsigned long long first;             // smallest (block, epoch, warp, seq) that executed the site
  unsigned long long sums[kParts][kSiteSums];
  uint32_t example_taken;               // 1 once `example` holds a request of this site
  uint32_t pad;
  Record example;
};

// The DRAM teaching model of src/analysis (DramModel::channel / bank), for power-of-two
// burst sizes: burst id g -> flat cell channel * banks + bank. Burst ids fit 32 bits
// (offsets are 32-bit); the shifts are set by the host when counts are powers of two.
struct Dram {
  uint32_t channels, banks, burst_bytes, xor_hash;
  uint32_t burst_shift;             // log2(burst_bytes)
  uint32_t channel_shift, bank_shift;  // log2 of channels / banks, or 0xff when not a power of two
  uint32_t cacheable;               // cells depend on the offset modulo 128 only (see CountsState)
  WS_ABI uint32_t cell(uint32_t g) const {
    uint32_t row = channel_shift != 0xffu ? g >> channel_shift : g / channels;
    uint32_t c = channel_shift != 0xffu ? g & (channels - 1u) : g % channels;
    if (xor_hash) {
      uint32_t q = bank_shift != 0xffu ? row >> bank_shift : row / banks;
      uint32_t h = channel_shift != 0xffu ? q & (channels - 1u) : q % channels;
      c = channel_shift != 0xffu ? (c ^ h) : (c + h) % channels;
    }
    uint32_t b = bank_shift != 0xffu ? row & (banks - 1u) : row % banks;
    return c * banks + b;
  }
  WS_ABI uint32_t cells() const { return channels * banks; }
};

// Order key of a request in the emulator's record order, saturated to fit 64 bits.
WS_ABI unsigned long long order_key(uint32_t block, uint32_t epoch, uint32_t warp, uint32_t seq) {
  auto sat = [](uint64_t v, int bits) { return v >= (1ull << bits) ? (1ull << bits) - 1 : v; };
  return (sat(block, 24) << 40) | (sat(epoch, 14) << 26) | (sat(warp, 5) << 21) | sat(seq, 21);
}

struct CountsState {
  LaunchInfo info;
  Dram dram;
  SiteSlot* sites;                      // [kSiteSlots], hashed by key
  // [max_epochs][kParts][counts_epoch_words]: kEpochSums totals, then per global array its
  // DRAM cells and, last, its request count.
  unsigned long long* epochs;
  uint32_t max_epochs;                  // epochs past this are added to the last one
  unsigned long long* epochs_seen;      // highest epoch + 1 (atomicMax)
  unsigned long long* lost_writes;      // cp.async writes no lane had room to track
  uint32_t shared_offset;               // where the counters start in dynamic shared memory
};

// Dynamic shared memory the counts context adds after the kernel's own (16-byte aligned),
// laid out by counts_layout():
//   BlockSite[kSiteSlots]     the block's per-site sums (flushed to global at block exit)
//   uint64_t pairs[4]         the block's totals of the current epoch, packed as below
//   uint32_t cells[n_global][cells + 1]  the block's DRAM cells this epoch, then requests
//   WarpWay[warps][kCacheWays]  per warp: cost cache and running sums of recent sites
//   WarpEpoch[warps]          per warp: this epoch's totals (and cells, for small models)
// Each warp adds to its own sums with plain arithmetic (the meeting of the lanes lets one
// request of a warp run at a time), so warps never contend; the sums move to the block
// tables at barriers and at exit. A request's cost depends only on its lanes' offsets
// relative to the first active lane, the active mask and the first offset modulo 128
// (sector, line and bank alignment), so each warp remembers the cost of the last shape of
// each site and repeats skip the warp-wide analysis.
constexpr uint32_t kCacheWays = 16;
struct WarpWay {
  uint32_t h1, h2;  // shape hash of the cached cost
  uint32_t a;       // sectors | lines << 8 | ideal sectors << 16
  uint32_t b;       // bytes | wavefronts << 12 | ideal wavefronts << 20 | max way << 24
  uint32_t cells_lo, cells_hi;  // DRAM bursts per cell, 8 bits each (cacheable models)
  uint32_t owner;   // block site slot whose sums `pair` holds, kEmptyKey: none
  uint32_t max_way;
  unsigned long long pair[4];  // requests|lanes, sectors|lines, ideal|bytes, wavefronts|ideal wavefronts
};
struct BlockSite {
  uint32_t key;
  uint32_t max_way;
  unsigned long long first;
  unsigned long long pair[4];  // as WarpWay::pair
  uint32_t example_taken;
  uint32_t pad;
};
// Epoch pairs: requests|lanes, sectors|ideal sectors, bytes|wavefronts, ideal wavefronts.
constexpr uint32_t kEpochPairs = 4;
WS_ABI uint32_t counts_epoch_words(uint32_t n_global, uint32_t cells) {
  return kEpochSums + n_global * (cells + 1);
}
struct CountsLayout {
  uint32_t sites, pairs, cells, ways, wepoch, wepoch_stride, total;
};
// `warp_cells`: the warps keep their own DRAM cells (models small enough to cache).
WS_ABI CountsLayout counts_layout(uint32_t n_global, uint32_t cells, uint32_t warps, bool warp_cells) {
  CountsLayout l;
  uint32_t o = 0;
  l.sites = o;
  o += uint32_t(sizeof(BlockSite)) * kSiteSlots;
  l.pairs = o;
  o += 8 * kEpochPairs;
  l.cells = o;
  o += 4 * n_global * (cells + 1);
  o = (o + 15u) & ~15u;
  l.ways = o;
  o += uint32_t(sizeof(WarpWay)) * kCacheWays * warps;
  l.wepoch = o;
  l.wepoch_stride = (8 * kEpochPairs + (warp_cells ? 4 * n_global * (cells + 1) : 0) + 15u) & ~15u;
  o += l.wepoch_stride * warps;
  l.total = o;
  return l;
}

}  // namespace ws::gpu::abi
