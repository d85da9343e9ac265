// src/ui/state.h — everything the user chose, in one plain struct with defaults. It is
// what the settings file stores; the views read and change it, nothing else holds UI
// choices.
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace ws::ui {

// The panels of the main window (docs/architecture.md, "The app"), in drawing order.
enum class Panel : int { Catalog, Memory, Warp, Dram, Source, Timeline, Timing, Lesson, Count };
const char* panel_name(Panel p);        // "Memory view"
const char* panel_key(Panel p);         // "memory" (settings, --panel, windows JSON)
bool panel_from_key(const std::string& key, Panel& out);

// What to step over with the step buttons and while playing.
enum class StepUnit : int { Request, Warp, Epoch };

struct UiState {
  // ---- what to record (any change re-records in the background)
  std::string kernel = "transpose_read_coalesced";  // the transpose trio opens the app
  int64_t size = 0;                                  // 0: the kernel's teaching size
  std::map<std::string, int64_t> params;             // values the user set, by name
  std::string blocks;                                // "0-3"; "all"; empty: all unless the launch is huge
  uint64_t max_records = 4'000'000;                  // past this, records are dropped and counted
  std::string dram_preset = "textbook";

  // ---- playback
  uint64_t step = 0;           // index into the trace's records, in execution order
  bool playing = false;
  float speed = 8.0f;          // steps per second while playing
  StepUnit play_unit = StepUnit::Request;
  bool loop = false;

  // ---- memory view
  bool heat = true;            // accumulated traffic up to the current step
  bool heat_log = true;        // log scale keeps rarely touched cells visible
  bool show_sectors = true;    // 32-byte sectors of the current request
  bool show_lines = true;      // 128-byte lines of the current request
  bool show_labels = true;     // row / column numbers
  bool show_banks = true;      // bank numbers in shared arrays when cells are large
  bool follow = true;          // zoom and pan the memory view to the current request
  std::map<std::string, bool> hidden_buffers;  // by buffer name

  // ---- DRAM view
  int dram_array = -2;         // -2: the current request's (session::kDramFollow), -1: every
                               // global array, else a buffer id

  // ---- window
  float left_frac = 0.215f;    // width of the left column
  float right_frac = 0.315f;   // width of the right column
  float left_split = 0.64f;    // catalog / timing
  float center_split = 0.62f;  // memory / source
  float right_split = 0.58f;   // warp inspector / DRAM
  int enlarged = -1;           // a Panel filling the workspace, or -1
  bool show_help = false;
  float font_scale = 1.0f;     // 1 = the regular sizes; presentation mode raises it
  int theme = 0;               // 0: dark
  bool present = false;        // presentation mode (F5): large type, light theme, colour-blind lanes
  std::string compare;         // "ID[:k=v,...]": the B side of an A/B view ("" : none)
  std::string last_file;       // last .wstrace opened or saved
  std::string lesson;          // the lesson open in the lesson panel (its id or path; "": none)
};

}  // namespace ws::ui
