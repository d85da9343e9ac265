// warpscope-app: the desktop app on its own, with the options ws::app::run takes.
#include <cstdio>

#include "app/app.h"

int main(int argc, char** argv) {
  ws::app::Options opt;
  std::string error;
  bool help = false;
  if (!ws::app::parse_options(argc, argv, opt, error, help)) {
    std::fprintf(stderr, "warpscope-app: %s\n", error.c_str());
    return 2;
  }
  if (help) {
    std::fputs(ws::app::options_help(), stdout);
    return 0;
  }
  return ws::app::run(opt);
}
