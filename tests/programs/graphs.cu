// tests/programs/graphs.cu — work a stream orders, and CUDA graphs: host functions and
// callbacks in issue order; a stream capture (memset, three launches, a copy back, a host
// function) that runs nothing until the graph is launched, then all of it per launch; a
// capture forked to a second stream and joined through events; an explicit graph whose
// edges, not the order of adding, decide the order; a cycle refused; events' times; a
// cooperative launch too large to be resident refused. One line per check; exits 1 when one
// fails.
#include <cstdio>
#include <vector>

__global__ void add1(int* x) { *x += 1; }
__global__ void times2(int* x) { *x *= 2; }

static int failures = 0;
static void expect(bool ok, const char* what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  failures += !ok;
}

static std::vector<int> order;
static void CUDART_CB host_fn(void* tag) { order.push_back(*static_cast<int*>(tag)); }
static void CUDART_CB callback(cudaStream_t, cudaError_t status, void* tag) {
  order.push_back(status == cudaSuccess ? *static_cast<int*>(tag) : -1);
}

int main() {
  int* d_x;
  cudaMalloc(&d_x, sizeof(int));
  cudaStream_t s, s2;
  cudaStreamCreate(&s);
  cudaStreamCreate(&s2);
  int one = 1, two = 2, three = 3;
  cudaLaunchHostFunc(s, host_fn, &one);
  cudaStreamAddCallback(s, callback, &two, 0);
  cudaLaunchHostFunc(s, host_fn, &three);
  cudaStreamSynchronize(s);
  expect(order == std::vector<int>({1, 2, 3}), "host functions and callbacks run in issue order");

  // Captured: memset to 0, +1 three times, copy back, a host function.
  int h_x = -7;
  order.clear();
  cudaGraph_t g;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(s, &status);
  cudaMemsetAsync(d_x, 0, sizeof(int), s);
  for (int i = 0; i < 3; ++i) add1<<<1, 1, 0, s>>>(d_x);
  cudaMemcpyAsync(&h_x, d_x, sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaLaunchHostFunc(s, host_fn, &one);
  cudaStreamEndCapture(s, &g);
  expect(status == cudaStreamCaptureStatusActive && h_x == -7 && order.empty(), "a capture records, runs nothing");
  size_t nodes = 0;
  cudaGraphGetNodes(g, nullptr, &nodes);
  expect(nodes == 6, "the captured graph has 6 nodes");
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, g, 0);
  cudaGraphLaunch(exec, s);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  expect(h_x == 3 && order.size() == 2, "each graph launch replays the capture: x = 3, the host function twice");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);

  // Forked to s2 through an event, joined back to s: x = (0 + 1) * 2.
  cudaEvent_t fork, join;
  cudaEventCreate(&fork);
  cudaEventCreate(&join);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaMemsetAsync(d_x, 0, sizeof(int), s);
  add1<<<1, 1, 0, s>>>(d_x);
  cudaEventRecord(fork, s);
  cudaStreamWaitEvent(s2, fork, 0);
  times2<<<1, 1, 0, s2>>>(d_x);
  cudaEventRecord(join, s2);
  cudaStreamWaitEvent(s, join, 0);
  cudaStreamEndCapture(s, &g);
  cudaStreamIsCapturing(s2, &status);
  cudaGraphInstantiate(&exec, g, 0);
  cudaGraphLaunch(exec, s);
  cudaMemcpy(&h_x, d_x, sizeof(int), cudaMemcpyDeviceToHost);
  expect(h_x == 2 && status == cudaStreamCaptureStatusNone, "a capture forked to a second stream and joined: x = 2");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);

  // Explicit: times2 added first, but it depends on add1: x = (5 + 1) * 2, not 5 * 2 + 1.
  int five = 5;
  cudaMemcpy(d_x, &five, sizeof(int), cudaMemcpyHostToDevice);
  cudaGraphCreate(&g, 0);
  void* args[] = {&d_x};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)times2;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(1);
  kp.kernelParams = args;
  cudaGraphNode_t n_times2, n_add1, n_copy;
  cudaGraphAddKernelNode(&n_times2, g, nullptr, 0, &kp);
  kp.func = (void*)add1;
  cudaGraphAddKernelNode(&n_add1, g, nullptr, 0, &kp);
  cudaGraphAddDependencies(g, &n_add1, &n_times2, nullptr, 1);
  cudaGraphAddMemcpyNode1D(&n_copy, g, &n_times2, 1, &h_x, d_x, sizeof(int), cudaMemcpyDeviceToHost);
  const cudaError_t made = cudaGraphInstantiate(&exec, g, 0);
  cudaGraphLaunch(exec, s);
  expect(made == cudaSuccess && h_x == 12, "an explicit graph runs in its edges' order: x = 12");
  cudaGraphExecDestroy(exec);
  // add1 -> times2 -> add1 closes a cycle: no order exists.
  cudaGraphAddDependencies(g, &n_times2, &n_add1, nullptr, 1);
  expect(cudaGraphInstantiate(&exec, g, 0) != cudaSuccess, "a cycle is refused");
  cudaGetLastError();
  cudaGraphDestroy(g);

  // Events: the time between two records is never negative; an unrecorded event has none.
  cudaEvent_t start, stop, never;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventCreate(&never);
  cudaEventRecord(start, s);
  add1<<<1, 1, 0, s>>>(d_x);
  cudaEventRecord(stop, s);
  cudaEventSynchronize(stop);
  float ms = -1, none = 0;
  const cudaError_t timed = cudaEventElapsedTime(&ms, start, stop);
  expect(timed == cudaSuccess && ms >= 0 && cudaEventElapsedTime(&none, start, never) != cudaSuccess,
         "event times: start to stop >= 0 ms; an unrecorded event has none");
  cudaGetLastError();

  // A cooperative grid larger than the device holds at once: refused, as a GPU refuses it.
  const cudaError_t coop = cudaLaunchCooperativeKernel((void*)add1, dim3(1000000), dim3(1024), args, 0, s);
  expect(coop == cudaErrorCooperativeLaunchTooLarge, "a cooperative launch too large to be resident is refused");
  cudaGetLastError();
  std::printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
