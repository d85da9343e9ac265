// src/program/say_once.h — for the emulated libraries loaded into the user's program
// (cuRAND, the driver API): whether a function's one-line refusal is said for the first
// time in this process, so that a loop calling it says it once. Plain C++, no CUDA.
#pragma once
#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

namespace ws::program {

inline bool first_time(const char* name) {
  static std::mutex mu;
  static std::vector<std::string> told;
  std::lock_guard<std::mutex> lock(mu);
  if (std::find(told.begin(), told.end(), name) != told.end()) return false;
  told.push_back(name);
  return true;
}

}  // namespace ws::program
