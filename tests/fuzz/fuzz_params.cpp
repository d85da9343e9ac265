// The command line's kernel, size and --set NAME=VALUE words, resolved against the
// catalog as every front end resolves them: "matmul_tiled 64 tile=16 ...".
#include <sstream>
#include <map>

#include "catalog.h"
#include "fuzz.h"

WS_FUZZ_TARGET(text) {
  std::istringstream in(text);
  std::string id, size_word;
  in >> id >> size_word;
  const ws::catalog::KernelInfo* k = ws::catalog::find(id);
  if (!k) return;
  int64_t size = 0;
  try {
    size = std::stoll(size_word);
  } catch (const std::exception&) {
    return;  // the CLI's own parser refuses a size that is not a number
  }
  std::map<std::string, int64_t> set;
  for (std::string w; in >> w;) {
    const size_t eq = w.find('=');
    if (eq == std::string::npos) continue;
    try {
      set[w.substr(0, eq)] = std::stoll(w.substr(eq + 1));
    } catch (const std::exception&) {
    }
  }
  ws::catalog::Params p;
  if (!ws::catalog::resolve(*k, size, set, p).empty()) return;
  // What a resolved launch is given: its arrays' shapes (no launch: sizes may be huge).
  if (k->buffers) (void)k->buffers(p);
  if (k->flops) (void)k->flops(p);
}
