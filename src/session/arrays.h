// src/session/arrays.h — a program's arrays as its author knows them: the element type the
// instructions that touch each one read and write, its shape (cudaMallocPitch, a
// `// warpscope: shape NAME = ROWS x COLS` line of the program, or a shape set in the app
// and kept beside the program), and which are the toolkit's own (printf's strings, the
// threads' local frames). The catalog panel lists them; the memory view draws the shapes.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace ws::session {

class Session;

// The element type the sites that reach buffer `b` of `t` name ("float", "uint32",
// "float/uint32" when they disagree, most used first); "" when no site names one (a
// catalog kernel's, a SASS trace's).
std::string element_type(const trace::Trace& t, uint32_t b);
// The bytes of one element of `type` as element_type names it (0: unknown or mixed widths).
uint32_t element_bytes(const std::string& type);
// An array of the toolkit's or the machine's, not the program's: printf's format strings
// ($str), the threads' local frames, nvcc's unnamed constants.
bool internal_array(const trace::Buffer& b);

// A shape given for an array, and where it came from ("annotation", "set in the app").
struct ArrayShape {
  std::string name;
  uint64_t rows = 0, cols = 0;
  std::string from;
};
// The `// warpscope: shape NAME = ROWS x COLS` lines of `text`; each dimension a number or
// a name the text defines as one (`#define N 64`, `constexpr int N = 64;`, `const int N =
// 64;`). A line of another form is left out with one note saying why.
std::vector<ArrayShape> shape_annotations(const std::string& text, std::vector<std::string>& notes);
// The file beside `program` that keeps the shapes set in the app ("prog.cu.shapes").
std::string shapes_file(const std::string& program);
// The shapes saved beside `program` (none when there is no such file; a line that does
// not read is left out with a note).
std::vector<ArrayShape> saved_shapes(const std::string& program, std::vector<std::string>& notes);
// Keeps `rows` × `cols` for array `name` beside `program` (rows 0: forgets it). False and
// `error` when the file cannot be written.
bool save_shape(const std::string& program, const std::string& name, uint64_t rows, uint64_t cols,
                std::string& error);

// Gives the program's global arrays of `t` their element size (from the instructions that
// touch them) and shapes: cudaMallocPitch's where the runtime recorded one, else the
// program's annotation, else the shape saved beside it; a shape whose size is not the
// array's is refused with a note. Returns, by array name, where each shape came from.
std::map<std::string, std::string> shape_arrays(trace::Trace& t, const std::string& program,
                                                std::vector<std::string>& notes);

// One array of a program as the catalog panel lists it: arrays alike in name, space and
// size (one per launch in the trace) are one row.
struct ArrayRow {
  std::vector<uint32_t> buffers;   // the trace's buffers it stands for
  std::string name;                // "d_in"; "tile (launch 3)" when two arrays share a name
  std::string type;                // "float" ("" : not known)
  std::string shape;               // "64 × 64", "4096" (1-D)
  std::string from;                // where the shape came from ("" : none, 1-D)
  std::string space;               // "global" | "shared" | "local" | "constant"
  uint64_t size_bytes = 0;
  std::vector<uint32_t> launches;  // 1-based, the launches that touch it
  bool internal = false;
};
// The arrays of `s`'s whole trace, each once, the program's first; the toolkit's, and
// arrays no recorded access reaches, only when `internal`.
std::vector<ArrayRow> array_rows(const Session& s, bool internal);

}  // namespace ws::session
