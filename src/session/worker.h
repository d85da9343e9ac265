// src/session/worker.h — builds Sessions (captures, file reads, re-analyses) and writes
// trace files on one worker thread, so a front end never waits on them. The newest request wins: a job submitted while
// another is queued replaces it (a running capture cannot be interrupted, its result is
// simply superseded).
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "analysis/analysis.h"
#include "session/launch.h"
#include "session/session.h"

namespace ws::session {

struct Job {
  enum Kind { Record, Save, Reanalyze } kind = Record;
  LaunchSpec spec;                          // Record: what was asked for (a kernel, or a trace file)
  ResolvedLaunch launch;                            // Record: resolve(spec), done where the spec was made
  std::string path;                         // Save
  std::shared_ptr<const Session> session;   // Save, Reanalyze
  analysis::DramModel dram;                 // Reanalyze
  std::string label;                        // shown while it runs ("recording transpose_tiled")
  std::optional<std::vector<trace::Bookmark>> bookmarks;  // Save: written in place of the trace's own
};

struct Outcome {
  Job::Kind kind = Job::Record;
  Origin origin = Origin::Catalog;         // Record: where the launch came from
  uint64_t id = 0;
  std::shared_ptr<const Session> session;  // Record, Reanalyze: the new session
  std::string error;                       // one line; empty on success
  std::vector<program::Diagnostic> diagnostics;  // Record of a program that did not compile
  program::Problem problem;                // Record of a program that did not build or run: what and where
  std::string message;                     // "saved trace.wstrace"
  double seconds = 0;
};

// The jobs themselves, run where they are called (the worker runs them on its thread).
// Each throws what capture(), resolve() or the trace file throw.
// The Session of a resolved launch from any origin: a catalog kernel or a program captured
// now, or a launch of a trace file read.
std::shared_ptr<Session> record_session(const ResolvedLaunch& launch, const LaunchSpec& spec);
std::shared_ptr<Session> record_session(const LaunchSpec& spec);  // resolves it first
void save_session(const Session& s, const std::string& path,
                  const std::optional<std::vector<trace::Bookmark>>& bookmarks = std::nullopt);

class Worker {
 public:
  Worker();
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Queues `job` (replacing a queued, not yet started one). Returns its id.
  uint64_t submit(Job job);
  // The oldest finished outcome not yet taken.
  std::optional<Outcome> take();
  bool busy() const;              // a job is queued or running
  bool idle() const;              // not busy, and every outcome has been taken
  std::string label() const;      // of the running job
  double running_seconds() const; // how long the running job has been going
  // Blocks until nothing is queued or running (tests, --screenshot).
  void wait_idle();

 private:
  void loop();
  Outcome execute(const Job& job);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::optional<std::pair<uint64_t, Job>> queued_;
  std::deque<Outcome> done_;
  bool running_ = false;
  bool stop_ = false;
  std::string label_;
  std::chrono::steady_clock::time_point started_;
  uint64_t next_id_ = 1;
  std::thread thread_;
};

}  // namespace ws::session
