// src/program/cudart/graphs.cpp — CUDA graphs built node by node (cudaGraphCreate,
// cudaGraphAdd*Node, cudaGraphAddDependencies) or captured from streams (streams.cpp),
// instantiated into an order that honours every edge, and launched: each node run in
// turn through the runtime's own entry points, so a kernel node is a launch like any.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "program/cudart/graphs.h"
#include "program/cudart/shim.h"

namespace ws::program {
namespace {

// A graph instantiated: copies of its nodes, in a topological order.
struct Exec {
  std::vector<Node> order;
};

Graph* graph_of(cudaGraph_t g) { return reinterpret_cast<Graph*>(g); }
Node* node_of(cudaGraphNode_t n) { return reinterpret_cast<Node*>(n); }
cudaGraphNode_t handle(Node* n) { return reinterpret_cast<cudaGraphNode_t>(n); }

bool in_graph(const Graph& g, const Node* n) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [&](const auto& x) { return x.get() == n; });
}

// Adds `n` to `g` after `deps`; the node's handle to `out`.
cudaError_t add(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count, std::unique_ptr<Node> n) {
  Graph* g = graph_of(graph);
  if (!out || !g || (count && !deps)) return fail(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    if (!in_graph(*g, node_of(deps[i]))) return fail(cudaErrorInvalidValue);
    n->deps.push_back(node_of(deps[i]));
  }
  *out = handle(n.get());
  g->nodes.push_back(std::move(n));
  return cudaSuccess;
}

// The nodes in an order where each comes after its dependencies, ties in the order they
// were added (Kahn's algorithm); false for a cycle.
bool topological(const Graph& g, std::vector<const Node*>& order) {
  std::map<const Node*, size_t> waiting;
  std::map<const Node*, std::vector<const Node*>> after;
  for (const auto& n : g.nodes) {
    waiting[n.get()] = n->deps.size();
    for (const Node* d : n->deps) after[d].push_back(n.get());
  }
  std::vector<const Node*> ready;
  for (const auto& n : g.nodes)
    if (!waiting[n.get()]) ready.push_back(n.get());
  auto rank = [&](const Node* n) {
    return std::find_if(g.nodes.begin(), g.nodes.end(), [&](const auto& x) { return x.get() == n; }) - g.nodes.begin();
  };
  while (!ready.empty()) {
    auto first = std::min_element(ready.begin(), ready.end(), [&](const Node* a, const Node* b) { return rank(a) < rank(b); });
    const Node* n = *first;
    ready.erase(first);
    order.push_back(n);
    for (const Node* m : after[n])
      if (--waiting[m] == 0) ready.push_back(m);
  }
  return order.size() == g.nodes.size();
}

// A copy's rows: `height` × `depth` of them, `width` bytes each, at each side's pitch.
cudaError_t run_copy(const cudaMemcpy3DParms& p) {
  if (p.srcArray || p.dstArray) {
    unsupported("a CUDA array in a graph's memcpy node");
    return cudaErrorNotSupported;
  }
  const cudaPitchedPtr& s = p.srcPtr;
  const cudaPitchedPtr& d = p.dstPtr;
  for (size_t z = 0; z < std::max<size_t>(p.extent.depth, 1); ++z)
    for (size_t y = 0; y < std::max<size_t>(p.extent.height, 1); ++y) {
      const size_t srow = (p.srcPos.z + z) * std::max<size_t>(s.ysize, 1) + p.srcPos.y + y;
      const size_t drow = (p.dstPos.z + z) * std::max<size_t>(d.ysize, 1) + p.dstPos.y + y;
      const cudaError_t e = cudaMemcpy(static_cast<char*>(d.ptr) + drow * d.pitch + p.dstPos.x,
                                       static_cast<const char*>(s.ptr) + srow * s.pitch + p.srcPos.x, p.extent.width, p.kind);
      if (e != cudaSuccess) return e;
    }
  return cudaSuccess;
}

// Rows of `width` elements of 1, 2 or 4 bytes, each `value`.
cudaError_t run_memset(const cudaMemsetParams& p) {
  const unsigned es = p.elementSize;
  if (es != 1 && es != 2 && es != 4) return fail(cudaErrorInvalidValue);
  std::vector<uint8_t> row(p.width * es);
  for (size_t i = 0; i < p.width; ++i) std::memcpy(row.data() + i * es, &p.value, es);  // little-endian: the low bytes
  for (size_t y = 0; y < std::max<size_t>(p.height, 1); ++y) {
    const cudaError_t e = cudaMemcpy(static_cast<char*>(p.dst) + y * p.pitch, row.data(), row.size(), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

}  // namespace

bool kernel_node(Node& n, const void* func, dim3 grid, dim3 block, void** args, size_t shared) {
  std::vector<size_t> sizes;
  if (!kernel_param_sizes(func, sizes) || (!sizes.empty() && !args)) return false;
  n.kind = Node::Kind::Kernel;
  n.func = func;
  n.grid = grid;
  n.block = block;
  n.shared = shared;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const auto* b = static_cast<const uint8_t*>(args[i]);
    n.args.emplace_back(b, b + sizes[i]);
  }
  return true;
}

void copy_node(Node& n, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  n.kind = Node::Kind::Copy;
  n.copy = cudaMemcpy3DParms{};
  n.copy.srcPtr = cudaPitchedPtr{const_cast<void*>(src), bytes, bytes, 1};
  n.copy.dstPtr = cudaPitchedPtr{dst, bytes, bytes, 1};
  n.copy.extent = cudaExtent{bytes, 1, 1};
  n.copy.kind = kind;
}

cudaError_t run_node(const Node& n) {
  switch (n.kind) {
    case Node::Kind::Kernel: {
      std::vector<void*> args;
      for (const auto& a : n.args) args.push_back(const_cast<uint8_t*>(a.data()));
      return cudaLaunchKernel(n.func, n.grid, n.block, args.data(), n.shared, nullptr);
    }
    case Node::Kind::Copy: return run_copy(n.copy);
    case Node::Kind::Memset: return run_memset(n.memset);
    case Node::Kind::Host: n.fn(n.user); return cudaSuccess;
    case Node::Kind::Empty: return cudaSuccess;
  }
  return cudaSuccess;
}

}  // namespace ws::program

using namespace ws::program;

extern "C" {

cudaError_t cudaGraphCreate(cudaGraph_t* pGraph, unsigned int flags) {
  WS_API_LOCK;
  if (!pGraph || flags) return fail(cudaErrorInvalidValue);
  *pGraph = reinterpret_cast<cudaGraph_t>(new Graph);
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  WS_API_LOCK;
  delete graph_of(graph);
  return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* pNode, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count,
                                   const struct cudaKernelNodeParams* p) {
  WS_API_LOCK;
  if (!p) return fail(cudaErrorInvalidValue);
  if (p->extra) return unsupported("cudaGraphAddKernelNode with `extra` arguments");
  auto n = std::make_unique<Node>();
  if (!kernel_node(*n, p->func, p->gridDim, p->blockDim, p->kernelParams, p->sharedMemBytes))
    return fail(cudaErrorInvalidDeviceFunction);
  return add(pNode, graph, deps, count, std::move(n));
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* pNode, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count,
                                   const struct cudaMemcpy3DParms* p) {
  WS_API_LOCK;
  if (!p) return fail(cudaErrorInvalidValue);
  auto n = std::make_unique<Node>();
  n->kind = Node::Kind::Copy;
  n->copy = *p;
  return add(pNode, graph, deps, count, std::move(n));
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pNode, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count,
                                     void* dst, const void* src, size_t bytes, enum cudaMemcpyKind kind) {
  WS_API_LOCK;
  auto n = std::make_unique<Node>();
  copy_node(*n, dst, src, bytes, kind);
  return add(pNode, graph, deps, count, std::move(n));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* pNode, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count,
                                   const struct cudaMemsetParams* p) {
  WS_API_LOCK;
  if (!p) return fail(cudaErrorInvalidValue);
  auto n = std::make_unique<Node>();
  n->kind = Node::Kind::Memset;
  n->memset = *p;
  return add(pNode, graph, deps, count, std::move(n));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* pNode, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count,
                                 const struct cudaHostNodeParams* p) {
  WS_API_LOCK;
  if (!p || !p->fn) return fail(cudaErrorInvalidValue);
  auto n = std::make_unique<Node>();
  n->kind = Node::Kind::Host;
  n->fn = p->fn;
  n->user = p->userData;
  return add(pNode, graph, deps, count, std::move(n));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* pNode, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count) {
  WS_API_LOCK;
  return add(pNode, graph, deps, count, std::make_unique<Node>());
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                     const cudaGraphEdgeData*, size_t count) {
  WS_API_LOCK;
  Graph* g = graph_of(graph);
  if (!g || (count && (!from || !to))) return fail(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    if (!in_graph(*g, node_of(from[i])) || !in_graph(*g, node_of(to[i]))) return fail(cudaErrorInvalidValue);
    node_of(to[i])->deps.push_back(node_of(from[i]));
  }
  return cudaSuccess;
}

// With `nodes` null, the count alone; else up to *numNodes handles.
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  WS_API_LOCK;
  Graph* g = graph_of(graph);
  if (!g || !numNodes) return fail(cudaErrorInvalidValue);
  if (nodes)
    for (size_t i = 0; i < std::min(*numNodes, g->nodes.size()); ++i) nodes[i] = handle(g->nodes[i].get());
  *numNodes = nodes ? std::min(*numNodes, g->nodes.size()) : g->nodes.size();
  return cudaSuccess;
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  WS_API_LOCK;
  Graph* g = graph_of(graph);
  if (!g || !numNodes) return fail(cudaErrorInvalidValue);
  size_t k = 0;
  for (const auto& n : g->nodes) {
    if (!n->deps.empty()) continue;
    if (nodes && k < *numNodes) nodes[k] = handle(n.get());
    ++k;
  }
  *numNodes = nodes ? std::min(*numNodes, k) : k;
  return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t* pClone, cudaGraph_t original) {
  WS_API_LOCK;
  Graph* g = graph_of(original);
  if (!pClone || !g) return fail(cudaErrorInvalidValue);
  auto* c = new Graph;
  std::map<const Node*, Node*> twin;
  for (const auto& n : g->nodes) {
    c->nodes.push_back(std::make_unique<Node>(*n));
    twin[n.get()] = c->nodes.back().get();
  }
  for (auto& n : c->nodes)
    for (Node*& d : n->deps) d = twin.at(d);
  *pClone = reinterpret_cast<cudaGraph_t>(c);
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pExec, cudaGraph_t graph, unsigned long long) {
  WS_API_LOCK;
  Graph* g = graph_of(graph);
  if (!pExec || !g) return fail(cudaErrorInvalidValue);
  std::vector<const Node*> order;
  if (!topological(*g, order)) {
    *pExec = nullptr;
    return fail(cudaErrorInvalidValue);  // a cycle: no order runs it
  }
  auto* x = new Exec;
  for (const Node* n : order) {
    x->order.push_back(*n);
    x->order.back().deps.clear();  // the order holds them now
  }
  *pExec = reinterpret_cast<cudaGraphExec_t>(x);
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pExec, cudaGraph_t graph, unsigned long long flags) {
  return cudaGraphInstantiate(pExec, graph, flags);
}

// The nodes run now, one after another; a launch on a capturing stream is not recorded
// (a graph node of a graph is not provided).
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  WS_API_LOCK;
  if (!exec) return fail(cudaErrorInvalidValue);
  if (capturing(stream)) return unsupported("cudaGraphLaunch into a stream being captured");
  if (sticky_error() != cudaSuccess) return fail(sticky_error());
  run_held();  // a graph's nodes run now, after the work held before them
  for (const Node& n : reinterpret_cast<Exec*>(exec)->order) {
    const cudaError_t e = run_node(n);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  WS_API_LOCK;
  delete reinterpret_cast<Exec*>(exec);
  return cudaSuccess;
}

}  // extern "C"
