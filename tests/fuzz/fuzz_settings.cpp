// The app's settings file (settings.json), read at start: a file that is not usable is
// ignored with a message; one that is read writes back to text that reads to the same state.
#include <cstdlib>

#include "fuzz.h"
#include "ui/settings.h"

WS_FUZZ_TARGET(text) {
  ws::ui::UiState s;
  std::string message;
  if (!ws::ui::parse_settings(text, "settings.json", s, message)) return;
  const std::string once = ws::ui::settings_json(s);
  ws::ui::UiState back;
  if (!ws::ui::parse_settings(once, "back.json", back, message) || ws::ui::settings_json(back) != once) std::abort();
}
