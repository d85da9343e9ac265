// src/session/dram.h — the DRAM view's figures: which array it shows at a request, and the
// bursts of that request's barrier epoch per channel and bank, from the Session's report
// (the teaching model of analysis::DramModel).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "session/session.h"

namespace ws::session {

// The DRAM view's choice of array: follow the current request's (the default), every
// global array, or one array.
struct DramChoice {
  enum class Kind : uint8_t { Follow, All, Array };
  Kind kind = Kind::Follow;
  uint32_t buffer = 0;  // Kind::Array: the buffer id
  static DramChoice follow() { return {}; }
  static DramChoice all() { return {Kind::All, 0}; }
  static DramChoice array(uint32_t b) { return {Kind::Array, b}; }
  bool operator==(const DramChoice&) const = default;
};
// The array the DRAM view shows at request `step` for `choice`.
struct DramArray {
  uint32_t buffer = trace::kNoBuffer;  // a buffer id, or kNoBuffer: every global array
  bool followed = false;      // chosen by following the request
  bool other_request = false;  // following a shared request: the array of global request `from`
  uint64_t from = 0;
  bool all() const { return buffer == trace::kNoBuffer; }
};
// Following, the request's own array when it is global; for a shared request the array of
// the last global request before it (the next one when none came before; every array when
// the trace has no global request near it). A chosen array the trace lacks: every array.
DramArray dram_array_at(const Session& s, uint64_t step, DramChoice choice);

// The DRAM view's figures for the barrier epoch of request `rv`: bursts per (channel, bank)
// and per channel, summed over the global arrays (or buffer `array` alone; kNoBuffer: all),
// and the channels and banks the request's own bursts hit (none for a shared request).
struct DramFigures {
  uint32_t epoch = 0, channels = 1, banks = 1;
  std::vector<uint64_t> cells;          // [bank * channels + channel]: bursts
  std::vector<uint64_t> per_channel;    // bursts per channel
  uint32_t busy = 0;                    // channels with any burst
  uint64_t total = 0, max_cell = 0;     // bursts in the epoch, the busiest cell's
  uint64_t request_bursts = 0;          // distinct bursts of the request
  std::vector<std::pair<uint32_t, uint32_t>> hit;  // (channel, bank) of the request, sorted
  std::vector<uint32_t> hit_channels;              // channels of the request, sorted
  bool shared = false;                  // the request is a shared access: no DRAM traffic
  std::string recorded;                 // the blocks the figures sum over (recorded_text)
  bool hits(uint32_t channel, uint32_t bank) const;
  bool hits_channel(uint32_t channel) const;
};
DramFigures dram_figures(const Session& s, const RequestFigures& rv, uint32_t array);
// What the DRAM view shows at request `rv` for array choice `choice` (dram_array_at, which
// `shown` receives): following a shared request, the array and barrier epoch of the global
// request followed, with no bursts of a request outlined (`shared` set).
DramFigures dram_view_figures(const Session& s, const RequestFigures& rv, DramChoice choice,
                              DramArray* shown = nullptr);

}  // namespace ws::session
