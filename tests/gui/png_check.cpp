// Checks a screenshot of the app against the JSON it wrote beside it:
//   ws_png_check SHOT.png SHOT.json [--expect path.to.key=value | --expect-contains path=text ...]
// The image must have the window's size, must not be blank, and every panel the app says
// it drew must show its header (the accent strip and some title text) and a body that is
// not empty background. The memory view must show grid cells drawn by the GL renderer.
// --expect compares a JSON value (numbers or strings) with the one given;
// --expect-contains checks that the value contains the text given.
#include <stb/stb_image.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

namespace {

struct Image {
  int w = 0, h = 0;
  unsigned char* px = nullptr;
  const unsigned char* at(int x, int y) const { return px + (size_t(y) * size_t(w) + size_t(x)) * 4; }
};

bool near(const unsigned char* p, int r, int g, int b, int tol) {
  return std::abs(p[0] - r) <= tol && std::abs(p[1] - g) <= tol && std::abs(p[2] - b) <= tol;
}

int failures = 0;
void fail(const std::string& what) {
  std::fprintf(stderr, "FAIL: %s\n", what.c_str());
  ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: ws_png_check SHOT.png SHOT.json [--expect key=value | --expect-contains key=text ...]\n");
    return 2;
  }
  Image img;
  int n = 0;
  img.px = stbi_load(argv[1], &img.w, &img.h, &n, 4);
  if (!img.px) {
    std::fprintf(stderr, "FAIL: %s is not a readable PNG\n", argv[1]);
    return 1;
  }
  std::ifstream in(argv[2]);
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded()) {
    std::fprintf(stderr, "FAIL: %s is not JSON\n", argv[2]);
    return 1;
  }

  // Size and "not blank": many distinct colours, and real contrast.
  if (j.contains("display")) {
    if (img.w != j["display"][0].get<int>() || img.h != j["display"][1].get<int>())
      fail("image is " + std::to_string(img.w) + "x" + std::to_string(img.h) + ", window was " + j["display"].dump());
  }
  std::set<uint32_t> colours;
  double sum = 0, sum2 = 0;
  for (int y = 0; y < img.h; y += 2)
    for (int x = 0; x < img.w; x += 2) {
      const unsigned char* p = img.at(x, y);
      colours.insert(uint32_t(p[0] >> 3) << 10 | uint32_t(p[1] >> 3) << 5 | uint32_t(p[2] >> 3));
      double l = 0.3 * p[0] + 0.59 * p[1] + 0.11 * p[2];
      sum += l;
      sum2 += l * l;
    }
  double cnt = double((img.w / 2) * (img.h / 2));
  double sd = std::sqrt(std::max(0.0, sum2 / cnt - (sum / cnt) * (sum / cnt)));
  if (colours.size() < 64) fail("only " + std::to_string(colours.size()) + " distinct colours: blank?");
  if (sd < 8) fail("almost no contrast (sd " + std::to_string(sd) + "): blank?");

  // Panels: accent strip at the header's left edge, title text in the header, a body.
  const auto& acc = j["accent"];
  const int ar = acc[0], ag = acc[1], ab = acc[2];
  const auto& bg = j["background"];
  for (const auto& p : j["panels"]) {
    std::string key = p["key"];
    int x = int(p["rect"][0]), y = int(p["rect"][1]), w = int(p["rect"][2]), h = int(p["rect"][3]);
    if (x < 0 || y < 0 || x + w > img.w || y + h > img.h || w < 20 || h < 20) {
      fail(key + ": rectangle outside the image");
      continue;
    }
    if (!near(img.at(x + 1, y + 8), ar, ag, ab, 12)) fail(key + ": no header accent strip");
    int bright = 0;
    for (int yy = y + 4; yy < y + 24; ++yy)
      for (int xx = x + 10; xx < std::min(x + 160, x + w); ++xx) bright += img.at(xx, yy)[0] > 180;
    if (bright < 20) fail(key + ": no title text in the header");
    int not_bg = 0, samples = 0;
    for (int yy = y + 40; yy < y + h - 4; yy += 7)
      for (int xx = x + 4; xx < x + w - 4; xx += 7) {
        ++samples;
        not_bg += !near(img.at(xx, yy), bg[0], bg[1], bg[2], 3);
      }
    if (samples && not_bg < samples / 2) fail(key + ": body looks empty");
    if (key == "memory" && j.contains("cell_empty")) {
      const auto& ce = j["cell_empty"];
      int cells = 0;
      for (int yy = y + 40; yy < y + h; yy += 3)
        for (int xx = x; xx < x + w; xx += 3) cells += near(img.at(xx, yy), ce[0], ce[1], ce[2], 4);
      if (cells < 50) fail("memory: no grid cells on screen (GL grid renderer?)");
    }
    if (key == "warp") {
      int vivid = 0;  // lane colours: strongly saturated pixels
      for (int yy = y; yy < y + h; yy += 2)
        for (int xx = x; xx < x + w; xx += 2) {
          const unsigned char* q = img.at(xx, yy);
          int mx = std::max({q[0], q[1], q[2]}), mn = std::min({q[0], q[1], q[2]});
          vivid += mx > 200 && mx - mn > 120;
        }
      if (vivid < 200) fail("warp: no lane colours");
    }
  }

  // Expected figures.
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag != "--expect" && flag != "--expect-contains") continue;
    std::string e = argv[i + 1];
    auto eq = e.find('=');
    std::string path = e.substr(0, eq), want = e.substr(eq + 1);
    const nlohmann::json* v = &j;
    std::stringstream ps(path);
    std::string part;
    while (std::getline(ps, part, '.')) {
      if (!v->is_object() || !v->contains(part)) {
        v = nullptr;
        break;
      }
      v = &(*v)[part];
    }
    std::string got = !v ? "(missing)" : v->is_string() ? v->get<std::string>() : v->dump();
    if (flag == "--expect" && got != want) fail(path + " is " + got + ", expected " + want);
    if (flag == "--expect-contains" && got.find(want) == std::string::npos)
      fail(path + " is " + got + ", expected it to contain " + want);
  }
  stbi_image_free(img.px);
  if (failures) return 1;
  std::printf("ok: %s (%dx%d, %zu colours, %zu panels)\n", argv[1], img.w, img.h, colours.size(), j["panels"].size());
  return 0;
}
