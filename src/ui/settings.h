// src/ui/settings.h — UiState to and from a small JSON file (the window layout of ImGui
// itself goes to imgui.ini beside it). A file that cannot be read or parsed is ignored
// with a message, never a crash: the state keeps its defaults.
#pragma once
#include <string>

#include "ui/views/state.h"

namespace ws::ui {

// Reads `path` into `s`. Returns false and sets `message` when the file exists but is
// unusable; a missing file returns false with an empty message. Unknown or ill-typed
// fields are skipped one by one.
bool load_settings(const std::string& path, UiState& s, std::string& message);
// The same for the file's text; `path` names it in the message.
bool parse_settings(const std::string& text, const std::string& path, UiState& s, std::string& message);
// Writes `s` to `path` (via a temporary file, so a crash never leaves half a file).
bool save_settings(const std::string& path, const UiState& s, std::string& error);
// The JSON text of `s`.
std::string settings_json(const UiState& s);

}  // namespace ws::ui
