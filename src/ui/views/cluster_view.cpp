// src/ui/views/cluster_view.cpp — Cluster view: the thread block cluster of the current
// (its scene builders: src/ui/figure/cluster_scene.cpp)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include "analysis/cluster.h"
#include "ui/figure/theme.h"
#include "ui/views/views.h"
#include "ui/figure/scenes.h"

namespace ws::ui {

void cluster_view(ViewContext& c) {
  if (c.veil_copies) {  // a multicast's arrows carry its bytes: a lesson's answer
    ImGui::TextDisabled("Hidden until you answer in the lesson panel.");
    return;
  }
  scene_panel(c, "##cluster", cluster_scene);
}

}  // namespace ws::ui
