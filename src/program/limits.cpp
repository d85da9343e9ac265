#include "program/limits.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

namespace ws::program {

void apply_limits(const Limits& l) {
  auto set = [](int what, uint64_t v) {
    rlimit r{};
    if (::getrlimit(what, &r) != 0) return;
    rlim_t want = rlim_t(v);
    if (r.rlim_max != RLIM_INFINITY && want > r.rlim_max) want = r.rlim_max;
    r.rlim_cur = want;
    // The hard CPU limit a little above the soft one: SIGXCPU first (said in one line),
    // then SIGKILL if the program ignores it.
    if (what == RLIMIT_CPU && (r.rlim_max == RLIM_INFINITY || want + 5 <= r.rlim_max)) r.rlim_max = want + 5;
    ::setrlimit(what, &r);
  };
  if (!l.core) set(RLIMIT_CORE, 0);
  if (l.address_bytes) set(RLIMIT_AS, l.address_bytes);
  if (l.cpu_seconds) set(RLIMIT_CPU, l.cpu_seconds);
  if (l.open_files) set(RLIMIT_NOFILE, l.open_files);
}

uint64_t memory_limit_bytes(uint64_t limit_mib) {
  if (limit_mib) return limit_mib << 20;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  const uint64_t phys = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : (uint64_t(8) << 30);
  return std::max<uint64_t>(phys / 4 * 3, uint64_t(2) << 30);
}

}  // namespace ws::program
