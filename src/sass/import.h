// src/sass/import.h — a GPU tracer's file (raw.h) made into a trace: each record's SASS
// offset named by the instruction nvdisasm printed there (LDG.E.128, LDS, STS.128) and the
// source line its -lineinfo gives, each address placed in the allocation that holds it
// (named as the program's text names its allocations) or in the block's shared window.
// Pure parsing: what runs the program and the disassembler is in program/ and cli/.
// Engine: a user's program on a GPU (its SASS traced by tools/gpu_tracer; the 2×2 of engines: session/capture.h).
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sass/raw.h"
#include "trace/trace.h"

namespace ws::sass {

struct RawModule {
  uint64_t id = 0;
  std::string cubin;
};
struct RawAlloc {
  uint64_t address = 0, size = 0;
  bool module_data = false;  // a module's own globals and constants
  bool by_program = false;   // made by one of the program's cudaMalloc* calls
  std::string name;          // what the program's line of that call names it ("" where not read)
};
struct RawLaunch {
  LaunchHead head;
  std::string name;                  // as the driver names the function (mangled)
  std::vector<DeviceRecord> records;
  size_t allocs_before = 0;          // allocations made before the launch
  uint32_t warps_per_block = 0;      // with executed_per_warp (a WarpCounts chunk)
  std::vector<uint32_t> executed_per_warp;  // the warps of blocks [block_lo, block_hi); empty: not written
  uint32_t spaces = kRawSpaceGlobal | kRawSpaceShared;  // recorded (a LaunchNote chunk; else both)
  bool unrecorded = false;           // ran unpatched: only its shape and time are known
};
struct RawCapture {
  std::vector<RawModule> modules;
  std::vector<RawAlloc> allocs;
  std::vector<RawLaunch> launches;
};

// Reads a tracer's file; throws std::runtime_error (one line) when it is not one or is cut
// short in a way that loses its first launch.
RawCapture read_raw(const std::string& bytes);

// One SASS instruction as nvdisasm -g prints it.
struct SassInstruction {
  std::string opcode;  // "LDG.E.128", "STS", "LDS.U.128"
  std::string text;    // the whole instruction, operands included
  std::string file;    // from -lineinfo: the source file and line ("" / 0 when none)
  uint32_t line = 0;
};
// Function (as the cubin names it) → SASS offset → instruction.
using Disassembly = std::map<std::string, std::map<uint64_t, SassInstruction>>;

// Parses `nvdisasm -g` (or `cuobjdump -sass`, without lines) output. Code inlined from the
// toolkit's headers, or from a file whose path contains one of `see_through` (warpscope's
// own launch wrappers around a catalog kernel), is given the line of its caller.
Disassembly parse_disassembly(const std::string& text, const std::vector<std::string>& see_through = {});

// The shared variables each kernel declares, from its PTX: entry (mangled) → names in order.
using SharedNames = std::map<std::string, std::vector<std::string>>;
SharedNames ptx_shared_names(const std::string& ptx);

// A shared array a kernel declares: its name, size and alignment, and the shape to show it
// with (1-D, 4-byte words, where nothing better is known).
struct SharedDecl {
  std::string name;
  uint64_t bytes = 0;
  uint32_t align = 4;
  uint32_t elem_bytes = 4;
  uint64_t rows = 1, cols = 1;
};
// Kernel (as a trace's launch names it: "matmulTiled", "transposeTiled<0>", or its name
// without the template arguments) → the shared arrays it declares.
using SharedDecls = std::map<std::string, std::vector<SharedDecl>>;
// The shared arrays of each kernel of `ptx`, with their sizes and alignments.
SharedDecls ptx_shared_decls(const std::string& ptx);
// The shared arrays each kernel's records reach in an emulated trace of the same program,
// with their shapes.
SharedDecls trace_shared_decls(const trace::Trace& t);
// Cuts each kernel's shared window of a GPU trace (one buffer for the whole window) into the
// arrays `decls` gives it, where the trace proves the layout: lines that name one array show
// which offsets it covers, and exactly one packing of the arrays agrees with all of them.
// Records move to their arrays with offsets from each array's start; a window it cannot
// place stays whole.
void split_shared_windows(trace::Trace& t, const SharedDecls& decls);

struct ImportOptions {
  std::vector<std::string> names;  // the program's allocations, in the order it makes them
  bool names_given = false;        // `names` are the caller's own (a catalog kernel's arrays): they win over the lines' names
  std::string device;              // "NVIDIA H100 80GB HBM3"
  uint64_t max_records = ~uint64_t(0);
  SharedNames shared;              // a kernel's one shared array names its window ("transposeTiled::tile")
};

// The trace of `raw`: one launch per traced launch, its records grouped as the GPU ran
// them (one per warp instruction), sites per SASS instruction (opcode, width, line).
// `disassembly` by module id; a module without one keeps sites named by space and width.
trace::Trace to_trace(const RawCapture& raw, const std::map<uint64_t, Disassembly>& disassembly,
                      const ImportOptions& o);

// One line naming each launched kernel whose SASS issues copies the GPU tracer cannot
// record (UTMALDG, UTMASTG, UTMAREDG, UBLKCP, UBLKRED ...: the TMA and bulk copies) and
// their lines, then why; "" where none does (unseen.cpp).
std::string unseen_copies(const RawCapture& raw, const std::map<uint64_t, Disassembly>& disassembly);

// The kernel's name as the source writes it: "transposeTiled" for "_Z14transposeTiledPfPKfi".
std::string plain_name(const std::string& mangled);

}  // namespace ws::sass
