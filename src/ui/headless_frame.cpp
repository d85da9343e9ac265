// src/ui/headless_frame.cpp — one frame of the Ui in a HeadlessContext (ui/figure/headless.h):
// NewFrame, Ui::frame, Render, with the keys and characters the tests pressed and the fonts
// rebuilt where presentation mode or the theme changed, as the app does. Here, beside the
// Ui, so that the figure code the CLI uses knows nothing of the app's controllers.
#include "ui/figure/headless.h"
#include "ui/figure/theme.h"
#include "ui/ui.h"

namespace ws::ui {

ImDrawData* HeadlessContext::frame(Ui& ui, float dt) {
  ImGui::SetCurrentContext(ctx_);
  ImGuiIO& io = ImGui::GetIO();
  io.DeltaTime = dt > 0 ? dt : 1.0f / 60;
  if (released_ >= 0) io.KeysDown[released_] = false;
  released_ = -1;
  if (pressed_ >= 0) {
    io.KeysDown[pressed_] = true;
    released_ = pressed_;
    pressed_ = -1;
  }
  if (typed_) {
    io.AddInputCharacter(typed_);
    typed_ = 0;
  }
  // Presentation mode or a new text size: re-rasterize the TTFs, as the app does.
  if (float want = base_scale_ * ui.font_scale_for(io.DisplaySize.y); want != built_scale_ || ui.theme_index() != built_theme_) {
    built_scale_ = want;
    built_theme_ = ui.theme_index();
    io.Fonts->Clear();
    load_fonts(want);
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    io.Fonts->SetTexID(ImTextureID(intptr_t(1)));
    apply_theme(built_theme_, want);
  }
  ImGui::NewFrame();
  ui.frame(io.DeltaTime);
  ImGui::Render();
  return ImGui::GetDrawData();
}

}  // namespace ws::ui
