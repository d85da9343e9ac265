// src/app/backend.h — the platform under the app: one GLFW window with an OpenGL 3.3
// context, Dear ImGui's GLFW and OpenGL3 backends, the font atlas and theme rebuilt when
// the views ask for other ones, full screen, dropped files and the back buffer saved as a
// PNG. The main loop (app.cpp) wires it to the views and calls no GLFW or GL itself.
#pragma once
#include <string>
#include <vector>

#include "ui/ui.h"

struct GLFWwindow;

namespace ws::app {

class Backend {
 public:
  // Opens a `width`×`height` window and ImGui on it, ImGui's layout file kept in
  // `config_dir` ("": none); false, the reason on stderr, when there is no display or no GL 3.3.
  bool open(int width, int height, bool swap_every_frame, const std::string& config_dir);
  // Shuts ImGui, the window and GLFW down (after the views are done with them).
  void close();

  // The platform's codes for the keys ImGui has no portable name for.
  ui::Keys keys() const;
  // Sleeps until an event arrives or `timeout` seconds pass (the app is idle).
  void wait_events(double timeout);
  void poll_events();
  // The user closed the window.
  bool should_close() const;
  // Paths dropped on the window since the last call.
  std::vector<std::string> take_drops();
  // Seconds since the window opened.
  double time() const;
  // Rebuilds the font atlas and the style when the scale `ui` wants for this window's
  // height, or its theme, changed since the last build (between frames only).
  void fit_fonts(ui::Ui& ui);
  // Starts an ImGui frame; a driven run (`automated`) hides the pointer so no tooltip
  // shows wherever it happens to be.
  void new_frame(bool automated);
  // Renders ImGui's draw data over the theme's background.
  void render();
  // Shows what was rendered (the end of a frame).
  void swap_buffers();
  // Enters full screen on the primary monitor, or goes back to the window's last place.
  void toggle_fullscreen();
  // Saves what was just rendered as a PNG; false and `error` when it cannot.
  bool save_png(const std::string& path, std::string& error) const;

 private:
  GLFWwindow* window_ = nullptr;
  std::string ini_path_;            // ImGui keeps a pointer to it
  float content_scale_ = 1;         // a 4K laptop panel reports 2
  float font_scale_ = 0;            // what the atlas was built for
  int theme_built_ = -1;            // and the theme the style was made for
  int fb_w_ = 0, fb_h_ = 0;         // the framebuffer last rendered
  int windowed_[4] = {100, 100, 0, 0};  // x, y, w, h before full screen
};

}  // namespace ws::app
