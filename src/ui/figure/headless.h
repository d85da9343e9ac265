// src/ui/figure/headless.h — an ImGui context with no window and no renderer: the font atlas is
// built on the CPU and frames are laid out and turned into draw lists that nobody draws.
// Used by the tests and the frame-time benchmark, and usable by headless figure export.
#pragma once
#include <imgui.h>

namespace ws::ui {

class Ui;

class HeadlessContext {
 public:
  HeadlessContext(float width, float height, float font_scale = 1.0f);
  ~HeadlessContext();
  HeadlessContext(const HeadlessContext&) = delete;
  HeadlessContext& operator=(const HeadlessContext&) = delete;
  // One frame of `ui`: NewFrame, Ui::frame(dt), Render. Returns the draw data.
  ImDrawData* frame(Ui& ui, float dt = 1.0f / 60);
  // Key codes the context maps ImGui's named keys to (for simulated presses).
  static int key(ImGuiKey k) { return 400 + int(k); }
  // Presses `native` (as mapped by key()) for the next frame.
  void press(int native) { pressed_ = native; }
  void type(ImWchar c) { typed_ = c; }

 private:
  ImGuiContext* ctx_ = nullptr;
  float base_scale_ = 1, built_scale_ = 1;  // fonts follow the Ui's text size and presentation mode
  int built_theme_ = 0;
  int pressed_ = -1, released_ = -1;
  ImWchar typed_ = 0;
};

}  // namespace ws::ui
