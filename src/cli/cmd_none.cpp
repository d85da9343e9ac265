// `warpscope` with no command (or a FILE.wstrace, or `warpscope gui [options]`): the
// desktop app when the build has one, else the usage.
#include <iostream>
#include <memory>

#include "cli/cli.h"
#ifdef WS_HAVE_GUI
#include "cli/gui_options.h"
#endif

namespace ws::cli {

std::string usage() {
  return "warpscope " + std::string(session::version()) +
         ": see how GPU kernels touch memory\n"
         "\n"
         "usage:\n"
         "  warpscope list [--format text|json]\n"
         "  warpscope report --kernel ID [--size N] [--set name=value ...] [--blocks LIST]\n"
         "                   [--format text|json] [--backend auto|gpu|emulator]\n"
         "  warpscope report --trace FILE [--format text|json] [--set dram=textbook|hbm]\n"
         "  warpscope record --kernel ID [--size N] [--set name=value ...] [--blocks LIST]\n"
         "                   --out FILE [--backend auto|gpu|emulator]\n"
         "\n"
         "  warpscope lesson [NAME] [--answers ask|auto|hide]\n"
         "  warpscope bench [--kernel ID,...] [--size N] [--format text|json]\n"
         "  warpscope sass --kernel ID [--size N] [--set name=value ...] [--out FILE]\n"
         "  warpscope run PROG.cu [NVCC FLAGS] [--levels] [-- ARGS]\n"
         "  warpscope [FILE.wstrace]          the desktop app (warpscope gui --help: its options)\n"
         "\n"
         "`warpscope list` shows the kernels and their parameters; `warpscope COMMAND --help`\n"
         "describes a command.\n";
}

int no_command(const CLI::App&) {
  std::cout << usage();
  return 0;
}

Command add_gui(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("gui", "the desktop app (also `warpscope` alone, or `warpscope FILE.wstrace`)");
#ifdef WS_HAVE_GUI
  auto args = std::make_shared<GuiArgs>();
  add_gui_options(*cmd, *args);
  return {cmd, [args] { return app::run(gui_options(*args)); }};
#else
  cmd->allow_extras();
  return {cmd, [] {
            std::cout << usage();
            return 0;
          }};
#endif
}

}  // namespace ws::cli
