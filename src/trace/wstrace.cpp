#include "trace/wstrace.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

#include "trace/builder.h"  // index_column

namespace ws::trace {
namespace {

using json = nlohmann::json;

constexpr char kMagic[8] = {'W', 'S', 'T', 'R', 'A', 'C', 'E', 0x1A};
constexpr size_t kHeaderBytes = sizeof(kMagic) + 4;
// Smallest encodings, used to reject counts that the remaining bytes cannot hold before
// anything is allocated for them.
constexpr size_t kMinBufferBytes = 4 + 1 + 4 + 8 * 3 + 1 + 8;
constexpr size_t kMinSiteBytesV1 = 4 + 2 + 1 + 1 + 1 + 4;
constexpr size_t kMinRecordBytesV1 = 4 + 2 + 2 + 4 + 4 + 4 + 4;
constexpr size_t kMinFileBytes = 4 + 8;
constexpr size_t kMinSiteBytesV2 = 4 * 4 + 1 + 1 + 1 + 4 + 4;
constexpr size_t kMinSiteBytes = kMinSiteBytesV2 + 1;
constexpr size_t kMinSiteBytesV4 = kMinSiteBytes + 1 + 4;
constexpr size_t kEventBytes = 4 * 8;  // version 4's; 5 adds 8 (its place among the records)
constexpr size_t kMinRecordBytes = 4 * 9 + 1;
// A real payload compresses well, but not this well; more is a decompression bomb.
constexpr uint64_t kMaxExpansion = 4096;
constexpr uint64_t kExpansionSlack = 64ull << 20;
constexpr int kMaxJsonDepth = 8;

[[noreturn]] void corrupted(const std::string& what) {
  throw FileError("trace file is corrupted (" + what + ")");
}

// ---- writing ------------------------------------------------------------------------

class Writer {
 public:
  template <class T>
  void put(T v) {
    static_assert(std::is_integral_v<T>);
    using U = std::make_unsigned_t<T>;
    U u = U(v);
    if constexpr (std::endian::native == std::endian::little) {
      out_.append(reinterpret_cast<const char*>(&u), sizeof u);
    } else {
      for (size_t i = 0; i < sizeof(T); ++i) out_.push_back(char(uint8_t(u >> (8 * i))));
    }
  }
  void bytes(std::string_view s) { out_.append(s.data(), s.size()); }
  void str(std::string_view s) {
    put(uint32_t(s.size()));
    bytes(s);
  }
  std::string& data() { return out_; }

 private:
  std::string out_;
};

json dim_json(const Dim3& d) { return json::array({d.x, d.y, d.z}); }

std::string metadata(const Trace& t) {
  json m;
  m["backend"] = t.provenance.backend;
  m["device"] = t.provenance.device;
  m["date"] = t.provenance.date;
  m["version"] = t.provenance.version;
  m["launches"] = json::array();
  for (const Launch& l : t.launches) {
    json j;
    j["kernel"] = l.kernel;
    j["params"] = json::object();
    for (const auto& [k, v] : l.params) j["params"][k] = v;
    j["grid"] = dim_json(l.grid);
    j["block"] = dim_json(l.block);
    if (l.cluster.count() > 1) j["cluster"] = dim_json(l.cluster);  // absent: no clusters
    j["dynamic_shared_bytes"] = l.dynamic_shared_bytes;
    j["dropped_records"] = l.dropped_records;
    if (l.lane_accesses) j["lane_accesses"] = l.lane_accesses;
    if (l.seconds > 0) j["seconds"] = l.seconds;
    if (!l.engine.empty()) j["engine"] = l.engine;
    if (!l.recorded) j["recorded"] = false;  // absent in older files: every launch was recorded
    if (l.same_as) j["same_as"] = l.same_as;
    if (l.reductions_due) j["reductions_due"] = true;
    if (!l.unrecorded_spaces.empty()) {  // absent in older files: every space was recorded
      j["unrecorded_spaces"] = json::array();
      for (Space sp : l.unrecorded_spaces) j["unrecorded_spaces"].push_back(to_string(sp));
    }
    m["launches"].push_back(std::move(j));
  }
  m["timings_json"] = t.timings_json;
  m["bookmarks"] = json::array();
  for (const auto& b : t.bookmarks) m["bookmarks"].push_back({{"record", b.record}, {"caption", b.caption}});
  // Text that is not UTF-8 cannot go into JSON; it is written with replacement characters
  // rather than failing the whole save. File names and texts go into the binary part, exact.
  return m.dump(-1, ' ', false, json::error_handler_t::replace);
}

void write_sites(Writer& w, const std::vector<Site>& sites) {
  w.put(uint32_t(sites.size()));
  for (const auto& s : sites) {
    w.put(s.file);
    w.put(s.line);
    w.put(s.column);
    w.put(s.buffer);
    w.put(uint8_t(s.space));
    w.put(uint8_t(s.op));
    w.put(s.bytes);
    w.str(s.instruction);
    w.str(s.code);
    w.put(uint8_t(s.atomic));
    w.put(uint8_t(s.form));
    w.put(s.partner);
  }
}

std::string payload(const Trace& t) {
  if (t.buffers.size() > UINT32_MAX || t.sites.size() > UINT32_MAX || t.event_sites.size() > UINT32_MAX || t.files.size() > UINT32_MAX ||
      t.launches.size() > UINT32_MAX)
    throw FileError("trace is too large to save");
  Writer w;
  std::string meta = metadata(t);
  w.put(uint64_t(meta.size()));
  w.bytes(meta);
  w.put(uint32_t(t.files.size()));
  for (const auto& f : t.files) {
    w.str(f.name);
    w.put(uint64_t(f.text.size()));
    w.bytes(f.text);
  }
  for (const auto& l : t.launches) {  // as many as the metadata lists
    if (l.blocks.size() > UINT32_MAX) throw FileError("trace is too large to save");
    w.put(uint32_t(l.blocks.size()));
    for (uint32_t b : l.blocks) w.put(b);
  }
  w.put(uint32_t(t.buffers.size()));
  for (const auto& b : t.buffers) {
    w.str(b.name);
    w.put(uint8_t(b.space));
    w.put(b.elem_bytes);
    w.put(b.rows);
    w.put(b.cols);
    w.put(b.pitch);
    w.put(uint8_t(b.col_major));
    w.put(b.size_bytes);
    w.put(b.cta);
    w.put(b.shared_offset);
  }
  write_sites(w, t.sites);
  w.put(uint64_t(t.records.size()));
  w.data().reserve(w.data().size() + t.records.size() * (kMinRecordBytes + 32 * 4));
  for (const auto& r : t.records) {
    uint32_t extra = 0;
    for (int l = 0; l < kWarpSize; ++l)
      if (!r.lane_active(l) && (r.offset[l] != 0 || r.buffer_of(l) != r.buffer)) extra |= 1u << l;
    w.put(r.launch);
    w.put(r.block);
    w.put(r.warp);
    w.put(r.site);
    w.put(r.seq);
    w.put(r.epoch);
    w.put(r.active);
    w.put(extra);
    w.put(r.buffer);
    w.put(uint8_t(r.lanes ? 1 : 0));
    uint32_t prev = 0, stored = r.active | extra;
    if (r.lanes)
      for (int l = 0; l < kWarpSize; ++l)
        if ((stored >> l) & 1u) w.put((*r.lanes)[size_t(l)]);
    for (int l = 0; l < kWarpSize; ++l) {
      if (!((stored >> l) & 1u)) continue;
      w.put(uint32_t(r.offset[l] - prev));  // wraps; reading adds it back
      prev = r.offset[l];
    }
  }
  write_sites(w, t.event_sites);
  w.put(uint64_t(t.events.size()));
  for (const auto& e : t.events) {
    w.put(e.launch);
    w.put(e.block);
    w.put(e.warp);
    w.put(e.site);
    w.put(e.seq);
    w.put(e.epoch);
    w.put(e.active);
    w.put(e.arg);
    w.put(e.at);
    w.put(e.barrier);
  }
  return std::move(w.data());
}

// ---- reading ------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  size_t left() const { return b_.size() - pos_; }
  template <class T>
  T get() {
    static_assert(std::is_integral_v<T>);
    need(sizeof(T));
    std::make_unsigned_t<T> u = 0;
    for (size_t i = 0; i < sizeof(T); ++i) u |= std::make_unsigned_t<T>(uint8_t(b_[pos_ + i])) << (8 * i);
    pos_ += sizeof(T);
    return T(u);
  }
  std::string bytes(uint64_t n) {
    need(n);
    std::string s(b_.substr(pos_, size_t(n)));
    pos_ += size_t(n);
    return s;
  }
  std::string str() { return bytes(get<uint32_t>()); }
  // A count of items of at least `min_bytes` each, checked against what is left.
  uint64_t count(uint64_t n, size_t min_bytes, const char* what) {
    if (n > left() / min_bytes) corrupted(std::string("impossible ") + what + " count");
    return n;
  }

 private:
  void need(uint64_t n) const {
    if (n > left()) corrupted("payload ends early");
  }
  std::string_view b_;
  size_t pos_ = 0;
};

std::string decompress(std::string_view in) {
  // zstd frame: magic FD 2F B5 28, then the frame header descriptor, whose bit 2 says
  // the frame ends with a content checksum. A shorter input is left to the decoder,
  // which reports it as truncated.
  if (in.size() >= 5) {
    const unsigned char* u = reinterpret_cast<const unsigned char*>(in.data());
    if (u[0] != 0x28 || u[1] != 0xB5 || u[2] != 0x2F || u[3] != 0xFD) corrupted("bad compressed frame");
    if (!(u[4] & 0x04)) corrupted("no content checksum");
  }
  const uint64_t limit = uint64_t(in.size()) * kMaxExpansion + kExpansionSlack;
  unsigned long long declared = ZSTD_getFrameContentSize(in.data(), in.size());
  bool known = declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR;
  if (known && declared > limit) corrupted("impossible payload size");

  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!ctx) throw FileError("out of memory while reading the trace");
  std::string out;
  size_t first = known ? size_t(declared) : std::min<size_t>(in.size() * 4, size_t(1) << 24);
  out.resize(std::max<size_t>(first, 1 << 16));
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  size_t produced = 0;
  for (;;) {
    if (produced == out.size()) {
      if (out.size() >= limit) corrupted("payload expands beyond any real trace");
      out.resize(size_t(std::min<uint64_t>(uint64_t(out.size()) * 2, limit)));
    }
    ZSTD_outBuffer ob{out.data(), out.size(), produced};
    size_t r = ZSTD_decompressStream(ctx.get(), &ob, &ib);
    produced = ob.pos;
    if (ZSTD_isError(r)) {
      if (ZSTD_getErrorCode(r) == ZSTD_error_checksum_wrong)
        throw FileError("trace file is corrupted (checksum mismatch)");
      corrupted("bad compressed data");
    }
    if (r == 0) break;  // frame complete, checksum verified
    if (ib.pos == ib.size && ob.pos < ob.size) throw FileError("trace file is truncated");
  }
  if (ib.pos != ib.size) corrupted("unexpected bytes after the payload");
  out.resize(produced);
  return out;
}

// JSON accessors that turn any type mismatch into a corrupted-file error.
const json& field(const json& m, const char* key) {
  auto it = m.find(key);
  if (it == m.end()) corrupted(std::string("metadata has no '") + key + "'");
  return *it;
}
std::string text(const json& m, const char* key) {
  auto it = m.find(key);
  if (it == m.end()) return {};
  if (!it->is_string()) corrupted(std::string("metadata '") + key + "' is not text");
  return it->get<std::string>();
}
template <class T>
T number(const json& v, const char* key) {
  if (!v.is_number_integer()) corrupted(std::string("metadata '") + key + "' is not an integer");
  if constexpr (std::is_unsigned_v<T>) {
    if (v.is_number_unsigned()) {
      uint64_t u = v.get<uint64_t>();
      if (u > std::numeric_limits<T>::max()) corrupted(std::string("metadata '") + key + "' is out of range");
      return T(u);
    }
    int64_t s = v.get<int64_t>();
    if (s < 0 || uint64_t(s) > std::numeric_limits<T>::max())
      corrupted(std::string("metadata '") + key + "' is out of range");
    return T(s);
  } else {
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<T>::max()))
      corrupted(std::string("metadata '") + key + "' is out of range");
    return v.get<T>();
  }
}
template <class T>
T number_or(const json& m, const char* key, T def) {
  auto it = m.find(key);
  return it == m.end() ? def : number<T>(*it, key);
}
Dim3 dim(const json& m, const char* key) {
  const json& v = field(m, key);
  if (!v.is_array() || v.size() != 3) corrupted(std::string("metadata '") + key + "' is not [x, y, z]");
  Dim3 d{number<uint32_t>(v[0], key), number<uint32_t>(v[1], key), number<uint32_t>(v[2], key)};
  if (d.x == 0 || d.y == 0 || d.z == 0) corrupted(std::string("metadata '") + key + "' has a zero extent");
  return d;
}

json parse_metadata(const std::string& s) {
  json m;
  try {
    // The parser itself does not recurse, but the tree it builds is walked recursively
    // later; no real metadata nests deeper than a few levels.
    m = json::parse(s, [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxJsonDepth) throw FileError("trace file is corrupted (metadata nests too deep)");
      return true;
    });
  } catch (const json::exception&) {
    corrupted("metadata is not JSON");
  }
  if (!m.is_object()) corrupted("metadata is not a JSON object");
  return m;
}

// One launch's metadata: the top level of a version 1 file, an entry of "launches" after.
Launch read_launch(const json& m) {
  Launch l;
  l.kernel = text(m, "kernel");
  const json& params = field(m, "params");
  if (!params.is_object()) corrupted("metadata 'params' is not an object");
  for (const auto& [k, v] : params.items()) l.params[k] = number<int64_t>(v, "params");
  l.grid = dim(m, "grid");
  l.block = dim(m, "block");
  if (m.contains("cluster")) l.cluster = dim(m, "cluster");
  if (l.grid.count() > (uint64_t(1) << 32)) corrupted("grid has more blocks than a trace can name");
  l.dynamic_shared_bytes = number_or<uint32_t>(m, "dynamic_shared_bytes", 0);
  l.dropped_records = number_or<uint64_t>(m, "dropped_records", 0);
  l.lane_accesses = number_or<uint64_t>(m, "lane_accesses", 0);
  if (auto it = m.find("seconds"); it != m.end()) {
    if (!it->is_number() || !(it->get<double>() >= 0)) corrupted("metadata 'seconds' is not a duration");
    l.seconds = it->get<double>();
  }
  if (auto it = m.find("engine"); it != m.end()) {
    if (!it->is_string()) corrupted("metadata 'engine' is not text");
    l.engine = it->get<std::string>();
  }
  if (auto it = m.find("recorded"); it != m.end()) {
    if (!it->is_boolean()) corrupted("metadata 'recorded' is not true or false");
    l.recorded = it->get<bool>();
  }
  if (auto it = m.find("same_as"); it != m.end()) {
    if (!it->is_number_unsigned()) corrupted("metadata 'same_as' is not a launch number");
    l.same_as = it->get<uint32_t>();
  }
  if (auto it = m.find("reductions_due"); it != m.end()) {
    if (!it->is_boolean()) corrupted("metadata 'reductions_due' is not true or false");
    l.reductions_due = it->get<bool>();
  }
  if (auto it = m.find("unrecorded_spaces"); it != m.end()) {
    if (!it->is_array()) corrupted("metadata 'unrecorded_spaces' is not a list");
    for (const json& v : *it) {
      const auto sp = v.is_string() ? space_named(v.get<std::string>()) : std::nullopt;
      if (!sp) corrupted("metadata 'unrecorded_spaces' names no memory space");
      if (std::find(l.unrecorded_spaces.begin(), l.unrecorded_spaces.end(), *sp) == l.unrecorded_spaces.end())
        l.unrecorded_spaces.push_back(*sp);
    }
  }
  return l;
}

// What every version's metadata holds: provenance, timings and bookmarks.
void read_common(const json& m, Trace& t) {
  t.provenance.backend = text(m, "backend");
  t.provenance.device = text(m, "device");
  t.provenance.date = text(m, "date");
  t.provenance.version = text(m, "version");
  t.timings_json = text(m, "timings_json");
  if (auto it = m.find("bookmarks"); it != m.end()) {
    if (!it->is_array()) corrupted("metadata 'bookmarks' is not a list");
    for (const json& b : *it) {
      if (!b.is_object()) corrupted("a bookmark is not an object");
      t.bookmarks.push_back({number<uint64_t>(field(b, "record"), "record"), text(b, "caption")});
    }
  }
}

bool valid_bytes(uint32_t b) { return b == 1 || b == 2 || b == 4 || b == 8 || b == 16; }

void read_blocks(Reader& r, Launch& l) {
  const uint64_t nblocks = r.count(r.get<uint32_t>(), 4, "block");
  l.blocks.resize(size_t(nblocks));
  const uint64_t grid_blocks = l.grid.count();
  for (auto& b : l.blocks) {
    b = r.get<uint32_t>();
    if (b >= grid_blocks) corrupted("recorded block outside the grid");
  }
}

void read_buffers(Reader& r, Trace& t, uint32_t version) {
  const uint64_t nbuffers =
      r.count(r.get<uint32_t>(), kMinBufferBytes + (version >= 7 ? 4 : 0) + (version >= 8 ? 8 : 0), "buffer");
  t.buffers.resize(size_t(nbuffers));
  for (auto& b : t.buffers) {
    b.name = r.str();
    uint8_t space = r.get<uint8_t>();
    if (space >= kSpaceCount) corrupted("unknown memory space");
    b.space = Space(space);
    b.elem_bytes = r.get<uint32_t>();
    if (b.elem_bytes == 0) corrupted("buffer with zero-byte elements");
    b.rows = r.get<uint64_t>();
    b.cols = r.get<uint64_t>();
    b.pitch = r.get<uint64_t>();
    uint8_t cm = r.get<uint8_t>();
    if (cm > 1) corrupted("bad buffer layout flag");
    b.col_major = cm != 0;
    b.size_bytes = r.get<uint64_t>();
    if (version >= 7) b.cta = r.get<uint32_t>();  // (a Cluster buffer's CTA; older files had none)
    if (version >= 8) b.shared_offset = r.get<uint64_t>();  // (a shared array's place; older files: not known)
    if ((b.cta != 0) != (b.space == Space::Cluster)) corrupted("a cluster buffer without its CTA, or a CTA on another");
  }
}

// A site's space, operation and width (`event`: an event site, which may move no bytes: a
// catalog kernel's mma, commit and wait have width 0).
void read_kind(Reader& r, Site& s, bool event = false) {
  uint8_t space = r.get<uint8_t>(), op = r.get<uint8_t>();
  if (space >= kSpaceCount) corrupted("unknown memory space");
  if (op > uint8_t(Op::Atomic)) corrupted("unknown memory operation");
  s.space = Space(space);
  s.op = Op(op);
  s.bytes = r.get<uint8_t>();
  if (!valid_bytes(s.bytes) && !(event && s.bytes == 0)) corrupted("site with an impossible access width");
}

// The lane masks and offsets of a record (after its header); from version 2 on, its array
// and, when its lanes reach several, theirs.
void read_lanes(Reader& r, Record& rec, uint32_t nbuffers, bool v2) {
  rec.active = r.get<uint32_t>();
  uint32_t extra = r.get<uint32_t>();
  if (extra & rec.active) corrupted("bad lane masks");
  const uint32_t stored = rec.active | extra;
  if (v2) {
    rec.buffer = r.get<uint32_t>();
    if (rec.buffer >= nbuffers) corrupted("record refers to a missing buffer");
    if (r.get<uint8_t>()) {
      LaneBuffers lanes;
      lanes.fill(rec.buffer);
      for (int l = 0; l < kWarpSize; ++l) {
        if (!((stored >> l) & 1u)) continue;
        lanes[size_t(l)] = r.get<uint32_t>();
        if (lanes[size_t(l)] >= nbuffers) corrupted("record refers to a missing buffer");
      }
      rec.lanes = std::make_shared<const LaneBuffers>(lanes);
    }
  }
  uint32_t prev = 0;
  for (int l = 0; l < kWarpSize; ++l) {
    if (!((stored >> l) & 1u)) continue;
    prev += r.get<uint32_t>();
    rec.offset[l] = prev;
  }
}

// Version 1: one launch of a catalog kernel, one source file, sites by line and array,
// every lane in the site's array. Read into the version 2 shape: file 0, launch 0, the
// column of the array's indexing on the line, each record in its site's array.
Trace parse_v1(Reader& r) {
  Trace t;
  const json m = parse_metadata(r.bytes(r.get<uint64_t>()));
  read_common(m, t);
  Launch l = read_launch(m);
  SourceFile f;
  f.name = text(m, "source_name");
  f.text = r.bytes(r.get<uint64_t>());
  read_blocks(r, l);
  t.launches.push_back(std::move(l));
  t.files.push_back(std::move(f));
  read_buffers(r, t, 1);

  const uint64_t nsites = r.count(r.get<uint32_t>(), kMinSiteBytesV1, "site");
  t.sites.resize(size_t(nsites));
  for (auto& s : t.sites) {
    s.line = r.get<uint32_t>();
    s.buffer = r.get<uint16_t>();
    if (s.buffer >= t.buffers.size()) corrupted("site refers to a missing buffer");
    read_kind(r, s);
    if (s.space > Space::Shared) corrupted("unknown memory space");
    s.code = r.str();
    s.column = index_column(t.files[0].text, s.line, t.buffers[s.buffer].name);
  }

  const uint64_t nrecords = r.count(r.get<uint64_t>(), kMinRecordBytesV1, "record");
  t.records.resize(size_t(nrecords));
  for (auto& rec : t.records) {
    rec.block = r.get<uint32_t>();
    rec.warp = r.get<uint16_t>();
    rec.site = r.get<uint16_t>();
    if (rec.site >= t.sites.size()) corrupted("record refers to a missing site");
    rec.seq = r.get<uint32_t>();
    rec.epoch = r.get<uint32_t>();
    rec.buffer = t.sites[rec.site].buffer;
    read_lanes(r, rec, uint32_t(t.buffers.size()), false);
  }
  return t;
}

// The site table of versions 2 to 4; `events`: the event sites' table (version 4).
void read_sites(Reader& r, const Trace& t, std::vector<Site>& sites, uint32_t version, bool events) {
  const size_t min = version >= 4 ? kMinSiteBytesV4 : version >= 3 ? kMinSiteBytes : kMinSiteBytesV2;
  const uint64_t nsites = r.count(r.get<uint32_t>(), min, "site");
  sites.resize(size_t(nsites));
  for (auto& s : sites) {
    s.file = r.get<uint32_t>();
    if (s.file >= t.files.size() && !(t.files.empty() && s.file == 0)) corrupted("site refers to a missing file");
    s.line = r.get<uint32_t>();
    s.column = r.get<uint32_t>();
    s.buffer = r.get<uint32_t>();
    if (s.buffer >= t.buffers.size() && s.buffer != kNoBuffer) corrupted("site refers to a missing buffer");
    read_kind(r, s, events);
    s.instruction = r.str();
    s.code = r.str();
    if (version >= 3) {  // version 2 knew no atomic path: every lane's update its own
      const uint8_t path = r.get<uint8_t>();
      if (path >= kAtomicPathCount) corrupted("unknown atomic path");
      s.atomic = AtomicPath(path);
    }
    if (version >= 4) {  // before, every site was a plain access
      const uint8_t form = r.get<uint8_t>();
      if (form >= kFormCount) corrupted("unknown instruction form");
      s.form = Form(form);
      if (is_memory_form(s.form) == events) corrupted(events ? "an event site of a memory form" : "a memory site of an event form");
      s.partner = r.get<uint32_t>();
    }
  }
  if (events) return;
  for (const auto& s : sites)
    if (s.partner != kNoSite && s.partner >= sites.size()) corrupted("site pairs with a missing site");
}

// The events of version 4 on: their sites, then one entry per warp instruction (5: with
// its place among the records; 6: and its mbarrier).
void read_events(Reader& r, Trace& t, uint32_t version) {
  read_sites(r, t, t.event_sites, 4, true);
  const uint64_t n = r.count(r.get<uint64_t>(), kEventBytes + (version >= 5 ? 8 : 0) + (version >= 6 ? 4 : 0), "event");
  t.events.resize(size_t(n));
  for (auto& e : t.events) {
    e.launch = r.get<uint32_t>();
    if (e.launch >= t.launches.size()) corrupted("event refers to a missing launch");
    e.block = r.get<uint32_t>();
    e.warp = r.get<uint32_t>();
    e.site = r.get<uint32_t>();
    if (e.site >= t.event_sites.size()) corrupted("event refers to a missing site");
    e.seq = r.get<uint32_t>();
    e.epoch = r.get<uint32_t>();
    e.active = r.get<uint32_t>();
    e.arg = r.get<uint32_t>();
    if (version >= 5) e.at = r.get<uint64_t>();
    if (version >= 6) e.barrier = r.get<uint32_t>();
  }
}

// Versions 2 to 4 (3 adds each site's atomic path; 4 the sites' forms and the events).
Trace parse_v2(Reader& r, uint32_t version) {
  Trace t;
  const json m = parse_metadata(r.bytes(r.get<uint64_t>()));
  read_common(m, t);
  const json& launches = field(m, "launches");
  if (!launches.is_array()) corrupted("metadata 'launches' is not a list");
  for (const json& l : launches) {
    if (!l.is_object()) corrupted("a launch is not an object");
    t.launches.push_back(read_launch(l));
  }
  const uint64_t nfiles = r.count(r.get<uint32_t>(), kMinFileBytes, "file");
  t.files.resize(size_t(nfiles));
  for (auto& f : t.files) {
    f.name = r.str();
    f.text = r.bytes(r.get<uint64_t>());
  }
  for (auto& l : t.launches) read_blocks(r, l);
  read_buffers(r, t, version);

  read_sites(r, t, t.sites, version, false);

  const uint64_t nrecords = r.count(r.get<uint64_t>(), kMinRecordBytes, "record");
  t.records.resize(size_t(nrecords));
  for (auto& rec : t.records) {
    rec.launch = r.get<uint32_t>();
    if (rec.launch >= t.launches.size()) corrupted("record refers to a missing launch");
    rec.block = r.get<uint32_t>();
    rec.warp = r.get<uint32_t>();
    rec.site = r.get<uint32_t>();
    if (rec.site >= t.sites.size()) corrupted("record refers to a missing site");
    rec.seq = r.get<uint32_t>();
    rec.epoch = r.get<uint32_t>();
    read_lanes(r, rec, uint32_t(t.buffers.size()), true);
    if (!is_memory_form(t.sites[rec.site].form)) corrupted("a memory record at an event's site");
  }
  if (version >= 4) read_events(r, t, version);
  return t;
}

Trace parse_payload(std::string_view p, uint32_t version) {
  Reader r(p);
  Trace t = version == 1 ? parse_v1(r) : parse_v2(r, version);
  if (r.left() != 0) corrupted("unexpected bytes after the records");
  return t;
}

}  // namespace

std::string encode_trace(const Trace& t) {
  std::string p = payload(t);
  std::string out(kMagic, sizeof(kMagic));
  for (int i = 0; i < 4; ++i) out.push_back(char(uint8_t(kFormatVersion >> (8 * i))));
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> ctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!ctx) throw FileError("out of memory while saving the trace");
  ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_checksumFlag, 1);
  size_t head = out.size();
  out.resize(head + ZSTD_compressBound(p.size()));
  size_t n = ZSTD_compress2(ctx.get(), out.data() + head, out.size() - head, p.data(), p.size());
  if (ZSTD_isError(n)) throw FileError(std::string("cannot compress the trace: ") + ZSTD_getErrorName(n));
  out.resize(head + n);
  return out;
}

Trace decode_trace(std::string_view b) {
  if (b.empty()) throw FileError("not a warpscope trace (the file is empty)");
  const size_t m = std::min(b.size(), sizeof(kMagic));
  if (std::memcmp(b.data(), kMagic, m) != 0) throw FileError("not a warpscope trace");
  if (b.size() < kHeaderBytes) throw FileError("trace file is truncated");
  uint32_t version = 0;
  for (int i = 0; i < 4; ++i) version |= uint32_t(uint8_t(b[sizeof(kMagic) + i])) << (8 * i);
  if (version > kFormatVersion)
    throw FileError("trace format version " + std::to_string(version) + " is newer than this warpscope (reads up to " +
                    std::to_string(kFormatVersion) + ")");
  if (version == 0) corrupted("format version 0");
  if (b.size() == kHeaderBytes) throw FileError("trace file is truncated");
  return parse_payload(decompress(b.substr(kHeaderBytes)), version);
}

void write_trace(const Trace& t, const std::string& path) {
  std::string bytes;
  try {
    bytes = encode_trace(t);
  } catch (const FileError& e) {
    throw FileError(path + ": " + e.what());
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw FileError("cannot write " + path + ": " + std::strerror(errno));
    f.write(bytes.data(), std::streamsize(bytes.size()));
    f.close();
    if (!f) {
      std::remove(tmp.c_str());
      throw FileError("cannot write " + path + " (disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw FileError("cannot write " + path + ": " + std::strerror(err));
  }
}

Trace read_trace(const std::string& path) {
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) throw FileError("cannot open " + path + ": no such file");
  if (std::filesystem::is_directory(st)) throw FileError("cannot open " + path + ": it is a directory");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FileError("cannot open " + path + ": " + std::strerror(errno));
  std::string bytes;
  f.seekg(0, std::ios::end);
  std::streamoff n = f.tellg();
  if (n < 0) throw FileError("cannot read " + path + " (not a regular file?)");
  f.seekg(0, std::ios::beg);
  bytes.resize(size_t(n));
  f.read(bytes.data(), n);
  if (!f) throw FileError("cannot read " + path);
  try {
    return decode_trace(bytes);
  } catch (const FileError& e) {
    throw FileError(path + ": " + e.what());
  }
}

}  // namespace ws::trace
