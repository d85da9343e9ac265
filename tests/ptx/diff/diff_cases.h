// tests/ptx/diff/diff_cases.h — the PTX differential test's files, read and written: the
// cases scripts/ptx_diff_cases.py generates (a kernel per instruction form, the inputs of
// each thread) and a fixture (the same cases with every thread's results, and the device
// that computed them). Shared by the GPU runner, the interpreter's runner and the test, so
// that the three read one format. Plain C++: no CUDA, no interpreter.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ws::ptxdiff {

// A file that does not read as the format says: one line naming the file and line.
struct FormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One generated case: an instruction form run by `threads` threads, each reading operands
// of the types `ins` and writing results of the types `outs` (storage types: pred, u8, s8,
// b16, f16, bf16, b32, f32, b64, f64).
struct Case {
  std::string name;          // the form, as PTX spells it: "add.rz.ftz.f32"
  std::string header;        // the case's line after "case ", verbatim (the fixture repeats it)
  std::string kernel;        // its .entry in the generated module
  uint32_t threads = 0;
  std::vector<std::string> ins, outs;
  std::string tol = "exact"; // "exact", or the PTX ISA's bound for an .approx form (diff_check.h)
  std::string hash;          // of the kernel's text and inputs: tells a changed case apart
  std::vector<std::vector<uint64_t>> inputs;   // [thread][operand]
  std::vector<std::vector<uint64_t>> outputs;  // [thread][result]; empty in the cases file
};

// Bytes a value of storage type `t` takes in the kernels' in/out slots (a predicate: a
// 32-bit 0 or 1). Throws FormatError for a type the format does not know.
uint32_t type_bytes(const std::string& t);

// Reads the generated `.cases` file, or a fixture (results after " : " on each thread's
// line). `file` names it in errors.
std::vector<Case> read_cases(const std::string& text, const std::string& file);

// A fixture: who computed it, and the cases with their results, by name.
struct Fixture {
  std::string device;        // the "device" line after its first word: "gpu | NVIDIA H100 ... | sm_90 | ..."
  bool from_gpu = false;     // the line says gpu (an interpreter-made fixture is for local tries only)
  std::map<std::string, Case> cases;
};
Fixture read_fixture(const std::string& text, const std::string& file);

// A fixture's text: `device` ("gpu | name | sm_90 | driver ..." or "interpreter | ...")
// then every case with its results.
std::string write_fixture(const std::string& device, const std::vector<Case>& cases);

// The generated module cut at its "// ---- case NAME" lines: the text before the first
// (the module's header), and each case's own text (its kernel, and the functions it calls).
struct Module {
  std::string header;
  std::map<std::string, std::string> cases;
};
Module split_module(const std::string& ptx);

// A file's whole text; false when it cannot be read.
bool read_file(const std::string& path, std::string& text);

}  // namespace ws::ptxdiff
