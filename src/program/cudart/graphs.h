// src/program/cudart/graphs.h — CUDA graphs on the emulated device: a graph's nodes (a
// kernel, a copy, a memset, a host function, an empty node) with their dependencies, run
// in an order that honours every edge; and stream capture, which records a stream's work
// as such nodes instead of running it. Work on a stream otherwise runs when it is issued,
// unless work is held for the host's next synchronisation (holding() below).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace ws::ptx {
struct Kernel;
}

namespace ws::program {

// One node of a graph, its work kept by value (a kernel's argument bytes copied).
struct Node {
  enum class Kind { Kernel, Copy, Memset, Host, Empty } kind = Kind::Empty;
  std::vector<Node*> deps;  // in the same graph
  // Kernel
  const void* func = nullptr;
  dim3 grid, block;
  size_t shared = 0;
  std::vector<std::vector<uint8_t>> args;
  // Copy (a 1D copy is a 3D one of one row)
  cudaMemcpy3DParms copy{};
  // Memset
  cudaMemsetParams memset{};
  // Host
  cudaHostFn_t fn = nullptr;
  void* user = nullptr;
};

struct Graph {
  std::vector<std::unique_ptr<Node>> nodes;  // in the order they were added
  Node* tail = nullptr;                      // a capture's last node: the next depends on it
};

// Runs one node now, in the issuing thread; the call's error.
cudaError_t run_node(const Node& n);
// A kernel node of a launch as cudaLaunchKernel receives it; false for an unknown kernel.
bool kernel_node(Node& n, const void* func, dim3 grid, dim3 block, void** args, size_t shared);
// A copy node of `bytes` from `src` to `dst`.
void copy_node(Node& n, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);

// Whether `stream` is being captured into a graph.
bool capturing(cudaStream_t stream);
// Appends `n` to the graph `stream` is captured into, after the stream's last node.
cudaError_t capture(cudaStream_t stream, std::unique_ptr<Node> n);
// A launch issued on a capturing stream: recorded, not run.
cudaError_t capture_launch(const void* func, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t stream);
// An event recorded on a capturing stream: a stream that waits for it joins the capture.
cudaError_t capture_event(cudaEvent_t event, cudaStream_t stream);

// Work held for the host's next synchronisation. A launch of a kernel that writes no memory
// (ptx::writes_no_memory) and is given a pointer to host memory is held, on any stream (it
// changes nothing anyone could see before it ends): on a GPU it would run beside the host,
// which may still write that memory (a latch it sets after issuing the launch and more work
// behind it), while the emulated device runs a launch to its end when it runs it. Until
// the held work runs, every asynchronous launch, copy, memset and host function joins it,
// in the order issued (an order every stream's own is part of); whatever waits for the
// device (a synchronisation, a synchronous copy, a query, a free, a cuBLAS call, the
// program's end) runs it first, and so does work that cannot join it (a cooperative or
// cluster launch, a 2D or symbol copy).
bool holding();
// A launch of `k` the rule above holds, or any launch while work is held: added to the held
// work (true, the call's error in `e`); false: it runs now.
bool held_launch(const ptx::Kernel& k, const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                 cudaError_t& e);
// Adds `n` to the held work.
cudaError_t hold(std::unique_ptr<Node> n);
// Runs the held work in the order it was issued; the first error it met.
cudaError_t run_held();

}  // namespace ws::program
