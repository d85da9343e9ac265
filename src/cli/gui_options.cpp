#include "cli/gui_options.h"

#include <string>
#include <vector>

#include "ui/state.h"

namespace ws::cli {

void add_gui_options(CLI::App& cmd, GuiArgs& args) {
  app::Options& opt = args.app;
  add_launch_options(cmd, args.launch, kWithDram | kWithBlocks | kWithProgram);
  cmd.add_option("trace", opt.trace_file, "a .wstrace file to open instead of recording")->type_name("FILE.wstrace");
  cmd.add_option("--trace", opt.trace_file, "open a .wstrace file instead of recording")->type_name("FILE");
  cmd.add_option("--step", opt.step, "go to request K (from 1, as the timeline counts) once the trace is loaded")->type_name("K");
  cmd.add_option("--screenshot", opt.screenshot, "save a PNG of the window after --frames frames, then exit")
      ->type_name("FILE.png");
  cmd.add_option("--frames", opt.frames, "frames to draw once ready (default 3 with --screenshot)")->type_name("N");
  cmd.add_option("--windows-json", opt.windows_json, "write the panels drawn and the request's figures (with --frames)")
      ->type_name("FILE");
  std::vector<std::string> panels;
  for (int i = 0; i < int(ui::Panel::Count); ++i)
    if (ui::Panel(i) != ui::Panel::Timeline) panels.push_back(ui::panel_key(ui::Panel(i)));
  cmd.add_option("--panel", opt.panel, "enlarge a panel: catalog, memory, warp, dram, source, timing")
      ->type_name("NAME")
      ->check(CLI::IsMember(panels));
  cmd.add_option("--width", opt.width, "window width (default 1600)")->type_name("W");
  cmd.add_option("--height", opt.height, "window height (default 1000)")->type_name("H");
  cmd.add_option("--config-dir", opt.config_dir, "where settings live ('none': do not persist)")->type_name("DIR");
  cmd.add_option("--replay-dir", opt.replay_dir,
                 "replay pack of GPU timings (default: the bundled one, next to the binary, in share/warpscope, "
                 "or in the source tree)")
      ->type_name("DIR");
  cmd.add_flag("!--no-vsync", opt.vsync, "draw as fast as possible");
  cmd.add_flag("--play", opt.play, "start playing once the trace is loaded");
  cmd.add_flag("--show-help", opt.show_help, "open with the keyboard shortcuts shown");
  cmd.add_flag("--present", opt.present, "presentation mode (F5): large type, light theme, colour-blind lanes");
  cmd.add_option("--compare", opt.compare, "A/B view: the B side beside the --kernel (e.g. transpose_tiled:pad=1)")
      ->type_name("ID[:k=v,..]");
  cmd.add_flag("--stats", opt.stats, "print the CPU time per frame at exit");
  cmd.add_option("--deck", opt.deck, "a slide deck (.wsdeck): N / P step through it")->type_name("FILE.wsdeck");
  cmd.add_option("--lesson", opt.lesson, "open a lesson in the lesson panel (see `warpscope lesson`)")->type_name("NAME");
}

app::Options gui_options(const GuiArgs& args) {
  app::Options opt = args.app;
  opt.launch = spec_of(args.launch);
  for (const auto& set : args.launch.set)
    if (set.rfind("dram=", 0) == 0) opt.dram_set = true;
  app::check_options(opt);
  return opt;
}

}  // namespace ws::cli
