// warpscope: the command line. Every failure ends as one line on stderr.
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <new>

#include "cli/cli.h"
#include "trace/wstrace.h"

namespace {

int fail(int code, std::string msg) {
  for (char& c : msg)
    if (c == '\n' || c == '\r') c = ' ';
  std::cout.flush();
  std::cerr << "warpscope: error: " << msg << std::endl;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ws::cli;
  CLI::App app{"warpscope: see how GPU kernels touch memory", "warpscope"};
  app.set_version_flag("--version", ws::session::version_line());
  app.require_subcommand(0, 1);
  const std::vector<Command> commands = {add_list(app), add_report(app), add_record(app), add_lesson(app),
                                         add_export(app), add_bench(app), add_run(app), add_sass(app),
                                         add_plain_launch(app), add_gui(app)};
  try {
    // The desktop app: no arguments, a trace file, or `gui` and the app's options.
    auto ends_with = [](const std::string& s, const std::string& e) {
      return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
    };
    // With no display and nothing to open, the usage is more use than a window error.
    const bool display = std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
    if (argc == 1 && !display) {
      std::cerr << "warpscope: no display for the desktop app; the commands below work without one\n";
      return no_command(app);
    }
    // The app opens on `warpscope` alone and on `warpscope FILE.wstrace`: both are `gui`.
    std::vector<std::string> args(argv + 1, argv + argc);
    // So do the app's own options given alone (`warpscope --lesson transpose`).
    const bool app_option = !args.empty() && args[0].rfind("--", 0) == 0 && args[0] != "--help" &&
                            args[0] != "--help-all" && args[0] != "--version";
    if (args.empty() || ends_with(args[0], ".wstrace") || app_option) args.insert(args.begin(), "gui");
    // `warpscope prog.cu`: the app on the user's own program.
    if (ends_with(args[0], ".cu")) args.insert(args.begin(), {"gui", "--program"});
    // `warpscope deck.wsdeck` (a double-click): the app opens it and asks before a slide
    // builds a program, as Slides → Open deck… does.
    if (ends_with(args[0], ".wsdeck")) {
      args.insert(args.begin(), {"gui", "--deck"});
      args.insert(args.begin() + 3, "--ask");
    }
    if (args[0][0] != '-') {
      std::string names;
      bool known = false;
      for (const Command& c : commands) {
        known |= c.app->get_name() == args[0];
        names += (names.empty() ? "" : ", ") + c.app->get_name();
      }
      if (!known) return fail(kExitBadInput, "unknown command '" + args[0] + "': allowed " + names);
    }
    if (args[0] == "run")
      for (const Command& c : commands)
        if (c.app->get_name() == "run") {
          std::vector<std::string> words = run_words(*c.app, {args.begin() + 1, args.end()});
          words.insert(words.begin(), "run");
          args = std::move(words);
        }
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    app.parse(args);
    for (const Command& c : commands)
      if (c.app->parsed()) return c.run();
    return no_command(app);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << ws::session::version_line() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const ExitError& e) {
    return fail(e.code, e.what());
  } catch (const UsageError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const ws::session::InputError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const ws::trace::FileError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const std::bad_alloc&) {
    return fail(kExitFailure, "out of memory");
  } catch (const std::exception& e) {
    return fail(kExitFailure, e.what());
  } catch (...) {
    return fail(kExitFailure, "unexpected failure");
  }
}
