// src/trace/trace.h — what a capture produced, whatever produced it (a catalog kernel on
// the CPU emulator or the GPU recorder, a file): the source files, the launches, the arrays,
// the access sites and one record per warp-level memory instruction. Depends on nothing
// else in warpscope. Backends fill it through trace::Builder (builder.h).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/site_key.h"  // Op, and the site key of the catalog's instrumented kernels

namespace ws::trace {

// Where an access goes. Local is a thread's own frame, Constant the __constant__ bank.
// Cluster: another CTA's shared memory, reached through a shared::cluster address
// (distributed shared memory, thread block clusters): its own path between SMs, with no
// cost model here (neither sectors nor bank wavefronts are claimed for it).
enum class Space : uint8_t { Global = 0, Shared = 1, Local = 2, Constant = 3, Cluster = 4 };
constexpr uint8_t kSpaceCount = 5;

const char* to_string(Space s);
const char* to_string(Op o);
// The space to_string() names so ("global"); none for any other text.
std::optional<Space> space_named(std::string_view name);

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
  bool operator==(const Dim3&) const = default;
};

// One array, so that any (buffer, offset) maps back to a matrix cell.
struct Buffer {
  std::string name;        // "A", "in", "tile", "d_out"
  Space space = Space::Global;
  uint32_t elem_bytes = 4;
  uint64_t rows = 1, cols = 1;  // logical shape
  uint64_t pitch = 0;           // elements between rows (0 = cols)
  bool col_major = false;       // element (r, c) at c * pitch + r when true
  uint64_t size_bytes = 0;
  // A Cluster buffer: 1 + the rank, within the accessing block's cluster, of the CTA whose
  // shared array it is; 0 for every other buffer.
  uint32_t cta = 0;
  // A shared array's first byte in the block's shared memory, where the backend knows it
  // (the emulated device): what names an mbarrier by its array ("full[1]"); ~0: not known.
  uint64_t shared_offset = ~uint64_t(0);
  uint64_t row_pitch() const { return pitch ? pitch : (col_major ? rows : cols); }
  bool operator==(const Buffer&) const = default;
};

// Another CTA's copy of shared array `array` as a Cluster buffer names it ("tile (CTA
// rank 1)"), and the array's own name of any buffer ("tile" of that one).
std::string cluster_buffer_name(const std::string& array, uint32_t rank);
std::string array_name(const Buffer& b);

// A shared array as a backend meets it: declared by the kernel, with its shape.
Buffer shared_buffer(std::string name, uint32_t elem_bytes, uint64_t rows, uint64_t cols, uint64_t size_bytes);

// A source file of the program, as compiled: "transpose.h", "prog.cu".
struct SourceFile {
  std::string name;
  std::string text;
  bool operator==(const SourceFile&) const = default;
};

// No array: a site whose records reach several arrays has no one buffer.
constexpr uint32_t kNoBuffer = 0xffffffffu;

// How the compiled code carries out an atomic site's lanes, where the backend can tell
// from the instruction (the emulated device's PTX); a GPU trace's SASS opcode says it
// instead (analysis::serialized_atomic).
enum class AtomicPath : uint8_t {
  PerLane = 0,    // each lane's update reaches memory: lanes on one address take turns
  Increment = 1,  // an add of the constant 1 in shared memory: ATOMS.POPC.INC counts the lanes of each word
  Combined = 2,   // an address uniform by construction: ptxas combines the warp's updates into one
};
constexpr uint8_t kAtomicPathCount = 3;

// What a site's instruction does beyond a plain per-lane access; a record keeps the same
// shape whatever the form (one address per lane), the form says how to read it.
//   Matrix: ldmatrix / stmatrix. Each lane names one 16-byte row of an 8x8 matrix of 16-bit
//     elements (lanes 8m..8m+7 give matrix m's rows; .x1/.x2 use the first 8/16 lanes);
//     the shared-memory cost is that of a 16-byte-a-lane access, one phase per matrix.
//   AsyncRead: cp.async's global read, recorded when the copy is issued.
//   AsyncWrite: the same copy's shared write, recorded when it lands (the wait that
//     covers it). The k-th AsyncWrite record of a warp at a site is the copy of the k-th
//     AsyncRead record of that warp at its partner site.
//   BulkRead / BulkWrite: cp.async.bulk(.tensor), a TMA box: one record per 512 bytes of
//     the box, each "lane" a 16-byte piece of it; the write lands at the mbarrier wait.
// Event forms (sites of Trace::event_sites only, no memory): Mma (mma.sync / wmma.mma, the
// fragments it consumed), Commit (cp.async.commit_group), Wait (cp.async.wait_group/_all,
// an mbarrier wait), Registers (setmaxnreg: a warpgroup's registers a thread, the new count
// in the event's argument).
enum class Form : uint8_t {
  Plain = 0,
  Matrix = 1,
  AsyncRead = 2,
  AsyncWrite = 3,
  BulkRead = 4,
  BulkWrite = 5,
  Mma = 6,
  Commit = 7,
  Wait = 8,
  Phase = 9,  // an mbarrier's phase completing: its arrivals in and its transaction bytes landed
  Registers = 10,  // setmaxnreg: the warpgroup's registers a thread from here on
};
constexpr uint8_t kFormCount = 11;
// The registers a thread of a block of `threads` threads has at launch when the block has
// the SM's 65,536 alone (one block an SM, as a kernel that moves registers between its
// warpgroups with setmaxnreg is launched): the register file shared by its warps, in units
// of 8 (384 threads: 168).
constexpr uint32_t registers_at_launch(uint64_t threads) {
  const uint64_t lanes = (threads + 31) / 32 * 32;
  return lanes ? uint32_t(std::min<uint64_t>(65536 / lanes / 8 * 8, 256)) : 0;
}
// Whether setmaxnreg may give a thread `n` registers: 24 to 256, a multiple of 8.
constexpr bool register_count_ok(int64_t n) { return n >= 24 && n <= 256 && n % 8 == 0; }
const char* to_string(Form f);
// A form a record of memory may have (the event forms are not).
inline bool is_memory_form(Form f) { return uint8_t(f) <= uint8_t(Form::BulkWrite); }

// No site (an async copy half with no partner).
constexpr uint32_t kNoSite = 0xffffffffu;

// One memory instruction of the program: where it is in the source, what it does, and,
// where the backend knows it, the instruction itself.
struct Site {
  uint32_t file = 0;        // index into Trace::files
  uint32_t line = 0;        // 1-based
  uint32_t column = 0;      // 1-based; 0: not known
  Space space = Space::Global;
  Op op = Op::Load;
  uint8_t bytes = 4;        // bytes per lane: 1, 2, 4, 8 or 16
  std::string instruction;  // "ld.shared.f32", "LDS.128"; "" when not known
  std::string code;         // the source line, trimmed
  uint32_t buffer = kNoBuffer;  // the array every record of the site reaches (kNoBuffer: several)
  AtomicPath atomic = AtomicPath::PerLane;  // Op::Atomic only
  Form form = Form::Plain;
  uint32_t partner = kNoSite;  // an async copy's other half (AsyncWrite: its read; AsyncRead: its write)
  bool operator==(const Site&) const = default;
};

// The key of a catalog kernel's site (site_key.h): line, array, op, width and form.
inline uint32_t key_of(const Site& s) {
  return with_form(make_key(s.line, s.buffer, uint32_t(s.op), s.bytes), uint32_t(s.form));
}

constexpr int kWarpSize = 32;

// The arrays of a record's lanes, when they are not all one.
using LaneBuffers = std::array<uint32_t, kWarpSize>;

// One warp-level memory instruction as executed. Each lane's address is (buffer, byte
// offset): `buffer` for every lane, unless `lanes` holds one buffer per lane (an
// instruction whose pointer reaches different arrays in different lanes).
struct Record {
  uint32_t launch = 0;  // index into Trace::launches
  uint32_t block = 0;   // linear block id: x + gx * (y + gy * z)
  uint32_t warp = 0;    // warp within the block
  uint32_t site = 0;    // index into Trace::sites
  uint32_t seq = 0;     // dynamic index of this instruction within its warp
  uint32_t epoch = 0;   // barriers the block had passed when it executed
  uint32_t active = 0;  // bit i set: lane i took part
  uint32_t buffer = 0;  // the array of the lanes (of the first active lane when `lanes` is set)
  std::shared_ptr<const LaneBuffers> lanes;  // null: every lane in `buffer`
  std::array<uint32_t, kWarpSize> offset{};  // byte offset into the lane's array
  bool lane_active(int lane) const { return (active >> lane) & 1u; }
  uint32_t buffer_of(int lane) const { return lanes ? (*lanes)[size_t(lane)] : buffer; }
  // A lane's position in one address space of all arrays: the offset, with the array
  // folded in above bit 40 when the lanes reach several arrays (arrays never share a
  // sector or a bank word). Equal to the offset in the common one-array case.
  uint64_t address(int lane) const {
    return lanes ? (uint64_t((*lanes)[size_t(lane)]) << 40) + offset[size_t(lane)] : offset[size_t(lane)];
  }
  bool operator==(const Record& o) const;
};

constexpr uint64_t kUnplaced = ~uint64_t(0);
constexpr uint32_t kNoBarrier = ~uint32_t(0);

// One warp-level instruction that moves no memory but that a view shows in time: an mma
// (which lanes' registers fed it), an async copy's commit or wait. `site` indexes
// Trace::event_sites; the other fields are those of a Record.
struct Event {
  uint32_t launch = 0;
  uint32_t block = 0;
  uint32_t warp = 0;
  uint32_t site = 0;
  uint32_t seq = 0;    // the warp's instruction count, on the same scale as its records' seq
  uint32_t epoch = 0;
  uint32_t active = 0;
  uint32_t arg = 0;    // Wait: the groups it lets stay in flight (wait_group N); Phase: the
                       // transaction bytes the phase expected and received; 0 otherwise
  // Its place among every warp's requests: the launch's records made before it (a warp
  // that made no record for a while is still placed in time); kUnplaced in a file of
  // format 4, which did not keep it.
  uint64_t at = kUnplaced;
  // Phase, and an mbarrier's Wait: the mbarrier's byte offset in the block's shared memory
  // (kNoBarrier: none, or a file of format 5 or older).
  uint32_t barrier = kNoBarrier;
  bool operator==(const Event&) const = default;
};

// One kernel launch: what ran, its shape, and what of it was kept.
struct Launch {
  std::string kernel;                     // catalog id, or the kernel's name in a program
  std::map<std::string, int64_t> params;  // a catalog entry's values ("size" included); empty otherwise
  Dim3 grid, block;
  Dim3 cluster;  // thread block clusters (1, 1, 1: none)
  uint32_t dynamic_shared_bytes = 0;
  std::vector<uint32_t> blocks;  // linear ids of the blocks that were recorded
  uint64_t dropped_records = 0;  // records past the capture cap (never silent)
  // What running it took, where the backend measured it (a program's emulated launches):
  // lane accesses executed and seconds of emulation; 0 when not measured.
  uint64_t lane_accesses = 0;
  double seconds = 0;
  // The emulated device's engine that ran it ("compiled", "interpreter"); "" elsewhere.
  std::string engine;
  // False for a launch run on the fast path (a kernel's launches after its first few): its
  // grid, block and figures are kept, no blocks and no records.
  bool recorded = true;
  // Not run again (unrecorded): launch `same_as` (1-based) had the same kernel, grid,
  // parameters and input bytes, and its outputs were still in place; 0 when it ran.
  uint32_t same_as = 0;
  // With same_as: the launch's atomic updates of arrays it never reads (reductions) were
  // kept instead of made, to be made in order when such an array is next read.
  bool reductions_due = false;
  // Spaces the recorder was told to leave out (a GPU trace of global accesses only): their
  // accesses ran unseen, so their figures are unknown, not zero. Empty: every space.
  std::vector<Space> unrecorded_spaces;
  bool operator==(const Launch&) const = default;
  // Block coordinates of a linear block id.
  Dim3 block_coords(uint32_t linear) const;
  // The thread block cluster's shape, whole clusters only (else 1 × 1 × 1: every CTA its
  // own cluster), and the linear ids of `block`'s cluster by rank (x fastest).
  Dim3 cluster_dims() const;
  std::vector<uint32_t> cluster_blocks(uint32_t block) const;
};

// What recorded a trace, where and when.
struct Provenance {
  std::string backend;  // "emulator" | "gpu" | "file"
  std::string device;   // "CPU emulator" or the GPU name
  std::string date;     // ISO 8601, UTC
  std::string version;  // warpscope version that recorded it
  bool operator==(const Provenance&) const = default;
};

// A step a teacher marked, with a caption.
struct Bookmark {
  uint64_t record = 0;
  std::string caption;
  bool operator==(const Bookmark&) const = default;
};

struct Trace {
  Provenance provenance;
  std::vector<SourceFile> files;
  std::vector<Launch> launches;
  std::vector<Buffer> buffers;
  std::vector<Site> sites;
  std::vector<Record> records;  // launch by launch; in execution order within a launch
  std::string timings_json;     // optional, opaque to the trace layer
  std::vector<Bookmark> bookmarks;
  std::vector<Site> event_sites;  // the instructions of `events` (event forms)
  std::vector<Event> events;      // launch by launch; in execution order within a launch
  bool operator==(const Trace&) const = default;

  // The first launch: the one launch of a catalog trace. A trace with no launch has an
  // empty one.
  const Launch& launch() const;
  Launch& launch();
  // The name of file `f` ("" when the trace has none), and of a site's file.
  const std::string& file_name(uint32_t f) const;
  const std::string& file_name(const Site& s) const { return file_name(s.file); }
};

// The trace of launch `k` alone, as a one-launch trace: its records, blocks and shape, the
// sites it executed (numbered anew, in the whole table's order) and its bookmarks; every
// file and array kept. What a view of one launch reads. Throws std::out_of_range for a
// launch the trace does not have.
Trace launch_trace(const Trace& t, uint32_t k);

// Line `line` (1-based) of `text` as written, or "" past the end.
std::string line_text(const std::string& text, uint32_t line);
// The same with leading/trailing blanks removed.
std::string source_line(const std::string& text, uint32_t line);

// Now, as Provenance::date writes it: "2026-11-23T01:40:00Z".
std::string utc_now();

// The one-line error of an access outside its array, as every backend reports it:
// "out-of-bounds access to 'A' at kernel line 12: byte offset 4096 of 4096 (thread 3,0 of
// block 1,0)".
std::string out_of_bounds_text(const std::string& array, uint32_t line, int64_t offset, uint64_t size,
                               const uint32_t thread[2], const uint32_t block[2]);

}  // namespace ws::trace
