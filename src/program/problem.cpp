// src/program/problem.cpp — a run's problem record in JSON (across the process boundary
// from the emulated runtime to the parent) and in words (its headline and details).
#include "program/problem.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ws::program {

namespace {

nlohmann::json triple(const uint32_t v[3]) { return nlohmann::json::array({v[0], v[1], v[2]}); }
void triple(const nlohmann::json& j, uint32_t v[3]) {
  for (size_t i = 0; i < 3 && i < j.size(); ++i) v[i] = j[i].get<uint32_t>();
}

std::string dims(const uint32_t v[3]) {
  std::string s = std::to_string(v[0]) + "," + std::to_string(v[1]);
  if (v[2]) s += "," + std::to_string(v[2]);
  return s;
}

}  // namespace

std::string problem_json(const Problem& p) {
  nlohmann::json j{{"kind", p.kind}, {"message", p.message}, {"output", p.output}, {"launch", p.launch},
                   {"record", p.record}, {"array", p.array}, {"offset", p.offset}, {"size", p.size},
                   {"lanes", p.lanes}};
  nlohmann::json offs = nlohmann::json::array();
  for (int64_t o : p.lane_offset) offs.push_back(o);
  j["lane_offset"] = offs;
  nlohmann::json at = nlohmann::json::array();
  for (const Place& x : p.at)
    at.push_back({{"file", x.file}, {"line", x.line}, {"placed", x.placed}, {"thread", triple(x.thread)},
                  {"block", triple(x.block)}, {"warp", x.warp}});
  j["at"] = at;
  return j.dump();
}

Problem problem_from_json(const std::string& text) {
  Problem p;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object() || !j.contains("kind")) throw std::runtime_error("no kind");
    p.kind = j.at("kind").get<std::string>();
    p.message = j.value("message", "");
    p.output = j.value("output", "");
    p.launch = j.value("launch", 0u);
    p.record = j.value("record", int64_t(-1));
    p.array = j.value("array", "");
    p.offset = j.value("offset", int64_t(0));
    p.size = j.value("size", uint64_t(0));
    p.lanes = j.value("lanes", 0u);
    if (j.contains("lane_offset"))
      for (size_t i = 0; i < 32 && i < j["lane_offset"].size(); ++i) p.lane_offset[i] = j["lane_offset"][i].get<int64_t>();
    if (j.contains("at"))
      for (const nlohmann::json& x : j["at"]) {
        Place q;
        q.file = x.value("file", "");
        q.line = x.value("line", 0u);
        q.placed = x.value("placed", false);
        if (x.contains("thread")) triple(x["thread"], q.thread);
        if (x.contains("block")) triple(x["block"], q.block);
        q.warp = x.value("warp", 0u);
        p.at.push_back(q);
      }
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("not a problem record: ") + e.what());
  }
  return p;
}

std::string problem_title(const Problem& p, bool store) {
  if (p.kind == "out_of_bounds")
    return std::string(store ? "Out-of-bounds write" : "Out-of-bounds access") + (p.array.empty() ? "" : " to '" + p.array + "'");
  if (p.kind == "assert") return "Assertion failed";
  if (p.kind == "endless_loop") return "Endless loop stopped";
  if (p.kind == "deadlock") return "Deadlock: warps wait at a barrier that cannot open";
  if (p.kind == "crash") return "The program crashed";
  if (p.kind == "compile") return "Compile error";
  if (p.kind == "timeout") return "The program ran past its time limit";
  if (p.kind == "fault") return "The kernel was stopped";
  if (p.kind == "race") return "Shared-memory race" + (p.array.empty() ? std::string() : " on '" + p.array + "'");
  return p.kind.empty() ? "" : "Problem: " + p.kind;
}

std::vector<std::string> problem_lines(const Problem& p) {
  std::vector<std::string> out;
  if (!p.at.empty()) {
    const Place& x = p.at.front();
    std::string where;
    if (x.line) where = (x.file.empty() ? "line " : x.file.substr(x.file.rfind('/') + 1) + ":") + std::to_string(x.line);
    if (x.placed)
      where += std::string(where.empty() ? "" : " · ") + "thread (" + dims(x.thread) + ") of block (" + dims(x.block) +
               "), warp " + std::to_string(x.warp);
    if (!where.empty()) out.push_back(where);
  }
  if (p.kind == "out_of_bounds") {
    // The device's message says no more than these two lines: it is left out.
    std::string what = "byte offset " + std::to_string(p.offset) + " in '" + p.array + "' of " + std::to_string(p.size) + " bytes";
    int outside = 0;
    for (int l = 0; l < 32; ++l)
      if (((p.lanes >> l) & 1u) && (p.lane_offset[size_t(l)] < 0 || uint64_t(p.lane_offset[size_t(l)]) >= p.size)) ++outside;
    if (p.lanes)
      what += " · " + std::to_string(outside) + " of " + std::to_string(__builtin_popcount(p.lanes)) +
              " lanes of the request went past its edge";
    out.push_back(what);
  } else if (!p.message.empty()) {
    out.push_back(p.message);
  }
  if (!p.output.empty()) out.push_back("its last output:\n" + p.output);
  return out;
}

std::string last_lines(const std::string& text, size_t n) {
  size_t end = text.size();
  while (end && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  size_t start = end;
  for (size_t k = 0; k < n && start > 0; ++k) {
    const size_t nl = text.rfind('\n', start - 1);
    start = nl == std::string::npos ? 0 : (k + 1 < n ? nl : nl + 1);
    if (nl == std::string::npos) break;
  }
  if (start < end && text[start] == '\n') ++start;
  return text.substr(start, end - start);
}

}  // namespace ws::program
