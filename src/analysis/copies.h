// src/analysis/copies.h — copies into shared memory followed through the trace: an async
// copy's two halves paired (cp.async's global read and its landed shared write), each
// shared element's source column (where in its global row the value came from, which
// shows a swizzled tile's layout), and the instructions that move no memory (mma, commit,
// wait) placed among the requests. Depends on trace only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace ws::analysis {

constexpr uint64_t kNoRecord = ~uint64_t(0);

// A shared array's elements as copies filled them.
struct SourceColumns {
  uint32_t buffer = 0;              // the shared array
  uint32_t from = 0;                // the global array its first copied element came from
  uint32_t elem_bytes = 1;          // the shared array's element, as `column` counts them
  uint32_t from_elem_bytes = 1;     // the global array's, as the columns count them
  std::vector<int32_t> column;      // per element: the global column copied into it first, -1: none
  std::vector<uint64_t> written_at; // per element: the record that first copied into it, kNoRecord: none
};

// An event placed among a launch's requests.
struct EventMark {
  uint32_t event = 0;           // index into Trace::events
  uint64_t before = kNoRecord;  // the first record of its warp after it (kNoRecord: none)
  uint64_t after = kNoRecord;   // the last record of its warp before it (kNoRecord: none)
  // The record the timeline marks it at: `before`, else `after`.
  uint64_t step() const { return before != kNoRecord ? before : after; }
  // Its place among every warp's records (the first record made after it, Event::at),
  // where the trace keeps it; else step(). A warp that makes no record for a while (a
  // consumer warpgroup running its wgmmas) is still placed in time.
  uint64_t placed = kNoRecord;
  uint64_t when() const { return placed != kNoRecord ? placed : step(); }
};

struct Copies {
  // (write record, read record) of every async or bulk copy whose read was recorded, by write.
  std::vector<std::pair<uint64_t, uint64_t>> async_pairs;
  std::vector<std::pair<uint64_t, uint64_t>> by_read;  // the same as (read, write), by read
  std::vector<SourceColumns> shared;  // shared arrays that copies wrote, by buffer
  std::vector<EventMark> events;      // one per Trace::events entry, in its order
  // The other half of an AsyncRead or AsyncWrite record, kNoRecord when it has none (a
  // copy still in flight at the launch's end, or a record of another form).
  uint64_t partner(uint64_t record) const;
  // The source columns of shared array `buffer`, null when no copy wrote it.
  const SourceColumns* columns_of(uint32_t buffer) const;
};

// Follows the copies of a one-launch trace (trace::launch_trace): the k-th AsyncWrite
// (BulkWrite) record of a warp at a site is paired with the k-th AsyncRead (BulkRead) record
// of that warp at the site's partner (a warp's bulk halves only where their counts agree;
// the emulated device unpairs an instruction whose copies landed out of issue order); a
// plain shared store takes its source from the same lane's most recent global load of its
// warp, when both move the same bytes a lane. Elements are matched byte for byte: element j
// of a lane's 16 shared bytes came from byte j·size of its global 16.
Copies follow_copies(const trace::Trace& t);

// The column of element `e` of array `b` as it is declared (row-major: e mod pitch).
uint64_t column_of(const trace::Buffer& b, uint64_t e);

// The mma event (trace::Form::Mma) of record `record`'s warp that the record follows most
// closely (the warp's last mma before it), else the warp's first mma after it (`later` set).
// When the warp ran none (a warp-specialized kernel's producer, whose requests are the
// copies), the block's mma nearest the record in time (`other_warp` set; `later` when it
// came after). -1 when the block ran none or there is no such record.
int64_t nearest_mma(const trace::Trace& t, uint64_t record, bool* later = nullptr, bool* other_warp = nullptr);

// An event's instruction in words for a tooltip: "cp.async.wait_group 1 (lets 1 group
// stay in flight)", "cp.async.commit_group", "mma m16n8k16 f32.f16.f16.f32".
std::string event_text(const trace::Trace& t, const trace::Event& e);

}  // namespace ws::analysis
