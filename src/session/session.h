// src/session/session.h — one launch as every front end sees it: the trace, its analysis,
// and every figure the views draw, as model data (no ImGui, no pixels, no prose beyond
// labels: report.h words it). Built once from any origin (a catalog kernel emulated on the
// CPU or recorded on a GPU, a user's program, a .wstrace file) on the worker
// (session/worker.h), then shared read-only: the app's panes, `warpscope report`
// and `warpscope export` read the same object, so every number the app shows can be printed
// and tested headless.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/copies.h"
#include "analysis/levels.h"
#include "analysis/pipeline.h"
#include "catalog.h"
#include "session/capture.h"
#include "session/grid_shape.h"
#include "session/launch.h"
#include "trace/trace.h"

namespace ws::session {

// One line as a GPU ran it beside the emulated device's run of it.
struct LineHardware {
  std::string gpu;                // "H100": the SASS trace's device, short
  bool ptx = true;                // the emulated side names PTX instructions (else the source's accesses)
  analysis::LineLevels levels;    // both sides' instructions a block, and why they differ
};

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
  // What a GPU executed for the line, where the Session has the program's SASS trace
  // (report.h's hardware_text words it: "H100 ran 512 LDS + 128 LDS.128 a block for …").
  std::vector<LineHardware> hardware;
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
  bool modelled = true;  // false: another CTA's shared memory, with no cost (why says so)
  const trace::Trace* trace = nullptr;  // what rec, site and buffer belong to (the lanes' arrays)
  int active_lanes = 0;
  uint32_t past_end = 0;  // lanes whose bytes go past the end of their array (a fault's)
  analysis::GlobalCost g;                       // global: sectors, lines, efficiency
  analysis::SharedCost s;                       // shared: wavefronts, n-way
  std::vector<analysis::SectorBytes> sectors;   // global: lane -> bytes of each sector
  std::vector<uint64_t> lines;                  // global: 128-byte lines touched
  std::vector<analysis::BankWord> banks;        // shared: lane -> word, bank and phase
  uint32_t broadcast = 0;                       // shared: lanes sharing a word (bit per lane)
  uint32_t phases = 1;                          // lanes are served in phases of 32 / phases
  std::vector<analysis::MatrixPhase> matrix;    // ldmatrix / stmatrix: its four 8-row matrices
  uint64_t partner = analysis::kNoRecord;       // an async copy's other half (its record)
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
  // The same cost on every figure the A/B strip compares.
  bool operator==(const Totals&) const = default;
};

// What to step over: one request, to the next warp's run, to the next barrier epoch.
enum class StepUnit : uint8_t { Request, Warp, Epoch };

class Session {
 public:
  // ---- factories: each builds the model from what it is given and reads no file, except
  // from_file, whose input is the file (the worker calls them off the UI thread)
  // A launch run by capture(): a catalog kernel (emulator or GPU, records or counts), or
  // launch `launch.launch` of a program's (every launch recorded; the others reached with
  // of_launch; with `launch.nearest_launch` a launch past its last shows the last, with a
  // note). Throws InputError for a launch the program did not make.
  static std::shared_ptr<Session> from_capture(Capture c, const ResolvedLaunch& launch, LaunchSpec spec);
  // Launch `launch` of a saved .wstrace file. Throws trace::FileError, and InputError for a
  // launch the file does not have.
  static std::shared_ptr<Session> from_file(const std::string& path, const analysis::DramModel& dram,
                                            uint32_t launch = 0);
  // Launch `launch` of a trace built elsewhere (tests, benchmarks). Throws InputError for a
  // launch the trace does not have.
  // `hardware`: the same program's SASS trace, for the source panel (null: none).
  static std::shared_ptr<Session> from_trace(std::shared_ptr<const trace::Trace> t, const analysis::DramModel& dram,
                                             uint32_t launch = 0, std::shared_ptr<const trace::Trace> hardware = nullptr);
  // Launch `k` of the same whole trace (file name and origin kept). Throws InputError.
  std::shared_ptr<Session> of_launch(uint32_t k, const analysis::DramModel& dram) const;
  // The same trace analysed with another DRAM model (the trace is shared, not copied).
  std::shared_ptr<Session> reanalyzed(const analysis::DramModel& dram) const;

  // ---- what was run
  // The whole trace: every launch of the program or file.
  const trace::Trace& whole_trace() const { return *whole_; }
  // The trace of the launch shown: its records only, every table of the whole trace.
  const trace::Trace& trace() const { return *shared_trace_; }
  // The same, shared: a re-analysis keeps it (the app compares them to keep its views).
  const std::shared_ptr<const trace::Trace>& shared_trace() const { return shared_trace_; }
  uint32_t launch() const { return launch_; }  // the launch of whole_trace() shown, from 0
  // Launches in the whole trace.
  size_t launches() const { return whole_ ? whole_->launches.size() : 1; }
  size_t size() const { return shared_trace_->records.size(); }
  // The same program as a GPU ran it (a SASS trace: this machine's, or the replay pack's),
  // for the source panel's "what the hardware executed" rows; null when there is none.
  const std::shared_ptr<const trace::Trace>& hardware() const { return hardware_; }
  const catalog::KernelInfo* kernel() const { return kernel_; }  // null for a file of an unknown kernel
  const LaunchSpec& spec() const { return spec_; }  // what was asked for (from the trace's launch for a file)
  const std::string& origin() const { return origin_; }  // "emulator" | "gpu" | "file" | "program"
  const std::string& file() const { return file_; }      // path when opened from a file or a program
  bool from_gpu() const { return from_gpu_; }        // the records came from a GPU (not the emulator)
  bool counted() const { return counted_; }          // counts mode: report() covers the whole grid, no records
  bool few_blocks() const { return few_blocks_; }    // a large launch: its first blocks only (BlockDefault::FewWhenLarge)
  bool checked() const { return checked_; }          // outputs compared with the CPU reference
  double max_rel_error() const { return max_rel_error_; }
  double capture_seconds() const { return capture_seconds_; }
  uint64_t lane_accesses() const { return lane_accesses_; }
  const std::string& note() const { return note_; }  // the capture's note ("no GPU found: ...")
  // Counts mode on a GPU: the same whole-grid totals from the GPU's own counters (rows empty
  // when they were not read; `unavailable` says why when they could not be).
  const HwCounts& hw_counts() const { return hw_; }
  // What a program printed, when it was kept rather than echoed.
  const std::string& program_output() const { return program_output_; }
  // What stopped the program (a fault, a stopped loop, a failed assert, a crash), with
  // where; empty when nothing did. The same for every launch of the program.
  const program::Problem& problem() const { return problem_; }
  // The request of the shown launch at which it happened (its record), -1 when it happened
  // in another launch, outside a kernel or at no recorded request. For a race: the first
  // request of its first place (the warp, block and line the banner names first).
  int64_t problem_step() const;
  // Whether the request at which it happened stored (an out-of-bounds write), whichever
  // launch is shown.
  bool problem_store() const { return problem_store_; }
  // A program's shared-memory races, every launch's (Race::launch says whose).
  const program::Races& races() const { return races_; }
  // A program's sources and flags as it was built (program::source_hash; "" otherwise).
  const std::string& source_hash() const { return source_hash_; }
  // Where a program's array shapes came from, by array name ("cudaMallocPitch",
  // "annotation", "set in the app"; session/arrays.h).
  const std::map<std::string, std::string>& shape_from() const { return shape_from_; }
  // A program's build: its file, flags and arguments as it was run (empty otherwise).
  const program::Options& program() const { return spec_.program; }

  // ---- its figures
  const analysis::Report& report() const { return report_; }
  const std::vector<GridShape>& shapes() const { return shapes_; }  // per buffer
  const std::vector<uint32_t>& warp_starts() const { return warp_starts_; }    // first record of each (block, epoch, warp) run
  const std::vector<uint32_t>& epoch_starts() const { return epoch_starts_; }  // first record of each (block, epoch) run
  // The files the source panel can show: the trace's file 0 (the kernel's or program's
  // file) first, then every other file that holds a memory instruction (the program's own
  // headers, then the toolkit's). Never empty.
  const std::vector<SourceText>& sources() const { return sources_; }
  const SourceText& main_source() const { return sources_.front(); }
  // The source of trace file `file`, null when it holds no memory instruction.
  const SourceText* source_of(uint32_t file) const;
  uint32_t max_epoch() const { return max_epoch_; }
  const Totals& totals() const { return totals_; }
  // Whether the launch's records reach buffer `b` (a shared array of another launch's kernel
  // does not: the memory view leaves it out).
  bool touches(size_t b) const { return b < touched_.size() && touched_[b]; }
  // The launch's copies into shared memory (async halves paired, source columns) and its
  // events placed among the requests.
  const analysis::Copies& copies() const { return copies_; }
  // Block `block`'s shared ring as its bulk copies filled it (analysis::pipeline_of),
  // computed on first use and kept with the session (the pipeline view asks every frame).
  std::shared_ptr<const analysis::Pipeline> pipeline(uint32_t block) const;

  // One-line description of the launch: "transpose_tiled · size 64 · pad=0".
  std::string title() const;
  // The same in parts: the kernel, "size 64", each parameter "pad=0", "launch 2 of 3".
  std::vector<std::string> title_parts() const;
  // "emulated on CPU" / "recorded on NVIDIA H200" (+ " · from file").
  std::string provenance() const;
  // Whether the outputs matched the CPU reference; "output not checked: ..." otherwise.
  std::string check_text() const { return session::check_text(checked_, max_rel_error_, trace()); }
  // The outputs were compared and differ: the kernel is wrong.
  bool differs() const { return check_failed(checked_, max_rel_error_); }

  // Navigation in execution order: the record `dir` (+1 / -1) units of `unit` away from
  // `step`, in [0, size()).
  uint64_t next(uint64_t step, StepUnit unit, int dir) const;
  // The figures of request `step` (clamped; empty for an empty trace).
  RequestFigures request(uint64_t step) const;

 private:
  // A program's launch `l.launch` (or, with l.nearest_launch, its last) of its capture.
  static std::shared_ptr<Session> of_program(Capture c, const ResolvedLaunch& l);
  void set_hardware(std::shared_ptr<const trace::Trace> h);  // compared with this launch line by line, once
  void index();   // shapes, runs, lane accesses
  void analyse(const analysis::DramModel& dram);  // report (unless counted), lines, totals

  std::shared_ptr<const trace::Trace> whole_;         // every launch
  std::shared_ptr<const trace::Trace> shared_trace_;  // the launch shown (launch_trace)
  std::shared_ptr<const trace::Trace> hardware_;
  std::vector<analysis::LineLevels> hardware_levels_;  // this launch's lines beside hardware_
  uint32_t launch_ = 0;
  analysis::Report report_;
  const catalog::KernelInfo* kernel_ = nullptr;
  LaunchSpec spec_;
  std::string origin_, file_;
  bool from_gpu_ = false, counted_ = false, few_blocks_ = false, checked_ = false;
  double max_rel_error_ = 0, capture_seconds_ = 0;
  uint64_t lane_accesses_ = 0;
  std::string note_, program_output_, source_hash_;
  HwCounts hw_;
  program::Problem problem_;
  int64_t race_step_ = -1;  // a race's request in this launch (place_race)
  bool problem_store_ = false;
  std::vector<uint8_t> touched_;  // per buffer: the launch's records reach it (index)
  void place_race();
  void pick_race();  // a race (no stop) as the problem: the shown launch's own first, else the program's
  program::Races races_;
  std::map<std::string, std::string> shape_from_;
  std::vector<GridShape> shapes_;
  std::vector<uint32_t> warp_starts_, epoch_starts_;
  std::vector<SourceText> sources_;
  uint32_t max_epoch_ = 0;
  Totals totals_;
  analysis::Copies copies_;
  struct PipelineCache {
    std::mutex mu;
    std::map<uint32_t, std::shared_ptr<const analysis::Pipeline>> by_block;
  };
  std::shared_ptr<PipelineCache> pipelines_ = std::make_shared<PipelineCache>();
};

// The line of trace file `file` where the program's problem happened (its first place), 0
// when it happened elsewhere or nowhere known.
uint32_t problem_line(const Session& s, uint32_t file);

// Two builds of one program: the first launch other than `skip` (from 0) whose costs
// differ (Totals), -1 when none does, when the builds made different numbers of
// launches, or when they are too large to look through at once (over 2 M records).
int64_t first_changed_launch(const Session& before, const Session& after, uint32_t skip);

// What the records of `s` cover, in words: "all 16 blocks", "blocks 0-3 of 4,096",
// "blocks 0-3 of 4,096, first 50,000 records (1,234 more dropped)", or for counts mode
// "all 4,096 blocks (counted)".
std::string recorded_text(const Session& s);

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
// A figure's caption: "transpose_tiled · pad=1 · request 38 of 512 · emulated on CPU"; a
// program's names it, its kernel and launch: "transpose.cu · transposeNaive · launch 1 of 3 ·
// request 5 of 128 · emulated on CPU".
std::string step_caption(const Session& s, uint64_t record);
// What a file saved or exported from `s` is called before its view and step: the catalog
// kernel ("transpose_tiled"), or the program, kernel and launch
// ("transpose-transposeTiled_0-launch2").
std::string file_stem(const Session& s);

}  // namespace ws::session
