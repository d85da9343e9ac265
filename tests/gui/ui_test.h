// Helpers the headless GUI tests share: a Ui with no replay pack, and frames until it
// has settled (recordings of both A/B sides done, heat caught up).
#pragma once
#include <doctest/doctest.h>

#include <string>

#include "ui/headless.h"
#include "ui/ui.h"

namespace ws::test {

inline ui::Environment quiet_env() {
  ui::Environment env;
  env.replay_dir = "";  // no replay pack: the timing panel must say so
  return env;
}

// Draws frames until the background jobs are done and the heat has caught up.
inline void settle(ui::HeadlessContext& ctx, ui::Ui& u) {
  for (int i = 0; i < 4000; ++i) {
    ctx.frame(u);
    if (u.settled()) return;
    if (u.recorder.busy()) u.recorder.wait_idle();
    if (u.ab.recorder.busy()) u.ab.recorder.wait_idle();
  }
  FAIL("the UI did not settle");
}

// Raises `*flag` (a dialog's open request) with `path` in the dialog's field: the dialog
// opens, and Escape closes it.
inline void check_dialog_escape(ui::HeadlessContext& ctx, ui::Ui& u, bool* flag, const std::string& path) {
  *flag = true;
  u.dialogs.path = path;
  for (int i = 0; i < 5; ++i) ctx.frame(u);
  CHECK(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId));
  ctx.press(ui::HeadlessContext::key(ImGuiKey_Escape));
  ctx.frame(u);
  ctx.frame(u);
  CHECK(!ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId));
}

}  // namespace ws::test
