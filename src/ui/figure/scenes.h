// src/ui/figure/scenes.h — the diagrams of the memory view, the warp inspector, the
// fragment, pipeline and cluster views, the DRAM view and the source panel as scene
// builders over a Session and a small per-view state. The app's panels (ui/views) and
// `warpscope export` call the same builders, so a figure is the scene the app draws. Every figure comes from
// the Session (session/session.h); nothing here recomputes an analysis rule.
#pragma once
#include <imgui.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "session/dram.h"
#include "session/heat.h"
#include "analysis/fragments.h"
#include "session/session.h"
#include "ui/figure/grid_view.h"
#include "ui/figure/scene.h"
#include "ui/figure/theme.h"

namespace ws::ui {

using session::GridShape;
using session::HeatMap;
using session::LineStat;
using session::RequestFigures;
using session::Session;
using session::SourceText;

// ---- shared pieces ---------------------------------------------------------------------

// One headline figure: a big value over a short caption.
struct Card {
  std::string value, caption;
  ImU32 color;
};
// `cards` side by side from height `y`, wrapping to new rows within `width`; returns the
// height they take. With `sc` null, only measures.
float cards_scene(Scene* sc, const std::vector<Card>& cards, float y, float width);

// ---- memory view ----------------------------------------------------------------------

// What the memory view shows besides the Session: the user's toggles (UiState), and the
// Pane's zoom, pan and heat.
struct MemoryViewState {
  bool heat = true, heat_log = true;
  bool sectors = true, lines = true, labels = true, banks = true;
  bool follow = true;                                    // zoom and pan to the current request
  bool conflicts = true;                                 // rim the words of an n-way bank conflict
  bool source_columns = false;                           // tint shared cells by their copy's source column
  bool request_lanes = true;                             // the request's lanes drawn on their cells (off:
                                                         // a question about a copy's bytes waits)
  bool shared_shown = false;                             // a shared grid (or tile) is drawn: the key names
                                                         // its even / odd bank shading
  int64_t bank_key_buffer = -1;                          // no key row under the grids: the buffer whose
                                                         // title names that shading instead (-1: none)
  const std::map<std::string, bool>* hidden = nullptr;  // by buffer name; null: all shown
  const std::vector<GridView>* grids = nullptr;         // per buffer; null: every grid fits
  HeatMap* heat_map = nullptr;                           // null: no heat layer
};

// The memory view's key, one row from (0, 0) as wide as fits `width`: lane colours, and for
// the request on screen its sectors and 128-byte lines (global) or the words of an n-way
// conflict (shared), and the traffic shade when `heat`. Returns its height.
float memory_legend_scene(Scene& sc, const RequestFigures& rv, const MemoryViewState& st, float width,
                          bool lane_numbers = true);
// Its height, whatever it holds (one row of small type).
float memory_legend_height();
// The lane numbers drawn on their patches are in ink_on's inks (theme.h): how a figure tells
// whether the grids it drew carry them, so that its key promises them only then.
inline bool is_lane_number_ink(ImU32 c) { return c == kInkDark || c == kInkLight; }

// Where each shown buffer goes: pure layout data, computed before anything is drawn.
// When every grid fits its share of the panel at a legible cell size, one slot per
// buffer. Otherwise the current request's buffer gets a large "focus" slot (zoomed and
// panned to the request while following) and every shown buffer a small overview tile
// beside it, fixed in place as the step moves, the focus window outlined on its tile.
struct MemoryLayout {
  struct Slot {
    size_t buffer = 0;
    ImVec2 min, size;            // the slot, in area coordinates
    ImVec2 clip_min, clip_max;   // the canvas, in slot coordinates (title and labels outside)
    float fit = 1, cell = 1;     // pixels per cell when the grid fits, and as shown
    ImVec2 center;               // cell at the canvas middle (followed and kept on the grid)
    ImVec2 origin;               // where cell (0, 0)'s corner lands, in slot coordinates
    uint32_t row0 = 0, col0 = 0, row1 = 0, col1 = 0;  // visible cells [row0, row1) × [col0, col1)
    bool current = false;        // the current request reads or writes this buffer
    bool followed = false;       // placed by follow (else by the user's zoom and pan)
    bool tile = false;           // an overview tile: the whole grid (in bands when long), no labels
    // Bands: a tile's, or a wide grid's in the focus (count > 1; `origin` is the top-left
    // of band `band0`); bands [band0, band1) are shown, `band_gap` pixels apart.
    GridBands bands;
    uint32_t band0 = 0, band1 = 1;
    float band_gap = 0;
  };
  std::vector<Slot> slots;
  int focus = -1;                // index of the focus slot in `slots` (-1: one slot per buffer)
  float title_h = 0, lab_h = 0, lab_w = 0, tile_title_h = 0;
  float axis_h = 0;  // the axis titles' line ("row ↓  column →"), the last part of title_h
  float min_cell = 10;           // legible_cell of the labels' type
  float band_gap = 3;            // pixels between a tile's bands
  bool all_hidden = false;       // buffers exist but the user hid every one
};

// Where the key of a shared grid's even / odd bank shading goes in layout `L`: the key row
// (`keyed`), else the title of the first shared grid drawn whole, else of the focus.
void place_bank_key(MemoryViewState& st, const Session& m, const MemoryLayout& L, bool keyed);

// Cell box `b` of slot `s`'s grid as pixels in slot coordinates: one rectangle per band it
// crosses among the bands shown (none for parts in bands not shown).
template <class F>
void slot_rects(const MemoryLayout::Slot& s, const GridShape& g, CellBox b, F&& f) {
  const GridBands& bd = s.bands;
  const float cell = s.cell;
  if (bd.count <= 1 || bd.span == 0) {
    f(ImVec2(s.origin.x + b.x0 * cell, s.origin.y + b.y0 * cell), ImVec2(s.origin.x + b.x1 * cell, s.origin.y + b.y1 * cell));
    return;
  }
  const float span = float(bd.span);
  const float lo = bd.stacked ? b.x0 : b.y0, hi = bd.stacked ? b.x1 : b.y1;
  for (uint32_t k = std::max(s.band0, uint32_t(std::max(0.0f, std::floor(lo / span)))); k < s.band1 && float(k) * span < hi;
       ++k) {
    CellBox part = b;
    if (bd.stacked)
      part.x0 = std::max(b.x0, float(k) * span), part.x1 = std::min(b.x1, float(k + 1) * span);
    else
      part.y0 = std::max(b.y0, float(k) * span), part.y1 = std::min(b.y1, float(k + 1) * span);
    if (part.empty()) continue;
    // Where cell (0, 0) would land were band k's cells numbered from it.
    const float j = float(k - s.band0);
    float ox, oy;
    if (bd.stacked) {
      ox = s.origin.x - float(k) * span * cell;
      oy = s.origin.y + j * (float(g.rows) * cell + s.band_gap);
    } else {
      ox = s.origin.x + j * (float(g.cols) * cell + s.band_gap);
      oy = s.origin.y - float(k) * span * cell;
    }
    f(ImVec2(ox + part.x0 * cell, oy + part.y0 * cell), ImVec2(ox + part.x1 * cell, oy + part.y1 * cell));
  }
}

// The cell under slot point `p` (slot coordinates); false off the grid or between bands.
bool cell_at(const MemoryLayout::Slot& s, const GridShape& g, ImVec2 p, uint32_t& row, uint32_t& col);
// Arranges the shown buffers in `avail`, each grid placed by follow (the current
// request's buffer) or by its zoom and pan in `st.grids`.
MemoryLayout memory_layout(const Session& m, const RequestFigures& rv, const MemoryViewState& st, ImVec2 avail);
// Moves slot `s` (not a tile) of buffer grid `g` to show `cell` pixels per cell around
// `center`, kept on the grid.
void place_slot(MemoryLayout::Slot& s, const GridShape& g, float cell, ImVec2 center);
// The scenes of one slot in slot coordinates: `canvas` (grid, request cells, sectors and
// lines; clip it to the slot's canvas) and `labels` (title, row and column numbers; clip it
// to the slot).
void memory_slot_scene(Scene& canvas, Scene& labels, const Session& m, const RequestFigures& rv,
                       const MemoryViewState& st, const MemoryLayout& layout, const MemoryLayout::Slot& slot);
// The scenes of every slot placed at `area`, each with its clip rectangle (the canvas,
// or the slot for the labels).
std::vector<SceneChunk> memory_chunks(ImVec2 area, const Session& m, const RequestFigures& rv,
                                      const MemoryViewState& st, const MemoryLayout& layout);
// Draws the whole layout at `area` (screen coordinates) into `dl`.
void draw_memory(ImDrawList* dl, ImVec2 area, const Session& m, const RequestFigures& rv, const MemoryViewState& st,
                 const MemoryLayout& layout, GridPainter* painter);

// The lanes of slot `s`'s current request that went past the end of its array (a fault):
// each lane's cell where the grid would go on (where that is in the canvas), rimmed in red,
// and a strip along the canvas's foot naming each lane and its byte offset. Nothing when
// every lane is inside.
void past_edge_scene(Scene& sc, const MemoryLayout::Slot& s, const session::GridShape& g, const trace::Buffer& buf,
                     const RequestFigures& rv);

// Copies into shared memory (memory_copies.cpp): shared cells copied up to the request
// tinted by the 16-byte chunk of the global row they came from (when `st.source_columns`),
// and the other half of an async copy rimmed in its lanes' colours; nothing on a tile.
void copies_scene(Scene& sc, const Session& m, const RequestFigures& rv, const MemoryViewState& st,
                  const MemoryLayout::Slot& s);
// The tint of a cell whose value came from global column `column`: one of eight, by chunk.
ImU32 source_chunk_color(int32_t column, uint32_t elem_bytes, int alpha = 255);
// Whether any copy of the launch wrote shared memory (the toggle has something to show).
bool has_source_columns(const Session& m);
// "copy issued at request 3, landed at request 19" for an async half with a partner; "" otherwise.
std::string partner_text(const RequestFigures& rv);

// ---- what stopped the program ------------------------------------------------------------

// The banner of problem `p`: its headline and every detail wrapped to `width`, never cut
// (`store`: the faulting request wrote). Returns its height; nothing for an empty problem.
float problem_banner_scene(Scene& sc, const program::Problem& p, float width, bool store);
// The same laid out for the app's banner: its details in small type when `small`; `head`
// (where given) the height of its headline and first two lines of details, `title` (where
// given) of its headline alone; `elsewhere` follows the headline where the view shows
// another launch ("in launch 2, transposeTiled<0>").
float banner_scene(Scene& sc, const program::Problem& p, float width, bool store, bool small, float* head = nullptr,
                   float* title = nullptr, const std::string& elsewhere = {});
// The banner in one line for a panel too short for its box (an A/B side in presentation):
// the headline and where, "Out-of-bounds write to 'd_out' · t.cu:27 · thread (31,31) …",
// cut to `width`. Returns its height.
float banner_line_scene(Scene& sc, const program::Problem& p, float width, bool store,
                        const std::string& elsewhere = {});

// ---- warp inspector ---------------------------------------------------------------------

// The diagram of request `rv` (lanes → sectors, or lanes → the 32 banks) in `size`.
void warp_scene(Scene& sc, const RequestFigures& rv, ImVec2 size);
// The inspector's whole body in `size`: the instruction, its headline figures, the reason
// in words, and the lane diagram below them. The text keeps what fits: source lines,
// captions and reason lines go before the diagram gets less than
// warp_min_diagram_height(size). Returns the diagram's box. The app's panel and the
// figure export (warp and banks views) draw this one scene.
SceneBox warp_panel_scene(Scene& sc, const RequestFigures& rv, ImVec2 size);
float warp_min_diagram_height(ImVec2 size);
// The least body of the inspector: one source line, one line of figures and a diagram of
// the least height warp_min_diagram_height allows.
float warp_panel_min_height();
// The inspector while a lesson waits for a prediction: the instruction and the question,
// none of the figures that would answer it.
void warp_veil_scene(Scene& sc, const RequestFigures& rv, const std::string& prompt, ImVec2 size);

// ---- fragment view ----------------------------------------------------------------------

// The element of an operand under the pointer: its lane (-1: none) and place.
struct FragmentHit {
  int lane = -1;
  char matrix = 'A';  // 'A', 'B' or 'C'
  uint32_t row = 0, col = 0;
  analysis::FragmentCell cell;
  uint32_t regs = 0;  // the operand's registers a lane
  int warp = -1;      // wgmma: the warp (of the block) whose lane holds it; -1 for mma.sync
};
// Whether the launch of `m` ran any mma (the fragment view has something to show).
bool has_mma(const Session& m);
// The fragment view's body in `size`: the mma the warp of request `step` ran nearest it, else
// (a warp-specialized kernel's producer) the block's mma nearest it in time (its
// instruction, block, warp and line) and its A, B and C/D grids, each cell the lane holding
// that element and its register, lane `lane` lit (-1: none); a one-line reason instead when
// the warp ran no mma or its layout is not drawn. Returns the cell under `mouse` (scene
// coordinates).
FragmentHit fragment_scene(Scene& sc, const Session& m, uint64_t step, int lane, ImVec2 size, ImVec2 mouse);

// ---- pipeline view ----------------------------------------------------------------------

// Whether the launch of `m` made bulk (TMA) copies (the pipeline view has a ring to draw).
bool has_bulk_copies(const Session& m);
// The pipeline view's body in `size`: the block of request `step`, its bulk copies as boxes
// in the slots of shared memory they land in (in flight from the request that issued each
// to the wait where it landed, then landed until the slot is filled again), a row per warp
// with its waits and mma / wgmma instructions, the request on screen as the playhead.
void pipeline_scene(Scene& sc, const Session& m, uint64_t step, ImVec2 size);

// ---- cluster view -----------------------------------------------------------------------

// Whether the launch of `m` ran thread block clusters (the cluster view has CTAs to draw).
bool has_cluster(const Session& m);
// The cluster view's body in `size`: the cluster of request `step`'s block, its CTAs by
// rank, arrows for the requests of each into another's shared memory (counts and bytes;
// no cost), for TMA boxes multicast into a CTA from those that issued them, and for the
// request's own lanes.
void cluster_scene(Scene& sc, const Session& m, uint64_t step, ImVec2 size);

// ---- DRAM view --------------------------------------------------------------------------

// The channels × banks grid of `d` (session::dram_figures) in `size`.
void dram_scene(Scene& sc, const session::DramFigures& d, ImVec2 size);
// The view's body below its controls, as one scene in `size`: the MODEL tag and preset,
// the array shown, the headline figures and the grid. `array`: what to show (session::DramChoice: the
// request's array, as dram_array_at picks it, every array, or one).
void dram_panel_scene(Scene& sc, const Session& m, const RequestFigures& rv, session::DramChoice array, ImVec2 size);

// ---- source panel -----------------------------------------------------------------------

// Gutter width for the per-line badges of `f`: as wide as the widest line's badges need,
// each line's named in full where that fits in a quarter of `avail_w` (a fifth when
// `narrow`: a projector's large type keeps the width for the code), else its costs alone
// ("32-way 4"), else its worst cost and "+N".
float source_gutter_width(const SourceText& f, float avail_w, bool narrow = false);
float source_row_height();
// One badge of a line's gutter: identical parts (a SASS trace has a site per instruction)
// shown once, with the worst of their costs.
struct GutterBadge {
  std::string label;             // "tile 32-way", or the cost alone: "32-way"
  double ratio = 1;              // cost / ideal, for its colour
  std::vector<uint32_t> sites;   // the sites it stands for
};
// The badges of `ls` that fit in `room` pixels (its parts whose site is `only_site` when
// that is >= 0): all of them named ("tile" for "transposeTiled::tile"), else their costs
// alone, else the one of `current_site` (or the worst) and in `more` how many others ("+2").
std::vector<GutterBadge> gutter_badges(const session::LineStat& ls, float room, int only_site, int current_site, std::string& more);
// One entry of a gutter line's tooltip: the instructions of the line that read alike
// ("×32": an unrolled loop's loads of one array at one cost), counted once.
struct SourceTipEntry {
  std::string instruction;  // "col 23  ld.shared.f32", or "" where the trace has no instruction
  std::string cost;         // "shared load of tile: up to 32-way, 31,744 bank conflicts"
  std::string why;          // the analysis' line for the site
  int count = 0;            // how many of the line's instructions read so
};
// The tooltip of `ls`'s line: its instructions grouped where their text is the same, in the
// order of their first instruction.
std::vector<SourceTipEntry> source_tip_entries(const Session& m, const session::LineStat& ls);
// Where to end a row of `text` starting at `from` that holds at most `room` characters:
// after the last space in its second half, else at the last boundary between two tokens
// (never inside an identifier, a number or an operator such as "<<" or "+="), else — a
// token longer than the row — at `room`.
size_t source_wrap_end(const std::string& text, size_t from, size_t room);
// A row of the source panel: a line of the file (site -1) or, under an opened line, one of
// its memory instructions. A line wrapped to the panel's width is several rows, each with
// its piece [from, to) of the line; the pieces after the first are indented past it.
struct SourceRow {
  uint32_t line = 0;  // 1-based
  int site = -1;
  uint32_t from = 0, to = UINT32_MAX;  // the piece of the line drawn on this row
  uint32_t col = 0;                    // where it is drawn, in characters from the code's start
  bool more = false;                   // a wrapped line's second or later piece (an instruction's: its cost)
  int hardware = -1;                   // under an opened line: its k-th "what the GPU ran" row
};
// The rows of `f`: every line, each line with sites followed by its instructions when
// `open(line)` says so. `wrap` > 0: indentation is drawn half as deep, and lines longer
// than `wrap` characters are broken between tokens (source_wrap_end) into pieces that fit;
// with `m`, an instruction whose name and cost do not fit one row gets its cost on a second.
std::vector<SourceRow> source_rows(const SourceText& f, const std::function<bool(uint32_t)>& open, int wrap = 0,
                                   const Session* m = nullptr);
// Characters a continuation piece is indented past its line's own indentation.
constexpr int kSourceWrapIndent = 4;
// Rows [first, first + count) of `f` from y = 0: the current line (`rv`'s) lit, the line
// where the program was stopped (session::problem_line) red, each
// line's cost badges in the gutter, the code with its comments dimmed; an instruction row
// names the instruction (the PTX a program's compiler wrote, else space and operation), its
// array and its cost. Highlights run `width` pixels wide. `only_site`: -1 every cost; -2
// none; a site index: that site's alone (a lesson shows the answers given so far, no others).
void source_scene(Scene& sc, const Session& m, const SourceText& f, const std::vector<SourceRow>& rows,
                  const RequestFigures& rv, int first, int count, float width, float gutter_w, int only_site = -1);

// Numbers as the figures print them (format.cpp).
std::string fmt_count(uint64_t n);  // 1234567 -> "1,234,567"
std::string fmt_bytes(uint64_t n);  // "512 B", "4 KiB"
std::string fmt_compact(uint64_t n);  // 34304 -> "34.3k"

}  // namespace ws::ui
