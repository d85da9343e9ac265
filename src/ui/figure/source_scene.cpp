// src/ui/figure/source_scene.cpp — Source panel: the program's files exactly as they were compiled, the current access's
// line lit and kept in view (F5's large type included), each line that accesses memory tagged
// in the gutter with its cost (sectors per request for global, n-way for shared) over the
// whole trace, and opened under it the memory instructions the line became (the PTX a
// program's compiler wrote) with theirs. Lines wrap to the panel between tokens.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "session/report.h"
#include "ui/figure/theme.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

namespace {


// An instruction row's text: what it is, and (unless hidden) what it costs.
struct SiteRowText {
  std::string what, cost;
  double ratio = 1;
};
SiteRowText site_row_text(const Session& m, uint32_t si) {
  const auto& tr = m.trace();
  SiteRowText r;
  if (si >= tr.sites.size() || si >= m.report().sites.size()) return r;
  const auto& site = tr.sites[si];
  const auto& st = m.report().sites[si];
  char b[160];
  if (!site.instruction.empty()) {
    r.what = site.instruction;
  } else {
    std::snprintf(b, sizeof b, "%s %s, %u B a lane", trace::to_string(site.space), trace::to_string(site.op), site.bytes);
    r.what = b;
  }
  const char* buf = site.buffer < tr.buffers.size() ? tr.buffers[site.buffer].name.c_str() : "several arrays";
  r.what += std::string("  ") + buf;
  if (!st.requests) {
    r.cost = "not executed in this launch";
  } else if (!analysis::cost_modelled(site.space)) {
    r.cost = "another CTA's shared memory: no cost model · " + fmt_count(st.requests) + " requests";
  } else if (site.space != trace::Space::Shared) {
    std::snprintf(b, sizeof b, "%.2f sectors/request (ideal %.2f) · %s requests", st.sectors_per_request,
                  st.ideal_sectors_per_request, fmt_count(st.requests).c_str());
    r.cost = b;
    r.ratio = analysis::cost_ratio(st.sectors, st.ideal_sectors);
  } else {
    std::snprintf(b, sizeof b, "%u-way · %.2f wavefronts/request · %s requests", st.max_way,
                  double(st.wavefronts) / double(st.requests), fmt_count(st.requests).c_str());
    r.cost = b;
    r.ratio = analysis::cost_ratio(st.wavefronts, st.ideal_wavefronts);
  }
  return r;
}

size_t indent_of(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  return a == std::string::npos ? 0 : a;
}

// Characters a string takes on screen (UTF-8: "·" and "└" are one each).
size_t chars_of(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// "transposeTiled::tile 32-way" -> "tile 32-way": the qualifier says nothing the line does not.
std::string unqualified(const std::string& s) {
  const size_t sp = s.find(' ');
  const size_t q = s.rfind("::", sp);
  return q == std::string::npos ? s : s.substr(q + 2);
}

// The cost of a badge alone: "tile 32-way" -> "32-way"; another CTA's array has no cost,
// its badge ("→ rank 1") is kept whole.
std::string cost_only(const std::string& s) {
  if (s.rfind("→", 0) == 0) return s;
  return s.rfind(' ') == std::string::npos ? s : s.substr(s.rfind(' ') + 1);
}

float badges_width(const std::vector<GutterBadge>& b, const std::string& more) {
  const float ch = text_size(FontRole::Mono, "0").x;
  float w = ch;  // the margin before the line numbers
  for (const auto& x : b) w += text_size(FontRole::Mono, x.label).x + ch * 1.2f;
  if (!more.empty()) w += text_size(FontRole::Mono, more).x + ch * 1.2f;
  return w;
}

}  // namespace

std::vector<SourceTipEntry> source_tip_entries(const Session& m, const LineStat& ls) {
  const auto& tr = m.trace();
  std::vector<SourceTipEntry> out;
  std::vector<std::vector<uint32_t>> cols;  // each entry's columns, in order
  for (uint32_t si : ls.sites) {
    if (si >= tr.sites.size() || si >= m.report().sites.size()) continue;
    const auto& site = tr.sites[si];
    const auto& st = m.report().sites[si];
    const char* buf = site.buffer < tr.buffers.size() ? tr.buffers[site.buffer].name.c_str() : "?";
    char b[256];
    if (!analysis::cost_modelled(site.space))
      std::snprintf(b, sizeof b, "%s %s of %s: no cost model (between SMs)", trace::to_string(site.space),
                    trace::to_string(site.op), buf);
    else if (site.space != trace::Space::Shared)
      std::snprintf(b, sizeof b, "%s %s of %s: %.2f sectors/request (ideal %.2f), efficiency %.0f%%", trace::to_string(site.space),
                    trace::to_string(site.op), buf, st.sectors_per_request, st.ideal_sectors_per_request, st.efficiency * 100);
    else
      std::snprintf(b, sizeof b, "%s %s of %s: up to %u-way, %s bank conflicts", trace::to_string(site.space),
                    trace::to_string(site.op), buf, st.max_way, fmt_count(st.bank_conflicts).c_str());
    SourceTipEntry e{site.instruction, b, st.why, 1};
    size_t k = 0;
    while (k < out.size() && !(out[k].instruction == e.instruction && out[k].cost == e.cost && out[k].why == e.why)) ++k;
    if (k == out.size()) {
      out.push_back(e);
      cols.push_back({});
    } else {
      ++out[k].count;
    }
    if (!site.instruction.empty() && std::find(cols[k].begin(), cols[k].end(), site.column) == cols[k].end())
      cols[k].push_back(site.column);
  }
  // The instruction where the trace knows it (a program's PTX), and its columns.
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k].instruction.empty()) continue;
    std::string c = cols[k].size() > 1 ? "cols " : "col ";
    for (size_t j = 0; j < cols[k].size() && j < 4; ++j) c += (j ? ", " : "") + std::to_string(cols[k][j]);
    if (cols[k].size() > 4) c += ", \u2026";
    out[k].instruction = c + "  " + out[k].instruction;
  }
  return out;
}

std::vector<GutterBadge> gutter_badges(const LineStat& ls, float room, int only_site, int current_site, std::string& more) {
  more.clear();
  std::vector<GutterBadge> all;
  for (const auto& part : ls.parts) {
    if (only_site >= 0 && part.site != uint32_t(only_site)) continue;
    const std::string label = unqualified(part.text);
    auto it = std::find_if(all.begin(), all.end(), [&](const GutterBadge& b) { return b.label == label; });
    if (it == all.end()) {
      all.push_back({label, part.ratio, {part.site}});
    } else {
      it->ratio = std::max(it->ratio, part.ratio);
      it->sites.push_back(part.site);
    }
  }
  if (all.empty() || badges_width(all, "") <= room + 0.5f) return all;
  std::vector<GutterBadge> costs = all;
  for (auto& b : costs) b.label = cost_only(b.label);
  if (costs.size() == 1 || badges_width(costs, "") <= room + 0.5f) return costs;
  // The current one, else the worst, and how many others.
  size_t keep = 0;
  for (size_t k = 0; k < costs.size(); ++k) {
    const auto& s = costs[k].sites;
    const bool cur = current_site >= 0 && std::find(s.begin(), s.end(), uint32_t(current_site)) != s.end();
    const auto& ks = costs[keep].sites;
    const bool keep_cur = current_site >= 0 && std::find(ks.begin(), ks.end(), uint32_t(current_site)) != ks.end();
    if (cur || (!keep_cur && costs[k].ratio > costs[keep].ratio)) keep = k;
  }
  // "+N" where it fits beside the one badge (the line's tooltip lists them all); a projector's
  // large type may leave room for the badge alone.
  more = "+" + std::to_string(costs.size() - 1);
  if (badges_width({costs[keep]}, more) > room + 0.5f) more.clear();
  return {costs[keep]};
}

float source_row_height() { return std::round(font_for(FontRole::Mono)->FontSize + 4); }

float source_gutter_width(const SourceText& f, float avail_w, bool narrow) {
  const float ch = text_size(FontRole::Mono, "0").x;
  const float cap = std::max(ch * 8, avail_w * (narrow ? 0.2f : 0.25f));
  float w = ch * 3;  // room for the current line's bar
  for (const auto& [l, ls] : f.stats) {
    std::string more;
    const auto b = gutter_badges(ls, cap, -1, -1, more);
    w = std::max(w, badges_width(b, more));
    // Short of room a line shows the current request's part instead of its worst: as wide.
    for (uint32_t site : ls.sites) {
      const auto c = gutter_badges(ls, cap, -1, int(site), more);
      w = std::max(w, badges_width(c, more));
    }
  }
  return std::min(std::ceil(w), cap);
}

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80; }
bool op_char(char c) { return std::strchr("<>=!&|+-*/%^:", c) != nullptr && c != '\0'; }

// How good a place k is to end a row: 0 inside a token; 1 between tokens; 2 beside an
// operator; 3 before an opening or after a closing bracket; 4 after a space, comma or
// semicolon.
int break_rank(const std::string& s, size_t k) {
  const char a = s[k - 1], b = s[k];
  if (a == ' ' || a == ',' || a == ';') return 4;
  if (b == ' ') return 1;
  if (word_char(a) && word_char(b)) return 0;
  // A number's point, and a number's unit: "0.25", "1.5f", "86%".
  const bool digit_a = std::isdigit(static_cast<unsigned char>(a)), digit_b = std::isdigit(static_cast<unsigned char>(b));
  if ((a == '.' && (digit_b || (k >= 2 && std::isdigit(static_cast<unsigned char>(s[k - 2]))))) || (b == '.' && digit_a) ||
      (b == '%' && digit_a))
    return 0;
  if ((b == '+' || b == '-') && (a == 'e' || a == 'E') && k >= 2 && std::isdigit(static_cast<unsigned char>(s[k - 2])))
    return 0;  // 1e-5
  if (op_char(a) && op_char(b)) {
    static const char* const pairs[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--",
                                        "->", "::", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "//"};
    for (const char* p : pairs)
      if (a == p[0] && b == p[1]) return 0;
  }
  // Never just before a closing bracket ("ring[s" / "]))"); between two indexes of one
  // array ("tile[x]" / "[y]") only as a last resort.
  if (b == ']' || b == ')' || b == '}') return 0;
  if (a == ']' && b == '[') return 1;
  if (b == '[' || b == '(' || b == '{' || a == ']' || a == ')' || a == '}') return 3;
  if (op_char(a) || op_char(b)) return 2;
  return 1;
}

}  // namespace

size_t source_wrap_end(const std::string& text, size_t from, size_t room) {
  size_t hard = from + std::max<size_t>(room, 1);
  if (hard >= text.size()) return text.size();
  // A string or character literal is one token: no break inside it (a comment's words are
  // broken between, as prose).
  std::vector<bool> literal(hard + 1, false);
  size_t comment = text.size();  // where a "//" comment starts: prose, broken at spaces
  for (size_t i = 0; i <= hard;) {
    if (text.compare(i, 2, "//") == 0) {
      comment = i;
      break;
    }
    if (text[i] != '"' && text[i] != '\'') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && text[j] != text[i]) j += text[j] == '\\' ? 2 : 1;
    for (size_t k = i + 1; k <= std::min(j, hard); ++k) literal[k] = true;  // between its quotes
    i = j + 1;
  }
  // Inside an index (`in[i * a.m + j]`) a break is the last resort: the brackets' depth;
  // and among last resorts the one the fewest brackets and parentheses enclose.
  std::vector<uint8_t> index(hard + 1, 0), nest(hard + 1, 0);
  for (size_t i = from, d = 0, all = 0; i <= hard && i < comment; ++i) {
    index[i] = d > 0;  // a break before character i: inside when a bracket is open there
    nest[i] = uint8_t(std::min<size_t>(all, 255));
    if (literal[i]) continue;
    d = text[i] == '[' ? d + 1 : text[i] == ']' && d ? d - 1 : d;
    all = text[i] == '[' || text[i] == '(' ? all + 1 : (text[i] == ']' || text[i] == ')') && all ? all - 1 : all;
  }
  auto rank = [&](size_t k) {
    const int r = k > comment + 1 ? (text[k - 1] == ' ' ? 4 : text[k] == ' ' ? 1 : 0) : break_rank(text, k);
    return r == 0 ? 0 : index[k] ? 1 : 2 * r;
  };
  // The best kind of place in the row's later part; a row only a third full rather than a
  // token cut; any boundary rather than a cut, outside an index rather than in one.
  struct Pass {
    int rank;
    size_t after;
  };
  const Pass passes[] = {{8, from + room / 2}, {6, from + room / 3}, {4, from + room / 3}, {2, from}};
  for (const Pass& p : passes)
    for (size_t k = hard; k > p.after && k > from; --k)
      if (!literal[k] && rank(k) >= p.rank) return k;
  // Only breaks inside an index are left: the shallowest in the row's later two thirds
  // ("[swizzle_chunk<LAYOUT>" / "(r, c) * 8]", not "(r," / "c) * 8]"), else any.
  size_t best = 0;
  for (size_t k = hard; k > from + room / 3 && k > from; --k)
    if (!literal[k] && rank(k) >= 1 && (!best || nest[k] < nest[best])) best = k;
  if (best) return best;
  for (size_t k = hard; k > from; --k)
    if (!literal[k] && rank(k) >= 1) return k;
  // A string longer than the row (an inline-PTX instruction): cut after one of its dots,
  // colons, commas or spaces ("multicast::" / "cluster", not "multi" / "cast").
  for (size_t k = hard; k > from + room / 3 && k > from; --k)
    if (literal[k] && std::strchr(".:, ", text[k - 1]) && text[k] != ':') return k;
  while (hard > from + 1 && (static_cast<unsigned char>(text[hard]) & 0xC0) == 0x80) --hard;  // whole UTF-8 characters
  return hard;
}

std::vector<SourceRow> source_rows(const SourceText& f, const std::function<bool(uint32_t)>& open, int wrap,
                                   const Session* m) {
  std::vector<SourceRow> rows;
  rows.reserve(f.lines.size());
  for (uint32_t line = 1; line <= f.lines.size(); ++line) {
    const std::string& text = f.lines[line - 1];
    if (wrap > 0) {
      // Indentation half as deep; the first piece at it, the rest indented past it.
      const size_t indent = indent_of(text), col = indent / 2;
      size_t at = indent;
      bool first = true;
      do {
        const size_t c = first ? col : col + kSourceWrapIndent;
        const size_t end = source_wrap_end(text, at, size_t(std::max(8, wrap - int(c))));
        rows.push_back({line, -1, uint32_t(at), uint32_t(end), uint32_t(c), !first});
        at = end;
        first = false;
        while (at < text.size() && text[at] == ' ') ++at;  // no piece starts with spaces
      } while (at < text.size());
    } else {
      rows.push_back({line, -1});
    }
    const auto it = f.stats.find(line);
    if (it == f.stats.end() || !open(line)) continue;
    const uint32_t col = uint32_t(wrap > 0 ? indent_of(text) / 2 : indent_of(text));
    // First what a GPU executed for the line (where the program's SASS trace is known: a
    // line of 32 PTX loads reads "H100 ran 16 LDS + 4 LDS.128"), then each PTX instruction.
    // Wrapped too, where lines are: "└ " and a piece a row.
    for (size_t k = 0; k < it->second.hardware.size(); ++k) {
      const std::string h = session::hardware_text(it->second.hardware[k]);
      size_t at = 0;
      do {
        const size_t end = wrap > 0 ? source_wrap_end(h, at, size_t(std::max(8, wrap - int(col) - (at ? 4 : 2)))) : h.size();
        SourceRow r{line, -1, uint32_t(at), uint32_t(end), col, at > 0};
        r.hardware = int(k);
        rows.push_back(r);
        at = end;
        while (at < h.size() && h[at] == ' ') ++at;
      } while (at < h.size());
    }
    for (uint32_t si : it->second.sites) {
      rows.push_back({line, int(si), 0, UINT32_MAX, col});
      if (wrap > 0 && m) {  // "└ what  cost" too long for a row: the cost on the next
        const SiteRowText r = site_row_text(*m, si);
        if (int(col + 2 + chars_of(r.what) + 2 + chars_of(r.cost)) > wrap) rows.push_back({line, int(si), 0, UINT32_MAX, col, true});
      }
    }
  }
  return rows;
}

// The row of the line where the program was stopped (a fault, an assert): red, with a bar.
static void mark_stopped(Scene& sc, float y, float width, float row_h) {
  sc.fill(ImVec2(0, y), ImVec2(width, y + row_h), with_alpha(theme().bad, 56));
  sc.fill(ImVec2(4, y), ImVec2(8, y + row_h), theme().bad);
}

namespace {

// The gutter of a line's first row: its badges right-aligned, each in the colour of its own
// cost, the current one framed; the line number; the marker of a line that opens.
void gutter_scene(Scene& sc, const LineStat* ls, uint32_t line, bool current, bool opens, bool open, const RequestFigures& rv,
                  float y, float gutter_w, int only_site) {
  const Theme& t = theme();
  const float ch = text_size(FontRole::Mono, "0").x;
  const float row_h = source_row_height();
  if (ls && only_site != -2) {
    std::string more;
    const int cur_site = rv.rec ? int(rv.rec->site) : -1;
    const std::vector<GutterBadge> shown = gutter_badges(*ls, gutter_w, only_site, cur_site, more);
    float bx = gutter_w - ch;
    if (!more.empty()) {
      bx -= text_size(FontRole::Mono, more).x;
      sc.text(ImVec2(bx, y + 2), more, t.text_dim, FontRole::Mono);
      bx -= ch * 1.2f;
    }
    for (size_t j = shown.size(); j-- > 0;) {
      const GutterBadge& b = shown[j];
      const ImU32 c = cost_color(b.ratio);
      const float w = text_size(FontRole::Mono, b.label).x;
      bx -= w;
      sc.fill(ImVec2(bx - 3, y + 1), ImVec2(bx + w + 3, y + row_h - 1), with_alpha(c, 40), 3);
      if (std::find(b.sites.begin(), b.sites.end(), uint32_t(cur_site)) != b.sites.end())
        sc.rect(ImVec2(bx - 3, y + 1), ImVec2(bx + w + 3, y + row_h - 1), c, 1.5f, 3);
      sc.text(ImVec2(bx, y + 2), b.label, c, FontRole::Mono);
      bx -= ch * 1.2f;
    }
  }
  char num[16];
  std::snprintf(num, sizeof num, "%4u", line);
  sc.text(ImVec2(gutter_w, y + 2), num, current ? t.text : t.text_dim, FontRole::Mono);
  if (opens) sc.text(ImVec2(gutter_w + ch * 4.1f, y + 2), open ? "\u25be" : "\u25b8", t.text_dim, FontRole::Mono);
}

}  // namespace

void source_scene(Scene& sc, const Session& m, const SourceText& f, const std::vector<SourceRow>& rows,
                  const RequestFigures& rv, int first, int count, float width, float gutter_w, int only_site) {
  const Theme& t = theme();
  const float ch = text_size(FontRole::Mono, "0").x;
  const float row_h = source_row_height();
  const uint32_t current = rv.site && rv.site->file == f.file ? rv.site->line : 0;
  const uint32_t stopped = session::problem_line(m, f.file);  // where the program faulted
  const int n = int(rows.size());
  sc.size = ImVec2(width, row_h * float(count));
  for (int i = std::max(0, first); i < std::min(n, first + count); ++i) {
    const SourceRow& row = rows[size_t(i)];
    const uint32_t line = row.line;
    const float y = float(i - first) * row_h;
    const auto it = f.stats.find(line);
    const LineStat* ls = it == f.stats.end() ? nullptr : &it->second;
    const std::string& text = line <= f.lines.size() ? f.lines[line - 1] : std::string();
    const float tx = gutter_w + ch * 5;
    const size_t cpos = text.find("//");
    // The row's piece of its line, the comment dimmed.
    auto code = [&](float x, size_t from, size_t to) {
      to = std::min(to, text.size());
      if (from >= to) return;
      const size_t mid = std::clamp(cpos, from, to);
      if (mid > from) sc.text(ImVec2(x, y + 2), text.substr(from, mid - from), t.text, FontRole::Mono);
      if (to > mid)
        sc.text(ImVec2(x + ch * float(mid - from), y + 2), text.substr(mid, to - mid), IM_COL32(122, 160, 130, 255),
                FontRole::Mono);
    };
    if (row.hardware >= 0) {  // what the GPU ran for the line, under its instructions
      if (!ls || size_t(row.hardware) >= ls->hardware.size() || only_site == -2) continue;
      sc.fill(ImVec2(gutter_w, y), ImVec2(width, y + row_h), with_alpha(t.accent, 16));
      const std::string h = session::hardware_text(ls->hardware[size_t(row.hardware)]);
      const std::string piece = h.substr(std::min<size_t>(row.from, h.size()), row.to - std::min<size_t>(row.from, h.size()));
      sc.text(ImVec2(tx + ch * float(row.col + (row.more ? 4 : 2)), y + 2), (row.more ? "" : "\u2514 ") + piece, t.accent,
              FontRole::Mono);
      continue;
    }
    if (row.site < 0 && line == stopped) mark_stopped(sc, y, width, row_h);
    if (row.site < 0 && row.more) {  // a wrapped line's continuation
      if (line == current) {
        sc.fill(ImVec2(0, y), ImVec2(width, y + row_h), IM_COL32(88, 166, 255, 60));
        sc.fill(ImVec2(0, y), ImVec2(4, y + row_h), t.accent);
      }
      code(tx + ch * float(row.col), row.from, row.to);
      continue;
    }
    if (row.site >= 0) {  // one of the line's instructions, under it (its cost on a second row where long)
      const bool cur = rv.rec && rv.rec->site == uint32_t(row.site);
      const bool hide = only_site == -2 || (only_site >= 0 && row.site != only_site);
      const SiteRowText r = site_row_text(m, uint32_t(row.site));
      const ImU32 c = hide ? t.text_dim : cost_color(r.ratio);
      sc.fill(ImVec2(gutter_w, y), ImVec2(width, y + row_h), cur ? IM_COL32(88, 166, 255, 40) : with_alpha(t.text_dim, 14));
      const float x = tx + ch * float(row.col + 2);
      const bool split = i + 1 < n && rows[size_t(i + 1)].site == row.site && rows[size_t(i + 1)].more;
      if (row.more) {
        if (!hide) sc.text(ImVec2(x + ch * 2, y + 2), r.cost, c, FontRole::Mono);
        continue;
      }
      const std::string what = "\u2514 " + r.what;
      sc.text(ImVec2(x, y + 2), what, cur ? t.text : t.text_dim, FontRole::Mono);
      if (!hide && !split) sc.text(ImVec2(x + text_size(FontRole::Mono, what).x + ch * 2, y + 2), r.cost, c, FontRole::Mono);
      continue;
    }
    if (line == current) {
      sc.fill(ImVec2(0, y), ImVec2(width, y + row_h), IM_COL32(88, 166, 255, 60));
      sc.fill(ImVec2(0, y), ImVec2(4, y + row_h), t.accent);
    } else if (ls && only_site == -1) {
      sc.fill(ImVec2(gutter_w, y), ImVec2(width, y + row_h), with_alpha(cost_color(ls->ratio), 18));
    }
    const bool opens = ls && (!ls->sites.empty() || !ls->hardware.empty());  // the line opens to its instructions
    int j = i + 1;
    while (j < n && rows[size_t(j)].line == line && rows[size_t(j)].more) ++j;
    const bool open = j < n && rows[size_t(j)].line == line && (rows[size_t(j)].site >= 0 || rows[size_t(j)].hardware >= 0);
    gutter_scene(sc, ls, line, line == current, opens, open, rv, y, gutter_w, only_site);
    code(tx + ch * float(row.col), row.from, row.to);
  }
}

}  // namespace ws::ui
