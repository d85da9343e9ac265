// src/program/problem.h — what went wrong in a run of the user's program and where, as one
// record that every front end draws: a kernel's access outside its array (with the lanes
// of the request), a failed assert, a loop stopped, another fault of the emulated device,
// a host crash, a compile error. Its `kind` and its list of places leave room for problems
// with two places (a race: two lines, two threads). The emulated device's runtime hands it
// to the parent process as JSON (WARPSCOPE_PROBLEM), never as text to be parsed again.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ws::program {

// One place of a problem: a line of a file and, for a kernel, the thread that was there.
struct Place {
  std::string file;          // as the compiler named it ("" : not known)
  uint32_t line = 0;         // 1-based; 0: not known
  bool placed = false;       // thread, block and warp are known
  uint32_t thread[3] = {}, block[3] = {}, warp = 0;
  bool operator==(const Place&) const = default;
};

struct Problem {
  // "" (none), "out_of_bounds", "assert", "endless_loop", "fault" (any other the emulated
  // device stopped), "crash" (the host code died on a signal), "compile", "timeout";
  // "race" (two warps on one shared word with no barrier between: the program ran on),
  // "trace" (the run ended but its trace could not be written).
  std::string kind;
  std::string message;       // the whole message, as the device or the compiler said it
  std::string output;        // a crash: the program's last lines of output
  std::vector<Place> at;     // where (first: the place to show)
  uint32_t launch = 0;       // the launch it stopped, from 1 (0: none: the host, the build)
  int64_t record = -1;       // the request's record within that launch (-1: not recorded)
  // out_of_bounds: the array, the first outside lane's byte offset, the array's bytes, and
  // every lane of the request with its byte offset from the array's start.
  std::string array;
  int64_t offset = 0;
  uint64_t size = 0;
  uint32_t lanes = 0;
  std::array<int64_t, 32> lane_offset{};
  bool empty() const { return kind.empty(); }
  bool operator==(const Problem&) const = default;
};

// The problem as one JSON object, and back. problem_from_json throws std::runtime_error
// for text that is not such an object.
std::string problem_json(const Problem& p);
Problem problem_from_json(const std::string& text);

// A headline for it: "Out-of-bounds write to 'd_out'", "Assertion failed", "Endless loop
// stopped", "The program crashed", "Compile error".
std::string problem_title(const Problem& p, bool store = false);

// Its details in words, one item a line: where (file:line), thread and block; for an
// access outside its array the array, byte offset and size and the lanes outside (all the
// device's message says), else the message as said; a crash's last output.
std::vector<std::string> problem_lines(const Problem& p);

// The last `n` lines of `text` (a program's output), without a trailing empty line.
std::string last_lines(const std::string& text, size_t n);

}  // namespace ws::program
