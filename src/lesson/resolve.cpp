// src/lesson/resolve.cpp — a step against its trace: the focused request, the answer
// computed through the analysis, checking a student's answer, and the headless runner.
#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "analysis/analysis.h"
#include "analysis/cluster.h"
#include "lesson/lesson.h"

namespace ws::lesson {

const std::vector<MetricInfo>& metrics() {
  static const std::vector<MetricInfo> list = {
      {Metric::Sectors, "sectors", "32-byte sectors the focused request touches (global)", {}, 0},
      {Metric::Lines, "lines", "128-byte lines the focused request touches (global)", {}, 0},
      {Metric::IdealSectors, "ideal_sectors", "fewest sectors that could hold the request's bytes (global)", {}, 0},
      {Metric::Efficiency, "efficiency", "bytes requested / bytes moved by the request, in % (global)", {}, 1},
      {Metric::Wavefronts, "wavefronts", "wavefronts of the focused request (shared)", {}, 0},
      {Metric::Way, "way", "n-way bank conflict of the focused request, 1 = conflict free (shared)", {}, 0},
      {Metric::Conflicts, "conflicts", "bank conflicts of the focused request: wavefronts - ideal (shared)", {}, 0},
      {Metric::Requests, "requests", "requests the focused warp issues at the focused site", {}, 0},
      {Metric::SiteSectors, "site_sectors", "sectors per request over the whole site (global)", {}, 0.05},
      {Metric::SiteEfficiency, "site_efficiency", "efficiency in % over the whole site (global)", {}, 1},
      {Metric::SiteWavefronts, "site_wavefronts", "wavefronts per request over the whole site (shared)", {}, 0.05},
      {Metric::SiteConflicts, "site_conflicts", "bank conflicts per request over the whole site (shared)", {}, 0.05},
      {Metric::SiteWay, "site_way", "worst n-way conflict at the site (shared)", {}, 0},
      {Metric::CopyBytes, "copy_bytes", "bytes the focused bulk (TMA) copy instruction moves, every record of its issue", {}, 0},
      {Metric::StagesFit, "stages_fit", "copies of the focused bulk copy's size that fit in 227 KiB of shared memory", {}, 0},
      {Metric::MulticastBytes, "multicast_bytes",
       "bytes the focused bulk copy landed in the cluster's other CTAs (a multicast), which did not ask for them", {}, 0},
      {Metric::RegistersGiven, "registers_given",
       "registers the focused warp's warpgroup gives back with setmaxnreg.dec: (registers a thread at launch - its "
       "new count) x 128 threads", {}, 0},
      {Metric::Coalescing, "coalescing", "choice: coalesced (sectors = ideal), uncoalesced, or n/a for shared memory",
       {"coalesced", "uncoalesced", "n/a"}, 0},
      {Metric::BankConflict, "bank_conflict", "choice: conflict-free (1-way), bank conflict, or n/a for global memory",
       {"conflict-free", "bank conflict", "n/a"}, 0},
  };
  return list;
}

const MetricInfo& info(Metric m) {
  for (const auto& i : metrics())
    if (i.metric == m) return i;
  return metrics().front();
}

namespace {

using trace::Space;

// The shared memory one block may have on an H100 or H200 (227 KiB): what stages_fit divides.
constexpr uint64_t kSharedPerBlock = 227 * 1024;

// "4", "4.5", "12.25", as the analysis writes its figures.
std::string num(double v) { return analysis::figure_text(v); }

std::string counted(double v, const char* one, const char* many) {
  return num(v) + " " + (std::fabs(v - 1) < 1e-9 ? one : many);
}

std::string remove_blanks(const std::string& s) {
  std::string o;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) o += c;
  return o;
}

std::string lower_trim(const std::string& s) {
  std::string o;
  bool space = false;
  for (unsigned char c : s) {
    if (std::isspace(c)) {
      space = !o.empty();
      continue;
    }
    if (space) o += ' ';
    space = false;
    o += char(std::tolower(c));
  }
  while (!o.empty() && (o.back() == '.' || o.back() == '!')) o.pop_back();
  return o;
}

// Everything known about the focused request and its site.
struct Facts {
  const trace::Trace* t = nullptr;
  const trace::Record* r = nullptr;
  const trace::Site* site = nullptr;
  std::string array;
  bool global = true;
  analysis::GlobalCost g;
  analysis::SharedCost s;
  uint64_t requests = 0;  // of the focused warp at the site
  uint64_t copy_bytes = 0;  // a bulk copy's: the bytes of every record of its issue (its seq)
  uint64_t record = 0;      // the focused request's index in t->records
  mutable std::optional<analysis::SiteStats> stats;

  const analysis::SiteStats& site_stats() const {
    if (!stats) {
      analysis::DramModel m;
      analysis::dram_preset("textbook", m);
      stats = analysis::analyze(*t, m).sites.at(r->site);
    }
    return *stats;
  }
};

bool site_level(Metric m) {
  return m == Metric::SiteSectors || m == Metric::SiteEfficiency || m == Metric::SiteWavefronts ||
         m == Metric::SiteConflicts || m == Metric::SiteWay;
}

// The value of a number metric, or an error line when it does not apply.
double value(Metric m, const Facts& f, const std::string& where) {
  auto need = [&](bool global) {
    if (f.global == global) return;
    throw LessonError(where + ": '" + info(m).name + "' is about " + (global ? "global" : "shared") +
                      " memory, but " + f.array + " is in " + (f.global ? "global" : "shared") + " memory");
  };
  switch (m) {
    case Metric::Sectors: need(true); return f.g.sectors;
    case Metric::Lines: need(true); return f.g.lines;
    case Metric::IdealSectors: need(true); return f.g.ideal_sectors;
    case Metric::Efficiency: need(true); return f.g.efficiency * 100.0;
    case Metric::Wavefronts: need(false); return f.s.wavefronts;
    case Metric::Way: need(false); return f.s.max_way;
    case Metric::Conflicts: need(false); return f.s.conflicts;
    case Metric::Requests: return double(f.requests);
    case Metric::SiteSectors: need(true); return f.site_stats().sectors_per_request;
    case Metric::SiteEfficiency: need(true); return f.site_stats().efficiency * 100.0;
    case Metric::SiteWavefronts: need(false); return f.site_stats().wavefronts_per_request;
    case Metric::SiteConflicts: need(false); return f.site_stats().conflicts_per_request;
    case Metric::SiteWay: need(false); return f.site_stats().max_way;
    case Metric::CopyBytes:
    case Metric::StagesFit:
      if (!f.copy_bytes)
        throw LessonError(where + ": '" + info(m).name + "' is about a bulk (TMA) copy, but the focused " + f.array + " " +
                          trace::to_string(f.site->op) + " is not one");
      return m == Metric::CopyBytes ? double(f.copy_bytes) : std::floor(double(kSharedPerBlock) / double(f.copy_bytes));
    case Metric::MulticastBytes: {
      if (!f.copy_bytes || f.site->form != trace::Form::BulkRead)
        throw LessonError(where + ": 'multicast_bytes' is about the global read of a bulk (TMA) copy, but the focused " +
                          f.array + " " + trace::to_string(f.site->op) + " is not one");
      // The other CTAs of the cluster that received this instruction's copies from the
      // focused CTA's rank (analysis/cluster.h: a multicast's fan-out).
      const uint32_t rank = analysis::cluster_rank(f.t->launch(), f.r->block);
      std::set<uint32_t> to;
      for (const analysis::ClusterFanout& fo : analysis::cluster_of(*f.t, f.r->block, f.record).fanouts)
        if (fo.line == f.site->line && std::find(fo.from.begin(), fo.from.end(), rank) != fo.from.end()) to.insert(fo.to);
      return double(to.size() * f.copy_bytes);
    }
    case Metric::RegistersGiven: {
      const uint32_t at_launch = trace::registers_at_launch(f.t->launch().block.count());
      for (const trace::Event& e : f.t->events)
        if (e.launch == f.r->launch && e.block == f.r->block && e.warp == f.r->warp &&
            f.t->event_sites.at(e.site).form == trace::Form::Registers && e.arg < at_launch)
          return double(uint64_t(at_launch - e.arg) * 128);
      throw LessonError(where + ": 'registers_given' is about a warpgroup's setmaxnreg.dec, but warp " +
                        std::to_string(f.r->warp) + " of the focused request runs none");
    }
    case Metric::Coalescing:
    case Metric::BankConflict: break;
  }
  throw LessonError(where + ": '" + info(m).name + "' is a choice, not a number");
}

std::string value_text(Metric m, double v) {
  switch (m) {
    case Metric::Sectors:
    case Metric::IdealSectors: return counted(v, "sector", "sectors");
    case Metric::Lines: return counted(v, "line", "lines");
    case Metric::Efficiency:
    case Metric::SiteEfficiency: return num(v) + "%";
    case Metric::Wavefronts: return counted(v, "wavefront", "wavefronts");
    case Metric::Way:
    case Metric::SiteWay: return num(v) + "-way";
    case Metric::Conflicts: return counted(v, "bank conflict", "bank conflicts");
    case Metric::Requests: return counted(v, "request", "requests");
    case Metric::SiteSectors: return counted(v, "sector", "sectors") + " per request";
    case Metric::SiteWavefronts: return counted(v, "wavefront", "wavefronts") + " per request";
    case Metric::SiteConflicts: return counted(v, "bank conflict", "bank conflicts") + " per request";
    case Metric::CopyBytes: return counted(v, "byte", "bytes");
    case Metric::StagesFit: return counted(v, "stage", "stages");
    case Metric::MulticastBytes: return counted(v, "byte", "bytes");
    case Metric::RegistersGiven: return counted(v, "register", "registers");
    default: return num(v);
  }
}

// A choice answer: its index and the reason, from the metrics.
struct Choice {
  size_t index = 0;
  std::string reason;
};
Choice choose(Metric m, const Facts& f) {
  if (m == Metric::Coalescing) {
    if (!f.global)
      return {2, f.array + " is in shared memory: no sectors there; the question for it is bank conflicts"};
    if (f.g.sectors <= f.g.ideal_sectors)
      return {0, counted(f.g.sectors, "sector", "sectors") + " for " + num(f.g.bytes_requested) +
                     " bytes, the fewest possible"};
    return {1, counted(f.g.sectors, "sector", "sectors") + " where " + num(f.g.ideal_sectors) + " would do"};
  }
  // BankConflict
  if (f.global) return {2, f.array + " is in global memory: it has sectors, not banks"};
  if (f.s.max_way <= 1)
    return {0, counted(f.s.wavefronts, "wavefront", "wavefronts") + ", the fewest possible"};
  return {1, num(f.s.max_way) + "-way: " + counted(f.s.wavefronts, "wavefront", "wavefronts") + " where " +
                 num(f.s.ideal_wavefronts) + " would do"};
}

// The index of a choice the student typed, or -1.
int parse_choice(const std::string& typed, const std::vector<std::string>& choices) {
  std::string s = lower_trim(typed);
  if (s.empty()) return -1;
  if (s.size() == 1 && s[0] >= '1' && s[0] < char('1' + choices.size())) return s[0] - '1';
  auto alias = [](const std::string& choice) -> std::vector<std::string> {
    if (choice == "coalesced") return {"coalesced", "fully coalesced"};
    if (choice == "uncoalesced")
      return {"uncoalesced", "not coalesced", "non-coalesced", "noncoalesced", "un-coalesced", "strided"};
    if (choice == "n/a")
      return {"n/a", "na", "n.a", "n-a", "not applicable", "does not apply", "doesn't apply", "none"};
    if (choice == "conflict-free")
      return {"conflict-free", "conflict free", "no conflict", "no conflicts", "no bank conflict", "free"};
    if (choice == "bank conflict")
      return {"bank conflict", "bank conflicts", "conflict", "conflicts", "conflicted", "bank-conflict"};
    return {choice};
  };
  for (size_t i = 0; i < choices.size(); ++i)
    for (const auto& a : alias(choices[i]))
      if (s == a) return int(i);
  // "n/a (shared memory)" and the like: a choice followed by a remark in brackets.
  if (size_t p = s.find(" ("); p != std::string::npos) return parse_choice(s.substr(0, p), choices);
  return -1;
}

// The number a student typed: "32", "32-way", "12.5%", "4 sectors". No second number.
std::optional<double> parse_number(const std::string& typed) {
  std::string s = lower_trim(typed);
  if (s.empty()) return std::nullopt;
  const char* begin = s.c_str();
  char* end = nullptr;
  double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v)) return std::nullopt;
  for (const char* p = end; *p; ++p)
    if (std::isdigit(static_cast<unsigned char>(*p))) return std::nullopt;
  return v;
}

// Fills {answer}, {why}, {array}, {line}, {code} and the number metrics.
std::string fill(const std::string& text, const Resolved& r, const Facts& f, const std::string& where) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t open = text.find('{', pos);
    if (open == std::string::npos) break;
    size_t close = text.find('}', open);
    if (close == std::string::npos) break;
    out += text.substr(pos, open - pos);
    std::string name = text.substr(open + 1, close - open - 1);
    if (name == "answer") out += r.answer.text;
    else if (name == "why") out += r.why;
    else if (name == "array") out += f.array;
    else if (name == "line") out += std::to_string(f.site->line);
    else if (name == "code") out += f.site->code;
    else {
      bool found = false;
      for (const auto& m : metrics())
        if (name == m.name && m.choices.empty()) {
          out += num(value(m.metric, f, where + ": after {" + name + "}"));
          found = true;
        }
      if (!found) out += "{" + name + "}";
    }
    pos = close + 1;
  }
  return out + text.substr(pos);
}

// Why a bulk copy's figure is what it is: one thread's instruction moving the whole box,
// which the trace keeps as records of 512 bytes (32 pieces of 16 bytes, not 32 threads).
std::string copy_why(Metric m, const Facts& f, double v) {
  const uint64_t records = f.copy_bytes / 512 + (f.copy_bytes % 512 != 0);
  const std::string one = "one thread's bulk copy moves " + num(double(f.copy_bytes)) + " bytes (the trace keeps them as " +
                          std::to_string(records) + " record" + (records == 1 ? "" : "s") + " of up to 512 bytes)";
  if (m == Metric::StagesFit) {
    const uint64_t n = kSharedPerBlock / f.copy_bytes;
    return "227 KiB (" + std::to_string(kSharedPerBlock) + " bytes) hold " + std::to_string(n) + " whole copies: " +
           std::to_string(n) + " × " + std::to_string(f.copy_bytes) + " = " + std::to_string(n * f.copy_bytes) +
           " bytes; " + one;
  }
  if (m == Metric::MulticastBytes)
    return v > 0 ? one + ", and the multicast lands them in " + num(v / double(f.copy_bytes)) +
                       " other CTA" + (v == double(f.copy_bytes) ? "" : "s") + " of the cluster as well"
                 : one + ", into the issuing CTA alone: no multicast";
  return one;
}

std::string site_list(const trace::Trace& t) {
  std::string s;
  for (const auto& site : t.sites) {
    std::string name = site.buffer < t.buffers.size() ? t.buffers[site.buffer].name : "?";
    s += (s.empty() ? "" : ", ") + name + " " + trace::to_string(site.op) + " (line " + std::to_string(site.line) + ")";
  }
  return s.empty() ? "none" : s;
}

}  // namespace

Resolved resolve_step(const Step& step, const trace::Trace& t) {
  Resolved r;
  r.question = step.question;
  if (!step.focus) return r;
  const Focus& fo = *step.focus;
  const std::string& where = step.where;

  // The site.
  int site = -1;
  if (fo.names_site()) {
    const std::string want_code = remove_blanks(fo.code);
    for (size_t i = 0; i < t.sites.size(); ++i) {
      const trace::Site& s = t.sites[i];
      const std::string name = s.buffer < t.buffers.size() ? t.buffers[s.buffer].name : "";
      if (!fo.array.empty() && name != fo.array) continue;
      if (fo.op && s.op != *fo.op) continue;
      if (fo.line && s.line != fo.line) continue;
      if (!want_code.empty() && remove_blanks(s.code).find(want_code) == std::string::npos) continue;
      if (site < 0 || s.line < t.sites[size_t(site)].line) site = int(i);
    }
    if (site < 0) {
      std::string what = fo.array.empty() ? std::string("an access") : fo.array;
      if (fo.op) what += std::string(" ") + trace::to_string(*fo.op);
      if (!fo.code.empty()) what += " in '" + fo.code + "'";
      if (fo.line) what += " on line " + std::to_string(fo.line);
      throw LessonError(where + ": no site matches " + what + " in " + t.launch().kernel + "; its sites: " + site_list(t));
    }
  }

  // The block, the warp and the request.
  if (std::find(t.launch().blocks.begin(), t.launch().blocks.end(), fo.block) == t.launch().blocks.end())
    throw LessonError(where + ": block " + std::to_string(fo.block) + " was not recorded");
  std::vector<uint64_t> hits;
  for (size_t i = 0; i < t.records.size(); ++i) {
    const trace::Record& rec = t.records[i];
    if (rec.block == fo.block && rec.warp == fo.warp && (site < 0 || rec.site == uint32_t(site))) hits.push_back(i);
  }
  std::stable_sort(hits.begin(), hits.end(), [&](uint64_t a, uint64_t b) { return t.records[a].seq < t.records[b].seq; });
  const std::string warp_text = "block " + std::to_string(fo.block) + " warp " + std::to_string(fo.warp);
  if (fo.request >= hits.size()) {
    std::string at = site >= 0 ? " at line " + std::to_string(t.sites[size_t(site)].line) : "";
    throw LessonError(where + ": " + warp_text + " issues " + std::to_string(hits.size()) + " request" +
                      (hits.size() == 1 ? "" : "s") + at + "; its request " + std::to_string(fo.request + 1) +
                      " does not exist");
  }
  r.record = hits[fo.request];
  const trace::Record& rec = t.records[r.record];
  if (rec.site >= t.sites.size()) throw LessonError(where + ": the trace names a site it does not have");
  if (!analysis::cost_modelled(t.sites[rec.site].space))
    throw LessonError(where + ": the focused access reaches another CTA's shared memory, which has no cost model to ask about");
  r.site = int32_t(rec.site);

  Facts f;
  f.t = &t;
  f.r = &rec;
  f.site = &t.sites[rec.site];
  f.array = f.site->buffer < t.buffers.size() ? t.buffers[f.site->buffer].name : "?";
  f.global = f.site->space == Space::Global;
  f.record = r.record;
  if (f.global) f.g = analysis::global_cost(*f.site, rec);
  else f.s = analysis::shared_cost(*f.site, rec);
  const bool bulk = f.site->form == trace::Form::BulkRead || f.site->form == trace::Form::BulkWrite;
  for (const auto& rr : t.records)
    if (rr.block == rec.block && rr.warp == rec.warp && rr.site == rec.site) ++f.requests;
  if (bulk) {
    const auto [first, last] = analysis::bulk_issue(t, size_t(&rec - t.records.data()));
    for (size_t j = first; j < last; ++j) f.copy_bytes += uint64_t(std::popcount(t.records[j].active)) * f.site->bytes;
  }

  r.code = f.site->code;
  // The request as the app's timeline, --step and captions number it (from 1), and which
  // of the warp's requests at this site it is when not the first.
  const std::string nth = fo.request ? " (its request " + std::to_string(fo.request + 1) + " here)" : "";
  r.focus = "line " + std::to_string(f.site->line) + " · " + f.array + " " + trace::to_string(f.site->op) + " (" +
            trace::to_string(f.site->space) + ") · " + warp_text + nth + " · request " + std::to_string(r.record + 1) +
            " of " + std::to_string(t.records.size());
  r.why = analysis::why(t, rec);

  if (r.question) {
    const Metric m = r.question->ask;
    if (r.question->is_choice()) {
      Choice c = choose(m, f);
      r.answer.value = double(c.index);
      r.answer.text = r.question->choices[c.index];
      r.why = c.reason + "; " + r.why;
    } else {
      r.answer.value = value(m, f, where);
      r.answer.text = value_text(m, r.answer.value);
      if (site_level(m))
        r.why = f.site_stats().why + " (average over " + std::to_string(f.site_stats().requests) + " recorded requests)";
      if (m == Metric::Requests)
        r.why = warp_text + " runs this access " + std::to_string(f.requests) + " time" + (f.requests == 1 ? "" : "s") +
                " (line " + std::to_string(f.site->line) + ", " + f.array + " " + trace::to_string(f.site->op) + ")";
      if (m == Metric::CopyBytes || m == Metric::StagesFit || m == Metric::MulticastBytes) r.why = copy_why(m, f, r.answer.value);
      if (m == Metric::RegistersGiven) {
        const uint64_t threads = f.t->launch().block.count();
        const uint32_t at_launch = trace::registers_at_launch(threads);
        r.why = "65,536 registers / " + std::to_string(threads) + " threads = " + std::to_string(at_launch) +
                " a thread at launch (in eights); setmaxnreg.dec keeps " +
                std::to_string(at_launch - uint32_t(r.answer.value) / 128) + ", so each of the warpgroup's 128 threads gives " +
                std::to_string(uint32_t(r.answer.value) / 128) + " back";
      }
    }
  }
  if (!step.after.empty()) r.after = fill(step.after, r, f, where);
  return r;
}

// Where to look for a metric's figure: what a wrong answer's feedback says instead of the
// figure itself.
std::string where_to_look(Metric m) {
  switch (m) {
    case Metric::Sectors:
      return "count the sectors the active lanes' addresses fall in (lanes in one sector share it)";
    case Metric::Lines: return "count the cache lines the active lanes' addresses fall in";
    case Metric::IdealSectors:
      return "take the bytes the active lanes ask for and pack them into as few sectors as they could fill";
    case Metric::Efficiency: return "divide the bytes the lanes ask for by the bytes of the sectors that are fetched";
    case Metric::Wavefronts:
      return "find each lane's bank (its word's number modulo the bank count); the bank with the most different words "
             "sets the passes";
    case Metric::Way:
      return "for each bank, count the different words the lanes reach in it; the largest count is the n-way";
    case Metric::Conflicts: return "count the passes the most crowded bank forces beyond the one a conflict-free access needs";
    case Metric::Requests: return "count how many times the focused warp runs this access (every loop trip is one)";
    case Metric::SiteSectors:
    case Metric::SiteEfficiency:
      return "work out one typical request of the line (its lanes' sectors), then think whether the others differ";
    case Metric::SiteWavefronts:
    case Metric::SiteConflicts:
    case Metric::SiteWay:
      return "work out the banks of one typical request of the line, then think whether the others differ";
    case Metric::CopyBytes: return "multiply the box's rows by its row's bytes (its columns times the element's size)";
    case Metric::StagesFit: return "divide 227 KiB (232,448 bytes) by the bytes one copy brings, and round down";
    case Metric::MulticastBytes:
      return "count the other CTAs of the cluster the box lands in (the multicast's mask), and the bytes each receives";
    case Metric::RegistersGiven:
      return "share the SM's 65,536 registers among the block's threads (in eights) for the count at launch, subtract "
             "the setmaxnreg.dec count, and multiply by the warpgroup's 128 threads";
    case Metric::Coalescing:
      return "look at how far apart consecutive lanes' addresses are, and which memory the array lives in";
    case Metric::BankConflict:
      return "look at which memory the array lives in, and whether two lanes reach different words of one bank";
  }
  return "look at the lanes' addresses again";
}

Verdict Resolved::check(const std::string& student) const {
  Verdict v;
  if (!question) {
    v.explanation = "this step asks nothing";
    return v;
  }
  if (question->is_choice()) {
    int i = parse_choice(student, question->choices);
    if (i < 0) {
      std::string opts;
      for (const auto& c : question->choices) opts += (opts.empty() ? "" : ", ") + c;
      v.explanation = "Answer with one of: " + opts;
      return v;
    }
    v.understood = true;
    v.correct = size_t(i) == size_t(answer.value);
    v.explanation = v.correct ? "Right: " + answer.text + " — " + why
                              : "Not quite: you said " + question->choices[size_t(i)] + ". Look again: " +
                                    where_to_look(question->ask) + ".";
    return v;
  }
  auto x = parse_number(student);
  if (!x) {
    v.explanation = "Answer with a number, such as 4 or 12.5";
    return v;
  }
  v.understood = true;
  v.correct = std::fabs(*x - answer.value) <= question->tolerance + 1e-9;
  if (v.correct)
    v.explanation = "Right: " + answer.text + " — " + why;
  else
    v.explanation = "Not quite: you said " + num(*x) + ". Look again: " + where_to_look(question->ask) + ".";
  return v;
}

std::string wrong_answer(const Resolved& r) {
  if (!r.question) return "";
  if (r.question->is_choice()) {
    for (size_t i = 0; i < r.question->choices.size(); ++i)
      if (i != size_t(r.answer.value)) return r.question->choices[i];
    return "";
  }
  double a = r.answer.value, tol = r.question->tolerance;
  double w = a == 0 ? 1 : a * 2;
  if (std::fabs(w - a) <= tol) w = a + tol + 1;
  return num(w);
}

const trace::Trace& Traces::get(const StepLaunch& l) {
  for (const auto& [launch, t] : cache_)
    if (launch == l) return t;
  cache_.emplace_back(l, rec_(l));
  return cache_.back().second;
}

RunReport run(const Lesson& lesson, const Recorder& rec) {
  RunReport rep;
  Traces traces(rec);
  rep.ok = true;
  for (size_t i = 0; i < lesson.steps.size(); ++i) {
    const Step& s = lesson.steps[i];
    StepRun sr;
    sr.step = i;
    try {
      const trace::Trace& t = traces.get(s.launch);
      sr.resolved = resolve_step(s, t);
      sr.ok = true;
      if (sr.resolved.question) {
        ++rep.questions;
        sr.right = sr.resolved.check(sr.resolved.answer.text);
        const std::string wrong = wrong_answer(sr.resolved);
        sr.wrong = sr.resolved.check(wrong);
        if (!sr.right.correct) {
          sr.ok = false;
          sr.error = s.where + ": the computed answer '" + sr.resolved.answer.text + "' was not accepted: " +
                     sr.right.explanation;
        } else if (!sr.wrong.understood || sr.wrong.correct || sr.wrong.explanation.empty()) {
          sr.ok = false;
          sr.error = s.where + ": the wrong answer '" + wrong + "' was not rejected: " + sr.wrong.explanation;
        }
      }
    } catch (const LessonError& e) {
      sr.error = e.what();
    } catch (const std::exception& e) {
      sr.error = s.where + ": " + e.what();
    }
    rep.ok &= sr.ok;
    rep.steps.push_back(std::move(sr));
  }
  return rep;
}

}  // namespace ws::lesson
