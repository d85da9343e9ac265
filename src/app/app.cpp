#include "app/app.h"

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
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "app/gl_grid.h"
#include "lesson/lesson.h"
#include "session/bench.h"
#include "session/deck.h"
#include "ui/theme.h"
#include "ui/ui.h"

namespace ws::app {

namespace {

// Paths dropped on the window since the last frame (GLFW's callback has no user data here).
std::vector<std::string> g_drops;
void on_drop(GLFWwindow*, int count, const char** paths) {
  for (int i = 0; i < count; ++i) g_drops.emplace_back(paths[i]);
}
std::vector<std::string> take_drops() {
  std::vector<std::string> out;
  out.swap(g_drops);
  return out;
}

// What a first run opens on: the transpose lesson, whose first step is the naive transpose.
constexpr const char* kDefaultLesson = "transpose";

std::string config_dir(const Options& opt) {
  if (opt.config_dir == "none") return "";
  if (!opt.config_dir.empty()) return opt.config_dir;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/warpscope";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/warpscope";
  return "";
}

// Saves the back buffer (what was just rendered) as a PNG.
bool save_png(const std::string& path, int w, int h, std::string& error) {
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

int run(const Options& opt) {
  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) {
    std::fprintf(stderr, "warpscope: error: cannot open a window (no display?); the CLI works without one: warpscope --help\n");
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(opt.width, opt.height, "warpscope", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "warpscope: error: cannot create an OpenGL 3.3 window\n");
    glfwTerminate();
    return 1;
  }
  glfwSetDropCallback(window, on_drop);
  glfwMakeContextCurrent(window);
  pin_gl_driver();
  const bool automated = !opt.screenshot.empty() || opt.frames > 0;
  glfwSwapInterval(opt.vsync && !automated ? 1 : 0);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  const std::string dir = config_dir(opt);
  std::string ini_path;
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    ini_path = dir + "/imgui.ini";
  }
  io.IniFilename = ini_path.empty() ? nullptr : ini_path.c_str();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  // Fonts sized for the window's content scale (a 4K laptop panel reports 2).
  float xs = 1, ys = 1;
  glfwGetWindowContentScale(window, &xs, &ys);
  const float content_scale = std::max(1.0f, xs);
  float font_scale = 0;  // what the atlas was built for
  int theme_built = -1;  // and the theme the style was made for

  GlGridPainter painter;
  std::string gl_error;
  const bool gl_ok = painter.init(gl_error);

  ui::Environment env;
  env.painter = gl_ok ? static_cast<ui::GridPainter*>(&painter) : nullptr;
  env.keys.f1 = GLFW_KEY_F1;
  env.keys.f5 = GLFW_KEY_F5;
  env.keys.f11 = GLFW_KEY_F11;
  env.keys.f12 = GLFW_KEY_F12;
  env.keys.kp_add = GLFW_KEY_KP_ADD;
  env.keys.kp_subtract = GLFW_KEY_KP_SUBTRACT;
  env.settings_path = dir.empty() ? "" : dir + "/settings.json";
  env.replay_dir = opt.replay_dir.empty() ? ui::bundled_replay_dir() : opt.replay_dir;
  env.live = opt.live;
  // Live timings of the family on screen, when this machine has a usable GPU. A short
  // budget per kernel keeps a refresh within a few seconds.
  if (!env.live && session::bench_unavailable().empty())
    env.live = [](const std::vector<std::string>& kernels, const std::map<std::string, int64_t>& params) {
      trace::BenchOptions o;
      o.kernels = kernels;
      o.set = params;
      o.variants = true;
      o.seconds = 0.2;
      o.overhead = false;
      o.zero_cost = false;
      return trace::bench_json(session::bench(o));
    };
  // A first run (no settings yet) with nothing named opens on the default lesson.
  const bool fresh = env.settings_path.empty() || !std::filesystem::exists(env.settings_path);
  ui::Ui ui(env);
  int exit_code_early = 0;
  if (!gl_ok) ui.message("grid shader unavailable, drawing grids without it: " + gl_error, true);

  // What to show first: the command line wins over the settings.
  const session::LaunchSpec& spec = opt.launch;
  if (!spec.kernel.empty()) {
    ui.state.kernel = spec.kernel;
    ui.state.size = 0;
    ui.state.params.clear();
    ui.state.blocks.clear();
  }
  if (spec.size) ui.state.size = *spec.size;
  for (const auto& [k, v] : spec.params) ui.state.params[k] = v;
  if (!spec.blocks.empty()) ui.state.blocks = spec.blocks;
  if (opt.dram_set) ui.state.dram.preset = spec.dram;
  if (!opt.panel.empty()) {
    ui::Panel p;
    if (ui::panel_from_key(opt.panel, p)) ui.state.enlarged = int(p);
  } else if (automated) {
    ui.state.enlarged = -1;
  }
  // A deck given alone opens on its first slide; with a kernel, a trace or a step, it waits
  // for N.
  if (!opt.deck.empty()) ui.load_deck(opt.deck);
  const bool deck_first = !ui.deck.slides.empty() && spec.kernel.empty() && opt.trace_file.empty() && opt.step < 0;
  const bool named = !spec.kernel.empty() || !spec.program.source.empty() || !opt.trace_file.empty() || !opt.deck.empty();
  std::string lesson = opt.lesson;
  if (lesson.empty() && !named) lesson = fresh ? kDefaultLesson : ui.state.lesson;
  if (!spec.program.source.empty())
    ui.open_program(spec);
  else if (!opt.trace_file.empty())
    ui.open_file(opt.trace_file);
  else if (deck_first)
    ui.goto_slide(0);
  else if (lesson.empty() || !ui.open_lesson(lesson))
    ui.record();
  if (opt.step > 0) ui.set_step(uint64_t(opt.step - 1));
  ui.state.show_help = opt.show_help;
  if (opt.present) ui.state.present = true;
  if (!opt.compare.empty()) {
    std::string err;
    if (!ui.set_compare(opt.compare, err)) {
      std::fprintf(stderr, "warpscope: error: %s\n", err.c_str());
      exit_code_early = 2;
    }
  }
  bool start_playing = opt.play;

  std::vector<double> frame_ms;  // CPU time per frame: views, draw lists, GL submission

  int exit_code = exit_code_early;
  int64_t pending_step = opt.step;
  int frames_after_ready = 0;
  int windowed[4] = {100, 100, opt.width, opt.height};  // x, y, w, h before full screen
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  for (;;) {
    // Idle and not playing: sleep until an event (or a background job may finish).
    if (!automated && !ui.state.playing && !ui.recorder.busy() && ui.settled())
      glfwWaitEventsTimeout(0.25);
    else
      glfwPollEvents();
    if (glfwWindowShouldClose(window) || ui.quit_requested()) break;
    // Files dropped on the window: a program builds and runs, a trace opens.
    for (const std::string& path : take_drops()) {
      if (path.size() > 3 && path.compare(path.size() - 3, 3, ".cu") == 0) {
        session::LaunchSpec dropped;
        dropped.program.source = path;
        ui.open_program(dropped);
      } else {
        ui.open_file(path);
      }
    }
    // A program saved in an editor is rebuilt and recorded again.
    if (!automated) {
      static double last_check = 0;
      const double t = glfwGetTime();
      if (t - last_check > 1.0) {
        last_check = t;
        ui.rebuild_if_saved();
      }
    }
    auto now = std::chrono::steady_clock::now();
    float dt = std::chrono::duration<float>(now - last).count();
    last = now;
    // Text size (View menu, Ctrl +/-): rebuild the font atlas between frames.
    int win_w = 0, win_h = 0;
    glfwGetWindowSize(window, &win_w, &win_h);
    if (float want = content_scale * ui.font_scale_for(float(win_h)); want != font_scale || ui.theme_index() != theme_built) {
      font_scale = want;
      theme_built = ui.theme_index();
      io.Fonts->Clear();
      ui::Fonts f = ui::load_fonts(font_scale);
      ui::apply_theme(theme_built, font_scale);
      ImGui_ImplOpenGL3_DestroyFontsTexture();
      ImGui_ImplOpenGL3_CreateFontsTexture();
      if (!f.message.empty()) ui.message(f.message, true);
    }
    const auto frame_start = std::chrono::steady_clock::now();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    // Driven runs take pictures: no hover tooltips from wherever the pointer happens to be.
    if (automated) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    ImGui::NewFrame();
    painter.begin_frame();
    ui.frame(automated ? 1.0f / 60 : dt);
    if (pending_step > 0 && ui.has_model() && !ui.recorder.busy()) {
      try {
        ui.set_step(session::record_of_request(pending_step, ui.pane.model->size()));
      } catch (const session::InputError& e) {
        ui.message(std::string("--step: ") + e.what(), true);
      }
      pending_step = -1;
    }
    if (start_playing && ui.has_model() && pending_step <= 0) {
      ui.state.playing = true;
      start_playing = false;
    }
    ImGui::Render();
    int fw, fh;
    glfwGetFramebufferSize(window, &fw, &fh);
    glViewport(0, 0, fw, fh);
    ImVec4 bg = ImGui::ColorConvertU32ToFloat4(ui::theme().bg);
    glClearColor(bg.x, bg.y, bg.z, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (opt.stats && ui.has_model())
      frame_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frame_start).count());

    if (ui.take_fullscreen_toggle()) {
      // Full screen on the primary monitor; back to the window's last place and size.
      if (glfwGetWindowMonitor(window)) {
        glfwSetWindowMonitor(window, nullptr, windowed[0], windowed[1], windowed[2], windowed[3], 0);
      } else if (GLFWmonitor* mon = glfwGetPrimaryMonitor()) {
        glfwGetWindowPos(window, &windowed[0], &windowed[1]);
        glfwGetWindowSize(window, &windowed[2], &windowed[3]);
        const GLFWvidmode* mode = glfwGetVideoMode(mon);
        glfwSetWindowMonitor(window, mon, 0, 0, mode->width, mode->height, mode->refreshRate);
      }
    }
    std::string shot = ui.take_screenshot_request();
    if (!shot.empty()) {
      std::string err;
      if (save_png(shot, fw, fh, err))
        ui.message("saved " + shot);
      else
        ui.message(err, true);
    }
    if (automated) {
      const bool ready = ui.settled() && pending_step <= 0;
      if (ready) ++frames_after_ready;
      const double waited = std::chrono::duration<double>(now - t0).count();
      const bool failed = !ui.has_model() && !ui.recorder.busy() && !ui.status.record_error.empty();
      const int need = std::max(opt.frames, 3);
      if (failed || frames_after_ready >= need || waited > 300) {
        if (failed) {
          std::fprintf(stderr, "warpscope: error: %s\n", ui.status.record_error.c_str());
          exit_code = 2;
        } else if (!ready) {
          std::fprintf(stderr, "warpscope: error: gave up waiting for the trace after %.0f s\n", waited);
          exit_code = 3;
        }
        // A program that did not compile is pictured too: the window lists why.
        if (!opt.screenshot.empty() && (!failed || !ui.status.build_errors.empty())) {
          std::string err;
          if (!save_png(opt.screenshot, fw, fh, err)) {
            std::fprintf(stderr, "warpscope: error: %s\n", err.c_str());
            exit_code = 1;
          }
        }
        if (!opt.windows_json.empty()) {
          std::ofstream out(opt.windows_json);
          out << ui.describe_json() << "\n";
        }
        break;
      }
    }
    glfwSwapBuffers(window);
  }

  if (!automated) ui.save_settings();
  if (opt.stats && !frame_ms.empty()) {
    std::sort(frame_ms.begin(), frame_ms.end());
    std::printf("frames %zu: CPU per frame (views + draw lists + GL submission) median %.2f ms, p95 %.2f ms, max %.2f ms\n",
                frame_ms.size(), frame_ms[frame_ms.size() / 2], frame_ms[size_t(double(frame_ms.size()) * 0.95)],
                frame_ms.back());
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}

// ---- options ------------------------------------------------------------------------------

void check_options(const Options& opt) {
  if (opt.width < 320 || opt.height < 240)
    throw session::InputError("--width/--height: the window must be at least 320x240");
  if (opt.step == 0 || opt.step < -1)
    throw session::InputError("--step " + std::to_string(opt.step) + ": requests are numbered from 1");
  // Bad values are refused before a window opens.
  if (!opt.launch.kernel.empty()) session::resolve(opt.launch);
  if (!opt.deck.empty()) session::load_deck(opt.deck);
  if (!opt.lesson.empty()) {
    try {
      lesson::load(lesson::find(opt.lesson));
    } catch (const lesson::LessonError& e) {
      throw session::InputError(e.what());
    }
  }
}

}  // namespace ws::app
