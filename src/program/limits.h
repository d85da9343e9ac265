// src/program/limits.h — what a child process warpscope starts may use (setrlimit, applied
// between fork and exec): no core file for any of them unless asked, and for the user's
// program an address space, CPU time and open files, so that a runaway program cannot take
// the machine.
#pragma once
#include <cstdint>

namespace ws::program {

struct Limits {
  uint64_t address_bytes = 0;  // RLIMIT_AS (0: as inherited)
  uint64_t cpu_seconds = 0;    // RLIMIT_CPU (0: as inherited)
  uint64_t open_files = 0;     // RLIMIT_NOFILE (0: as inherited)
  bool core = false;           // true: RLIMIT_CORE as inherited; false: no core file
};

// Applies `l` to this process. Async-signal-safe (only getrlimit/setrlimit): the child of a
// threaded parent calls it between fork and exec. A limit above the inherited hard limit
// stays at that limit.
void apply_limits(const Limits& l);

// The address-space limit of a program on the emulated device, in bytes: `limit_mib` MiB,
// or (0) three quarters of this machine's memory, at least 2 GiB.
uint64_t memory_limit_bytes(uint64_t limit_mib);

}  // namespace ws::program
