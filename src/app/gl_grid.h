// src/app/gl_grid.h — draws memory grids on the GPU: one R32F texture of heat per buffer
// (only the rows that changed are uploaded) and one quad per grid whose fragment shader
// finds the cell under each pixel. Inserted into ImGui's draw lists as callbacks, so grids
// stack correctly with the shapes drawn over them.
#pragma once
#include <deque>
#include <map>
#include <string>

#include "ui/figure/scene.h"

namespace ws::app {

class GlGridPainter : public ui::GridPainter {
 public:
  GlGridPainter() = default;
  ~GlGridPainter() override;
  // Compiles the shaders (GL context current). Returns false with `error` set.
  bool init(std::string& error);
  // Call once per frame before the views draw.
  void begin_frame();
  void draw(ImDrawList* dl, const ui::GridDraw& g) override;

  struct Job {
    GlGridPainter* self;
    ui::GridDraw g;
  };

 private:
  struct Texture {
    unsigned id = 0;
    uint32_t rows = 0, cols = 0;
    const void* layer = nullptr;
    uint64_t version = 0;
    uint64_t used = 0;  // frame number of last use
  };
  static void callback(const ImDrawList* dl, const ImDrawCmd* cmd);
  void render(const Job& job, const ImDrawCmd* cmd);
  Texture& texture_for(const ui::GridDraw& g);

  unsigned program_ = 0, vao_ = 0, blank_ = 0;
  std::map<const void*, Texture> textures_;
  std::deque<Job> jobs_;  // this frame's grids (stable addresses for the callbacks)
  uint64_t frame_ = 0;
  struct {
    int rect, fb, heat, has_heat, origin, cell, grid, fb_h, max, log, empty, line, heat0, heat1, heat2, major, bank_tint,
        row_elems, elem_bytes, tinted;
  } u_{};
};

}  // namespace ws::app
