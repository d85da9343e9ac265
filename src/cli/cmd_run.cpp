// `warpscope run prog.cu [NVCC FLAGS] [-- PROGRAM ARGS]`: compiles the user's own CUDA
// program with nvcc, runs it whole (--backend auto: on this machine's GPU under the GPU
// tracer where there is one, else on the emulated device), and prints a report for each
// launch it made (or for --launch K / --kernel NAME). --out also saves every launch as
// one .wstrace for the app.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "analysis/levels.h"
#include "cli/cli.h"
#include "program/program.h"
#include "session/session.h"
#include "session/worker.h"
#include "trace/wstrace.h"

namespace ws::cli {
namespace {

struct RunOptions {
  cli::LaunchFlags launch;         // the program and its flags (--nvcc, --arg, --literal, --timeout)
  std::string format = "text";
  std::string kernel;
  std::string out;
  std::vector<std::string> set;
  int64_t launch_number = 0;
  int64_t step = 0;
  uint64_t max_records = 2'000'000;
  bool levels = false;            // the source, the PTX and the SASS, line by line
  std::string sass;               // the SASS side from this .wstrace (recorded with --backend gpu)
  CLI::App* cmd = nullptr;
};

// The emulated device's shared-memory races, a line each (the exit status stays the
// program's own: a racy program may still pass its check, on this run).
void print_races(const program::Races& r) {
  for (const std::string& line : program::race_lines(r)) std::cerr << "warpscope: " << line << "\n";
}

// A program error as the exit status its kind has.
[[noreturn]] void rethrow(const program::Error& e) {
  std::cerr << e.output;  // what a stopped program printed, where it was kept rather than echoed
  if (e.kind == "compile") throw ExitError(kExitCompile, e.what());
  if (e.kind == "timeout") throw ExitError(kExitTimeout, e.what());
  if (e.kind == "load") throw ExitError(kExitFault, e.what());
  if (e.kind == "input") throw ExitError(kExitBadInput, e.what());
  throw;
}

int run(const RunOptions& o) {
  const Format f = parse_format(o.format);
  session::LaunchSpec spec = cli::spec_of(o.launch);
  spec.max_records = o.max_records;
  // The three levels compare whole blocks: on a GPU the record cap stops many blocks part
  // way (they run at once), so --levels records the first four unless told otherwise.
  if (o.levels && spec.blocks.empty()) spec.blocks = "0-3";
  spec.program.echo = f == Format::Text;  // JSON keeps stdout for itself
  spec.dram = dram_from_sets(o.set).preset;
  const session::ResolvedLaunch launch = session::resolve(spec);
  std::shared_ptr<const session::Session> first;
  try {
    first = session::record_session(launch, spec);
  } catch (const program::Error& e) {
    rethrow(e);
  }
  const program::Ending ending = program::last_ending();
  if (!ending.kind.empty())
    std::cerr << "warpscope: "
              << (ending.kind == "fault"     ? "a kernel faulted: "
                  : ending.kind == "timeout" ? "the program ran past its time limit, "
                                             : "a kernel was stopped: ")
              << ending.message << "\n";
  print_races(first->races());
  if (!o.out.empty()) {
    trace::write_trace(first->whole_trace(), o.out);
    std::cerr << "warpscope: wrote " << first->whole_trace().launches.size() << " launches to " << o.out << "\n";
  }
  std::vector<std::shared_ptr<const session::Session>> shown = launches_of(first, o.launch_number, launch.dram);
  if (!o.kernel.empty()) {
    std::vector<std::shared_ptr<const session::Session>> kept;
    std::string names;
    for (const auto& s : shown) {
      const std::string& k = s->trace().launch().kernel;
      if (k == o.kernel || k.rfind(o.kernel + "<", 0) == 0) kept.push_back(s);
      if (names.find(k) == std::string::npos) names += (names.empty() ? "" : ", ") + k;
    }
    if (kept.empty()) throw UsageError("--kernel " + o.kernel + ": the program launched " + names);
    shown = std::move(kept);
  }
  if (f == Format::Text) std::cout << "\n";
  print_reports(shown, f, o.step);
  if (o.levels) {
    // The PTX side is the emulated device's; the SASS side a GPU's.
    std::shared_ptr<const session::Session> ptx = first, gpu;
    std::string sass_from;
    if (first->whole_trace().provenance.backend == "gpu") {
      gpu = first;
      sass_from = "this run";
      session::LaunchSpec e = spec;
      e.backend = "emulator";
      e.program.echo = false;
      e.program.spaces.clear();  // the tracer's choice: the emulated device records every space
      ptx = session::record_session(session::resolve(e), e);
    } else if (!o.sass.empty()) {
      print_levels(ptx->whole_trace(), trace::read_trace(o.sass), o.sass);
      return program_exit_status();
    } else if (first->hardware()) {
      // The replay pack's SASS trace of a program of that name, as the session found it.
      print_levels(ptx->whole_trace(), *first->hardware(), "the replay pack");
      return program_exit_status();
    } else {
      const std::string stem = std::filesystem::path(spec.program.source).stem().string();
      throw UsageError("--levels: no SASS trace of " + stem +
                       ": run it on a GPU (--backend gpu --out FILE), then --levels --sass FILE");
    }
    print_levels(ptx->whole_trace(), gpu->whole_trace(), sass_from);
  }
  return program_exit_status();
}

}  // namespace

int program_exit_status() {
  const program::Ending e = program::last_ending();
  if (e.kind == "fault") return kExitFault;
  if (e.kind == "stopped") return kExitEndlessLoop;
  if (e.kind == "timeout") return kExitTimeout;
  return e.exit_code;
}

std::vector<std::string> run_words(const CLI::App& run, const std::vector<std::string>& words) {
  std::vector<std::string> out;
  bool program = false;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--") {
      for (size_t k = i + 1; k < words.size(); ++k) out.push_back("--arg=" + words[k]);
      break;
    }
    const std::string name = w.substr(0, w.find('='));
    const CLI::Option* own = w.rfind("--", 0) == 0 ? run.get_option_no_throw(name) : nullptr;
    if (own || w == "-h" || w == "--help") {
      out.push_back(w);
      // An option's value is the next word; a flag (which CLI11 gives a type size too) has none.
      if (own && name == w && own->get_expected_min() > 0 && i + 1 < words.size()) out.push_back(words[++i]);
      continue;
    }
    if (w.size() > 1 && w[0] == '-') {
      out.push_back("--nvcc=" + w);
      if (program::nvcc_takes_value(w) && i + 1 < words.size()) out.push_back("--nvcc=" + words[++i]);
      continue;
    }
    const std::string ext = std::filesystem::path(w).extension().string();
    if (!program && ext == ".cu") {
      out.push_back(w);
      program = true;
    } else if (std::filesystem::exists(w) ||
               (ext == ".cu" || ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c" || ext == ".o" || ext == ".a")) {
      out.push_back("--nvcc=" + w);  // a source: split_sources says when it is missing
    } else {
      out.push_back("--arg=" + w);  // a plain word before --: the program's, as it always was
    }
  }
  return out;
}

Command add_run(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "compile your own CUDA program with nvcc, run it on the emulated device (or this machine's GPU), report every launch");
  o->cmd = cmd;
  cmd->add_option("program", o->launch.program.source,
                  "the program's first .cu file (its other .cu, .cpp, .c, .o and .a files may follow it)")
      ->required()
      ->type_name("PROG.cu");
  cli::add_program_flags(*cmd, o->launch);
  cmd->add_option("--launch", o->launch_number, "only launch K (from 1)")->type_name("K")->check(CLI::PositiveNumber);
  cmd->add_option("--kernel", o->kernel, "only the launches of this kernel (\"transposeTiled\")")->type_name("NAME");
  cmd->add_option("--format", o->format, "text|json (default text)")->type_name("FORMAT");
  cmd->add_option("--out", o->out, "also save every launch as a .wstrace file")->type_name("FILE");
  cmd->add_option("--set", o->set, "dram=PRESET")->type_name("dram=PRESET");
  cmd->add_option("--step", o->step, "also show request K (from 1) of the one launch shown")
      ->type_name("K")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-records", o->max_records, "records kept (the rest are counted)")->type_name("N");
  cmd->add_option("--backend", o->launch.backend,
                  "auto (this machine's GPU, traced at the SASS level, where there is one and the GPU tracer was "
                  "built; else the emulated device), gpu or emulator")
      ->type_name("BACKEND");
  cmd->add_flag("--levels", o->levels,
               "also each line as the source wrote it, as the PTX asked for it (emulated device) and as the GPU ran it "
               "(SASS: this machine's GPU, --sass FILE, or the replay pack)");
  cmd->add_option("--sass", o->sass, "with --levels: the SASS side from this trace (warpscope run --backend gpu --out FILE)")
      ->type_name("FILE.wstrace");
  o->launch.blocks_opt = cmd->add_option("--blocks", o->launch.blocks, "with the GPU: the blocks to record, one range (0-3; default all)")
      ->type_name("LO-HI");
  cmd->footer(
      "Before --, words warpscope does not know are nvcc's, as nvcc takes them: sources (.cu; .cpp/.c/.o/.a for the\n"
      "host), -I dir, -Idir, -D X=1, -std=c++17, -use_fast_math, -Xcompiler X, -lcublas, -L dir; -arch and -gencode\n"
      "name the target whose PTX the emulated device runs (sm_90a for wgmma; sm_90 when none is given; a GPU builds\n"
      "for itself, sm_90a kept on a 9.0 GPU); -o, -c and -ptx are refused. After --,\n"
      "every word is the program's own argument, whatever it starts with.\n"
      "Exit status: the program's own; 3 it did not compile, 4 a kernel faulted (an access out of bounds, a failed\n"
      "assert) or its module did not load, 5 a kernel was stopped as an endless loop, 124 the program ran past\n"
      "--timeout and was stopped (what it printed is kept), 2 bad input, 1 another failure. A shared-memory race\n"
      "(two warps of a block on one word between two barriers, one writing) is reported on its own line; it leaves\n"
      "the exit status as it is.\n"
      "Example: warpscope run histogram64.cu histogram256.cu main.cpp -I Common -- -n=64");
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ws::cli
