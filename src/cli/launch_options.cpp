#include "cli/launch_options.h"

#include <algorithm>

namespace ws::cli {

using session::apply_setting;
using session::dram_presets_text;
using session::parse_compact;
using session::InputError;
using session::LaunchSpec;
using session::parse_whole;

void add_launch_options(CLI::App& cmd, LaunchFlags& a, unsigned which) {
  a.which = which;
  a.command = cmd.get_name();
  cmd.add_option(which & kManyKernels ? "-k,--kernel" : "--kernel", a.kernels,
                 which & kManyKernels ? "kernel ids, repeatable or comma-separated (default: the whole catalog)"
                                      : "kernel id (see `warpscope list`)")
      ->type_name("ID")
      ->expected(1)
      ->multi_option_policy(which & kManyKernels ? CLI::MultiOptionPolicy::TakeAll : CLI::MultiOptionPolicy::TakeLast);
  a.size_opt = cmd.add_option("--size", a.size, "problem size: N×N matrices, N elements for copies")->type_name("N");
  cmd.add_option("--set", a.set,
                 which & kWithDram ? "a kernel parameter, or the DRAM model with dram=" + dram_presets_text("|") +
                                         "; repeatable"
                                   : std::string("a kernel parameter (see `warpscope list`); repeatable"))
      ->type_name("NAME=VALUE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  if (which & kWithBlocks)
    a.blocks_opt = cmd.add_option("--blocks", a.blocks, "blocks to record, e.g. 0,1,5-7, or all")->type_name("LIST");
  if (which & kWithBackend)
    cmd.add_option("--backend", a.backend, "where the kernel runs: auto|gpu|emulator (default auto)")
        ->type_name("BACKEND");
  if (which & kWithProgram) {
    cmd.add_option("--program", a.program.source, "your own CUDA program instead of a catalog kernel: compiled by nvcc, "
                                           "run on the emulated device, every launch recorded")
        ->type_name("FILE.cu")
        ->excludes("--kernel");
    add_program_flags(cmd, a);
  }
}

void add_program_flags(CLI::App& cmd, LaunchFlags& a) {
  cmd.add_option("--nvcc", a.program.nvcc_flags, "a flag for nvcc (-I..., -D..., -std=...); repeatable")
      ->type_name("FLAG")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--arg", a.program.args, "an argument for the program; repeatable")
      ->type_name("ARG")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_flag("--literal", a.program.literal, "compile with -G: every access the source writes, unoptimised");
  cmd.add_flag("--show-local", a.program.show_local, "with --literal: also record the threads' local frames (-G's stack)");
  cmd.add_option("--record-launches", a.program.record_launches,
                 "each kernel's first N launches are recorded, later ones only run and are timed (on the emulated "
                 "device on all cores; on the GPU unpatched, at full speed) (default 3; 0: all)")
      ->type_name("N");
  cmd.add_option("--engine", a.program.engine,
                 "on the emulated device: compiled (default: each module compiled to native code once and cached) or "
                 "interpreter; both give the same results and traces")
      ->type_name("ENGINE")
      ->check(CLI::IsMember({"compiled", "interpreter"}));
  cmd.add_option("--spaces", a.program.spaces,
                 "on the GPU: the memory instructions traced, all (default), global or shared; the others run unseen and "
                 "cost nothing (a kernel's shared loads can outnumber its global ones twenty to one)")
      ->type_name("SPACES");
  cmd.add_option("--timeout", a.program.timeout_seconds, "seconds before the program is stopped (default 120)")->type_name("S");
  cmd.add_option("--memory-limit", a.program.memory_limit_mib,
                 "on the emulated device: the program's address space in MiB (default: 3/4 of this machine's memory)")
      ->type_name("MIB")
      ->check(CLI::Range(uint64_t(64), uint64_t(1) << 30));
  cmd.add_flag("--core-dump", a.program.core_dump, "let a crashing program write a core file (default: none)");
  cmd.add_option("--flops", a.program.flops,
                 "on the GPU: each launch's flops, for GFLOP/s and % of cuBLAS (\"2*N*N*N\": numbers, + - * / ( ) and the "
                 "kernel's scalar parameters by name; or a `// warpscope: flops = ...` comment above the kernel)")
      ->type_name("EXPR");
  cmd.add_option("--bytes", a.program.bytes, "on the GPU: each launch's bytes read + written, for GB/s and % of a device copy")
      ->type_name("EXPR");
  cmd.add_flag("--no-time", a.no_time, "on the GPU: trace only, without the second run that times each launch plainly");
}

std::vector<std::string> kernels_of(const LaunchFlags& a) {
  std::vector<std::string> out;
  for (const auto& item : a.kernels) {
    size_t pos = 0;
    while (pos <= item.size()) {
      size_t comma = item.find(',', pos);
      std::string id = item.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      if (!id.empty() && std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  return out;
}

LaunchSpec spec_of(const LaunchFlags& a) {
  LaunchSpec spec;
  auto ids = kernels_of(a);
  if (!ids.empty()) spec.kernel = ids.front();
  if (a.size_opt && a.size_opt->count()) {
    int64_t n = 0;
    if (!parse_whole(a.size, n)) throw InputError("bad size '" + a.size + "': expected a whole number");
    spec.size = n;
  }
  for (const auto& s : a.set) {
    if (!(a.which & kWithDram) && s.rfind("dram=", 0) == 0)
      throw InputError("--set dram=... picks the DRAM model of an analysis; `" + a.command +
                       "` has none (use it with report, or report --trace)");
    apply_setting(spec, s);
  }
  if (a.blocks_opt && a.blocks_opt->count()) {
    if (a.blocks.empty()) throw InputError("empty block list: expected block ids and ranges such as 0,1,5-7");
    spec.blocks = a.blocks;
  }
  spec.backend = a.backend;
  spec.program = a.program;
  spec.program.time = !a.no_time;
  return spec;
}

}  // namespace ws::cli
