// src/cli/gui_options.cpp — the options of `warpscope gui` (gui_options.h): the launch
// through the shared parser, a program given as the first argument, and the app's own.
#include "cli/gui_options.h"

#include <string>
#include <vector>

#include "session/deck.h"

namespace ws::cli {

void add_gui_options(CLI::App& cmd, GuiArgs& args) {
  app::Options& opt = args.app;
  add_launch_options(cmd, args.launch, kWithDram | kWithBlocks | kWithProgram);
  cmd.add_option("trace", opt.trace_file, "a .wstrace file to open, or your own FILE.cu to build and run")
      ->type_name("FILE.wstrace|FILE.cu");
  cmd.add_option("--trace", opt.trace_file, "open a .wstrace file instead of recording")->type_name("FILE");
  // As `run --launch K` reads it: a launch number from 1.
  cmd.add_option("--launch", args.launch_number, "show launch K (from 1) of the program or trace")
      ->type_name("K")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--compare-launch", args.compare_launch,
                 "A/B view: launch K (from 1) of the same program or trace beside the one shown")
      ->type_name("K")
      ->check(CLI::PositiveNumber);
  cmd.add_flag("--yes", opt.yes, "let a deck build and run the programs its slides name, without asking");
  cmd.add_flag("--ask", opt.ask, "open a deck that names programs: the app asks before it builds one (`warpscope FILE.wsdeck`)");
  cmd.add_option("--step", opt.step, "go to request K (from 1, as the timeline counts) once the trace is loaded")->type_name("K");
  cmd.add_option("--screenshot", opt.screenshot, "save a PNG of the window after --frames frames, then exit")
      ->type_name("FILE.png");
  cmd.add_option("--frames", opt.frames, "frames to draw once ready (default 3 with --screenshot)")->type_name("N");
  cmd.add_option("--windows-json", opt.windows_json, "write the panels drawn and the request's figures (with --frames)")
      ->type_name("FILE");
  const std::vector<std::string> panels = app::panel_keys();
  cmd.add_option("--panel", opt.panel, "enlarge a panel: catalog, memory, warp, dram, source, timing, lesson, fragments (a launch that ran mma), pipeline (a launch that copied by TMA)")
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
  // `warpscope gui prog.cu`: the first argument is the program.
  const std::string& first = opt.trace_file;
  if (first.size() > 3 && first.compare(first.size() - 3, 3, ".cu") == 0) {
    if (!opt.launch.program.source.empty())
      throw session::InputError("two programs named: " + first + " and --program " + opt.launch.program.source);
    opt.launch.program.source = first;
    opt.trace_file.clear();
  }
  const bool launches = !opt.launch.program.source.empty() || !opt.trace_file.empty();
  if (args.launch_number > 0) {
    if (!launches) throw session::InputError("--launch K needs a program (FILE.cu) or a trace (FILE.wstrace)");
    opt.launch.launch = uint32_t(args.launch_number - 1);
    opt.launch.launch_named = true;
  }
  if (args.compare_launch > 0) {
    if (!launches) throw session::InputError("--compare-launch K needs a program (FILE.cu) or a trace (FILE.wstrace)");
    if (!opt.compare.empty()) throw session::InputError("--compare and --compare-launch each name the B side: give one");
    opt.compare = "launch " + std::to_string(args.compare_launch);
    opt.launch.launch_named = true;
  }
  for (const auto& set : args.launch.set)
    if (set.rfind("dram=", 0) == 0) opt.dram_set = true;
  app::check_options(opt);
  // A deck may come from anyone: a program of its slides runs only when the user said so.
  if (!opt.deck.empty() && !opt.yes && !opt.ask)
    if (const std::string runs = session::runs_programs(session::load_deck(opt.deck)); !runs.empty())
      throw session::InputError(opt.deck + ": " + runs + ": add --yes to allow it (Slides → Open deck… asks instead)");
  return opt;
}

}  // namespace ws::cli
