// warpscope-app: the desktop app on its own, with the options of `warpscope gui`.
#include <cstdio>

#include "cli/gui_options.h"

int main(int argc, char** argv) {
  ws::cli::GuiArgs args;
  CLI::App cmd{"warpscope-app: the desktop app", "warpscope-app"};
  ws::cli::add_gui_options(cmd, args);
  ws::app::Options opt;
  try {
    cmd.parse(argc, argv);
    opt = ws::cli::gui_options(args);
  } catch (const CLI::ParseError& e) {
    return cmd.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpscope: error: %s\n", e.what());
    return 2;
  }
  return ws::app::run(opt);
}
