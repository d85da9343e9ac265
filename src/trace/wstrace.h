// src/trace/wstrace.h — the `.wstrace` file: a saved trace that any warpscope can reopen.
//
// Layout (all integers little-endian):
//   "WSTRACE" 0x1A        magic (the 0x1A catches text-mode transfers that mangle bytes)
//   u32 version           format version, kFormatVersion
//   zstd frame            the payload, with zstd's content checksum
// Payload of version 5 (the one written):
//   u64 n + n bytes       metadata, a JSON object: provenance (backend, device, date,
//                         version), "launches" (kernel, params, grid, block,
//                         dynamic_shared_bytes, dropped_records), timings, bookmarks
//   u32 n + n × file      name, u64 n + text
//   per launch            u32 n + n × u32 recorded block ids
//   u32 n + n × buffer    name, space, elem_bytes, rows, cols, pitch, col_major, size_bytes
//   u32 n + n × site      file, line, column, buffer, space, op, bytes, instruction, code,
//                         u8 atomic path (trace::AtomicPath), u8 form (trace::Form),
//                         u32 partner site (kNoSite: none)
//   u64 n + n × record    launch, block, warp, site, seq, epoch, active, extra, buffer,
//                         u8 mixed (+ the stored lanes' buffers when 1), lane offsets
//   u32 n + n × site      the event sites, as above (event forms only)
//   u64 n + n × event     launch, block, warp, site, seq, epoch, active, arg (u32 each),
//                         at (u64: the launch's records before it)
// Version 4 (still read): events without `at` (Event::at is kUnplaced).
// Version 3 (still read): no forms, partners or events (every site a plain access).
// Version 2 (still read): the same without the sites' atomic path (read as PerLane).
// Version 1 (still read): metadata with one launch at its top level and "source_name",
// u64 n + the source text, the block ids, buffers, sites (line, u16 buffer, space, op,
// bytes, code) and records (block, u16 warp, u16 site, seq, epoch, active, extra, lane
// offsets), every lane in its site's array. It reads as a version 2 trace of one file and
// one launch; a site's column is where its array is indexed on its line.
// A record stores the offsets of its active lanes (plus `extra`: inactive lanes whose
// offset is not zero, so that every trace reads back equal), each as the difference from
// the previous stored lane: a coalesced warp becomes a run of equal small numbers that
// zstd squeezes to almost nothing.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "trace/trace.h"

namespace ws::trace {

constexpr uint32_t kFormatVersion = 8;

// A trace file that cannot be written or read; what() is one line for the user.
struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes `t` to `path` through `path + ".tmp"` and a rename, so a failed write never
// destroys an existing file.
void write_trace(const Trace& t, const std::string& path);

// Reads a trace file. Throws FileError naming the file and what is wrong with it.
Trace read_trace(const std::string& path);

// The file's bytes for `t`, and the trace those bytes hold (same errors as the file
// variants, without the file name).
std::string encode_trace(const Trace& t);
Trace decode_trace(std::string_view bytes);

}  // namespace ws::trace
