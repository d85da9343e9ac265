#include "ui/figure/headless.h"

#include "ui/figure/theme.h"

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



}  // namespace ws::ui
