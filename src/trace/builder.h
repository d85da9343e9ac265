// src/trace/builder.h — the one way a backend fills a trace. The builder owns the tables a
// capture grows (arrays, shared arrays, sites, launches) and turns what a backend
// executed into warp-level records: either records the backend grouped already (one warp
// instruction of a lock-step interpreter, the GPU recorder's merged logs), or the lane
// streams of one warp between two barriers, grouped here by the SIMT rule of grouping.h.
// It also keeps the record cap, per launch: records past it are counted in their launch,
// never kept, so that a first kernel that fills its cap leaves the next one its own.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/trace.h"

namespace ws::trace {

// A site as the backend knows it from its own key: the trace's site and the array of
// the lanes that carry the key.
struct KeySite {
  uint32_t site = 0;
  uint32_t buffer = 0;
};

// A warp's record before the builder numbers and keeps it.
struct WarpAccess {
  uint32_t block = 0, warp = 0, epoch = 0, seq = 0;
  uint32_t site = 0;
  uint32_t active = 0;
  uint32_t buffer = 0;
  const LaneBuffers* lanes = nullptr;  // per-lane arrays when they differ; copied
  const uint32_t* offset = nullptr;    // 32 offsets
};

class Builder {
 public:
  // Fills `out`, which may already hold files and global arrays (a catalog trace's head).
  // Records of one launch past `max_records` (or every record when `keep` is false) are
  // counted as dropped in their launch.
  explicit Builder(Trace& out, uint64_t max_records = ~uint64_t(0), bool keep = true);

  Trace& trace() { return *t_; }

  // ---- tables
  uint32_t add_file(std::string name, std::string text);
  uint32_t add_buffer(Buffer b);
  // A shared array declared by the kernel (static, or the launch's dynamic shared memory).
  // `offset`: its first byte in the block's shared memory, where known.
  uint32_t add_shared(std::string name, uint32_t elem_bytes, uint64_t rows, uint64_t cols, uint64_t bytes,
                      uint64_t offset = ~uint64_t(0));
  // Starts a launch: later records belong to it. Returns its index.
  uint32_t begin_launch(Launch l);
  // The launch records go to now.
  Launch& launch() { return t_->launches.at(launch_); }
  uint32_t launch_index() const { return launch_; }

  // ---- sites
  // The index of site `s`, added at the end of Trace::sites the first time it is met (so
  // sites come in order of first execution). Its code is filled from its file when empty.
  uint32_t site(const Site& s);
  // A site that is an instruction of its own even where another has the same position and
  // text (two loads on one line that nvcc wrote alike): always added. Backends that know
  // their instructions (the PTX interpreter) keep their own index of what they added.
  uint32_t add_site(Site s);
  // A backend's own site keys: `resolve` is asked once for each key met for the first
  // time. Catalog backends use catalog_key_site().
  void set_key_resolver(std::function<KeySite(uint32_t key)> resolve) { resolve_ = std::move(resolve); }
  const KeySite& key_site(uint32_t key) {
    auto it = keys_.find(key);
    return it != keys_.end() ? it->second : keys_.emplace(key, resolve_(key)).first->second;
  }
  // The site of a catalog kernel's key (site_key.h): line, array, op, width and form from
  // the key; the file is file 0; the column is where the array is indexed on that line (the
  // first `name[` there), else the line's first character. The array's site keeps the
  // array as its buffer. An async copy's two halves are one call on one line: each half
  // is linked (Site::partner) to the other half of its line once both have been met.
  KeySite catalog_key_site(uint32_t key);
  // The event site (Trace::event_sites) of an event key (site_key.h), added the first time.
  uint32_t event_site(uint32_t key, uint32_t arg = 0);

  // ---- records
  // One record, as the backend grouped it. Returns false when it was dropped (cap).
  bool add(const WarpAccess& a);
  // One event of the current launch (an event key's warp-level instruction): `a` gives
  // its block, warp, epoch, seq and lanes (its site and offsets are not read). Kept while
  // the builder keeps records.
  void add_event(const WarpAccess& a, uint32_t key, uint32_t arg);
  // Counts `n` records that were executed but not kept.
  void drop(uint64_t n) { launch().dropped_records += n; }
  // Whether the next record would be kept (the current launch is under its cap).
  // Records of the current launch so far (an event's place among them: Event::at).
  uint64_t launch_records() const { return t_->records.size() - launch_first_; }
  bool room() const { return keep_ && t_->records.size() - launch_first_ < max_records_; }
  // Records the current launch may still keep.
  uint64_t room_left() const { return room() ? max_records_ - launch_records() : 0; }
  // The current launch keeps at most `n` records from now on (a worker's builder that
  // learns that the launch's cap is reached).
  void cap(uint64_t n) { max_records_ = n; }
  // A record made by another builder, in the current launch: kept (moved) while there is
  // room, else counted. Returns whether it was kept.
  bool add(Record&& r);

  // One warp's lane streams between two barriers (or the warp's end), grouped into
  // records: lane l executed entries [first[l], end[l]), each (key << 32 | offset), keys
  // resolved by key_site(). `seq` numbers the warp's records and advances. Returns the
  // lane accesses grouped. Entries of event keys become Trace::events (numbered on the same
  // seq), not records, and are not counted as accesses.
  uint64_t group(const uint64_t* const* first, const uint64_t* const* end, int nlanes, uint32_t block,
                 uint32_t warp, uint32_t epoch, uint32_t& seq);

  // A block of the current launch was recorded.
  void block_done(uint32_t block) { launch().blocks.push_back(block); }
  // Room for `n` more records (at most up to the cap), so that a backend that can tell
  // how many are coming spares the trace's growth.
  void expect(uint64_t n) {
    if (keep_) t_->records.reserve(size_t(launch_first_ + std::min<uint64_t>(max_records_, t_->records.size() - launch_first_ + n)));
  }

 private:
  struct SiteKey {
    uint32_t file, line, column, buffer;
    uint8_t space, op, bytes, form;
    std::string instruction;
    bool operator==(const SiteKey&) const = default;
  };
  struct SiteKeyHash {
    size_t operator()(const SiteKey& k) const;
  };
  Trace* t_;
  uint64_t max_records_;
  bool keep_;
  uint32_t launch_ = 0;
  size_t launch_first_ = 0;  // the current launch's first record (the cap counts from it)
  std::unordered_map<SiteKey, uint32_t, SiteKeyHash> sites_;
  std::unordered_map<uint32_t, KeySite> keys_;
  std::unordered_map<uint32_t, uint32_t> event_keys_;  // event key -> event site
  std::function<KeySite(uint32_t)> resolve_;
};

// The column (1-based) where `array` is indexed on line `line` of `text` (`array[` as a
// whole name), else of the line's first non-blank character; 0 for an empty line.
uint32_t index_column(const std::string& text, uint32_t line, const std::string& array);

}  // namespace ws::trace
