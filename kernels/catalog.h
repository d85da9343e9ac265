// kernels/catalog.h — the registry: kernel ids, their parameters and defaults, their
// arrays, a CPU reference and a short lesson. Host code only. A family header (basics.h,
// transpose.h, matmul.h) holds the kernel bodies and their CPU reference and includes
// nothing but contract.h: it is the text the source panel shows. Its catalog entries are
// in entries/ under the same name.
//
// Every catalog entry is a struct with
//   static KernelInfo info();
//   template <class L> static void run(L& launcher, const Params& p);
// where the launcher (emulator or GPU) provides
//   template <class T> ws::Buf<T> buf(int index);          // arrays, in info().buffers order
//   template <class Op, class Args> void launch(dim3 grid, dim3 block, uint32_t dyn_bytes, const Args&);
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace ws::catalog {

struct ParamSpec {
  std::string name;
  int64_t def = 0;
  std::vector<int64_t> allowed;  // empty: any value in [min, max]
  int64_t min = 0, max = 0;
  std::string help;
};

// Resolved parameter values of one launch, "size" included.
struct Params {
  std::map<std::string, int64_t> values;
  int64_t operator[](const std::string& name) const;
  int64_t size() const { return (*this)["size"]; }
};

// In: read only (filled with data); Out: written only (filled with NaN, compared);
// InOut: read, then written (filled with data, compared), as C in C = alpha·A·B + beta·C.
enum class Role { In, Out, InOut };
inline bool is_input(Role r) { return r != Role::Out; }
inline bool is_output(Role r) { return r != Role::In; }

struct BufferSpec {
  std::string name;
  uint64_t rows = 1, cols = 1;  // logical shape, in elements
  bool col_major = false;
  Role role = Role::In;
  uint32_t elem_bytes = 4;
  uint64_t elements() const { return rows * cols; }
};

// The text a faithful entry reproduces, access for access: where it is printed, the
// parameter setting that reproduces it, the sizes the source supports, and what the source
// says about it (a speed, an instruction, a figure), in the catalog's own words.
struct SourceRef {
  std::string text;     // "PMPP 4th ed., ch. 6: corner turning (Fig. 6.4), TILE_WIDTH 16"
  std::string setting;  // "--set tile=16" (command-line flags, --size too); "" for the defaults
  std::string sizes;    // "multiples of 16"; "" for any size the entry allows
  std::string claim;    // "370× the CPU at 2048²"
  std::string label;    // short, for a title bar: "PMPP Fig. 6.4"
};

// What a kernel's time is compared with: a device-to-device copy of the bytes it moves
// (GB/s), or cuBLAS SGEMM of its size (a square matrix product of size³: GFLOP/s).
enum class Yardstick : uint8_t { DeviceCopy, Cublas };

// Host data of the launch's arrays, in info().buffers order (float elements).
using HostArrays = std::vector<std::vector<float>>;

struct KernelInfo {
  std::string id;           // "transpose_tiled"
  std::string family;       // "basics" | "transpose" | "sgemm": a ladder, a label only
  Yardstick yardstick = Yardstick::DeviceCopy;
  std::string title;        // one line
  std::string lesson;       // a short paragraph: what to look at and why (all() folds its
                            // line breaks and indentation into single spaces)
  std::string source_file;  // file under kernels/ holding the kernel body
  int64_t teach_size = 64;  // default --size for recording and reports
  int64_t bench_size = 4096;  // default size for GPU timing
  int64_t size_min = 1, size_max = 1 << 16;
  std::vector<ParamSpec> params;  // besides "size"
  // Checks that need several values at once; returns an error line or "".
  std::string (*check)(const Params&) = nullptr;
  std::vector<BufferSpec> (*buffers)(const Params&) = nullptr;
  // Computes the outputs of `arrays` from its inputs, as the kernel should.
  void (*reference)(const Params&, HostArrays& arrays) = nullptr;
  // Useful work of one launch, for GFLOP/s and GB/s.
  double (*flops)(const Params&) = nullptr;
  double (*bytes)(const Params&) = nullptr;
  // SGEMM entries: C = alpha·A·B + beta·C (beta ≠ 0, or a C that is Role::InOut: C is read).
  float alpha = 1.0f, beta = 0.0f;
  // The taught kernels this entry (or a setting of it) reproduces; empty for the catalog's own.
  std::vector<SourceRef> sources = {};
};

// Picks a compile-time value at run time: calls f(std::integral_constant<int, V>{}) for the
// V of Vs equal to v (a tile edge, a coarsening factor) and returns whether one matched.
template <int... Vs, class F>
bool with_constant(int64_t v, F&& f) {
  return ((v == Vs ? (f(std::integral_constant<int, Vs>{}), true) : false) || ...);
}

// All kernels, in teaching order.
const std::vector<KernelInfo>& all();
// The kernel with this id, or nullptr.
const KernelInfo* find(const std::string& id);
// Comma-separated list of ids, for error messages.
std::string ids();

// The parameter values (and size, 0 if not named) of a source's setting, "--set k=v --size N".
std::map<std::string, int64_t> setting_values(const SourceRef& s, int64_t& size);
// Whether resolved parameters `p` are source `s`'s setting (its size too, where it names one).
bool reproduces(const SourceRef& s, const Params& p);
// The source that a launch of `k` with resolved parameters `p` reproduces, or nullptr.
const SourceRef* reproduced(const KernelInfo& k, const Params& p);

// Resolves user settings against the kernel's specs. Returns "" and fills `out` on
// success, else a one-line error naming what is allowed.
std::string resolve(const KernelInfo& k, int64_t size, const std::map<std::string, int64_t>& set,
                    Params& out);

// "" when `size` is in the kernel's range, else the line naming the range.
std::string check_size(const KernelInfo& k, int64_t size);

// Fills inputs with deterministic pseudo-random values and outputs with NaN.
HostArrays make_arrays(const KernelInfo& k, const Params& p, uint32_t seed = 1);

// The grid (x, y, z) that entry `k` launches with `p`, read from its run() without running
// anything (a persistent grid is smaller than its tiles of C), and its blocks, x·y·z.
std::array<uint32_t, 3> launch_grid(const KernelInfo& k, const Params& p);
uint64_t launch_blocks(const KernelInfo& k, const Params& p);
// The blocks of a thread block cluster the entry launches in (1: no clusters).
uint32_t launch_cluster(const KernelInfo& k, const Params& p);

// Largest relative difference between the outputs of `got` and `want` (0 = identical).
// Elements that both leave unwritten (NaN from make_arrays) agree; NaN on one side only
// is an infinite error.
double max_rel_error(const KernelInfo& k, const Params& p, const HostArrays& got,
                     const HostArrays& want);

// Embedded text of a family header or contract.h ("transpose.h"); empty if unknown.
const std::string& source(const std::string& file);

}  // namespace ws::catalog
