// src/sass/unseen.cpp — the copies a GPU trace cannot hold: the tensor memory accelerator's
// and the bulk copy engine's (UTMALDG, UTMASTG, UTMAREDG, UTMAPF, UBLKCP, UBLKRED, UBLKPF)
// move their bytes with no instruction the Compute Sanitizer's patches see, so a launch of
// a kernel that issues them is traced without that traffic. Said once per kernel, with the
// lines that issue them, never left for the views to show as if the copies never ran.
#include <set>

#include "sass/import.h"

namespace ws::sass {

std::string unseen_copies(const RawCapture& raw, const std::map<uint64_t, Disassembly>& disassembly) {
  std::string out;
  std::set<std::pair<uint64_t, std::string>> said;
  for (const RawLaunch& l : raw.launches) {
    if (!said.insert({l.head.module, l.name}).second) continue;
    const auto d = disassembly.find(l.head.module);
    if (d == disassembly.end()) continue;
    const auto f = d->second.find(l.name);
    if (f == d->second.end()) continue;
    std::map<std::string, std::set<uint32_t>> found;  // opcode (its first word) -> lines
    for (const auto& [offset, in] : f->second) {
      const std::string op = in.opcode.substr(0, in.opcode.find('.'));
      if (op.rfind("UTMA", 0) != 0 && op.rfind("UBLK", 0) != 0) continue;
      if (op == "UTMACMDFLUSH" || op == "UTMACCTL") continue;  // no bytes of their own
      found[op].insert(in.line);
    }
    if (found.empty()) continue;
    std::string what;
    for (const auto& [op, lines] : found) {
      what += (what.empty() ? "" : ", ") + op;
      std::string at;
      for (uint32_t line : lines)
        if (line) at += (at.empty() ? " at line " : ", ") + std::to_string(line);
      what += at;
    }
    out += (out.empty() ? "" : "; ") + plain_name(l.name) + " issues " + what;
  }
  if (!out.empty())
    out += ": the GPU tracer cannot see the tensor memory accelerator's and the bulk copy engine's copies, so their "
           "bytes are missing from this trace (run it with --backend emulator to see them)";
  return out;
}

}  // namespace ws::sass
