// tests/programs/device_calls.cu — device code that calls as C++ does: recursion (a
// function calling itself, with a local array in each activation and a pointer into the
// caller's), calls through function pointers from a __device__ table, and virtual methods
// of objects made with device new. Each thread's results are checked on the host against
// the same functions computed there. Exits 1 on a wrong value. With the argument `deep`,
// recursion 5000 calls deep instead: more than a stack holds, the launch fails (exit 2).
#include <cstdio>

__host__ __device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// Sums n, n-1, ..., 1 through a chain of activations that each keep a local array and write
// into their caller's through a pointer: every activation needs a frame of its own.
__host__ __device__ int chain(int n, int* into_caller) {
  int mine[4] = {n, 2 * n, 3 * n, 0};
  if (n > 0) chain(n - 1, &mine[3]);
  volatile int* v = mine;
  *into_caller = v[0] + v[3];
  return v[1] + v[2] - 4 * n;  // 5n - 4n: n
}

typedef int (*binary_op)(int, int);
__device__ int add(int a, int b) { return a + b; }
__device__ int sub(int a, int b) { return a - b; }
__device__ int mul(int a, int b) { return a * b; }
__device__ binary_op ops[3] = {add, sub, mul};

struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual int corners() const { return 0; }
  __device__ virtual ~Shape() {}
};
struct Square : Shape {
  float s;
  __device__ explicit Square(float s) : s(s) {}
  __device__ float area() const override { return s * s; }
  __device__ int corners() const override { return 4; }
};
struct Triangle : Shape {
  float b, h;
  __device__ Triangle(float b, float h) : b(b), h(h) {}
  __device__ float area() const override { return 0.5f * b * h; }
  __device__ int corners() const override { return 3; }
};
struct Disc : Shape {
  float r;
  __device__ explicit Disc(float r) : r(r) {}
  __device__ float area() const override { return 3.0f * r * r; }
};

__device__ int depth(int n) {
  if (n == 0) return 0;
  const int d = depth(n - 1);
  return (d ^ (d >> 1)) + n;  // nothing a compiler turns into a loop
}
__global__ void deep(int* out, int n) { out[threadIdx.x] = depth(n); }

__global__ void recurse(int* fibs, int* sums, int* ns) {
  const int t = threadIdx.x;
  fibs[t] = fib(t % 16);
  ns[t] = chain(t % 12, &sums[t]);
}

__global__ void pointers(int* out, int a, int b) {
  const int t = threadIdx.x;
  out[t] = ops[t % 3](a + t, b);
}

__global__ void shapes(float* areas, int* corners) {
  const int t = threadIdx.x;
  Shape* s = t % 3 == 0 ? static_cast<Shape*>(new Square(float(t)))
             : t % 3 == 1 ? static_cast<Shape*>(new Triangle(float(t), 2.0f))
                          : static_cast<Shape*>(new Disc(float(t)));
  areas[t] = s->area();
  corners[t] = s->corners();
  delete s;
}

int main(int argc, char** argv) {
  const int n = 64;
  if (argc > 1 && argv[1][0] == 'd') {
    int* d_out;
    cudaMalloc(&d_out, sizeof(int));
    deep<<<1, 1>>>(d_out, 5000);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("deep: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 2;
  }
  int *d_fibs, *d_sums, *d_ns, *d_ops, *d_corners;
  float* d_areas;
  cudaMalloc(&d_fibs, n * sizeof(int));
  cudaMalloc(&d_sums, n * sizeof(int));
  cudaMalloc(&d_ns, n * sizeof(int));
  cudaMalloc(&d_ops, n * sizeof(int));
  cudaMalloc(&d_corners, n * sizeof(int));
  cudaMalloc(&d_areas, n * sizeof(float));
  recurse<<<1, n>>>(d_fibs, d_sums, d_ns);
  pointers<<<1, n>>>(d_ops, 10, 3);
  shapes<<<1, n>>>(d_areas, d_corners);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("a kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  int fibs[n], sums[n], ns[n], res[n], corners[n];
  float areas[n];
  cudaMemcpy(fibs, d_fibs, sizeof fibs, cudaMemcpyDeviceToHost);
  cudaMemcpy(sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost);
  cudaMemcpy(ns, d_ns, sizeof ns, cudaMemcpyDeviceToHost);
  cudaMemcpy(res, d_ops, sizeof res, cudaMemcpyDeviceToHost);
  cudaMemcpy(corners, d_corners, sizeof corners, cudaMemcpyDeviceToHost);
  cudaMemcpy(areas, d_areas, sizeof areas, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int t = 0; t < n; ++t) {
    int sum = 0;
    const int m = t % 12;
    const int a = t + 10, b = 3;
    const int want_op = t % 3 == 0 ? a + b : t % 3 == 1 ? a - b : a * b;
    const float want_area = t % 3 == 0 ? float(t) * float(t) : t % 3 == 1 ? 0.5f * float(t) * 2.0f : 3.0f * float(t) * float(t);
    const int want_corners = t % 3 == 0 ? 4 : t % 3 == 1 ? 3 : 0;
    if (fibs[t] != fib(t % 16) || ns[t] != chain(m, &sum) || sums[t] != sum || res[t] != want_op ||
        areas[t] != want_area || corners[t] != want_corners) {
      if (bad++ < 4)
        std::printf("thread %d: fib %d, chain %d/%d, op %d, area %g, corners %d\n", t, fibs[t], ns[t], sums[t], res[t],
                    areas[t], corners[t]);
    }
  }
  std::printf("fib(15) = %d, chain(11) sums to %d, ops: %d %d %d, areas: %g %g %g\n", fibs[15], sums[11], res[0],
              res[1], res[2], areas[0], areas[1], areas[2]);
  std::printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
