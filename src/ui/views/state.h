// src/ui/views/state.h — everything the user chose: each panel's own options in a struct of its
// own, and the app's (what to record, the window). The settings file stores them in
// sections, one per struct, through their fields() lists (settings.cpp): the file's schema
// is those names, not this layout.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "session/dram.h"  // DramChoice

namespace ws::ui {

// The panels (docs/architecture.md, "The app"), in the panels table's order (ui/panels.h).
// The settings keep an enlarged panel by its number here, so a new panel goes last.
enum class Panel : int { Catalog, Memory, Warp, Dram, Source, Timeline, Timing, Lesson, Fragments, Pipeline, Cluster, Count };

// What to step over with the step buttons and while playing.
using session::StepUnit;

// ---- each panel's own choices: a struct per panel, persisted as a section of the settings
// file by its fields() (settings.cpp reads and writes them by name). A new control is a
// field here and a line in fields(); Ui does not change.

// The timeline's: how playback steps.
struct TimelineOptions {
  float speed = 8.0f;          // steps per second while playing
  StepUnit play_unit = StepUnit::Request;
  bool loop = false;
  template <class V>
  void fields(V&& v) {
    v("speed", speed);
    v("play_unit", play_unit);
    v("loop", loop);
  }
};

// The memory view's: what it draws over the cells.
struct MemoryOptions {
  bool heat = true;            // accumulated traffic up to the current step
  bool heat_log = true;        // log scale keeps rarely touched cells visible
  bool show_sectors = true;    // 32-byte sectors of the current request
  bool show_lines = true;      // 128-byte lines of the current request
  bool show_labels = true;     // row / column numbers
  bool show_banks = true;      // bank numbers in shared arrays when cells are large
  bool follow = true;          // zoom and pan the memory view to the current request
  bool source_columns = true;  // tint shared cells by the global column their copy came from
  std::map<std::string, bool> hidden_buffers;  // by buffer name
  template <class V>
  void fields(V&& v) {
    v("heat", heat);
    v("heat_log", heat_log);
    v("show_sectors", show_sectors);
    v("show_lines", show_lines);
    v("show_labels", show_labels);
    v("show_banks", show_banks);
    v("follow", follow);
    v("source_columns", source_columns);
    v("hidden_buffers", hidden_buffers);
  }
};

// The DRAM view's: the model and which arrays it sums.
struct DramOptions {
  std::string preset = "textbook";
  session::DramChoice array;   // the current request's, every global array, or one
  template <class V>
  void fields(V&& v) {
    v("preset", preset);
    v("array", array);
  }
};

// The source panel's: whether every memory line shows the instructions it became.
struct SourceOptions {
  bool instructions = false;
  template <class V>
  void fields(V&& v) {
    v("instructions", instructions);
  }
};

struct UiState {
  // ---- what to record (any change re-records in the background): the catalog panel's
  std::string kernel = "transpose_read_coalesced";  // the transpose trio opens the app
  int64_t size = 0;                                  // 0: the kernel's teaching size
  std::map<std::string, int64_t> params;             // values the user set, by name
  std::string blocks;                                // "0-3"; "all"; empty: all unless the launch is huge
  uint64_t max_records = 4'000'000;                  // past this, records are dropped and counted
  std::string lesson;          // the lesson open in the lesson panel (its id or path; "": none)

  // ---- the panels' own
  TimelineOptions timeline;
  MemoryOptions memory;
  DramOptions dram;
  SourceOptions source;

  // ---- window
  float left_frac = 0.215f;    // width of the left column
  float right_frac = 0.315f;   // width of the right column
  float left_split = 0.64f;    // catalog / timing
  float center_split = 0.62f;  // memory / source
  float right_split = 0.58f;   // warp inspector / DRAM
  int enlarged = -1;           // a Panel filling the workspace, or -1
  float font_scale = 1.0f;     // 1 = the regular sizes; presentation mode raises it
  int theme = 0;               // 0: dark
  std::string last_file;       // last .wstrace opened or saved
  std::string last_program;    // last .cu program opened

  // ---- this run only (not saved)
  uint64_t step = 0;           // index into the trace's records, in execution order
  bool playing = false;
  bool show_help = false;
  bool present = false;        // presentation mode (F5): large type, light theme, colour-blind lanes
  std::string compare;         // "ID[:k=v,...]": the B side of an A/B view ("" : none)
  bool show_internal_arrays = false;  // the program panel lists the toolkit's buffers too
  bool fragments = false;      // the launch ran mma: the fragment view takes the DRAM view's place
  bool pipeline = false;       // the launch made bulk (TMA) copies: the pipeline view takes it, before the fragments
  bool cluster = false;        // the launch ran thread block clusters: the cluster view takes it, before the pipeline
  int fragment_lane = 0;       // the lane the fragment view lights

  // The settings sections of the app itself: what to record, and the window.
  template <class V>
  void launch_fields(V&& v) {
    v("kernel", kernel);
    v("size", size);
    v("params", params);
    v("blocks", blocks);
    v("max_records", max_records);
    v("lesson", lesson);
  }
  template <class V>
  void window_fields(V&& v) {
    v("left_frac", left_frac);
    v("right_frac", right_frac);
    v("left_split", left_split);
    v("center_split", center_split);
    v("right_split", right_split);
    v("enlarged", enlarged);
    v("font_scale", font_scale);
    v("theme", theme);
    v("last_file", last_file);
    v("last_program", last_program);
  }
};

}  // namespace ws::ui
