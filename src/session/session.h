// src/session/session.h — one launch as every front end sees it: the trace, its analysis,
// and every figure the views draw, as model data (no ImGui, no pixels). Built once from any
// source (a catalog kernel emulated on the CPU or recorded on a GPU, a .wstrace file) on the
// worker (session/worker.h), then shared read-only: the app's panes, `warpscope report`
// and `warpscope export` read the same object, so every number the app shows can be printed
// and tested headless.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/levels.h"
#include "catalog.h"
#include "session/capture.h"
#include "session/launch.h"
#include "trace/trace.h"

namespace ws::session {

// How a buffer is laid out on screen: a rows × cols grid of elements. Row-major arrays
// are drawn with one storage row per grid row (padding columns included, so a TILE+1 tile
// shows its extra column); 1-D arrays wrap every 128 bytes, so for shared memory a grid
// column is a bank. A thin row-major array (rows far shorter than a 128-byte line, as the
// 1024×4 `c` of the PMPP exercise) is folded: `fold` consecutive rows side by side in one
// grid row, a grid row holding one line, so it is a block of legible cells, not a strip
// a few pixels wide. Every grid row is contiguous memory in all of these.
struct GridShape {
  uint32_t rows = 1, cols = 1;   // cells on screen
  uint32_t elem_bytes = 4;
  uint64_t elements = 0;         // elements that exist (the last row may be partial)
  bool col_major = false;        // element e at (e % rows, e / rows)
  bool wrapped = false;          // a 1-D array shown wrapped
  uint32_t fold = 1;             // array rows side by side in one grid row (1: not folded)
  // Cell of element e; false past the end.
  bool cell(uint64_t e, uint32_t& row, uint32_t& col) const {
    if (e >= elements) return false;
    if (col_major) {
      row = uint32_t(e % rows);
      col = uint32_t(e / rows);
    } else {
      row = uint32_t(e / cols);
      col = uint32_t(e % cols);
    }
    return true;
  }
  // Element of a cell (may be >= elements on the partial last row).
  uint64_t element(uint32_t row, uint32_t col) const {
    return col_major ? uint64_t(col) * rows + row : uint64_t(row) * cols + col;
  }
  // The array's shape as declared, rows × columns (padding columns included; a 1-D array
  // is one row).
  uint64_t array_rows() const;
  uint64_t array_cols() const { return wrapped ? elements : col_major ? cols : cols / fold; }
  // The array's index of element e: "[17][1]" (row, column; as declared, so a column-major
  // array's too), "[96]" for a 1-D array.
  std::string index_text(uint64_t e) const;
  // The labels the memory view writes beside grid row `row` and above grid column `col`,
  // naming real indices: the row (or, wrapped, the element) the grid row starts with, and
  // the column; for a folded array "+k" at the start of the k-th array row of the grid row.
  std::string row_label(uint32_t row) const;
  std::string col_label(uint32_t col) const;
  // What those labels count, for the axis titles: "row" and "column"; a wrapped 1-D
  // array's rows start at an "element" and its columns are the "offset" from it.
  const char* row_axis() const { return wrapped ? "element" : "row"; }
  const char* col_axis() const { return wrapped ? "offset" : "column"; }
  // The spacing of column labels at least `min_step` apart: a power of two (a multiple of
  // the array row for a folded array, so every label starts an array row).
  uint32_t col_label_step(uint32_t min_step) const;
};
GridShape grid_shape(const trace::Buffer& b);

// Statistics of one kernel source line (all sites on it), for the source gutter.
struct LineStat {
  uint32_t line = 0;
  bool global = false;
  uint64_t requests = 0;
  double sectors_per_request = 0, ideal_per_request = 0;  // global sites of the line
  bool shared = false;
  uint32_t max_way = 0;                                     // shared sites of the line
  double wavefronts_per_request = 0;
  double ratio = 1;        // worst cost / ideal on the line: 1 is perfect
  std::string badge;       // "in 4 · tile 32-way": per array, sectors per request or n-way
  struct Part {
    std::string text;      // "in 4", "tile 32-way"
    double ratio = 1;      // its cost / ideal, for its colour
    uint32_t site = 0;
  };
  std::vector<Part> parts;
  std::vector<uint32_t> sites;
  // What a GPU executed for the line, where the Session has the program's SASS trace:
  // "H100 ran 512 LDS + 128 LDS.128 a block for 1024 ld.shared.f32: ptxas merged …".
  std::vector<std::string> hardware;
};

// One source file as the source panel shows it: its text, and the cost of each line of it
// that accesses memory.
struct SourceText {
  uint32_t file = 0;                   // index into the trace's file table
  std::string name;                    // its path, as the trace names it
  bool toolkit = false;                // a header of the CUDA toolkit (cooperative groups, …)
  std::vector<std::string> lines;      // line 1 at index 0
  std::map<uint32_t, LineStat> stats;  // by line: the gutter's figures
};

// The figures of one request (one warp instruction), as the warp inspector and the
// memory view show them. Every figure comes from the analysis.
struct RequestFigures {
  uint64_t step = 0;
  const trace::Record* rec = nullptr;
  const trace::Site* site = nullptr;
  const trace::Buffer* buffer = nullptr;
  bool shared = false;
  int active_lanes = 0;
  analysis::GlobalCost g;                       // global: sectors, lines, efficiency
  analysis::SharedCost s;                       // shared: wavefronts, n-way
  std::vector<analysis::SectorBytes> sectors;   // global: lane -> bytes of each sector
  std::vector<uint64_t> lines;                  // global: 128-byte lines touched
  std::vector<analysis::BankWord> banks;        // shared: lane -> word, bank and phase
  uint32_t broadcast = 0;                       // shared: lanes sharing a word (bit per lane)
  uint32_t phases = 1;                          // lanes are served in phases of 32 / phases
  std::string why;                              // one plain-language line
};

// Sums over the whole trace, per memory space (the A/B strip compares them).
struct Totals {
  uint64_t global_requests = 0, sectors = 0, ideal_sectors = 0;
  uint64_t shared_requests = 0, wavefronts = 0, ideal_wavefronts = 0;
  uint32_t max_way = 0;
  // The bytes the lanes asked for (what the kernel needed), global and shared: the fair
  // measure of a vector load's sectors and wavefronts.
  uint64_t global_bytes = 0, shared_bytes = 0;
};

// What to step over: one request, to the next warp's run, to the next barrier epoch.
enum class StepUnit : uint8_t { Request, Warp, Epoch };

class Session {
 public:
  // ---- sources (each runs where it is called: the worker calls them off the UI thread)
  // A launch run by capture() (emulator or GPU, records or counts).
  static std::shared_ptr<Session> from_capture(Capture c, const Launch& launch, LaunchSpec spec);
  // Launch `launch` of a saved .wstrace file. Throws trace::FileError, and InputError for a
  // launch the file does not have.
  static std::shared_ptr<Session> from_file(const std::string& path, const analysis::DramModel& dram,
                                            uint32_t launch = 0);
  // Launch `launch` of the user's CUDA program, compiled and run on the emulated device
  // (every launch recorded; the others reached with of_launch). Throws program::Error, and
  // InputError for a launch the program did not make.
  // With `nearest`, a launch past the program's last shows the last one, with a note.
  static std::shared_ptr<Session> from_program(const program::Options& o, const analysis::DramModel& dram,
                                               uint32_t launch = 0, bool nearest = false);
  // Launch `launch` of a trace built elsewhere (tests, benchmarks). Throws InputError for a
  // launch the trace does not have.
  // `hardware`: the same program's SASS trace, for the source panel (null: none).
  static std::shared_ptr<Session> from_trace(std::shared_ptr<const trace::Trace> t, const analysis::DramModel& dram,
                                             uint32_t launch = 0, std::shared_ptr<const trace::Trace> hardware = nullptr);
  // Launch `k` of the same source (file name and origin kept). Throws InputError.
  std::shared_ptr<Session> of_launch(uint32_t k, const analysis::DramModel& dram) const;
  // The same trace analysed with another DRAM model (the trace is shared, not copied).
  std::shared_ptr<Session> reanalyzed(const analysis::DramModel& dram) const;

  std::shared_ptr<const trace::Trace> source;        // the whole trace: every launch
  // The same program as a GPU ran it (a SASS trace: this machine's, or the replay pack's),
  // for the source panel's "what the hardware executed" rows; null when there is none.
  std::shared_ptr<const trace::Trace> hardware;
  std::vector<analysis::LineLevels> hardware_levels;  // this launch's lines beside it (set_hardware)
  // Sets `hardware` and compares it with this launch line by line, once (not on each DRAM change).
  void set_hardware(std::shared_ptr<const trace::Trace> h);
  uint32_t launch = 0;                               // the launch of `source` shown
  std::shared_ptr<const trace::Trace> shared_trace;  // that launch's own trace (launch_trace)
  analysis::Report report;
  const catalog::KernelInfo* kernel = nullptr;  // null for a file of an unknown kernel
  LaunchSpec spec;           // what was asked for (from the trace's launch for a file)
  std::string origin;        // "emulator" | "gpu" | "file" | "program"
  std::string file;          // path when opened from a file
  bool from_gpu = false;     // the records came from a GPU (not the emulator)
  bool counted = false;      // counts mode: `report` covers the whole grid, no records
  bool few_blocks = false;   // the launch was large: its first blocks only (BlockDefault::FewWhenLarge)
  bool checked = false;      // outputs compared with the CPU reference
  double max_rel_error = 0;
  double capture_seconds = 0;
  uint64_t lane_accesses = 0;
  std::string note;          // the capture's note ("no GPU found: ...")
  std::string program_output;  // what a program printed, when it was kept rather than echoed

  std::vector<GridShape> shapes;        // per buffer
  std::vector<uint32_t> warp_starts;    // first record of each (block, epoch, warp) run
  std::vector<uint32_t> epoch_starts;   // first record of each (block, epoch) run
  // The files the source panel can show: the trace's file 0 (the kernel's or program's
  // file) first, then every other file that holds a memory instruction (the program's own
  // headers, then the toolkit's). Never empty.
  std::vector<SourceText> sources;
  const SourceText& main_source() const { return sources.front(); }
  // The source of trace file `file`, null when it holds no memory instruction.
  const SourceText* source_of(uint32_t file) const;
  uint32_t max_epoch = 0;
  Totals totals;

  // The trace of the launch shown: its records only, every table of the whole trace.
  const trace::Trace& trace() const { return *shared_trace; }
  // Launches in the whole trace.
  size_t launches() const { return source ? source->launches.size() : 1; }
  size_t size() const { return shared_trace->records.size(); }
  // One-line description of the launch: "transpose_tiled · size 64 · pad=0".
  std::string title() const;
  // The same in parts: the kernel, "size 64", each parameter "pad=0", "launch 2 of 3".
  std::vector<std::string> title_parts() const;
  // "emulated on CPU" / "recorded on NVIDIA H200" (+ " · from file").
  std::string provenance() const;
  // Whether the outputs matched the CPU reference; "output not checked: ..." otherwise.
  std::string check_text() const { return session::check_text(checked, max_rel_error, trace()); }
  // The outputs were compared and differ: the kernel is wrong.
  bool differs() const { return check_failed(checked, max_rel_error); }

  // Navigation in execution order: the record `dir` (+1 / -1) units of `unit` away from
  // `step`, in [0, size()).
  uint64_t next(uint64_t step, StepUnit unit, int dir) const;
  // The figures of request `step` (clamped; empty for an empty trace).
  RequestFigures request(uint64_t step) const;

 private:
  void index();   // shapes, runs, source lines, lane accesses
  void analyse(const analysis::DramModel& dram);  // report (unless counted), lines, totals
};

// What the records of `s` cover, in words: "all 16 blocks", "blocks 0-3 of 4,096",
// "blocks 0-3 of 4,096, first 50,000 records (1,234 more dropped)", or for counts mode
// "all 4,096 blocks (counted)".
std::string recorded_text(const Session& s);

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

// The source gutter's figures of every line that touches memory, as `warpscope report`
// prints them: text (one line each) and JSON (the report's "source_lines" array).
std::string source_lines_text(const Session& s);
std::string source_lines_json(const Session& s);

// A program's launches as a GPU timed them (bench JSON, program/timing.h): this run's own,
// else those of the replay pack's run of the program (its SASS trace's, with its date).
struct GpuTimes {
  const std::string* json = nullptr;  // null: none
  bool this_run = false;
  std::string date;                   // the replay pack's run (YYYY-MM-DD)
};
GpuTimes gpu_times(const Session& s);

// ---- one step numbering for every front end: the app's timeline, `--step`, slides,
// lessons, captions and file names all say "request K of N" with K counted from 1. Request
// K is record K - 1 in execution order; only the code counts records from 0.
inline uint64_t request_number(uint64_t record) { return record + 1; }
// "request 38 of 512"
std::string request_label(uint64_t record, uint64_t n);
// The record of request `k` typed by a user ("--step", a deck's "step"). Throws InputError
// "request K is out of range: allowed 1..N (N requests)" when there is no such request.
uint64_t record_of_request(int64_t k, uint64_t n);
// A figure's caption: "transpose_tiled · pad=1 · request 38 of 512 · emulated on CPU".
std::string step_caption(const Session& s, uint64_t record);

// The figures of request `step` as the warp inspector shows them (`warpscope report
// --step K`): which lanes read which sector, or which word in which bank and phase.
std::string request_text(const Session& s, uint64_t step);
std::string request_json(const Session& s, uint64_t step);

}  // namespace ws::session
