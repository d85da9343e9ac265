// warpscope-app: the desktop app on its own, with the options of `warpscope gui`.
#include <cstdio>

#include "app/app.h"

int main(int argc, char** argv) {
  ws::app::Options opt;
  CLI::App cmd{"warpscope-app: the desktop app", "warpscope-app"};
  ws::app::add_options(cmd, opt);
  try {
    cmd.parse(argc, argv);
    ws::app::check_options(opt);
  } catch (const CLI::ParseError& e) {
    return cmd.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpscope: error: %s\n", e.what());
    return 2;
  }
  return ws::app::run(opt);
}
