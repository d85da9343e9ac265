#version 330 core
// One quad over the visible part of a memory grid; grid.frag works out the cell under
// each pixel, so the cost does not depend on how many cells the buffer has.
uniform vec4 u_rect;  // x0, y0, x1, y1 in framebuffer pixels, y pointing down
uniform vec2 u_fb;    // framebuffer size in pixels

void main() {
  // Triangle strip corners (0,0) (1,0) (0,1) (1,1), no vertex buffer needed.
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  vec2 p = mix(u_rect.xy, u_rect.zw, corner);
  gl_Position = vec4(p.x / u_fb.x * 2.0 - 1.0, 1.0 - p.y / u_fb.y * 2.0, 0.0, 1.0);
}
