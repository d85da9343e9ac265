// src/ui/timing.h — what the timing panel shows, and where it comes from. Two sources
// fill the same tables: live timings of the plain kernels on this machine's GPU (a
// callback the app supplies when there is one), and the replay pack recorded on a real
// GPU (JSON under assets/replay/). The panel never knows which, beyond the label. Both
// are bench JSON, read by trace::read_bench (trace/bench.h describes the format), into
// the bench's own rows. One object, Timing, owns both sources and hands every view the
// figures it shows.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "catalog.h"
#include "session/session.h"
#include "trace/bench.h"

namespace ws::ui {

// One timed kernel: a bench row that passed its check and has a figure.
using TimingSample = trace::BenchRow;

struct TimingTable {
  std::string origin;   // "live" | "replay" | "trace"
  std::string device;   // GPU name
  std::string date;     // when it was measured
  std::string file;     // where it was read from
  double cublas_gflops = 0;  // the references measured in the same run (0: unknown)
  double copy_gbs = 0;
  int64_t cublas_size = 0;   // the SGEMM edge cuBLAS ran at (0: unknown)
  uint64_t copy_bytes = 0;   // bytes read + written by the reference copy (0: unknown)
  double hgemm_gflops = 0;   // cuBLAS HGEMM, the tensor-core rows' reference (0: unknown)
  int64_t hgemm_size = 0;
  std::vector<TimingSample> samples;
};

// Parses bench JSON. Returns false and sets `error` when the text is not such JSON or
// holds no usable timing.
bool parse_bench_json(const std::string& text, TimingTable& out, std::string& error);
// Reads every *.json under `dir` (recursively). Files that do not parse are skipped and
// named in `message`; a missing directory gives no tables and an empty message.
std::vector<TimingTable> load_replay_pack(const std::string& dir, std::string& message);
// The bundled replay pack's folder wherever the app was started from: "replay" under the
// first assets folder trace::find_asset finds (next to the binary, share/warpscope, the
// source tree); "" when there is none.
std::string bundled_replay_dir();

// Live timings: given catalog ids and the parameters on screen (pad, tile, ...; each
// kernel takes those it has), returns bench JSON for them at a realistic size (throws on
// failure). The app supplies one when a GPU backend is built in; none: no live timings.
using LiveBench = std::function<std::string(const std::vector<std::string>& kernels,
                                            const std::map<std::string, int64_t>& params)>;

// Live timings on this machine's GPU through the session's bench, a short budget per
// kernel so a refresh takes a few seconds; empty when this machine cannot bench.
LiveBench gpu_live_bench();

// Runs a LiveBench on its own thread, so timing never blocks a frame.
class LiveTimer {
 public:
  explicit LiveTimer(LiveBench bench);
  ~LiveTimer();
  bool available() const { return bool(bench_); }
  // Asks for fresh timings of `kernels` (replaces a pending request).
  void request(std::vector<std::string> kernels, std::map<std::string, int64_t> params);
  bool busy() const;
  // The newest finished table, if one arrived since the last call.
  std::optional<TimingTable> take(std::string& error);

 private:
  void loop();
  LiveBench bench_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  struct Pending {
    std::vector<std::string> kernels;
    std::map<std::string, int64_t> params;
  };
  std::optional<Pending> pending_;
  std::optional<TimingTable> done_;
  std::string error_;
  bool running_ = false, stop_ = false;
  std::thread thread_;
};

// Everything the panel can show: replay tables, live tables, and a history of live
// figures per kernel.
struct TimingStore {
  std::vector<TimingTable> replay;
  std::optional<TimingTable> live;
  std::map<std::string, std::vector<double>> live_history;  // kernel -> ms, oldest first
  std::string message;                                      // pack problems, live errors
  // Best sample for a kernel: live first, then the newest replay table. `table` gets the
  // table it came from. Prefers a sample whose params match `params` where given.
  const TimingSample* find(const std::string& kernel, const std::map<std::string, int64_t>& params,
                           const TimingTable** table) const;
  // Takes a live table. Rows of the same device's earlier live table that `t` does not
  // time again are kept, so the variants timed one after another show side by side.
  void add_live(TimingTable t);
};

// ---- the panel's ladder -------------------------------------------------------------------

// One bar of the timing panel: one kernel of the family with one set of parameters.
struct LadderRow {
  const catalog::KernelInfo* kernel = nullptr;
  const TimingSample* sample = nullptr;  // null: the table holds no timing of this kernel
  std::string name;                      // the id less the family's common prefix: "tiled"
  std::string variant;                   // the parameters that tell it apart: "pad=1" ("" : none)
  bool here = false;                     // the kernel with the parameters on screen
  bool same_kernel = false;              // the kernel on screen (with these or other parameters)
  double value = 0;                      // in the ladder's unit (0: not measured)
  double pct = -1;                       // of the ladder's reference (< 0: unknown)
  std::string size;                      // what the timed size is for this kernel ("8192 × 8192 floats")
  bool published = false;                // the published kernel the row above reproduces, timed beside it
};

// The timing panel's content for the family of the kernel on screen, every row from one
// table (so one device and one run): live when the live table times the family, else the
// newest replay table that does.
struct TimingLadder {
  const TimingTable* table = nullptr;    // null: no timings of this family
  bool compute = false;                  // GFLOP/s against cuBLAS; else GB/s against a device copy
  std::string unit;                      // "GFLOP/s" | "GB/s"
  std::string ref;                       // "cuBLAS SGEMM" | "cuBLAS HGEMM" | "device-to-device copy"
  double ref_value = 0;                  // the reference, in `unit` (0: unknown)
  std::string ref_size;                  // "4096³" | "256 MiB" ("" : unknown)
  std::string size;                      // the rows' size ("8192 × 8192 floats"); rows of another
                                         // size are named after it ("; pmpp_exercise 16 Mi threads")
  std::vector<LadderRow> rows;           // ladder (catalog) order; a kernel's rows by parameter value
  int here = -1;                         // the row on screen, or -1
};

// The ladder of `kernel`'s family. `params`: the values on screen by name (each kernel
// takes those it has, its defaults for the rest; "size" is ignored, timings are taken at
// the bench size).
TimingLadder timing_ladder(const TimingStore& store, const std::string& kernel,
                           const std::map<std::string, int64_t>& params);
// `s` as a percentage of the reference measured in the same run: cuBLAS SGEMM or, for
// half-input rows, HGEMM (GFLOP/s, `compute`) or a device-to-device copy (GB/s). < 0 when
// unknown.
double percent_of_reference(const TimingSample& s, const TimingTable& t, bool compute);
// What a bench row's size means for kernel `k`, with `params` ("size" included) as timed:
// "4096³ SGEMM", "4096³ HGEMM", "8192 × 8192 floats", "64 Mi floats" (a copy), "16 Mi threads".
std::string bench_size_text(const catalog::KernelInfo& k, const std::map<std::string, int64_t>& params);

// ---- the one home of timings -------------------------------------------------------------

// One launch of a program as a GPU timed it, in pieces the panel may wrap between but never
// inside ("0.005728 ms" stays whole).
struct ProgramTimeRow {
  uint32_t launch = 0;               // 1-based ("launch 2" of the row; 0: not said)
  std::string head;                 // "launch 2  transposeTiled<0><<<(2,2), (32,32)>>>"
  std::vector<std::string> figures;  // "0.005728 ms", "(0.0055 to", "0.0061 ms,", "50 runs)", "67 GFLOP/s", ...
  // Why its percentage means little, shown beside it ("" : it means what it says): a
  // launch of a few microseconds is mostly the launch itself, the yardstick's too.
  std::string caveat;
  std::vector<std::string> notes;   // the row's own remarks, an error
};

// A program's own launches timed on a GPU, as the timing panel lists them.
struct ProgramTimes {
  std::string from;  // "this run" | "replay pack, DATE"
  std::string text;  // trace::program_times_text of the timings (what `warpscope run` prints)
  std::string device;                       // the GPU that timed them
  std::vector<ProgramTimeRow> rows;
  std::vector<std::vector<std::string>> yardsticks;  // each line in pieces: cuBLAS, the copy
  std::string hint;                         // no launch said its work: how to say it
  // The file was edited since these were measured: "the file as it was at 14:02 UTC, before
  // your edit" ("" : they are the file's as it is).
  std::string edited;
};

// `text` in the pieces a line may wrap between: at spaces, a number kept with the word after
// it ("0.5405 ms", "67 GFLOP/s", "50 runs)").
std::vector<std::string> unbroken_pieces(const std::string& text);
// The panel's rows of bench JSON of a program's launches (read_bench's result).
ProgramTimes program_time_rows(const trace::BenchResult& b);
// Whether the program `m` was built from differs from its files now (program::source_hash
// again); "" when not, else "the file as it was at HH:MM UTC, before your edit".
std::string edited_since(const session::Session& m);

// Every timing the app shows: the replay pack read at start, the live bench on its own
// thread following the family on screen, and the figures the timing panel, its header,
// the A/B strip and the windows JSON read from them.
class Timing {
 public:
  // Reads the replay pack under `replay_dir`; `live` empty: no live timings here.
  Timing(LiveBench live, const std::string& replay_dir);
  // Takes the live table that arrived since the last frame, if any.
  void poll();
  // Asks the live bench for the family of `m`'s kernel with `params` when they are not
  // the ones it last timed.
  void follow(const session::Session* m, const std::map<std::string, int64_t>& params);
  bool live_available() const { return live_.available(); }
  bool live_busy() const { return live_.busy(); }
  const TimingStore& store() const { return store_; }
  // Problems of the pack or the live bench ("" : none).
  const std::string& message() const { return store_.message; }
  // Where the figures come from, for the panel's header.
  std::string caption() const;
  // The ladder of `kernel`'s family (timing_ladder over the store).
  TimingLadder ladder(const std::string& kernel, const std::map<std::string, int64_t>& params) const;
  // The best sample of `kernel` (TimingStore::find).
  const TimingSample* find(const std::string& kernel, const std::map<std::string, int64_t>& params,
                           const TimingTable** table) const {
    return store_.find(kernel, params, table);
  }
  // This run's GPU times of the program `m` shows, else the replay pack's (the same code's
  // only: matched by the hash of its sources and flags); none for a catalog kernel or a
  // program never timed. Marked `edited` when the file changed since they were measured.
  std::optional<ProgramTimes> program_times(const session::Session& m);
  // Whether `m`'s program file changed since it was built (edited_since, checked again only
  // when the file's time changes).
  const std::string& edited(const session::Session& m);

 private:
  TimingStore store_;
  LiveTimer live_;
  std::string family_;  // the family and parameters the live bench was last asked for
  std::string read_from_;  // the timings program_times last read (read once, not per frame)
  ProgramTimes program_;
  std::string edited_for_;  // the source hash and file time edited() last checked, and its answer
  std::string edited_;
};

}  // namespace ws::ui
