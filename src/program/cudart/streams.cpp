// src/program/cudart/streams.cpp — what a stream orders: asynchronous copies and memsets,
// host functions and callbacks (run where they stand in the stream, which is now: work on
// the emulated device runs when it is issued, unless it joins work held for the host's
// next synchronisation, graphs.h), events that other streams wait for, and stream capture
// (graphs.h), during which all of it is recorded into a graph, not run.
#include <cuda_runtime_api.h>

#include <map>
#include <memory>

#include "program/cudart/graphs.h"
#include "program/cudart/shim.h"

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

}  // extern "C"
