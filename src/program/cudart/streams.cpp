// src/program/cudart/streams.cpp — what a stream orders: asynchronous copies and memsets,
// host functions and callbacks (run where they stand in the stream, which is now: work on
// the emulated device runs when it is issued, unless it joins work held for the host's
// next synchronisation, graphs.h), events that other streams wait for, and stream capture
// (graphs.h), during which all of it is recorded into a graph, not run.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "program/cudart/graphs.h"
#include "program/cudart/shim.h"
#include "ptx/machine.h"
#include "ptx/windows.h"

namespace ws::program {
namespace {

// Which graph each capturing stream records into, the stream that began it, and the
// graph an event recorded during a capture belongs to.
struct Captures {
  std::map<cudaStream_t, Graph*> of;
  std::map<Graph*, cudaStream_t> origin;
  std::map<cudaEvent_t, Graph*> events;
};
Captures& caps() {
  static Captures* c = new Captures;
  return *c;
}

// The work held for the host's next synchronisation (graphs.h), in the order issued.
struct Held {
  std::vector<std::unique_ptr<Node>> nodes;
  bool running = false;  // run_held is running it: what it issues runs now
};
Held& held() {
  static Held* h = new Held;
  return *h;
}

}  // namespace

bool capturing(cudaStream_t stream) { return caps().of.count(stream) != 0; }

cudaError_t capture(cudaStream_t stream, std::unique_ptr<Node> n) {
  Graph* g = caps().of.at(stream);
  if (g->tail) n->deps.push_back(g->tail);
  g->tail = n.get();
  g->nodes.push_back(std::move(n));
  return cudaSuccess;
}

cudaError_t capture_launch(const void* func, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t stream) {
  auto n = std::make_unique<Node>();
  if (!kernel_node(*n, func, grid, block, args, shared)) return fail(cudaErrorInvalidDeviceFunction);
  return capture(stream, std::move(n));
}

bool holding() { return !held().nodes.empty() && !held().running; }

cudaError_t hold(std::unique_ptr<Node> n) {
  WS_API_LOCK;
  held().nodes.push_back(std::move(n));
  return cudaSuccess;
}

cudaError_t run_held() {
  WS_API_LOCK;
  Held& h = held();
  if (h.running || h.nodes.empty()) return cudaSuccess;
  std::vector<std::unique_ptr<Node>> nodes = std::move(h.nodes);
  h.nodes.clear();
  h.running = true;
  cudaError_t first = cudaSuccess;
  for (const auto& n : nodes)
    if (const cudaError_t e = run_node(*n); first == cudaSuccess) first = e;
  h.running = false;
  return first;
}

// The rule for holding a launch (graphs.h): a kernel that writes no memory, a pointer to
// host memory (page-locked or managed: an array the device adopted at the host's address)
// among its arguments. On any stream: a launch returns to the host at once on all of them.
static bool to_hold(const ptx::Kernel& k, void** args) {
  if (!ptx::writes_no_memory(k)) return false;
  for (size_t i = 0; i < k.params.size(); ++i) {
    if (k.params[i].bytes != 8) continue;
    uint64_t v = 0;
    std::memcpy(&v, args[i], 8);
    const bool device_range = v >= ptx::kGlobalBase && v < ptx::kSharedWindow;
    if (v && !device_range && !device().owner(v).empty()) return true;
  }
  return false;
}

bool held_launch(const ptx::Kernel& k, const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                 cudaError_t& e) {
  if (held().running) return false;  // the held work runs now
  const bool joins = holding();
  if (!joins && !to_hold(k, args)) return false;
  static std::set<std::string> told;
  if (!joins && told.insert(k.name).second)
    say(ptx::kernel_name(k.name) + " reads host memory and writes none: its launch, and the work issued after it, run "
        "when the host next waits for the device (a GPU runs them beside the host, which may still change that memory)");
  auto n = std::make_unique<Node>();
  e = kernel_node(*n, func, grid, block, args, shared) ? hold(std::move(n)) : fail(cudaErrorInvalidDeviceFunction);
  return true;
}

cudaError_t capture_event(cudaEvent_t event, cudaStream_t stream) {
  caps().events[event] = caps().of.at(stream);
  return cudaSuccess;
}

}  // namespace ws::program

using namespace ws::program;

extern "C" {

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream) {
  WS_API_LOCK;
  if (!capturing(stream) && !holding()) return cudaMemcpy(dst, src, count, kind);
  auto n = std::make_unique<Node>();
  copy_node(*n, dst, src, count, kind);
  return capturing(stream) ? capture(stream, std::move(n)) : hold(std::move(n));
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  WS_API_LOCK;
  if (!capturing(stream) && !holding()) return cudaMemset(devPtr, value, count);
  auto n = std::make_unique<Node>();
  n->kind = Node::Kind::Memset;
  n->memset.dst = devPtr;
  n->memset.value = unsigned(value) & 0xff;
  n->memset.elementSize = 1;
  n->memset.width = count;
  n->memset.height = 1;
  return capturing(stream) ? capture(stream, std::move(n)) : hold(std::move(n));
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  WS_API_LOCK;
  if (!fn) return fail(cudaErrorInvalidValue);
  auto n = std::make_unique<Node>();
  n->kind = Node::Kind::Host;
  n->fn = fn;
  n->user = userData;
  if (capturing(stream)) return capture(stream, std::move(n));
  if (holding()) return hold(std::move(n));
  return run_node(*n);
}

// The callback learns the stream's state: the error an earlier kernel left, if any.
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData, unsigned int flags) {
  WS_API_LOCK;
  if (!callback || flags) return fail(cudaErrorInvalidValue);
  if (capturing(stream)) return fail(cudaErrorStreamCaptureUnsupported);
  run_held();
  callback(stream, sticky_error(), userData);
  return cudaSuccess;
}

// A stream that waits for an event recorded during a capture joins that capture (the
// fork of a multi-stream capture); any other wait is already satisfied.
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  WS_API_LOCK;
  auto it = caps().events.find(event);
  if (it != caps().events.end() && !capturing(stream)) caps().of[stream] = it->second;
  return cudaSuccess;
}

// Managed memory is this machine's memory, seen by host and device alike: attaching it
// to a stream changes nothing.
cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void* devPtr, size_t, unsigned int) {
  return devPtr ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode) {
  WS_API_LOCK;
  if (capturing(stream)) return fail(cudaErrorIllegalState);
  Graph* g = new Graph;
  caps().of[stream] = g;
  caps().origin[g] = stream;
  return cudaSuccess;
}

// Ends the capture begun on `stream`: every stream that joined it stops capturing.
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  WS_API_LOCK;
  Captures& c = caps();
  auto it = c.of.find(stream);
  if (!pGraph || it == c.of.end()) return fail(cudaErrorIllegalState);
  Graph* g = it->second;
  if (c.origin[g] != stream) return fail(cudaErrorStreamCaptureUnmatched);
  for (auto s = c.of.begin(); s != c.of.end();) s = s->second == g ? c.of.erase(s) : std::next(s);
  for (auto e = c.events.begin(); e != c.events.end();) e = e->second == g ? c.events.erase(e) : std::next(e);
  c.origin.erase(g);
  g->tail = nullptr;
  *pGraph = reinterpret_cast<cudaGraph_t>(g);
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus* status) {
  WS_API_LOCK;
  if (!status) return fail(cudaErrorInvalidValue);
  *status = capturing(stream) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}


// ---- streams and events: one in-order queue, timed by the emulation's clock ------------

// Waiting for the device runs the work held for it (graphs.h) first.
static cudaError_t synchronize() {
  WS_API_LOCK;
  run_held();
  return sticky_error();
}
cudaError_t cudaDeviceSynchronize(void) { return synchronize(); }
cudaError_t cudaThreadSynchronize(void) { return synchronize(); }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return synchronize(); }
cudaError_t cudaDeviceReset(void) {
  synchronize();
  return cudaSuccess;
}

// Each recorded event's time, in ms since the runtime was loaded.
static std::map<cudaEvent_t, double>& event_times() {
  static auto* m = new std::map<cudaEvent_t, double>;
  return *m;
}
static const std::chrono::steady_clock::time_point loaded = std::chrono::steady_clock::now();

// A fresh handle for a stream or an event: a distinct address (they hold no state).
static void* next_handle() {
  WS_API_LOCK;
  static char handles[4096];
  static int next = 0;
  return &handles[(next++) % 4096];
}

cudaError_t cudaStreamCreate(cudaStream_t* s) {
  *s = static_cast<cudaStream_t>(next_handle());
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) { return cudaStreamCreate(s); }
cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned int, int) { return cudaStreamCreate(s); }
// Work runs when it is issued, or (held work) when asked about: a stream is always done.
cudaError_t cudaStreamQuery(cudaStream_t) {
  synchronize();
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = static_cast<cudaEvent_t>(next_handle());
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) { return cudaEventCreate(e); }
cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t stream) {
  WS_API_LOCK;
  if (capturing(stream)) return capture_event(e, stream);
  run_held();  // an event marks the end of the work before it
  event_times()[e] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - loaded).count();
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t) { return synchronize(); }
cudaError_t cudaEventQuery(cudaEvent_t) {
  synchronize();
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  WS_API_LOCK;
  const auto& t = event_times();
  if (!t.count(start) || !t.count(end)) return fail(cudaErrorInvalidResourceHandle);
  *ms = float(t.at(end) - t.at(start));
  return cudaSuccess;
}

}  // extern "C"
