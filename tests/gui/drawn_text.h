// Every text the app draws in a frame, whoever draws it — ImGui's own widgets (the lesson
// panel, menus, tables, the status bar) and the scenes alike — caught where they all end
// up: ImDrawList::AddText. The test binary that uses this links with the linker's --wrap
// for that function (tests/gui.cmake), so the library's calls come here first.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

namespace ws::test {

struct DrawnText {
  std::string text;
  ImVec2 pos;             // top-left
  ImVec4 clip;            // the clip rectangle it was drawn under (x0, y0, x1, y1)
  ImVec2 size{};          // as the font measures it (wrapped where it was drawn wrapped)
  const ImDrawList* list = nullptr;
  // Whether all of its height lies inside its clip rectangle: on screen whole, not
  // scrolled half out of a panel.
  bool whole_in_clip() const { return pos.y >= clip.y - 0.5f && pos.y + size.y <= clip.w + 0.5f; }
};

// Starts catching (clearing what was caught); stop_catching returns it: the texts of the
// draw lists in `drawn` (the frame's draw data: a window ImGui hid at the frame's end,
// such as its implicit "Debug" window, drew its title but is not on screen), or all.
void start_catching();
std::vector<DrawnText> stop_catching(const ImDrawData* drawn = nullptr);

}  // namespace ws::test
