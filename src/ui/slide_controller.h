// src/ui/slide_controller.h — the deck of slides (kernel, parameters, step, view, caption)
// that outlives recordings: adding the step on screen, going to a slide (recording its
// launch first when another is on screen), N / P, and the .wsdeck file. A trace's
// bookmarks are the slides of its launch. The Slides menu and the caption dialog
// (slides.cpp) and the timeline's marks draw it.
#pragma once
#include <string>
#include <vector>

#include "session/deck.h"

namespace ws::ui {

class Ui;
struct Pane;

// The deck's file, its dialogs, and the slide last shown (N / P move from it).
struct SlideState {
  std::string file;                 // the .wsdeck last opened or saved
  bool open = false, save = false;  // .wsdeck file dialogs (file_dialog.cpp)
  int current = -1;                 // index into the deck, or -1
  std::vector<int> marked;          // slides the timeline marked in its last frame (A pane)
};

class SlideController {
 public:
  explicit SlideController(Ui& ui) : ui_(ui) {}

  // Adds the launch, step and view on screen as a slide (or renames the slide there).
  void add(const std::string& caption);
  // Shows slide `i`: records its launch if another is on screen, then goes to its step.
  bool go_to(size_t i);
  // The next (dir > 0) or previous slide in deck order; false when there is none that way.
  bool next(int dir);
  // The slide showing pane `p`'s launch at its step, or -1.
  int at(const Pane& p) const;
  // Whether slide `s` shows the launch on pane `p`.
  bool on(const session::Slide& s, const Pane& p) const;
  bool load(const std::string& path);  // false: the error is on the status line
  bool save(const std::string& path);
  // A slide's launch is being recorded, to show once it arrives.
  bool pending() const { return pending_ >= 0; }
  // A recording arrived on the A pane: a slide waiting for it goes to its step.
  void recording_arrived();
  // The recording asked for failed: no slide waits any more.
  void recording_failed() { pending_ = -1; }

  session::Deck deck;
  SlideState state;

 private:
  Ui& ui_;
  int pending_ = -1;  // the slide whose launch is being recorded
};

}  // namespace ws::ui
