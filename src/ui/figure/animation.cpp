#include "ui/figure/animation.h"
#include "ui/figure/figure.h"
#include "ui/figure/theme.h"

#include <gif_lib.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>

namespace ws::ui {
namespace {


std::string gif_error(const std::string& what, int code) {
  const char* s = GifErrorString(code);
  return what + ": " + (s ? s : "GIF error " + std::to_string(code));
}

}  // namespace

const char* animation_formats() { return "gif, webp"; }

bool animation_format_known(const std::string& path) {
  const std::string e = figure_extension(path);
  return e == "gif" || e == "webp";
}

struct AnimationWriter::Impl {
  std::string path;
  int w = 0, h = 0;
  double fps = 2;
  int frames = 0;
  // GIF: written as frames come, each with its own 256-colour palette (the first one is
  // also the global palette).
  GifFileType* gif = nullptr;
  // WebP: the encoder holds the encoded frames; the file is opened up front so an
  // unwritable path fails at once.
  WebPAnimEncoder* webp = nullptr;
  WebPConfig config{};
  std::ofstream out;

  ~Impl() {
    if (gif) {
      int err = 0;
      EGifCloseFile(gif, &err);
    }
    if (webp) WebPAnimEncoderDelete(webp);
  }

  static constexpr int kQuantized = 256 - 32;  // palette entries left to the quantizer

  bool gif_frame(const uint8_t* rgba, std::string& error) {
    const size_t n = size_t(w) * size_t(h);
    std::vector<GifByteType> r(n), g(n), b(n), index(n);
    for (size_t i = 0; i < n; ++i) {
      r[i] = rgba[i * 4];
      g[i] = rgba[i * 4 + 1];
      b[i] = rgba[i * 4 + 2];
    }
    // 224 colours from the frame (median cut), then the 32 lane colours exactly: a
    // quantizer would merge neighbouring lanes (28–31 look alike to it), and telling lanes
    // apart is what the figure is for.
    GifColorType colours[256] = {};
    int size = kQuantized;
    if (GifQuantizeBuffer(unsigned(w), unsigned(h), &size, r.data(), g.data(), b.data(), index.data(), colours) ==
        GIF_ERROR) {
      error = "cannot reduce the frame to 256 colours for " + path;
      return false;
    }
    std::unordered_map<uint32_t, GifByteType> lane_index;
    for (int l = 0; l < 32; ++l) {
      const ImU32 c = lane_color(l);
      GifColorType& e = colours[kQuantized + l];
      e.Red = GifByteType(c & 0xff);
      e.Green = GifByteType((c >> 8) & 0xff);
      e.Blue = GifByteType((c >> 16) & 0xff);
      lane_index.emplace(uint32_t(e.Red) | uint32_t(e.Green) << 8 | uint32_t(e.Blue) << 16, GifByteType(kQuantized + l));
    }
    for (size_t i = 0; i < n; ++i) {
      const auto it = lane_index.find(uint32_t(r[i]) | uint32_t(g[i]) << 8 | uint32_t(b[i]) << 16);
      if (it != lane_index.end()) index[i] = it->second;
    }
    ColorMapObject* map = GifMakeMapObject(256, colours);  // a power of two, as GIF needs
    if (!map) {
      error = "out of memory writing " + path;
      return false;
    }
    bool ok = true;
    if (frames == 0) {
      // GIF89a screen, the first palette as the global one, then loop forever.
      EGifSetGifVersion(gif, true);
      static const unsigned char loop[3] = {1, 0, 0};
      ok = EGifPutScreenDesc(gif, w, h, 8, 0, map) != GIF_ERROR &&
           EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) != GIF_ERROR &&
           EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0") != GIF_ERROR && EGifPutExtensionBlock(gif, 3, loop) != GIF_ERROR &&
           EGifPutExtensionTrailer(gif) != GIF_ERROR;
    }
    GraphicsControlBlock gcb{};
    gcb.DisposalMode = DISPOSE_DO_NOT;
    gcb.UserInputFlag = false;
    gcb.DelayTime = std::max(1, int(std::lround(100.0 / fps)));  // hundredths of a second
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    GifByteType ext[4];
    EGifGCBToExtension(&gcb, ext);
    ok = ok && EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, ext) != GIF_ERROR &&
         EGifPutImageDesc(gif, 0, 0, w, h, false, frames == 0 ? nullptr : map) != GIF_ERROR;
    for (int y = 0; ok && y < h; ++y) ok = EGifPutLine(gif, &index[size_t(y) * size_t(w)], w) != GIF_ERROR;
    GifFreeMapObject(map);
    if (!ok) error = gif_error("cannot write " + path, gif->Error);
    return ok;
  }

  bool webp_frame(const uint8_t* rgba, std::string& error) {
    WebPPicture pic;
    if (!WebPPictureInit(&pic)) {
      error = "libwebp version mismatch";
      return false;
    }
    pic.use_argb = 1;
    pic.width = w;
    pic.height = h;
    bool ok = WebPPictureImportRGBA(&pic, rgba, w * 4) &&
              WebPAnimEncoderAdd(webp, &pic, int(std::lround(frames * 1000.0 / fps)), &config);
    if (!ok) error = "cannot encode a WebP frame for " + path + ": " + WebPAnimEncoderGetError(webp);
    WebPPictureFree(&pic);
    return ok;
  }
};

AnimationWriter::AnimationWriter() = default;
AnimationWriter::~AnimationWriter() = default;

bool AnimationWriter::open(const std::string& path, int width, int height, double fps, std::string& error) {
  impl_.reset();
  const std::string e = figure_extension(path);
  if (e != "gif" && e != "webp") {
    error = "unknown animation type '" + path + "': the file name must end in one of " + animation_formats();
    return false;
  }
  if (width <= 0 || height <= 0 || width > 16383 || height > 16383) {
    error = "animation size " + std::to_string(width) + "x" + std::to_string(height) + " is out of range";
    return false;
  }
  if (!(fps > 0 && fps <= 100)) {
    error = "animation rate " + std::to_string(fps) + " is out of range: allowed 0 < fps <= 100";
    return false;
  }
  auto im = std::make_unique<Impl>();
  im->path = path;
  im->w = width;
  im->h = height;
  im->fps = fps;
  if (e == "gif") {
    // Opened here rather than by EGifOpenFileName, which makes the file private (0600).
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
      error = "cannot write " + path + ": " + std::strerror(errno);
      return false;
    }
    int err = 0;
    im->gif = EGifOpenFileHandle(fd, &err);  // closes fd from now on
    if (!im->gif) {
      ::close(fd);
      error = gif_error("cannot write " + path, err);
      return false;
    }
  } else {
    im->out.open(path, std::ios::binary | std::ios::trunc);
    if (!im->out) {
      error = "cannot write " + path + ": " + std::strerror(errno);
      return false;
    }
    WebPAnimEncoderOptions opt;
    if (!WebPAnimEncoderOptionsInit(&opt) || !WebPConfigInit(&im->config) ||
        !WebPConfigLosslessPreset(&im->config, 3)) {
      error = "libwebp version mismatch";
      return false;
    }
    opt.anim_params.loop_count = 0;  // forever
    im->webp = WebPAnimEncoderNew(width, height, &opt);
    if (!im->webp) {
      error = "cannot start a WebP animation for " + path;
      return false;
    }
  }
  impl_ = std::move(im);
  return true;
}

bool AnimationWriter::add(const uint8_t* rgba, std::string& error) {
  if (!impl_) {
    error = "no animation open";
    return false;
  }
  const bool ok = impl_->gif ? impl_->gif_frame(rgba, error) : impl_->webp_frame(rgba, error);
  if (ok) ++impl_->frames;
  return ok;
}

bool AnimationWriter::finish(std::string& error) {
  if (!impl_) {
    error = "no animation open";
    return false;
  }
  std::unique_ptr<Impl> im = std::move(impl_);
  if (im->frames == 0) {
    error = "no frames for " + im->path;
    return false;
  }
  if (im->gif) {
    int err = 0;
    GifFileType* g = im->gif;
    im->gif = nullptr;
    if (EGifCloseFile(g, &err) == GIF_ERROR) {
      error = gif_error("cannot write " + im->path, err);
      return false;
    }
    return true;
  }
  const int end = int(std::lround(im->frames * 1000.0 / im->fps));
  WebPData data;
  WebPDataInit(&data);
  bool ok = WebPAnimEncoderAdd(im->webp, nullptr, end, nullptr) && WebPAnimEncoderAssemble(im->webp, &data);
  if (!ok) {
    error = std::string("cannot assemble the WebP animation for ") + im->path + ": " + WebPAnimEncoderGetError(im->webp);
  } else {
    im->out.write(reinterpret_cast<const char*>(data.bytes), std::streamsize(data.size));
    im->out.close();
    if (!im->out) {
      error = "cannot write " + im->path + ": " + std::strerror(errno);
      ok = false;
    }
  }
  WebPDataClear(&data);
  return ok;
}

bool write_animation(const std::vector<std::vector<uint8_t>>& frames, int width, int height, const std::string& path,
                     double fps, std::string& error) {
  AnimationWriter w;
  if (!w.open(path, width, height, fps, error)) return false;
  const size_t need = size_t(width) * size_t(height) * 4;
  for (const auto& f : frames) {
    if (f.size() != need) {
      error = "a frame of " + std::to_string(f.size()) + " bytes does not match " + std::to_string(width) + "x" +
              std::to_string(height) + " RGBA";
      return false;
    }
    if (!w.add(f.data(), error)) return false;
  }
  return w.finish(error);
}

}  // namespace ws::ui
