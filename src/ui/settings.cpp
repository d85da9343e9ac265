#include "ui/settings.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ws::ui {
namespace {

using json = nlohmann::json;
constexpr int kVersion = 1;

template <class T>
void get(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end()) return;
  try {
    T v = it->get<T>();
    if constexpr (std::is_floating_point_v<T>)
      if (!std::isfinite(v)) return;
    out = v;
  } catch (const json::exception&) {
    // wrong type: keep the default
  }
}

float clamp_frac(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

}  // namespace

std::string settings_json(const UiState& s) {
  json j;
  j["version"] = kVersion;
  j["kernel"] = s.kernel;
  j["lesson"] = s.lesson;
  j["size"] = s.size;
  j["params"] = s.params;
  j["blocks"] = s.blocks;
  j["max_records"] = s.max_records;
  j["dram_preset"] = s.dram_preset;
  j["speed"] = s.speed;
  j["play_unit"] = int(s.play_unit);
  j["loop"] = s.loop;
  j["heat"] = s.heat;
  j["heat_log"] = s.heat_log;
  j["show_sectors"] = s.show_sectors;
  j["show_lines"] = s.show_lines;
  j["show_labels"] = s.show_labels;
  j["show_banks"] = s.show_banks;
  j["follow"] = s.follow;
  j["hidden_buffers"] = s.hidden_buffers;
  j["dram_array"] = s.dram_array;
  j["dram_follow"] = s.dram_array == -2;  // marks files that know the follow choice
  j["left_frac"] = s.left_frac;
  j["right_frac"] = s.right_frac;
  j["left_split"] = s.left_split;
  j["center_split"] = s.center_split;
  j["right_split"] = s.right_split;
  j["enlarged"] = s.enlarged;
  j["font_scale"] = s.font_scale;
  j["theme"] = s.theme;
  j["last_file"] = s.last_file;
  return j.dump(2) + "\n";
}

bool load_settings(const std::string& path, UiState& s, std::string& message) {
  message.clear();
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    message = "settings file " + path + " could not be read; using defaults";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  json j = json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    message = "settings file " + path + " is corrupt and was ignored; using defaults";
    return false;
  }
  int version = 0;
  get(j, "version", version);
  if (version != kVersion) {
    message = "settings file " + path + " has version " + std::to_string(version) + " (expected " +
              std::to_string(kVersion) + ") and was ignored";
    return false;
  }
  UiState d = s;
  get(j, "kernel", d.kernel);
  get(j, "lesson", d.lesson);
  get(j, "size", d.size);
  get(j, "params", d.params);
  get(j, "blocks", d.blocks);
  get(j, "max_records", d.max_records);
  get(j, "dram_preset", d.dram_preset);
  get(j, "speed", d.speed);
  int unit = int(d.play_unit);
  get(j, "play_unit", unit);
  if (unit >= 0 && unit <= 2) d.play_unit = StepUnit(unit);
  get(j, "loop", d.loop);
  get(j, "heat", d.heat);
  get(j, "heat_log", d.heat_log);
  get(j, "show_sectors", d.show_sectors);
  get(j, "show_lines", d.show_lines);
  get(j, "show_labels", d.show_labels);
  get(j, "show_banks", d.show_banks);
  get(j, "follow", d.follow);
  get(j, "hidden_buffers", d.hidden_buffers);
  get(j, "dram_array", d.dram_array);
  // Files from before the DRAM view followed the request stored its old default, every
  // array (-1), as a choice: they get the new default. Older programs read -2 as every array.
  if (!j.contains("dram_follow") && d.dram_array == -1) d.dram_array = -2;
  if (d.dram_array < -2) d.dram_array = -2;
  get(j, "left_frac", d.left_frac);
  get(j, "right_frac", d.right_frac);
  get(j, "left_split", d.left_split);
  get(j, "center_split", d.center_split);
  get(j, "right_split", d.right_split);
  get(j, "enlarged", d.enlarged);
  get(j, "font_scale", d.font_scale);
  get(j, "theme", d.theme);
  get(j, "last_file", d.last_file);
  // Values from an older or hand-edited file are kept in a sane range.
  d.left_frac = clamp_frac(d.left_frac, 0.1f, 0.45f);
  d.right_frac = clamp_frac(d.right_frac, 0.1f, 0.5f);
  d.left_split = clamp_frac(d.left_split, 0.15f, 0.85f);
  d.center_split = clamp_frac(d.center_split, 0.15f, 0.85f);
  d.right_split = clamp_frac(d.right_split, 0.15f, 0.85f);
  d.speed = clamp_frac(d.speed, 0.25f, 10000.0f);
  d.font_scale = clamp_frac(d.font_scale, 0.75f, 3.0f);
  if (d.enlarged < -1 || d.enlarged >= int(Panel::Count)) d.enlarged = -1;
  if (d.max_records == 0) d.max_records = UiState{}.max_records;
  s = d;
  return true;
}

bool save_settings(const std::string& path, const UiState& s, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  fs::path tmp = p;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      error = "cannot write " + tmp.string();
      return false;
    }
    out << settings_json(s);
    if (!out) {
      error = "cannot write " + tmp.string();
      return false;
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    error = "cannot replace " + path + ": " + ec.message();
    return false;
  }
  return true;
}

}  // namespace ws::ui
