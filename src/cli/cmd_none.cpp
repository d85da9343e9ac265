// `warpscope` with no command. For now it prints the usage; the desktop app takes this
// over when the build has one.
#include <iostream>

#include "cli/cli.h"

namespace ws::cli {

std::string usage() {
  return "warpscope " + std::string(capture::version()) +
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
         "`warpscope list` shows the kernels and their parameters; `warpscope COMMAND --help`\n"
         "describes a command.\n";
}

int no_command(const CLI::App&) {
  std::cout << usage();
  return 0;
}

}  // namespace ws::cli
