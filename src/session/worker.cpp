#include "session/worker.h"

#include <exception>

#include "trace/wstrace.h"

namespace ws::session {

std::shared_ptr<Session> record_session(const ResolvedLaunch& launch, const LaunchSpec& spec) {
  if (launch.origin == Origin::TraceFile) return Session::from_file(launch.trace, launch.dram, launch.launch);
  return Session::from_capture(capture(launch), launch, spec);
}

std::shared_ptr<Session> record_session(const LaunchSpec& spec) { return record_session(resolve(spec), spec); }

void save_session(const Session& s, const std::string& path,
                  const std::optional<std::vector<trace::Bookmark>>& bookmarks) {
  if (bookmarks && *bookmarks != s.trace().bookmarks) {
    trace::Trace copy = s.trace();  // the shown trace stays shared and unchanged
    copy.bookmarks = *bookmarks;
    trace::write_trace(copy, path);
  } else {
    trace::write_trace(s.trace(), path);
  }
}

Worker::Worker() : thread_([this] { loop(); }) {}

Worker::~Worker() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
    queued_.reset();
  }
  cv_.notify_all();
  thread_.join();
}

uint64_t Worker::submit(Job job) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> lk(mu_);
    id = next_id_++;
    queued_.emplace(id, std::move(job));
  }
  cv_.notify_all();
  return id;
}

std::optional<Outcome> Worker::take() {
  std::lock_guard<std::mutex> lk(mu_);
  if (done_.empty()) return std::nullopt;
  Outcome o = std::move(done_.front());
  done_.pop_front();
  return o;
}

bool Worker::busy() const {
  std::lock_guard<std::mutex> lk(mu_);
  return running_ || queued_.has_value();
}

bool Worker::idle() const {
  std::lock_guard<std::mutex> lk(mu_);
  return !running_ && !queued_ && done_.empty();
}

std::string Worker::label() const {
  std::lock_guard<std::mutex> lk(mu_);
  return running_ ? label_ : queued_ ? queued_->second.label : std::string();
}

double Worker::running_seconds() const {
  std::lock_guard<std::mutex> lk(mu_);
  if (!running_) return 0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void Worker::wait_idle() {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [this] { return !running_ && !queued_; });
}

void Worker::loop() {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    cv_.wait(lk, [this] { return stop_ || queued_.has_value(); });
    if (stop_) return;
    auto [id, job] = std::move(*queued_);
    queued_.reset();
    running_ = true;
    label_ = job.label;
    started_ = std::chrono::steady_clock::now();
    lk.unlock();
    Outcome o = execute(job);
    o.id = id;
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    lk.lock();
    running_ = false;
    // A newer job of the same kind is already queued: this result is stale, unless it is
    // a save (the user asked for that file) or an error worth reporting.
    bool superseded = queued_ && queued_->second.kind == job.kind && job.kind != Job::Save;
    if (!superseded) done_.push_back(std::move(o));
    cv_.notify_all();
  }
}

Outcome Worker::execute(const Job& job) {
  Outcome o;
  o.kind = job.kind;
  o.origin = job.launch.origin;
  try {
    switch (job.kind) {
      case Job::Record:
        o.session = record_session(job.launch, job.spec);
        if (job.launch.origin == Origin::TraceFile) o.message = "opened " + job.launch.trace;
        break;
      case Job::Save:
        if (!job.session) throw std::runtime_error("nothing to save");
        save_session(*job.session, job.path, job.bookmarks);
        o.message = "saved " + job.path;
        break;
      case Job::Reanalyze:
        if (!job.session) throw std::runtime_error("nothing to analyse");
        o.session = job.session->reanalyzed(job.dram);
        break;
    }
  } catch (const program::Error& e) {
    o.error = e.what();
    o.diagnostics = e.diagnostics;
    o.problem = e.problem;
    o.session.reset();
  } catch (const std::exception& e) {
    o.error = e.what();
    o.session.reset();
  }
  return o;
}

}  // namespace ws::session
