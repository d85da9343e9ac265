// tests/ptx/diff/diff_check.cpp — running the differential test's cases on the emulated
// device and judging its results against the GPU's (diff_check.h).
#include "diff_check.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include "ptx/machine.h"
#include "ptx/ptx.h"

namespace ws::ptxdiff {

namespace {

// Far more than any case needs: a case that loops is stopped rather than waited for.
constexpr uint64_t kCaseBudget = 1'000'000;

double as_float(const std::string& type, uint64_t v) {
  return type == "f64" ? std::bit_cast<double>(v) : double(std::bit_cast<float>(uint32_t(v)));
}

// The distance between two floats of one type in units in the last place, counting through
// zero (the bit patterns ordered as integers).
uint64_t ulps_apart(const std::string& type, uint64_t a, uint64_t b) {
  auto ordered = [&](uint64_t v) -> int64_t {
    if (type == "f64") return (v >> 63) ? -int64_t(v & ~(1ull << 63)) : int64_t(v);
    const uint32_t u = uint32_t(v);
    return (u >> 31) ? -int64_t(u & 0x7fffffffu) : int64_t(u);
  };
  const int64_t x = ordered(a), y = ordered(b);
  return x > y ? uint64_t(x - y) : uint64_t(y - x);
}

// One unit in the last place at x's magnitude, in x's type.
double ulp_at(const std::string& type, double x) {
  x = std::fabs(x);
  if (type == "f64") return std::nextafter(x, INFINITY) - x;
  const float f = float(x);
  return double(std::nextafter(f, INFINITY)) - double(f);
}

std::string hex(uint64_t v, const std::string& type) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%0*llx", int(2 * type_bytes(type)), static_cast<unsigned long long>(v));
  return buf;
}

// "thread 3 (3f800000 00000001): gpu 3f800000, interpreter 3f800001"
std::string describe(const Case& c, size_t t, const std::vector<uint64_t>& mine) {
  std::string s = "thread " + std::to_string(t) + " (";
  for (size_t i = 0; i < c.ins.size(); ++i) s += (i ? " " : "") + hex(c.inputs[t][i], c.ins[i]);
  s += "): gpu";
  for (size_t i = 0; i < c.outs.size(); ++i) s += " " + hex(c.outputs[t][i], c.outs[i]);
  s += ", interpreter";
  for (size_t i = 0; i < c.outs.size(); ++i) s += " " + hex(mine[i], c.outs[i]);
  return s;
}

}  // namespace

namespace {

// Case c on `dev`, its module loaded: fresh arrays of operands and results, one launch.
Run run_case(ptx::Device& dev, const Case& c) {
  Run r;
  try {
    const size_t nin = std::max<size_t>(1, c.ins.size()), nout = c.outs.size();
    std::vector<uint64_t> in(c.threads * nin, 0), out(c.threads * nout, 0);
    for (uint32_t t = 0; t < c.threads; ++t)
      for (size_t i = 0; i < c.ins.size(); ++i) in[t * nin + i] = c.inputs[t][i];
    const uint64_t din = dev.malloc(in.size() * 8, "in"), dout = dev.malloc(out.size() * 8, "out");
    dev.to_device(din, in.data(), in.size() * 8);
    dev.to_device(dout, out.data(), out.size() * 8);
    std::vector<uint8_t> params(16);
    std::memcpy(params.data(), &din, 8);
    std::memcpy(params.data() + 8, &dout, 8);
    trace::Trace tr;
    trace::Builder b(tr);
    dev.launch({c.kernel, {1, 1, 1}, {c.threads, 1, 1}, 0, params}, b, kCaseBudget);
    // On the compiling engine, a case the interpreter ran instead would prove nothing.
    if (dev.engine() == ptx::Engine::Compiled && tr.launches.at(0).engine != "compiled")
      throw std::runtime_error("ran on the interpreter, not the compiling engine: " + dev.engine_note());
    dev.to_host(out.data(), dout, out.size() * 8);
    dev.free(din);
    dev.free(dout);
    r.outputs.assign(c.threads, std::vector<uint64_t>(nout));
    for (uint32_t t = 0; t < c.threads; ++t)
      for (size_t i = 0; i < nout; ++i) {
        const uint32_t bytes = type_bytes(c.outs[i]);
        const uint64_t v = out[t * nout + i];
        r.outputs[t][i] = bytes >= 8 ? v : v & ((1ull << (8 * bytes)) - 1);
      }
  } catch (const std::exception& e) {  // ptx::Fault from the machine
    r.refused = true;
    r.why = e.what();
  }
  return r;
}

// With WS_TEST_ENGINE=compiled, the cases run on the compiling engine: every case that
// decodes joins one module, compiled once (a module a case would take a second each), its
// cache in WS_TEST_ENGINE_CACHE. A case that does not decode is refused as it would be alone.
bool on_compiling_engine() {
  const char* e = std::getenv("WS_TEST_ENGINE");
  return e && std::string(e) == "compiled";
}

struct Together {
  std::unique_ptr<ptx::Device> dev;
  std::set<std::string> kernels;  // the cases in it, by name
};

Together together(const Module& m, const std::vector<Case>& cases) {
  Together t;
  std::string text = m.header;
  for (const Case& c : cases) {
    auto it = m.cases.find(c.name);
    if (it == m.cases.end()) continue;
    try {
      ptx::parse(m.header + it->second, c.name + ".ptx");
    } catch (const std::exception&) {
      continue;
    }
    text += it->second;
    t.kernels.insert(c.name);
  }
  ptx::EngineOptions o;
  const char* cache = std::getenv("WS_TEST_ENGINE_CACHE");
  o.cache_dir = cache ? cache : "";
  o.wait = true;
  // -O0: the same generated text and semantic functions, compiled in half the time of a long
  // module's -O1 (18 MB of C++: 102 s against 197 s a part on one core). Optimized code is
  // what the programs' comparison of the two engines runs (test_engines.cpp, -O2).
  o.opt_level = 0;
  t.dev = std::make_unique<ptx::Device>();
  t.dev->engine(ptx::Engine::Compiled, o);
  t.dev->load(ptx::parse(text, "ptx_diff.ptx"));
  return t;
}

Together* shared_module = nullptr;  // while check_all runs on the compiling engine

}  // namespace

Run run_on_interpreter(const std::string& module_header, const std::string& case_text, const Case& c) {
  if (shared_module && shared_module->kernels.count(c.name)) return run_case(*shared_module->dev, c);
  try {
    ptx::Device dev;
    dev.load(ptx::parse(module_header + case_text, c.name + ".ptx"));
    return run_case(dev, c);
  } catch (const std::exception& e) {  // ptx::Error from the parser
    Run r;
    r.refused = true;
    r.why = e.what();
    return r;
  }
}

namespace {

// One bound of a tolerance ("ulp:2", "rel:-22.9", "abs:-20.5", "ulp:2:divisor").
bool within(const Case& c, const std::string& bound_spec, const std::string& type, uint64_t gpu, uint64_t mine,
            const std::vector<uint64_t>& inputs) {
  std::istringstream tol(bound_spec);
  std::string kind, bound_s, domain;
  std::getline(tol, kind, ':');
  std::getline(tol, bound_s, ':');
  std::getline(tol, domain, ':');
  char* end = nullptr;
  const double bound = std::strtod(bound_s.c_str(), &end);
  if (bound_s.empty() || *end || (kind != "ulp" && kind != "rel" && kind != "abs") ||
      (!domain.empty() && domain != "divisor" && domain != "angle"))
    throw FormatError("case '" + c.name + "': unknown tolerance '" + c.tol + "'");
  const double g = as_float(type, gpu), m = as_float(type, mine);
  if (domain == "divisor") {  // outside [2^-126, 2^126] the ISA states no bound
    const double b = std::fabs(as_float(c.ins.at(1), inputs.at(1)));
    if (!(b >= std::ldexp(1.0, -126) && b <= std::ldexp(1.0, 126))) return true;
  }
  if (domain == "angle" && !(std::fabs(as_float(c.ins.at(0), inputs.at(0))) <= 3.1415927)) return true;
  // The interpreter's own rounding of the exact value adds up to one unit in the last place.
  if (kind == "ulp") return ulps_apart(type, gpu, mine) <= uint64_t(bound) + 1;
  const double slack = ulp_at(type, g);
  if (kind == "rel") return std::fabs(m - g) <= std::exp2(bound) * std::fabs(g) + slack;
  return std::fabs(m - g) <= std::exp2(bound) + slack;
}

}  // namespace

bool agrees(const Case& c, size_t i, uint64_t gpu, uint64_t mine, const std::vector<uint64_t>& inputs) {
  const std::string& type = c.outs[i];
  if (c.tol == "exact" || (type != "f32" && type != "f64")) return gpu == mine;
  const double g = as_float(type, gpu), m = as_float(type, mine);
  bool ok = false;
  std::istringstream alternatives(c.tol);
  for (std::string one; std::getline(alternatives, one, '|');) ok = within(c, one, type, gpu, mine, inputs) || ok;
  if (std::isnan(g) || std::isnan(m)) return std::isnan(g) && std::isnan(m);
  if (std::isinf(g) || std::isinf(m) || (g == 0 && m == 0)) return gpu == mine;
  return ok;
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Matched: return "matched";
    case Outcome::Differs: return "differs";
    case Outcome::Refused: return "refused";
    case Outcome::Missing: return "missing";
  }
  return "?";
}

namespace {

// A case of the generated module run on the interpreter with the fixture's operands, held to
// today's tolerance (a judgement about the ISA, not something the GPU recorded): the run,
// and which threads differ from the GPU.
struct Compared {
  Case gpu;
  Run run;
  std::vector<size_t> differing;
};
Compared compare(const Module& m, const Case& c, const Case& fixture_case) {
  Compared out{fixture_case, {}, {}};
  out.gpu.tol = c.tol;
  auto text = m.cases.find(c.name);
  if (text == m.cases.end()) throw FormatError("case '" + c.name + "' is not in the generated module");
  out.run = run_on_interpreter(m.header, text->second, out.gpu);
  if (out.run.refused) return out;
  for (size_t t = 0; t < out.gpu.threads; ++t) {
    bool same = true;
    for (size_t i = 0; i < out.gpu.outs.size(); ++i)
      same = same && agrees(out.gpu, i, out.gpu.outputs[t][i], out.run.outputs[t][i], out.gpu.inputs[t]);
    if (!same) out.differing.push_back(t);
  }
  return out;
}

}  // namespace

std::vector<Verdict> check_all(const std::string& ptx, const std::vector<Case>& cases, const Fixture& fixture) {
  const Module m = split_module(ptx);
  Together compiled;
  if (on_compiling_engine()) {
    compiled = together(m, cases);
    shared_module = &compiled;
  }
  struct Done {
    ~Done() { shared_module = nullptr; }
  } done;
  std::vector<Verdict> out;
  for (const Case& c : cases) {
    Verdict v;
    v.name = c.name;
    if (!m.cases.count(c.name)) throw FormatError("case '" + c.name + "' is not in the generated module");
    auto f = fixture.cases.find(c.name);
    if (f == fixture.cases.end() || f->second.hash != c.hash) {
      v.outcome = Outcome::Missing;
      v.detail = f == fixture.cases.end() ? "new since the fixture" : "changed since the fixture";
      out.push_back(v);
      continue;
    }
    const Compared r = compare(m, c, f->second);
    if (r.run.refused) {
      v.outcome = Outcome::Refused;
      v.detail = r.run.why;
    } else if (!r.differing.empty()) {
      v.outcome = Outcome::Differs;
      v.threads_differing = r.differing.size();
      v.detail = std::to_string(r.differing.size()) + " of " + std::to_string(r.gpu.threads) + " threads; " +
                 describe(r.gpu, r.differing[0], r.run.outputs[r.differing[0]]);
    }
    out.push_back(v);
  }
  return out;
}

std::vector<std::string> differing_threads(const std::string& ptx, const Case& c, const Case& fixture_case) {
  const Compared r = compare(split_module(ptx), c, fixture_case);
  if (r.run.refused) return {"refused: " + r.run.why};
  std::vector<std::string> lines;
  for (size_t t : r.differing) lines.push_back(describe(r.gpu, t, r.run.outputs[t]));
  return lines;
}

std::map<std::string, Outcome> read_known(const std::string& text, const std::string& file) {
  std::map<std::string, Outcome> known;
  std::istringstream in(text);
  std::string l;
  size_t line = 0;
  while (std::getline(in, l)) {
    ++line;
    if (l.empty() || l[0] == '#') continue;
    const size_t a = l.find(" | "), b = a == std::string::npos ? a : l.find(" | ", a + 3);
    const std::string what = a == std::string::npos ? "" : l.substr(a + 3, b == std::string::npos ? b : b - a - 3);
    if (what != "differs" && what != "refused")
      throw FormatError(file + ":" + std::to_string(line) + ": expected 'NAME | differs|refused | reason'");
    known[l.substr(0, a)] = what == "differs" ? Outcome::Differs : Outcome::Refused;
  }
  return known;
}

std::vector<std::string> unexpected(const std::vector<Verdict>& verdicts, const std::map<std::string, Outcome>& known) {
  std::vector<std::string> lines;
  std::set<std::string> seen;
  for (const Verdict& v : verdicts) {
    seen.insert(v.name);
    auto k = known.find(v.name);
    if (v.outcome == Outcome::Missing) {
      lines.push_back(v.name + ": no GPU results (" + v.detail + ")");
    } else if (k == known.end()) {
      // A refusal is the interpreter saying so in one line, never a wrong result: the test
      // counts and names it rather than failing on it.
      if (v.outcome == Outcome::Differs) lines.push_back(v.name + ": differs: " + v.detail);
    } else if (v.outcome == Outcome::Matched) {
      lines.push_back(v.name + ": matches the GPU now: remove it from the known differences");
    } else if (k->second != v.outcome) {
      lines.push_back(v.name + ": listed as " + outcome_name(k->second) + ", now " + outcome_name(v.outcome) + ": " +
                      v.detail);
    }
  }
  for (const auto& [name, o] : known)
    if (!seen.count(name)) lines.push_back(name + ": listed in the known differences, but no case has that name");
  return lines;
}

}  // namespace ws::ptxdiff
