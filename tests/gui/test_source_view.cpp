// tests/gui/test_source_view.cpp — the source panel on a projector and a small screen: lines
// broken only between tokens, a gutter as wide as its badges need, alike instructions counted
// once in the tooltip, and the current line in view at once after F5, at 1280×720 among
// enough other lines to read it by.
#include <doctest/doctest.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "program/program.h"
#include "ui/figure/headless.h"
#include "ui/figure/theme.h"
#include "ui/ui.h"
#include "ui/controls.h"
#include "ui/figure/scenes.h"
#include "ui_test.h"
#include "../support.h"

using namespace ws;

namespace {

// Where C++ tokens begin and end in `s` (a comment's words taken one by one): the places a
// line may be broken. pp-numbers ("1.5f", "1e-5") and the operators of two or three
// characters are single tokens; so are string and character literals.
std::set<size_t> token_edges(const std::string& s, std::vector<std::pair<size_t, size_t>>& tokens) {
  static const char* const ops[] = {"<<=", ">>=", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--",
                                    "->", "::", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="};
  std::set<size_t> edges;
  size_t i = 0;
  auto add = [&](size_t a, size_t b) {
    edges.insert(a);
    edges.insert(b);
    tokens.push_back({a, b});
  };
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80; };
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (s.compare(i, 2, "//") == 0) {  // a comment: its words
      size_t j = i;
      while (j < s.size()) {
        size_t e = s.find(' ', j);
        if (e == std::string::npos) e = s.size();
        if (e > j) add(j, e);
        j = e + 1;
      }
      i = s.size();
    } else if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != c) j += s[j] == '\\' ? 2 : 1;
      add(i, std::min(j + 1, s.size()));
      i = std::min(j + 1, s.size());
    } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t j = i + 1;
      while (j < s.size() && (word(s[j]) || s[j] == '.' || ((s[j] == '+' || s[j] == '-') && std::strchr("eEpP", s[j - 1])))) ++j;
      add(i, j);
      i = j;
    } else if (word(c)) {
      size_t j = i + 1;
      while (j < s.size() && word(s[j])) ++j;
      add(i, j);
      i = j;
    } else {
      size_t len = 1;
      for (const char* op : ops)
        if (s.compare(i, std::strlen(op), op) == 0) {
          len = std::strlen(op);
          break;
        }
      add(i, i + len);
      i += len;
    }
  }
  return edges;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("the source panel breaks a line only between tokens, never inside an identifier, a number or an operator") {
  ui::HeadlessContext ctx(1280, 720);  // (fonts for the gutter's widths)
  session::SourceText f;
  for (const char* ex : {"examples/transpose.cu", "examples/reduction.cu", "examples/histogram.cu", "examples/strided_loop.cu"})
    for (const auto& l : lines_of(ex)) f.lines.push_back(l);
  f.lines.push_back("  if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y];");
  f.lines.push_back("  acc += 0.005728f * a->b[i] + 1e-5f; x <<= 2; printf(\"%d of %d\\n\", i, n); c = 'x';");
  f.lines.push_back("    histogram<<<blocks, threads, threads * sizeof(unsigned int)>>>(d_data, n, d_bins);");
  int breaks = 0;
  for (int wrap = 14; wrap <= 70; ++wrap) {
    CAPTURE(wrap);
    const auto rows = ui::source_rows(f, [](uint32_t) { return false; }, wrap);
    for (size_t r = 0; r + 1 < rows.size(); ++r) {
      if (rows[r + 1].line != rows[r].line) continue;
      const std::string& text = f.lines[rows[r].line - 1];
      CAPTURE(text);
      const size_t at = rows[r].to;  // this row ends here; the next starts past any spaces
      std::vector<std::pair<size_t, size_t>> tokens;
      const std::set<size_t> edges = token_edges(text, tokens);
      bool ok = edges.count(at) || text[at - 1] == ' ' || text[at] == ' ';
      // A token longer than the row may only be cut.
      for (const auto& [a, b] : tokens)
        if (a < at && at < b && b - a > size_t(wrap - int(rows[r].col))) ok = true;
      if (!ok) FAIL_CHECK("broken inside a token: '" << text.substr(rows[r].from, at - rows[r].from) << "' / '"
                                                     << text.substr(at, 16) << "'");
      ++breaks;
      // Every piece fits its row.
      CHECK(int(rows[r].to - rows[r].from + rows[r].col) <= std::max(wrap, int(rows[r].col) + 8));
    }
  }
  CHECK(breaks > 200);
  // The line of the issue: the tile's index is never split, at the projector's widths.
  for (int wrap = 20; wrap <= 50; ++wrap) {
    const std::string line = "  if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y];";
    for (size_t from = 2; from < line.size();) {
      const size_t end = ui::source_wrap_end(line, from, size_t(wrap));
      if (end < line.size())  // never "tile[threadIdx.x][t" / "hreadIdx.y]"
        CHECK_FALSE((std::isalnum(static_cast<unsigned char>(line[end - 1])) && std::isalnum(static_cast<unsigned char>(line[end]))));
      from = end;
      while (from < line.size() && line[from] == ' ') ++from;
    }
  }
  // An index stays whole where a break outside it will do: never "in[i" / "* a.m + j]"
  // (a break inside brackets only when the row holds nothing but them).
  for (int wrap = 16; wrap <= 40; ++wrap) {
    CAPTURE(wrap);
    const std::string line = "    c[i * b.n + j] = a[i * a.m + k] * b[k * b.n + j] + c[i * b.n + j];";
    for (size_t from = 4; from < line.size();) {
      const size_t end = ui::source_wrap_end(line, from, size_t(wrap));
      int depth = 0;
      for (size_t k = from; k < end; ++k) depth += line[k] == '[' ? 1 : line[k] == ']' ? -1 : 0;
      if (end < line.size()) CHECK(depth == 0);
      from = end;
      while (from < line.size() && line[from] == ' ') ++from;
    }
  }
  // Where only breaks inside an index are left, the shallowest: a call's arguments stay
  // together ("[swizzle_chunk<LAYOUT>" / "(r, c) * 8]);", not "(r," / "c) * 8]);").
  {
    const std::string line = "[swizzle_chunk<LAYOUT>(r, c) * 8]);";
    const size_t end = ui::source_wrap_end(line, 0, 26);
    CHECK(line.substr(0, end) == "[swizzle_chunk<LAYOUT>");
  }
  // Never just before a closing bracket, and a long inline-PTX string cut after a dot or
  // between "::" and the next word, not inside one.
  for (int wrap = 12; wrap <= 40; ++wrap) {
    CAPTURE(wrap);
    const std::string line = "    mbar_wait(&full[s], phase); use(ring[s]));";
    for (size_t from = 4; from < line.size();) {
      const size_t end = ui::source_wrap_end(line, from, size_t(wrap));
      if (end < line.size()) CHECK(std::strchr("])}", line[end]) == nullptr);
      from = end;
      while (from < line.size() && line[from] == ' ') ++from;
    }
  }
  {
    const std::string line = "\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster\"";
    for (int wrap = 20; wrap <= 60; ++wrap)
      for (size_t from = 0; from < line.size();) {
        CAPTURE(wrap);
        const size_t end = ui::source_wrap_end(line, from, size_t(wrap));
        auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
        const bool inside_word = end < line.size() && word(line[end - 1]) && word(line[end]);
        CHECK_FALSE(inside_word);
        from = end;
      }
  }
  // Numbers and their units stay whole in what the GPU ran.
  const std::string prose = "H100 ran 0.005728 ms = 107.7% of the time (PTX: 4096 ld.shared.f32)";
  for (int room = 6; room < 40; ++room)
    for (size_t from = 0; from < prose.size();) {
      const size_t end = ui::source_wrap_end(prose, from, size_t(room));
      const std::string piece = prose.substr(from, end - from);
      CHECK(piece.find("0.") == piece.rfind("0.00"));  // "0." never alone at a row's end
      if (end < prose.size()) CHECK_FALSE((std::isdigit(static_cast<unsigned char>(prose[end - 1])) && (prose[end] == '.' || prose[end] == '%')));
      from = end;
      while (from < prose.size() && prose[from] == ' ') ++from;
    }
}

TEST_CASE("the gutter: badges named without their kernel's qualifier, then costs alone, then the worst and +N") {
  ui::HeadlessContext ctx(1280, 720);
  session::LineStat ls;
  ls.parts = {{"transposeTiled::tile 32-way", 32, 3}, {"d_out 4", 1, 4}, {"d_out 4", 1, 5}};
  std::string more;
  auto b = ui::gutter_badges(ls, 1000, -1, -1, more);
  REQUIRE(b.size() == 2);  // the two d_out parts are one badge
  CHECK(b[0].label == "tile 32-way");
  CHECK(b[1].label == "d_out 4");
  CHECK(b[1].sites == std::vector<uint32_t>{4, 5});
  CHECK(more.empty());
  const float ch = ui::text_size(ui::FontRole::Mono, "0").x;
  b = ui::gutter_badges(ls, ch * 12, -1, -1, more);
  REQUIRE(b.size() == 2);
  CHECK(b[0].label == "32-way");
  CHECK(b[1].label == "4");
  b = ui::gutter_badges(ls, ch * 7, -1, 5, more);  // the current site's badge kept
  REQUIRE(b.size() == 1);
  CHECK(b[0].label == "4");
  CHECK(more == "+1");
  b = ui::gutter_badges(ls, ch * 7, -1, -1, more);  // else the worst
  REQUIRE(b.size() == 1);
  CHECK(b[0].label == "32-way");
  CHECK(more.empty());  // "32-way" and "+1" would not fit the room: the badge alone (a projector's gutter)
  b = ui::gutter_badges(ls, ch * 12, -1, 3, more);
  CHECK(b.size() == 2);
  // The gutter is as wide as the widest line needs, not a fixed share of the panel.
  session::SourceText f;
  f.lines = {"a", "b"};
  f.stats[1] = ls;
  const float w = ui::source_gutter_width(f, 1000);
  CHECK(w >= ui::text_size(ui::FontRole::Mono, "tile 32-way").x + ui::text_size(ui::FontRole::Mono, "d_out 4").x);
  CHECK(w <= ui::text_size(ui::FontRole::Mono, "tile 32-way").x + ui::text_size(ui::FontRole::Mono, "d_out 4").x + ch * 4);
  CHECK(ui::source_gutter_width(f, 400) <= 100);  // a quarter of the panel: costs alone
}

TEST_CASE("a program open at 1280x720: ten lines of source in view, the current line among them, and in view at once after F5") {
  if (!ws::test::have_nvcc("skipped")) return;
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  session::LaunchSpec spec;
  spec.program.source = "examples/transpose.cu";
  spec.program.echo = false;
  u.open_program(spec);
  test::settle(ctx, u);
  REQUIRE(u.pane.model);
  u.show_launch(1);  // transposeTiled<0>
  test::settle(ctx, u);
  // A request of line 27 (the tile's 32-way column read), the file's last kernel line.
  const auto& t = u.pane.model->trace();
  uint64_t step = 0;
  while (step < u.pane.model->size() && t.sites[t.records[step].site].line != 27) ++step;
  REQUIRE(step < u.pane.model->size());
  u.set_step(step);
  test::settle(ctx, u);
  // The source panel's texts in one frame: its line numbers, and the code drawn.
  auto source_texts = [&](std::set<int>& numbers) {
    ctx.frame(u);
    std::vector<ui::SceneChunk> chunks = test::frame_scenes(ctx, u);
    ImVec2 a, b;
    for (const auto& p : u.drawn())
      if (p.panel == ui::Panel::Source) a = p.min, b = p.max;
    std::string code;
    for (const auto& c : chunks) {
      if (c.clip_min.x < a.x - 1 || c.clip_min.y < a.y - 1 || c.clip_max.x > b.x + 1 || c.clip_max.y > b.y + 1) continue;
      for (const auto& i : c.scene.items) {
        if (i.kind != ui::Scene::Kind::Text || i.font != ui::FontRole::Mono) continue;
        const size_t d = i.text.find_first_not_of(' ');
        if (d != std::string::npos && std::isdigit(static_cast<unsigned char>(i.text[d])) &&
            i.text.find_first_not_of("0123456789", d) == std::string::npos)
          numbers.insert(std::stoi(i.text));
        else
          code += i.text + "\n";
      }
    }
    return code;
  };
  std::set<int> numbers;
  std::string code = source_texts(numbers);
  CHECK(numbers.count(27));
  CHECK(numbers.size() >= 8);
  CHECK(code.find("tile[threadIdx.x][threadIdx.y]") != std::string::npos);  // line 27 whole: wrapped at most
  // F5: the projector's type; the line is still on screen, with no request change.
  u.toggle_presentation();
  numbers.clear();
  code = source_texts(numbers);
  CHECK(u.state.present);
  CHECK(numbers.count(27));
  CHECK(code.find("tile[threadIdx.x]") != std::string::npos);
  CHECK(code.find("hreadIdx") == code.find("threadIdx") + 1);  // never "t" / "hreadIdx"
}

TEST_CASE("the gutter's tooltip counts alike instructions once: an unrolled line's loads") {
  if (!ws::test::have_nvcc("skipped")) return;
  ui::HeadlessContext ctx(1280, 720);
  ui::Ui u(test::quiet_env());
  session::LaunchSpec spec;
  spec.program.source = "tests/programs/matmul_tiled.cu";
  spec.program.echo = false;
  u.open_program(spec);
  test::settle(ctx, u);
  REQUIRE(u.pane.model);
  const session::SourceText& f = u.pane.model->sources().at(0);
  REQUIRE(f.stats.count(21));  // sum += As[ty][k] * Bs[k][tx], unrolled: a PTX load a site
  const session::LineStat& ls = f.stats.at(21);
  REQUIRE(ls.sites.size() >= 16);
  const auto entries = ui::source_tip_entries(*u.pane.model, ls);
  int total = 0;
  for (const auto& e : entries) {
    total += e.count;
    CHECK(e.instruction.find("ld.shared.f32") != std::string::npos);
  }
  CHECK(total == int(ls.sites.size()));
  CHECK(entries.size() <= 4);  // As's broadcast and Bs's row, not one entry per load
  for (size_t i = 0; i < entries.size(); ++i)
    for (size_t j = i + 1; j < entries.size(); ++j)
      CHECK_FALSE((entries[i].instruction == entries[j].instruction && entries[i].cost == entries[j].cost &&
                   entries[i].why == entries[j].why));
  bool many = false;
  for (const auto& e : entries) many |= e.count >= 8;
  CHECK(many);
}
