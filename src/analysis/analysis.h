// src/analysis/analysis.h — what each access costs. Pure C++, deterministic; the numbers
// mean what Nsight Compute's mean (docs/architecture.md, "What the figures mean") so a
// student can check them against the profiler. Depends on trace only.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace ws::analysis {

// ---- one request (one warp-level instruction) ----------------------------------------

// Global memory: 32-byte sectors and 128-byte lines touched by the active lanes.
struct GlobalCost {
  uint32_t sectors = 0;         // distinct 32-byte aligned sectors
  uint32_t lines = 0;           // distinct 128-byte aligned lines
  uint32_t ideal_sectors = 0;   // ceil(distinct bytes requested / 32)
  uint32_t bytes_requested = 0; // distinct bytes the active lanes asked for
  double efficiency = 0;        // bytes_requested / (sectors * 32), 0 when no lane is active
};
GlobalCost global_cost(const trace::Record& r, uint32_t bytes_per_lane);

// Shared memory: 32 banks of 4 bytes. 4-byte accesses are one phase of 32 lanes, 8-byte
// two phases of 16, 16-byte four phases of 8. In each phase the wavefronts are the largest
// number of distinct 4-byte words that fall in one bank (same word = broadcast).
struct SharedCost {
  uint32_t wavefronts = 0;
  uint32_t ideal_wavefronts = 0;  // phases that have an active lane
  uint32_t conflicts = 0;         // wavefronts - ideal_wavefronts
  uint32_t max_way = 0;           // worst n-way in any phase (1 = conflict free)
  std::vector<uint32_t> words_per_bank;  // [phase * 32 + bank]: distinct words in that bank
};
SharedCost shared_cost(const trace::Record& r, uint32_t bytes_per_lane);

// Whether a space's requests have a cost here: another CTA's shared memory (distributed
// shared memory, Space::Cluster) goes between SMs, a path no counter checks this model
// against, so its requests are counted (requests, lanes, bytes) and given no sectors or
// wavefronts; a view says so where it would show them.
constexpr bool cost_modelled(trace::Space s) { return s != trace::Space::Cluster; }
// The line a request or site of such a space gets instead of a cost: the CTAs it reached.
std::string why_unmodelled(const trace::Trace& t, const trace::Record& r);

// The records [first, last) of the bulk (TMA) copy that trace record `i` belongs to: the
// records next to it of the same block, warp and site, each 512 bytes of the copy. The
// emulated device's PTX gives them the copy's one instruction count (seq); a catalog kernel's
// warp-wide call numbers them one after another, every one full but the last.
std::pair<size_t, size_t> bulk_issue(const trace::Trace& t, size_t i);

// Cost over its ideal (sectors over ideal sectors, wavefronts over ideal wavefronts): 1 is
// the best the access could do, 32 a 32-way conflict; 1 when no lane was active (ideal 0).
constexpr double cost_ratio(uint64_t cost, uint64_t ideal) { return ideal ? double(cost) / double(ideal) : 1; }
inline double cost_ratio(const GlobalCost& c) { return cost_ratio(c.sectors, c.ideal_sectors); }
inline double cost_ratio(const SharedCost& c) { return cost_ratio(c.wavefronts, c.ideal_wavefronts); }

// Atomics. An atomic site whose lanes that share an address take turns, one update each:
// a RED / ATOM in global memory, and in shared memory any but an add of 1
// (ATOMS.POPC.INC, trace::AtomicPath::Increment, or a GPU trace's opcode) — unless ptxas
// combined the warp's updates into one (AtomicPath::Combined). False for loads and stores.
bool serialized_atomic(const trace::Site& s);
// One request of site `s`: global_cost / shared_cost above, with a serialized atomic's
// turns counted (sectors: per sector touched, the most lanes on one address in it;
// wavefronts: per phase, the most lane updates in one bank). What analyze() counts.
GlobalCost global_cost(const trace::Site& s, const trace::Record& r);
SharedCost shared_cost(const trace::Site& s, const trace::Record& r);

// Phases of a shared request of this width: 1 (1, 2 or 4 bytes), 2 (8 bytes), 4 (16 bytes).
uint32_t shared_phases(uint32_t bytes_per_lane);
// Phases of a global request: 16-byte lanes are served a quarter-warp at a time (8 lanes ×
// 16 B fill one 128-byte line), so 4; narrower accesses 1.
uint32_t global_phases(uint32_t bytes_per_lane);

// Where a byte offset lands, in the units the rules above count.
constexpr uint32_t kSectorBytes = 32, kLineBytes = 128, kBankBytes = 4, kBanks = 32;
constexpr uint64_t sector_of(uint64_t byte) { return byte / kSectorBytes; }
constexpr uint64_t line_of(uint64_t byte) { return byte / kLineBytes; }
constexpr uint64_t line_of_sector(uint64_t sector) { return sector * kSectorBytes / kLineBytes; }
constexpr uint32_t bank_of(uint64_t byte) { return uint32_t(byte / kBankBytes % kBanks); }

// The distinct granules (byte offset / granule) the active lanes touch, ascending:
// granule 32 gives the sectors of a request, 128 its lines, a DRAM burst its bursts.
std::vector<uint64_t> touched_granules(const trace::Record& r, uint32_t bytes_per_lane,
                                       uint32_t granule);

// Where the lanes of a request go, for drawing it: the bytes of each sector a global
// request touches and which lane asked for each, and the distinct words of a shared
// request with their bank and phase. Same rules as global_cost / shared_cost.
struct SectorBytes {
  uint64_t sector = 0;             // byte offset / 32
  std::array<int8_t, 32> lane{};   // per byte of the sector: the lowest lane reading it, or -1
};
std::vector<SectorBytes> sector_bytes(const trace::Record& r, uint32_t bytes_per_lane);
// The active lanes (bit per lane) whose bytes reach past the end of their array (a
// fault's lanes): offset + bytes > the array's size. An array of unknown size (0) has none.
uint32_t lanes_past_end(const trace::Trace& t, const trace::Record& r, uint32_t bytes_per_lane);

struct BankWord {
  uint32_t phase = 0;   // shared_phases() splits the warp into phases of 32, 16 or 8 lanes
  uint32_t bank = 0;    // word % 32
  uint64_t word = 0;    // byte offset / 4
  uint32_t lanes = 0;   // bit i: lane i touches this word (several lanes: a broadcast)
  uint32_t way = 0;     // distinct words in this bank in this phase (2+: a conflict)
};
// Sorted by phase, bank, word.
std::vector<BankWord> bank_words(const trace::Record& r, uint32_t bytes_per_lane);
// Lanes that read a word another lane of their phase also reads (a broadcast), from
// bank_words(): bit i set for lane i.
uint32_t broadcast_lanes(const std::vector<BankWord>& words);

// An ldmatrix / stmatrix (trace::Form::Matrix) as the hardware serves it: matrix m is the
// phase of lanes 8m..8m+7, each lane one 16-byte row, so each row covers 4 banks. The
// rows of one matrix whose banks meet are served one wavefront after another.
struct MatrixRow {
  uint32_t lane = 0;        // 8m + row
  bool active = false;
  uint64_t offset = 0;      // the row's first byte (Record::address)
  uint32_t first_bank = 0;  // the 4 banks it covers: first_bank .. first_bank + 3 (mod 32)
  uint32_t way = 0;         // the most distinct words in any bank it covers, in its matrix (1: alone)
  uint32_t shares = 0;      // bit r: row r of the same matrix covers one of its banks with another word
};
struct MatrixPhase {
  uint32_t matrix = 0;
  std::array<MatrixRow, 8> rows{};
  uint32_t wavefronts = 0;  // the worst way of its rows (0: no active row)
};
// The four matrices of a Matrix record, with the same counts as shared_cost(r, 16): the
// phases' wavefronts sum to its wavefronts.
std::vector<MatrixPhase> matrix_phases(const trace::Record& r);

// ---- the DRAM teaching model ----------------------------------------------------------

struct DramModel {
  std::string preset = "textbook";  // "textbook" | "hbm"
  uint32_t channels = 4;
  uint32_t banks = 2;               // per channel
  uint32_t burst_bytes = 8;         // interleave granule
  bool xor_hash = false;
  // channel = (addr / burst) mod C (xor-hashed when set), bank = (addr / (burst*C)) mod B
  // The hash, when set: channel ^= (addr / (burst*C*B)) mod C (added mod C instead when C
  // is not a power of two, so the channel stays in range).
  uint32_t channel(uint64_t addr) const;
  uint32_t bank(uint64_t addr) const;
  // One line for reports: `model "textbook": 4 channels x 2 banks, 8-byte interleave`.
  std::string describe() const;
};
// "textbook": 4 channels, 2 banks, 8-byte bursts; "hbm": many channels, coarse, hashed.
// Returns false for an unknown name.
bool dram_preset(const std::string& name, DramModel& out);
std::vector<std::string> dram_presets();

// ---- whole-trace statistics -------------------------------------------------------------

struct SiteStats {
  uint32_t site = 0;              // index into Trace::sites
  uint64_t requests = 0;
  uint64_t lane_accesses = 0;
  // global
  uint64_t sectors = 0, lines = 0, ideal_sectors = 0, bytes_requested = 0;
  double sectors_per_request = 0, ideal_sectors_per_request = 0, efficiency = 0;
  // shared
  uint64_t wavefronts = 0, ideal_wavefronts = 0, bank_conflicts = 0;
  uint32_t max_way = 0;
  double wavefronts_per_request = 0, conflicts_per_request = 0;
  std::string why;  // one plain-language line
  uint64_t example = ~uint64_t(0);  // index into Trace::records of the request `why` describes
};

struct ArrayEpochStats {
  uint32_t buffer = 0;
  uint32_t channels_used = 0;
  uint64_t requests = 0;                        // global requests to this array
  uint64_t bursts = 0;                          // sum of per_channel
  std::vector<uint64_t> per_channel;            // bursts per channel
  std::vector<std::vector<uint64_t>> per_bank;  // [channel][bank] bursts
};

struct EpochStats {
  uint32_t epoch = 0;
  std::vector<ArrayEpochStats> arrays;  // global arrays touched in this epoch, by buffer id
  // All sites together, in this epoch.
  uint64_t requests = 0, lane_accesses = 0;
  uint64_t sectors = 0, ideal_sectors = 0, bytes_requested = 0;       // global
  uint64_t wavefronts = 0, ideal_wavefronts = 0, bank_conflicts = 0;  // shared
};

struct Report {
  DramModel dram;
  std::vector<SiteStats> sites;    // in Trace::sites order
  std::vector<EpochStats> epochs;  // ascending epoch
  uint64_t records = 0;            // records analysed
  uint64_t skipped_records = 0;    // records naming a site the trace does not have
};

Report analyze(const trace::Trace& t, const DramModel& dram);

// A per-request figure as every report and lesson writes it: "4", "4.5", "12.25".
std::string figure_text(double v);

// A plain-language line for one request ("lanes are 4096 B apart → 32 sectors per
// request; ideal 4"); a bulk (TMA) copy's record says whose copy it is and which of its
// records ("one thread's bulk copy of 4096 bytes, record 1 of 8: its 32 pieces …").
std::string why(const trace::Trace& t, const trace::Record& r);

// The line for a whole site: the shape of `example` (one request of the site), the
// numbers of `s` (averages over all its requests). What analyze() writes in SiteStats::why,
// for statistics summed elsewhere (counts mode on a GPU).
std::string why_site(const trace::Trace& t, const trace::Record& example, const SiteStats& s);

// A site's averages (per request, efficiency) from its summed counts, and its line from
// `example`, one request of the site in `t` (none: a line saying it ran only outside the
// recorded blocks, or, without requests, that it did not run in them).
// What analyze() does once it has summed; counts mode on a GPU sums on the device.
void finish_site(const trace::Trace& t, const trace::Record* example, SiteStats& s);

// One array's DRAM spread in an epoch from its bursts per cell, [channel * banks + bank].
ArrayEpochStats array_spread(uint32_t buffer, uint64_t requests, const std::vector<uint64_t>& cells,
                             const DramModel& dram);

// One launch's report as a JSON object, an entry of the "launches" list that `warpscope
// report --format json` prints: the launch ("launch": launch index `launch` + 1, counted
// from 1 as requests are; kernel, params, grid, block), its sites (file, line, column,
// instruction, array and figures), epochs and counts. `t` is the launch's own trace
// (trace::launch_trace).
std::string report_json(const trace::Trace& t, const Report& rep, uint32_t launch = 0);
// The DRAM model as the report's "dram_model" object.
std::string dram_json(const DramModel& d);
// The report as the text table `warpscope report` prints.
std::string report_text(const trace::Trace& t, const Report& rep);

}  // namespace ws::analysis
