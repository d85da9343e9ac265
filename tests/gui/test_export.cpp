// Figure export: the bank diagram of transpose_tiled written as SVG and PNG from the same
// scenes the app draws, checked as files (PNG header and colours, SVG well-formed and
// holding the expected shapes and words), and `warpscope export` on the command line.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "session/capture.h"
#include "session/worker.h"
#include "ui/figure.h"
#include "ui/headless.h"

using namespace ws;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir() {
  auto p = fs::temp_directory_path() / ("warpscope-test-export-" + std::to_string(::getpid()));
  fs::create_directories(p);
  return p;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A small XML well-formedness check: balanced, properly nested tags, quoted attributes,
// known entities. Returns "" or what is wrong.
std::string xml_error(const std::string& x) {
  std::vector<std::string> stack;
  size_t i = 0, roots = 0;
  auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.'; };
  while (i < x.size()) {
    if (x[i] == '&') {
      size_t e = x.find(';', i);
      if (e == std::string::npos) return "bare &";
      std::string ent = x.substr(i + 1, e - i - 1);
      if (ent != "amp" && ent != "lt" && ent != "gt" && ent != "quot" && ent != "apos" && ent[0] != '#')
        return "unknown entity " + ent;
      i = e + 1;
      continue;
    }
    if (x[i] == '>') return "stray >";
    if (x[i] != '<') {
      if (stack.empty() && !std::isspace(static_cast<unsigned char>(x[i]))) return "text outside the root";
      ++i;
      continue;
    }
    if (x.compare(i, 2, "<?") == 0) {
      size_t e = x.find("?>", i);
      if (e == std::string::npos) return "open <?";
      i = e + 2;
      continue;
    }
    if (x.compare(i, 4, "<!--") == 0) {
      size_t e = x.find("-->", i);
      if (e == std::string::npos) return "open comment";
      i = e + 3;
      continue;
    }
    bool closing = x[i + 1] == '/';
    size_t j = i + (closing ? 2 : 1);
    size_t n0 = j;
    while (j < x.size() && name_char(x[j])) ++j;
    std::string name = x.substr(n0, j - n0);
    if (name.empty()) return "tag without a name";
    if (closing) {
      while (j < x.size() && std::isspace(static_cast<unsigned char>(x[j]))) ++j;
      if (j >= x.size() || x[j] != '>') return "bad closing tag " + name;
      if (stack.empty() || stack.back() != name) return "</" + name + "> closes nothing open";
      stack.pop_back();
      i = j + 1;
      continue;
    }
    // Attributes.
    std::set<std::string> attrs;
    for (;;) {
      while (j < x.size() && std::isspace(static_cast<unsigned char>(x[j]))) ++j;
      if (j >= x.size()) return "open tag " + name;
      if (x[j] == '>' || x.compare(j, 2, "/>") == 0) break;
      size_t a0 = j;
      while (j < x.size() && name_char(x[j])) ++j;
      std::string an = x.substr(a0, j - a0);
      if (an.empty() || j >= x.size() || x[j] != '=' || j + 1 >= x.size() || (x[j + 1] != '"' && x[j + 1] != '\''))
        return "bad attribute in <" + name + ">";
      if (!attrs.insert(an).second) return "repeated attribute " + an;
      char q = x[j + 1];
      size_t e = x.find(q, j + 2);
      if (e == std::string::npos) return "unterminated attribute " + an;
      if (x.substr(j + 2, e - j - 2).find('<') != std::string::npos) return "< in attribute " + an;
      j = e + 1;
    }
    if (stack.empty()) ++roots;
    if (x[j] == '>') {
      stack.push_back(name);
      i = j + 1;
    } else {
      i = j + 2;
    }
  }
  if (!stack.empty()) return "<" + stack.back() + "> never closed";
  if (roots != 1) return "expected one root element";
  return "";
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

struct Png {
  bool ok = false;
  uint32_t width = 0, height = 0;
};

Png png_header(const std::string& d) {
  Png p;
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
  if (d.size() < 33 || std::memcmp(d.data(), sig, 8) != 0 || d.compare(12, 4, "IHDR") != 0) return p;
  auto be = [&](size_t o) {
    return uint32_t(uint8_t(d[o])) << 24 | uint32_t(uint8_t(d[o + 1])) << 16 | uint32_t(uint8_t(d[o + 2])) << 8 |
           uint32_t(uint8_t(d[o + 3]));
  };
  p.width = be(16);
  p.height = be(20);
  p.ok = d.find("IEND") != std::string::npos;
  return p;
}

// The transpose_tiled launch at size 64, at its first shared-memory store.
struct Shown {
  std::shared_ptr<session::Session> model;
  uint64_t step = 0;
};

Shown tile_store(int64_t pad) {
  session::LaunchSpec req;
  req.kernel = "transpose_tiled";
  req.size = 64;
  req.params["pad"] = pad;
  req.backend = "emulator";
  Shown s;
  s.model = session::record_session(req);
  const trace::Trace& t = s.model->trace();
  for (uint64_t i = 0; i < t.records.size(); ++i) {
    const trace::Site& site = t.sites[t.records[i].site];
    if (site.space == trace::Space::Shared && site.op == trace::Op::Store) {
      s.step = i;
      break;
    }
  }
  return s;
}

std::string run_cli(const std::string& args, int& code) {
  fs::path out = temp_dir() / "cli-output.txt";
  std::string cmd = std::string(WS_BINARY) + " " + args + " > " + out.string() + " 2>&1";
  int st = std::system(cmd.c_str());
  code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return slurp(out);
}

}  // namespace

TEST_CASE("the XML check itself") {
  CHECK(xml_error("<a x=\"1\"><b/>t &amp; u</a>") == "");
  CHECK(xml_error("<a><b></a>") != "");
  CHECK(xml_error("<a x=1/>") != "");
  CHECK(xml_error("<a>&nbsp;</a>") != "");
}

// How many text items of the figure read exactly `text`.
int figure_text_count(const ui::Figure& f, const std::string& text) {
  int n = 0;
  for (const auto& c : f.chunks)
    for (const auto& i : c.scene.items)
      if (i.kind == ui::Scene::Kind::Text && i.text == text) ++n;
  return n;
}
bool figure_has_text(const ui::Figure& f, const std::string& text) { return figure_text_count(f, text) > 0; }

TEST_CASE("bank diagram of transpose_tiled as SVG and PNG, from the view's scenes") {
  ui::HeadlessContext ctx(1200, 700);
  const fs::path dir = temp_dir();

  for (int64_t pad : {0, 1}) {
    CAPTURE(pad);
    Shown s = tile_store(pad);
    REQUIRE(s.model->size() > 0);
    REQUIRE(s.model->request(s.step).shared);
    ui::Figure f = ui::render_figure(s.model, s.step, ui::FigureView::Banks, 1200, 700,
                                     "transpose_tiled · size=64 pad=" + std::to_string(pad));
    CHECK(f.width == 1200);
    CHECK(f.height == 700);

    const std::string svg = ui::figure_svg(f);
    CHECK(xml_error(svg) == "");
    CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\" height=\"700\"") != std::string::npos);
    CHECK(svg.find("font-family=") != std::string::npos);
    // Bank numbers under the 32 columns (every fourth is labelled when columns are narrow)
    // and lane labels over the lanes.
    CHECK(svg.find(">28</text>") != std::string::npos);
    CHECK(svg.find(">31</text>") != std::string::npos);
    CHECK(count(svg, "<line ") >= 32 + 32);  // 32 bank baselines and a connector per lane
    CHECK(count(svg, "<rect ") >= 64);       // lanes and words
    CHECK(svg.find("size=64 pad=" + std::to_string(pad)) != std::string::npos);  // the caption
    const unsigned way = s.model->request(s.step).s.max_way;
    // The inspector's figures and reason are on the figure, as on the screen.
    if (pad == 0) {
      CHECK(way == 32);
      CHECK(figure_text_count(f, "32-way") == 2);  // the headline and the label over the column
      CHECK(figure_has_text(f, "bank conflict"));
      CHECK(figure_has_text(f, "wavefronts (ideal 1)"));
    } else {
      CHECK(way == 1);
      CHECK(figure_text_count(f, "32-way") == 0);
      CHECK(figure_text_count(f, "1-way") == 1);  // the headline only: no column to name
      CHECK(figure_has_text(f, "no bank conflict"));
    }
    CHECK(figure_has_text(f, "shared store"));

    const fs::path png = dir / ("banks-pad" + std::to_string(pad) + ".png");
    std::string err;
    REQUIRE(ui::write_figure_png(f, png.string(), err));
    Png h = png_header(slurp(png));
    CHECK(h.ok);
    CHECK(h.width == 1200);
    CHECK(h.height == 700);
    // Not blank: many colours (lane palette, text, the caption band).
    std::set<uint32_t> colours;
    for (size_t i = 0; i + 2 < f.rgb.size(); i += 3)
      colours.insert(uint32_t(f.rgb[i]) << 16 | uint32_t(f.rgb[i + 1]) << 8 | f.rgb[i + 2]);
    CHECK(colours.size() >= 20);
  }
  fs::remove_all(dir);
}

TEST_CASE("warpscope export on the command line") {
  const fs::path dir = temp_dir();
  const std::string base = "export --kernel transpose_tiled --size 64 --set pad=0 --backend emulator ";
  int code = -1;

  // Banks view from step 0: the first request is a global load, so the next shared one is shown.
  std::string out = run_cli(base + "--view banks --step 0 --caption --width 900 --height 500 --out " +
                                (dir / "b.svg").string(), code);
  CHECK(code == 0);
  CHECK(out.find("not a shared-memory access") != std::string::npos);
  std::string svg = slurp(dir / "b.svg");
  CHECK(xml_error(svg) == "");
  CHECK(svg.find(">32-way</text>") != std::string::npos);
  CHECK(svg.find("emulated on CPU") != std::string::npos);

  out = run_cli(base + "--view banks --width 640 --height 400 --out " + (dir / "b.png").string(), code);
  CHECK(code == 0);
  Png h = png_header(slurp(dir / "b.png"));
  CHECK(h.ok);
  CHECK(h.width == 640);
  CHECK(h.height == 400);

  // Every view draws, as PNG and SVG.
  for (const char* v : {"memory", "warp", "dram", "source"}) {
    CAPTURE(v);
    out = run_cli(base + "--view " + v + " --step 5 --width 800 --height 500 --out " + (dir / (std::string(v) + ".png")).string(), code);
    CHECK(code == 0);
    CHECK(png_header(slurp(dir / (std::string(v) + ".png"))).width == 800);
    out = run_cli(base + "--view " + v + " --step 5 --width 800 --height 500 --out " + (dir / (std::string(v) + ".svg")).string(), code);
    CHECK(code == 0);
    CHECK(xml_error(slurp(dir / (std::string(v) + ".svg"))) == "");
  }

  // A numbered sequence.
  out = run_cli(base + "--view warp --steps 0-3 --width 400 --height 300 --out " + (dir / "seq.png").string(), code);
  CHECK(code == 0);
  for (int i = 1; i <= 4; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "seq-%04d.png", i);
    CHECK(fs::exists(dir / name));
  }
  CHECK(!fs::exists(dir / "seq-0005.png"));

  // Bad input: one line, exit 2.
  for (const char* bad : {"--view nope --out x.png", "--view banks --out x.gif", "--view banks --step 99999999 --out x.png",
                          "--view banks --step -1 --out x.png", "--view banks --steps 3-1 --out x.png",
                          "--view banks --width 5 --out x.png", "--view banks"}) {
    CAPTURE(bad);
    out = run_cli(base + bad, code);
    CHECK(code == 2);
    CHECK(out.rfind("warpscope: error: ", 0) == 0);
    CHECK(count(out, "\n") == 1);
  }
  fs::remove_all(dir);
}
