#include "trace/trace.h"

#include <ctime>
#include <stdexcept>

namespace ws::trace {

const char* to_string(Space s) {
  switch (s) {
    case Space::Global: return "global";
    case Space::Shared: return "shared";
    case Space::Local: return "local";
    case Space::Constant: return "constant";
    case Space::Cluster: return "shared::cluster";
  }
  return "?";
}

std::string cluster_buffer_name(const std::string& array, uint32_t rank) {
  return array + " (CTA rank " + std::to_string(rank) + ")";
}

std::string array_name(const Buffer& b) {
  if (!b.cta) return b.name;
  const std::string tail = " (CTA rank " + std::to_string(b.cta - 1) + ")";
  const bool named = b.name.size() >= tail.size() && b.name.compare(b.name.size() - tail.size(), tail.size(), tail) == 0;
  return named ? b.name.substr(0, b.name.size() - tail.size()) : b.name;
}

std::optional<Space> space_named(std::string_view name) {
  for (uint8_t i = 0; i < kSpaceCount; ++i)
    if (name == to_string(Space(i))) return Space(i);
  return std::nullopt;
}

const char* to_string(Form f) {
  switch (f) {
    case Form::Plain: return "plain";
    case Form::Matrix: return "matrix";
    case Form::AsyncRead: return "async read";
    case Form::AsyncWrite: return "async write";
    case Form::BulkRead: return "bulk read";
    case Form::BulkWrite: return "bulk write";
    case Form::Mma: return "mma";
    case Form::Commit: return "commit";
    case Form::Wait: return "wait";
    case Form::Phase: return "phase";
    case Form::Registers: return "registers";
  }
  return "?";
}

const char* to_string(Op o) {
  switch (o) {
    case Op::Load: return "load";
    case Op::Store: return "store";
    case Op::Atomic: return "atomic";
  }
  return "?";
}

bool Record::operator==(const Record& o) const {
  if (launch != o.launch || block != o.block || warp != o.warp || site != o.site || seq != o.seq ||
      epoch != o.epoch || active != o.active || buffer != o.buffer || offset != o.offset)
    return false;
  if (!lanes || !o.lanes) return !lanes && !o.lanes;
  return *lanes == *o.lanes;
}

Dim3 Launch::block_coords(uint32_t linear) const {
  Dim3 c;
  c.x = linear % grid.x;
  c.y = (linear / grid.x) % grid.y;
  c.z = linear / (grid.x * grid.y);
  return c;
}

Dim3 Launch::cluster_dims() const {
  const Dim3 c = cluster;
  if (!c.x || !c.y || !c.z || grid.x % c.x || grid.y % c.y || grid.z % c.z) return {};
  return c;
}

std::vector<uint32_t> Launch::cluster_blocks(uint32_t block) const {
  const Dim3 c = cluster_dims(), b = block_coords(block);
  const uint32_t x0 = b.x / c.x * c.x, y0 = b.y / c.y * c.y, z0 = b.z / c.z * c.z;
  std::vector<uint32_t> out;
  for (uint32_t r = 0; r < c.count(); ++r) {
    const uint32_t x = x0 + r % c.x, y = y0 + (r / c.x) % c.y, z = z0 + r / (c.x * c.y);
    out.push_back(x + grid.x * (y + grid.y * z));
  }
  return out;
}

const Launch& Trace::launch() const {
  static const Launch none;
  return launches.empty() ? none : launches.front();
}

Launch& Trace::launch() {
  if (launches.empty()) launches.emplace_back();
  return launches.front();
}

const std::string& Trace::file_name(uint32_t f) const {
  static const std::string none;
  return f < files.size() ? files[f].name : none;
}

Trace launch_trace(const Trace& t, uint32_t k) {
  if (k >= t.launches.size())
    throw std::out_of_range("launch " + std::to_string(k) + " of a trace with " + std::to_string(t.launches.size()));
  Trace out;
  out.provenance = t.provenance;
  out.files = t.files;
  out.launches = {t.launches[k]};
  out.buffers = t.buffers;
  out.timings_json = t.timings_json;
  // An unrecorded launch has no records: the hundreds of a timing loop cost no scan each.
  if (!t.launches[k].recorded) return out;
  // The sites the launch executed, in the order of the whole table.
  std::vector<uint32_t> site_of(t.sites.size(), kNoBuffer);
  for (const Record& r : t.records)
    if (r.launch == k && r.site < t.sites.size()) site_of[r.site] = 0;
  for (size_t i = 0; i < t.sites.size(); ++i)
    if (site_of[i] == 0) {
      site_of[i] = uint32_t(out.sites.size());
      out.sites.push_back(t.sites[i]);
    }
  std::vector<uint64_t> record_of(t.records.size(), ~uint64_t(0));
  for (size_t i = 0; i < t.records.size(); ++i) {
    const Record& r = t.records[i];
    if (r.launch != k || r.site >= t.sites.size()) continue;
    record_of[i] = out.records.size();
    Record& o = out.records.emplace_back(r);
    o.launch = 0;
    o.site = site_of[r.site];
  }
  std::vector<uint32_t> event_site_of(t.event_sites.size(), kNoBuffer);
  for (const Event& e : t.events) {
    if (e.launch != k || e.site >= t.event_sites.size()) continue;
    if (event_site_of[e.site] == kNoBuffer) {
      event_site_of[e.site] = uint32_t(out.event_sites.size());
      out.event_sites.push_back(t.event_sites[e.site]);
    }
    Event& o = out.events.emplace_back(e);
    o.launch = 0;
    o.site = event_site_of[e.site];
  }
  // An async copy's halves point at each other by site index: renumber the pair.
  for (Site& s : out.sites)
    if (s.partner != kNoSite) s.partner = s.partner < site_of.size() ? site_of[s.partner] : kNoSite;
  for (const Bookmark& b : t.bookmarks)
    if (b.record < record_of.size() && record_of[b.record] != ~uint64_t(0))
      out.bookmarks.push_back({record_of[b.record], b.caption});
  return out;
}

std::string line_text(const std::string& text, uint32_t line) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) return {};
    ++pos;
  }
  const size_t end = text.find('\n', pos);
  return text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
}

std::string source_line(const std::string& text, uint32_t line) {
  const std::string s = line_text(text, line);
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char s[32];
  std::strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return s;
}

Buffer shared_buffer(std::string name, uint32_t elem_bytes, uint64_t rows, uint64_t cols, uint64_t size_bytes) {
  Buffer b;
  b.name = std::move(name);
  b.space = Space::Shared;
  b.elem_bytes = elem_bytes;
  b.rows = rows;
  b.cols = cols;
  b.size_bytes = size_bytes;
  return b;
}

std::string out_of_bounds_text(const std::string& array, uint32_t line, int64_t offset, uint64_t size,
                               const uint32_t thread[2], const uint32_t block[2]) {
  return "out-of-bounds access to '" + array + "' at kernel line " + std::to_string(line) + ": byte offset " +
         std::to_string(offset) + " of " + std::to_string(size) + " (thread " + std::to_string(thread[0]) + "," +
         std::to_string(thread[1]) + " of block " + std::to_string(block[0]) + "," + std::to_string(block[1]) + ")";
}

}  // namespace ws::trace
