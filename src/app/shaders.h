// src/app/shaders.h — GLSL sources from shaders/*.glsl, embedded at build time.
#pragma once
#include <string>

namespace ws::app {

// Text of shaders/<name> ("grid.vert.glsl"), or nullptr.
const char* shader_source(const std::string& name);

}  // namespace ws::app
