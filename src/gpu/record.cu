// src/gpu/record.cu — instrumented recording on the GPU: the catalog instantiated with
// RecordCtx, and the host side that turns the device's records into the emulator's trace.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "gpu/launch.cuh"
#include "trace/builder.h"
#include "trace/grouping.h"
#include "trace_header.h"

namespace ws::gpu {
namespace detail {
namespace {

// ---- the merge: logs to records ---------------------------------------------------------

constexpr uint32_t kRing = 128;   // log entries a lane keeps in shared memory (a ring)
constexpr uint32_t kGroup = 16;   // entries fetched together, asynchronously
constexpr uint32_t kBatch = 8;    // rounds the fast path looks at together

// The warp's record slots, taken from the global cursor in chunks that double in size
// (32 up to 1024), so that one atomic serves many records and few slots go unused.
struct Chunk {
  unsigned long long next = 0, end = 0;
  uint32_t size = abi::kRecordChunk;
  // `m` consecutive slots; every lane gets the same answer.
  __device__ unsigned long long take(uint32_t m, unsigned all, uint32_t lane, uint32_t leader) {
    const abi::RecordState& st = g_record_state;
    if (end - next < m) {
      if (lane == leader)  // the old chunk's rest stays unused
        for (unsigned long long r = next; r < end && r < st.capacity; ++r) st.records[r].key = abi::kEmptyKey;
      const uint32_t want = max(size, m);
      unsigned long long got = 0;
      if (lane == leader) got = atomicAdd(st.cursor, (unsigned long long)want);
      next = __shfl_sync(all, got, leader);
      end = next + want;
      size = min(size * 2u, 1024u);
    }
    const unsigned long long r = next;
    next += m;
    return r;
  }
};

// The lanes of a record that are accesses: at an ldmatrix, not those that bring no row
// (trace::kNoRow). Every lane of `all` calls it; `key` is the record's, the same in all.
__device__ __forceinline__ unsigned with_rows(unsigned all, unsigned group, uint32_t key, uint32_t off,
                                              uint32_t lane) {
  if (trace::key_form(key) != trace::kMatrixForm) return group;
  return group & ~__ballot_sync(all, ((group >> lane) & 1u) && off == trace::kNoRow);
}

// One record: the header by the leader (three 8-byte stores), an offset by each lane.
__device__ __forceinline__ void write_record(unsigned long long r, uint32_t key, uint32_t block, uint32_t warp,
                                             uint32_t seq, uint32_t epoch, unsigned group, uint32_t lane,
                                             uint32_t leader, uint32_t off) {
  const abi::RecordState& st = g_record_state;
  if (r < st.capacity) {
    abi::Record& rec = st.records[r];
    if (lane == leader) {
      uint2* h = reinterpret_cast<uint2*>(&rec);
      h[0] = make_uint2(key, block);
      h[1] = make_uint2(warp, seq);
      h[2] = make_uint2(epoch, group);
    }
    if ((group >> lane) & 1u) rec.offset[lane] = off;
  } else if (lane == leader) {
    atomicAdd(st.dropped_lanes, (unsigned long long)__popc(group));
    for (uint32_t h = abi::key_hash(key), n = 0; n < abi::kSiteSlots; ++n, h = (h + 1) % abi::kSiteSlots) {
      uint32_t old = atomicCAS(&st.dropped_keys[h], abi::kEmptyKey, key);
      if (old == abi::kEmptyKey || old == key) break;
    }
  }
}

// The leader of a round: the lowest pending lane, or, when that lane is at a warp-collective
// instruction, the lowest pending lane not there yet (grouping.h).
__device__ __forceinline__ uint32_t round_leader(unsigned all, unsigned pending, uint32_t key, bool waiting) {
  const uint32_t leader = trace::group_leader(pending);
  if (!trace::key_is_collective(__shfl_sync(all, key, leader))) return leader;
  return trace::collective_leader(pending, __ballot_sync(all, waiting && !trace::key_is_collective(key)));
}

// One warp per recorded warp (block = 32 threads; blockIdx.x = slot * warps + warp).
// Lane l replays thread warp * 32 + l. Each round, every lane shows its next entry; the
// lowest lane waiting at an access leads, and the lanes waiting at the leader's site make
// one record and move on. When no lane waits, the lanes at a barrier pass it (their epoch
// advances) and the others are at the end. A lane whose log was cut short (the log was
// full) stops the warp: everything the warp's lanes did from there is reported dropped.
// Fast path: when the next rounds find every lane at the same site (a converged warp),
// up to kBatch of them are decided together, with no round waiting for the one before.
__global__ void __launch_bounds__(32) merge_logs(uint32_t threads, uint32_t warps) {
  const abi::RecordState& st = g_record_state;
  __shared__ __align__(16) unsigned long long ring[kRing][abi::kWarp];
  const uint32_t slot = blockIdx.x / warps, warp = blockIdx.x % warps, lane = threadIdx.x;
  if (slot >= min(*st.log_cursor, st.log_blocks) || !((st.warp_bits >> (warp & 31)) & 1u)) return;
  const uint32_t first = warp * abi::kWarp;
  const unsigned all = threads - first >= abi::kWarp ? 0xffffffffu : (1u << (threads - first)) - 1u;
  if (!((all >> lane) & 1u)) return;
  const uint32_t lead0 = instr::leader_of(all);
  const uint32_t block = st.log_block[slot], t = first + lane;
  const uint32_t* count = &st.log_count[2 * (uint64_t(slot) * threads + t)];
  const uint32_t made = count[0], barriers = count[1];
  const uint32_t kept = min(made, st.log_cap);
  const unsigned long long* log = st.log + uint64_t(slot) * st.log_cap * threads + t;

  uint32_t pos = 0, fetched = 0, epoch = 0, merged = 0, seq = 0;
  bool cut = false;
  Chunk chunk;
  // The log streams into the ring ahead of the meeting (cp.async: no registers, no wait
  // until an entry is needed): groups of kGroup entries, as far ahead as the ring holds.
  auto fetch = [&] {
    while (fetched < kept && fetched + kGroup <= pos + kRing) {
#pragma unroll
      for (uint32_t g = 0; g < kGroup; ++g) {
        const uint32_t p = fetched + g;
        if (p < kept) {
          const uint32_t dst = uint32_t(__cvta_generic_to_shared(&ring[p & (kRing - 1)][lane]));
          asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(dst), "l"(log + uint64_t(p) * threads)
                       : "memory");
        }
      }
      asm volatile("cp.async.commit_group;" ::: "memory");
      fetched += kGroup;
    }
  };
  // Entries before `last` have landed once the groups issued after theirs are all that
  // may still be pending.
  auto land = [&](uint32_t last) {
    if (last == 0) return;
    const uint32_t after = (fetched - ((last - 1) / kGroup + 1) * kGroup) / kGroup;
    switch (after) {
      case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
      case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
      case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
      case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
      case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
      case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
      case 6: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
      default: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;
    }
  };
  static_assert(kRing / kGroup == 8, "land() waits for at most 7 later groups");
  // The entry at p (landed, or past the log): key and offset.
  auto entry = [&](uint32_t p, uint32_t& key, uint32_t& off) {
    if (p < kept) {
      const unsigned long long e = ring[p & (kRing - 1)][lane];
      key = uint32_t(e >> 32);
      off = uint32_t(e);
    } else {
      key = p < made ? abi::kEmptyKey : kDone;  // kEmptyKey here: the log ran out early
      off = 0;
    }
  };
  for (;;) {
    fetch();
    land(min(pos + kBatch, kept));
    // Fast path: the leading rounds in which every lane waits at one and the same site.
    uint32_t keys[kBatch], offs[kBatch], m = 0;
    bool run = true;
#pragma unroll
    for (uint32_t i = 0; i < kBatch; ++i) {
      entry(pos + i, keys[i], offs[i]);
      const uint32_t k0 = __shfl_sync(all, keys[i], lead0);
      run = run && __all_sync(all, keys[i] < abi::kBarrierKey && keys[i] == k0);
      m += run ? 1u : 0u;
    }
    if (m) {
      const unsigned long long r = chunk.take(m, all, lane, lead0);
      const uint32_t lead_epoch = __shfl_sync(all, epoch, lead0);
#pragma unroll
      for (uint32_t i = 0; i < kBatch; ++i)
        if (i < m) write_record(r + i, keys[i], block, warp, seq + i, lead_epoch, with_rows(all, all, keys[i], offs[i], lane), lane, lead0, offs[i]);
      seq += m;
      pos += m;
      merged += m;
      continue;
    }
    // One round of the meeting.
    const uint32_t key = keys[0], off = offs[0];
    if (__any_sync(all, key == abi::kEmptyKey)) {
      cut = true;
      break;
    }
    const bool waiting = key < abi::kBarrierKey;
    const unsigned pending = __ballot_sync(all, waiting);
    if (!pending) {
      const bool at_barrier = key == abi::kBarrierKey;
      if (!__any_sync(all, at_barrier)) break;
      if (at_barrier) ++pos, ++epoch;
      continue;
    }
    const uint32_t leader = round_leader(all, pending, key, waiting);
    const uint32_t lead_key = __shfl_sync(all, key, leader);
    const uint32_t lead_epoch = __shfl_sync(all, epoch, leader);
    const unsigned group = trace::group_lanes(pending, __ballot_sync(all, key == lead_key));
    const unsigned long long r = chunk.take(1, all, lane, leader);
    write_record(r, key, block, warp, seq++, lead_epoch, with_rows(all, group, lead_key, off, lane), lane, leader, off);
    if ((group >> lane) & 1u) ++pos, ++merged;
  }
  // A cut warp's accesses that did not become records are dropped; as records, at least
  // one per full warp's worth of them.
  const uint32_t accesses = made - barriers, lost = cut && accesses > merged ? accesses - merged : 0u;
  if (lost) atomicAdd(st.dropped_lanes, (unsigned long long)lost);
  const uint32_t lost_all = __reduce_add_sync(all, lost);
  if (lane == lead0) {
    for (unsigned long long r = chunk.next; r < chunk.end && r < st.capacity; ++r) st.records[r].key = abi::kEmptyKey;
    const uint32_t lanes = uint32_t(__popc(all));
    atomicAdd(st.total, (unsigned long long)seq + (lost_all + lanes - 1u) / lanes);
  }
}

constexpr uint64_t kInitialRecords = uint64_t(1) << 20;  // 152 MiB; grown once if a capture needs more
constexpr uint64_t kInitialLogEntries = 4096;             // per thread; grown once if a capture needs more
constexpr uint64_t kInitialLogBytes = uint64_t(1) << 30;  // the first run's logs hold at most this

// The small per-launch state the device writes besides the records.
struct Control {
  unsigned long long cursor;
  unsigned long long total;
  unsigned long long dropped_lanes;
  uint32_t log_cursor;
  uint32_t log_max;
  uint32_t dropped_keys[abi::kSiteSlots];
  abi::Fault fault;
  abi::SharedDesc shared[abi::kMaxShared];
};

class RecordLauncher {
 public:
  // `out` null: timing only (nothing is copied back).
  RecordLauncher(const catalog::KernelInfo& k, DeviceArrays& a, const CaptureOptions& opt, trace::Trace* out)
      : k_(k), a_(a), opt_(opt), out_(out), control_(sizeof(Control), "the recorder's counters"),
        split_(!opt.one_launch), listed_(opt.blocks) {
    std::sort(listed_.begin(), listed_.end());
    listed_.erase(std::unique(listed_.begin(), listed_.end()), listed_.end());
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

  ~RecordLauncher() {
    if (side_) cudaStreamDestroy(side_);
    if (fork_) cudaEventDestroy(fork_);
    if (join_) cudaEventDestroy(join_);
    for (auto e : phase_)
      if (e) cudaEventDestroy(e);
  }

  // Two plans for a launch with a block filter:
  //   split     the recorded blocks in the record kernel (launched first: they take
  //             longest; each asks for a whole SM's shared memory so that no other block
  //             shares its SM), every other block in the plain kernel on a second stream
  //             beside it; the merge starts when both are done;
  //   combined  one launch of the record kernel that also holds the plain instantiation.
  // A capture uses split. A launcher that is only timed (a benchmark) times both on its
  // first run and keeps the faster.
  template <class Op, class Args>
  void launch(dim3 grid, dim3 block, uint32_t dyn_bytes, const Args& args) {
    if constexpr (instrumented_launch_refused<Op>())
      throw clusters_refused(k_.id, "record");
    else
      launch_recorded<Op>(grid, block, dyn_bytes, args);
  }

  uint64_t lane_accesses = 0;

 private:
  template <class Op, class Args>
  void launch_recorded(dim3 grid, dim3 block, uint32_t dyn_bytes, const Args& args) {
    check_target<Op>(k_.id);
    auto kernel = entry<Op, RecordCtx, Args>(block);
    allow_dynamic_shared(reinterpret_cast<const void*>(kernel), dyn_bytes, k_.id);
    auto split = [&] {
      cudaStream_t main = cudaStream_t(stream());
      if (!block_bits_ || opt_.blocks.empty()) {
        kernel<<<grid, block, dyn_bytes, main>>>(args);
        check(cudaGetLastError(), "launching " + k_.id + " (record mode)");
        merge(block);
        return;
      }
      const uint32_t reserve = whole_sm(reinterpret_cast<const void*>(kernel));
      side_stream();
      check(cudaEventRecord(fork_, main), "starting the record launches");
      check(cudaStreamWaitEvent(side_, fork_, 0), "starting the record launches");
      kernel<<<grid, block, std::max(dyn_bytes, reserve), main>>>(args);
      check(cudaGetLastError(), "launching " + k_.id + " (record mode)");
      const uint32_t* skip = static_cast<const uint32_t*>(block_bits_->get());
      flat::apply(
          [&](const auto&... f) {
            auto plain = skip_entry<Op, Args, typename flat::Param<std::decay_t<decltype(f)>>::type...>();
            allow_dynamic_shared(reinterpret_cast<const void*>(plain), dyn_bytes, k_.id);
            plain<<<grid, block, dyn_bytes, side_>>>(skip, state_.block_lo, state_.block_n,
                                                     flat::Param<std::decay_t<decltype(f)>>::pass(f)...);
          },
          args);
      check(cudaGetLastError(), "launching " + k_.id + " (the blocks not recorded)");
      check(cudaEventRecord(join_, side_), "joining the record launches");
      // The merge needs only the recorded blocks: it runs while the plain kernel finishes.
      static const bool phases = std::getenv("WS_RECORD_PHASES") != nullptr;  // diagnostics
      if (phases) check(cudaEventRecord(phase_[0], main), "timing the record phases");
      merge(block);
      if (phases) {
        check(cudaEventRecord(phase_[1], main), "timing the record phases");
        float a = 0, b = 0;
        check(cudaEventSynchronize(phase_[1]), "timing the record phases");
        cudaEventElapsedTime(&a, fork_, phase_[0]);
        cudaEventElapsedTime(&b, phase_[0], phase_[1]);
        std::fprintf(stderr, "record phases %s: record kernel %.3f ms, merge %.3f ms (log %u entries a thread)\n",
                     k_.id.c_str(), a, b, log_cap_);
      }
      check(cudaStreamWaitEvent(main, join_, 0), "joining the record launches");
    };
    auto combined = [&] {
      auto mixed = entry<Op, RecordMixedCtx, Args>(block);
      allow_dynamic_shared(reinterpret_cast<const void*>(mixed), dyn_bytes, k_.id);
      mixed<<<grid, block, dyn_bytes, cudaStream_t(stream())>>>(args);
      check(cudaGetLastError(), "launching " + k_.id + " (record mode)");
      merge(block);
    };
    run([&](bool use_split) { use_split ? split() : combined(); }, grid, block, dyn_bytes);
  }

  // The kernel, then the merge. The first run of a launcher that is only timed (out_ null)
  // sizes the buffers as a capture would, so that later runs time a complete recording,
  // and picks the faster plan.
  template <class F>
  void run(const F& go, dim3 grid, dim3 block, uint32_t dyn_bytes) {
    auto both = [&](bool use_split) {
      prepare(grid, block, dyn_bytes);
      go(use_split);  // the kernel(s) and the merge
      check(cudaGetLastError(), "recording " + k_.id);
    };
    both(split_);
    if (out_ || !sized_) {
      sync(k_.id + " (record mode)");
      for (int again = 0; again < 2 && grow(); ++again) {  // too small a buffer: once more, larger
        both(split_);
        sync(k_.id + " (record mode)");
      }
      sized_ = true;
      if (!out_ && !opt_.blocks.empty()) {  // timed only: the faster plan from here on
        float ms[2] = {0, 0};
        cudaEvent_t e[2];
        check(cudaEventCreate(&e[0]), "creating an event");
        check(cudaEventCreate(&e[1]), "creating an event");
        for (int plan = 0; plan < 2; ++plan) {
          both(plan == 0);  // warm
          check(cudaEventRecord(e[0], cudaStream_t(stream())), "recording a timing event");
          both(plan == 0);
          check(cudaEventRecord(e[1], cudaStream_t(stream())), "recording a timing event");
          check(cudaEventSynchronize(e[1]), "timing the record plans");
          check(cudaEventElapsedTime(&ms[plan], e[0], e[1]), "timing the record plans");
        }
        cudaEventDestroy(e[0]);
        cudaEventDestroy(e[1]);
        split_ = ms[0] <= ms[1];
        if (std::getenv("WS_RECORD_PLANS"))  // diagnostics
          std::fprintf(stderr, "record plans %s: split %.3f ms, combined %.3f ms\n", k_.id.c_str(), ms[0], ms[1]);
      }
    }
    if (out_) collect(grid, block, dyn_bytes);
  }
  // Dynamic shared memory that makes a block of `kernel` fill an SM's shared memory (so
  // that no other block runs beside it), allowed for the kernel; 0 if it cannot be had.
  static uint32_t whole_sm(const void* kernel) {
    static std::mutex m;
    static std::map<const void*, uint32_t> known;
    uint32_t r = 0;
    {
      std::lock_guard<std::mutex> lock(m);
      auto it = known.find(kernel);
      if (it == known.end()) {
        cudaFuncAttributes attr{};
        int dev = 0, optin = 0;
        if (cudaFuncGetAttributes(&attr, kernel) == cudaSuccess && cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess &&
            optin > int(attr.sharedSizeBytes))
          r = uint32_t(optin - int(attr.sharedSizeBytes));
        cudaGetLastError();
        it = known.emplace(kernel, r).first;
      }
      r = it->second;
    }
    // A refusal only means no reservation.
    return r && raise_dynamic_shared(kernel, r) == cudaSuccess ? r : 0;
  }
  void side_stream() {
    if (side_) return;
    check(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking), "creating a stream");
    check(cudaEventCreate(&fork_), "creating an event");  // timed: the start of the phases
    check(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming), "creating an event");
    for (auto& e : phase_) check(cudaEventCreate(&e), "creating an event");
  }
  void merge(dim3 block) {
    const uint32_t threads = block.x * block.y * block.z, warps = (threads + abi::kWarp - 1) / abi::kWarp;
    const uint64_t n = uint64_t(log_blocks_) * warps;
    if (!n) return;
    if (n > 0x7fffffffull) throw Error("record mode: too many warps to record at once; use --blocks");
    merge_logs<<<unsigned(n), abi::kWarp, 0, cudaStream_t(stream())>>>(threads, warps);
    check(cudaGetLastError(), "merging the recorded logs of " + k_.id);
  }
  uint64_t remaining() const {
    if (!opt_.keep_records) return 0;
    uint64_t have = out_ ? out_->records.size() : 0;
    return opt_.max_records > have ? opt_.max_records - have : 0;
  }

  void prepare(dim3 grid, dim3 block, uint32_t dyn_bytes) {
    const uint64_t nblocks = uint64_t(grid.x) * grid.y * grid.z;
    if (!records_) {  // every record that fits is kept; the host truncates to max_records in order
      uint64_t cap = remaining() ? kInitialRecords : 0;
      records_ = std::make_unique<DeviceMemory>(std::max<uint64_t>(cap, 1) * sizeof(abi::Record), "the record buffer");
      capacity_ = cap;
    }
    if (threads_ != uint64_t(block.x) * block.y * block.z || grid_blocks_ != nblocks) log_.reset();
    threads_ = uint64_t(block.x) * block.y * block.z;
    grid_blocks_ = nblocks;
    if (!log_) {  // one log slot per recorded block
      log_blocks_ = uint32_t(std::min<uint64_t>(listed_.empty() ? nblocks : listed_.size(), 0xffffffffu));
      const uint64_t per_entry = std::max<uint64_t>(uint64_t(log_blocks_) * threads_ * 8, 1);
      log_cap_ = uint32_t(std::clamp<uint64_t>(kInitialLogBytes / per_entry, 1, kInitialLogEntries));
      alloc_logs();
    }
    abi::RecordState st{};
    st.warp_bits = 0xffffffffu;
    auto* ctl = static_cast<Control*>(control_.get());
    st.info = launch_info(a_, dyn_bytes, ctl->shared, &ctl->fault);
    st.records = static_cast<abi::Record*>(records_->get());
    st.capacity = capacity_;
    st.cursor = &ctl->cursor;
    st.total = &ctl->total;
    st.dropped_keys = ctl->dropped_keys;
    st.dropped_lanes = &ctl->dropped_lanes;
    st.log = static_cast<unsigned long long*>(log_->get());
    st.log_cap = log_cap_;
    st.log_blocks = log_blocks_;
    st.log_cursor = &ctl->log_cursor;
    st.log_max = &ctl->log_max;
    st.log_block = static_cast<uint32_t*>(log_block_->get());
    st.log_count = static_cast<uint32_t*>(log_count_->get());
    if (!opt_.blocks.empty()) {
      std::vector<uint32_t> bits((nblocks + 31) / 32, 0);
      for (uint32_t b : opt_.blocks) {
        if (b >= nblocks)
          throw std::invalid_argument("block " + std::to_string(b) + " is outside the grid of " +
                                      std::to_string(nblocks) + " blocks");
        bits[b >> 5] |= 1u << (b & 31);
      }
      if (bits != bits_) {
        if (!block_bits_ || block_bits_->bytes() < bits.size() * 4)
          block_bits_ = std::make_unique<DeviceMemory>(bits.size() * 4, "the block filter");
        check(cudaMemcpy(block_bits_->get(), bits.data(), bits.size() * 4, cudaMemcpyHostToDevice),
              "uploading the block filter");
        bits_ = bits;
      }
      st.block_bits = static_cast<const uint32_t*>(block_bits_->get());
      if (listed_.back() - listed_.front() + 1 == listed_.size()) {
        st.block_lo = listed_.front();
        st.block_n = uint32_t(listed_.size());
      }
    }
    if (!opt_.warps.empty()) {
      st.warp_bits = 0;
      for (uint32_t w : opt_.warps)
        if (w < 32) st.warp_bits |= 1u << w;
    }
    // Asynchronous resets, and the constant state only when it changed: a timed run pays
    // for the recording, not for the set-up.
    check(cudaMemsetAsync(ctl, 0, sizeof(Control), cudaStream_t(stream())), "resetting the recorder");
    check(cudaMemsetAsync(ctl->dropped_keys, 0xff, sizeof ctl->dropped_keys, cudaStream_t(stream())),
          "resetting the recorder");
    if (!state_set_ || std::memcmp(&st, &state_, sizeof st) != 0) {
      check(cudaMemcpyToSymbol(g_record_state, &st, sizeof st), "setting up the recorder");
      state_ = st;
      state_set_ = true;
    }
  }

  void alloc_logs() {
    log_.reset();
    log_ = std::make_unique<DeviceMemory>(std::max<uint64_t>(uint64_t(log_blocks_) * threads_ * log_cap_ * 8, 8),
                                          "the recording logs");
    if (!log_block_ || log_block_->bytes() < uint64_t(log_blocks_) * 4)
      log_block_ = std::make_unique<DeviceMemory>(std::max<uint64_t>(uint64_t(log_blocks_) * 4, 4), "the log table");
    if (!log_count_ || log_count_->bytes() < uint64_t(log_blocks_) * threads_ * 8)
      log_count_ =
          std::make_unique<DeviceMemory>(std::max<uint64_t>(uint64_t(log_blocks_) * threads_ * 8, 8), "the log table");
  }
  // After a run: whether a log or the record buffer was too small for what the caller
  // wants, and a larger one fits in device memory (then the run is repeated).
  bool grow() {
    Control ctl;
    check(cudaMemcpy(&ctl, control_.get(), sizeof ctl, cudaMemcpyDeviceToHost), "reading the record count");
    size_t free_b = 0, total = 0;
    check(cudaMemGetInfo(&free_b, &total), "reading free device memory");
    const uint64_t margin = uint64_t(512) << 20;
    bool again = false;
    if (ctl.log_max > log_cap_) {  // a thread made more accesses than its log held
      const uint64_t have = log_->bytes(), need = uint64_t(log_blocks_) * threads_ * ctl.log_max * 8;
      if (need + margin <= free_b + have) {
        log_cap_ = ctl.log_max;
        alloc_logs();
        again = true;
      }
    }
    const uint64_t want = ctl.cursor;  // slots, holes of unfinished chunks included
    if (remaining() && (want > capacity_ || (again && capacity_ < kInitialRecords))) {
      // With a larger log the next run makes more records than this one counted: room for
      // what the log sizes imply, at most what fits.
      uint64_t slots = std::max<uint64_t>(want, capacity_);
      if (again) slots = std::max<uint64_t>(slots, uint64_t(log_blocks_) * threads_ * log_cap_ / abi::kWarp + 1024);
      size_t f2 = 0;
      check(cudaMemGetInfo(&f2, &total), "reading free device memory");
      const uint64_t have = records_->bytes();
      const uint64_t fit = f2 + have > margin ? (f2 + have - margin) / sizeof(abi::Record) : 0;
      slots = std::min(slots, fit);
      if (slots > capacity_) {
        records_.reset();
        records_ = std::make_unique<DeviceMemory>(slots * sizeof(abi::Record), "the record buffer");
        capacity_ = slots;
        again = true;
      }
    }
    return again;
  }
  void collect(dim3 grid, dim3 block, uint32_t dyn_bytes) {
    trace::Trace& out = *out_;
    Control ctl;
    check(cudaMemcpy(&ctl, control_.get(), sizeof ctl, cudaMemcpyDeviceToHost), "reading the recorder's counters");
    // The records already kept (an entry that launches more than once) count against the cap.
    trace::Builder b(out, opt_.keep_records ? opt_.max_records : 0);
    out.launch().grid = dim(grid);
    out.launch().block = dim(block);
    out.launch().dynamic_shared_bytes = dyn_bytes;
    if (ctl.fault.flag) throw Error(fault_text(ctl.fault, out.buffers));
    add_shared_buffers(ctl.shared, b);

    const uint64_t slots = std::min<uint64_t>(ctl.cursor, state_.capacity);
    std::vector<abi::Record> dev(slots);
    if (slots)
      check(cudaMemcpy(dev.data(), records_->get(), slots * sizeof(abi::Record), cudaMemcpyDeviceToHost),
            "copying the records back");
    dev.erase(std::remove_if(dev.begin(), dev.end(), [](const abi::Record& r) { return r.key == abi::kEmptyKey; }),
              dev.end());
    const uint64_t kept = dev.size();

    // The emulator's order: blocks as listed, then epoch, warp, sequence.
    const uint64_t nblocks = uint64_t(grid.x) * grid.y * grid.z;
    std::vector<uint32_t> rank;
    if (!opt_.blocks.empty()) {
      rank.assign(nblocks, 0);
      for (size_t i = 0; i < opt_.blocks.size(); ++i) rank[opt_.blocks[i]] = uint32_t(i);
    }
    auto block_rank = [&](uint32_t b) { return rank.empty() ? b : rank[b]; };
    std::vector<uint32_t> order(kept);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      const abi::Record &a = dev[x], &b = dev[y];
      uint32_t ra = block_rank(a.block), rb = block_rank(b.block);
      if (ra != rb) return ra < rb;
      if (a.epoch != b.epoch) return a.epoch < b.epoch;
      if (a.warp != b.warp) return a.warp < b.warp;
      return a.seq < b.seq;
    });

    // Every site in order of first execution, then the first max_records records kept, as
    // the emulator does: the device grouped the lanes (merge_logs, by grouping.h's rule),
    // the builder numbers the sites and keeps the records.
    const uint64_t room = remaining();
    out.records.reserve(out.records.size() + std::min(kept, room));
    uint64_t lanes = ctl.dropped_lanes, taken = 0, events = 0;
    for (uint32_t i : order) {
      const abi::Record& d = dev[i];
      if (trace::key_is_event(d.key)) {  // an mma, commit or wait: an event, not a record
        trace::WarpAccess e;
        e.block = d.block;
        e.warp = d.warp;
        e.seq = d.seq;
        e.epoch = d.epoch;
        e.active = d.active;
        b.add_event(e, d.key, d.offset[__builtin_ctz(d.active | 0x80000000u)]);
        ++events;
        continue;
      }
      lanes += uint64_t(__builtin_popcount(d.active));
      const trace::KeySite& ks = b.key_site(d.key);
      if (taken == room) continue;
      ++taken;
      uint32_t off[trace::kWarpSize];
      for (int l = 0; l < trace::kWarpSize; ++l) off[l] = (d.active >> l) & 1u ? d.offset[l] : 0u;
      trace::WarpAccess a;
      a.block = d.block;
      a.warp = d.warp;
      a.seq = d.seq;
      a.epoch = d.epoch;
      a.site = ks.site;
      a.active = d.active;
      a.buffer = ks.buffer;
      a.offset = off;
      b.add(a);
    }
    std::vector<uint32_t> dropped_keys;
    for (uint32_t key : ctl.dropped_keys)
      if (key != abi::kEmptyKey) dropped_keys.push_back(key);
    std::sort(dropped_keys.begin(), dropped_keys.end());
    for (uint32_t key : dropped_keys) b.key_site(key);
    b.drop(ctl.total - taken - std::min<uint64_t>(events, ctl.total - taken));
    if (opt_.blocks.empty()) {
      for (uint64_t blk = 0; blk < nblocks; ++blk) b.block_done(uint32_t(blk));
    } else {
      for (uint32_t blk : opt_.blocks) b.block_done(blk);
    }
    lane_accesses += lanes;
  }

  const catalog::KernelInfo& k_;
  DeviceArrays& a_;
  const CaptureOptions opt_;  // a copy: a runner outlives the options it was made with
  trace::Trace* out_;
  DeviceMemory control_;
  std::unique_ptr<DeviceMemory> records_, block_bits_, log_, log_block_, log_count_;
  uint64_t capacity_ = 0, threads_ = 0, grid_blocks_ = 0;
  uint32_t log_blocks_ = 0, log_cap_ = 0;
  bool sized_ = false, split_ = true;  // set in the constructor from the options
  cudaStream_t side_ = nullptr;
  cudaEvent_t fork_ = nullptr, join_ = nullptr, phase_[2] = {nullptr, nullptr};
  abi::RecordState state_{};
  bool state_set_ = false;
  std::vector<uint32_t> bits_;
  std::vector<uint32_t> listed_;  // the blocks to record, sorted, each once
};

}  // namespace

std::unique_ptr<Runner> record_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a,
                                      const CaptureOptions& opt) {
  return std::make_unique<CatalogRunner<RecordLauncher>>(k, p, a, opt, nullptr);
}

void start_trace(const catalog::KernelInfo& k, const catalog::Params& p, trace::Trace& out) {
  out = catalog::trace_header(k, p, "gpu", device_name());
  if (out.buffers.size() > abi::kMaxGlobals)
    throw Error(k.id + " has " + std::to_string(out.buffers.size()) + " arrays; the GPU recorder handles " +
                std::to_string(abi::kMaxGlobals));
}

}  // namespace detail

uint64_t record(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
                const CaptureOptions& opt, trace::Trace& out) {
  using namespace detail;
  require_device();
  auto run = find_run<RecordLauncher>(k.id);
  if (!run) throw std::invalid_argument("no GPU entry for kernel " + k.id);
  start_trace(k, p, out);
  DeviceArrays dev(k, p);
  dev.upload(arrays);
  RecordLauncher l(k, dev, opt, &out);
  run(l, p);
  dev.download_outputs(arrays);
  return l.lane_accesses;
}

}  // namespace ws::gpu
