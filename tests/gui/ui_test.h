// Helpers the headless GUI tests share: a Ui with no replay pack, and frames until it
// has settled (recordings of both A/B sides done, heat caught up).
#pragma once
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ui/figure/figure.h"
#include "ui/figure/headless.h"
#include "ui/ui.h"
#include "ui/controls.h"

namespace ws::test {

// The texts of an exported figure's scenes.
inline std::set<std::string> figure_texts(const ui::Figure& f) {
  std::set<std::string> texts;
  for (const auto& c : f.chunks)
    for (const auto& i : c.scene.items)
      if (i.kind == ui::Scene::Kind::Text) texts.insert(i.text);
  return texts;
}

inline ui::Environment quiet_env() {
  ui::Environment env;
  env.replay_dir = "";  // no replay pack: the timing panel must say so
  return env;
}

// Draws frames until the background jobs are done and the heat has caught up.
inline void settle(ui::HeadlessContext& ctx, ui::Ui& u) {
  for (int i = 0; i < 4000; ++i) {
    ctx.frame(u);
    if (u.settled()) return;
    if (u.recorder.busy()) u.recorder.wait_idle();
    if (u.ab.recorder.busy()) u.ab.recorder.wait_idle();
  }
  FAIL("the UI did not settle");
}

// One frame of `u` with every scene it draws collected.
inline std::vector<ui::SceneChunk> frame_scenes(ui::HeadlessContext& ctx, ui::Ui& u) {
  std::vector<ui::SceneChunk> chunks;
  ui::set_scene_sink(&chunks);
  ctx.frame(u);
  ui::set_scene_sink(nullptr);
  return chunks;
}

// The texts one frame of `u` draws in its scenes.
inline std::set<std::string> frame_texts(ui::HeadlessContext& ctx, ui::Ui& u) {
  std::set<std::string> texts;
  for (const auto& c : frame_scenes(ctx, u))
    for (const auto& i : c.scene.items)
      if (i.kind == ui::Scene::Kind::Text) texts.insert(i.text);
  return texts;
}

// Raises `*flag` (a dialog's open request) with `path` in the dialog's field: the dialog
// opens, and Escape closes it.
inline void check_dialog_escape(ui::HeadlessContext& ctx, ui::Ui& u, bool* flag, const std::string& path) {
  *flag = true;
  u.dialogs.path = path;
  for (int i = 0; i < 5; ++i) ctx.frame(u);
  CHECK(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId));
  ctx.press(ui::HeadlessContext::key(ImGuiKey_Escape));
  ctx.frame(u);
  ctx.frame(u);
  CHECK(!ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId));
}

// A copy of examples/transpose.cu whose naive store writes one element past its row
// (`out[y * n + x + 1]`: the last thread past the array's end), in a folder of its own
// named after `tag`; the program's path.
inline std::filesystem::path faulting_transpose(const std::string& tag) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ws-program-" + tag + "-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::stringstream text;
  text << std::ifstream("examples/transpose.cu").rdbuf();
  std::string bad = text.str();
  const std::string from = "out[x * n + y] = in[y * n + x];";
  REQUIRE(bad.find(from) != std::string::npos);
  bad.replace(bad.find(from), from.size(), "out[y * n + x + 1] = in[y * n + x];");
  std::ofstream(dir / "transpose.cu") << bad;
  return dir / "transpose.cu";
}

}  // namespace ws::test
