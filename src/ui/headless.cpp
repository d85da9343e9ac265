#include "ui/headless.h"

#include "ui/theme.h"
#include "ui/ui.h"

namespace ws::ui {

HeadlessContext::HeadlessContext(float width, float height, float font_scale) {
  ctx_ = ImGui::CreateContext();
  ImGui::SetCurrentContext(ctx_);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(width, height);
  io.DeltaTime = 1.0f / 60;
  // Nothing here rasterizes the draw data, so a window may hold more than 64K vertices (the
  // CPU grid painter draws a cell as a rectangle: five 64×64 arrays are 82K); ImGui then
  // starts a new command at a vertex offset, as it does for the GL backend on GL 3.2+.
  io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
  for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = key(ImGuiKey(k));
  load_fonts(font_scale);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // builds the atlas
  io.Fonts->SetTexID(ImTextureID(intptr_t(1)));
  apply_theme(0, font_scale);
  base_scale_ = built_scale_ = font_scale;
}

HeadlessContext::~HeadlessContext() { ImGui::DestroyContext(ctx_); }

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
