// src/program/cublas/gemm.cpp — the CPU's matrix product for the emulated cuBLAS: each
// batch's matrices copied out of the emulated device, op(A) packed by rows and op(B) by
// columns so that every output element is one contiguous dot product, the columns shared
// among this machine's cores, and the result (with cuBLASLt's epilogue) copied back.
#include "program/cublas/gemm.h"

#include <driver_types.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

namespace ws::blas {

bool known_type(cudaDataType t) { return type_bytes(t) != 0; }

size_t type_bytes(cudaDataType t) {
  switch (t) {
    case CUDA_R_32F: return 4;
    case CUDA_R_64F: return 8;
    case CUDA_R_16F: return 2;
    case CUDA_R_16BF: return 2;
    default: return 0;
  }
}

namespace {

double load(const uint8_t* p, cudaDataType t) {
  switch (t) {
    case CUDA_R_32F: { float f; std::memcpy(&f, p, 4); return f; }
    case CUDA_R_64F: { double d; std::memcpy(&d, p, 8); return d; }
    case CUDA_R_16F: { _Float16 h; std::memcpy(&h, p, 2); return float(h); }
    case CUDA_R_16BF: {
      uint32_t bits = uint32_t(p[0] | (p[1] << 8)) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    default: return 0;
  }
}

// Rounded to the nearest value of `t`, ties to even, as the GPU's conversions round.
void store(uint8_t* p, cudaDataType t, double v) {
  switch (t) {
    case CUDA_R_32F: { const float f = float(v); std::memcpy(p, &f, 4); break; }
    case CUDA_R_64F: std::memcpy(p, &v, 8); break;
    case CUDA_R_16F: { const _Float16 h = _Float16(float(v)); std::memcpy(p, &h, 2); break; }
    case CUDA_R_16BF: {
      const float f = float(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      const uint16_t b = std::isnan(f) ? uint16_t(0x7fc0) : uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
      std::memcpy(p, &b, 2);
      break;
    }
    default: break;
  }
}

// The bytes a matrix of batch `b` spans in device memory.
size_t span_bytes(const Matrix& m) {
  if (m.rows <= 0 || m.cols <= 0) return 0;
  return size_t((m.cols - 1) * m.ld + m.rows) * type_bytes(m.type);
}
const uint8_t* batch_base(const Matrix& m, int64_t b) {
  return static_cast<const uint8_t*>(m.data) + b * m.stride * int64_t(type_bytes(m.type));
}

std::string read(std::vector<uint8_t>& out, const Matrix& m, int64_t b, const char* what) {
  out.resize(span_bytes(m));
  const int e = ws_cudart_read(out.data(), batch_base(m, b), out.size());
  if (e == cudaErrorInvalidValue)
    return std::string("matrix ") + what + " (batch " + std::to_string(b) + ") is not inside the device memory the program allocated";
  if (e != 0) return "the device stopped at an earlier kernel's fault (CUDA error " + std::to_string(e) + ")";
  return "";
}

// op(X) as `outer` vectors of `len` contiguous values: vector o holds op(X)'s row o
// (for A) or column o (for B). `along` true when X's stored columns are those vectors.
template <typename T>
void pack(std::vector<T>& out, const std::vector<uint8_t>& bytes, const Matrix& m, int64_t outer, int64_t len, bool along) {
  const size_t es = type_bytes(m.type);
  out.resize(size_t(outer * len));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < len; ++i) {
      const int64_t r = along ? i : o, c = along ? o : i;
      out[size_t(o * len + i)] = T(load(bytes.data() + size_t(c * m.ld + r) * es, m.type));
    }
}

constexpr int kLanes = 8;

// acc[r] = dot(a row r, b) for 4 rows of A at once: the products of one column of op(B)
// against a strip of op(A), in kLanes partial sums each.
template <typename T>
__attribute__((always_inline)) inline void dot4(const T* a, int64_t k, const T* b, T out[4]) {
  T acc[4][kLanes] = {};
  int64_t p = 0;
  for (; p + kLanes <= k; p += kLanes)
    for (int r = 0; r < 4; ++r)
      for (int l = 0; l < kLanes; ++l) acc[r][l] += a[r * k + p + l] * b[p + l];
  for (int r = 0; r < 4; ++r) {
    T s = 0;
    for (int l = 0; l < kLanes; ++l) s += acc[r][l];
    for (int64_t q = p; q < k; ++q) s += a[r * k + q] * b[q];
    out[r] = s;
  }
}

// The same for two columns at once: each of A's strip's loads serves both. Every output's
// sums are dot4's, term for term, so that the results do not depend on which of the two ran.
template <typename T>
__attribute__((always_inline)) inline void dot4x2(const T* a, int64_t k, const T* b0, const T* b1, T* out0, T* out1) {
  T acc[2][4][kLanes] = {};
  int64_t p = 0;
  for (; p + kLanes <= k; p += kLanes)
    for (int r = 0; r < 4; ++r)
      for (int l = 0; l < kLanes; ++l) {
        acc[0][r][l] += a[r * k + p + l] * b0[p + l];
        acc[1][r][l] += a[r * k + p + l] * b1[p + l];
      }
  for (int c = 0; c < 2; ++c) {
    const T* b = c ? b1 : b0;
    T* out = c ? out1 : out0;
    for (int r = 0; r < 4; ++r) {
      T s = 0;
      for (int l = 0; l < kLanes; ++l) s += acc[c][r][l];
      for (int64_t q = p; q < k; ++q) s += a[r * k + q] * b[q];
      out[r] = s;
    }
  }
}

// Columns [j0, j1) of the product, a block of columns at a time: about half a megabyte of
// them, which stay in the core's cache while every strip of A passes by. (Taken one column at
// a time, all of A came from memory again for each column: 300 GB of reads for one of llm.c's
// matmul_backward products at its own size.)
template <typename T>
__attribute__((always_inline)) inline void product_cols(const T* a, const T* b, T* out, int64_t m, int64_t k, int64_t j0,
                                                        int64_t j1) {
  const int64_t m4 = m / 4 * 4;
  const int64_t nb = std::clamp<int64_t>((int64_t(1) << 19) / std::max<int64_t>(1, k * int64_t(sizeof(T))), 2, 256) / 2 * 2;
  for (int64_t jb = j0; jb < j1; jb += nb) {
    const int64_t je = std::min(j1, jb + nb);
    for (int64_t i = 0; i < m4; i += 4) {
      int64_t j = jb;
      for (; j + 2 <= je; j += 2) dot4x2(a + i * k, k, b + j * k, b + (j + 1) * k, out + j * m + i, out + (j + 1) * m + i);
      for (; j < je; ++j) dot4(a + i * k, k, b + j * k, out + j * m + i);
    }
    for (int64_t j = jb; j < je; ++j)
      for (int64_t i = m4; i < m; ++i) {
        T s = 0;
        for (int64_t p = 0; p < k; ++p) s += a[i * k + p] * b[j * k + p];
        out[j * m + i] = s;
      }
  }
}

// Built twice: for AVX2 with FMA where this machine has it, and plainly.
__attribute__((target_clones("arch=x86-64-v3", "default"))) void product_f32(const float* a, const float* b, float* out,
                                                                              int64_t m, int64_t k, int64_t j0, int64_t j1) {
  product_cols(a, b, out, m, k, j0, j1);
}
__attribute__((target_clones("arch=x86-64-v3", "default"))) void product_f64(const double* a, const double* b, double* out,
                                                                              int64_t m, int64_t k, int64_t j0, int64_t j1) {
  product_cols(a, b, out, m, k, j0, j1);
}

// out (m × n, column-major, ld m) = op(A) · op(B), columns shared among the cores.
template <typename T>
void product(const std::vector<T>& a, const std::vector<T>& b, std::vector<T>& out, int64_t m, int64_t n, int64_t k) {
  out.assign(size_t(m * n), T(0));
  const int64_t work = m * n * k;
  const int64_t threads = std::clamp<int64_t>(std::min<int64_t>(std::thread::hardware_concurrency(), work >> 20), 1, 32);
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < threads; ++t) {
    const int64_t j0 = n * t / threads, j1 = n * (t + 1) / threads;
    auto part = [&, j0, j1] {
      if constexpr (sizeof(T) == 4) product_f32(a.data(), b.data(), out.data(), m, k, j0, j1);
      else product_f64(a.data(), b.data(), out.data(), m, k, j0, j1);
    };
    if (t + 1 == threads) part();
    else pool.emplace_back(part);
  }
  for (std::thread& th : pool) th.join();
}

// cuBLASLt's GELU: the tanh approximation.
double gelu(double x) {
  const double c = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}

std::string check(const Matrix& m, const char* what) {
  if (!known_type(m.type)) return std::string("matrix ") + what + " has a data type the emulated cuBLAS does not provide";
  if (m.rows < 0 || m.cols < 0 || m.ld < std::max<int64_t>(1, m.rows))
    return std::string("matrix ") + what + "'s leading dimension " + std::to_string(m.ld) + " is smaller than its " +
           std::to_string(m.rows) + " rows";
  return "";
}

// One batch: products, then alpha, beta, the bias and GELU, written into D.
template <typename T>
std::string run_batch(const Gemm& g, int64_t bt, const std::vector<T>& bias) {
  std::vector<uint8_t> ab, bb, cb, db;
  std::string e = read(ab, g.a, bt, "A");
  if (e.empty()) e = read(bb, g.b, bt, "B");
  if (e.empty()) e = read(db, g.d, bt, "D");
  if (e.empty() && g.beta != 0) e = read(cb, g.c, bt, "C");
  if (!e.empty()) return e;
  std::vector<T> pa, pb, out;
  pack(pa, ab, g.a, g.m, g.k, g.ta);   // row i of op(A): A's column i when transposed
  pack(pb, bb, g.b, g.n, g.k, !g.tb);  // column j of op(B): B's column j unless transposed
  product(pa, pb, out, g.m, g.n, g.k);
  std::vector<uint8_t> aux;
  const bool has_aux = g.epilogue == Epilogue::GeluAux || g.epilogue == Epilogue::GeluAuxBias;
  if (has_aux && (e = read(aux, g.aux, bt, "aux")) != "") return e;
  const bool with_bias = g.epilogue == Epilogue::Bias || g.epilogue == Epilogue::GeluBias || g.epilogue == Epilogue::GeluAuxBias;
  const bool with_gelu = g.epilogue != Epilogue::None && g.epilogue != Epilogue::Bias;
  const size_t dsz = type_bytes(g.d.type), csz = type_bytes(g.c.type), xsz = type_bytes(g.aux.type);
  for (int64_t j = 0; j < g.n; ++j)
    for (int64_t i = 0; i < g.m; ++i) {
      double v = g.alpha * double(out[size_t(j * g.m + i)]);
      if (g.beta != 0) v += g.beta * load(cb.data() + size_t(j * g.c.ld + i) * csz, g.c.type);
      if (with_bias) v += double(bias[size_t(i)]);
      if (has_aux) store(aux.data() + size_t(j * g.aux.ld + i) * xsz, g.aux.type, v);
      if (with_gelu) v = gelu(v);
      store(db.data() + size_t(j * g.d.ld + i) * dsz, g.d.type, v);
    }
  if (has_aux && ws_cudart_write(const_cast<uint8_t*>(batch_base(g.aux, bt)), aux.data(), aux.size()) != 0)
    return "the epilogue's aux matrix is not inside the device memory the program allocated";
  if (ws_cudart_write(const_cast<uint8_t*>(batch_base(g.d, bt)), db.data(), db.size()) != 0)
    return "matrix D is not inside the device memory the program allocated";
  return "";
}

template <typename T>
std::string run_typed(const Gemm& g) {
  std::vector<T> bias;
  if (g.epilogue == Epilogue::Bias || g.epilogue == Epilogue::GeluBias || g.epilogue == Epilogue::GeluAuxBias) {
    if (!g.bias || !known_type(g.bias_type)) return "the bias epilogue has no bias pointer, or a bias type not provided";
    std::vector<uint8_t> raw(size_t(g.m) * type_bytes(g.bias_type));
    if (ws_cudart_read(raw.data(), g.bias, raw.size()) != 0) return "the bias vector is not inside the device memory the program allocated";
    for (int64_t i = 0; i < g.m; ++i) bias.push_back(T(load(raw.data() + size_t(i) * type_bytes(g.bias_type), g.bias_type)));
  }
  for (int64_t bt = 0; bt < g.batch; ++bt)
    if (std::string e = run_batch<T>(g, bt, bias); !e.empty()) return e;
  return "";
}

}  // namespace

bool device_failure(const std::string& why) {
  return why.find("not inside") != std::string::npos || why.find("earlier kernel's fault") != std::string::npos;
}

std::string run(const Gemm& g) {
  if (g.m < 0 || g.n < 0 || g.k < 0 || g.batch < 0) return "a negative size";
  if (!g.m || !g.n || !g.batch) return "";  // nothing to compute, as in cuBLAS
  for (auto [m, what] : {std::pair{&g.a, "A"}, {&g.b, "B"}, {&g.c, "C"}, {&g.d, "D"}})
    if (std::string e = check(*m, what); !e.empty()) return e;
  if ((g.ta ? g.a.cols : g.a.rows) != g.m || (g.ta ? g.a.rows : g.a.cols) != g.k)
    return "matrix A's shape does not match m × k";
  if ((g.tb ? g.b.cols : g.b.rows) != g.k || (g.tb ? g.b.rows : g.b.cols) != g.n)
    return "matrix B's shape does not match k × n";
  if (g.c.rows != g.m || g.c.cols != g.n || g.d.rows != g.m || g.d.cols != g.n) return "matrices C and D are not m × n";
  if ((g.epilogue == Epilogue::GeluAux || g.epilogue == Epilogue::GeluAuxBias) &&
      (!g.aux.data || !known_type(g.aux.type) || g.aux.ld < g.m))
    return "the GELU_AUX epilogue has no aux pointer, or its leading dimension is smaller than m";
  return g.fp64 ? run_typed<double>(g) : run_typed<float>(g);
}

}  // namespace ws::blas
