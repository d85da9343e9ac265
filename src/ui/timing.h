// src/ui/timing.h — what the timing panel shows, and where it comes from. Two sources
// fill the same tables: live timings of the plain kernels on this machine's GPU (a
// callback the app supplies when there is one), and the replay pack recorded on a real
// GPU (JSON under assets/replay/). The panel never knows which, beyond the label. Both
// are bench JSON, read by trace::read_bench (trace/bench.h describes the format), into
// the bench's own rows.
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
  std::vector<TimingSample> samples;
};

// Parses bench JSON. Returns false and sets `error` when the text is not such JSON or
// holds no usable timing.
bool parse_bench_json(const std::string& text, TimingTable& out, std::string& error);
// Reads every *.json under `dir` (recursively). Files that do not parse are skipped and
// named in `message`; a missing directory gives no tables and an empty message.
std::vector<TimingTable> load_replay_pack(const std::string& dir, std::string& message);

// Live timings: given catalog ids and the parameters on screen (pad, tile, ...; each
// kernel takes those it has), returns bench JSON for them at a realistic size (throws on
// failure). The app supplies one when a GPU backend is built in; none: no live timings.
using LiveBench = std::function<std::string(const std::vector<std::string>& kernels,
                                            const std::map<std::string, int64_t>& params)>;

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
  void add_live(TimingTable t);
};

}  // namespace ws::ui
