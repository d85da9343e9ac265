// src/ui/views/pipeline_view.cpp — Pipeline view: a block's shared ring over its requests, as
// (its scene builders: src/ui/figure/pipeline_scene.cpp)
#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>
#include "analysis/pipeline.h"
#include "ui/figure/theme.h"
#include "ui/views/views.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

void pipeline_view(ViewContext& c) {
  if (c.veil_copies) {  // each box is drawn with its bytes: a lesson's answer
    ImGui::TextDisabled("Hidden until you answer in the lesson panel.");
    return;
  }
  scene_panel(c, "##pipeline", pipeline_scene);
}

}  // namespace ws::ui
