#include "app/gl_grid.h"

#include <epoxy/gl.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "app/shaders.h"
#include "session/heat.h"
#include "ui/figure/theme.h"

namespace ws::app {

namespace {

unsigned compile(GLenum kind, const char* name, std::string& error) {
  const char* src = shader_source(name);
  if (!src) {
    error = std::string("shader ") + name + " is not embedded";
    return 0;
  }
  GLuint s = glCreateShader(kind);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    error = std::string(name) + ": " + log;
    glDeleteShader(s);
    return 0;
  }
  return s;
}

void set_rgb(int loc, ImU32 c) {
  ImVec4 v = ImGui::ColorConvertU32ToFloat4(c);
  glUniform3f(loc, v.x, v.y, v.z);
}

}  // namespace

GlGridPainter::~GlGridPainter() {
  for (auto& [k, t] : textures_) glDeleteTextures(1, &t.id);
  if (blank_) glDeleteTextures(1, &blank_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (program_) glDeleteProgram(program_);
}

bool GlGridPainter::init(std::string& error) {
  GLuint vs = compile(GL_VERTEX_SHADER, "grid.vert.glsl", error);
  if (!vs) return false;
  GLuint fs = compile(GL_FRAGMENT_SHADER, "grid.frag.glsl", error);
  if (!fs) {
    glDeleteShader(vs);
    return false;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetProgramInfoLog(program_, sizeof log, nullptr, log);
    error = std::string("grid shader: ") + log;
    glDeleteProgram(program_);
    program_ = 0;
    return false;
  }
  auto loc = [&](const char* n) { return glGetUniformLocation(program_, n); };
  u_ = {loc("u_rect"),  loc("u_fb"),   loc("u_heat"),  loc("u_has_heat"), loc("u_origin"), loc("u_cell"), loc("u_grid"),
        loc("u_fb_h"),  loc("u_max"),  loc("u_log"),   loc("u_empty"),    loc("u_line"),   loc("u_heat0"), loc("u_heat1"),
        loc("u_heat2"), loc("u_major"), loc("u_bank_tint"), loc("u_row_elems"), loc("u_elem_bytes"), loc("u_tinted")};
  glGenVertexArrays(1, &vao_);
  glGenTextures(1, &blank_);
  glBindTexture(GL_TEXTURE_2D, blank_);
  float zero = 0;
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, 1, 1, 0, GL_RED, GL_FLOAT, &zero);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return true;
}

void GlGridPainter::begin_frame() {
  jobs_.clear();
  ++frame_;
  // Textures of grids not drawn for a while (an older trace) are released.
  for (auto it = textures_.begin(); it != textures_.end();)
    if (frame_ - it->second.used > 240) {
      glDeleteTextures(1, &it->second.id);
      it = textures_.erase(it);
    } else {
      ++it;
    }
}

void GlGridPainter::draw(ImDrawList* dl, const ui::GridDraw& g) {
  if (!program_) return;
  jobs_.push_back({this, g});
  dl->AddCallback(&GlGridPainter::callback, &jobs_.back());
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

void GlGridPainter::callback(const ImDrawList*, const ImDrawCmd* cmd) {
  const Job* job = static_cast<const Job*>(cmd->UserCallbackData);
  job->self->render(*job, cmd);
}

GlGridPainter::Texture& GlGridPainter::texture_for(const ui::GridDraw& g) {
  Texture& t = textures_[g.key];
  t.used = frame_;
  session::HeatLayer* h = g.heat;
  const bool fresh = t.id == 0 || t.rows != h->rows || t.cols != h->cols || t.layer != h;
  if (fresh) {
    if (!t.id) glGenTextures(1, &t.id);
    glBindTexture(GL_TEXTURE_2D, t.id);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, GLsizei(h->cols), GLsizei(h->rows), 0, GL_RED, GL_FLOAT, h->cells.data());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    t.rows = h->rows;
    t.cols = h->cols;
    t.layer = h;
    t.version = h->version;
    h->clear_dirty();
  } else if (t.version != h->version) {
    glBindTexture(GL_TEXTURE_2D, t.id);
    if (h->dirty_hi > h->dirty_lo) {
      // Only the rows that changed since the last upload.
      glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
      glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
      glTexSubImage2D(GL_TEXTURE_2D, 0, 0, GLint(h->dirty_lo), GLsizei(h->cols), GLsizei(h->dirty_hi - h->dirty_lo), GL_RED,
                      GL_FLOAT, h->cells.data() + size_t(h->dirty_lo) * h->cols);
    }
    t.version = h->version;
    h->clear_dirty();
  }
  return t;
}

void GlGridPainter::render(const Job& job, const ImDrawCmd* cmd) {
  const ui::GridDraw& g = job.g;
  ImDrawData* dd = ImGui::GetDrawData();
  if (!dd) return;
  const ImVec2 scale = dd->FramebufferScale;
  const float fb_w = dd->DisplaySize.x * scale.x, fb_h = dd->DisplaySize.y * scale.y;
  // Visible rectangle: the grid's clip, the draw command's clip, and the grid itself.
  ImVec2 a(std::max({g.clip_min.x, cmd->ClipRect.x, g.origin.x}), std::max({g.clip_min.y, cmd->ClipRect.y, g.origin.y}));
  ImVec2 b(std::min({g.clip_max.x, cmd->ClipRect.z, g.origin.x + g.cell * float(g.cols)}),
           std::min({g.clip_max.y, cmd->ClipRect.w, g.origin.y + g.cell * float(g.rows)}));
  if (a.x >= b.x || a.y >= b.y) return;
  auto fx = [&](float x) { return (x - dd->DisplayPos.x) * scale.x; };
  auto fy = [&](float y) { return (y - dd->DisplayPos.y) * scale.y; };
  glEnable(GL_SCISSOR_TEST);
  glScissor(GLint(fx(a.x)), GLint(fb_h - fy(b.y)), GLsizei(std::ceil(fx(b.x) - fx(a.x))), GLsizei(std::ceil(fy(b.y) - fy(a.y))));
  glDisable(GL_BLEND);
  glUseProgram(program_);
  glBindVertexArray(vao_);
  glActiveTexture(GL_TEXTURE0);
  const bool heat = g.heat && !g.heat->cells.empty() && g.heat->rows == g.rows && g.heat->cols == g.cols;
  float mx = 0;
  if (heat) {
    Texture& t = texture_for(g);
    glBindTexture(GL_TEXTURE_2D, t.id);
    mx = g.heat->max;
  } else {
    glBindTexture(GL_TEXTURE_2D, blank_);
  }
  const ui::Theme& th = ui::theme();
  glUniform1i(u_.heat, 0);
  glUniform1i(u_.has_heat, heat ? 1 : 0);
  glUniform4f(u_.rect, fx(a.x), fy(a.y), fx(b.x), fy(b.y));
  glUniform2f(u_.fb, fb_w, fb_h);
  glUniform2f(u_.origin, fx(g.origin.x), fy(g.origin.y));
  glUniform1f(u_.cell, g.cell * scale.x);
  glUniform2f(u_.grid, float(g.cols), float(g.rows));
  glUniform1f(u_.fb_h, fb_h);
  glUniform1f(u_.max, mx);
  glUniform1i(u_.log, g.log_scale ? 1 : 0);
  set_rgb(u_.empty, th.cell_empty);
  set_rgb(u_.line, g.grid_lines ? th.grid_line : th.cell_empty);
  set_rgb(u_.heat0, th.heat_lo);
  set_rgb(u_.heat1, th.heat_mid);
  set_rgb(u_.heat2, th.heat_hi);
  glUniform1f(u_.major, float(g.major_every));
  glUniform1i(u_.bank_tint, g.bank_tint ? 1 : 0);
  set_rgb(u_.tinted, th.cell_tinted);
  glUniform1f(u_.row_elems, float(g.row_elems));
  glUniform1f(u_.elem_bytes, float(g.elem_bytes));
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

}  // namespace ws::app
