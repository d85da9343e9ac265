// src/ui/slide_controller.h — the deck of slides (kernel, parameters, step, view, caption;
// or a program, its launch and its sources' hash) that outlives recordings: adding the step
// on screen, going to a slide (recording its launch first when another is on screen; a
// program only once the user agreed to build and run it), N / P, and the .wsdeck file. A trace's
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
  bool allow_programs = false;      // --yes: a slide may build and run its program without asking
};

class SlideController {
 public:
  explicit SlideController(Ui& ui) : ui_(ui) {}

  // Adds the launch, step and view on screen as a slide (or renames the slide there).
  void add(const std::string& caption);
  // Shows slide `i`: records its launch if another is on screen, then goes to its step. A
  // program slide of a program not on screen first asks (confirming()) unless allowed.
  bool go_to(size_t i);
  // A program slide waits for the user to agree to build and run it: its index, or -1.
  int confirming() const { return confirm_; }
  // The user's answer: yes builds and runs it (and its program is not asked about again).
  void confirm(bool yes);
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
  // Builds and runs a program slide's program (its step follows the recording).
  bool open_program_slide(size_t i);
  // The slide's program arrived: its step, and whether its file changed since.
  void program_arrived(size_t i);
  Ui& ui_;
  int pending_ = -1;  // the slide whose launch is being recorded
  int confirm_ = -1;  // the program slide waiting for the user's yes
  std::vector<std::string> agreed_;  // the commands the user agreed to run (program_command)
};

}  // namespace ws::ui
