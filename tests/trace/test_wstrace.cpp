// The .wstrace file: what goes in comes back equal, and no damaged or hostile file can
// crash the reader or make it allocate what the file cannot hold.
#include <doctest/doctest.h>
#include <zstd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "trace/wstrace.h"
#include "../support.h"

using namespace ws::trace;
namespace fs = std::filesystem;

namespace {

Trace sample(size_t nrecords = 200) {
  Trace t;
  t.launch().kernel = "transpose_tiled";
  t.launch().params = {{"size", 64}, {"pad", 0}, {"m", 0}, {"negative", -5}};
  t.launch().grid = {2, 2, 1};
  t.launch().block = {32, 8, 1};
  t.launch().dynamic_shared_bytes = 4224;
  t.provenance.backend = "emulator";
  t.provenance.device = "CPU emulator";
  t.provenance.date = "2024-05-01T12:00:00Z";
  t.provenance.version = "0.1.0";
  t.files = {{"transpose.h", "// out = inᵀ\n  tile[threadIdx.x][threadIdx.y] = in[i * m + j];\n\tbad utf-8: \xff\xfe\n"},
             {"helpers.cuh", "__device__ float twice(const float* p, int i) { return 2 * p[i]; }\n"}};
  t.launch().blocks = {0, 1, 3};
  t.launch().dropped_records = 12345;
  Launch second;  // a second kernel of the program, with its own shape and blocks
  second.kernel = "scale<float>";
  second.grid = {8, 1, 1};
  second.block = {128, 1, 1};
  second.blocks = {7};
  t.launches.push_back(second);
  t.timings_json = R"({"ms": [0.5, 0.25], "device": "H200"})";
  t.bookmarks = {{0, "first load"}, {17, "the 32-way conflict — look at the banks"}};

  Buffer in{"in", Space::Global, 4, 64, 64, 0, false, 64 * 64 * 4};
  Buffer out{"out", Space::Global, 4, 64, 64, 0, true, 64 * 64 * 4};
  Buffer tile{"tile", Space::Shared, 4, 32, 33, 33, false, 32 * 33 * 4};
  t.buffers = {in, out, tile};
  t.sites = {{0, 40, 37, Space::Global, Op::Load, 4, "", "in[i * m + j]", 0},
             {0, 40, 3, Space::Shared, Op::Store, 4, "st.shared.f32", "tile[threadIdx.x][threadIdx.y] = in[i * m + j];", 2},
             {0, 52, 1, Space::Global, Op::Store, 16, "STG.E.128", "", 1},
             {0, 53, 9, Space::Shared, Op::Atomic, 8, "atom.shared.add.u64", "atomicAdd(...)", 2, AtomicPath::Increment},
             {1, 1, 64, Space::Global, Op::Load, 4, "ld.global.f32", "", kNoBuffer},  // reaches in and out
             {1, 1, 64, Space::Local, Op::Store, 8, "st.local.v2.f32", "", kNoBuffer},
             {1, 1, 1, Space::Constant, Op::Load, 4, "ld.const.f32", "", kNoBuffer}};
  std::mt19937 rng(7);
  for (size_t i = 0; i < nrecords; ++i) {
    Record r;
    r.launch = uint32_t(i % 5 == 4);
    r.block = uint32_t(rng() % 4);
    r.warp = uint32_t(rng() % 8);
    r.site = uint32_t(rng() % t.sites.size());
    r.buffer = uint32_t(rng() % t.buffers.size());
    if (r.site == 4) {  // lanes in two arrays
      LaneBuffers lanes;
      for (int l = 0; l < kWarpSize; ++l) lanes[size_t(l)] = uint32_t(l % 2);
      r.buffer = 0;
      r.lanes = std::make_shared<const LaneBuffers>(lanes);
    }
    r.seq = uint32_t(i);
    r.epoch = uint32_t(rng() % 3);
    switch (i % 4) {
      case 0: r.active = 0xffffffffu; break;
      case 1: r.active = 0; break;
      case 2: r.active = 0x0000ffffu; break;
      default: r.active = uint32_t(rng()); break;
    }
    for (int l = 0; l < kWarpSize; ++l) {
      if (i % 3 == 0)
        r.offset[l] = uint32_t(l * 4 + i);  // coalesced
      else if (i % 3 == 1)
        r.offset[l] = uint32_t(rng());      // anything, including "backwards"
      else
        r.offset[l] = r.lane_active(l) ? uint32_t(l * 132) : 0;
    }
    t.records.push_back(r);
  }
  return t;
}

fs::path temp_dir() { return ws::test::temp_dir("wstrace"); }

std::string error_of(std::string_view bytes) {
  try {
    decode_trace(bytes);
  } catch (const FileError& e) {
    return e.what();
  }
  return "";
}

// A file of format version `version` whose zstd frame is intact (valid checksum) but whose
// payload is `payload`. The hand-made payloads below are version 1's.
// sample()'s payload as versions before 8 wrote it: its three arrays (in, out, tile)
// without the shared offset each one ends with since 8, and (`ctas`: before 7) without
// the CTA before it.
std::string without_offsets(std::string payload, bool ctas) {
  const std::string head = std::string("\x03\0\0\0\x02\0\0\0in", 10);
  size_t pos = payload.find(head);
  REQUIRE(pos != std::string::npos);
  pos += 4;
  for (int k = 0; k < 3; ++k) {
    uint32_t len = 0;
    std::memcpy(&len, payload.data() + pos, 4);
    pos += 4 + len + 1 + 4 + 8 * 3 + 1 + 8;
    if (ctas) payload.erase(pos, 4);
    else pos += 4;
    payload.erase(pos, 8);
  }
  return payload;
}
std::string without_ctas(std::string payload) { return without_offsets(std::move(payload), true); }

std::string with_payload(const std::string& payload, uint8_t version = 1) {
  std::string good = encode_trace(Trace{});
  std::string out = good.substr(0, 12);
  out[8] = char(version);
  std::string z(ZSTD_compressBound(payload.size()), '\0');
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  size_t n = ZSTD_compress2(c, z.data(), z.size(), payload.data(), payload.size());
  ZSTD_freeCCtx(c);
  REQUIRE(!ZSTD_isError(n));
  return out + z.substr(0, n);
}

template <class T>
void put(std::string& s, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) s.push_back(char(uint8_t(uint64_t(v) >> (8 * i))));
}

std::string meta_section(const std::string& json) {
  std::string s;
  put<uint64_t>(s, json.size());
  s += json;
  put<uint64_t>(s, 0);  // source text
  return s;
}

const std::string kMeta = R"({"kernel":"k","params":{},"grid":[1,1,1],"block":[32,1,1]})";

}  // namespace

TEST_CASE("a trace round-trips through memory and through a file") {
  Trace t = sample();
  std::string bytes = encode_trace(t);
  CHECK(bytes.substr(0, 7) == "WSTRACE");
  Trace back = decode_trace(bytes);
  CHECK(back.launches == t.launches);
  CHECK(back.files == t.files);  // exact, even where a text is not UTF-8
  CHECK(back.provenance == t.provenance);
  CHECK(back.buffers == t.buffers);
  CHECK(back.sites == t.sites);
  CHECK(back.records == t.records);
  CHECK(back.bookmarks == t.bookmarks);
  CHECK(back.timings_json == t.timings_json);
  CHECK(back == t);

  fs::path d = temp_dir();
  std::string path = (d / "t.wstrace").string();
  write_trace(t, path);
  CHECK(!fs::exists(path + ".tmp"));
  CHECK(read_trace(path) == t);

  CHECK(decode_trace(encode_trace(Trace{})) == Trace{});
  fs::remove_all(d);
}

TEST_CASE("the spaces a GPU trace left untraced round-trip; an unknown space is refused") {
  Trace t = sample();
  t.launch().unrecorded_spaces = {Space::Shared};
  CHECK(decode_trace(encode_trace(t)).launch().unrecorded_spaces == std::vector<Space>{Space::Shared});
  t.launch().unrecorded_spaces.clear();
  CHECK(decode_trace(encode_trace(t)).launch().unrecorded_spaces.empty());
  std::string ok = meta_section(R"({"kernel":"k","params":{},"grid":[1,1,1],"block":[32,1,1],"unrecorded_spaces":["global"]})");
  for (int i = 0; i < 3; ++i) put<uint32_t>(ok, 0);  // blocks, buffers, sites
  put<uint64_t>(ok, 0);                              // records
  CHECK(decode_trace(with_payload(ok)).launch().unrecorded_spaces == std::vector<Space>{Space::Global});
  for (const char* bad : {R"("shared")", R"(["texture"])", R"([1])"}) {
    std::string p = meta_section(std::string(R"({"kernel":"k","params":{},"grid":[1,1,1],"block":[32,1,1],"unrecorded_spaces":)") +
                                 bad + "}");
    for (int i = 0; i < 3; ++i) put<uint32_t>(p, 0);
    put<uint64_t>(p, 0);
    CHECK(error_of(with_payload(p)).find("unrecorded_spaces") != std::string::npos);
  }
}

TEST_CASE("coalesced records are stored compactly") {
  Trace t = sample(0);
  for (uint32_t i = 0; i < 10000; ++i) {
    Record r;
    r.site = 0;
    r.seq = i;
    r.active = ~0u;
    for (int l = 0; l < kWarpSize; ++l) r.offset[l] = (i * 32 + uint32_t(l)) * 4;
    t.records.push_back(r);
  }
  std::string bytes = encode_trace(t);
  CHECK(bytes.size() < 10000 * 8);  // 176 bytes a record in memory
  CHECK(decode_trace(bytes) == t);
}

TEST_CASE("a failed write leaves the existing file alone") {
  fs::path d = temp_dir();
  std::string path = (d / "keep.wstrace").string();
  Trace t = sample(10);
  write_trace(t, path);
  fs::create_directory(path + ".tmp");  // the temporary cannot be created
  Trace other = sample(50);
  CHECK_THROWS_AS(write_trace(other, path), FileError);
  CHECK(read_trace(path) == t);
  CHECK_THROWS_AS(write_trace(t, (d / "no" / "such" / "dir.wstrace").string()), FileError);
  fs::remove_all(d);
}

TEST_CASE("a truncated trace is reported as such at every length") {
  std::string bytes = encode_trace(sample());
  const size_t step = std::max<size_t>(1, bytes.size() / 300);
  for (size_t n = 0; n < bytes.size(); n += (n < 64 || n + 64 > bytes.size()) ? 1 : step) {
    std::string e = error_of(std::string_view(bytes).substr(0, n));
    CAPTURE(n);
    REQUIRE(!e.empty());
    if (n >= 12) CHECK(e == "trace file is truncated");
  }
  CHECK(error_of(std::string_view(bytes).substr(0, 3)) == "trace file is truncated");
}

TEST_CASE("damaged bytes give an error, never a different trace") {
  const Trace t = sample(40);
  const std::string bytes = encode_trace(t);
  size_t errors = 0, tries = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {uint8_t(0xff), uint8_t(0x01), uint8_t(0x80)}) {
      std::string bad = bytes;
      bad[i] = char(uint8_t(bad[i]) ^ mask);
      ++tries;
      try {
        Trace back = decode_trace(bad);
        CAPTURE(i);
        CHECK(back == t);  // only bits the format does not depend on (e.g. zstd's window size)
      } catch (const FileError& e) {
        ++errors;
        CHECK(std::string(e.what()).find('\n') == std::string::npos);
      }
    }
  }
  CHECK(errors > tries * 9 / 10);
  std::string bad = bytes;
  bad[bad.size() - 1] = char(bad.back() ^ 0x5a);  // inside the content checksum
  CHECK(error_of(bad) == "trace file is corrupted (checksum mismatch)");
  CHECK(error_of(bytes + "x") != "");
}

TEST_CASE("newer versions, wrong magic, empty and missing files") {
  std::string bytes = encode_trace(sample(5));
  std::string newer = bytes;
  newer[8] = 9;
  CHECK(error_of(newer) == "trace format version 9 is newer than this warpscope (reads up to 8)");
  std::string zero = bytes;
  zero[8] = 0;
  CHECK(error_of(zero).find("corrupted") != std::string::npos);
  CHECK(error_of("PK\x03\x04 a zip file, not a trace") == "not a warpscope trace");
  CHECK(error_of("{\"kernel\": \"copy\"}") == "not a warpscope trace");
  CHECK(error_of("").find("not a warpscope trace") == 0);

  fs::path d = temp_dir();
  std::string empty = (d / "empty.wstrace").string();
  std::ofstream(empty).close();
  try {
    read_trace(empty);
    FAIL("no error");
  } catch (const FileError& e) {
    CHECK(std::string(e.what()).find(empty) == 0);
    CHECK(std::string(e.what()).find("not a warpscope trace") != std::string::npos);
  }
  try {
    read_trace((d / "missing.wstrace").string());
    FAIL("no error");
  } catch (const FileError& e) {
    CHECK(std::string(e.what()).find("cannot open") == 0);
  }
  CHECK_THROWS_AS(read_trace(d.string()), FileError);
  std::string v9 = (d / "v9.wstrace").string();
  std::ofstream(v9, std::ios::binary) << newer;
  try {
    read_trace(v9);
    FAIL("no error");
  } catch (const FileError& e) {
    CHECK(std::string(e.what()) == v9 + ": trace format version 9 is newer than this warpscope (reads up to 8)");
  }
  fs::remove_all(d);
}

TEST_CASE("hostile payloads with a valid checksum are rejected before allocating") {
  auto corrupt = [](const std::string& payload) {
    std::string e = error_of(with_payload(payload));
    CAPTURE(e);
    CHECK(e.find("trace file is corrupted") == 0);
    return e;
  };
  // Sanity: the hand-made encoding of an empty trace is accepted.
  std::string empty = meta_section(kMeta);
  put<uint32_t>(empty, 0);  // blocks
  put<uint32_t>(empty, 0);  // buffers
  put<uint32_t>(empty, 0);  // sites
  put<uint64_t>(empty, 0);  // records
  CHECK(decode_trace(with_payload(empty)).launch().kernel == "k");

  corrupt("");
  {
    std::string p;
    put<uint64_t>(p, ~uint64_t(0));  // metadata "longer than the universe"
    corrupt(p);
  }
  corrupt(meta_section("not json") + std::string(20, '\0'));
  corrupt(meta_section("[1,2]") + std::string(20, '\0'));
  corrupt(meta_section(std::string(100000, '[') + std::string(100000, ']')) + std::string(20, '\0'));
  corrupt(meta_section(R"({"kernel":"k","params":{"a":"x"},"grid":[1,1,1],"block":[1,1,1]})") + std::string(20, '\0'));
  corrupt(meta_section(R"({"kernel":"k","params":{},"grid":[0,1,1],"block":[1,1,1]})") + std::string(20, '\0'));
  corrupt(meta_section(R"({"kernel":"k","params":{},"grid":[1,1],"block":[1,1,1]})") + std::string(20, '\0'));
  corrupt(meta_section(R"({"kernel":"k","params":{},"grid":[1,1,1],"block":[1,1,-1]})") + std::string(20, '\0'));
  corrupt(meta_section(R"({"kernel":7,"params":{},"grid":[1,1,1],"block":[1,1,1]})") + std::string(20, '\0'));
  corrupt(meta_section(R"({"params":{},"grid":[1,1,1],"block":[1,1,1],"bookmarks":[{"caption":"x"}]})") + std::string(20, '\0'));
  {
    std::string p = meta_section(kMeta);
    put<uint32_t>(p, 0xffffffffu);  // blocks
    corrupt(p);
  }
  {
    std::string p = meta_section(kMeta);
    put<uint32_t>(p, 1);
    put<uint32_t>(p, 1);  // block 1 of a one-block grid
    put<uint32_t>(p, 0);
    put<uint32_t>(p, 0);
    put<uint64_t>(p, 0);
    corrupt(p);
  }
  {
    std::string p = meta_section(kMeta);
    put<uint32_t>(p, 0);
    put<uint32_t>(p, 0xffffffffu);  // buffers
    corrupt(p);
  }
  {
    std::string p = meta_section(kMeta);
    put<uint32_t>(p, 0);
    put<uint32_t>(p, 0);
    put<uint32_t>(p, 1);  // a site on buffer 0 of none
    put<uint32_t>(p, 10);
    put<uint16_t>(p, 0);
    p += std::string("\x00\x00\x04", 3);
    put<uint32_t>(p, 0);
    put<uint64_t>(p, 0);
    CHECK(corrupt(p).find("missing buffer") != std::string::npos);
  }
  {
    std::string p = meta_section(kMeta);
    put<uint32_t>(p, 0);
    put<uint32_t>(p, 0);
    put<uint32_t>(p, 0);
    put<uint64_t>(p, uint64_t(1) << 40);  // records
    CHECK(corrupt(p).find("impossible record count") != std::string::npos);
  }
  {
    std::string p = meta_section(kMeta);
    put<uint32_t>(p, 0);
    put<uint32_t>(p, 0);
    put<uint32_t>(p, 0);
    put<uint64_t>(p, 1);  // a record on site 0 of none
    p += std::string(24, '\0');
    CHECK(corrupt(p).find("missing site") != std::string::npos);
  }
  corrupt(empty + "trailing");
}

TEST_CASE("a decompression bomb is refused") {
  std::string p = meta_section(kMeta);
  put<uint32_t>(p, 0);
  put<uint32_t>(p, 0);
  put<uint32_t>(p, 0);
  put<uint64_t>(p, 0);
  p += std::string(size_t(256) << 20, '\0');  // compresses far beyond any real trace
  std::string e = error_of(with_payload(p));
  CHECK(e.find("trace file is corrupted") == 0);

  // The same without the size in the frame header: refused while decompressing.
  std::string z(ZSTD_compressBound(p.size()), '\0');
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  ZSTD_outBuffer ob{z.data(), z.size(), 0};
  ZSTD_inBuffer ib{p.data(), p.size(), 0};
  ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_continue);
  ZSTD_inBuffer none{nullptr, 0, 0};
  while (ZSTD_compressStream2(c, &ob, &none, ZSTD_e_end) != 0) {
  }
  ZSTD_freeCCtx(c);
  std::string file = with_payload("").substr(0, 12) + z.substr(0, ob.pos);
  CHECK(ZSTD_getFrameContentSize(file.data() + 12, file.size() - 12) == ZSTD_CONTENTSIZE_UNKNOWN);
  CHECK(error_of(file) == "trace file is corrupted (payload expands beyond any real trace)");
}

// Versions 2 and 3 by hand: one launch, no file, no array, one atomic site, no record.
std::string one_atomic_site(uint8_t path, bool with_path) {
  std::string p;
  const std::string meta = R"({"launches":[{"kernel":"k","params":{},"grid":[1,1,1],"block":[32,1,1]}]})";
  put<uint64_t>(p, meta.size());
  p += meta;
  put<uint32_t>(p, 0);  // files
  put<uint32_t>(p, 0);  // the launch's blocks
  put<uint32_t>(p, 0);  // buffers
  put<uint32_t>(p, 1);  // sites
  for (uint32_t v : {0u, 19u, 5u, kNoBuffer}) put<uint32_t>(p, v);  // file, line, column, buffer
  for (uint8_t v : {uint8_t(Space::Shared), uint8_t(Op::Atomic), uint8_t(4)}) put<uint8_t>(p, v);
  const std::string in = "atom.shared.add.u32";
  put<uint32_t>(p, uint32_t(in.size()));
  p += in;
  put<uint32_t>(p, 0);  // code
  if (with_path) put<uint8_t>(p, path);
  put<uint64_t>(p, 0);  // records
  return p;
}

TEST_CASE("an atomic site's path: kept by version 3, read as lane by lane from version 2, a bad one refused") {
  const Trace v3 = decode_trace(with_payload(one_atomic_site(uint8_t(AtomicPath::Increment), true), 3));
  REQUIRE(v3.sites.size() == 1);
  CHECK(v3.sites[0].atomic == AtomicPath::Increment);
  CHECK(v3.sites[0].line == 19);
  const Trace v2 = decode_trace(with_payload(one_atomic_site(0, false), 2));
  REQUIRE(v2.sites.size() == 1);
  CHECK(v2.sites[0].atomic == AtomicPath::PerLane);
  CHECK(v2.sites[0].instruction == "atom.shared.add.u32");
  CHECK(error_of(with_payload(one_atomic_site(7, true), 3)) == "trace file is corrupted (unknown atomic path)");
  // A version 2 file read as version 3 runs out of bytes rather than reading garbage.
  CHECK(error_of(with_payload(one_atomic_site(0, false), 3)).find("trace file is corrupted") == 0);
}

TEST_CASE("version 4: a site's form and partner, and the events, read back equal") {
  Trace t = sample(4);
  const uint32_t read = uint32_t(t.sites.size());
  Site r = t.sites[0];
  r.form = Form::AsyncRead;
  r.space = Space::Global;
  r.bytes = 16;
  r.instruction = "cp.async.cg.shared.global";
  Site w = r;
  w.form = Form::AsyncWrite;
  w.space = Space::Shared;
  w.op = Op::Store;
  r.partner = read + 1;
  w.partner = read;
  t.sites.push_back(r);
  t.sites.push_back(w);
  Site mma;
  mma.form = Form::Mma;
  mma.line = 30;
  mma.instruction = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
  t.event_sites.push_back(mma);
  Site commit;  // as the catalog's builder makes an event site: it moves no bytes
  commit.form = Form::Commit;
  commit.line = 31;
  commit.bytes = 0;
  t.event_sites.push_back(commit);
  t.events.push_back(Event{0, 0, 1, 0, 7, 2, 0xffffffffu, 0, 3});
  const Trace back = decode_trace(encode_trace(t));
  CHECK(back == t);
  CHECK(back.events[0].at == 3);  // version 5: its place among the records
  CHECK(back.sites[read].partner == read + 1);
  CHECK(back.events.size() == 1);
  CHECK(to_string(back.event_sites[0].form) == std::string("mma"));
  // A launch's own trace keeps its events and renumbers the pair.
  const Trace one = launch_trace(t, 0);
  CHECK(one.events.size() == 1);
  CHECK(one.event_sites.size() == 1);
  // A memory site of width 0 is still refused.
  Trace bad = t;
  bad.sites[0].bytes = 0;
  CHECK_THROWS_WITH_AS(decode_trace(encode_trace(bad)), doctest::Contains("impossible access width"), FileError);
}

TEST_CASE("version 5: a version 4 file's events read back with no place among the records") {
  Trace t = sample(4);
  Site mma;
  mma.form = Form::Mma;
  mma.line = 30;
  t.event_sites.push_back(mma);
  t.events.push_back(Event{0, 0, 1, 0, 7, 2, 0xffffffffu, 0, 3});
  // The payload ends with the one event's `at` and `barrier`: without them, and called
  // version 4, the file is the one version 4 wrote.
  const std::string file = encode_trace(t);
  std::string payload(ZSTD_getFrameContentSize(file.data() + 12, file.size() - 12), '\0');
  REQUIRE(ZSTD_decompress(payload.data(), payload.size(), file.data() + 12, file.size() - 12) == payload.size());
  payload.resize(payload.size() - 12);
  const Trace v4 = decode_trace(with_payload(without_ctas(payload), 4));
  REQUIRE(v4.events.size() == 1);
  CHECK(v4.events[0].at == kUnplaced);
  CHECK(v4.events[0].seq == 7);
  Trace same = t;
  same.events[0].at = kUnplaced;
  CHECK(v4 == same);
}

TEST_CASE("version 6: an event's mbarrier reads back; a version 5 file's events have none") {
  Trace t = sample(4);
  Site phase;
  phase.form = Form::Phase;
  phase.line = 31;
  phase.instruction = "mbarrier.arrive.expect_tx.shared::cta.b64";
  t.event_sites.push_back(phase);
  Event e{0, 0, 1, 0, 7, 2, 1u, 16384, 3};
  e.barrier = 0x2000;
  t.events.push_back(e);
  const std::string file = encode_trace(t);
  CHECK(decode_trace(file) == t);
  CHECK(to_string(Form::Phase) == std::string("phase"));
  std::string payload(ZSTD_getFrameContentSize(file.data() + 12, file.size() - 12), '\0');
  REQUIRE(ZSTD_decompress(payload.data(), payload.size(), file.data() + 12, file.size() - 12) == payload.size());
  payload.resize(payload.size() - 4);
  const Trace v5 = decode_trace(with_payload(without_ctas(payload), 5));
  REQUIRE(v5.events.size() == 1);
  CHECK(v5.events[0].barrier == kNoBarrier);
  CHECK(v5.events[0].arg == 16384);
  CHECK(v5.events[0].at == 3);
}

TEST_CASE("version 8: a shared array's place in shared memory reads back; a version 7 file has none") {
  Trace t = sample(4);
  t.buffers[2].shared_offset = 4096;  // the tile
  const Trace back = decode_trace(encode_trace(t));
  CHECK(back == t);
  CHECK(back.buffers[2].shared_offset == 4096);
  CHECK(back.buffers[0].shared_offset == ~uint64_t(0));
  // Version 7 had no offset after each array's CTA: a file of it reads with none known.
  const std::string v8 = encode_trace(t);
  std::string payload(ZSTD_getFrameContentSize(v8.data() + 12, v8.size() - 12), '\0');
  REQUIRE(ZSTD_decompress(payload.data(), payload.size(), v8.data() + 12, v8.size() - 12) == payload.size());
  const Trace back7 = decode_trace(with_payload(without_offsets(payload, false), 7));
  CHECK(back7.buffers[2].shared_offset == ~uint64_t(0));
  CHECK(back7.records == t.records);
}

TEST_CASE("version 7: a launch's clusters and another CTA's shared array read back; a version 6 file has neither") {
  Trace t = sample(4);
  t.launches[1].cluster = {2, 1, 1};
  Buffer remote{"tile (CTA rank 1)", Space::Cluster, 4, 32, 33, 33, false, 32 * 33 * 4};
  remote.cta = 2;
  t.buffers.push_back(remote);
  t.sites.push_back({0, 41, 3, Space::Cluster, Op::Load, 4, "ld.shared::cluster.f32", "", 3});
  Record r;
  r.launch = 1;
  r.site = uint32_t(t.sites.size() - 1);
  r.buffer = 3;
  r.active = ~0u;
  t.records.push_back(r);
  const std::string file = encode_trace(t);
  const Trace back = decode_trace(file);
  CHECK(back == t);
  CHECK(back.launches[1].cluster == Dim3{2, 1, 1});
  CHECK(back.launches[0].cluster == Dim3{1, 1, 1});
  CHECK(back.buffers[3].cta == 2);
  CHECK(to_string(Space::Cluster) == std::string("shared::cluster"));
  // A cluster array without its CTA (or a CTA on another array) is refused.
  Trace bad = t;
  bad.buffers[3].cta = 0;
  CHECK_THROWS_WITH_AS(decode_trace(encode_trace(bad)), doctest::Contains("a cluster buffer without its CTA"), FileError);
  bad = t;
  bad.buffers[0].cta = 1;
  CHECK_THROWS_AS(decode_trace(encode_trace(bad)), FileError);
  // Version 6 had no CTA after each array: a file of it reads with none.
  Trace old = sample(4);
  std::string v8 = encode_trace(old);
  std::string payload(ZSTD_getFrameContentSize(v8.data() + 12, v8.size() - 12), '\0');
  REQUIRE(ZSTD_decompress(payload.data(), payload.size(), v8.data() + 12, v8.size() - 12) == payload.size());
  const std::string v6 = without_ctas(payload);
  const Trace back6 = decode_trace(with_payload(v6, 6));
  CHECK(back6.buffers == old.buffers);
  CHECK(back6.records == old.records);
}

TEST_CASE("version 4: a version 3 file reads as plain sites with no events; an unknown form is refused") {
  const Trace v3 = decode_trace(with_payload(one_atomic_site(uint8_t(AtomicPath::PerLane), true), 3));
  REQUIRE(v3.sites.size() == 1);
  CHECK(v3.sites[0].form == Form::Plain);
  CHECK(v3.sites[0].partner == kNoSite);
  CHECK(v3.events.empty());
  std::string p = one_atomic_site(uint8_t(AtomicPath::PerLane), true);
  const std::string tail(8, '\0');  // the records' count
  REQUIRE(p.substr(p.size() - 8) == tail);
  p.resize(p.size() - 8);
  std::string bad = p;
  bad.push_back(char(42));  // no such form
  for (int i = 0; i < 4; ++i) bad.push_back(char(0xff));
  bad += tail;
  CHECK(error_of(with_payload(bad, 4)) == "trace file is corrupted (unknown instruction form)");
  std::string ev = p;
  ev.push_back(char(uint8_t(Form::Mma)));  // an event form in the memory table
  for (int i = 0; i < 4; ++i) ev.push_back(char(0xff));
  ev += tail;
  CHECK(error_of(with_payload(ev, 4)) == "trace file is corrupted (a memory site of an event form)");
}
