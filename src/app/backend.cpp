// src/app/backend.cpp — the GLFW window, the OpenGL context and Dear ImGui's platform and
// renderer backends behind app::Backend (backend.h).
#include "app/backend.h"

#include <dlfcn.h>
#include <epoxy/gl.h>
#include <link.h>
// GLFW after the loader: it must not pull in a second set of GL declarations.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <filesystem>

#include "ui/figure/theme.h"

namespace ws::app {

namespace {

// Paths dropped on the window since the last frame (GLFW's callback has no user data here).
std::vector<std::string> g_drops;
void on_drop(GLFWwindow*, int count, const char** paths) {
  for (int i = 0; i < count; ++i) g_drops.emplace_back(paths[i]);
}

// Keeps the OpenGL driver's libraries loaded until the process ends. The driver keeps a few
// allocations for the life of the process; once glfwTerminate() unloads it, a leak checker
// at exit can no longer tell whose they are and fails the run. Pinned, they stay named
// (tests/lsan.supp lists the driver's libraries).
void pin_gl_driver() {
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void*) {
        const std::string path = info->dlpi_name ? info->dlpi_name : "";
        for (const char* part : {"_dri.so", "libgallium", "libGLX_mesa", "libEGL_mesa", "libglapi", "libLLVM"})
          if (path.find(part) != std::string::npos) {
            dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);  // a reference never released
            break;
          }
        return 0;
      },
      nullptr);
}

void glfw_error(int code, const char* what) { std::fprintf(stderr, "warpscope: error: GLFW %d: %s\n", code, what); }

}  // namespace

bool Backend::open(int width, int height, bool swap_every_frame, const std::string& config_dir) {
  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) {
    std::fprintf(stderr, "warpscope: error: cannot open a window (no display?); the CLI works without one: warpscope --help\n");
    return false;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  window_ = glfwCreateWindow(width, height, "warpscope", nullptr, nullptr);
  if (!window_) {
    std::fprintf(stderr, "warpscope: error: cannot create an OpenGL 3.3 window\n");
    glfwTerminate();
    return false;
  }
  windowed_[2] = width;
  windowed_[3] = height;
  glfwSetDropCallback(window_, on_drop);
  glfwMakeContextCurrent(window_);
  pin_gl_driver();
  glfwSwapInterval(swap_every_frame ? 1 : 0);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  if (!config_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(config_dir, ec);
    ini_path_ = config_dir + "/imgui.ini";
  }
  ImGui::GetIO().IniFilename = ini_path_.empty() ? nullptr : ini_path_.c_str();
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  // Fonts sized for the window's content scale.
  float xs = 1, ys = 1;
  glfwGetWindowContentScale(window_, &xs, &ys);
  content_scale_ = std::max(1.0f, xs);
  return true;
}

void Backend::close() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
  window_ = nullptr;
}

ui::Keys Backend::keys() const {
  ui::Keys k;
  k.f1 = GLFW_KEY_F1;
  k.f5 = GLFW_KEY_F5;
  k.f11 = GLFW_KEY_F11;
  k.f12 = GLFW_KEY_F12;
  k.kp_add = GLFW_KEY_KP_ADD;
  k.kp_subtract = GLFW_KEY_KP_SUBTRACT;
  return k;
}

void Backend::wait_events(double timeout) { glfwWaitEventsTimeout(timeout); }
void Backend::poll_events() { glfwPollEvents(); }
bool Backend::should_close() const { return glfwWindowShouldClose(window_); }
double Backend::time() const { return glfwGetTime(); }

std::vector<std::string> Backend::take_drops() {
  std::vector<std::string> out;
  out.swap(g_drops);
  return out;
}

void Backend::fit_fonts(ui::Ui& ui) {
  int win_w = 0, win_h = 0;
  glfwGetWindowSize(window_, &win_w, &win_h);
  const float want = content_scale_ * ui.font_scale_for(float(win_h));
  if (want == font_scale_ && ui.theme_index() == theme_built_) return;
  font_scale_ = want;
  theme_built_ = ui.theme_index();
  ImGui::GetIO().Fonts->Clear();
  ui::Fonts f = ui::load_fonts(font_scale_);
  ui::apply_theme(theme_built_, font_scale_);
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  if (!f.message.empty()) ui.message(f.message, true);
}

void Backend::new_frame(bool automated) {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  if (automated) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  ImGui::NewFrame();
}

void Backend::render() {
  ImGui::Render();
  glfwGetFramebufferSize(window_, &fb_w_, &fb_h_);
  glViewport(0, 0, fb_w_, fb_h_);
  ImVec4 bg = ImGui::ColorConvertU32ToFloat4(ui::theme().bg);
  glClearColor(bg.x, bg.y, bg.z, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Backend::swap_buffers() { glfwSwapBuffers(window_); }

void Backend::toggle_fullscreen() {
  if (glfwGetWindowMonitor(window_)) {
    glfwSetWindowMonitor(window_, nullptr, windowed_[0], windowed_[1], windowed_[2], windowed_[3], 0);
  } else if (GLFWmonitor* mon = glfwGetPrimaryMonitor()) {
    glfwGetWindowPos(window_, &windowed_[0], &windowed_[1]);
    glfwGetWindowSize(window_, &windowed_[2], &windowed_[3]);
    const GLFWvidmode* mode = glfwGetVideoMode(mon);
    glfwSetWindowMonitor(window_, mon, 0, 0, mode->width, mode->height, mode->refreshRate);
  }
}

bool Backend::save_png(const std::string& path, std::string& error) const {
  const int w = fb_w_, h = fb_h_;
  std::vector<unsigned char> px(size_t(w) * size_t(h) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  // GL's rows run bottom-up; PNG's top-down. The alpha channel is made opaque.
  std::vector<unsigned char> flipped(px.size());
  const size_t row = size_t(w) * 4;
  for (int y = 0; y < h; ++y) {
    std::copy_n(px.data() + size_t(h - 1 - y) * row, row, flipped.data() + size_t(y) * row);
    for (size_t x = 3; x < row; x += 4) flipped[size_t(y) * row + x] = 255;
  }
  std::error_code ec;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (!stbi_write_png(path.c_str(), w, h, 4, flipped.data(), int(row))) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace ws::app
