#version 330 core
// Colours one memory grid: untouched cells in the empty colour, touched cells on the heat
// ramp (lane accesses so far), thin lines between cells when they are large enough, a
// stronger line at every 32-byte sector boundary, and for shared arrays a faint
// alternation of the 4-byte banks.
uniform sampler2D u_heat;    // R32F texture, cols x rows: lane accesses per cell
uniform int u_has_heat;
uniform vec2 u_origin;       // framebuffer pixel of cell (0,0)'s top-left corner, y down
uniform float u_cell;        // pixels per cell
uniform vec2 u_grid;         // cols, rows
uniform float u_fb_h;        // framebuffer height (gl_FragCoord has y up)
uniform float u_max;         // largest heat value
uniform int u_log;           // log scale keeps rarely touched cells visible
uniform vec3 u_empty;
uniform vec3 u_line;
uniform vec3 u_heat0;
uniform vec3 u_heat1;
uniform vec3 u_heat2;
uniform float u_major;       // columns between sector lines (0: none)
uniform int u_bank_tint;
uniform vec3 u_tinted;      // an odd bank's empty cell
uniform float u_row_elems;   // elements per grid row
uniform float u_elem_bytes;

out vec4 frag;

vec3 ramp(float t) {
  return t < 0.5 ? mix(u_heat0, u_heat1, t * 2.0) : mix(u_heat1, u_heat2, t * 2.0 - 1.0);
}

float heat_at(vec2 c) {
  ivec2 q = clamp(ivec2(floor(c)), ivec2(0), ivec2(u_grid) - 1);
  return texelFetch(u_heat, q, 0).r;
}

void main() {
  vec2 px = vec2(gl_FragCoord.x, u_fb_h - gl_FragCoord.y);
  vec2 c = (px - u_origin) / u_cell;
  if (c.x < 0.0 || c.y < 0.0 || c.x >= u_grid.x || c.y >= u_grid.y) discard;
  ivec2 cell = ivec2(floor(c));

  float h = 0.0;
  if (u_has_heat == 1) {
    if (u_cell >= 1.0) {
      h = texelFetch(u_heat, cell, 0).r;
    } else {
      // Several cells per pixel: show the busiest, so sparse traffic does not vanish.
      int n = int(min(4.0, ceil(1.0 / u_cell)));
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          vec2 sub = px - 0.5 + (vec2(float(i), float(j)) + 0.5) / float(n);
          h = max(h, heat_at((sub - u_origin) / u_cell));
        }
    }
  }

  vec3 col = u_empty;
  if (u_bank_tint == 1) {
    float e = float(cell.y) * u_row_elems + float(cell.x);
    float bank = mod(floor(e * u_elem_bytes / 4.0), 32.0);
    col = mix(col, u_tinted, mod(bank, 2.0));
  }
  if (h > 0.0 && u_max > 0.0) {
    float t = u_log == 1 ? log(1.0 + h) / log(1.0 + u_max) : h / u_max;
    col = ramp(clamp(t, 0.0, 1.0));
  }
  // A boundary is drawn on the one pixel whose span (px - 1, px] contains it, so every
  // line is exactly one pixel wide whatever the rounding.
  vec2 before = floor((px - 1.0 - u_origin) / u_cell);
  if (u_cell >= 6.0 && any(notEqual(before, vec2(cell)))) col = u_line;
  if (u_major > 0.0 && u_cell >= 3.0 && floor(before.x / u_major) != floor(float(cell.x) / u_major))
    col = mix(col, vec3(0.62, 0.68, 0.78), 0.55);
  frag = vec4(col, 1.0);
}
