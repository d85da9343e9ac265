// The --wrap side of drawn_text.h: each AddText is recorded while catching, then drawn.
#include "drawn_text.h"

#include <imgui_internal.h>

#include <cstring>

namespace {
bool g_catching = false;
std::vector<ws::test::DrawnText>* g_caught() {
  static std::vector<ws::test::DrawnText> v;
  return &v;
}

void note(const ImDrawList* dl, const ImFont* font, float size, const ImVec2& pos, const char* b, const char* e,
          float wrap, const ImVec4* clip) {
  if (!g_catching || !b) return;
  if (!e) e = b + std::strlen(b);
  if (e == b) return;
  if (!font) font = dl->_Data->Font, size = dl->_Data->FontSize;
  const ImVec2 sz = font ? font->CalcTextSizeA(size, 1e9f, wrap, b, e) : ImVec2(0, 0);
  g_caught()->push_back({std::string(b, e), pos, clip ? *clip : dl->_CmdHeader.ClipRect, sz, dl});
}
}  // namespace

// ImDrawList::AddText(const ImFont*, float, const ImVec2&, ImU32, const char*, const char*,
// float, const ImVec4*) and ImDrawList::AddText(const ImVec2&, ImU32, const char*, const char*).
extern "C" {
void __real__ZN10ImDrawList7AddTextEPK6ImFontfRK6ImVec2jPKcS7_fPK6ImVec4(ImDrawList*, const ImFont*, float,
                                                                          const ImVec2&, ImU32, const char*,
                                                                          const char*, float, const ImVec4*);
void __wrap__ZN10ImDrawList7AddTextEPK6ImFontfRK6ImVec2jPKcS7_fPK6ImVec4(ImDrawList* dl, const ImFont* f, float size,
                                                                          const ImVec2& pos, ImU32 col, const char* b,
                                                                          const char* e, float wrap,
                                                                          const ImVec4* clip) {
  note(dl, f, size, pos, b, e, wrap, clip);
  __real__ZN10ImDrawList7AddTextEPK6ImFontfRK6ImVec2jPKcS7_fPK6ImVec4(dl, f, size, pos, col, b, e, wrap, clip);
}
void __real__ZN10ImDrawList7AddTextERK6ImVec2jPKcS4_(ImDrawList*, const ImVec2&, ImU32, const char*, const char*);
void __wrap__ZN10ImDrawList7AddTextERK6ImVec2jPKcS4_(ImDrawList* dl, const ImVec2& pos, ImU32 col, const char* b,
                                                     const char* e) {
  note(dl, nullptr, 0, pos, b, e, 0, nullptr);
  __real__ZN10ImDrawList7AddTextERK6ImVec2jPKcS4_(dl, pos, col, b, e);
}
}

namespace ws::test {

void start_catching() {
  g_caught()->clear();
  g_catching = true;
}

std::vector<DrawnText> stop_catching(const ImDrawData* drawn) {
  g_catching = false;
  std::vector<DrawnText> out;
  for (auto& d : *g_caught()) {
    bool on_screen = !drawn;
    for (int i = 0; drawn && i < drawn->CmdListsCount && !on_screen; ++i) on_screen = drawn->CmdLists[i] == d.list;
    if (on_screen) out.push_back(std::move(d));
  }
  g_caught()->clear();
  return out;
}

}  // namespace ws::test
