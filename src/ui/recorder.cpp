#include "ui/recorder.h"

#include <exception>

#if __has_include("trace/wstrace.h")
#include "trace/wstrace.h"
#define WS_UI_HAVE_WSTRACE 1
#endif

namespace ws::ui {

bool trace_files_supported() {
#ifdef WS_UI_HAVE_WSTRACE
  return true;
#else
  return false;
#endif
}

Recorder::Recorder() : thread_([this] { loop(); }) {}

Recorder::~Recorder() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
    queued_.reset();
  }
  cv_.notify_all();
  thread_.join();
}

uint64_t Recorder::submit(Job job) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> lk(mu_);
    id = next_id_++;
    queued_.emplace(id, std::move(job));
  }
  cv_.notify_all();
  return id;
}

std::optional<Outcome> Recorder::take() {
  std::lock_guard<std::mutex> lk(mu_);
  if (done_.empty()) return std::nullopt;
  Outcome o = std::move(done_.front());
  done_.pop_front();
  return o;
}

bool Recorder::busy() const {
  std::lock_guard<std::mutex> lk(mu_);
  return running_ || queued_.has_value();
}

bool Recorder::idle() const {
  std::lock_guard<std::mutex> lk(mu_);
  return !running_ && !queued_ && done_.empty();
}

std::string Recorder::label() const {
  std::lock_guard<std::mutex> lk(mu_);
  return running_ ? label_ : queued_ ? queued_->second.label : std::string();
}

double Recorder::running_seconds() const {
  std::lock_guard<std::mutex> lk(mu_);
  if (!running_) return 0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void Recorder::wait_idle() {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [this] { return !running_ && !queued_; });
}

void Recorder::loop() {
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

Outcome Recorder::execute(const Job& job) {
  Outcome o;
  o.kind = job.kind;
  try {
    switch (job.kind) {
      case Job::Record: {
        capture::Result r = capture::record(job.request);
        auto tr = std::make_shared<trace::Trace>(std::move(r.trace));
        auto m = build_model(std::move(tr), job.dram);
        m->checked = r.checked;
        m->max_rel_error = r.max_rel_error;
        m->capture_seconds = r.seconds;
        m->note = r.note;
        o.model = std::move(m);
        break;
      }
      case Job::Open: {
#ifdef WS_UI_HAVE_WSTRACE
        auto tr = std::make_shared<trace::Trace>(trace::read_trace(job.path));
        auto m = build_model(std::move(tr), job.dram);
        m->origin = "file";
        m->file = job.path;
        o.model = std::move(m);
        o.message = "opened " + job.path;
#else
        o.error = "this build cannot read .wstrace files";
#endif
        break;
      }
      case Job::Save: {
#ifdef WS_UI_HAVE_WSTRACE
        if (!job.model) throw std::runtime_error("nothing to save");
        if (job.bookmarks && *job.bookmarks != job.model->trace().bookmarks) {
          trace::Trace copy = job.model->trace();  // the shown trace stays shared and unchanged
          copy.bookmarks = *job.bookmarks;
          trace::write_trace(copy, job.path);
        } else {
          trace::write_trace(job.model->trace(), job.path);
        }
        o.message = "saved " + job.path;
#else
        o.error = "this build cannot write .wstrace files";
#endif
        break;
      }
      case Job::Reanalyze: {
        if (!job.model) throw std::runtime_error("nothing to analyse");
        o.model = reanalyze(*job.model, job.dram);
        break;
      }
    }
  } catch (const std::exception& e) {
    o.error = e.what();
    o.model.reset();
  }
  return o;
}

}  // namespace ws::ui
