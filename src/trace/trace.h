// src/trace/trace.h — what a capture produced: the launch, its arrays, the access sites
// and one record per warp-level memory instruction. Depends on nothing else in warpscope.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/site_key.h"  // Op, and the site key both backends record

namespace ws::trace {

enum class Space : uint8_t { Global = 0, Shared = 1 };

const char* to_string(Space s);
const char* to_string(Op o);

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
  bool operator==(const Dim3&) const = default;
};

// One array of the launch, so that any (buffer, offset) maps back to a matrix cell.
struct Buffer {
  std::string name;        // "A", "in", "tile"
  Space space = Space::Global;
  uint32_t elem_bytes = 4;
  uint64_t rows = 1, cols = 1;  // logical shape
  uint64_t pitch = 0;           // elements between rows (0 = cols)
  bool col_major = false;       // element (r, c) at c * pitch + r when true
  uint64_t size_bytes = 0;
  uint64_t row_pitch() const { return pitch ? pitch : (col_major ? rows : cols); }
  bool operator==(const Buffer&) const = default;
};

// A shared array as a backend meets it: declared by the kernel, with its shape.
Buffer shared_buffer(std::string name, uint32_t elem_bytes, uint64_t rows, uint64_t cols, uint64_t size_bytes);

// One memory access in the kernel source: the line, the array, and what it does.
struct Site {
  uint32_t line = 0;
  uint16_t buffer = 0;
  Space space = Space::Global;
  Op op = Op::Load;
  uint8_t bytes = 4;       // bytes per lane: 1, 2, 4, 8 or 16
  std::string code;        // the source line, trimmed
  bool operator==(const Site&) const = default;
};

// The site's key (site_key.h): what identifies it, less the source text.
inline uint32_t key_of(const Site& s) { return make_key(s.line, s.buffer, uint32_t(s.op), s.bytes); }

constexpr int kWarpSize = 32;

// One warp-level memory instruction as executed.
struct Record {
  uint32_t block = 0;   // linear block id: x + gx * (y + gy * z)
  uint16_t warp = 0;    // warp within the block
  uint16_t site = 0;    // index into Trace::sites
  uint32_t seq = 0;     // dynamic index of this instruction within its warp
  uint32_t epoch = 0;   // barriers the block had passed when it executed
  uint32_t active = 0;  // bit i set: lane i took part
  std::array<uint32_t, kWarpSize> offset{};  // byte offset into the site's buffer, per lane
  bool lane_active(int lane) const { return (active >> lane) & 1u; }
  bool operator==(const Record&) const = default;
};

struct Launch {
  std::string kernel;                     // catalog id
  std::map<std::string, int64_t> params;  // includes "size"
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  std::string backend;                    // "emulator" | "gpu" | "file"
  std::string device;                     // "CPU emulator" or the GPU name
  std::string date;                       // ISO 8601, UTC
  std::string version;                    // warpscope version that recorded it
  bool operator==(const Launch&) const = default;
};

// A step a teacher marked, with a caption.
struct Bookmark {
  uint64_t record = 0;
  std::string caption;
  bool operator==(const Bookmark&) const = default;
};

struct Trace {
  Launch launch;
  std::vector<Buffer> buffers;
  std::vector<Site> sites;
  std::vector<Record> records;
  std::string source_name;       // kernel file, e.g. "transpose.h"
  std::string source;            // its text, exactly as compiled
  std::vector<uint32_t> blocks;  // linear ids of the blocks that were recorded
  uint64_t dropped_records = 0;  // records past the capture cap (never silent)
  std::string timings_json;      // optional, opaque to the trace layer
  std::vector<Bookmark> bookmarks;
  bool operator==(const Trace&) const = default;

  // Block coordinates of a linear block id.
  Dim3 block_coords(uint32_t linear) const;
};

// Text of line `line` (1-based) of `text`, with leading/trailing blanks removed.
std::string source_line(const std::string& text, uint32_t line);

// Now, as Launch::date writes it: "2026-11-23T01:40:00Z".
std::string utc_now();

// The sites of a trace being recorded, by key: a key met for the first time becomes a new
// site at the end of Trace::sites (so sites come in order of first execution), with its
// space from the buffers table and its code from the trace's source. Both backends turn
// their keys into sites through it. The trace's buffers and source must be set first.
class SiteTable {
 public:
  SiteTable() = default;
  explicit SiteTable(Trace& t);  // knows the sites `t` already has
  // Index of the site of `key` in Trace::sites.
  uint16_t site(uint32_t key) {
    auto it = ids_.find(key);
    return it != ids_.end() ? it->second : add(key);
  }

 private:
  uint16_t add(uint32_t key);
  Trace* t_ = nullptr;
  std::unordered_map<uint32_t, uint16_t> ids_;
};

}  // namespace ws::trace
