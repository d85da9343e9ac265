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
};

// Starts catching (clearing what was caught); stop_catching returns it.
void start_catching();
std::vector<DrawnText> stop_catching();

}  // namespace ws::test
