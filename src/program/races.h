// src/program/races.h — the shared-memory races the emulated device found in a program's
// launches (ptx::Race), as the front ends receive them: each with both accesses' source
// line, thread and kind, the block, the array and the offset of the word, one line of text
// for a report or a banner; and the lines of the file that carries them from the program's
// process (the runtime writes it as the program ends) to warpscope (program::run reads it).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "program/problem.h"
#include "trace/trace.h"

namespace ws::ptx {
struct Race;
struct Module;
struct KernelLaunch;
}  // namespace ws::ptx

namespace ws::program {

// One access of a race: where in the source, by which thread (threadIdx), what it did.
struct RaceEnd {
  std::string file;               // as the compiler named it ("" : not known)
  uint32_t line = 0, column = 0;  // 1-based; 0: not known
  trace::Dim3 thread{0, 0, 0};
  std::string access;             // "read" | "write" | "atomic"
  bool operator==(const RaceEnd&) const = default;
};

// Two threads of different warps of one block reached the same shared-memory word between
// the same two barriers, at least one writing, not both atomically. `ends[0]` ran first on
// the emulated device (a GPU may run them in either order).
struct Race {
  std::string kind = "race";      // what a banner calls it, beside a fault
  uint32_t launch = 0;            // index into the trace's launches (from 0)
  std::string kernel;             // "reduceSum"
  trace::Dim3 block{0, 0, 0};     // blockIdx
  std::string array;              // "reduceSum::partial" ("shared memory": between arrays)
  uint64_t offset = 0;            // byte offset in the array; word offset / 4
  std::array<RaceEnd, 2> ends;
  bool operator==(const Race&) const = default;
};

// What a program's run found: its races, at most ptx::kRacesPerLaunch per launch, and per
// launch how many more pairs of lines raced and were only counted.
struct Races {
  std::vector<Race> races;
  std::map<uint32_t, uint32_t> left_out;
  bool operator==(const Races&) const = default;
};

// One line: "race on word 32 of reduceSum::partial (byte 128) in block (0,0,0) of launch 1
// (reduceSum): line 20 read by thread (0,0,0), line 20 written by thread (32,0,0) of
// another warp, no barrier between".
std::string race_text(const Race& r);

// The first race as a problem the app's banner shows (kind "race", its two places with
// their warps from the block shape of the race's launch among `launches`, the launch it
// happened in); empty when there is none.
Problem race_problem(const Races& r, const std::vector<trace::Launch>& launches);

// Every race's line, then per launch with more a line saying how many more pairs of lines
// raced ("launch 2 raced on 3 more pairs of lines (its first 10 are listed)").
std::vector<std::string> race_lines(const Races& r);

// The device's race `r` in the program's words: file names from `m`, threads and block
// from `launch`'s shape.
Race race_of(const ptx::Race& r, const ptx::Module& m, const ptx::KernelLaunch& launch);

// The file's text: a line per race and per launch with races left out.
std::string races_file_text(const Races& r);
// Reads races_file_text's text. Throws Error naming the line that does not read.
Races read_races(const std::string& text);

}  // namespace ws::program
