// src/ui/figure/animation.h — animated figures: a sequence of RGBA frames (figure_rgba) written
// as one animated GIF (giflib) or WebP (libwebp's animation encoder), looping, at a fixed
// frame rate. Frames are encoded as they are added, so long sequences need no memory of
// the frames before.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ws::ui {

const char* animation_formats();  // "gif, webp"
// Whether `path` ends in one of animation_formats().
bool animation_format_known(const std::string& path);

class AnimationWriter {
 public:
  AnimationWriter();
  ~AnimationWriter();
  AnimationWriter(const AnimationWriter&) = delete;
  AnimationWriter& operator=(const AnimationWriter&) = delete;
  // Starts `path` (its extension picks the format) for width × height frames shown at
  // `fps` frames a second. False (and a one-line `error`) when the type is unknown, the
  // size or rate unusable, or the file cannot be created.
  bool open(const std::string& path, int width, int height, double fps, std::string& error);
  // Adds one frame: width * height * 4 bytes, RGBA, top row first.
  bool add(const uint8_t* rgba, std::string& error);
  // Writes what is left and closes the file; false (and `error`) on failure.
  bool finish(std::string& error);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// All of `frames` (each width * height * 4 bytes RGBA) as one animation at `path`.
bool write_animation(const std::vector<std::vector<uint8_t>>& frames, int width, int height, const std::string& path,
                     double fps, std::string& error);

}  // namespace ws::ui
