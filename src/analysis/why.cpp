// src/analysis/why.cpp — one plain-language line per site or request, built from the lane
// pattern (constant stride, broadcast, runs), the measured cost and, for an atomic, what
// the compiled code makes of lanes that share an address.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "analysis/detail.h"

namespace ws::analysis::detail {
namespace {

using trace::Op;

std::string n2s(uint64_t v) { return std::to_string(v); }

std::string plural(const std::string& count, const char* word) {
  return count + " " + word + (count == "1" ? "" : "s");
}

// "4-byte word", "16-byte float4", ...
std::string unit(uint32_t bytes) {
  switch (bytes) {
    case 1: return "byte";
    case 2: return "2-byte value";
    case 4: return "4-byte word";
    case 8: return "8-byte word";
    case 16: return "16-byte float4";
  }
  return n2s(bytes) + "-byte value";
}

struct Verb {
  const char* one;   // "reads"
  const char* many;  // "read"
};
Verb verb(Op op) {
  switch (op) {
    case Op::Load: return {"reads", "read"};
    case Op::Store: return {"writes", "write"};
    case Op::Atomic: return {"updates", "update"};
  }
  return {"accesses", "access"};
}

std::string ordinal(uint64_t n) {
  const char* suf = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                    : n % 10 == 1                    ? "st"
                    : n % 10 == 2                    ? "nd"
                    : n % 10 == 3                    ? "rd"
                                                     : "th";
  return n2s(n) + suf;
}

// The part of the line before the arrow that any pattern shares.
std::string head(const Pattern& p, Op op, uint32_t bytes, const std::string& u) {
  Verb v = verb(op);
  switch (p.shape) {
    case Shape::None: return "no lane is active";
    case Shape::Same:
      return p.active == 1 ? "only one lane is active" : std::string("every lane ") + v.one + " the same " + u;
    case Shape::Stride: {
      uint64_t a = uint64_t(std::llabs(p.stride));
      if (a == bytes)
        return std::string("consecutive lanes ") + v.many + " consecutive " + u + "s" +
               (p.stride < 0 ? " in reverse order" : "");
      if (a > bytes) {
        std::string s = "lanes are " + n2s(a) + " B apart";
        if (a % bytes == 0 && a / bytes <= 8) s += " (every " + ordinal(a / bytes) + " " + u + ")";
        if (p.stride < 0) s += ", descending";
        return s;
      }
      return "lanes overlap (" + n2s(a) + " B apart, " + n2s(bytes) + " B each)";
    }
    case Shape::Runs:
      return std::string("the warp ") + v.one + " " + n2s(p.runs) + " runs of " + n2s(p.run_len) +
             " consecutive " + u + "s";
    case Shape::Groups: {
      uint64_t a = uint64_t(std::llabs(p.stride));
      bool words = u == "word" && a % 4 == 0;
      std::string dist = words ? n2s(a / 4) + " words" : n2s(a) + " B";
      std::string s = n2s(p.runs) + " groups of " + n2s(p.run_len) + " lanes, " + dist + " apart within a group";
      if (p.gap_known && p.gap == 0) s += std::string(", every group on the same ") + (words ? "words" : "addresses");
      else if (p.gap_known) {
        uint64_t g = uint64_t(std::llabs(p.gap));
        s += ", groups " + (words && g % 4 == 0 ? plural(n2s(g / 4), "word") : n2s(g) + " B") + " apart";
      }
      return s;
    }
    case Shape::Few:
      return "the " + n2s(p.active) + " lanes " + v.many + " only " + n2s(p.runs) + " distinct " + u + "s";
    case Shape::Scattered: return std::string("lanes ") + v.many + " scattered addresses";
  }
  return {};
}

// The line of an atomic whose cost its compiled form decides (ptxas combined the warp's
// updates, ATOMS.POPC.INC counted them, or lanes on one address took turns); "" when the
// line of any access says it (no two lanes share an address, and nothing was combined).
std::string why_atomic(const trace::Site& site, const Pattern& p, const std::string& h, const std::string& cost,
                       const std::string& ideal) {
  if (site.op != Op::Atomic || p.shape == Shape::None) return {};
  if (site.atomic == trace::AtomicPath::Combined)
    return h + ", at an address the same in every lane by construction → ptxas combines the warp's updates into one: " +
           cost + " per request";
  if (p.most_on_one <= 1) return {};
  if (!serialized_atomic(site))
    return h + " → an add of 1: ATOMS.POPC.INC counts the lanes on each word, " + cost + " per request";
  const std::string turn = site.space == trace::Space::Shared ? " → lanes on one word take turns: "
                                                              : " → lanes on one address take turns: ";
  return h + turn + cost + " per request" + ideal;
}

}  // namespace

std::string num(double v) { return figure_text(v); }

}  // namespace ws::analysis::detail

namespace ws::analysis {

std::string figure_text(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9) return std::to_string(std::llround(v));
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  std::string s = b;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace ws::analysis

namespace ws::analysis::detail {

std::string why_global(const trace::Trace&, const trace::Site& site, const Pattern& p,
                       const GlobalNumbers& g) {
  uint32_t bytes = lane_bytes(site.bytes);
  std::string h = head(p, site.op, bytes, unit(bytes));
  if (p.shape == Shape::None) return h;
  const std::string sectors = plural(num(g.sectors), "sector");
  if (auto a = why_atomic(site, p, h, sectors, "; ideal " + num(g.ideal)); !a.empty()) return a;
  if (p.shape == Shape::Stride && uint64_t(std::llabs(p.stride)) == bytes && p.first % 32 &&
      g.sectors > g.ideal + 1e-9)
    h += ", starting " + n2s(p.first % 32) + " B into a sector";
  std::string s = num(g.sectors);
  if (p.shape == Shape::Same && p.active > 1 && site.op == Op::Load)
    return h + " → broadcast: " + plural(s, "sector") + " per request";
  if (g.efficiency >= 0.9995) return h + " → " + plural(s, "sector") + ", fully used";
  if (g.sectors <= g.ideal + 1e-9) return h + " → " + plural(s, "sector") + " per request, the fewest possible";
  return h + " → " + plural(s, "sector") + " per request; ideal " + num(g.ideal);
}

std::string why_shared(const trace::Trace& t, const trace::Site& site, const Pattern& p,
                       const SharedNumbers& n, bool single_request) {
  uint32_t bytes = std::min(lane_bytes(site.bytes), 16u);
  uint32_t phases = shared_phases(bytes);
  std::string u = bytes == 4 ? "word" : unit(bytes);
  std::string h = head(p, site.op, bytes, u);
  if (p.shape == Shape::None) return h;
  std::string way = n2s(n.max_way) + "-way conflict";
  std::string wf = plural(num(n.wavefronts), "wavefront");
  const std::string counted = n.conflicts > 0 ? ", " + num(n.conflicts) + " counted as bank conflicts" : "";
  if (auto a = why_atomic(site, p, h, wf, counted); !a.empty()) return a;

  if (p.shape == Shape::Same && p.active > 1)
    return h + (site.op == Op::Load ? " → broadcast, " : " → ") + wf +
           (n.max_way > 1 ? ", " + way : "");

  if (phases > 1) {
    h += " in " + n2s(phases) + " phases of " + n2s(32 / phases) + " lanes";
    if (n.max_way <= 1) return h + " → " + wf + ", no conflict";
    return h + " → " + way + ": " + wf + " per request; ideal " + num(n.ideal);
  }

  // One phase of 32 lanes (1-, 2- and 4-byte accesses).
  const bool stride = p.shape == Shape::Stride;
  const uint64_t a = stride ? uint64_t(std::llabs(p.stride)) : 0;
  const uint64_t words_apart = (stride && a % 4 == 0) ? a / 4 : 0;
  const trace::Buffer* buf = site.buffer < t.buffers.size() ? &t.buffers[site.buffer] : nullptr;
  if (n.max_way <= 1) {
    if (stride && a == bytes) return h + " → 1 wavefront, no conflict";
    if (words_apart > 1) {
      bool padded = buf && buf->rows > 1 && buf->row_pitch() * buf->elem_bytes == a && words_apart % 32;
      std::string lead = padded ? "row padded to " + n2s(words_apart) + " words"
                                : "lanes are " + n2s(words_apart) + " words apart";
      return lead + ": " + n2s(p.active) + " lanes spread over " + n2s(n.banks_used) + " banks → no conflict";
    }
    return h + " → no conflict";
  }
  if (n.banks_used == 1 && n.max_way == p.active) {
    std::string bank = single_request && n.bank >= 0 ? "bank " + n2s(uint64_t(n.bank)) : "the same bank";
    return "all " + n2s(p.active) + " lanes hit " + bank + " in different words → " + way;
  }
  if (words_apart > 1)
    return "lanes are " + n2s(words_apart) + " words apart: " + n2s(n.banks_used) + " banks used, " +
           n2s(n.max_way) + " words each → " + way;
  if (n.banks_used) return h + ": " + plural(n2s(n.banks_used), "bank") + " used → " + way;
  return h + " → " + way;
}

}  // namespace ws::analysis::detail
